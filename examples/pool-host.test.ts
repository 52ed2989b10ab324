/**
 * The pool host example (examples/pool-host.ts) works as documented: two demo servers and
 * server-everything over stdio plus one that cannot start, from one JSONC file; the broken
 * one is reported and the others are used, the search picks an echo tool and the call is
 * routed to its server.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { SUITE_TIMEOUT_MS } from '../test/helpers/bounds.js';
import { BIN } from '../test/helpers/cli/cli-run.js';
import { REPO_ROOT } from '../test/helpers/repo.js';
import { runHost } from './pool-host.js';

describe('examples/pool-host.ts', { timeout: SUITE_TIMEOUT_MS }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-pool-host-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('connects every server, searches the merged tools and calls the best one on its server', async () => {
    const everything = join(REPO_ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
    const file = join(dir, 'mcp.json');
    writeFileSync(
      file,
      `{ "mcpServers": {
          "demo": { "command": ${JSON.stringify(process.execPath)}, "args": [${JSON.stringify(BIN)}, "demo"] }, // the mcpkit demo
          "everything": { "command": ${JSON.stringify(process.execPath)}, "args": [${JSON.stringify(everything)}, "stdio"] },
          "gone": { "command": ${JSON.stringify(join(dir, 'missing'))} },
      } }`,
    );
    const lines: string[] = [];
    const run = await runHost(file, 'echo back a message', { message: 'from the host' }, (l) => lines.push(l));
    assert.deepEqual(
      run.statuses.map((s) => [s.name, s.state === 'ready']),
      [
        ['demo', true],
        ['everything', true],
        ['gone', false],
      ],
    );
    // its first attempt failed; with the default backoff it waits to try again
    assert.equal(run.statuses[2]!.state, 'reconnecting');
    assert.match(run.statuses[2]!.lastError!, /ENOENT|missing/);
    assert.ok(run.candidates.length > 0 && run.candidates.length <= 5);
    assert.match(run.called!.tool, /^(demo|everything)\.echo$/);
    assert.match(JSON.stringify(run.called!.result.content), /from the host/);
    assert.ok(
      lines.some((l) => l.startsWith('[gone] ')),
      lines.join('\n'),
    );
  });
});
