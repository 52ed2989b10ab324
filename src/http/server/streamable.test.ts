import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ACCEPT_BOTH,
  BASE,
  del,
  errorCode,
  get,
  initRequest,
  LATEST,
  makeHandler,
  note,
  openSession,
  post,
  rpc,
  SseReader,
} from '../../../test/helpers/http/server-harness.js';
import { handleNow } from './handler.js';
import type { HttpRequest } from './types.js';

test('initialize: JSON answer with a fresh, random, visible-ASCII session id', async () => {
  const handler = makeHandler();
  const ids = new Set<string>();
  for (let i = 0; i < 20; i++) {
    const res = await post(handler, initRequest());
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json');
    const id = res.headers.get('mcp-session-id')!;
    assert.match(id, /^[\x21-\x7e]{32,}$/);
    assert.ok(!ids.has(id));
    ids.add(id);
    const body = (await res.json()) as any;
    assert.equal(body.id, 0);
    assert.equal(body.result.serverInfo.name, 'http-test-server');
  }
  assert.equal(handler.sessionCount, 20);
  await handler.close();
});

test('a POST with a request streams SSE: priming event (id, retry, empty data) first, then the response, then the end', async () => {
  const handler = makeHandler({ retryMs: 750 });
  const sessionId = await openSession(handler);
  const res = await post(handler, rpc(1, 'tools/list'), { sessionId, protocolVersion: '2025-11-25' });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('mcp-session-id'), sessionId);
  const sse = new SseReader(res);
  const priming = await sse.next();
  assert.equal(priming.data, '');
  assert.equal(priming.retry, 750);
  assert.match(priming.id, /^\d+:0$/);
  const events = await sse.rest();
  assert.equal(events.length, 1);
  const stream = priming.id.split(':')[0];
  assert.equal(events[0]!.id, `${stream}:1`);
  const message = JSON.parse(events[0]!.data);
  assert.equal(message.id, 1);
  assert.deepEqual(
    message.result.tools.map((t: { name: string }) => t.name),
    ['echo', 'wait', 'ask'],
  );
  await handler.close();
});

test('messages related to a request travel on its POST stream, before the response', async () => {
  const handler = makeHandler();
  const sessionId = await openSession(handler);
  const res = await post(handler, rpc(7, 'tools/call', { name: 'wait', arguments: { ms: 20 } }), { sessionId });
  const messages = await new SseReader(res).restMessages();
  assert.deepEqual(
    messages.map((m) => m.method ?? `response ${m.id}`),
    ['notifications/message', 'notifications/message', 'response 7'],
  );
  assert.equal(messages[2].result.content[0].text, 'waited 20');
  await handler.close();
});

test('responseMode json answers with application/json', async () => {
  const handler = makeHandler({ responseMode: 'json' });
  const sessionId = await openSession(handler);
  const res = await post(handler, rpc(1, 'tools/call', { name: 'echo', arguments: { text: 'hi' } }), { sessionId });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'application/json');
  const body = (await res.json()) as any;
  assert.equal(body.result.content[0].text, 'hi');
  await handler.close();
});

test('responseMode json: messages related to a request go to the GET stream', async () => {
  const handler = makeHandler({ responseMode: 'json' });
  const sessionId = await openSession(handler);
  const sse = new SseReader(await get(handler, sessionId));
  await sse.next();
  const res = await post(handler, rpc(1, 'tools/call', { name: 'wait', arguments: { ms: 5 } }), { sessionId });
  assert.equal(((await res.json()) as any).result.content[0].text, 'waited 5');
  const logs = [await sse.next(), await sse.next()].map((e) => JSON.parse(e.data).params.data);
  assert.deepEqual(logs, ['waiting', 'waited']);
  await sse.cancel();
  await handler.close();
});

