import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventually, get, makeHandler, openSession, post, rpc, SseReader, smallServer } from '../../../test/helpers/http/server-harness.js';
import { createDemoServer } from '../../demo/server.js';
import { InMemoryEventStore } from './event-store.js';
import { closeSseStream, disconnectAfterPriming } from './session-transport.js';

const streamOf = (eventId: string): string => eventId.split(':')[0]!;

test('a client vanishing mid-stream cancels nothing; the rest, response included, is replayed after Last-Event-ID', async () => {
  const errors: Error[] = [];
  const handler = makeHandler({ onError: (e) => errors.push(e) });
  const sessionId = await openSession(handler);
  const sse = new SseReader(await post(handler, rpc(1, 'tools/call', { name: 'wait', arguments: { ms: 60 } }), { sessionId }));
  const priming = await sse.next();
  const first = await sse.next();
  assert.equal(JSON.parse(first.data).params.data, 'waiting');
  await sse.cancel(); // the client goes away

  // the request keeps running; wait for its result to be produced
  await new Promise((resolve) => setTimeout(resolve, 120));
  const resumed = new SseReader(await get(handler, sessionId, { 'last-event-id': first.id }));
  const events = await resumed.rest();
  assert.equal(events[0]!.data, '', 'a resumed stream starts with a priming event');
  const replayed = events.slice(1);
  assert.ok(replayed.every((e) => streamOf(e.id) === streamOf(priming.id)));
  assert.deepEqual(
    replayed.map((e) => JSON.parse(e.data).method ?? 'response'),
    ['notifications/message', 'response'],
  );
  assert.equal(JSON.parse(replayed[1]!.data).result.content[0].text, 'waited 60');
  assert.deepEqual(errors, []);
  // replayed to the end: the stream is forgotten
  const again = await get(handler, sessionId, { 'last-event-id': first.id });
  assert.equal(again.status, 400);
  await handler.close();
});

test("replay after Last-Event-ID never includes another stream's events", async () => {
  const handler = makeHandler();
  const sessionId = await openSession(handler);
  const a = new SseReader(await post(handler, rpc('a', 'tools/call', { name: 'wait', arguments: { ms: 40 } }), { sessionId }));
  const b = new SseReader(await post(handler, rpc('b', 'tools/call', { name: 'wait', arguments: { ms: 40 } }), { sessionId }));
  const primingA = await a.next();
  const primingB = await b.next();
  assert.notEqual(streamOf(primingA.id), streamOf(primingB.id));
  await a.cancel();
  await b.cancel();
  await new Promise((resolve) => setTimeout(resolve, 100));
  for (const [priming, id] of [
    [primingA, 'a'],
    [primingB, 'b'],
  ] as const) {
    const events = await new SseReader(await get(handler, sessionId, { 'last-event-id': priming.id })).rest();
    const messages = events.filter((e) => e.data !== '');
    assert.equal(messages.length, 3);
    assert.ok(
      events.every((e) => streamOf(e.id) === streamOf(priming.id)),
      'only events of the named stream',
    );
    assert.equal(JSON.parse(messages[2]!.data).id, id);
  }
  await handler.close();
});

test('a resumed stream that is still open continues live on the GET connection', async () => {
  const handler = makeHandler();
  const sessionId = await openSession(handler);
  const sse = new SseReader(await post(handler, rpc(1, 'tools/call', { name: 'wait', arguments: { ms: 150 } }), { sessionId }));
  const priming = await sse.next();
  await sse.cancel();
  const resumed = new SseReader(await get(handler, sessionId, { 'last-event-id': priming.id }));
  assert.equal((await resumed.next()).data, '');
  assert.equal(JSON.parse((await resumed.next()).data).params.data, 'waiting'); // replayed
  const rest = await resumed.restMessages(); // live
  assert.deepEqual(
    rest.map((m) => m.method ?? m.id),
    ['notifications/message', 1],
  );
  await handler.close();
});

test('closeSseStream(ctx): the server closes the POST stream after priming; the client resumes with GET (SEP-1699)', async () => {
  const server = smallServer();
  server.registerTool('poll_me', { description: 'closes its stream, then answers', inputSchema: { type: 'object', properties: {} } }, async (_args, ctx) => {
    assert.equal(closeSseStream(ctx), true);
    assert.equal(closeSseStream(ctx), false, 'already closed');
    await new Promise((resolve) => setTimeout(resolve, 30));
    return { content: [{ type: 'text', text: 'done after polling' }] };
  });
  const handler = makeHandler({ server, retryMs: 500 });
  const sessionId = await openSession(handler);
  const events = await new SseReader(await post(handler, rpc(3, 'tools/call', { name: 'poll_me', arguments: {} }), { sessionId })).rest();
  assert.equal(events.length, 1, 'only the priming event');
  assert.equal(events[0]!.retry, 500);
  const resumed = await new SseReader(await get(handler, sessionId, { 'last-event-id': events[0]!.id })).restMessages();
  assert.equal(resumed.length, 1);
  assert.equal(resumed[0].result.content[0].text, 'done after polling');
  await handler.close();
});

test('demo test_reconnection with disconnectAfterPriming: result arrives on the resumed GET', async () => {
  const server = createDemoServer();
  server.use(disconnectAfterPriming((method, params) => method === 'tools/call' && params?.name === 'test_reconnection'));
  const handler = makeHandler({ server });
  const sessionId = await openSession(handler);
  const events = await new SseReader(await post(handler, rpc(1, 'tools/call', { name: 'test_reconnection' }), { sessionId })).rest();
  // the POST stream closed right after priming, before the tool finished: it holds the
  // priming event only, and the result comes on the resumed GET below
  assert.deepEqual(
    events.map((e) => e.data),
    [''],
  );
  const resumed = await new SseReader(await get(handler, sessionId, { 'last-event-id': events[0]!.id })).restMessages();
  assert.equal(resumed[0].result.content[0].text, 'Reconnection test completed successfully');
  // other tools are untouched
  const echo = await new SseReader(await post(handler, rpc(2, 'tools/call', { name: 'echo', arguments: { message: 'x' } }), { sessionId })).restMessages();
  assert.equal(echo[0].result.content[0].text, 'x');
  await handler.close();
});

