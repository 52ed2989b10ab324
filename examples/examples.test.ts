/**
 * The HTTP examples work as documented. Express: the app listens on 127.0.0.1 and mcpkit's
 * `Client` drives it over Streamable HTTP and, through the fallback transport, over the
 * legacy HTTP+SSE endpoints; requests with a foreign Host or Origin are refused. Hono: the
 * app answers hand-built `Request`s in process, and serves mcpkit's `Client` through a
 * `fetch` that routes to `app.fetch`.
 */
import assert from 'node:assert/strict';
import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Client } from '../src/client/client.js';
import { FallbackTransport } from '../src/http/client/fallback.js';
import { StreamableHttpClientTransport } from '../src/http/client/streamable.js';
import type { StreamableHttpHandler } from '../src/http/server/handler.js';
import type { CallToolResult, TextContent } from '../src/types.js';
import { createExpressApp } from './express.js';
import { createHonoApp } from './hono.js';

const LATEST = '2025-11-25';
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: LATEST, capabilities: {}, clientInfo: { name: 'raw', version: '1.0.0' } },
});
const POST_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `condition` every 10 ms; rejects after `ms` naming `what`. */
async function waitFor(condition: () => boolean, what: string, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(10);
  }
}

function textOf(result: CallToolResult): string {
  assert.equal(result.content.length, 1);
  const first = result.content[0];
  assert.equal(first?.type, 'text');
  return (first as TextContent).text;
}

/** The JSON-RPC messages in an SSE body (priming events, whose data is empty, skipped). */
function sseMessages(body: string): Array<Record<string, unknown>> {
  const messages: Array<Record<string, unknown>> = [];
  for (const event of body.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5))
      .join('\n');
    if (data !== '') messages.push(JSON.parse(data) as Record<string, unknown>);
  }
  return messages;
}

/** POSTs an initialize to the server with the given Host (and Origin); resolves with the status. */
function rawInitialize(port: number, host: string, origin?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...POST_HEADERS, host, 'content-length': String(Buffer.byteLength(INITIALIZE)) };
    if (origin !== undefined) headers.origin = origin;
    const req = httpRequest({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(INITIALIZE);
  });
}

describe('Express example', { timeout: 20_000 }, () => {
  let listener: Server;
  let handler: StreamableHttpHandler;
  let port: number;
  let base: string;

  before(async () => {
    const created = createExpressApp();
    handler = created.handler;
    listener = created.app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve, reject) => {
      listener.once('listening', resolve);
      listener.once('error', reject);
    });
    port = (listener.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
  });

  after(async () => {
    await handler.close();
    const closed = new Promise<void>((resolve) => listener.close(() => resolve()));
    listener.closeAllConnections();
    await closed;
  });

  it('serves mcpkit Client over Streamable HTTP: handshake, tools/list, tools/call, DELETE on close', async () => {
    const transport = new StreamableHttpClientTransport({ url: `${base}/mcp` });
    const client = new Client({ name: 'example-test', version: '1.0.0' }, { requestTimeoutMs: 5000 });
    const init = await client.connect(transport);
    assert.equal(init.serverInfo.name, 'express-example');
    assert.equal(init.protocolVersion, LATEST);
    assert.ok(transport.sessionId !== undefined && transport.sessionId.length > 0, 'the server issued a session id');
    assert.equal(handler.sessionCount, 1);

    const tools = await client.listAllTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      ['echo'],
    );
    assert.deepEqual(tools[0]!.inputSchema.required, ['message']);
    assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { message: 'hello express' } })), 'hello express');

    await client.close();
    await waitFor(() => handler.sessionCount === 0, 'the session to be deleted');
  });

  it('serves a 2024-11-05 style client through the legacy SSE endpoints (fallback from a POST to /sse)', async () => {
    const transport = new FallbackTransport(`${base}/sse`);
    const client = new Client({ name: 'example-test', version: '1.0.0' }, { requestTimeoutMs: 5000, protocolVersion: '2024-11-05' });
    const init = await client.connect(transport);
    assert.equal(transport.kind, 'sse', 'the POST to /sse was refused and the client fell back');
    assert.equal(init.protocolVersion, '2024-11-05');
    assert.equal(init.serverInfo.name, 'express-example');
    assert.equal(handler.sessionCount, 1);
    assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { message: 'over sse' } })), 'over sse');
    await client.close();
    await waitFor(() => handler.sessionCount === 0, 'the legacy session to end with its stream');
  });

  it('refuses a foreign Host (DNS rebinding) and a foreign Origin with 403, creating no session', async () => {
    assert.equal(await rawInitialize(port, `evil.example:${port}`), 403);
    assert.equal(await rawInitialize(port, `127.0.0.1:${port}`, 'http://evil.example'), 403);
    assert.equal(handler.sessionCount, 0);
    // the same request under an allowed Host and Origin succeeds: the 403s were about the names
    assert.equal(await rawInitialize(port, `localhost:${port}`, `http://localhost:${port}`), 200);
    assert.equal(handler.sessionCount, 1);
  });

  it('leaves the rest of the app to Express', async () => {
    const res = await fetch(`${base}/health`);
    assert.equal(res.status, 200);
    assert.equal(await res.text(), 'ok');
  });
});