test('notifications and responses alone get 202 with no body', async () => {
  const handler = makeHandler();
  const sessionId = await openSession(handler);
  const res = await post(handler, note('notifications/roots/list_changed'), { sessionId });
  assert.equal(res.status, 202);
  assert.equal(await res.text(), '');
  const response = await post(handler, { jsonrpc: '2.0', id: 99, result: {} }, { sessionId });
  assert.equal(response.status, 202);
  assert.equal(await response.text(), '');
  await handler.close();
});

test('media types: 406 without both Accept types, 415 for text/plain, Accept wildcards allowed', async () => {
  const handler = makeHandler();
  const sessionId = await openSession(handler);
  for (const accept of [null, 'application/json', 'text/event-stream', 'text/html']) {
    const res = await post(handler, rpc(1, 'ping'), { sessionId, accept });
    assert.equal(res.status, 406, `Accept ${accept}`);
    assert.equal(await errorCode(res), -32000);
  }
  for (const contentType of ['text/plain', null, 'application/x-www-form-urlencoded']) {
    const res = await post(handler, rpc(1, 'ping'), { sessionId, contentType });
    assert.equal(res.status, 415, `Content-Type ${contentType}`);
  }
  const ok = await post(handler, rpc(2, 'ping'), { sessionId, accept: '*/*', contentType: 'application/json; charset=utf-8' });
  assert.equal(ok.status, 200);
  assert.deepEqual((await new SseReader(ok).restMessages())[0].result, {});
  await handler.close();
});

