import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bodyOf, Collector, FakeServer, type Handler, json, SseWriter, status, waitFor } from '../../../test/helpers/http/fake-server.js';
import { Client } from '../../client/client.js';
import { LocalError } from '../../jsonrpc/errors.js';
import { HttpStatusError } from './errors.js';
import { connectClient, createClientTransport, FallbackTransport, shouldFallBack } from './fallback.js';

const URL_ = 'http://127.0.0.1:9/mcp';
const initReq = {
  jsonrpc: '2.0' as const,
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
};
const initResult = (id: unknown, protocolVersion = '2024-11-05') => ({
  jsonrpc: '2.0',
  id,
  result: { protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'old', version: '1' } },
});

/** A 2024-11-05 server on the same URL: POST to the URL is 405; GET opens the SSE stream. */
function legacyOnly(postStatus = 405): Handler {
  let stream: SseWriter | undefined;
  return (r) => {
    if (r.url === URL_ && r.method === 'POST') return status(postStatus, 'Method Not Allowed');
    if (r.url === URL_ && r.method === 'GET') {
      stream = new SseWriter();
      stream.event({ event: 'endpoint', data: '/mcp/messages?session=1' });
      return stream.response;
    }
    const m = bodyOf(r);
    if (m.method === 'initialize')
      stream!.event({ event: 'message', data: JSON.stringify(initResult(m.id, (m.params as { protocolVersion: string }).protocolVersion)) });
    else if (m.method === 'tools/list')
      stream!.event({
        event: 'message',
        data: JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'legacy-tool', inputSchema: { type: 'object' } }] } }),
      });
    return status(202);
  };
}

test('the default fallback rule', () => {
  for (const s of [400, 404, 405, 406, 415]) assert.equal(shouldFallBack(s), true, String(s));
  for (const s of [200, 401, 403, 407, 408, 429, 500, 503]) assert.equal(shouldFallBack(s), false, String(s));
});

test('a Streamable HTTP server: the first POST succeeds and no legacy GET is made', async () => {
  const server = new FakeServer((r) =>
    bodyOf(r).id === undefined ? status(202) : json(initResult(1, '2025-03-26'), { headers: { 'mcp-session-id': 'new' } }),
  );
  const transport = createClientTransport(URL_, { fetch: server.fetch, openGetStream: false });
  const rx = new Collector();
  await transport.start(rx);
  await transport.send(initReq);
  assert.equal(transport.kind, 'streamable-http');
  assert.equal(transport.sessionId, 'new');
  assert.deepEqual(rx.messages, [initResult(1, '2025-03-26')]);
  assert.equal(server.only('GET').length, 0);
  await transport.close();
  assert.equal(rx.closedCount, 1);
});

test('a legacy server: 405 to the POST switches to HTTP+SSE at the same URL; queued sends follow in order', async () => {
  const server = new FakeServer(legacyOnly());
  const transport = new FallbackTransport(URL_, { fetch: server.fetch, headers: { 'x-k': 'v' } });
  const rx = new Collector();
  await transport.start(rx);
  const first = transport.send(initReq);
  const second = transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const third = transport.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  await Promise.all([first, second, third]);
  assert.equal(transport.kind, 'sse');
  assert.equal(transport.sessionId, undefined);
  await waitFor(() => rx.messages.length === 2, 'both responses');
  assert.deepEqual((rx.messages[0] as { id: number }).id, 1);
  assert.deepEqual((rx.messages[1] as { id: number }).id, 2);
  const trail = server.requests.map((r) => `${r.method} ${new URL(r.url).pathname}${r.method === 'POST' ? ' ' + (bodyOf(r).method ?? '') : ''}`);
  assert.deepEqual(trail, [
    'POST /mcp initialize',
    'GET /mcp',
    'POST /mcp/messages initialize',
    'POST /mcp/messages notifications/initialized',
    'POST /mcp/messages tools/list',
  ]);
  assert.ok(server.requests.every((r) => r.headers.get('x-k') === 'v'));
  assert.equal(rx.closedCount, 0, 'the dropped Streamable HTTP side does not close the connection');
  await transport.close();
  assert.equal(rx.closedCount, 1);
});

