import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bodyOf, Collector, delay, FakeServer, type Handler, json, SseWriter, status, waitFor } from '../../../test/helpers/http/fake-server.js';
import { LocalError } from '../../jsonrpc/errors.js';
import { HttpStatusError, SessionExpiredError } from './errors.js';
import { StreamableHttpClientTransport, type StreamableHttpClientTransportOptions } from './streamable.js';

const URL_ = 'http://127.0.0.1:9/mcp';
const init = (id = 1) => ({
  jsonrpc: '2.0' as const,
  id,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
});
const initResult = (id: unknown = 1) => ({
  jsonrpc: '2.0',
  id,
  result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 's', version: '1' } },
});
const req = (id: number, method = 'tools/list') => ({ jsonrpc: '2.0' as const, id, method });
const ok = (id: unknown, result: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, result });
const initialized = { jsonrpc: '2.0' as const, method: 'notifications/initialized' };

function setup(handler: Handler, options: Partial<StreamableHttpClientTransportOptions> = {}) {
  const server = new FakeServer(handler);
  const transport = new StreamableHttpClientTransport({ url: URL_, fetch: server.fetch, ...options });
  const rx = new Collector();
  transport.start(rx);
  return { server, transport, rx };
}

test('POST headers: content type, accept, session id after initialize, protocol version after setProtocolVersion', async () => {
  const { server, transport, rx } = setup(
    (r) => {
      const m = bodyOf(r);
      if (m.method === 'initialize') return json(initResult(m.id), { headers: { 'mcp-session-id': 'sess-1' } });
      if (m.id === undefined) return status(202);
      return json(ok(m.id));
    },
    { openGetStream: false },
  );
  await transport.send(init(1));
  assert.equal(transport.sessionId, 'sess-1');
  transport.setProtocolVersion('2025-11-25');
  await transport.send(initialized);
  await transport.send(req(2));
  const [first, second, third] = server.requests;
  for (const r of [first!, second!, third!]) {
    assert.equal(r.method, 'POST');
    assert.equal(r.headers.get('content-type'), 'application/json');
    assert.equal(r.headers.get('accept'), 'application/json, text/event-stream');
  }
  assert.equal(first!.headers.get('mcp-session-id'), null);
  assert.equal(first!.headers.get('mcp-protocol-version'), null);
  assert.equal(second!.headers.get('mcp-session-id'), 'sess-1');
  assert.equal(second!.headers.get('mcp-protocol-version'), '2025-11-25');
  assert.equal(third!.headers.get('mcp-session-id'), 'sess-1');
  assert.deepEqual(rx.messages, [initResult(1), ok(2)]);
  await transport.close();
});

test('JSON responses are delivered (single and batch); 202 delivers nothing', async () => {
  const { transport, rx } = setup(
    (r) => {
      const m = JSON.parse(r.body);
      if (Array.isArray(m)) return json(m.map((x: { id: number }) => ok(x.id, { n: x.id })));
      if (m.method === 'notifications/roots/list_changed') return json({ ok: true }); // non-conforming acknowledgement
      if (m.id === undefined) return status(202);
      return json(ok(m.id, { n: m.id }));
    },
    { openGetStream: false },
  );
  await transport.send(req(1));
  await transport.send([req(2), req(3)]);
  await transport.send({ jsonrpc: '2.0', method: 'notifications/progress', params: {} });
  await transport.send({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' });
  await transport.send({ jsonrpc: '2.0', id: 'srv-1', result: {} });
  await transport.send(JSON.stringify(req(4)));
  assert.deepEqual(rx.messages, [ok(1, { n: 1 }), [ok(2, { n: 2 }), ok(3, { n: 3 })], ok(4, { n: 4 })]);
  assert.deepEqual(rx.errors, []);
  await transport.close();
});

test('an SSE response: messages in order, priming and foreign events skipped, bad JSON reported', async () => {
  const { transport, rx } = setup(
    () => {
      const sse = new SseWriter();
      sse.event({ id: 'p0', data: '' });
      sse.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } }, 'e1');
      sse.event({ event: 'ping', data: 'ignored' });
      sse.raw('data: {not json\n\n');
      sse.send(ok(1, { done: true }), 'e2');
      sse.close();
      return sse.response;
    },
    { openGetStream: false },
  );
  await transport.send(req(1));
  assert.deepEqual(rx.messages, [{ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } }, ok(1, { done: true })]);
  assert.equal(rx.errors.length, 1);
  assert.equal((rx.errors[0] as LocalError).code, 'invalid_message');
  await transport.close();
});

