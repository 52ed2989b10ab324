/**
 * The authorization seam of the Streamable HTTP handler (`authorize` option) with a scripted
 * authorizer: where each hook runs relative to the handler's own checks, and on which
 * endpoints. The real bearer authorizer is covered in bearer.test.ts.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { initRequest, makeHandler, note, post, rpc, smallServer } from '../../../test/helpers/http/server-harness.js';
import type { HttpAuthorizer, HttpReply, HttpRequest } from '../../http/server/types.js';

/** An authorizer accepting `Bearer good-<user>`, refusing the `echo` tool, serving `/.well-known/x`. */
function scripted(log: string[]): HttpAuthorizer {
  const reply = (status: number): HttpReply => ({ status, headers: { 'content-type': 'text/plain' }, body: String(status) });
  return {
    route(req: HttpRequest) {
      log.push(`route ${req.url}`);
      return req.url.startsWith('/.well-known/x') ? reply(299) : undefined;
    },
    async authenticate(req: HttpRequest) {
      log.push(`authenticate ${req.method} ${req.url}`);
      const m = /^Bearer good-(\w+)$/.exec(req.headers('authorization') ?? '');
      return m === null ? { reply: reply(401) } : { authInfo: { user: m[1] } };
    },
    authorizeMessage(message: unknown, authInfo: unknown) {
      log.push(`message ${(authInfo as { user: string }).user}`);
      const m = message as { method?: string; params?: { name?: string } };
      return m.method === 'tools/call' && m.params?.name === 'echo' ? reply(403) : undefined;
    },
    sessionOwner(authInfo: unknown) {
      return (authInfo as { user?: string } | undefined)?.user;
    },
  };
}

test('authenticate runs after the Host and Origin checks and before everything else; its auth info wins', async () => {
  const log: string[] = [];
  const server = smallServer();
  let seen: unknown;
  server.registerTool('who', { description: 'who', inputSchema: { type: 'object', properties: {} } }, (_a, ctx) => {
    seen = ctx.authInfo;
    return { content: [] };
  });
  const handler = makeHandler({
    server,
    authorize: scripted(log),
    responseMode: 'json',
    legacySse: true,
    sessionOwner: (a) => (a as { user?: string } | undefined)?.user,
  });
  assert.equal((await post(handler, initRequest(), { headers: { host: 'evil.example' } })).status, 403, 'Host first');
  assert.equal((await post(handler, initRequest(), { headers: { origin: 'https://evil.example' } })).status, 403, 'Origin second');
  assert.deepEqual(log, []);
  assert.equal((await post(handler, initRequest(), { accept: 'text/plain' })).status, 401, 'before the Accept check (406)');
  assert.equal((await post(handler, 'not json')).status, 401, 'before the body is read');
  const init = await handler.fetch(
    new Request('http://localhost/mcp', {
      method: 'POST',
      headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', authorization: 'Bearer good-ann' },
      body: JSON.stringify(initRequest()),
    }),
    { authInfo: { user: 'adapter-said-so' } },
  );
  assert.equal(init.status, 200);
  const sessionId = init.headers.get('mcp-session-id')!;
  const auth = { headers: { authorization: 'Bearer good-ann' }, sessionId };
  assert.equal((await post(handler, note('notifications/initialized'), auth)).status, 202);
  assert.equal((await post(handler, rpc(1, 'tools/call', { name: 'who', arguments: {} }), auth)).status, 200);
  assert.deepEqual(seen, { user: 'ann' }, 'the authorizer’s auth info replaces the adapter’s');
  assert.equal((await post(handler, rpc(2, 'tools/call', { name: 'echo', arguments: {} }), auth)).status, 403);
  assert.equal((await post(handler, rpc(3, 'ping'), { headers: { authorization: 'Bearer good-bob' }, sessionId })).status, 404, 'another principal: not found');
  const preflight = await handler.fetch(new Request('http://localhost/mcp', { method: 'OPTIONS' }));
  assert.equal(preflight.status, 405, 'OPTIONS carries no credentials and is not authenticated');
  for (const [method, path] of [
    ['GET', '/mcp'],
    ['DELETE', '/mcp'],
    ['GET', '/sse'],
    ['POST', '/messages?sessionId=x'],
  ]) {
    const r = await handler.fetch(new Request(`http://localhost${path}`, { method, headers: { accept: 'text/event-stream' } }));
    assert.equal(r.status, 401, `${method} ${path}`);
  }
  await handler.close();
});

test('route serves other paths before the Origin check; the MCP endpoint never reaches route', async () => {
  const log: string[] = [];
  const handler = makeHandler({ authorize: scripted(log) });
  const served = await handler.fetch(new Request('http://localhost/.well-known/x', { headers: { origin: 'https://elsewhere.example' } }));
  assert.equal(served.status, 299);
  const other = await handler.fetch(new Request('http://localhost/nothing'));
  assert.equal(other.status, 404);
  await post(handler, initRequest(), { headers: { authorization: 'Bearer good-ann' } });
  assert.ok(!log.some((l) => l.startsWith('route /mcp')));
  assert.ok(log.includes('route /nothing'));
  await handler.close();
});

test('authorizeMessage sees every element of a batch and the messages of sessionless and legacy POSTs', async () => {
  const log: string[] = [];
  const sessionless = makeHandler({ authorize: scripted(log), sessionless: true, responseMode: 'json' });
  const headers = { authorization: 'Bearer good-cy' };
  assert.equal((await post(sessionless, rpc(1, 'tools/call', { name: 'echo', arguments: {} }), { headers, protocolVersion: '2025-06-18' })).status, 403);
  assert.equal((await post(sessionless, rpc(2, 'tools/list'), { headers, protocolVersion: '2025-06-18' })).status, 200);
  const batch = [rpc(3, 'tools/list'), rpc(4, 'tools/call', { name: 'echo', arguments: {} })];
  assert.equal((await post(sessionless, batch, { headers, protocolVersion: '2025-03-26' })).status, 403);
  await sessionless.close();
  const legacy = makeHandler({ authorize: scripted(log), legacySse: true });
  const sse = await legacy.fetch(new Request('http://localhost/sse', { headers: { accept: 'text/event-stream', ...headers } }));
  assert.equal(sse.status, 200);
  const reader = sse.body!.getReader();
  const first = new TextDecoder().decode((await reader.read()).value);
  const endpoint = /data: (\S+)/.exec(first)![1]!;
  const legacyPost = (body: unknown) =>
    legacy.fetch(
      new Request(`http://localhost${endpoint}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }),
    );
  assert.equal((await legacyPost(rpc(5, 'tools/call', { name: 'echo', arguments: {} }))).status, 403);
  assert.equal((await legacyPost(initRequest('2024-11-05', 6))).status, 202);
  await reader.cancel();
  await legacy.close();
});
