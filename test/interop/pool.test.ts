/**
 * The client pool against real servers, all in one pool built from an `mcpServers` file:
 * `@modelcontextprotocol/server-everything`, `server-filesystem`, `server-memory` and
 * `server-sequential-thinking` (npm, stdio), an official SDK v2 server over Streamable HTTP
 * (fixtures/v2-server.ts), and the mcpkit demo over HTTP (`mcpkit demo --http`). The catalogue
 * is merged under `server.tool` names, calls are routed, and one server (memory) is killed
 * mid-run: calls to the others keep working, its state shows, and it comes back by itself.
 */

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createPool } from '../../src/client/node/index.js';
import type { ClientPool, PoolServerStatus } from '../../src/client/pool.js';
import type { CallToolResult } from '../../src/types.js';
import { SUITE_TIMEOUT_MS } from '../helpers/bounds.js';
import { BIN, type HttpChild, startHttpChild } from '../helpers/cli/cli-run.js';
import { REPO_ROOT } from '../helpers/repo.js';
import { createV2Endpoint, type FetchServer, serveFetch, type V2Endpoint } from './v2/fixtures/v2-server.js';

const pkg = (name: string, file = 'index.js') => join(REPO_ROOT, 'node_modules', '@modelcontextprotocol', name, 'dist', file);
const T = { timeoutMs: 30_000 };

const text = (result: CallToolResult): string => (result.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('');

async function until(check: () => boolean, what: string, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('a pool of real servers (stdio and HTTP) from one mcpServers file', { timeout: SUITE_TIMEOUT_MS * 2 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-pool-'));
  let v2: V2Endpoint;
  let v2http: FetchServer;
  let demo: HttpChild;
  let pool: ClientPool;
  const stdio = new Map<string, { pid: number | undefined }>();
  const pidOf = (name: string) => stdio.get(name)?.pid;

  before(async () => {
    v2 = createV2Endpoint();
    v2http = await serveFetch((request) => v2.fetch(request));
    demo = await startHttpChild([BIN, 'demo', '--http', '--port', '0']);
    writeFileSync(join(dir, 'note.txt'), 'hello from the filesystem server');
    const config = `{
      // every server of the proof, in one file (JSONC, as hosts write it)
      "mcpServers": {
        "everything": { "command": ${JSON.stringify(process.execPath)}, "args": [${JSON.stringify(pkg('server-everything'))}, "stdio"] },
        "fs": { "command": ${JSON.stringify(process.execPath)}, "args": [${JSON.stringify(pkg('server-filesystem'))}, ${JSON.stringify(dir)}] },
        "memory": { "type": "stdio", "command": ${JSON.stringify(process.execPath)}, "args": [${JSON.stringify(pkg('server-memory'))}], "env": { "MEMORY_FILE_PATH": ${JSON.stringify(join(dir, 'memory.jsonl'))} } },
        "thinking": { "command": ${JSON.stringify(process.execPath)}, "args": [${JSON.stringify(pkg('server-sequential-thinking'))}] },
        "v2": { "type": "http", "url": ${JSON.stringify(v2http.url)} },
        "demo": { "url": ${JSON.stringify(demo.url)} },
      },
    }`;
    writeFileSync(join(dir, 'mcp.json'), config);
    pool = await createPool(join(dir, 'mcp.json'), {
      stderr: 'ignore',
      reconnect: { initialDelayMs: 100, maxDelayMs: 1000 },
      onStdio: (name, transport) => stdio.set(name, transport),
    });
  });

  after(async () => {
    await pool?.close();
    await demo?.stop();
    await v2http?.close();
    await v2?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('connects every server in parallel and merges the catalogue under server.name', async () => {
    const statuses = await pool.connect();
    assert.deepEqual(
      statuses.map((s) => [s.name, s.state, s.lastError]),
      ['everything', 'fs', 'memory', 'thinking', 'v2', 'demo'].map((n) => [n, 'ready', undefined]),
    );
    const names = new Set((await pool.listTools()).map((t) => t.name));
    for (const name of ['everything.echo', 'fs.read_text_file', 'memory.create_entities', 'thinking.sequentialthinking', 'v2.add', 'demo.echo'])
      assert.ok(names.has(name), `${name} is in the catalogue`);
    const servers = new Set((await pool.listTools()).map((t) => t.server));
    assert.equal(servers.size, 6);
    assert.ok((await pool.listPrompts()).some((p) => p.name === 'v2.greet'));
    assert.ok((await pool.listResources()).some((r) => r.server === 'everything'));
    const hits = await pool.searchTools('read a text file', { limit: 5 });
    assert.ok(
      hits.some((t) => t.name === 'fs.read_text_file'),
      hits.map((t) => t.name).join(),
    );
  });

  it('routes calls, prompts and reads to their servers', async () => {
    assert.equal(text(await pool.callTool('everything.echo', { message: 'hi' }, T)), 'Echo: hi');
    assert.equal(text(await pool.callTool('fs.read_text_file', { path: join(dir, 'note.txt') }, T)), 'hello from the filesystem server');
    assert.equal(text(await pool.callTool('v2.add', { a: 2, b: 3 }, T)), '5');
    assert.match(text(await pool.callTool('demo.echo', { message: 'routed' }, T)), /routed/);
    const thought = await pool.callTool('thinking.sequentialthinking', { thought: 'one', thoughtNumber: 1, totalThoughts: 1, nextThoughtNeeded: false }, T);
    assert.notEqual(thought.isError, true, text(thought));
    const prompt = await pool.getPrompt('v2.greet', { who: 'Grace' }, T);
    assert.deepEqual(prompt.messages[0]!.content, { type: 'text', text: 'Please greet Grace.' });
    const resource = (await pool.listResources()).find((r) => r.server === 'everything')!;
    const read = await pool.readResource(resource.uri, T);
    assert.equal(read.contents[0]!.uri, resource.uri);
  });

  it('survives a server killed mid-run: the others keep working, its state shows, and it comes back', async () => {
    await pool.callTool('memory.create_entities', { entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }] }, T);
    const pid = pidOf('memory');
    assert.ok(pid !== undefined, 'the memory server was started');
    const states: PoolServerStatus['state'][] = [];
    const off = pool.on('status', (s) => s.name === 'memory' && states.push(s.state));
    try {
      process.kill(pid, 'SIGKILL');
      await until(() => states.length > 0, 'the pool to notice the exit');
      const down = pool.status().find((s) => s.name === 'memory')!;
      assert.notEqual(down.state, 'ready');
      assert.match(down.lastError ?? '', /SIGKILL/);
      // the others answer meanwhile
      assert.equal(text(await pool.callTool('everything.echo', { message: 'still here' }, T)), 'Echo: still here');
      assert.equal(text(await pool.callTool('v2.add', { a: 1, b: 1 }, T)), '2');
      await until(() => pool.status().find((s) => s.name === 'memory')!.state === 'ready', 'memory to come back');
      assert.notEqual(pidOf('memory'), pid, 'a new process');
      const graph = await pool.callTool('memory.read_graph', {}, T);
      assert.match(text(graph), /Ada/, 'the restarted server reads its file');
    } finally {
      off();
    }
  });
});
