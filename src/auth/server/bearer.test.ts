/**
 * The resource server against a real authorization server (oidc-provider in a child process):
 * the whole path from the first 401 to a tool call, expiry, audience, introspection and
 * revocation, scopes and step-up, sessions bound to principals, metadata endpoints.
 */

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { authorizationCodeFlow, type OidcServer, type RegisteredClient, startOidcServer, tokenRequest } from '../../../test/helpers/auth/oidc-server.js';
import {
  callTool,
  initialize,
  LATEST,
  mcpPost,
  notesServer,
  openSession,
  type ProtectedServer,
  type ProtectedServerOptions,
  parseChallenge,
  rpc,
  startProtectedServer,
} from '../../../test/helpers/auth/protected.js';
import { createStreamableHttpHandler } from '../../http/server/handler.js';
import type { JSONObject } from '../../jsonrpc/types.js';
import { createIntrospectionVerifier } from './introspection-verifier.js';
import { createJwtVerifier } from './jwt-verifier.js';
import { requireScopes } from './scopes.js';

let oidc: OidcServer;
/** A public client registered by DCR, used to get user tokens. */
let client: RegisteredClient;
/** A confidential client the resource server uses for introspection. */
let rsClient: RegisteredClient;
const REDIRECT = 'http://127.0.0.1:53682/callback';

before(async () => {
  oidc = await startOidcServer();
  client = await oidc.registerClient({
    redirect_uris: [REDIRECT],
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    client_name: 'test client',
  });
  rsClient = await oidc.registerClient({
    redirect_uris: [],
    response_types: [],
    grant_types: ['client_credentials'],
    token_endpoint_auth_method: 'client_secret_basic',
    client_name: 'notes resource server',
  });
});

after(async () => {
  await oidc.stop();
});

function jwtVerifier(resource: string) {
  return createJwtVerifier({
    issuer: oidc.issuer,
    audience: resource,
    jwksUri: oidc.metadata.jwks_uri,
    clockToleranceSeconds: 0,
    fetchGuard: { dangerouslyAllowHttpLoopbackForTesting: true },
  });
}

async function protectedServer(options: Partial<ProtectedServerOptions> & { ttl?: number; format?: 'jwt' | 'opaque' } = {}): Promise<ProtectedServer> {
  const { ttl, format, ...rest } = options;
  return startProtectedServer({
    verifier: jwtVerifier,
    authorizationServers: [oidc.issuer],
    scopesSupported: ['mcp:read', 'mcp:write'],
    onResource: (resource) =>
      oidc.addResource(resource, { ...(ttl !== undefined ? { accessTokenTtlSeconds: ttl } : {}), ...(format !== undefined ? { format } : {}) }),
    ...rest,
  });
}

function toolText(reply: { json: unknown }): string {
  const result = (reply.json as { result?: { content?: Array<{ text?: string }> } }).result;
  assert.ok(result !== undefined, `no result in ${JSON.stringify(reply.json)}`);
  return result.content?.[0]?.text ?? '';
}

