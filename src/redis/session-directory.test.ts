/**
 * RedisSessionDirectory's bounds and bad input, against a real redis-server: option checks,
 * a record past maxRecordChars (initialize gets 500, no session id: nothing half-made),
 * malformed records and announcements (reported, never crash, the session reads as unknown:
 * 404 per 2025-03-26 › Streamable HTTP › Session Management), and a record deleted behind an
 * instance's back without an announcement (its next touch finds it gone and it forgets it).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { initRequest, LATEST, openSession, post, rpc } from '../../test/helpers/http/server-harness.js';
import { type RedisServer, startRedis } from '../../test/helpers/redis/redis-server.js';
import { type SessionInstance, sessionInstance } from '../../test/helpers/redis/session-instance.js';
import { until } from '../../test/helpers/redis/task-peer.js';
import { RedisConnection } from './connection.js';
import { RedisSessionDirectory } from './session-directory.js';

let server: RedisServer;
const opened: SessionInstance[] = [];
before(async () => {
  server = await startRedis();
});
after(async () => {
  for (const instance of opened.reverse()) await instance.close().catch(() => {});
  await server.close();
});

async function open(prefix: string, options: Parameters<typeof sessionInstance>[2] = {}): Promise<SessionInstance> {
  const instance = await sessionInstance(server.url, prefix, options);
  opened.push(instance);
  return instance;
}

describe('RedisSessionDirectory bounds and bad input', () => {
  it('refuses bad options with RangeError', async () => {
    const redis = await RedisConnection.connect({ url: server.url, prefix: 'opts:' });
    try {
      await assert.rejects(RedisSessionDirectory.open(redis, { maxSessions: 0 }), RangeError);
      await assert.rejects(RedisSessionDirectory.open(redis, { maxRecordChars: 1.5 }), RangeError);
      await assert.rejects(RedisSessionDirectory.open(redis, { maxRoutedChars: -1 }), RangeError);
    } finally {
      await redis.close();
    }
  });

  it('answers 500 without a session id for a record past maxRecordChars, and keeps nothing', async () => {
    const a = await open('big:', { directory: { maxRecordChars: 512 } });
    const init = initRequest();
    (init.params as { capabilities: Record<string, unknown> }).capabilities = { experimental: { blob: 'x'.repeat(2000) } };
    const res = await post(a.handler, init);
    assert.equal(res.status, 500);
    assert.equal(res.headers.get('mcp-session-id'), null);
    assert.equal((await res.json()).error.code, -32603);
    assert.equal(a.handler.sessionCount, 0);
    assert.equal(await a.redis.run((c) => c.zcard('big:sessions:live')), 0);
    assert.ok(a.errors.some((e) => e instanceof RangeError && /maxRecordChars/.test(e.message)));
  });

  it('reads a malformed record as no session, and drops malformed announcements', async () => {
    const a = await open('bad:');
    await a.redis.run((c) => c.hset(a.redis.key('session', 'forged'), 'r', '{not json', 's', '[]', 't', '60000'));
    const res = await post(a.handler, rpc(1, 'tools/call', { name: 'echo', arguments: {} }), { sessionId: 'forged', protocolVersion: LATEST });
    assert.equal(res.status, 404);
    assert.ok(a.errors.some((e) => /malformed session record/.test(e.message)));

    const before = a.errors.length;
    const sessionId = await openSession(a.handler);
    for (const junk of ['nope', '{"o":"x","e":"zz","id":"a"}', JSON.stringify({ o: 'x', e: 'u', id: sessionId, s: 'not an array' })])
      await a.redis.publish('sessions', junk);
    await a.redis.publish('sessions:route', '{"id":1}');
    await until('the junk to be reported', () => a.errors.length >= before + 4);
    assert.equal(
      (await post(a.handler, rpc(2, 'tools/call', { name: 'echo', arguments: {} }), { sessionId, protocolVersion: LATEST })).status,
      200,
      'the session is untouched',
    );
  });

  it('forgets a held session whose record vanished without an announcement, at its next touch', async () => {
    // idle 400 ms: a touch goes out at most every 100 ms
    const a = await open('vanish:', { handler: { sessionIdleTimeoutMs: 400 } });
    const sessionId = await openSession(a.handler);
    await a.redis.run((c) => c.del(a.redis.key('session', sessionId)));
    await until('a touch to find the record gone', async () => {
      await post(a.handler, rpc(Math.floor(Math.random() * 1e9), 'tools/call', { name: 'echo', arguments: {} }), { sessionId, protocolVersion: LATEST });
      return a.handler.sessionCount === 0;
    });
    assert.equal((await post(a.handler, rpc(3, 'tools/call', { name: 'echo', arguments: {} }), { sessionId, protocolVersion: LATEST })).status, 404);
  });
});
