/**
 * `Mcp-Session-Id` sessions shared by instances through a RedisSessionDirectory: two (or
 * three) Streamable HTTP handlers in this process, each with its own McpServer, Redis
 * connection and directory on one prefix. Shows (2025-03-26 › Transports › Streamable HTTP ›
 * Session Management): a session initialized on A is served on B with the revision, client
 * info and capabilities it negotiated; logging/setLevel and resources/subscribe on B reach
 * A's copy and a third instance restoring it later; DELETE on B makes A answer 404 (the spec:
 * "the server MUST respond to requests containing that session ID with HTTP 404"); the cap
 * counts across instances (503 with Retry-After past it); a tools/call on a session an
 * instance holds costs no Redis command at all.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { del, errorCode, get, initRequest, LATEST, note, openSession, post, rpc, SseReader } from '../../test/helpers/http/server-harness.js';
import { type RedisServer, startRedis } from '../../test/helpers/redis/redis-server.js';
import { commandsExecuted, type SessionInstance, sessionInstance } from '../../test/helpers/redis/session-instance.js';
import { until } from '../../test/helpers/redis/task-peer.js';
import type { StreamableHttpHandler } from '../http/server/handler.js';

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

/** Calls a tool on `handler` in session `sessionId`; resolves with the HTTP status and the JSON body. */
async function call(
  handler: StreamableHttpHandler,
  sessionId: string,
  id: number,
  method: string,
  params?: Record<string, unknown>,
): Promise<{ status: number; body: any }> {
  const res = await post(handler, rpc(id, method, params as never), { sessionId, protocolVersion: LATEST });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
}

async function state(handler: StreamableHttpHandler, sessionId: string, id: number): Promise<any> {
  const { status, body } = await call(handler, sessionId, id, 'tools/call', { name: 'state', arguments: {} });
  assert.equal(status, 200);
  return JSON.parse(body.result.content[0].text);
}