test('bad bodies: parse error 400/-32700, invalid message 400/-32600, empty batch 400', async () => {
  const handler = makeHandler();
  const sessionId = await openSession(handler);
  const parse = await post(handler, '{"jsonrpc":', { sessionId });
  assert.equal(parse.status, 400);
  assert.deepEqual(await parse.json(), { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the body is not valid JSON' } });
  const invalid = await post(handler, { jsonrpc: '2.0', id: 5 }, { sessionId });
  assert.equal(invalid.status, 400);
  const body = (await invalid.json()) as any;
  assert.equal(body.error.code, -32600);
  assert.equal(body.id, 5);
  const empty = await post(handler, [], { sessionId });
  assert.equal(empty.status, 400);
  assert.equal(await errorCode(empty), -32600);
  await handler.close();
});

test('sessions: missing id 400, unknown id 404, DELETE ends the session and then everything is 404', async () => {
  const handler = makeHandler();
  const sessionId = await openSession(handler);
  const missing = await post(handler, rpc(1, 'ping'));
  assert.equal(missing.status, 400);
  assert.deepEqual(await missing.json(), { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'Bad Request: Mcp-Session-Id header is required' } });
  const missingForNotification = await post(handler, note('notifications/initialized'));
  assert.equal(missingForNotification.status, 400);
  assert.equal(((await missingForNotification.json()) as any).id, null);
  const unknown = await post(handler, rpc(1, 'ping'), { sessionId: 'no-such-session' });
  assert.equal(unknown.status, 404);
  assert.equal(await errorCode(unknown), -32001);
  assert.equal((await get(handler, undefined)).status, 400);
  assert.equal((await del(handler, undefined)).status, 400);

  const deleted = await del(handler, sessionId);
  assert.equal(deleted.status, 200);
  assert.equal(handler.sessionCount, 0);
  assert.equal((await post(handler, rpc(2, 'ping'), { sessionId })).status, 404);
  assert.equal((await get(handler, sessionId)).status, 404);
  assert.equal((await del(handler, sessionId)).status, 404);
  await handler.close();
});

test('DELETE ends open streams and cancels the requests in flight', async () => {
  const handler = makeHandler();
  const sessionId = await openSession(handler);
  const res = await post(handler, rpc(1, 'tools/call', { name: 'wait', arguments: { ms: 5000 } }), { sessionId });
  const sse = new SseReader(res);
  await sse.next(); // priming
  await sse.next(); // first log
  const standalone = new SseReader(await get(handler, sessionId));
  await standalone.next();
  assert.equal((await del(handler, sessionId)).status, 200);
  assert.deepEqual(await sse.rest(1000), []);
  assert.deepEqual(await standalone.rest(1000), []);
  await handler.close();
});

test('MCP-Protocol-Version: unsupported 400, absent accepted (2025-03-26 assumed), supported accepted', async () => {
  const handler = makeHandler();
  const sessionId = await openSession(handler);
  for (const version of ['1999-01-01', 'latest', '2026-07-28']) {
    const res = await post(handler, rpc(1, 'ping'), { sessionId, protocolVersion: version });
    assert.equal(res.status, 400, version);
    // 2026-07-28 is the stateless era: no session applies, and the request lacks its _meta
    assert.equal(await errorCode(res), version === '2026-07-28' ? -32602 : -32000);
    assert.equal((await get(handler, sessionId, { 'mcp-protocol-version': version })).status, 400);
  }
  const absent = await post(handler, rpc(2, 'ping'), { sessionId });
  assert.equal(absent.status, 200);
  await absent.body?.cancel();
  const older = await post(handler, rpc(3, 'ping'), { sessionId, protocolVersion: '2025-03-26' });
  assert.equal(older.status, 200);
  await older.body?.cancel();
  await handler.close();
});

test('batches: refused (400, -32600) in 2025-06-18 and later, answered as one array in 2025-03-26', async () => {
  const handler = makeHandler();
  for (const revision of ['2025-06-18', '2025-11-25']) {
    const sessionId = await openSession(handler, revision);
    const res = await post(handler, [rpc(1, 'ping'), rpc(2, 'ping')], { sessionId, protocolVersion: revision });
    assert.equal(res.status, 400);
    assert.equal(await errorCode(res), -32600);
  }
  const sessionId = await openSession(handler, '2025-03-26');
  const res = await post(handler, [rpc(1, 'ping'), note('notifications/roots/list_changed'), rpc(2, 'tools/list')], {
    sessionId,
    protocolVersion: '2025-03-26',
  });
  assert.equal(res.status, 200);
  const messages = await new SseReader(res).restMessages();
  assert.equal(messages.length, 1);
  assert.ok(Array.isArray(messages[0]));
  assert.deepEqual(messages[0].map((m: { id: number }) => m.id).sort(), [1, 2]);

  const json = makeHandler({ responseMode: 'json' });
  const jsonSession = await openSession(json, '2025-03-26');
  const jsonRes = await post(json, [rpc(1, 'ping'), { foo: 1 }], { sessionId: jsonSession });
  assert.equal(jsonRes.status, 200);
  const array = (await jsonRes.json()) as any[];
  assert.equal(array.length, 2);
  assert.ok(array.some((m) => m.id === 1 && m.result !== undefined));
  assert.ok(array.some((m) => m.id === null && m.error.code === -32600));
  const notificationsOnly = await post(json, [note('notifications/roots/list_changed'), { jsonrpc: '2.0', id: 77, result: {} }], { sessionId: jsonSession });
  assert.equal(notificationsOnly.status, 202);
  await handler.close();
  await json.close();
});

test('initialize inside a batch is refused', async () => {
  const handler = makeHandler();
  const res = await post(handler, [initRequest('2025-03-26')]);
  assert.equal(res.status, 400);
  assert.equal(await errorCode(res), -32600);
  assert.equal(handler.sessionCount, 0);
  await handler.close();
});

test('a failed initialize creates no session', async () => {
  const handler = makeHandler();
  const res = await post(handler, rpc(0, 'initialize', { protocolVersion: 7 as unknown as string }));
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('mcp-session-id'), null);
  assert.equal(((await res.json()) as any).error.code, -32602);
  assert.equal(handler.sessionCount, 0);
  await handler.close();
});

