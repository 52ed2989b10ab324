// Concurrent `mcpkit install --yes` into one config (issue 35 §1, "lost updates"): before the
// lock, up to three of eight processes said "added" and were not in the file. With the lock
// file, every process that exits 0 is in the file, and a lock left by a dead process does not
// block anyone.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli, tempDir } from '../helpers/cli/install.js';

const PROCESSES = 8;

for (const [label, initial] of [
  ['JSON', '{\n  "mcpServers": {\n    "keep": { "command": "keep-me" }\n  }\n}\n'],
  ['JSONC with comments', '{\n  // mine\n  "mcpServers": {\n    "keep": { "command": "keep-me" }, // keep this\n  },\n}\n'],
] as const) {
  test(`${PROCESSES} concurrent installs into one ${label} file: every "added" is in the file, nothing else lost`, async () => {
    const dir = tempDir();
    const path = join(dir, 'mcp.json');
    writeFileSync(path, initial);
    const results = await Promise.all(
      Array.from({ length: PROCESSES }, (_, i) => runCli(['install', '--config', path, '--yes', '--name', `s${i}`, '--', 'node', `server-${i}.js`])),
    );
    for (const [i, result] of results.entries()) assert.equal(result.code, 0, `process ${i}: ${result.stderr}`);
    const text = readFileSync(path, 'utf8');
    for (let i = 0; i < PROCESSES; i++) assert.ok(text.includes(`"s${i}": {`), `s${i} is in the file:\n${text}`);
    assert.ok(text.includes('"keep": { "command": "keep-me" }'), 'the entry that was there is kept as it was');
    if (label !== 'JSON') assert.ok(text.includes('// mine') && text.includes('// keep this'), 'comments kept');
    assert.deepEqual(
      readdirSync(dir).filter((f) => f !== 'mcp.json' && f !== 'mcp.json.bak'),
      [],
      'no lock or temporary file left behind',
    );
  });
}

test('a lock left by a process that is gone is stale: the install takes it and succeeds', async () => {
  const dir = tempDir();
  const path = join(dir, 'mcp.json');
  writeFileSync(path, '{}\n');
  const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  writeFileSync(`${path}.lock`, `${gone.stdout}\n${hostname()}\n`);
  const result = await runCli(['install', '--config', path, '--yes', '--name', 'demo', '--', 'node', 's.js']);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(existsSync(`${path}.lock`), false);
  assert.deepEqual(JSON.parse(readFileSync(path, 'utf8')).mcpServers.demo, { command: 'node', args: ['s.js'] });
});

test('a lock held by a live process is waited for; the install goes ahead once it is released', async () => {
  const dir = tempDir();
  const path = join(dir, 'mcp.json');
  writeFileSync(path, '{}\n');
  writeFileSync(`${path}.lock`, `${process.pid}\n${hostname()}\n`);
  const pending = runCli(['install', '--config', path, '--yes', '--name', 'demo', '--', 'node', 's.js']);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  assert.equal(JSON.parse(readFileSync(path, 'utf8')).mcpServers, undefined, 'nothing written while the lock is held');
  const { rmSync } = await import('node:fs');
  rmSync(`${path}.lock`);
  const result = await pending;
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(JSON.parse(readFileSync(path, 'utf8')).mcpServers.demo, { command: 'node', args: ['s.js'] });
});