describe('sessions shared through Redis', () => {
  it('serves a session created on A from B, writes level and subscriptions through, and DELETE on B ends it on A', async () => {
    const a = await open('shared1:');
    const b = await open('shared1:');
    const sessionId = await openSession(a.handler);
    assert.equal(b.handler.sessionCount, 0);

    const echoed = await call(b.handler, sessionId, 1, 'tools/call', { name: 'echo', arguments: { text: 'on B' } });
    assert.equal(echoed.status, 200);
    assert.equal(echoed.body.result.content[0].text, 'on B');
    assert.equal(b.handler.sessionCount, 1);
    const seen = await state(b.handler, sessionId, 2);
    // initRequest: protocolVersion LATEST, capabilities { sampling: {} }, clientInfo http-test
    assert.deepEqual(seen, { revision: LATEST, client: 'http-test', capabilities: { sampling: {} }, level: null, subscriptions: [] });

    assert.equal((await call(b.handler, sessionId, 3, 'logging/setLevel', { level: 'error' })).status, 200);
    assert.equal((await call(b.handler, sessionId, 4, 'resources/subscribe', { uri: 'note://a' })).status, 200);
    await until('A to see the level and subscription set on B', async () => {
      const s = await state(a.handler, sessionId, 100 + Math.floor(Math.random() * 1e6));
      return s.level === 'error' && s.subscriptions.length === 1;
    });

    // a third instance restores the session with what was written through
    const c = await open('shared1:');
    assert.deepEqual(await state(c.handler, sessionId, 5), {
      revision: LATEST,
      client: 'http-test',
      capabilities: { sampling: {} },
      level: 'error',
      subscriptions: ['note://a'],
    });

    const gone = await del(b.handler, sessionId, { 'mcp-protocol-version': LATEST });
    assert.equal(gone.status, 200);
    await until('A and C to forget the deleted session', () => a.handler.sessionCount === 0 && c.handler.sessionCount === 0);
    const after = await call(a.handler, sessionId, 6, 'tools/call', { name: 'echo', arguments: {} });
    assert.equal(after.status, 404);
    assert.equal(after.body.error.code, -32001);
    assert.equal((await call(c.handler, sessionId, 7, 'tools/call', { name: 'echo', arguments: {} })).status, 404);
    assert.deepEqual([...a.errors, ...b.errors, ...c.errors], []);
  });

  it('keeps a bound session bound on every instance: another principal gets 404 from a restoring instance too', async () => {
    // 2025-11-25 › Security Best Practices › Session Hijacking: bind session ids to user-specific information
    const bound = { handler: { sessionOwner: (auth: unknown) => (auth as { user?: string } | undefined)?.user } };
    const a = await open('shared7:', bound);
    const b = await open('shared7:', bound);
    const send = (handler: StreamableHttpHandler, user: string, body: unknown, sessionId?: string) =>
      handler.fetch(
        new Request('http://localhost/mcp', {
          method: 'POST',
          headers: {
            accept: 'application/json, text/event-stream',
            'content-type': 'application/json',
            'mcp-protocol-version': LATEST,
            ...(sessionId === undefined ? {} : { 'mcp-session-id': sessionId }),
          },
          body: JSON.stringify(body),
        }),
        { authInfo: { user } },
      );
    const init = await send(a.handler, 'alice', initRequest());
    const sessionId = init.headers.get('mcp-session-id')!;
    assert.ok(sessionId);
    assert.equal((await send(b.handler, 'mallory', rpc(1, 'ping'), sessionId)).status, 404);
    assert.equal((await send(b.handler, 'alice', rpc(2, 'ping'), sessionId)).status, 200);
    assert.equal((await send(b.handler, 'mallory', rpc(3, 'ping'), sessionId)).status, 404, 'held on B now: still bound');
  });

  it('routes a sampling request made on B to the GET stream held on A, and the answer POSTed to C back to B', async () => {
    // json response mode: messages related to a request go to the session's GET stream
    // (2025-03-26 › Streamable HTTP › Listening for Messages from the Server)
    const a = await open('shared8:');
    const b = await open('shared8:');
    const c = await open('shared8:');
    const sessionId = await openSession(a.handler);
    const stream = new SseReader(await get(a.handler, sessionId, { 'mcp-protocol-version': LATEST }));
    const asked = call(b.handler, sessionId, 1, 'tools/call', { name: 'ask', arguments: {} });
    let request: any;
    while (request === undefined) {
      const event = await stream.next(5000);
      if (event.data !== '') request = JSON.parse(event.data);
    }
    assert.equal(request.method, 'sampling/createMessage');
    const answer = await post(
      c.handler,
      { jsonrpc: '2.0', id: request.id, result: { role: 'assistant', model: 'routed', content: { type: 'text', text: 'ok' } } },
      { sessionId, protocolVersion: LATEST },
    );
    assert.equal(answer.status, 202);
    const result = await asked;
    assert.equal(result.status, 200);
    assert.equal(result.body.result.content[0].text, 'model routed');
    await stream.cancel();
    assert.deepEqual([...a.errors, ...b.errors, ...c.errors], []);
  });

  it('answers 404 on every instance for an id no instance created', async () => {
    const a = await open('shared2:');
    const res = await post(a.handler, rpc(1, 'tools/call', { name: 'echo', arguments: {} }), { sessionId: 'no-such-session', protocolVersion: LATEST });
    assert.equal(res.status, 404);
    assert.equal(await errorCode(res), -32001);
    assert.equal(a.handler.sessionCount, 0);
  });

  it('costs no Redis command for a tools/call on a session the instance holds, one for a session it restores', async () => {
    const a = await open('shared3:');
    const b = await open('shared3:');
    const sessionId = await openSession(a.handler);
    assert.equal((await call(a.handler, sessionId, 1, 'tools/call', { name: 'echo', arguments: {} })).status, 200);

    const before = await commandsExecuted(a.redis);
    for (let i = 0; i < 20; i++)
      assert.equal((await call(a.handler, sessionId, 10 + i, 'tools/call', { name: 'echo', arguments: { text: String(i) } })).status, 200);
    assert.equal((await commandsExecuted(a.redis)) - before, 0, 'no round trip for a held session');

    const restoreBefore = await commandsExecuted(a.redis);
    assert.equal((await call(b.handler, sessionId, 50, 'tools/call', { name: 'echo', arguments: {} })).status, 200);
    // one script call (EVALSHA) and the commands it runs inside Redis: TIME, HMGET, PEXPIRE, ZADD
    const restoreCost = (await commandsExecuted(a.redis)) - restoreBefore;
    assert.ok(restoreCost >= 1 && restoreCost <= 6, `restore cost ${restoreCost} commands`);
    const heldBefore = await commandsExecuted(a.redis);
    for (let i = 0; i < 5; i++) assert.equal((await call(b.handler, sessionId, 60 + i, 'tools/call', { name: 'echo', arguments: {} })).status, 200);
    assert.equal((await commandsExecuted(a.redis)) - heldBefore, 0, 'held on B now: no round trip');
  });

  it('counts the session cap across instances: 503 with Retry-After past it', async () => {
    const a = await open('shared4:', { directory: { maxSessions: 2 } });
    const b = await open('shared4:', { directory: { maxSessions: 2 } });
    await openSession(a.handler);
    const second = await openSession(b.handler);
    const refused = await post(a.handler, initRequest());
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get('retry-after'), '10');
    assert.equal(refused.headers.get('mcp-session-id'), null);
    assert.equal(a.handler.sessionCount, 1, 'the refused session is not kept');
    // DELETE frees a place for everyone
    assert.equal((await del(a.handler, second, { 'mcp-protocol-version': LATEST })).status, 200);
    await openSession(a.handler);
  });

  it('drops an idle held session from memory at the local cap and restores it on its next request', async () => {
    const a = await open('shared5:', { handler: { maxSessions: 1 } });
    const first = await openSession(a.handler);
    const second = await openSession(a.handler);
    assert.equal(a.handler.sessionCount, 1);
    assert.equal((await call(a.handler, first, 1, 'tools/call', { name: 'echo', arguments: {} })).status, 200);
    assert.equal((await call(a.handler, second, 2, 'tools/call', { name: 'echo', arguments: {} })).status, 200);
    assert.equal(a.handler.sessionCount, 1);
  });

  it('expires an idle session on every instance', async () => {
    const a = await open('shared6:', { handler: { sessionIdleTimeoutMs: 200 } });
    const b = await open('shared6:', { handler: { sessionIdleTimeoutMs: 200 } });
    const sessionId = await openSession(a.handler);
    const key = a.redis.key('session', sessionId);
    await until('the record to expire in Redis', async () => (await a.redis.run((c) => c.exists(key))) === 0);
    await until('A to reap it', () => a.handler.sessionCount === 0);
    assert.equal((await call(b.handler, sessionId, 1, 'tools/call', { name: 'echo', arguments: {} })).status, 404);
    assert.equal((await post(a.handler, note('notifications/initialized'), { sessionId, protocolVersion: LATEST })).status, 404);
  });
});
