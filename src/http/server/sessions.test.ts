import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import {
  del,
  errorCode,
  eventually,
  get,
  initRequest,
  makeHandler,
  note,
  openSession,
  post,
  rpc,
  SseReader,
  smallServer,
} from '../../../test/helpers/http/server-harness.js';
import { McpServer } from '../../server/server.js';
import { InMemoryTransport } from '../../transport/memory.js';
import type { StreamableHttpHandler } from './handler.js';
import type { HttpAuthorizer } from './types.js';

test('the session cap answers 503 with Retry-After and a JSON-RPC body; room frees up after DELETE', async () => {
  const handler = makeHandler({ maxSessions: 2, legacySse: true });
  const a = await openSession(handler);
  await openSession(handler);
  const full = await post(handler, initRequest());
  assert.equal(full.status, 503);
  assert.equal(full.headers.get('retry-after'), '10');
  assert.equal(await errorCode(full), -32000);
  const legacy = await handler.fetch(new Request('http://localhost/sse', { headers: { accept: 'text/event-stream' } }));
  assert.equal(legacy.status, 503, 'legacy sessions count against the same cap');
  // existing sessions keep working
  const ping = await post(handler, rpc(1, 'ping'), { sessionId: a });
  assert.equal(ping.status, 200);
  await ping.body?.cancel();
  assert.equal((await del(handler, a)).status, 200);
  assert.equal((await post(handler, initRequest())).status, 200);
  await handler.close();
});

test('idle sessions are reaped by the shared sweep; sessions with an open stream are not', async () => {
  const server = smallServer();
  const handler = makeHandler({ server, sessionIdleTimeoutMs: 60 });
  const idle = await openSession(handler);
  const listening = await openSession(handler);
  const sse = new SseReader(await get(handler, listening));
  await sse.next();
  assert.equal(server.connections.size, 2);
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(handler.sessionCount, 1);
  assert.equal(server.connections.size, 1, 'the server connection of a reaped session is closed too');
  assert.equal((await post(handler, rpc(1, 'ping'), { sessionId: idle })).status, 404);
  const ping = await post(handler, rpc(2, 'ping'), { sessionId: listening });
  assert.equal(ping.status, 200);
  await ping.body?.cancel();
  await sse.cancel();
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(handler.sessionCount, 0, 'reaped once its stream closed and the timeout passed');
  await handler.close();
});

test('sessionOwner binds a session to its principal: another principal gets 404', async () => {
  const handler = makeHandler({ sessionOwner: (auth) => (auth as { user?: string } | undefined)?.user });
  const init = await handler.fetch(
    new Request('http://localhost/mcp', {
      method: 'POST',
      headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify(initRequest()),
    }),
    { authInfo: { user: 'alice' } },
  );
  const sessionId = init.headers.get('mcp-session-id')!;
  const as = (user: string | undefined) => (body: unknown) =>
    handler.fetch(
      new Request('http://localhost/mcp', {
        method: 'POST',
        headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-session-id': sessionId },
        body: JSON.stringify(body),
      }),
      user === undefined ? undefined : { authInfo: { user } },
    );
  assert.equal((await as('mallory')(rpc(1, 'ping'))).status, 404);
  assert.equal((await as(undefined)(rpc(1, 'ping'))).status, 404);
  assert.equal((await as('alice')(note('notifications/initialized'))).status, 202);
  await handler.close();
});

test('auth info and request headers reach handlers', async () => {
  const server = smallServer();
  let seen: { auth: unknown; header: string | null } | undefined;
  server.registerTool('whoami', { description: 'reports', inputSchema: { type: 'object', properties: {} } }, (_args, ctx) => {
    const headers = ctx.info?.request?.headers as Headers;
    seen = { auth: ctx.authInfo, header: headers.get('x-trace') };
    return { content: [] };
  });
  const handler = makeHandler({ server, responseMode: 'json' });
  const sessionId = await openSession(handler);
  const res = await handler.fetch(
    new Request('http://localhost/mcp', {
      method: 'POST',
      headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-session-id': sessionId, 'x-trace': 't-1' },
      body: JSON.stringify(rpc(1, 'tools/call', { name: 'whoami', arguments: {} })),
    }),
    { authInfo: { token: 'abc' } },
  );
  assert.equal(res.status, 200);
  assert.deepEqual(seen, { auth: { token: 'abc' }, header: 't-1' });
  await handler.close();
});

