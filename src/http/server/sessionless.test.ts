/**
 * The sessionless mode of the Streamable HTTP handler (`sessionless: true`, 2025 era): each
 * POST is served by a throwaway session and no `Mcp-Session-Id` is issued (2025-03-26 ›
 * Transports › Streamable HTTP › Session Management: a server MAY assign a session id, so
 * it may also not). `stateless: true` is its deprecated alias.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { del, errorCode, get, initRequest, makeHandler, note, post, rpc, SseReader, smallServer } from '../../../test/helpers/http/server-harness.js';
import { createDemoServer } from '../../demo/server.js';

test('sessionless: initialize is answered without a session id; GET and DELETE are 405', async () => {
  const server = smallServer();
  const handler = makeHandler({ server, sessionless: true });
  const init = await post(handler, initRequest());
  assert.equal(init.status, 200);
  assert.equal(init.headers.get('mcp-session-id'), null);
  assert.equal(((await init.json()) as any).result.protocolVersion, '2025-11-25');
  const getRes = await get(handler, undefined);
  assert.equal(getRes.status, 405);
  assert.equal(getRes.headers.get('allow'), 'POST');
  assert.equal((await del(handler, undefined)).status, 405);
  assert.equal(handler.sessionCount, 0);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(server.connections.size, 0, 'the throwaway server connection is closed');
  await handler.close();
});

test("sessionless: each POST is served by a fresh session at the header's revision", async () => {
  const server = smallServer();
  const handler = makeHandler({ server, sessionless: true });
  const res = await post(handler, rpc(1, 'tools/call', { name: 'wait', arguments: { ms: 5 } }), { protocolVersion: '2025-06-18' });
  assert.equal(res.status, 200);
  const events = await new SseReader(res).rest();
  assert.ok(
    events.every((e) => e.id === ''),
    'no event ids: nothing can be resumed',
  );
  const messages = events.map((e) => JSON.parse(e.data));
  assert.deepEqual(
    messages.map((m) => m.method ?? m.id),
    ['notifications/message', 'notifications/message', 1],
  );
  assert.equal(messages[2].result.content[0].text, 'waited 5');
  // a session id sent by the client is ignored
  const withId = await post(handler, rpc(2, 'ping'), { sessionId: 'whatever', protocolVersion: '2025-11-25' });
  assert.equal(withId.status, 200);
  await new SseReader(withId).rest();
  const note202 = await post(handler, note('notifications/initialized'));
  assert.equal(note202.status, 202);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(server.connections.size, 0);
  await handler.close();
});

test('sessionless: unsupported version 400; batches follow the header revision', async () => {
  const handler = makeHandler({ server: createDemoServer(), sessionless: true, responseMode: 'json' });
  const bad = await post(handler, rpc(1, 'ping'), { protocolVersion: '2030-01-01' });
  assert.equal(bad.status, 400);
  const refused = await post(handler, [rpc(1, 'ping'), rpc(2, 'ping')], { protocolVersion: '2025-06-18' });
  assert.equal(refused.status, 400);
  assert.equal(await errorCode(refused), -32600);
  const accepted = await post(handler, [rpc(1, 'ping'), rpc(2, 'tools/list')]); // no header: 2025-03-26
  assert.equal(accepted.status, 200);
  const body = (await accepted.json()) as any[];
  assert.deepEqual(body.map((m) => m.id).sort(), [1, 2]);
  await handler.close();
});

test('sessionless: a client that disconnects ends the request', async () => {
  const server = smallServer();
  let aborted = false;
  server.registerTool('long', { description: 'runs until cancelled', inputSchema: { type: 'object', properties: {} } }, async (_args, ctx) => {
    await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
    aborted = true;
    return { content: [] };
  });
  const handler = makeHandler({ server, sessionless: true });
  const res = await post(handler, rpc(1, 'tools/call', { name: 'long', arguments: {} }), { protocolVersion: '2025-11-25' });
  await res.body!.cancel();
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(aborted, true);
  assert.equal(server.connections.size, 0);
  await handler.close();
});

test('sessionless: the deprecated alias stateless: true still selects the mode', async () => {
  const server = smallServer();
  const handler = makeHandler({ server, stateless: true });
  const init = await post(handler, initRequest());
  assert.equal(init.status, 200);
  assert.equal(init.headers.get('mcp-session-id'), null, 'no session id: the sessionless mode');
  // 2025-03-26 › Streamable HTTP: a server without a GET stream answers 405
  const getRes = await get(handler, undefined);
  assert.equal(getRes.status, 405);
  assert.equal(getRes.headers.get('allow'), 'POST');
  await handler.close();
});

test('sessionless and its deprecated alias stateless: contradicting values are a TypeError, equal ones are fine', async () => {
  assert.throws(() => makeHandler({ sessionless: true, stateless: false }), TypeError);
  assert.throws(() => makeHandler({ sessionless: false, stateless: true }), TypeError);
  const both = makeHandler({ sessionless: true, stateless: true });
  assert.equal((await get(both, undefined)).status, 405);
  await both.close();
  const neither = makeHandler({ sessionless: false, stateless: false });
  assert.equal((await post(neither, initRequest())).headers.get('mcp-session-id') !== null, true, 'sessions: an id is issued');
  await neither.close();
});
