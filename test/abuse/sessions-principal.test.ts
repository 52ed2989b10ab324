/**
 * Fault and abuse suite: an HTTP session belongs to the principal that created it. With
 * authorization on (`authorize`) and no `sessionOwner` option, a second valid principal who
 * learns a session id must not be served inside it — not on POST, not on the GET stream, not
 * by DELETE, and not on a legacy session, whose id travels in the POST URL.
 *
 * Expected answers:
 * - 2025-11-25 › Basic › Security Best Practices › Session Hijacking › Mitigation: servers
 *   SHOULD bind session ids to user-specific information (derived from the token, not
 *   supplied by the client), and servers that implement authorization MUST verify every
 *   inbound request.
 * - 2025-11-25 › Basic › Transports › Session Management: a request carrying a session id the
 *   server does not serve is answered 404 Not Found. Another principal's session is answered
 *   exactly like an unknown one, so its existence is not revealed.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { requireBearerAuth } from '../../src/auth/server/bearer.js';
import { type AuthInfo, InvalidTokenError, type TokenVerifier } from '../../src/auth/server/types.js';
import type { StreamableHttpHandler, StreamableHttpOptions } from '../../src/http/server/handler.js';
import { ACCEPT_BOTH, BASE, initRequest, LATEST, makeHandler, note, rpc, SseReader, smallServer } from '../helpers/http/server-harness.js';

const RESOURCE = `${BASE}/mcp`;
const ISSUER = 'https://as.example';

/** Accepts the tokens `alice` and `mallory`: one subject each, same client and issuer. */
const verifier: TokenVerifier = {
  async verify(token: string): Promise<AuthInfo> {
    if (token !== 'alice' && token !== 'mallory') throw new InvalidTokenError('unknown token');
    return {
      issuer: ISSUER,
      subject: token,
      clientId: 'shared-client',
      scopes: [],
      audience: [RESOURCE],
      expiresAt: undefined,
      tokenId: undefined,
      claims: { sub: token },
    };
  },
};

/** A handler with bearer authorization and nothing else about sessions configured. */
function protectedHandler(options: Partial<StreamableHttpOptions> = {}): StreamableHttpHandler {
  const authorize = requireBearerAuth({ verifier, resourceMetadata: { resource: RESOURCE, authorization_servers: [ISSUER] } });
  return makeHandler({ server: smallServer(), authorize, legacySse: true, ...options });
}

function request(method: string, path: string, token: string, headers: Record<string, string> = {}, body?: unknown): Request {
  return new Request(BASE + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

function mcpPost(handler: StreamableHttpHandler, token: string, body: unknown, sessionId?: string): Promise<Response> {
  const headers: Record<string, string> = { accept: ACCEPT_BOTH, 'content-type': 'application/json', 'mcp-protocol-version': LATEST };
  if (sessionId !== undefined) headers['mcp-session-id'] = sessionId;
  return handler.fetch(request('POST', '/mcp', token, headers, body));
}

/** Alice's initialized session. */
async function aliceSession(handler: StreamableHttpHandler): Promise<string> {
  const init = await mcpPost(handler, 'alice', initRequest());
  assert.equal(init.status, 200);
  await init.body?.cancel();
  const sessionId = init.headers.get('mcp-session-id');
  assert.ok(sessionId);
  assert.equal((await mcpPost(handler, 'alice', note('notifications/initialized'), sessionId)).status, 202);
  return sessionId;
}

/** Status and body text of a reply, for comparing with the reply to an unknown session (a stream is not read). */
async function answer(res: Response): Promise<{ status: number; body: string }> {
  if (res.headers.get('content-type') === 'text/event-stream') {
    await res.body?.cancel();
    return { status: res.status, body: '(an SSE stream)' };
  }
  return { status: res.status, body: await res.text() };
}

const UNKNOWN = 'x'.repeat(43);

test('POST: another principal with a valid token gets the 404 of an unknown session; the owner is still served', async () => {
  const handler = protectedHandler();
  const sessionId = await aliceSession(handler);
  const stolen = await answer(await mcpPost(handler, 'mallory', rpc(1, 'tools/call', { name: 'echo', arguments: { text: 'hi' } }), sessionId));
  const unknown = await answer(await mcpPost(handler, 'mallory', rpc(1, 'tools/call', { name: 'echo', arguments: { text: 'hi' } }), UNKNOWN));
  assert.equal(stolen.status, 404);
  assert.deepEqual(stolen, unknown, 'indistinguishable from a session that does not exist');
  const own = await mcpPost(handler, 'alice', rpc(2, 'ping'), sessionId);
  assert.equal(own.status, 200);
  assert.deepEqual(await new SseReader(own).restMessages(), [{ jsonrpc: '2.0', id: 2, result: {} }]);
  await handler.close();
});

test('GET: another principal cannot take the session stream; the owner still can', async () => {
  const handler = protectedHandler();
  const sessionId = await aliceSession(handler);
  const sse = { accept: 'text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': LATEST };
  const stolen = await answer(await handler.fetch(request('GET', '/mcp', 'mallory', sse)));
  const unknown = await answer(await handler.fetch(request('GET', '/mcp', 'mallory', { ...sse, 'mcp-session-id': UNKNOWN })));
  assert.equal(stolen.status, 404);
  assert.deepEqual(stolen, unknown);
  const own = await handler.fetch(request('GET', '/mcp', 'alice', sse));
  assert.equal(own.status, 200, 'the stream was not taken (a second GET would get 409)');
  await own.body?.cancel();
  await handler.close();
});

test('DELETE: another principal cannot end the session', async () => {
  const handler = protectedHandler();
  const sessionId = await aliceSession(handler);
  const headers = { 'mcp-session-id': sessionId, 'mcp-protocol-version': LATEST };
  const stolen = await answer(await handler.fetch(request('DELETE', '/mcp', 'mallory', headers)));
  const unknown = await answer(await handler.fetch(request('DELETE', '/mcp', 'mallory', { ...headers, 'mcp-session-id': UNKNOWN })));
  assert.equal(stolen.status, 404);
  assert.deepEqual(stolen, unknown);
  assert.equal(handler.sessionCount, 1);
  const ping = await mcpPost(handler, 'alice', rpc(3, 'ping'), sessionId);
  assert.equal(ping.status, 200, 'the session survived');
  await ping.body?.cancel();
  assert.equal((await handler.fetch(request('DELETE', '/mcp', 'alice', headers))).status, 200);
  await handler.close();
});

test('legacy HTTP+SSE: another principal cannot POST into a session whose id is in the message URL', async () => {
  const handler = protectedHandler();
  const opened = await handler.fetch(request('GET', '/sse', 'alice', { accept: 'text/event-stream' }));
  assert.equal(opened.status, 200);
  const stream = new SseReader(opened);
  const endpoint = (await stream.next()).data;
  const legacyPost = (token: string, url: string, body: unknown) => handler.fetch(request('POST', url, token, { 'content-type': 'application/json' }, body));
  const stolen = await answer(await legacyPost('mallory', endpoint, initRequest('2024-11-05', 7)));
  const unknown = await answer(await legacyPost('mallory', `/messages?sessionId=${UNKNOWN}`, initRequest('2024-11-05', 7)));
  assert.equal(stolen.status, 404);
  assert.deepEqual(stolen, unknown);
  // nothing of mallory's reached the session: alice's own initialize is the first answer on the stream
  assert.equal((await legacyPost('alice', endpoint, initRequest('2024-11-05', 8))).status, 202);
  const first = JSON.parse((await stream.next()).data) as { id?: unknown };
  assert.equal(first.id, 8);
  await stream.cancel();
  await handler.close();
});
