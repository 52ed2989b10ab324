/**
 * Resuming an SSE stream with `Last-Event-ID` on another instance (2025-03-26 › Streamable
 * HTTP › Resumability and Redelivery: the server replays the messages after the last event
 * id "on the stream that was disconnected"): two handlers on one Redis, sessions shared
 * (RedisSessionDirectory), events in Redis Streams (RedisEventStore).
 *
 * - A stream opened on A, its client gone mid-request, resumes on B: B replays from Redis
 *   what was stored after the id, and follows A's further events live until the response;
 *   every event exactly once, in order, ids unchanged (they name A's tag).
 * - A stream A completed while detached is replayed by B and ended.
 * - The GET stream A held, broken, resumes on B: A's stored messages after the id, then B's
 *   own GET stream, which the messages A produces from then on reach through the routing;
 *   a routed message B already replayed (known by its origin event id) is not written twice.
 * - Redis down while resuming: 503 with Retry-After (not 400); with an event store that is
 *   not shared (the in-memory default) a stream of another instance gets 400.
 * - A response too long for the owner to hand over (`maxRoutedChars`) comes from Redis.
 * - The id of one session's stream presented with another session gets 400 on either
 *   instance, and so does an id naming an instance that does not exist; the same id with
 *   its own session resolves on B.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { get, LATEST, openSession, post, type ReadEvent, rpc, SseReader } from '../../test/helpers/http/server-harness.js';
import { type RedisServer, startRedis } from '../../test/helpers/redis/redis-server.js';
import { releaseGate, type SessionInstance, sessionInstance } from '../../test/helpers/redis/session-instance.js';
import { until } from '../../test/helpers/redis/task-peer.js';
import type { StreamableHttpHandler } from '../http/server/handler.js';
import { RedisEventStore } from './event-store.js';

let server: RedisServer;
let a: SessionInstance;
let b: SessionInstance;
before(async () => {
  server = await startRedis();
  a = await sessionInstance(server.url, 'resume:', { events: true, directory: { followCheckMs: 100 } });
  b = await sessionInstance(server.url, 'resume:', { events: true, directory: { followCheckMs: 100 } });
});
after(async () => {
  await a.close();
  await b.close();
  await server.close();
});

/** POSTs a `steps` call; returns the reader, positioned after the priming event, and the priming id. */
async function steps(
  handler: StreamableHttpHandler,
  sessionId: string,
  id: number,
  args: Record<string, unknown>,
): Promise<{ sse: SseReader; priming: string }> {
  const res = await post(handler, rpc(id, 'tools/call', { name: 'steps', arguments: args as never }), { sessionId, protocolVersion: LATEST });
  assert.equal(res.status, 200);
  const sse = new SseReader(res);
  const priming = await sse.next();
  assert.equal(priming.data, '');
  return { sse, priming: priming.id };
}

function resume(handler: StreamableHttpHandler, sessionId: string, lastEventId: string): Promise<Response> {
  return get(handler, sessionId, { 'last-event-id': lastEventId, 'mcp-protocol-version': LATEST });
}

/** `step n` for a log message, `result <text>` for the response. */
function what(e: ReadEvent): string {
  const m = JSON.parse(e.data);
  return m.method === 'notifications/message' ? `step ${m.params.data.step}` : `result ${m.result.content[0].text}`;
}

it("resumes on B a stream A holds open: the stored rest from Redis, then A's further events live, each once", async () => {
  const sessionId = await openSession(a.handler);
  const { sse, priming } = await steps(a.handler, sessionId, 1, { count: 4, gate: 'live', holdAt: 3 });
  const tag = a.directory.streamTag;
  assert.match(priming, new RegExp(`^${tag}\\.\\d+:0$`), 'the event id names the instance that opened the stream');
  const label = priming.slice(0, -1);
  const first = await sse.next();
  const second = await sse.next();
  assert.deepEqual([what(first), what(second)], ['step 1', 'step 2']);
  await sse.cancel();

  // resume after step 1: step 2 comes from Redis, steps 3 and 4 and the response from A
  const res = await resume(b.handler, sessionId, first.id);
  assert.equal(res.status, 200);
  const resumed = new SseReader(res);
  assert.equal((await resumed.next()).id, first.id, 'the priming event repeats the id resumed from');
  const replayed = await resumed.next();
  assert.equal(replayed.id, second.id);
  assert.equal(what(replayed), 'step 2');
  await until('B to follow the stream A holds', () => b.directory.follows.following === 1 && a.directory.follows.feeding === 1);
  releaseGate('live');
  const rest = (await resumed.rest()).filter((e) => e.data !== '');
  assert.deepEqual(rest.map(what), ['step 3', 'step 4', 'result stepped 4']);
  assert.deepEqual(
    rest.map((e) => e.id),
    [`${label}3`, `${label}4`, `${label}5`],
  );
  await until('the follow to end on both sides', () => b.directory.follows.following === 0 && a.directory.follows.feeding === 0);
  assert.deepEqual(
    [...a.errors, ...b.errors].map((e) => e.message),
    [],
  );
});