test("custom headers: static record, and a function called for every request; the transport's own headers win", async () => {
  let calls = 0;
  const { server, transport } = setup((r) => (bodyOf(r).id === undefined ? status(202) : json(ok(bodyOf(r).id))), {
    openGetStream: false,
    requestInit: { headers: { 'x-base': 'b', 'x-over': 'base' } },
    headers: async () => {
      calls++;
      await delay(1);
      return { authorization: `Bearer t${calls}`, 'x-over': 'custom', accept: 'text/plain' };
    },
  });
  await transport.send(req(1));
  await transport.send(req(2));
  assert.equal(calls, 2);
  assert.equal(server.requests[0]!.headers.get('authorization'), 'Bearer t1');
  assert.equal(server.requests[1]!.headers.get('authorization'), 'Bearer t2');
  assert.equal(server.requests[0]!.headers.get('x-base'), 'b');
  assert.equal(server.requests[0]!.headers.get('x-over'), 'custom');
  assert.equal(server.requests[0]!.headers.get('accept'), 'application/json, text/event-stream');
  await transport.close();

  const fixed = setup((r) => json(ok(bodyOf(r).id)), { openGetStream: false, headers: { 'x-api-key': 'k' } });
  await fixed.transport.send(req(1));
  assert.equal(fixed.server.requests[0]!.headers.get('x-api-key'), 'k');
  await fixed.transport.close();
});

test('sends are dispatched in call order even when the header function takes varying time', async () => {
  let n = 0;
  const { server, transport } = setup((r) => json(ok(bodyOf(r).id)), {
    openGetStream: false,
    headers: async () => {
      await delay(n++ % 2 === 0 ? 8 : 0);
      return {};
    },
  });
  await Promise.all([1, 2, 3, 4, 5, 6].map((i) => transport.send(req(i))));
  assert.deepEqual(
    server.requests.map((r) => bodyOf(r).id),
    [1, 2, 3, 4, 5, 6],
  );
  await transport.close();
});

test("a response stream that drops mid-request is resumed by GET with Last-Event-ID after the server's retry", async () => {
  const { server, transport, rx } = setup(
    (r) => {
      if (r.method === 'POST') {
        const m = bodyOf(r);
        if (m.method === 'initialize') return json(initResult(m.id), { headers: { 'mcp-session-id': 's1' } });
        const sse = new SseWriter();
        sse.event({ id: 'ev-1', retry: 120, data: '' });
        sse.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 7, progress: 1 } }, 'ev-2');
        setTimeout(() => sse.close(), 5);
        return sse.response;
      }
      const sse = new SseWriter();
      sse.send(ok(7, { resumed: true }), 'ev-3');
      sse.close();
      return sse.response;
    },
    { openGetStream: false },
  );
  await transport.send(init(1));
  transport.setProtocolVersion('2025-11-25');
  await transport.send(req(7, 'tools/call'));
  const gets = server.only('GET');
  assert.equal(gets.length, 1);
  const get = gets[0]!;
  assert.equal(get.headers.get('last-event-id'), 'ev-2');
  assert.equal(get.headers.get('mcp-session-id'), 's1');
  assert.equal(get.headers.get('mcp-protocol-version'), '2025-11-25');
  assert.equal(get.headers.get('accept'), 'text/event-stream');
  assert.deepEqual(rx.messages.at(-1), ok(7, { resumed: true }));
  await transport.close();
});

test("the resumption waits the server's retry (generous bounds)", async () => {
  let endedAt = 0;
  let getAt = 0;
  const { transport } = setup(
    (r) => {
      if (r.method === 'POST') {
        const sse = new SseWriter();
        sse.event({ id: 'a', retry: 150, data: '' });
        setTimeout(() => {
          endedAt = Date.now();
          sse.close();
        }, 2);
        return sse.response;
      }
      getAt = Date.now();
      const sse = new SseWriter();
      sse.send(ok(1), 'b');
      sse.close();
      return sse.response;
    },
    { openGetStream: false, reconnect: { initialDelayMs: 5000 } },
  );
  await transport.send(req(1));
  const waited = getAt - endedAt;
  assert.ok(waited >= 130, `waited ${waited} ms, expected about 150`);
  assert.ok(waited < 3000, `waited ${waited} ms`);
  await transport.close();
});

