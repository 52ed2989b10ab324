/**
 * Shared sessions while Redis is unreachable (a real redis-server, stopped and started
 * again): a new session gets 503 with Retry-After (RFC 9110 § 15.6.4: the server is
 * temporarily unable to handle the request; § 10.2.3 Retry-After), a session the instance
 * holds keeps being served, a session it would have to restore gets the same 503 (not 404:
 * the session may well exist), DELETE gets 503 and ends nothing, no wire error leaks
 * internals, and everything works again once Redis is back.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { del, initRequest, LATEST, openSession, post, rpc } from '../../test/helpers/http/server-harness.js';
import { type RedisServer, startRedis } from '../../test/helpers/redis/redis-server.js';
import { type SessionInstance, sessionInstance } from '../../test/helpers/redis/session-instance.js';
import { until } from '../../test/helpers/redis/task-peer.js';
import type { StreamableHttpHandler } from '../http/server/handler.js';

let server: RedisServer;
let a: SessionInstance;
let b: SessionInstance;
before(async () => {
  server = await startRedis();
  a = await sessionInstance(server.url, 'down:', { commandTimeoutMs: 300 });
  b = await sessionInstance(server.url, 'down:', { commandTimeoutMs: 300 });
});
after(async () => {
  await a.close();
  await b.close();
  await server.close();
});

function echo(handler: StreamableHttpHandler, sessionId: string, id: number): Promise<Response> {
  return post(handler, rpc(id, 'tools/call', { name: 'echo', arguments: { text: 'x' } }), { sessionId, protocolVersion: LATEST });
}

async function assertUnavailable(res: Response): Promise<void> {
  assert.equal(res.status, 503);
  assert.equal(res.headers.get('retry-after'), '10');
  const text = await res.text();
  assert.doesNotMatch(text, /127\.0\.0\.1|Redis|at .*\.js/, 'no internals on the wire');
  assert.equal(JSON.parse(text).error.code, -32000);
}

it('answers 503 with Retry-After for what needs Redis, keeps serving held sessions, and recovers', async () => {
  const held = await openSession(a.handler);
  await server.stop();
  await until('the connections to notice', () => !a.redis.ready && !b.redis.ready);

  await assertUnavailable(await post(a.handler, initRequest()));
  assert.equal(a.handler.sessionCount, 1, 'the refused session is not kept');
  assert.equal((await echo(a.handler, held, 1)).status, 200, 'a held session is served without Redis');
  await assertUnavailable(await echo(b.handler, held, 2));
  await assertUnavailable(await del(a.handler, held, { 'mcp-protocol-version': LATEST }));
  assert.equal((await echo(a.handler, held, 3)).status, 200, 'a DELETE that could not be recorded ends nothing');

  await server.restart();
  await a.redis.whenReady();
  await b.redis.whenReady();
  // persistence is off: the restart emptied Redis, so the held session is unknown to B now
  // (A keeps serving it until its own touch finds the record gone), and new sessions work
  const fresh = await openSession(a.handler);
  assert.equal((await echo(b.handler, fresh, 4)).status, 200);
  assert.ok(a.errors.length > 0, 'the failures were reported to onError');
});
