/**
 * RedisBus and RedisNotifier against a real redis-server: two instances (two connections)
 * exchange messages; after a Redis restart both subscribe again and nothing published after
 * that is dropped; malformed and oversized messages never reach a handler. The notifier
 * carries what resources/subscribe (2025-11-25 › Resources › Subscriptions) and
 * subscriptions/listen (2026-07-28) deliver: notifications/resources/updated with its URI
 * and the list_changed notifications.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type RedisServer, startRedis } from '../../test/helpers/redis/redis-server.js';
import { until } from '../../test/helpers/redis/task-peer.js';
import { type BusData, RedisBus } from './bus.js';
import { RedisConnection, RedisUnavailableError } from './connection.js';
import { RedisNotifier, type SharedNotification } from './notifier.js';

let server: RedisServer;
const connections: RedisConnection[] = [];

before(async () => {
  server = await startRedis();
});
after(async () => {
  for (const c of connections.splice(0)) await c.close();
  await server.close();
});

async function connection(prefix: string): Promise<RedisConnection> {
  const c = await RedisConnection.connect({ url: server.url, prefix, reconnectMaxDelayMs: 100, commandTimeoutMs: 500 });
  connections.push(c);
  return c;
}

describe('RedisBus', () => {
  it('delivers messages between two instances, per channel, with the origin', async () => {
    const a = new RedisBus(await connection('bus1:'), { instanceId: 'a' });
    const b = new RedisBus(await connection('bus1:'), { instanceId: 'b' });
    const atB: Array<[BusData, string]> = [];
    const atA: Array<[BusData, string]> = [];
    const other: BusData[] = [];
    await b.subscribe('chan', (d, info) => atB.push([d, info.origin]));
    await a.subscribe('chan', (d, info) => atA.push([d, info.origin]));
    await b.subscribe('other', (d) => other.push(d));
    assert.equal(await a.publish('chan', { hello: ['w', 1, null, true] }), 2, 'both instances are subscribed');
    await b.publish('chan', 'from b');
    await until('both messages on both sides', () => atA.length === 2 && atB.length === 2);
    assert.deepEqual(atB, [
      [{ hello: ['w', 1, null, true] }, 'a'],
      ['from b', 'b'],
    ]);
    assert.deepEqual(atA, atB);
    assert.deepEqual(other, [], 'another channel hears nothing');
    await a.close();
    await b.close();
  });

  it('drops malformed and oversized messages, refuses bad channel names', async () => {
    const errors: Error[] = [];
    const redis = await connection('bus2:');
    const bus = new RedisBus(redis, { maxMessageChars: 100, onError: (e) => errors.push(e) });
    const got: BusData[] = [];
    await bus.subscribe('c', (d) => got.push(d));
    await redis.publish('bus:c', 'not json');
    await redis.publish('bus:c', JSON.stringify({ d: 1 }));
    await redis.publish('bus:c', JSON.stringify({ o: 'x', d: 'y'.repeat(200) }));
    await bus.publish('c', 'fine');
    await until('the valid message', () => got.length === 1);
    assert.deepEqual(got, ['fine']);
    assert.equal(errors.length, 3);
    await assert.rejects(bus.publish('c', 'z'.repeat(200)), RangeError);
    for (const bad of ['', 'a b', 'x'.repeat(129), 'ü', '*']) {
      await assert.rejects(bus.publish(bad, 1), RangeError, bad);
      await assert.rejects(
        bus.subscribe(bad, () => {}),
        RangeError,
        bad,
      );
    }
    assert.throws(() => new RedisBus(redis, { instanceId: 'has space' }), RangeError);
    await bus.close();
  });

  it('subscribes again after a Redis restart and drops nothing published after the reconnection', async () => {
    const errors: Error[] = [];
    const a = new RedisBus(await connection('bus3:'), { instanceId: 'a', onError: (e) => errors.push(e) });
    const b = new RedisBus(await connection('bus3:'), { instanceId: 'b' });
    const got: number[] = [];
    await b.subscribe('restart', (d) => got.push(d as number));
    await a.publish('restart', 0);
    await until('the first message', () => got.length === 1);
    await server.stop();
    // While Redis is down a publish fails fast with the clear error (no queue, no hang).
    await assert.rejects(a.publish('restart', -1), (e: unknown) => e instanceof RedisUnavailableError && /unreachable|did not answer/.test(e.message));
    await server.restart();
    await a.whenReady();
    await b.whenReady();
    for (let i = 1; i <= 100; i++) await a.publish('restart', i);
    await until('every message published after the reconnection', () => got.length === 101);
    assert.deepEqual(
      got,
      Array.from({ length: 101 }, (_, i) => i),
      'all of them, in order',
    );
    await a.close();
    await b.close();
  });
});

describe('RedisNotifier', () => {
  it('fans resources/updated and list_changed out to the other instances, not back to the sender', async () => {
    const busA = new RedisBus(await connection('note:'), { instanceId: 'a' });
    const busB = new RedisBus(await connection('note:'), { instanceId: 'b' });
    const a = await RedisNotifier.open(busA);
    const b = await RedisNotifier.open(busB);
    const own = await RedisNotifier.open(busA, { includeOwn: true });
    const atA: SharedNotification[] = [];
    const atB: SharedNotification[] = [];
    const atOwn: SharedNotification[] = [];
    a.onNotification((n) => atA.push(n));
    b.onNotification((n) => atB.push(n));
    own.onNotification((n) => atOwn.push(n));
    await a.resourceUpdated('file:///tmp/x.txt');
    await a.listChanged('notifications/tools/list_changed');
    await until('both at B', () => atB.length === 2);
    assert.deepEqual(atB, [
      { method: 'notifications/resources/updated', uri: 'file:///tmp/x.txt', origin: 'a' },
      { method: 'notifications/tools/list_changed', origin: 'a' },
    ]);
    await until('both at the includeOwn notifier', () => atOwn.length === 2);
    assert.deepEqual(atA, [], 'the sender notified its own subscribers already');
    await assert.rejects(a.resourceUpdated(''), RangeError);
    await assert.rejects(a.listChanged('notifications/roots/list_changed' as never), RangeError);
    for (const n of [a, b, own]) await n.close();
  });
});
