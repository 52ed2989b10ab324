import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InMemoryThirdPartyStore } from './third-party-store.js';

test('records live for their ttl, per kind; take is single use', async () => {
  let now = 1_000_000;
  const store = new InMemoryThirdPartyStore({ now: () => now });
  await store.set('code', 'k', { a: 1 }, 10);
  await store.set('grant', 'k', { b: 2 }, 100);
  assert.deepEqual(await store.get('code', 'k'), { a: 1 });
  assert.deepEqual(await store.get('grant', 'k'), { b: 2 }, 'kinds are separate');
  assert.deepEqual(await store.take('code', 'k'), { a: 1 });
  assert.equal(await store.take('code', 'k'), undefined, 'taken once');
  await store.set('code', 'k2', { a: 2 }, 10);
  now += 10_000;
  assert.equal(await store.get('code', 'k2'), undefined, 'expired');
  assert.equal(await store.take('code', 'k2'), undefined);
  assert.deepEqual(await store.get('grant', 'k'), { b: 2 });
  await store.delete('grant', 'k');
  assert.equal(await store.get('grant', 'k'), undefined);
  await assert.rejects(store.set('code', 'x', {}, 0), RangeError);
});

test('concurrent takes of one record: exactly one wins', async () => {
  const store = new InMemoryThirdPartyStore();
  await store.set('upstream_state', 's', { transaction: 't' }, 60);
  const results = await Promise.all(Array.from({ length: 10 }, () => store.take('upstream_state', 's')));
  assert.equal(results.filter((r) => r !== undefined).length, 1);
});

test('each kind is bounded: expired records go first, then those closest to expiry', async () => {
  let now = 0;
  const store = new InMemoryThirdPartyStore({ maxRecordsPerKind: 10, now: () => now });
  for (let i = 0; i < 10; i++) await store.set('browser', `b${i}`, { i }, 100 + i);
  await store.set('browser', 'new', { i: 'new' }, 1000);
  assert.equal(store.size('browser'), 10);
  assert.equal(await store.get('browser', 'b0'), undefined, 'the record closest to expiry was dropped');
  assert.deepEqual(await store.get('browser', 'new'), { i: 'new' });
  now = 105_000;
  await store.set('browser', 'later', {}, 10);
  assert.equal(store.size('browser'), 6, 'expired ones were swept to make room');
  assert.throws(() => new InMemoryThirdPartyStore({ maxRecordsPerKind: 0 }), RangeError);
});