test('the whole path: 401 → resource metadata → AS discovery → registration → PKCE + resource → token → tool call', async () => {
  const rs = await protectedServer({ requiredScopes: ['mcp:read'] });
  try {
    // 1. no token: 401 with a challenge naming the metadata and the scope
    const first = await mcpPost(rs.url, initialize());
    assert.equal(first.status, 401);
    const challenge = parseChallenge(first.headers.get('www-authenticate'));
    assert.equal(challenge.error, undefined, 'no error code when no credentials were sent (RFC 6750 § 3.1)');
    assert.equal(challenge.scope, 'mcp:read');
    assert.equal(challenge.resource_metadata, `${rs.origin}/.well-known/oauth-protected-resource/mcp`);
    // 2. the protected resource metadata
    const prmResponse = await fetch(challenge.resource_metadata!);
    assert.equal(prmResponse.status, 200);
    const prm = (await prmResponse.json()) as {
      resource: string;
      authorization_servers: string[];
      bearer_methods_supported: string[];
      scopes_supported: string[];
    };
    assert.equal(prm.resource, rs.url);
    assert.deepEqual(prm.authorization_servers, [oidc.issuer]);
    assert.deepEqual(prm.bearer_methods_supported, ['header']);
    // 3. authorization server metadata: RFC 8414 first, then OpenID discovery
    const issuer = prm.authorization_servers[0]!;
    let asMetadata: Record<string, unknown> | undefined;
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const r = await fetch(`${issuer}${path}`);
      if (r.ok) {
        asMetadata = (await r.json()) as Record<string, unknown>;
        break;
      }
      await r.body?.cancel();
    }
    assert.ok(asMetadata !== undefined);
    assert.equal(asMetadata.issuer, issuer);
    assert.ok((asMetadata.code_challenge_methods_supported as string[]).includes('S256'));
    // 4. dynamic client registration
    const registration = await fetch(asMetadata.registration_endpoint as string, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        client_name: 'path test',
      }),
    });
    assert.equal(registration.status, 201);
    const registered = (await registration.json()) as RegisteredClient;
    // 5. authorization code + PKCE + resource, scope from the challenge
    const tokens = await authorizationCodeFlow(oidc, { client: registered, resource: prm.resource, scope: challenge.scope! });
    assert.equal(tokens.token_type.toLowerCase(), 'bearer');
    // 6. the MCP session with the token on every request
    const sessionId = await openSession(rs.url, tokens.access_token);
    const whoami = await callTool(rs.url, tokens.access_token, sessionId, 'whoami');
    assert.equal(whoami.status, 200);
    const authInfo = JSON.parse(toolText(whoami)) as Record<string, unknown>;
    assert.equal(authInfo.subject, 'test-user');
    assert.equal(authInfo.clientId, registered.client_id);
    assert.equal(authInfo.issuer, oidc.issuer);
    assert.deepEqual(authInfo.audience, [rs.url]);
    assert.deepEqual(authInfo.scopes, ['mcp:read']);
    assert.ok(!toolText(whoami).includes(tokens.access_token), 'the raw token never reaches handlers (no passthrough)');
    // the token is needed on every request of the session, not only the first
    const tokenless = await mcpPost(rs.url, rpc(5, 'tools/list'), { sessionId });
    assert.equal(tokenless.status, 401);
  } finally {
    await rs.close();
  }
});

test('the protected resource metadata is served at the path-based and root well-known URLs, cross-origin, read-only', async () => {
  const rs = await protectedServer();
  try {
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const r = await fetch(`${rs.origin}${path}`, { headers: { origin: 'https://elsewhere.example' } });
      assert.equal(r.status, 200, path);
      assert.match(r.headers.get('content-type') ?? '', /application\/json/);
      assert.equal(r.headers.get('access-control-allow-origin'), '*');
      const body = (await r.json()) as { resource: string; scopes_supported: string[] };
      assert.equal(body.resource, rs.url);
      assert.deepEqual(body.scopes_supported, ['mcp:read', 'mcp:write']);
    }
    const head = await fetch(`${rs.origin}/.well-known/oauth-protected-resource/mcp`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    const post = await fetch(`${rs.origin}/.well-known/oauth-protected-resource/mcp`, { method: 'POST' });
    assert.equal(post.status, 405);
    await post.body?.cancel();
    const preflight = await fetch(`${rs.origin}/.well-known/oauth-protected-resource/mcp`, { method: 'OPTIONS' });
    assert.equal(preflight.status, 204);
    const other = await fetch(`${rs.origin}/.well-known/oauth-protected-resource/other`);
    assert.equal(other.status, 404);
    await other.body?.cancel();
    // a foreign Origin still cannot reach the MCP endpoint itself
    const mcp = await mcpPost(rs.url, initialize(), { headers: { origin: 'https://elsewhere.example' } });
    assert.equal(mcp.status, 403);
  } finally {
    await rs.close();
  }
});