describe('Hono example', { timeout: 20_000 }, () => {
  it('answers hand-built Requests through app.fetch: initialize, tools/call, DELETE, 403 for a foreign host', async () => {
    const { app, handler } = createHonoApp();
    try {
      const init = await app.fetch(new Request('http://localhost/mcp', { method: 'POST', headers: POST_HEADERS, body: INITIALIZE }));
      assert.equal(init.status, 200);
      assert.match(init.headers.get('content-type') ?? '', /^application\/json/);
      const sessionId = init.headers.get('mcp-session-id');
      assert.ok(sessionId !== null && sessionId.length > 0, 'a session id was issued');
      const initBody = (await init.json()) as { id: number; result: { protocolVersion: string; serverInfo: { name: string } } };
      assert.equal(initBody.id, 1);
      assert.equal(initBody.result.protocolVersion, LATEST);
      assert.equal(initBody.result.serverInfo.name, 'hono-example');

      const session = { ...POST_HEADERS, 'mcp-session-id': sessionId, 'mcp-protocol-version': LATEST };
      const initialized = await app.fetch(
        new Request('http://localhost/mcp', {
          method: 'POST',
          headers: session,
          body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
        }),
      );
      assert.equal(initialized.status, 202);

      const call = await app.fetch(
        new Request('http://localhost/mcp', {
          method: 'POST',
          headers: session,
          body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 3 } } }),
        }),
      );
      assert.equal(call.status, 200);
      assert.match(call.headers.get('content-type') ?? '', /^text\/event-stream/);
      const messages = sseMessages(await call.text());
      assert.deepEqual(messages, [{ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: '5' }] } }]);

      const deleted = await app.fetch(new Request('http://localhost/mcp', { method: 'DELETE', headers: session }));
      assert.equal(deleted.status, 200);
      assert.equal(handler.sessionCount, 0);
      const gone = await app.fetch(
        new Request('http://localhost/mcp', { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }) }),
      );
      assert.equal(gone.status, 404);

      // DNS rebinding: the request names a host the server does not answer for
      const foreign = await app.fetch(new Request('http://evil.example/mcp', { method: 'POST', headers: POST_HEADERS, body: INITIALIZE }));
      assert.equal(foreign.status, 403);
      assert.equal(handler.sessionCount, 0);

      const health = await app.fetch(new Request('http://localhost/health'));
      assert.equal(await health.text(), 'ok');
    } finally {
      await handler.close();
    }
  });

  it('serves mcpkit Client through a fetch that routes to app.fetch', async () => {
    const { app, handler } = createHonoApp();
    const seen: string[] = [];
    const routed: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      seen.push(request.method);
      return app.fetch(request);
    };
    const transport = new StreamableHttpClientTransport({ url: 'http://localhost/mcp', fetch: routed });
    const client = new Client({ name: 'example-test', version: '1.0.0' }, { requestTimeoutMs: 5000 });
    try {
      const init = await client.connect(transport);
      assert.equal(init.serverInfo.name, 'hono-example');
      assert.equal(handler.sessionCount, 1);
      const tools = await client.listAllTools();
      assert.deepEqual(
        tools.map((t) => t.name),
        ['add'],
      );
      assert.equal(textOf(await client.callTool({ name: 'add', arguments: { a: 40, b: 2 } })), '42');
      await client.close();
      assert.equal(handler.sessionCount, 0, 'close() deleted the session');
      assert.ok(seen.includes('POST') && seen.includes('DELETE'), `every exchange went through app.fetch (${seen.join(', ')})`);
    } finally {
      await client.close();
      await handler.close();
    }
  });
});
