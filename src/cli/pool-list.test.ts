/**
 * The CLI's `--config` names through the pool: `mcpkit list --config FILE` lists every server
 * of the file under SERVER.NAME (a broken one reported, exit 4, the others listed), `mcpkit
 * call --config FILE SERVER.TOOL` routes to that server, and the file is read by the shared
 * reader (comments allowed, a bad field named with its file and server).
 */

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { SUITE_TIMEOUT_MS } from '../../test/helpers/bounds.js';
import { BIN, runCli } from '../../test/helpers/cli/cli-run.js';
import { REPO_ROOT } from '../../test/helpers/repo.js';

const EVERYTHING = join(REPO_ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');

describe('mcpkit list/call --config through the pool', { timeout: SUITE_TIMEOUT_MS }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-pool-cli-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'mcp.json');
  writeFileSync(
    file,
    `{
      // JSONC, as Cursor and VS Code write it
      "mcpServers": {
        "demo": { "command": ${JSON.stringify(process.execPath)}, "args": [${JSON.stringify(BIN)}, "demo"] },
        "everything": { "command": ${JSON.stringify(process.execPath)}, "args": [${JSON.stringify(EVERYTHING)}, "stdio"] },
        "broken": { "command": ${JSON.stringify(join(dir, 'no-such-server'))} },
      },
    }`,
  );

  it('lists every server of the file under SERVER.NAME, reporting the broken one (exit 4)', async () => {
    const run = await runCli(['list', 'tools', '--config', file, '--json', '--quiet', '--timeout', '20000']);
    assert.equal(run.code, 4, run.stderr);
    const tools = (JSON.parse(run.stdout) as { tools: Array<{ name: string; server: string }> }).tools;
    const names = new Set(tools.map((t) => t.name));
    assert.ok(names.has('demo.echo') && names.has('everything.echo'), [...names].join());
    assert.deepEqual(new Set(tools.map((t) => t.server)), new Set(['demo', 'everything']));
    assert.match(run.stderr, /server "broken" could not be used: .*(ENOENT|no-such-server)/);
  });

  it('calls SERVER.TOOL on its server', async () => {
    const run = await runCli(['call', '--config', file, 'everything.echo', 'message=through the pool']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /Echo: through the pool/);
  });

  it('names the file, the server and the field of a bad entry', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{ "mcpServers": { "x": { "command": "node", "args": ["ok", 7] } } }');
    const run = await runCli(['list', '--config', bad]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /bad\.json: server "x": "args\[1\]": must be a string/);
  });
});
