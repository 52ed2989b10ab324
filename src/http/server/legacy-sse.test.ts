import assert from 'node:assert/strict';
import { test } from 'node:test';
import { errorCode, initRequest, makeHandler, note, rpc, SseReader, smallServer } from '../../../test/helpers/http/server-harness.js';

function postMessage(handler: ReturnType<typeof makeHandler>, endpoint: string, body: unknown, contentType = 'application/json'): Promise<Response> {
  return handler.fetch(
    new Request(new URL(endpoint, 'http://localhost:3000/sse'), { method: 'POST', headers: { 'content-type': contentType }, body: JSON.stringify(body) }),
  );
}

test('legacy HTTP+SSE: endpoint event first, POSTs answered 202, responses on the SSE stream', async () => {
  const server = smallServer();
  const handler = makeHandler({ server, legacySse: true });
  const res = await handler.fetch(new Request('http://localhost:3000/sse', { headers: { accept: 'text/event-stream' } }));
  assert.equal(res.status, 200);
  const sse = new SseReader(res);
  const endpoint = await sse.next();
  assert.equal(endpoint.event, 'endpoint');
  assert.match(endpoint.data, /^\/messages\?sessionId=[A-Za-z0-9_-]{43}$/);
  assert.equal(handler.sessionCount, 1);

  const init = await postMessage(handler, endpoint.data, initRequest('2024-11-05'));
  assert.equal(init.status, 202);
  assert.equal(await init.text(), '');
  const initResult = await sse.next();
  assert.equal(initResult.event, 'message');
  assert.equal(JSON.parse(initResult.data).result.protocolVersion, '2024-11-05');
  assert.equal((await postMessage(handler, endpoint.data, note('notifications/initialized'))).status, 202);
  assert.equal((await postMessage(handler, endpoint.data, rpc(1, 'tools/call', { name: 'wait', arguments: { ms: 5 } }))).status, 202);
  const messages = [await sse.next(), await sse.next(), await sse.next()].map((e) => JSON.parse(e.data));
  assert.deepEqual(
    messages.map((m) => m.method ?? m.id),
    ['notifications/message', 'notifications/message', 1],
  );

  // errors of the POST endpoint
  assert.equal((await postMessage(handler, endpoint.data, rpc(2, 'ping'), 'text/plain')).status, 415);
  const parse = await handler.fetch(
    new Request(new URL(endpoint.data, 'http://localhost:3000'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' }),
  );
  assert.equal(parse.status, 400);
  assert.equal(await errorCode(parse), -32700);
  assert.equal((await postMessage(handler, '/messages?sessionId=nope', rpc(3, 'ping'))).status, 404);
  assert.equal((await postMessage(handler, '/messages', rpc(3, 'ping'))).status, 400);

  // the client closing the stream ends the session
  await sse.cancel();
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(handler.sessionCount, 0);
  assert.equal(server.connections.size, 0);
  assert.equal((await postMessage(handler, endpoint.data, rpc(4, 'ping'))).status, 404);
  await handler.close();
});

test('legacy endpoints: custom paths, method checks, and handler close ends the stream', async () => {
  const handler = makeHandler({ legacySse: true, legacySsePath: '/events', legacyMessagesPath: '/rpc?v=1' });
  const sse = new SseReader(await handler.fetch(new Request('http://localhost/events')));
  const endpoint = await sse.next();
  assert.match(endpoint.data, /^\/rpc\?v=1&sessionId=/);
  assert.equal((await handler.fetch(new Request('http://localhost/events', { method: 'POST', body: '{}' }))).status, 405);
  assert.equal((await handler.fetch(new Request('http://localhost/events', { headers: { accept: 'application/json' } }))).status, 406);
  await handler.close();
  assert.deepEqual(await sse.rest(1000), []);
});

test('attack round 2: while the handler drains, a legacy POST carrying a request gets 503 with Retry-After (as on the Streamable endpoint); notifications still pass', async () => {
  const handler = makeHandler({ legacySse: true });
  const res = await handler.fetch(new Request('http://localhost:3000/sse', { headers: { accept: 'text/event-stream' } }));
  const sse = new SseReader(res);
  const endpoint = (await sse.next()).data;
  assert.equal((await postMessage(handler, endpoint, initRequest('2024-11-05'))).status, 202);
  await sse.next();
  assert.equal((await postMessage(handler, endpoint, note('notifications/initialized'))).status, 202);
  // a Streamable session with a call in progress keeps the drain going
  const init = await handler.fetch(
    new Request('http://localhost:3000/mcp', {
      method: 'POST',
      headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify(initRequest()),
    }),
  );
  const sessionId = init.headers.get('mcp-session-id')!;
  await init.text();
  const headers = {
    accept: 'application/json, text/event-stream',
    'content-type': 'application/json',
    'mcp-session-id': sessionId,
    'mcp-protocol-version': JSON.parse(JSON.stringify(initRequest())).params.protocolVersion,
  };
  await (
    await handler.fetch(new Request('http://localhost:3000/mcp', { method: 'POST', headers, body: JSON.stringify(note('notifications/initialized')) }))
  ).text();
  const running = handler.fetch(
    new Request('http://localhost:3000/mcp', { method: 'POST', headers, body: JSON.stringify(rpc(9, 'tools/call', { name: 'wait', arguments: { ms: 600 } })) }),
  );
  await new Promise((resolve) => setTimeout(resolve, 100));
  const closing = handler.close({ drainMs: 5000 });
  const refused = await postMessage(handler, endpoint, rpc(2, 'tools/call', { name: 'echo', arguments: { text: 'new work' } }));
  assert.equal(refused.status, 503);
  assert.equal(refused.headers.get('retry-after'), '1');
  const batch = await postMessage(handler, endpoint, [note('notifications/progress'), rpc(3, 'ping')]);
  assert.equal(batch.status, 503, 'a batch holding a request is new work too');
  assert.equal((await postMessage(handler, endpoint, note('notifications/cancelled', { requestId: 99 }))).status, 202);
  await (await running).text();
  await closing;
  await sse.cancel().catch(() => undefined);
});