test('the token only counts in the Authorization header: query tokens 400, other schemes 401, malformed 400', async () => {
  const rs = await protectedServer();
  try {
    const tokens = await authorizationCodeFlow(oidc, { client, resource: rs.url, scope: 'mcp:read' });
    const inQuery = await mcpPost(`${rs.url}?access_token=${tokens.access_token}`, initialize());
    assert.equal(inQuery.status, 400);
    assert.equal(parseChallenge(inQuery.headers.get('www-authenticate')).error, 'invalid_request');
    const both = await mcpPost(`${rs.url}?access_token=${tokens.access_token}`, initialize(), { token: tokens.access_token });
    assert.equal(both.status, 400, 'a token in the URI is refused even alongside a header');
    const basic = await mcpPost(rs.url, initialize(), { headers: { authorization: `Basic ${btoa('a:b')}` } });
    assert.equal(basic.status, 401);
    assert.equal(parseChallenge(basic.headers.get('www-authenticate')).error, undefined);
    const twoTokens = await mcpPost(rs.url, initialize(), { headers: { authorization: `Bearer ${tokens.access_token}, Bearer ${tokens.access_token}` } });
    assert.equal(twoTokens.status, 400);
    const garbage = await mcpPost(rs.url, initialize(), { token: 'not-a-jwt' });
    assert.equal(garbage.status, 401);
    assert.equal(parseChallenge(garbage.headers.get('www-authenticate')).error, 'invalid_token');
    const ok = await mcpPost(rs.url, initialize(), { headers: { authorization: `bearer ${tokens.access_token}` } });
    assert.equal(ok.status, 200, 'the scheme is case-insensitive');
    // GET, DELETE and the legacy endpoints are protected too
    for (const [method, path] of [
      ['GET', '/mcp'],
      ['DELETE', '/mcp'],
      ['GET', '/sse'],
      ['POST', '/messages?sessionId=x'],
    ] as const) {
      const r = await fetch(`${rs.origin}${path}`, { method, headers: { accept: 'text/event-stream' } });
      assert.equal(r.status, 401, `${method} ${path}`);
      await r.body?.cancel();
    }
  } finally {
    await rs.close();
  }
});

test('an expired token gets 401 invalid_token; a refreshed one continues the same session', async () => {
  const rs = await protectedServer({ ttl: 60 });
  try {
    // the session is opened with a long-lived token of the same principal; the 1 s token is then used on it
    const opener = await authorizationCodeFlow(oidc, { client, resource: rs.url, scope: 'mcp:read' });
    const sessionId = await openSession(rs.url, opener.access_token);
    await oidc.addResource(rs.url, { accessTokenTtlSeconds: 1 });
    const tokens = await authorizationCodeFlow(oidc, { client, resource: rs.url, scope: 'mcp:read' });
    const exp = (JSON.parse(Buffer.from(tokens.access_token.split('.')[1]!, 'base64url').toString()) as { exp: number }).exp;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, exp * 1000 - Date.now()) + 50));
    const expired = await callTool(rs.url, tokens.access_token, sessionId, 'read_notes');
    assert.equal(expired.status, 401);
    const challenge = parseChallenge(expired.headers.get('www-authenticate'));
    assert.equal(challenge.error, 'invalid_token');
    assert.match(challenge.error_description!, /expired/);
    // a 1 s token may be valid for a few ms only (exp has whole seconds): refresh into a longer one
    await oidc.addResource(rs.url, { accessTokenTtlSeconds: 60 });
    const refreshed = await tokenRequest(oidc, client, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, resource: rs.url });
    assert.notEqual(refreshed.refresh_token, tokens.refresh_token, 'refresh tokens rotate');
    const again = await callTool(rs.url, refreshed.access_token, sessionId, 'read_notes');
    assert.equal(again.status, 200, 'same principal, same session');
  } finally {
    await rs.close();
  }
});

