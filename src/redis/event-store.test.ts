/**
 * RedisEventStore against a real redis-server: the behaviour the in-memory store's tests
 * check (replay after a sequence number, per stream, unknown streams, delete, the per-stream
 * bound), plus replay of a stream written by another process that was then killed
 * (2025-03-26 › Streamable HTTP › Resumability and Redelivery: the client may resume with
 * Last-Event-ID on any instance), expiry, and the validation of stream keys.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type RedisServer, startRedis } from '../../test/helpers/redis/redis-server.js';
import { kill, spawnInstance } from '../../test/helpers/redis/spawn-instance.js';
import { until } from '../../test/helpers/redis/task-peer.js';
import { RedisConnection } from './connection.js';
import { RedisEventStore } from './event-store.js';

let server: RedisServer;
let redis: RedisConnection;

before(async () => {
  server = await startRedis();
  redis = await RedisConnection.connect({ url: server.url, prefix: 'ev:' });
});
after(async () => {
  await redis.close();
  await server.close();
});

/** How many times Redis ran `command` so far (INFO commandstats). */
async function calls(command: string): Promise<number> {
  const info = await redis.run((c) => c.info('commandstats'));
  const m = new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(info);
  return m === null ? 0 : Number(m[1]);
}

describe('RedisEventStore', () => {
  it('sends the appends of one turn as one transaction (issue 36 item 7), each append settling on its own', async () => {
    const store = new RedisEventStore(redis);
    const multiBefore = await calls('multi');
    const xaddBefore = await calls('xadd');
    // what a tool emits between two awaits of real I/O: progress, logs, on two streams
    const appends = [1, 2, 3, 4, 5, 6, 7, 8].map((seq) => store.append('turn-a/1', seq, `p${seq}`));
    appends.push(store.append('turn-a/0', 1, 'log'));
    appends.push(store.append('turn-a/1', 3, 'out of order: refused by Redis'));
    const settled = await Promise.allSettled(appends);
    assert.deepEqual(
      settled.map((r) => r.status),
      [...Array(9).fill('fulfilled'), 'rejected'],
      'each append settles with its own reply',
    );
    assert.equal((await calls('multi')) - multiBefore, 1, 'one MULTI for the turn');
    assert.equal((await calls('xadd')) - xaddBefore, 10);
    assert.deepEqual(
      (await store.replay('turn-a/1', 0)).map((e) => e.data),
      ['p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8'],
    );
  });

  it('replays after a sequence number, per stream, in order', async () => {
    const store = new RedisEventStore(redis);
    for (let i = 1; i <= 5; i++) await store.append('sess-a/1', i, `a${i}`);
    await store.append('sess-a/2', 1, 'b1');
    assert.deepEqual(await store.replay('sess-a/1', 3), [
      { seq: 4, data: 'a4' },
      { seq: 5, data: 'a5' },
    ]);
    assert.deepEqual(
      (await store.replay('sess-a/1', 0)).map((e) => e.data),
      ['a1', 'a2', 'a3', 'a4', 'a5'],
    );
    assert.deepEqual(await store.replay('sess-a/1', 5), []);
    assert.deepEqual(await store.replay('sess-a/2', 0), [{ seq: 1, data: 'b1' }]);
    assert.deepEqual(await store.replay('unknown/1', 0), []);
    await store.delete('sess-a/1');
    assert.deepEqual(await store.replay('sess-a/1', 0), []);
    assert.deepEqual(await store.replay('sess-a/2', 0), [{ seq: 1, data: 'b1' }]);
  });

  it('is bounded per stream: replay returns at most the newest maxEventsPerStream, and Redis trims the rest', async () => {
    const store = new RedisEventStore(redis, { maxEventsPerStream: 3 });
    for (let i = 1; i <= 10; i++) await store.append('bounded/1', i, 'x');
    assert.deepEqual(
      (await store.replay('bounded/1', 0)).map((e) => e.seq),
      [8, 9, 10],
    );
    assert.deepEqual(
      (await store.replay('bounded/1', 8)).map((e) => e.seq),
      [9, 10],
    );
    const big = new RedisEventStore(redis, { maxEventsPerStream: 50 });
    for (let i = 1; i <= 1000; i++) await big.append('bounded/2', i, 'y');
    const length = await redis.run((c) => c.xlen(redis.key('events', 'bounded/2')));
    // MAXLEN ~ trims whole internal nodes (stream-node-max-entries, 100 by default).
    assert.ok(length >= 50 && length <= 50 + 100, `stream length ${length}`);
    assert.equal((await big.replay('bounded/2', 0)).length, 50);
  });

  it('replays a stream written by another process after that process was killed', async () => {
    const child = await spawnInstance([server.url, 'ev:', 'events', 'dead-session/0', '7']);
    await kill(child);
    const store = new RedisEventStore(redis);
    const events = await store.replay('dead-session/0', 4);
    assert.deepEqual(
      events.map((e) => e.seq),
      [5, 6, 7],
    );
    assert.deepEqual(JSON.parse(events[0]!.data), { jsonrpc: '2.0', method: 'notifications/message', params: { seq: 5 } });
  });

  it('expires a stream streamTtlMs after its last append', async () => {
    const store = new RedisEventStore(redis, { streamTtlMs: 200 });
    await store.append('short/1', 1, 'x');
    assert.equal((await store.replay('short/1', 0)).length, 1);
    const ttl = await redis.run((c) => c.pttl(redis.key('events', 'short/1')));
    assert.ok(ttl > 0 && ttl <= 200, `pttl ${ttl}`);
    await until('the stream to expire', async () => (await store.replay('short/1', 0)).length === 0);
  });

  it('refuses malformed keys, sequence numbers and oversized events without storing anything', async () => {
    const store = new RedisEventStore(redis, { maxEventChars: 10 });
    for (const key of ['', 'no-slash', 'a/b', 'a b/1', 'sess/1/2', `${'x'.repeat(300)}/1`, 'ü/1']) {
      await assert.rejects(store.append(key, 1, 'x'), RangeError, key);
      assert.deepEqual(await store.replay(key, 0), []);
      await store.delete(key);
    }
    await assert.rejects(store.append('ok/1', 0, 'x'), RangeError);
    await assert.rejects(store.append('ok/1', 1.5, 'x'), RangeError);
    await assert.rejects(store.append('ok/1', 1, 'x'.repeat(11)), /maxEventChars/);
    assert.deepEqual(await store.replay('ok/1', 0), []);
    assert.throws(() => new RedisEventStore(redis, { maxEventsPerStream: 0 }), RangeError);
    assert.throws(() => new RedisEventStore(redis, { streamTtlMs: -1 }), RangeError);
  });
});