test('GET stream: 406 without text/event-stream, 405 when disabled, 409 for a second concurrent one', async () => {
  const handler = makeHandler();
  const sessionId = await openSession(handler);
  assert.equal((await get(handler, sessionId, { accept: 'application/json' })).status, 406);
  const first = await get(handler, sessionId);
  assert.equal(first.status, 200);
  const second = await get(handler, sessionId);
  assert.equal(second.status, 409);
  await first.body!.cancel();
  await new Promise((resolve) => setTimeout(resolve, 10));
  const third = await get(handler, sessionId);
  assert.equal(third.status, 200);
  await third.body!.cancel();
  await handler.close();

  const noGet = makeHandler({ enableGetStream: false });
  const id = await openSession(noGet);
  const res = await get(noGet, id);
  assert.equal(res.status, 405);
  assert.equal(res.headers.get('allow'), 'POST, DELETE');
  await noGet.close();
});

test('messages unrelated to a request go to the GET stream; without one they wait for the next GET', async () => {
  const server = (await import('../../../test/helpers/http/server-harness.js')).smallServer();
  const handler = makeHandler({ server });
  const sessionId = await openSession(handler);
  await server.log('warning', 'while nobody listens');
  const sse = new SseReader(await get(handler, sessionId));
  const priming = await sse.next();
  assert.equal(priming.id, '0:0');
  assert.equal(priming.data, '');
  const backlog = await sse.next();
  assert.equal(backlog.id, '0:1');
  assert.equal(JSON.parse(backlog.data).params.data, 'while nobody listens');
  await server.log('info', 'live');
  const live = await sse.next();
  assert.equal(live.id, '0:2');
  assert.equal(JSON.parse(live.data).params.data, 'live');
  // a POST's own stream never carries them
  const res = await post(handler, rpc(1, 'ping'), { sessionId });
  const postEvents = await new SseReader(res).restMessages();
  assert.deepEqual(postEvents, [{ jsonrpc: '2.0', id: 1, result: {} }]);
  await sse.cancel();
  await handler.close();
});

test("a server → client request related to a tool call goes out on the call's stream; the answer comes in a POST", async () => {
  const handler = makeHandler();
  const sessionId = await openSession(handler);
  const sse = new SseReader(await post(handler, rpc(1, 'tools/call', { name: 'ask', arguments: {} }), { sessionId }));
  await sse.next(); // priming
  const request = JSON.parse((await sse.next()).data);
  assert.equal(request.method, 'sampling/createMessage');
  const answer = await post(
    handler,
    { jsonrpc: '2.0', id: request.id, result: { role: 'assistant', model: 'm1', content: { type: 'text', text: 'ok' } } },
    { sessionId },
  );
  assert.equal(answer.status, 202);
  const rest = await sse.restMessages();
  assert.equal(rest.length, 1);
  assert.equal(rest[0].result.content[0].text, 'model m1');
  await handler.close();
});

test("a cancelled request's stream closes promptly, without a response", async () => {
  const handler = makeHandler();
  const sessionId = await openSession(handler);
  const sse = new SseReader(await post(handler, rpc('slow', 'tools/call', { name: 'wait', arguments: { ms: 10_000 } }), { sessionId }));
  await sse.next();
  const cancel = await post(handler, note('notifications/cancelled', { requestId: 'slow', reason: 'changed my mind' }), { sessionId });
  assert.equal(cancel.status, 202);
  const rest = await sse.restMessages(1000);
  assert.ok(
    rest.every((m) => m.id === undefined),
    'no response after cancellation',
  );
  // the id is free again
  const again = await post(handler, rpc('slow', 'ping'), { sessionId });
  assert.deepEqual(await new SseReader(again).restMessages(), [{ jsonrpc: '2.0', id: 'slow', result: {} }]);
  await handler.close();
});

