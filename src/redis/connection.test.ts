/**
 * RedisConnection: key parts (nothing a client chose becomes a key part unchecked), option
 * checks, and connecting to a port where no Redis listens (a clear error, no credentials in
 * it, no crash). Plus a round trip of a draft-form task whose requestor-chosen id is not a
 * plain word (SEP-1686 draft: the requestor picks the task id) against a real redis-server.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { freePort, type RedisServer, startRedis } from '../../test/helpers/redis/redis-server.js';
import { RedisConnection, RedisUnavailableError } from './connection.js';
import { RedisTaskStore } from './task-store.js';

describe('RedisConnection without a server', () => {
  it('maps ids to key parts: plain words verbatim, anything else hashed', () => {
    const c = new RedisConnection({ url: 'redis://127.0.0.1:1', prefix: 'app:', connectTimeoutMs: 50 });
    try {
      assert.equal(c.key('task', '0b6d1c3e-6b7e-4a8e-9f0c-3b1f4b9b2a11'), 'app:task:0b6d1c3e-6b7e-4a8e-9f0c-3b1f4b9b2a11');
      assert.equal(c.key('events', 'sess/3'), 'app:events:sess/3');
      for (const raw of ['a:b', 'x y', '*', 'ü', '\n', 'a'.repeat(129), '~abc', '']) {
        assert.match(c.id(raw), /^~[0-9a-f]{64}$/, JSON.stringify(raw));
      }
      assert.notEqual(c.id('a:b'), c.id('a;b'));
      assert.equal(c.id('a:b'), c.id('a:b'), 'stable');
    } finally {
      void c.close();
    }
  });

  it('refuses a bad prefix or limit', () => {
    for (const prefix of ['', 'has space', 'x'.repeat(65), 'a*']) assert.throws(() => new RedisConnection({ prefix }), RangeError, prefix);
    assert.throws(() => new RedisConnection({ commandTimeoutMs: 0 }), RangeError);
    assert.throws(() => new RedisConnection({ reconnectMaxDelayMs: 1.5 }), RangeError);
  });

  it('rejects connect() with RedisUnavailableError when nothing listens, without the password in the message', async () => {
    const port = await freePort();
    const errors: Error[] = [];
    await assert.rejects(
      RedisConnection.connect({ url: `redis://user:s3cret@127.0.0.1:${port}`, connectTimeoutMs: 300, onError: (e) => errors.push(e) }),
      (e: unknown) => {
        assert.ok(e instanceof RedisUnavailableError);
        assert.equal(e.reason, 'disconnected');
        assert.equal(e.message.includes('s3cret'), false);
        assert.match(e.message, new RegExp(`127\\.0\\.0\\.1:${port}`));
        return true;
      },
    );
    for (const e of errors) assert.equal(e.message.includes('s3cret'), false);
  });
});

describe('RedisConnection with a server', () => {
  let server: RedisServer;
  let redis: RedisConnection;
  before(async () => {
    server = await startRedis();
    redis = await RedisConnection.connect({ url: server.url, prefix: 'keys:' });
  });
  after(async () => {
    await redis.close();
    await server.close();
  });

  it('stores a task whose requestor-chosen id is not a plain word under a hashed key', async () => {
    const store = await RedisTaskStore.open(redis);
    try {
      const id = 'keys:*\r\nFLUSHALL ../ü';
      await store.create({ taskId: id, status: 'submitted', ttlMs: 60_000, ttlAnchor: 'terminal', owner: {}, method: 'tools/call', form: 'draft' });
      assert.equal((await store.get(id))?.taskId, id);
      assert.equal(await store.get('keys:*'), undefined);
      const keys = await redis.run((c) => c.keys('keys:task:*'));
      assert.deepEqual(keys, [`keys:task:${redis.id(id)}`]);
      assert.equal(await store.delete(id), true);
    } finally {
      await store.close();
    }
  });
});