test('a token issued for another resource (audience) is refused; so is one from another issuer', async () => {
  const rs = await protectedServer();
  const other = 'http://127.0.0.1:9/other-mcp';
  await oidc.addResource(other);
  try {
    const foreign = await authorizationCodeFlow(oidc, { client, resource: other, scope: 'mcp:read' });
    const r = await mcpPost(rs.url, initialize(), { token: foreign.access_token });
    assert.equal(r.status, 401);
    const challenge = parseChallenge(r.headers.get('www-authenticate'));
    assert.equal(challenge.error, 'invalid_token');
    assert.match(challenge.error_description!, /not issued for this resource/);
    // the same token verified as if the server trusted another issuer
    const strict = createJwtVerifier({
      issuer: 'https://another-issuer.example',
      audience: other,
      jwksUri: oidc.metadata.jwks_uri,
      fetchGuard: { dangerouslyAllowHttpLoopbackForTesting: true },
    });
    await assert.rejects(
      strict.verify(foreign.access_token),
      (e: Error & { code?: string }) => e.code === 'invalid_token' && /another authorization server/.test(e.message),
    );
  } finally {
    await rs.close();
  }
});

test('client credentials tokens for this resource are accepted', async () => {
  const rs = await protectedServer();
  try {
    const machine = await oidc.registerClient({
      redirect_uris: [],
      response_types: [],
      grant_types: ['client_credentials'],
      token_endpoint_auth_method: 'client_secret_basic',
    });
    const tokens = await tokenRequest(oidc, machine, { grant_type: 'client_credentials', resource: rs.url, scope: 'mcp:read' });
    const sessionId = await openSession(rs.url, tokens.access_token);
    const whoami = JSON.parse(toolText(await callTool(rs.url, tokens.access_token, sessionId, 'whoami'))) as { clientId: string };
    assert.equal(whoami.clientId, machine.client_id);
  } finally {
    await rs.close();
  }
});

test('introspection: an opaque token works until it is revoked; refresh tokens are never bearer credentials', async () => {
  // the verifier's clock is moved forward instead of waiting out its cache
  let skew = 0;
  const rs = await protectedServer({
    format: 'opaque',
    verifier: (resource) =>
      createIntrospectionVerifier({
        endpoint: oidc.metadata.introspection_endpoint,
        clientId: rsClient.client_id,
        clientSecret: rsClient.client_secret!,
        audience: resource,
        issuer: oidc.issuer,
        cacheTtlMs: 10_000,
        now: () => Date.now() + skew,
      }),
  });
  try {
    const tokens = await authorizationCodeFlow(oidc, { client, resource: rs.url, scope: 'mcp:read' });
    assert.ok(!tokens.access_token.includes('.'), 'an opaque token');
    const sessionId = await openSession(rs.url, tokens.access_token);
    const before = (await oidc.stats()).introspections;
    assert.equal((await callTool(rs.url, tokens.access_token, sessionId, 'read_notes', 2)).status, 200);
    assert.equal((await callTool(rs.url, tokens.access_token, sessionId, 'read_notes', 3)).status, 200);
    assert.equal((await oidc.stats()).introspections, before, 'answers are cached briefly');
    const revoke = await fetch(oidc.metadata.revocation_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.access_token, client_id: client.client_id }),
    });
    assert.equal(revoke.status, 200);
    assert.equal(
      (await callTool(rs.url, tokens.access_token, sessionId, 'read_notes', 5)).status,
      200,
      'a revoked token stays usable while its answer is cached',
    );
    skew += 10_001;
    const revoked = await callTool(rs.url, tokens.access_token, sessionId, 'read_notes', 4);
    assert.equal(revoked.status, 401);
    assert.equal(parseChallenge(revoked.headers.get('www-authenticate')).error, 'invalid_token');
    const fresh = await authorizationCodeFlow(oidc, { client, resource: rs.url, scope: 'mcp:read' });
    const withRefresh = await mcpPost(rs.url, initialize(), { token: fresh.refresh_token! });
    assert.equal(withRefresh.status, 401, 'a refresh token is not an access token');
  } finally {
    await rs.close();
  }
});