test('a request id already in progress is refused with 409', async () => {
  const handler = makeHandler();
  const sessionId = await openSession(handler);
  const first = new SseReader(await post(handler, rpc(1, 'tools/call', { name: 'wait', arguments: { ms: 100 } }), { sessionId }));
  const dup = await post(handler, rpc(1, 'ping'), { sessionId });
  assert.equal(dup.status, 409);
  assert.equal(await errorCode(dup), -32600);
  const messages = await first.restMessages();
  assert.equal(messages.at(-1).result.content[0].text, 'waited 100');
  await handler.close();
});

test('three concurrent POST streams on one session are all served', async () => {
  const handler = makeHandler();
  const sessionId = await openSession(handler);
  const replies = await Promise.all([1000, 1001, 1002].map((id) => post(handler, rpc(id, 'tools/list', {}), { sessionId, protocolVersion: '2025-03-26' })));
  assert.deepEqual(
    replies.map((r) => r.status),
    [200, 200, 200],
  );
  const streams = await Promise.all(replies.map((r) => new SseReader(r).rest()));
  const primingIds = new Set(streams.map((events) => events[0]!.id.split(':')[0]));
  assert.equal(primingIds.size, 3, 'each POST has its own stream');
  assert.deepEqual(
    streams.map((events) => JSON.parse(events[1]!.data).id),
    [1000, 1001, 1002],
  );
  await handler.close();
});

test('routing: unknown paths 404, other methods 405 with Allow', async () => {
  const handler = makeHandler();
  const other = await handler.fetch(
    new Request(BASE + '/elsewhere', { method: 'POST', headers: { accept: ACCEPT_BOTH, 'content-type': 'application/json' }, body: '{}' }),
  );
  assert.equal(other.status, 404);
  const put = await handler.fetch(new Request(BASE + '/mcp', { method: 'PUT', body: '{}' }));
  assert.equal(put.status, 405);
  assert.equal(put.headers.get('allow'), 'GET, POST, DELETE');
  const sse = await handler.fetch(new Request(BASE + '/sse'));
  assert.equal(sse.status, 404, 'legacy endpoints are off by default');
  const query = await post(handler, initRequest(), { path: '/mcp?x=1' });
  assert.equal(query.status, 200);
  await handler.close();
});

test('close() ends every session and refuses later requests with 503', async () => {
  const handler = makeHandler();
  const sessionId = await openSession(handler);
  const sse = new SseReader(await get(handler, sessionId));
  await sse.next();
  await handler.close();
  assert.deepEqual(await sse.rest(1000), []);
  assert.equal(handler.sessionCount, 0);
  const res = await post(handler, initRequest());
  assert.equal(res.status, 503);
});

test('a POST the adapter holds whole, to a synchronous tool, is replied to at once in both response modes', async () => {
  for (const responseMode of ['json', 'sse'] as const) {
    const handler = makeHandler({ responseMode });
    const sessionId = await openSession(handler);
    const headers: Record<string, string> = {
      host: 'localhost:3000',
      accept: ACCEPT_BOTH,
      'content-type': 'application/json',
      'mcp-session-id': sessionId,
      'mcp-protocol-version': LATEST,
    };
    const request: HttpRequest = {
      method: 'POST',
      url: '/mcp',
      headers: (name) => headers[name] ?? null,
      body: JSON.stringify(rpc(1, 'tools/call', { name: 'echo', arguments: { text: 'hi' } })),
      rawHeaders: headers,
    };
    const reply = handleNow(handler, request);
    assert.ok(!(reply instanceof Promise), `${responseMode}: the reply itself, not a promise`);
    assert.equal(reply.status, 200);
    let text: string;
    if (reply.stream === undefined) text = reply.body!;
    else {
      // the stream ended before it was attached: its whole text and its end come during attach
      let written = '';
      let ended = false;
      reply.stream.attach({ write: (chunk) => (written += chunk), end: () => (ended = true) });
      assert.equal(ended, true, 'ended during attach');
      text = /^data: (\{.*)$/m.exec(written)![1]!; // after the priming event (empty data)
    }
    assert.deepEqual(JSON.parse(text), { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'hi' }] } });
    await handler.close();
  }
});