it('replays on B a stream A completed while its client was gone, and ends it', async () => {
  const sessionId = await openSession(a.handler);
  const { sse, priming } = await steps(a.handler, sessionId, 1, { count: 3, gate: 'detached', holdAt: 2 });
  const first = await sse.next();
  await sse.cancel();
  releaseGate('detached');
  const tag = a.directory.streamTag;
  const label = priming.slice(0, -1);
  const streamNo = label.slice(tag.length + 1, -1);
  const store = new RedisEventStore(b.redis);
  await until('A to store the response', async () => (await store.replay(`${sessionId}.${tag}/${streamNo}`, 0)).length === 4);

  const resumed = new SseReader(await resume(b.handler, sessionId, first.id));
  const events = (await resumed.rest()).filter((e) => e.data !== '');
  assert.deepEqual(events.map(what), ['step 2', 'step 3', 'result stepped 3']);
  assert.deepEqual(
    events.map((e) => e.id),
    [`${label}2`, `${label}3`, `${label}4`],
  );
  assert.equal(b.directory.follows.following, 0);
  assert.deepEqual(await store.replay(`${sessionId}.${tag}/${streamNo}`, 0), [], 'replayed to its end: deleted');
  assert.equal((await resume(b.handler, sessionId, first.id)).status, 400, 'so a second resumption gets 400, as on one instance');
});

it("answers 400 for the id of another session's stream, or of an instance that does not exist, and resolves it for its own session", async () => {
  const mine = await openSession(a.handler);
  const other = await openSession(a.handler);
  const { sse } = await steps(a.handler, mine, 1, { count: 2, gate: 'owner', holdAt: 2 });
  const first = await sse.next();
  await sse.cancel();

  for (const handler of [b.handler, a.handler]) {
    const res = await resume(handler, other, first.id);
    assert.equal(res.status, 400, 'another session: its streams only');
    const body = (await res.json()) as { error: { code: number; message: string } };
    assert.equal(body.error.code, -32000);
    assert.match(body.error.message, /Last-Event-ID does not name a resumable stream of this session/);
  }
  const unknownTag = first.id.replace(/^[^.]+\./, 'nosuchinstance.');
  assert.equal((await resume(b.handler, mine, unknownTag)).status, 400, 'an instance that never opened it');

  const res = await resume(b.handler, mine, first.id);
  assert.equal(res.status, 200, 'its own session: resolved on B');
  const resumed = new SseReader(res);
  await resumed.next(); // priming
  await until('B to follow', () => b.directory.follows.following === 1);
  releaseGate('owner');
  assert.deepEqual((await resumed.rest()).filter((e) => e.data !== '').map(what), ['step 2', 'result stepped 2']);
});

it("resumes on B the GET stream A held: A's stored messages after the id, then B's own GET stream", async () => {
  const sessionId = await openSession(a.handler);
  const announce = async (handler: StreamableHttpHandler, id: number, text: string) => {
    const res = await post(handler, rpc(id, 'tools/call', { name: 'announce', arguments: { text } }), { sessionId, protocolVersion: LATEST });
    assert.equal(res.status, 200);
    await new SseReader(res).rest();
  };
  const onA = new SseReader(await get(a.handler, sessionId, { 'mcp-protocol-version': LATEST }));
  const primingA = await onA.next();
  assert.equal(primingA.id, `${a.directory.streamTag}.0:0`);
  await announce(a.handler, 1, 'one');
  const one = await onA.next();
  assert.equal(JSON.parse(one.data).params.data.announce, 'one');
  await onA.cancel();
  await announce(a.handler, 2, 'two'); // no GET attached anywhere: kept in A's log

  const res = await resume(b.handler, sessionId, one.id);
  assert.equal(res.status, 200);
  const onB = new SseReader(res);
  assert.equal((await onB.next()).id, one.id);
  const two = await onB.next();
  assert.equal(two.id, `${a.directory.streamTag}.0:2`);
  assert.equal(JSON.parse(two.data).params.data.announce, 'two');
  const primingB = await onB.next();
  assert.match(primingB.id, new RegExp(`^${b.directory.streamTag}\\.0:\\d+$`), "then B's own GET stream, under its ids");
  assert.equal(primingB.data, '');
  // A's forward of 'two' (published while no GET was attached) may reach B only now, after
  // the replay wrote it: B knows it by its origin on A's stream and drops it, and 'one',
  // which the client named as its last event, too. Forwarded on A's connection, so both
  // reach B before the forward of 'three'.
  a.directory.forward(sessionId, 'stream', two.data, two.id);
  a.directory.forward(sessionId, 'stream', one.data, one.id);
  await announce(a.handler, 3, 'three'); // produced on A, routed to the GET B holds
  const three = await onB.next();
  assert.equal(JSON.parse(three.data).params.data.announce, 'three');
  assert.ok(three.id.startsWith(`${b.directory.streamTag}.0:`));
  await onB.cancel();
});