test('insufficient scope: 403 with the needed scope before delivery; per-tool scopes; step-up on the same session', async () => {
  const rs = await protectedServer({ requiredScopes: ['mcp:read'], scopes: { tools: { write_note: ['mcp:write'] } } });
  try {
    const readOnly = await authorizationCodeFlow(oidc, { client, resource: rs.url, scope: 'mcp:read' });
    const sessionId = await openSession(rs.url, readOnly.access_token);
    assert.equal((await callTool(rs.url, readOnly.access_token, sessionId, 'read_notes')).status, 200);
    const denied = await callTool(rs.url, readOnly.access_token, sessionId, 'write_note', 2);
    assert.equal(denied.status, 403);
    const challenge = parseChallenge(denied.headers.get('www-authenticate'));
    assert.equal(challenge.error, 'insufficient_scope');
    assert.equal(challenge.scope, 'mcp:read mcp:write', 'granted scopes plus the missing one');
    assert.equal(challenge.resource_metadata, `${rs.origin}/.well-known/oauth-protected-resource/mcp`);
    // a token without the scope every request needs is refused at once
    const writeOnly = await authorizationCodeFlow(oidc, { client, resource: rs.url, scope: 'mcp:write' });
    const init = await mcpPost(rs.url, initialize(), { token: writeOnly.access_token });
    assert.equal(init.status, 403);
    assert.equal(parseChallenge(init.headers.get('www-authenticate')).scope, 'mcp:write mcp:read');
    // step-up: a token with more scopes, same principal, same session
    const upgraded = await authorizationCodeFlow(oidc, { client, resource: rs.url, scope: challenge.scope! });
    const allowed = await callTool(rs.url, upgraded.access_token, sessionId, 'write_note', 3);
    assert.equal(allowed.status, 200);
    assert.equal(toolText(allowed), 'written');
  } finally {
    await rs.close();
  }
});

test('a batch with one message lacking scope is refused as a whole (2025-03-26 sessions)', async () => {
  const rs = await protectedServer({ scopes: { tools: { write_note: ['mcp:write'] } } });
  try {
    const tokens = await authorizationCodeFlow(oidc, { client, resource: rs.url, scope: 'mcp:read' });
    const init = await mcpPost(rs.url, rpc(0, 'initialize', { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'batch', version: '1' } }), {
      token: tokens.access_token,
      headers: { 'mcp-protocol-version': '2025-03-26' },
    });
    const sessionId = init.headers.get('mcp-session-id')!;
    const headers = { 'mcp-protocol-version': '2025-03-26' };
    await mcpPost(rs.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { token: tokens.access_token, sessionId, headers });
    const batch = [rpc(1, 'tools/call', { name: 'read_notes', arguments: {} }), rpc(2, 'tools/call', { name: 'write_note', arguments: {} })];
    const refused = await mcpPost(rs.url, batch, { token: tokens.access_token, sessionId, headers });
    assert.equal(refused.status, 403);
    const fine = await mcpPost(rs.url, [batch[0]!], { token: tokens.access_token, sessionId, headers });
    assert.equal(fine.status, 200);
    assert.ok(Array.isArray(fine.json));
  } finally {
    await rs.close();
  }
});

test('sessions are bound to the authenticated principal: another user gets the same 404 as an unknown session', async () => {
  const rs = await protectedServer();
  try {
    await oidc.setInteraction({ accountId: 'alice' });
    const alice = await authorizationCodeFlow(oidc, { client, resource: rs.url, scope: 'mcp:read' });
    await oidc.setInteraction({ accountId: 'bob' });
    const bob = await authorizationCodeFlow(oidc, { client, resource: rs.url, scope: 'mcp:read' });
    await oidc.setInteraction({});
    const sessionId = await openSession(rs.url, alice.access_token);
    const hijack = await callTool(rs.url, bob.access_token, sessionId, 'whoami');
    const unknown = await callTool(rs.url, bob.access_token, 'no-such-session', 'whoami');
    assert.equal(hijack.status, 404);
    assert.equal(unknown.status, 404);
    assert.deepEqual(hijack.json, unknown.json, 'indistinguishable from an unknown session');
    for (const method of ['GET', 'DELETE']) {
      const r = await fetch(rs.url, {
        method,
        headers: { authorization: `Bearer ${bob.access_token}`, 'mcp-session-id': sessionId, accept: 'text/event-stream', 'mcp-protocol-version': LATEST },
      });
      assert.equal(r.status, 404, method);
      await r.body?.cancel();
    }
    const mine = await callTool(rs.url, alice.access_token, sessionId, 'whoami');
    assert.equal(mine.status, 200, 'the owner keeps the session');
    assert.equal((JSON.parse(toolText(mine)) as { subject: string }).subject, 'alice');
  } finally {
    await oidc.setInteraction({});
    await rs.close();
  }
});