test('without a server retry the resumption uses the reconnect delay, and progress resets the attempt count', async () => {
  let gets = 0;
  const { server, transport, rx } = setup(
    (r) => {
      if (r.method === 'POST') {
        const sse = new SseWriter();
        sse.event({ id: 'x1', data: '' });
        sse.close();
        return sse.response;
      }
      gets++;
      const sse = new SseWriter();
      if (gets < 4)
        sse.event({ id: `x${gets + 1}`, data: '' }); // new ids: progress, no answer yet
      else sse.send(ok(1, { after: gets }), 'x9');
      sse.close();
      return sse.response;
    },
    { openGetStream: false, reconnect: { initialDelayMs: 5, maxRetries: 1 } },
  );
  await transport.send(req(1));
  assert.equal(gets, 4);
  assert.deepEqual(
    server.only('GET').map((g) => g.headers.get('last-event-id')),
    ['x1', 'x2', 'x3', 'x4'],
  );
  assert.deepEqual(rx.messages, [ok(1, { after: 4 })]);
  await transport.close();
});

test('a stream that ends without any event id fails its requests at once, without a GET', async () => {
  const { server, transport } = setup(
    () => {
      const sse = new SseWriter();
      sse.send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } });
      sse.close();
      return sse.response;
    },
    { openGetStream: false, reconnect: { initialDelayMs: 10_000 } },
  );
  const started = Date.now();
  await assert.rejects(
    transport.send(req(3)),
    (err: unknown) => err instanceof LocalError && err.code === 'connection_closed' && /request 3/.test(err.message),
  );
  assert.ok(Date.now() - started < 1000);
  assert.equal(server.only('GET').length, 0);
  await transport.close();
});

test('resumption gives up after maxRetries fruitless attempts; a 405 to the GET gives up at once', async () => {
  const failing = setup(
    (r) => {
      if (r.method === 'GET') return status(503);
      const sse = new SseWriter();
      sse.event({ id: 'k', retry: 5, data: '' });
      sse.close();
      return sse.response;
    },
    { openGetStream: false, reconnect: { maxRetries: 3 } },
  );
  await assert.rejects(
    failing.transport.send(req(1)),
    (err: unknown) => err instanceof LocalError && err.code === 'connection_closed' && /3 attempts/.test(err.message),
  );
  assert.equal(failing.server.only('GET').length, 3);
  await failing.transport.close();

  const noResume = setup(
    (r) => {
      if (r.method === 'GET') return status(405);
      const sse = new SseWriter();
      sse.event({ id: 'k', retry: 5, data: '' });
      sse.close();
      return sse.response;
    },
    { openGetStream: false },
  );
  await assert.rejects(noResume.transport.send(req(1)), /does not resume streams/);
  assert.equal(noResume.server.only('GET').length, 1);
  await noResume.transport.close();
});

test('a broken (errored) stream is resumed like a closed one', async () => {
  const { transport, rx } = setup(
    (r) => {
      const sse = new SseWriter();
      if (r.method === 'POST') {
        sse.event({ id: 'b1', retry: 5, data: '' });
        setTimeout(() => sse.fail(), 2);
      } else {
        sse.send(ok(1, { ok: true }), 'b2');
        sse.close();
      }
      return sse.response;
    },
    { openGetStream: false },
  );
  await transport.send(req(1));
  assert.deepEqual(rx.messages, [ok(1, { ok: true })]);
  await transport.close();
});

test('an outgoing cancellation stops the resumption for that request', async () => {
  const { server, transport } = setup(
    (r) => {
      if (r.method === 'POST' && bodyOf(r).method === 'notifications/cancelled') return status(202);
      const sse = new SseWriter();
      sse.event({ id: 'c1', retry: 80, data: '' });
      sse.close();
      return sse.response;
    },
    { openGetStream: false },
  );
  const pending = transport.send(req(5));
  await server.waitForRequest((r) => r.method === 'POST');
  await delay(10);
  await transport.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5, reason: 'timeout' } });
  await pending;
  assert.equal(server.only('GET').length, 0);
  await transport.close();
});