test('an idle HTTP session costs at most 8 KB of heap beyond the server connection itself', async () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const heap = () => {
    for (let i = 0; i < 4; i++) gc();
    return process.memoryUsage().heapUsed;
  };
  const N = 400;
  // the McpServer's own cost of a session: a connection over an in-memory pair
  const baseServer = new McpServer({ name: 'm', version: '1' });
  const pairs: InMemoryTransport[] = [];
  const before = heap();
  for (let i = 0; i < N; i++) {
    const [a, b] = InMemoryTransport.createPair();
    await baseServer.connect(a);
    pairs.push(a, b);
  }
  const perServerSession = (heap() - before) / N;

  const server = new McpServer({ name: 'm', version: '1' });
  const handler = makeHandler({ server });
  const sessions: string[] = [];
  const start = heap();
  for (let i = 0; i < N; i++) sessions.push(await openSession(handler));
  const perHttpSession = (heap() - start) / N;
  const overhead = perHttpSession - perServerSession;
  assert.equal(handler.sessionCount, N);
  assert.ok(
    overhead <= 8 * 1024,
    `HTTP session overhead ${Math.round(overhead)} B (total ${Math.round(perHttpSession)} B, server connection ${Math.round(perServerSession)} B)`,
  );
  await handler.close();
  await baseServer.close();
  assert.equal(sessions.length, N);
});

/** An authorizer taking `Bearer <user>` as that user; `key` decides whether it names principals. */
function userAuthorizer(key: boolean): HttpAuthorizer {
  return {
    async authenticate(req) {
      return { authInfo: { user: (req.headers('authorization') ?? '').slice(7) } };
    },
    ...(key ? { sessionOwner: (auth: unknown) => (auth as { user?: string }).user || undefined } : {}),
  };
}

function postAs(handler: StreamableHttpHandler, user: string, body: unknown, sessionId?: string): Promise<Response> {
  return post(handler, body, { headers: { authorization: `Bearer ${user}` }, ...(sessionId === undefined ? {} : { sessionId }) });
}

test('under authorize, sessions are bound to the authorizer’s principal key by default', async () => {
  const handler = makeHandler({ authorize: userAuthorizer(true), responseMode: 'json' });
  const init = await postAs(handler, 'ann', initRequest());
  const sessionId = init.headers.get('mcp-session-id')!;
  assert.equal((await postAs(handler, 'bob', rpc(1, 'ping'), sessionId)).status, 404);
  assert.equal((await postAs(handler, 'ann', rpc(2, 'ping'), sessionId)).status, 200);
  await handler.close();
});

test('dangerouslyShareSessionsAcrossPrincipals serves any principal; it contradicts sessionOwner', async () => {
  const handler = makeHandler({ authorize: userAuthorizer(true), responseMode: 'json', dangerouslyShareSessionsAcrossPrincipals: true });
  const sessionId = (await postAs(handler, 'ann', initRequest())).headers.get('mcp-session-id')!;
  assert.equal((await postAs(handler, 'bob', rpc(1, 'ping'), sessionId)).status, 200);
  await handler.close();
  assert.throws(() => makeHandler({ authorize: userAuthorizer(true), dangerouslyShareSessionsAcrossPrincipals: true, sessionOwner: () => 'x' }), TypeError);
});

test('under authorize, no session is created when no principal key can be derived (500, reason to onError)', async () => {
  const errors: Error[] = [];
  const handler = makeHandler({ authorize: userAuthorizer(false), legacySse: true, onError: (e) => errors.push(e) });
  const init = await postAs(handler, 'ann', initRequest());
  assert.equal(init.status, 500);
  assert.equal(await errorCode(init), -32603);
  const legacy = await handler.fetch(new Request('http://localhost/sse', { headers: { accept: 'text/event-stream', authorization: 'Bearer ann' } }));
  assert.equal(legacy.status, 500);
  assert.equal(handler.sessionCount, 0);
  assert.equal(errors.length, 2);
  assert.match(errors[0]!.message, /principal key/);
  await handler.close();
  // an explicit sessionOwner supplies the key
  const keyed = makeHandler({ authorize: userAuthorizer(false), sessionOwner: (auth) => (auth as { user: string }).user });
  assert.equal((await postAs(keyed, 'ann', initRequest())).status, 200);
  await keyed.close();
});

test('maxSessionsPerPrincipal: explicit limit, counted across both session kinds; invalid values refused', async () => {
  const handler = makeHandler({ authorize: userAuthorizer(true), maxSessionsPerPrincipal: 1, legacySse: true });
  const legacy = await handler.fetch(new Request('http://localhost/sse', { headers: { accept: 'text/event-stream', authorization: 'Bearer ann' } }));
  assert.equal(legacy.status, 200);
  const refused = await postAs(handler, 'ann', initRequest());
  assert.equal(refused.status, 429, 'a legacy session is always busy (its stream is open)');
  assert.equal(refused.headers.get('retry-after'), '10');
  assert.equal((await postAs(handler, 'bob', initRequest())).status, 200);
  await legacy.body?.cancel();
  await eventually(() => handler.sessionCount === 1, 20_000, 'the legacy session released');
  assert.equal((await postAs(handler, 'ann', initRequest())).status, 200, 'room again once it closed');
  await handler.close();
  assert.throws(() => makeHandler({ maxSessionsPerPrincipal: 0 }), RangeError);
});
