/**
 * Issue 35 §4: a request of another principal, refused (404), does not extend the expiry of
 * a session bound to someone else. RedisSessionDirectory checks the record's owner in the
 * read script before it touches the record; the handler passes the requesting principal
 * (`SessionDirectory.get`'s `reader`) whenever sessions are bound. Real redis-server.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { type RedisServer, startRedis } from '../../test/helpers/redis/redis-server.js';
import { RedisConnection } from './connection.js';
import { RedisSessionDirectory } from './session-directory.js';

let server: RedisServer;
let redis: RedisConnection;
let directory: RedisSessionDirectory;
before(async () => {
  server = await startRedis();
  redis = await RedisConnection.connect({ url: server.url, prefix: 'owner:' });
  directory = await RedisSessionDirectory.open(redis);
});
after(async () => {
  await directory.close();
  await redis.close();
  await server.close();
});

const pttl = (id: string) => redis.run((c) => c.pttl(redis.key('session', id)));

it('reads a bound record only for its owner, and leaves its expiry alone for anyone else', async () => {
  const id = 'bound-session-1';
  const created = await directory.create({
    id,
    revision: '2025-06-18',
    clientCapabilities: {},
    clientInfo: undefined,
    logLevel: undefined,
    subscriptions: [],
    owner: 'alice',
    idleMs: 4000,
  });
  assert.equal(created, 'created');
  await new Promise((resolve) => setTimeout(resolve, 1200));
  const before = await pttl(id);
  assert.ok(before > 0 && before <= 3900, `the record ages (${before} ms left)`);
  assert.equal(await directory.get(id, { owner: 'mallory' }), undefined, 'another principal does not find it');
  assert.equal(await directory.get(id, { owner: undefined }), undefined, 'nor does a request without a principal');
  assert.ok((await pttl(id)) <= before, 'and its refused reads did not extend its expiry');
  const record = await directory.get(id, { owner: 'alice' });
  assert.equal(record?.owner, 'alice');
  assert.ok((await pttl(id)) > 4500, "its owner's read extends it");
  // unbound reads (sessions not bound to principals) still find it
  assert.equal((await directory.get(id))?.id, id);
});

it("counts a principal's sessions across instances, ends its least recently used quiet one at the limit, and refuses when none is quiet", async () => {
  const other = await RedisConnection.connect({ url: server.url, prefix: 'owner:' });
  const second = await RedisSessionDirectory.open(other);
  const removed: string[] = [];
  const unwatch = second.watch({ removed: (id) => void removed.push(id), updated: () => {} });
  try {
    const record = (id: string, owner: string) => ({
      id,
      revision: '2025-06-18',
      clientCapabilities: {},
      clientInfo: undefined,
      logLevel: undefined,
      subscriptions: [],
      owner,
      idleMs: 1000,
    });
    const limits = { maxPerOwner: 2 };
    // one on each instance: the limit counts both
    assert.equal(await directory.create(record('cap-a1', 'carol'), limits), 'created');
    assert.equal(await second.create(record('cap-a2', 'carol'), limits), 'created');
    assert.equal(await directory.create(record('cap-a3', 'carol'), limits), 'crowded', 'both are in use: refused');
    assert.equal(await second.create(record('cap-b1', 'dave'), limits), 'created', 'another principal is not affected');
    // once quiet, the least recently used one makes room, everywhere
    await new Promise((resolve) => setTimeout(resolve, 900));
    assert.notEqual(await second.get('cap-a2', { owner: 'carol' }), undefined, 'a2 used again (touched)');
    assert.equal(await directory.create(record('cap-a3', 'carol'), limits), 'created');
    assert.equal(await directory.get('cap-a1', { owner: 'carol' }), undefined, 'a1, the least recently used, was ended');
    assert.notEqual(await directory.get('cap-a2', { owner: 'carol' }), undefined, 'a2 lives on');
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(removed, ['cap-a1'], 'and its end was announced to the other instances');
  } finally {
    unwatch();
    await second.close();
    await other.close();
  }
});