test('HTTP errors: no JSON-RPC answer rejects with the status; a matching JSON-RPC error body is delivered', async () => {
  const { transport, rx } = setup(
    (r) => {
      const m = bodyOf(r);
      if (m.id === 1) return status(500, 'boom');
      if (m.id === 2) return json({ jsonrpc: '2.0', id: 2, error: { code: -32602, message: 'bad params' } }, { status: 400 });
      if (m.id === 3) return json({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Bad Request: no session' } }, { status: 400 });
      if (m.id === 4) return status(429);
      return status(400);
    },
    { openGetStream: false },
  );
  await assert.rejects(
    transport.send(req(1)),
    (err: unknown) =>
      err instanceof HttpStatusError && err.status === 500 && err.code === 'connection_closed' && /HTTP 500/.test(err.message) && /boom/.test(err.message),
  );
  await transport.send(req(2));
  assert.deepEqual(rx.messages, [{ jsonrpc: '2.0', id: 2, error: { code: -32602, message: 'bad params' } }]);
  await assert.rejects(transport.send(req(3)), (err: unknown) => err instanceof HttpStatusError && err.status === 400 && /no session/.test(err.message));
  await assert.rejects(transport.send(req(4)), (err: unknown) => err instanceof HttpStatusError && err.code === 'rate_limited');
  await assert.rejects(transport.send(initialized), (err: unknown) => err instanceof HttpStatusError && err.status === 400);
  assert.equal(rx.closedCount, 0);
  await transport.close();
});

test('a JSON response that leaves a request unanswered, or an unexpected content type, fails the request', async () => {
  const { transport } = setup(
    (r) => {
      const m = bodyOf(r);
      if (m.id === 1) return json(ok(99));
      return new Response('hello', { status: 200, headers: { 'content-type': 'text/plain' } });
    },
    { openGetStream: false },
  );
  await assert.rejects(transport.send(req(1)), (err: unknown) => err instanceof LocalError && err.code === 'invalid_message');
  await assert.rejects(transport.send(req(2)), /content type/);
  await transport.close();
});

test('a network failure rejects the send with connection_closed', async () => {
  const { transport, rx } = setup(
    () => {
      throw new TypeError('fetch failed');
    },
    { openGetStream: false },
  );
  await assert.rejects(
    transport.send(req(1)),
    (err: unknown) => err instanceof LocalError && err.code === 'connection_closed' && /fetch failed/.test(err.message),
  );
  assert.equal(rx.closedCount, 0);
  await transport.close();
});

test('HTTP 404 on a request carrying the session id: session expired, transport closes', async () => {
  let expired: string | undefined;
  const { transport, rx, server } = setup(
    (r) => {
      const m = bodyOf(r);
      if (m.method === 'initialize') return json(initResult(m.id), { headers: { 'mcp-session-id': 'gone' } });
      return status(404);
    },
    { openGetStream: false, onSessionExpired: (id) => (expired = id) },
  );
  await transport.send(init(1));
  await assert.rejects(
    transport.send(req(2)),
    (err: unknown) => err instanceof SessionExpiredError && err.code === 'session_expired' && err.sessionId === 'gone',
  );
  assert.equal(expired, 'gone');
  assert.equal(transport.sessionId, undefined);
  assert.equal(rx.closedCount, 1);
  assert.ok(rx.closedReason instanceof SessionExpiredError);
  assert.ok(rx.errors.some((e) => e instanceof SessionExpiredError));
  await assert.rejects(transport.send(req(3)), (err: unknown) => err instanceof LocalError && err.code === 'connection_closed');
  await transport.close();
  assert.equal(rx.closedCount, 1);
  assert.equal(server.only('DELETE').length, 0, 'no DELETE for a session the server already dropped');
});

test('HTTP 404 without a session id is an ordinary HTTP error', async () => {
  const { transport, rx } = setup(() => status(404), { openGetStream: false });
  await assert.rejects(transport.send(init(1)), (err: unknown) => err instanceof HttpStatusError && err.status === 404);
  assert.equal(rx.closedCount, 0);
  await transport.close();
});

test('close(): aborts in-flight requests, sends DELETE with the session id, calls closed once; idempotent', async () => {
  const { server, transport, rx } = setup(
    (r) => {
      if (r.method === 'DELETE') return status(405);
      const m = bodyOf(r);
      if (m.method === 'initialize') return json(initResult(m.id), { headers: { 'mcp-session-id': 'del-me' } });
      return new Promise<Response>(() => {}); // never answers
    },
    { openGetStream: false },
  );
  await transport.send(init(1));
  transport.setProtocolVersion('2025-06-18');
  const hanging = transport.send(req(2));
  await server.waitForRequest((r) => r.method === 'POST' && bodyOf(r).id === 2);
  await Promise.all([transport.close(), transport.close()]);
  await assert.rejects(hanging, (err: unknown) => err instanceof LocalError && err.code === 'connection_closed');
  const deletes = server.only('DELETE');
  assert.equal(deletes.length, 1);
  assert.equal(deletes[0]!.headers.get('mcp-session-id'), 'del-me');
  assert.equal(deletes[0]!.headers.get('mcp-protocol-version'), '2025-06-18');
  assert.equal(rx.closedCount, 1);
  assert.equal(rx.closedReason, undefined);
  await assert.rejects(transport.send(req(3)), (err: unknown) => err instanceof LocalError && err.code === 'connection_closed');
});

test('close() without a session sends no DELETE; a hanging DELETE is bounded by closeTimeoutMs', async () => {
  const plain = setup(() => json(ok(1)), { openGetStream: false });
  await plain.transport.send(req(1));
  await plain.transport.close();
  assert.equal(plain.server.only('DELETE').length, 0);

  const slow = setup(
    (r) => {
      if (r.method === 'DELETE') return new Promise<Response>(() => {});
      return json(initResult(1), { headers: { 'mcp-session-id': 'z' } });
    },
    { openGetStream: false, closeTimeoutMs: 30 },
  );
  await slow.transport.send(init(1));
  const started = Date.now();
  await slow.transport.close();
  assert.ok(Date.now() - started < 2000);
  assert.equal(slow.rx.closedCount, 1);
});

test('close() stops a pending resumption wait', async () => {
  const { server, transport } = setup(
    () => {
      const sse = new SseWriter();
      sse.event({ id: 'w', retry: 60_000, data: '' });
      sse.close();
      return sse.response;
    },
    { openGetStream: false },
  );
  const pending = transport.send(req(1));
  await server.waitForRequest((r) => r.method === 'POST');
  await delay(10);
  const started = Date.now();
  await transport.close();
  await assert.rejects(pending, (err: unknown) => err instanceof LocalError && err.code === 'connection_closed');
  assert.ok(Date.now() - started < 1000);
});

test('request controllers are released when requests end (close aborts none of the finished ones)', async () => {
  const { server, transport } = setup((r) => json(ok(bodyOf(r).id)), { openGetStream: false });
  for (let i = 1; i <= 50; i++) await transport.send(req(i));
  const signals = new Set(server.requests.map((r) => r.signal));
  assert.equal(signals.size, 50, 'one controller per request');
  await transport.close();
  assert.ok(server.requests.every((r) => r.signal && !r.signal.aborted));
});

test('oversized SSE events and JSON bodies are dropped and reported', async () => {
  const { transport, rx } = setup(
    (r) => {
      const m = bodyOf(r);
      if (m.id === 1) {
        const sse = new SseWriter();
        sse.send({ jsonrpc: '2.0', method: 'notifications/message', params: { data: 'x'.repeat(500) } }, 'o1');
        sse.send(ok(1), 'o2');
        sse.close();
        return sse.response;
      }
      return json(ok(2, { big: 'y'.repeat(500) }));
    },
    { openGetStream: false, maxEventChars: 200 },
  );
  await transport.send(req(1));
  assert.deepEqual(rx.messages, [ok(1)]);
  await assert.rejects(transport.send(req(2)), (err: unknown) => err instanceof LocalError && err.code === 'message_too_large');
  assert.equal(rx.errors.filter((e) => (e as LocalError).code === 'message_too_large').length, 2);
  await transport.close();
});

test('a session id with characters outside visible ASCII is refused', async () => {
  const { transport } = setup(() => json(initResult(1), { headers: { 'mcp-session-id': 'has space' } }), { openGetStream: false });
  await assert.rejects(transport.send(init(1)), (err: unknown) => err instanceof LocalError && err.code === 'invalid_message');
  assert.equal(transport.sessionId, undefined);
  await transport.close();
  assert.throws(() => new StreamableHttpClientTransport({ url: URL_, sessionId: 'a\tb' }), TypeError);
});

test('send before start and start twice are refused', async () => {
  const server = new FakeServer(() => json(ok(1)));
  const transport = new StreamableHttpClientTransport({ url: URL_, fetch: server.fetch });
  await assert.rejects(transport.send(req(1)), (err: unknown) => err instanceof LocalError && err.code === 'not_connected');
  transport.start(new Collector());
  assert.throws(
    () => transport.start(new Collector()),
    (err: unknown) => err instanceof LocalError && err.code === 'already_connected',
  );
  await transport.close();
});

// ───────────── the standalone GET stream ─────────────

function sessionServer(onGet: (r: { lastEventId: string | null; n: number }) => Response | Promise<Response>): Handler {
  let n = 0;
  return (r) => {
    if (r.method === 'GET') return onGet({ lastEventId: r.headers.get('last-event-id'), n: ++n });
    if (r.method === 'DELETE') return status(200);
    const m = bodyOf(r);
    if (m.method === 'initialize') return json(initResult(m.id), { headers: { 'mcp-session-id': 'g-sess' } });
    if (m.id === undefined || m.method === undefined) return status(202);
    return json(ok(m.id));
  };
}

test('the GET stream opens after notifications/initialized, delivers messages and reopens with Last-Event-ID', async () => {
  const streams: SseWriter[] = [];
  const { server, transport, rx } = setup(
    sessionServer(({ n }) => {
      const sse = new SseWriter();
      streams.push(sse);
      if (n === 1) {
        sse.event({ id: 'g1', retry: 15, data: '' });
        sse.send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }, 'g2');
        setTimeout(() => sse.close(), 5);
      } else {
        sse.send({ jsonrpc: '2.0', id: 'srv-1', method: 'ping' }, 'g3');
      }
      return sse.response;
    }),
  );
  await transport.send(init(1));
  assert.equal(server.only('GET').length, 0, 'no GET before the handshake completes');
  transport.setProtocolVersion('2025-11-25');
  await transport.send(initialized);
  await waitFor(() => rx.messages.length >= 3, 'two messages from the GET streams');
  const gets = server.only('GET');
  assert.equal(gets.length, 2);
  assert.equal(gets[0]!.headers.get('accept'), 'text/event-stream');
  assert.equal(gets[0]!.headers.get('mcp-session-id'), 'g-sess');
  assert.equal(gets[0]!.headers.get('mcp-protocol-version'), '2025-11-25');
  assert.equal(gets[0]!.headers.get('last-event-id'), null);
  assert.equal(gets[1]!.headers.get('last-event-id'), 'g2');
  assert.deepEqual(rx.messages.slice(1), [
    { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
    { jsonrpc: '2.0', id: 'srv-1', method: 'ping' },
  ]);
  assert.equal(transport.getStreamState, 'open');
  await transport.close();
  await waitFor(() => streams.every((s) => s.done), 'streams cancelled on close');
  assert.equal(rx.closedCount, 1);
});

test('a 405 to the GET means no stream: tried once, never again', async () => {
  const { server, transport, rx } = setup(
    sessionServer(() => status(405)),
    { reconnect: { initialDelayMs: 1 } },
  );
  await transport.send(init(1));
  await transport.send(initialized);
  await waitFor(() => transport.getStreamState === 'unsupported', 'the GET stream to be declared unsupported');
  await transport.send(req(2));
  await transport.send(initialized);
  await delay(20);
  assert.equal(server.only('GET').length, 1);
  assert.deepEqual(rx.errors, []);
  await transport.close();
});

test('a GET stream that keeps failing gives up after the bounded retries and reports it', async () => {
  const { server, transport, rx } = setup(
    sessionServer(() => status(500)),
    { reconnect: { initialDelayMs: 2, maxRetries: 2 } },
  );
  await transport.send(init(1));
  await transport.send(initialized);
  await waitFor(() => transport.getStreamState === 'failed', 'the GET stream to give up');
  assert.equal(server.only('GET').length, 3);
  assert.equal(rx.errors.length, 1);
  assert.match(rx.errors[0]!.message, /HTTP 500/);
  assert.equal(rx.closedCount, 0, 'losing the GET stream does not close the transport');
  await transport.send(req(2));
  await transport.close();
});

test('openGetStream: false never opens it; a resumed session opens it at start and a 404 there expires it', async () => {
  const off = setup(
    sessionServer(() => status(500)),
    { openGetStream: false },
  );
  await off.transport.send(init(1));
  await off.transport.send(initialized);
  await delay(10);
  assert.equal(off.server.only('GET').length, 0);
  await off.transport.close();

  let expired = '';
  const resumed = setup(
    sessionServer(() => status(404)),
    { sessionId: 'old-one', onSessionExpired: (id) => (expired = id) },
  );
  await waitFor(() => resumed.rx.closedCount === 1, 'the expiry to close the transport');
  assert.equal(resumed.server.only('GET')[0]!.headers.get('mcp-session-id'), 'old-one');
  assert.equal(expired, 'old-one');
  assert.ok(resumed.rx.closedReason instanceof SessionExpiredError);
  await resumed.transport.close();
});
