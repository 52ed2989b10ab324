// `mcpkit dev FILE`: edit the module (or a file it imports), the next call sees the change;
// a syntax error keeps the CLI alive, reports the error and keeps answering with the old
// code — over Streamable HTTP and over stdio, with one client session throughout (the
// session is carried over by replaying initialize; MCP 2025-06-18 "Lifecycle": initialize
// must come first in a session, so a new server without the replay would refuse calls).

import assert from 'node:assert/strict';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { MCPKIT_BIN } from '../../../test/helpers/cli/install.js';
import { firstText, serverProject, startCli, writeGreeting } from '../../../test/helpers/cli/serve.js';
import { Client } from '../../client/index.js';
import { StreamableHttpClientTransport } from '../../http/index.js';
import { StdioClientTransport } from '../../stdio/index.js';

const info = { name: 'dev-test', version: '1.0.0' };

/** Counts of a pattern in text. */
const count = (text: string, pattern: RegExp): number => text.match(new RegExp(pattern.source, 'g'))?.length ?? 0;

/** Polls `read` until `pattern` has matched `times` times. */
async function waitForCount(read: () => string, pattern: RegExp, times: number, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (count(read(), pattern) < times) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${times}x ${pattern}:\n${read()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The shared scenario: v1, edit an import → v2, syntax error → still v2, fixed → v3. */
async function reloadScenario(call: () => Promise<string | undefined>, stderr: () => string, greet: string, server: string): Promise<void> {
  await waitForCount(stderr, /ready \(generation 1\)/, 1);
  assert.equal(await call(), 'v1');

  writeGreeting(greet, 'v2');
  await waitForCount(stderr, /reloaded \(generation \d+\)/, 1);
  assert.equal(await call(), 'v2', 'the next call after the reload sees the change in an imported file');

  writeFileSync(greet, 'export const greeting = (): string => {{{ not typescript;\n');
  // two log lines, two writes: they may reach the pipe apart, so wait for the second
  await waitForCount(stderr, /still serving the code loaded before/, 1);
  assert.match(stderr(), /failed to load/);
  assert.match(stderr(), /greet\.ts/, 'the error names the broken file');
  assert.equal(await call(), 'v2', 'the old code still answers');

  // Saved the way many editors do: a new file renamed over the old one.
  writeGreeting(`${greet}.tmp`, 'v3');
  renameSync(`${greet}.tmp`, greet);
  await waitForCount(stderr, /reloaded \(generation \d+\)/, 2);
  assert.equal(await call(), 'v3');

  // The entry module itself changes too.
  writeFileSync(server, readFileSync(server, 'utf8').replace('text: greeting()', "text: greeting() + '!'"));
  await waitForCount(stderr, /reloaded \(generation \d+\)/, 3);
  assert.equal(await call(), 'v3!');
}

test("dev --http: reloads on change, keeps the URL and the client's session, survives a syntax error", async () => {
  const { dir, server, greet } = serverProject('v1');
  const cli = startCli(['dev', server, '--http', '--port', '0'], dir);
  const client = new Client(info);
  try {
    const [, url] = await cli.waitForStdout(/^LISTENING (http:\/\/127\.0\.0\.1:\d+\/mcp)\n/);
    await client.connect(new StreamableHttpClientTransport({ url: url! }));
    await reloadScenario(async () => firstText(await client.callTool({ name: 'hello' })), cli.stderr, greet, server);
    assert.equal(cli.child.exitCode, null, 'the CLI is still running');
    // A new client after all the reloads works too.
    const second = new Client(info);
    await second.connect(new StreamableHttpClientTransport({ url: url! }));
    assert.equal(firstText(await second.callTool({ name: 'hello' })), 'v3!');
    await second.close();
  } finally {
    await client.close().catch(() => {});
    assert.equal(await cli.stop(), 0);
  }
});

test('dev over stdio: reloads on change with the same client session, survives a syntax error', async () => {
  const { dir, server, greet } = serverProject('v1');
  const transport = new StdioClientTransport({ command: process.execPath, args: [MCPKIT_BIN, 'dev', server], cwd: dir });
  const client = new Client(info);
  await client.connect(transport);
  try {
    await reloadScenario(
      async () => firstText(await client.callTool({ name: 'hello' })),
      () => transport.stderrTail(),
      greet,
      server,
    );
  } finally {
    await client.close();
  }
});

test('dev: a module that fails at start keeps the CLI waiting; fixing it serves the held request', async () => {
  const { dir, server, greet } = serverProject('v1');
  writeFileSync(greet, 'export const greeting = (: string => 1;\n');
  const transport = new StdioClientTransport({ command: process.execPath, args: [MCPKIT_BIN, 'dev', server], cwd: dir });
  const client = new Client(info);
  const connecting = client.connect(transport);
  // awaited below; if an assertion fails first, its rejection at close is not unhandled
  connecting.catch(() => {});
  try {
    await waitForCount(() => transport.stderrTail(), /no working code yet; waiting for a change/, 1);
    assert.match(transport.stderrTail(), /failed to load/);
    writeGreeting(greet, 'fixed');
    await connecting;
    assert.equal(firstText(await client.callTool({ name: 'hello' })), 'fixed');
  } finally {
    await client.close();
  }
});

test('dev --http at the wire: the same Mcp-Session-Id keeps working across a reload (replayed initialize)', async () => {
  const { dir, server, greet } = serverProject('v1');
  const cli = startCli(['dev', server, '--http', '--port', '0'], dir);
  try {
    const [, url] = await cli.waitForStdout(/^LISTENING (http:\/\/127\.0\.0\.1:\d+\/mcp)\n/);
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    // Streamable HTTP (2025-06-18 "Transports"): the session id comes back on the initialize response.
    const init = await fetch(url!, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: info } }),
    });
    assert.equal(init.status, 200);
    await init.text();
    const sid = init.headers.get('mcp-session-id')!;
    assert.ok(sid);
    const session = { ...headers, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' };
    assert.equal(
      (await fetch(url!, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).status,
      202,
    );
    const call = async (id: number): Promise<{ status: number; text: string; sid: string | null }> => {
      const res = await fetch(url!, {
        method: 'POST',
        headers: session,
        body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'hello', arguments: {} } }),
      });
      return { status: res.status, text: await res.text(), sid: res.headers.get('mcp-session-id') };
    };
    assert.match((await call(2)).text, /"text":"v1"/);
    writeGreeting(greet, 'v2');
    await waitForCount(cli.stderr, /reloaded \(generation \d+\)/, 1);
    const after = await call(3);
    assert.equal(after.status, 200, after.text);
    assert.match(after.text, /"text":"v2"/);
    assert.ok(after.sid === null || after.sid === sid, 'the client keeps seeing its own session id');
    assert.doesNotMatch(cli.stderr(), /could not carry a session/);
    // Ending the session (DELETE) ends it for good: 404 afterwards (Streamable HTTP: session termination).
    assert.equal((await fetch(url!, { method: 'DELETE', headers: session })).status < 300, true);
    assert.equal((await call(4)).status, 404);
  } finally {
    assert.equal(await cli.stop(), 0);
  }
});
