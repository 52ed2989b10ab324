/**
 * Fault and abuse suite: one principal cannot hold the whole session cap. Under
 * authorization a principal may hold at most `maxSessionsPerPrincipal` sessions (default
 * 100): at that limit its least recently active quiet session makes room for the new one,
 * and when every one of them is busy the new initialize gets 429 with `Retry-After`
 * (RFC 6585 § 4: the user has sent too many requests). Other principals keep finding room
 * below `maxSessions`, whose 503 is for the server as a whole.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { requireBearerAuth } from '../../src/auth/server/bearer.js';
import { type AuthInfo, InvalidTokenError, type TokenVerifier } from '../../src/auth/server/types.js';
import type { StreamableHttpHandler } from '../../src/http/server/handler.js';
import { ACCEPT_BOTH, BASE, initRequest, LATEST, makeHandler, rpc, smallServer } from '../helpers/http/server-harness.js';

const RESOURCE = `${BASE}/mcp`;
const ISSUER = 'https://as.example';
/** The default per-principal limit under test. */
const PER_PRINCIPAL = 100;
/** The global cap: above the per-principal default, so that only the new limit can refuse. */
const GLOBAL = 150;

const verifier: TokenVerifier = {
  async verify(token: string): Promise<AuthInfo> {
    if (!/^[a-z]+$/.test(token)) throw new InvalidTokenError('unknown token');
    return { issuer: ISSUER, subject: token, clientId: 'client', scopes: [], audience: [RESOURCE], expiresAt: undefined, tokenId: undefined, claims: {} };
  },
};

function protectedHandler(): StreamableHttpHandler {
  const authorize = requireBearerAuth({ verifier, resourceMetadata: { resource: RESOURCE, authorization_servers: [ISSUER] } });
  return makeHandler({ server: smallServer(), authorize, responseMode: 'json', maxSessions: GLOBAL });
}

function send(handler: StreamableHttpHandler, token: string, method: string, body?: unknown, sessionId?: string): Promise<Response> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'mcp-protocol-version': LATEST };
  if (method === 'GET') headers.accept = 'text/event-stream';
  else Object.assign(headers, { accept: ACCEPT_BOTH, 'content-type': 'application/json' });
  if (sessionId !== undefined) headers['mcp-session-id'] = sessionId;
  return handler.fetch(new Request(RESOURCE, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }));
}

async function initialize(handler: StreamableHttpHandler, token: string): Promise<Response> {
  const res = await send(handler, token, 'POST', initRequest());
  if (res.status === 200) await res.body?.cancel();
  return res;
}

test('a principal whose sessions are all busy is refused with 429 at its limit; others still get sessions', async () => {
  const handler = protectedHandler();
  const streams: Response[] = [];
  let refused: Response | undefined;
  for (let i = 0; i < GLOBAL && refused === undefined; i++) {
    const res = await initialize(handler, 'mallory');
    if (res.status !== 200) {
      refused = res;
      break;
    }
    // a GET stream per session keeps each one busy
    const stream = await send(handler, 'mallory', 'GET', undefined, res.headers.get('mcp-session-id')!);
    assert.equal(stream.status, 200);
    streams.push(stream);
  }
  assert.ok(refused !== undefined, `mallory took all ${streams.length} sessions`);
  assert.equal(refused.status, 429);
  assert.ok(Number(refused.headers.get('retry-after')) > 0);
  assert.equal(((await refused.json()) as { error: { code: number } }).error.code, -32000);
  assert.equal(streams.length, PER_PRINCIPAL);
  assert.equal((await initialize(handler, 'alice')).status, 200, 'room is left for everyone else');
  for (const stream of streams) await stream.body?.cancel();
  await handler.close();
});

test('a principal that leaks quiet sessions loses its own oldest one, never anyone else’s', async () => {
  const handler = protectedHandler();
  const alice = (await initialize(handler, 'alice')).headers.get('mcp-session-id')!;
  const mallory: string[] = [];
  for (let i = 0; i < PER_PRINCIPAL + 20; i++) {
    const res = await initialize(handler, 'mallory');
    assert.equal(res.status, 200, `session ${i}`);
    mallory.push(res.headers.get('mcp-session-id')!);
  }
  assert.equal(handler.sessionCount, PER_PRINCIPAL + 1);
  const ping = (token: string, sessionId: string) => send(handler, token, 'POST', rpc(1, 'ping'), sessionId);
  assert.equal((await ping('mallory', mallory[0]!)).status, 404, 'the oldest was closed to make room');
  assert.equal((await ping('mallory', mallory.at(-1)!)).status, 200);
  assert.equal((await ping('alice', alice)).status, 200, 'another principal’s session is untouched');
  await handler.close();
});