test('closeSseStream is a no-op in JSON mode, without an event store, and outside HTTP', async () => {
  for (const options of [{ responseMode: 'json' as const }, { eventStore: false as const }]) {
    const server = smallServer();
    let closed: boolean | undefined;
    server.registerTool('try_close', { description: 'tries', inputSchema: { type: 'object', properties: {} } }, (_args, ctx) => {
      closed = closeSseStream(ctx);
      return { content: [] };
    });
    const handler = makeHandler({ server, ...options });
    const sessionId = await openSession(handler);
    const res = await post(handler, rpc(1, 'tools/call', { name: 'try_close', arguments: {} }), { sessionId });
    if (options.responseMode === 'json') assert.equal(((await res.json()) as any).id, 1);
    else {
      const events = await new SseReader(res).rest();
      assert.equal(events.length, 1, 'no priming event without a store');
      assert.equal(events[0]!.id, '', 'no event ids without a store');
    }
    assert.equal(closed, false);
    await handler.close();
  }
  assert.equal(closeSseStream({ id: 1 }), false);
});

test('standalone stream: a reconnecting GET with Last-Event-ID gets what it missed, replacing the old connection', async () => {
  const server = smallServer();
  const handler = makeHandler({ server });
  const sessionId = await openSession(handler);
  const first = new SseReader(await get(handler, sessionId));
  await first.next();
  await server.log('info', 'one');
  const one = await first.next();
  await first.cancel();
  await eventually(() => true);
  await server.log('info', 'two');
  await server.log('info', 'three');
  const second = new SseReader(await get(handler, sessionId, { 'last-event-id': one.id }));
  await second.next(); // priming
  const missed = [await second.next(), await second.next()].map((e) => JSON.parse(e.data).params.data);
  assert.deepEqual(missed, ['two', 'three']);
  // reconnecting with Last-Event-ID while a GET is open takes over (no 409)
  const third = new SseReader(await get(handler, sessionId, { 'last-event-id': one.id }));
  assert.deepEqual(await second.rest(1000), [], 'the older connection is ended');
  await third.next();
  assert.equal(JSON.parse((await third.next()).data).params.data, 'two');
  await third.cancel();
  await handler.close();
});

test('Last-Event-ID that names no stream of this session: 400', async () => {
  const handler = makeHandler();
  const a = await openSession(handler);
  const b = await openSession(handler);
  const sse = new SseReader(await post(handler, rpc(1, 'tools/call', { name: 'wait', arguments: { ms: 50 } }), { sessionId: a }));
  const priming = await sse.next();
  for (const id of ['garbage', '99:0', '1', `${streamOf(priming.id)}:x`]) {
    const res = await get(handler, a, { 'last-event-id': id });
    assert.equal(res.status, 400, id);
  }
  // another session cannot see session a's stream
  assert.equal((await get(handler, b, { 'last-event-id': priming.id })).status, 400);
  await sse.rest();
  await handler.close();
});

test('a stream answered on a live connection leaves nothing in the event store', async () => {
  const store = new InMemoryEventStore();
  const handler = makeHandler({ eventStore: store });
  const sessionId = await openSession(handler);
  for (let i = 0; i < 20; i++) await new SseReader(await post(handler, rpc(i, 'tools/call', { name: 'wait', arguments: { ms: 1 } }), { sessionId })).rest();
  assert.equal(store.streamCount, 0);
  assert.equal(store.totalChars, 0);
  // a detached stream is kept until replayed, then dropped
  const sse = new SseReader(await post(handler, rpc(100, 'tools/call', { name: 'wait', arguments: { ms: 20 } }), { sessionId }));
  const priming = await sse.next();
  await sse.cancel();
  await new Promise((resolve) => setTimeout(resolve, 60));
  assert.equal(store.streamCount, 1);
  await new SseReader(await get(handler, sessionId, { 'last-event-id': priming.id })).rest();
  assert.equal(store.streamCount, 0);
  // the session's end forgets the rest (the standalone stream's events)
  await handler.close();
  assert.equal(store.streamCount, 0);
});

test('a session keeps at most 32 streams completed while detached: the oldest are forgotten first', async () => {
  const handler = makeHandler();
  const sessionId = await openSession(handler);
  // 35 calls whose clients leave after the priming event; each completes while detached
  const primings: string[] = [];
  for (let i = 0; i < 35; i++) {
    const sse = new SseReader(await post(handler, rpc(i, 'tools/call', { name: 'wait', arguments: { ms: 20 } }), { sessionId }));
    primings.push((await sse.next()).id);
    await sse.cancel();
  }
  await new Promise((resolve) => setTimeout(resolve, 150));
  // the first three were dropped (35 retained > 32), in the order they were opened
  for (const id of primings.slice(0, 3))
    assert.equal((await get(handler, sessionId, { 'last-event-id': id })).status, 400, `stream of ${id} should be forgotten`);
  for (const [i, id] of primings.entries()) {
    if (i < 3) continue;
    const messages = (await new SseReader(await get(handler, sessionId, { 'last-event-id': id })).rest()).filter((e) => e.data !== '');
    assert.equal(JSON.parse(messages.at(-1)!.data).id, i, `stream of call ${i} replays its result`);
  }
  await handler.close();
});