test('keys that cannot be fetched give 503 (reported), never a pass; the JWKS fetch goes through the fetch guard', async () => {
  const errors: Error[] = [];
  const unreachable = await protectedServer({
    verifier: (resource) =>
      createJwtVerifier({
        issuer: oidc.issuer,
        audience: resource,
        jwksUri: 'http://127.0.0.1:1/jwks',
        fetchGuard: { dangerouslyAllowHttpLoopbackForTesting: true, timeoutMs: 1000 },
      }),
    onError: (e) => errors.push(e),
  });
  const guarded = await protectedServer({
    verifier: (resource) => createJwtVerifier({ issuer: oidc.issuer, audience: resource, jwksUri: oidc.metadata.jwks_uri }),
  });
  try {
    const t1 = await authorizationCodeFlow(oidc, { client, resource: unreachable.url, scope: 'mcp:read' });
    const r1 = await mcpPost(unreachable.url, initialize(), { token: t1.access_token });
    assert.equal(r1.status, 503);
    assert.equal(r1.headers.get('retry-after'), '5');
    assert.equal(errors.length, 1);
    const t2 = await authorizationCodeFlow(oidc, { client, resource: guarded.url, scope: 'mcp:read' });
    const r2 = await mcpPost(guarded.url, initialize(), { token: t2.access_token });
    assert.equal(r2.status, 503, 'an http JWKS URL is refused by the guard without the test opt-out');
  } finally {
    await unreachable.close();
    await guarded.close();
  }
});

test('a server middleware backs the scope check up where no HTTP check ran', async () => {
  // the authorizer checks tokens but not per-tool scopes; the middleware refuses inside the server
  const withoutHttpCheck = await startProtectedServer({
    verifier: jwtVerifier,
    authorizationServers: [oidc.issuer],
    onResource: (resource) => oidc.addResource(resource),
  });
  const server = notesServer();
  server.use(requireScopes({ tools: { write_note: ['mcp:write'] } }));
  const handler = createStreamableHttpHandler({
    server,
    responseMode: 'json',
    authorize: withoutHttpCheck.auth,
    sessionOwner: withoutHttpCheck.auth.sessionOwner,
  });
  try {
    const tokens = await authorizationCodeFlow(oidc, { client, resource: withoutHttpCheck.url, scope: 'mcp:read' });
    const send = (body: JSONObject, sessionId?: string): Promise<Response> => {
      const headers: Record<string, string> = {
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
        authorization: `Bearer ${tokens.access_token}`,
        'mcp-protocol-version': LATEST,
      };
      if (sessionId !== undefined) headers['mcp-session-id'] = sessionId;
      return handler.fetch(new Request('http://localhost/mcp', { method: 'POST', headers, body: JSON.stringify(body) }));
    };
    const init = await send(initialize());
    const sessionId = init.headers.get('mcp-session-id')!;
    await send({ jsonrpc: '2.0', method: 'notifications/initialized' }, sessionId);
    const reply = await send(rpc(1, 'tools/call', { name: 'write_note', arguments: {} }), sessionId);
    assert.equal(reply.status, 200);
    const body = (await reply.json()) as { error: { code: number; data: { error: string; scope: string } } };
    assert.equal(body.error.code, -32003);
    assert.deepEqual(body.error.data, { error: 'insufficient_scope', scope: 'mcp:read mcp:write' });
    const read = await send(rpc(2, 'tools/call', { name: 'read_notes', arguments: {} }), sessionId);
    assert.equal(((await read.json()) as { result?: unknown }).result !== undefined, true);
  } finally {
    await handler.close();
    await withoutHttpCheck.close();
  }
});