test('no fallback for 401 or a network failure; a JSON-RPC answer on a 4xx is delivered instead', async () => {
  const unauthorized = new FallbackTransport(URL_, { fetch: new FakeServer(() => status(401)).fetch });
  await unauthorized.start(new Collector());
  await assert.rejects(unauthorized.send(initReq), (err: unknown) => err instanceof HttpStatusError && err.status === 401);
  assert.equal(unauthorized.kind, 'streamable-http');
  await unauthorized.close();

  const unreachable = new FakeServer(() => {
    throw new TypeError('fetch failed');
  });
  const offline = new FallbackTransport(URL_, { fetch: unreachable.fetch });
  await offline.start(new Collector());
  await assert.rejects(
    offline.send(initReq),
    (err: unknown) => err instanceof LocalError && !(err instanceof HttpStatusError) && err.code === 'connection_closed',
  );
  assert.equal(unreachable.only('GET').length, 0);
  await offline.close();

  const server = new FakeServer(() => json({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Unsupported protocol version' } }, { status: 400 }));
  const answering = new FallbackTransport(URL_, { fetch: server.fetch });
  const rx = new Collector();
  await answering.start(rx);
  await answering.send(initReq);
  assert.equal(answering.kind, 'streamable-http');
  assert.equal(server.only('GET').length, 0);
  assert.deepEqual(rx.messages, [{ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Unsupported protocol version' } }]);
  await answering.close();
});

test('when the legacy transport cannot open either, the first send names both failures', async () => {
  const server = new FakeServer((r) => (r.method === 'POST' ? status(404) : status(404, 'no sse here')));
  const transport = new FallbackTransport(URL_, { fetch: server.fetch });
  await transport.start(new Collector());
  await assert.rejects(
    transport.send(initReq),
    (err: unknown) => err instanceof LocalError && err.code === 'connection_closed' && /HTTP 404/.test(err.message) && /legacy/.test(err.message),
  );
  await assert.rejects(transport.send(initReq), LocalError);
  await transport.close();
});

test('connectClient: an mcpkit Client handshakes once over the legacy fallback and makes requests', async () => {
  const server = new FakeServer(legacyOnly(404));
  const client = new Client({ name: 'fallback-test', version: '1.0.0' }, { protocolVersion: '2024-11-05', requestTimeoutMs: 5000 });
  const transport = await connectClient(client, URL_, { fetch: server.fetch });
  assert.equal(transport.kind, 'sse');
  assert.equal(client.protocolVersion, '2024-11-05');
  const tools = await client.listTools();
  assert.deepEqual(
    tools.tools.map((t) => t.name),
    ['legacy-tool'],
  );
  assert.equal(server.requests.filter((r) => r.method === 'POST' && bodyOf(r).method === 'initialize').length, 2, 'one probe POST and one legacy POST');
  await client.close();
});

test('the auth option follows the switch: every legacy request goes through it too', async () => {
  const server = new FakeServer(legacyOnly());
  const seen: string[] = [];
  const auth = {
    wrapFetch:
      (inner: typeof fetch): typeof fetch =>
      (input, init) => {
        seen.push(`${init?.method ?? 'GET'} ${String(input)}`);
        const headers = new Headers(init?.headers);
        headers.set('authorization', 'Bearer t0k3n');
        return inner(input, { ...init, headers });
      },
  };
  const transport = new FallbackTransport(URL_, { fetch: server.fetch, auth });
  const rx = new Collector();
  await transport.start(rx);
  await transport.send(initReq);
  await waitFor(() => rx.messages.length === 1, 'the initialize response');
  assert.equal(transport.kind, 'sse');
  assert.ok(
    seen.some((s) => s.startsWith('GET ')),
    'the legacy stream was opened through the auth wrapper',
  );
  assert.ok(seen.filter((s) => s.startsWith('POST ')).length >= 2, 'the first POST and the legacy POST both went through it');
  await transport.close();
});