it('answers 503 with Retry-After, not 400, when the stored events cannot be read (Redis down), and resumes once it is back', async () => {
  const sessionId = await openSession(a.handler);
  const { sse } = await steps(a.handler, sessionId, 1, { count: 2, gate: 'down', holdAt: 2 });
  const first = await sse.next();
  await sse.cancel();
  // B holds the session (restored while Redis is up), so only the stream needs Redis
  const held = await post(b.handler, rpc(2, 'tools/call', { name: 'echo', arguments: { text: 'x' } }), { sessionId, protocolVersion: LATEST });
  assert.equal(held.status, 200);
  await new SseReader(held).rest();

  await server.stop();
  await until('B to notice', () => !b.redis.ready);
  const res = await resume(b.handler, sessionId, first.id);
  assert.equal(res.status, 503);
  assert.equal(res.headers.get('retry-after'), '10');
  const body = (await res.json()) as { error: { code: number; message: string } };
  assert.equal(body.error.code, -32000);
  assert.doesNotMatch(body.error.message, /Redis|127\.0\.0\.1/, 'no internals on the wire');
  assert.ok(b.errors.length > 0, 'the failure went to onError');
  b.errors.length = 0;
  a.errors.length = 0;

  await server.restart();
  await a.redis.whenReady();
  await b.redis.whenReady();
  await a.redis.whenSubscribed();
  await b.redis.whenSubscribed();
  // persistence is off: the restart emptied Redis, but A still holds the stream open
  const again = await resume(b.handler, sessionId, first.id);
  assert.equal(again.status, 200);
  const resumed = new SseReader(again);
  await resumed.next(); // priming
  await until('B to follow', () => b.directory.follows.following === 1);
  releaseGate('down');
  assert.deepEqual((await resumed.rest()).filter((e) => e.data !== '').map(what), ['step 2', 'result stepped 2']);
});

it('answers 400 for a stream of another instance when the event store is not shared (the in-memory default)', async () => {
  const c = await sessionInstance(server.url, 'resume-mem:', { handler: { responseMode: 'sse' } });
  const d = await sessionInstance(server.url, 'resume-mem:', { handler: { responseMode: 'sse' } });
  try {
    const sessionId = await openSession(c.handler);
    const { sse } = await steps(c.handler, sessionId, 1, { count: 2, gate: 'memory', holdAt: 2 });
    const first = await sse.next();
    await sse.cancel();
    const res = await resume(d.handler, sessionId, first.id);
    assert.equal(res.status, 400, 'D cannot read what C kept in its memory');
    assert.equal(d.directory.follows.following, 0, 'and does not try to follow');
    const own = await resume(c.handler, sessionId, first.id);
    assert.equal(own.status, 200, 'C itself resumes it');
    const resumed = new SseReader(own);
    releaseGate('memory');
    assert.deepEqual((await resumed.rest()).filter((e) => e.data !== '').map(what), ['step 2', 'result stepped 2']);
  } finally {
    await c.close();
    await d.close();
  }
});

it('delivers a response too long to hand over between instances from Redis, at the end of the follow', async () => {
  const e = await sessionInstance(server.url, 'resume-long:', { events: true, directory: { followCheckMs: 100, maxRoutedChars: 1000 } });
  const f = await sessionInstance(server.url, 'resume-long:', { events: true, directory: { followCheckMs: 100 } });
  try {
    const sessionId = await openSession(e.handler);
    const { sse } = await steps(e.handler, sessionId, 1, { count: 2, gate: 'long', holdAt: 2, pad: 5000 });
    const first = await sse.next();
    await sse.cancel();
    const resumed = new SseReader(await resume(f.handler, sessionId, first.id));
    await resumed.next(); // priming
    await until('F to follow', () => f.directory.follows.following === 1 && e.directory.follows.feeding === 1);
    releaseGate('long');
    const rest = (await resumed.rest()).filter((x) => x.data !== '');
    assert.deepEqual(rest.map(what), ['step 2', `result stepped 2${'.'.repeat(5000)}`]);
  } finally {
    await e.close();
    await f.close();
  }
});
