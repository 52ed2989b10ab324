/**
 * The Streamable HTTP transport on a RedisEventStore (2025-03-26 › Streamable HTTP ›
 * Resumability and Redelivery): a client vanishes mid-stream, the request runs on, and a GET
 * with Last-Event-ID replays the rest — response included — from Redis. The events are
 * readable through another connection (another instance) under the transport's own stream
 * keys, and nothing was reported to the handler's onError (every key the transport makes
 * passes the store's key check).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { get, makeHandler, openSession, post, rpc, SseReader } from '../../test/helpers/http/server-harness.js';
import { type RedisServer, startRedis } from '../../test/helpers/redis/redis-server.js';
import { until } from '../../test/helpers/redis/task-peer.js';
import { RedisConnection } from './connection.js';
import { RedisEventStore } from './event-store.js';

let server: RedisServer;
let redis: RedisConnection;
let other: RedisConnection;
before(async () => {
  server = await startRedis();
  redis = await RedisConnection.connect({ url: server.url, prefix: 'http:' });
  other = await RedisConnection.connect({ url: server.url, prefix: 'http:' });
});
after(async () => {
  await redis.close();
  await other.close();
  await server.close();
});

test('a broken SSE stream resumes with Last-Event-ID from events kept in Redis', async () => {
  const errors: Error[] = [];
  const handler = makeHandler({ eventStore: new RedisEventStore(redis), onError: (e) => errors.push(e) });
  try {
    const sessionId = await openSession(handler);
    const sse = new SseReader(await post(handler, rpc(1, 'tools/call', { name: 'wait', arguments: { ms: 60 } }), { sessionId }));
    const priming = await sse.next();
    const first = await sse.next();
    assert.equal(JSON.parse(first.data).params.data, 'waiting');
    await sse.cancel();

    // Another instance sees the stream under the transport's key `<session>/<stream>`.
    const [streamId] = priming.id.split(':');
    const elsewhere = new RedisEventStore(other);
    await until('the response to be stored', async () => (await elsewhere.replay(`${sessionId}/${streamId}`, 0)).some((e) => 'result' in JSON.parse(e.data)));

    const resumed = new SseReader(await get(handler, sessionId, { 'last-event-id': first.id }));
    const events = (await resumed.rest()).filter((e) => e.data !== '');
    assert.deepEqual(
      events.map((e) => JSON.parse(e.data).method ?? 'response'),
      ['notifications/message', 'response'],
    );
    assert.equal(JSON.parse(events[1]!.data).result.content[0].text, 'waited 60');
    assert.deepEqual(errors, []);
  } finally {
    await handler.close();
  }
});
