/**
 * mcpkit's Client over `StreamableHttpClientTransport({ requester: nodeHttpRequester() })`
 * against mcpkit's own server (`createStreamableHttpHandler` + `serveNode`) on 127.0.0.1, in
 * JSON and SSE response modes: tool calls, many concurrent calls on a bounded pool, a
 * server→client request (roots/list) answered over the SSE stream, close (DELETE), the
 * configuration errors of the requester seam, and `auth` over a requester.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '../../client/client.js';
import { McpServer } from '../../server/server.js';
import type { HttpAuthorization } from '../client/common.js';
import { StreamableHttpClientTransport } from '../client/streamable.js';
import { serveNode } from '../node.js';
import { createStreamableHttpHandler } from '../server/handler.js';
import { nodeHttpRequester } from './requester.js';

function server(): McpServer {
  const s = new McpServer({ name: 'requester-e2e', version: '1.0.0' });
  s.registerTool('echo', { description: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, (args: { text?: string }) => ({
    content: [{ type: 'text', text: args.text ?? '' }],
  }));
  s.registerTool('roots', { description: 'asks the client for its roots' }, async (_args: unknown, ctx) => {
    const roots = await ctx.listRoots();
    return { content: [{ type: 'text', text: roots.map((r) => r.uri).join(',') }] };
  });
  return s;
}

for (const responseMode of ['json', 'sse'] as const) {
  test(`mcpkit Client over nodeHttpRequester against mcpkit's server (${responseMode}): calls, 200 concurrent, a server request, close`, async () => {
    const running = await serveNode(createStreamableHttpHandler({ server: server(), responseMode }));
    const connections = new Set<unknown>();
    running.server.on('connection', (socket) => connections.add(socket));
    const requester = nodeHttpRequester({ maxSocketsPerOrigin: 16 });
    const client = new Client({ name: 'requester-client', version: '1.0.0' }, { roots: { list: () => [{ uri: 'file:///work', name: 'work' }] } });
    const transport = new StreamableHttpClientTransport({ url: running.url, requester });
    await client.connect(transport);
    assert.ok(transport.sessionId);

    const one = await client.callTool({ name: 'echo', arguments: { text: 'hello' } });
    assert.deepEqual(one.content, [{ type: 'text', text: 'hello' }]);

    const many = await Promise.all(Array.from({ length: 200 }, (_, i) => client.callTool({ name: 'echo', arguments: { text: `n${i}` } })));
    assert.deepEqual(
      many.map((r) => (r.content as Array<{ text: string }>)[0]!.text),
      Array.from({ length: 200 }, (_, i) => `n${i}`),
    );
    // 16 for the calls, at most one more for the GET stream, one more while a finished one closes
    assert.ok(connections.size <= 18, `${connections.size} connections for 200 concurrent calls (bound 16 + the GET stream)`);

    // in JSON mode the request travels on the GET stream, in SSE mode on the call's own stream
    const roots = await client.callTool({ name: 'roots' });
    assert.deepEqual(roots.content, [{ type: 'text', text: 'file:///work' }]);

    const sessionId = transport.sessionId;
    await client.close();
    const probe = await fetch(running.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sessionId!,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    await probe.arrayBuffer();
    assert.equal(probe.status, 404, 'close() sent DELETE: the session is gone');
    requester.close();
    assert.equal(requester.openSockets, 0);
    await running.close();
  });
}

test('fetch and requester together are a TypeError that says what to do', () => {
  assert.throws(() => new StreamableHttpClientTransport({ url: 'http://127.0.0.1:9/mcp', fetch, requester: nodeHttpRequester() }), {
    name: 'TypeError',
    message: /Pass either options\.fetch or options\.requester, not both/,
  });
});

test('auth wraps a requester (adapted to a fetch): the credentials reach the server', async () => {
  const seen: Array<string | undefined> = [];
  const running = await serveNode(createStreamableHttpHandler({ server: server(), responseMode: 'sse' }));
  running.server.prependListener('request', (req) => void seen.push(req.headers.authorization));
  const auth: HttpAuthorization = {
    wrapFetch: (inner) => (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('authorization', 'Bearer test-token');
      return inner(input, { ...init, headers });
    },
  };
  const requester = nodeHttpRequester();
  const client = new Client({ name: 'requester-client', version: '1.0.0' });
  await client.connect(new StreamableHttpClientTransport({ url: running.url, requester, auth }));
  const r = await client.callTool({ name: 'echo', arguments: { text: 'authorized' } });
  assert.deepEqual(r.content, [{ type: 'text', text: 'authorized' }]);
  await client.close();
  assert.ok(seen.length >= 3);
  assert.ok(seen.every((h) => h === 'Bearer test-token'));
  requester.close();
  await running.close();
});

test("over a requester, a session's POSTs carry its current session id and protocol version (the headers built once are rebuilt when either changes)", async () => {
  const { createServer } = await import('node:http');
  const seen: Array<{ method: string; session: string | undefined; version: string | undefined }> = [];
  let sessions = 0;
  const http = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (req.method !== 'POST') {
        res.writeHead(405).end();
        return;
      }
      const m = JSON.parse(body) as { id?: number; method: string };
      seen.push({
        method: m.method,
        session: req.headers['mcp-session-id'] as string | undefined,
        version: req.headers['mcp-protocol-version'] as string | undefined,
      });
      if (m.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (m.method === 'initialize') headers['mcp-session-id'] = `session-${++sessions}`;
      res.writeHead(200, headers).end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: {} }));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as { port: number }).port}/mcp`;
  const requester = nodeHttpRequester();
  const transport = new StreamableHttpClientTransport({ url, requester, openGetStream: false });
  transport.start({ message: () => {}, error: () => {}, closed: () => {} });
  try {
    const call = (id: number, method: string) => transport.send({ jsonrpc: '2.0', id, method, params: {} });
    await call(1, 'initialize');
    transport.setProtocolVersion('2025-06-18');
    await transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await call(2, 'ping');
    transport.setProtocolVersion('2025-11-25');
    await call(3, 'ping');
    // a second initialize on the same transport starts another session
    await call(4, 'initialize');
    await call(5, 'ping');
    assert.deepEqual(seen, [
      { method: 'initialize', session: undefined, version: undefined },
      { method: 'notifications/initialized', session: 'session-1', version: '2025-06-18' },
      { method: 'ping', session: 'session-1', version: '2025-06-18' },
      { method: 'ping', session: 'session-1', version: '2025-11-25' },
      { method: 'initialize', session: undefined, version: undefined },
      { method: 'ping', session: 'session-2', version: '2025-11-25' },
    ]);
  } finally {
    await transport.close().catch(() => {});
    requester.close();
    await new Promise((resolve) => http.close(resolve));
  }
});
