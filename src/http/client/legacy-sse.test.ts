import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bodyOf, Collector, delay, FakeServer, type Handler, SseWriter, status, waitFor } from '../../../test/helpers/http/fake-server.js';
import { LocalError } from '../../jsonrpc/errors.js';
import { HttpStatusError } from './errors.js';
import { SseClientTransport } from './legacy-sse.js';

const SSE_URL = 'http://127.0.0.1:9/sse';

/** A 2024-11-05 server: GET /sse opens the stream, POSTs to the endpoint are answered on it. */
function legacyServer(
  endpoint: string,
  onPost?: (message: Record<string, unknown>, stream: SseWriter) => Response | undefined,
): { handler: Handler; stream: () => SseWriter } {
  let stream: SseWriter | undefined;
  return {
    stream: () => stream!,
    handler: (r) => {
      if (r.method === 'GET') {
        stream = new SseWriter();
        stream.event({ event: 'endpoint', data: endpoint });
        return stream.response;
      }
      const m = bodyOf(r);
      const answer = onPost?.(m, stream!);
      if (answer) return answer;
      if (m.id !== undefined && m.method !== undefined)
        stream!.event({ event: 'message', data: JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { echo: m.method } }) });
      return status(202, 'Accepted');
    },
  };
}

test('legacy flow: endpoint event, POSTs to it, messages on the stream, close when the stream ends', async () => {
  const fake = legacyServer('/messages?sessionId=abc');
  const server = new FakeServer(fake.handler);
  const transport = new SseClientTransport({ url: SSE_URL, fetch: server.fetch, headers: { authorization: 'Bearer x' } });
  const rx = new Collector();
  await transport.start(rx);
  assert.equal(transport.endpoint?.href, 'http://127.0.0.1:9/messages?sessionId=abc');
  const get = server.requests[0]!;
  assert.equal(get.method, 'GET');
  assert.equal(get.headers.get('accept'), 'text/event-stream');
  assert.equal(get.headers.get('authorization'), 'Bearer x');

  await transport.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} });
  transport.setProtocolVersion('2024-11-05');
  await transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const posts = server.only('POST');
  assert.equal(posts.length, 2);
  assert.equal(posts[0]!.url, 'http://127.0.0.1:9/messages?sessionId=abc');
  assert.equal(posts[0]!.headers.get('content-type'), 'application/json');
  assert.equal(posts[0]!.headers.get('authorization'), 'Bearer x');
  assert.equal(posts[1]!.headers.get('mcp-protocol-version'), '2024-11-05');
  await waitFor(() => rx.messages.length === 1, 'the response on the stream');
  assert.deepEqual(rx.messages, [{ jsonrpc: '2.0', id: 1, result: { echo: 'initialize' } }]);

  fake.stream().event({ event: 'message', data: '{oops' });
  fake.stream().close();
  await waitFor(() => rx.closedCount === 1, 'closed');
  assert.equal((rx.errors[0] as LocalError).code, 'invalid_message');
  assert.ok(rx.closedReason instanceof LocalError && rx.closedReason.code === 'connection_closed');
  await assert.rejects(transport.send({ jsonrpc: '2.0', method: 'x' }), (err: unknown) => err instanceof LocalError && err.code === 'connection_closed');
  await transport.close();
  assert.equal(rx.closedCount, 1);
});

test('an endpoint on another origin is refused and nothing is POSTed', async () => {
  for (const endpoint of ['http://evil.example/messages', '//evil.example/m', 'https://127.0.0.1:9/messages', 'http://127.0.0.1:10/messages']) {
    const server = new FakeServer(legacyServer(endpoint).handler);
    const transport = new SseClientTransport({ url: SSE_URL, fetch: server.fetch });
    await assert.rejects(
      transport.start(new Collector()),
      (err: unknown) => err instanceof LocalError && err.code === 'invalid_message' && /another origin/.test(err.message),
      endpoint,
    );
    await assert.rejects(transport.send({ jsonrpc: '2.0', method: 'x' }), LocalError);
    assert.equal(server.only('POST').length, 0);
  }
});

test('start fails for an HTTP error, a non-SSE answer, a missing endpoint event (bounded) and a stream that ends first', async () => {
  const bad = new SseClientTransport({ url: SSE_URL, fetch: new FakeServer(() => status(404, 'nope')).fetch });
  await assert.rejects(bad.start(new Collector()), (err: unknown) => err instanceof HttpStatusError && err.status === 404);

  const html = new SseClientTransport({
    url: SSE_URL,
    fetch: new FakeServer(() => new Response('<html>', { headers: { 'content-type': 'text/html' } })).fetch,
  });
  await assert.rejects(html.start(new Collector()), (err: unknown) => err instanceof LocalError && err.code === 'invalid_message');

  let silent: SseWriter | undefined;
  const quiet = new SseClientTransport({
    url: SSE_URL,
    endpointTimeoutMs: 40,
    fetch: new FakeServer(() => (silent = new SseWriter()).response).fetch,
  });
  const started = Date.now();
  await assert.rejects(quiet.start(new Collector()), (err: unknown) => err instanceof LocalError && err.code === 'timeout');
  assert.ok(Date.now() - started < 2000);
  await waitFor(() => silent!.done, 'the stream to be cancelled');

  const ending = new SseClientTransport({
    url: SSE_URL,
    fetch: new FakeServer(() => {
      const sse = new SseWriter();
      sse.close();
      return sse.response;
    }).fetch,
  });
  await assert.rejects(ending.start(new Collector()), /ended before/);
});

test('a POST error status rejects the send with the status', async () => {
  const server = new FakeServer(legacyServer('/m', () => status(400, 'bad')).handler);
  const transport = new SseClientTransport({ url: SSE_URL, fetch: server.fetch });
  await transport.start(new Collector());
  await assert.rejects(
    transport.send({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    (err: unknown) => err instanceof HttpStatusError && err.status === 400 && /bad/.test(err.message),
  );
  await transport.close();
});

test('close aborts the stream and pending POSTs; closed fires once', async () => {
  const fake = legacyServer('/m', () => new Promise<Response>(() => {}) as unknown as Response);
  const server = new FakeServer(fake.handler);
  const transport = new SseClientTransport({ url: SSE_URL, fetch: server.fetch });
  const rx = new Collector();
  await transport.start(rx);
  const pending = transport.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
  await server.waitForRequest((r) => r.method === 'POST');
  await transport.close();
  await transport.close();
  await assert.rejects(pending, (err: unknown) => err instanceof LocalError && err.code === 'connection_closed');
  await waitFor(() => fake.stream().done, 'the stream to be cancelled');
  await delay(5);
  assert.equal(rx.closedCount, 1);
  assert.equal(rx.closedReason, undefined);
});
