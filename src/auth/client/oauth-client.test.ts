/**
 * The OAuth client against the fake authorization server and fake MCP server of
 * test/helpers/auth/fake-oauth.ts: discovery, registration, the grants, refresh, step-up, and
 * every client-side authorization rule of ../shared/notes/security.md (PKCE S256 always,
 * `resource`, bearer only in the header, redirect URIs, credentials keyed by issuer, `iss`).
 */

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import {
  FakeAuthServer,
  type FakeAuthServerOptions,
  FakeResourceServer,
  type FakeResourceServerOptions,
  json,
  Router,
  rpcPost,
  type Seen,
} from '../../../test/helpers/auth/fake-oauth.js';
import { OAuthClientError } from './errors.js';
import { OAuthClient, type OAuthClientOptions } from './oauth-client.js';
import { InMemoryOAuthStore } from './store.js';

const REDIRECT = 'http://127.0.0.1:33418/callback';

function world(options: { as?: FakeAuthServerOptions; rs?: Partial<FakeResourceServerOptions> } = {}) {
  const as = new FakeAuthServer(options.as);
  const rs = new FakeResourceServer({ authorizationServers: [as.issuer], ...options.rs }, (t) => as.tokens.get(t));
  const router = new Router().add(as.origin, as.handle).add(rs.url.origin, rs.handle);
  return { as, rs, router };
}

type World = ReturnType<typeof world>;

function codeClient(w: World, extra: Partial<OAuthClientOptions> = {}): OAuthClient {
  return new OAuthClient({
    serverUrl: w.rs.url,
    grant: { type: 'authorization_code', redirectUri: REDIRECT, userAgent: w.as.userAgent },
    fetch: w.router.fetch,
    ...extra,
  });
}

async function rejectsWith(promise: Promise<unknown>, code: OAuthClientError['code']): Promise<OAuthClientError> {
  let caught: unknown;
  await promise.then(
    () => assert.fail(`expected ${code}`),
    (err: unknown) => (caught = err),
  );
  assert.ok(caught instanceof OAuthClientError, `expected an OAuthClientError, got ${String(caught)}`);
  assert.equal(caught.code, code, caught.message);
  return caught;
}

function mcpRequests(w: World): Seen[] {
  return w.router.to(w.rs.url.origin, w.rs.url.pathname);
}

test('first 401: resource metadata, AS metadata, dynamic registration, code + PKCE S256, token, request replayed with the bearer', async () => {
  const w = world({ rs: { challengeScope: 'mcp:read' } });
  const oauth = codeClient(w, { clientMetadata: { clientName: 'test app' } });
  const f = oauth.wrapFetch(w.router.fetch);
  const response = await f(w.rs.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'mcp-protocol-version': '2025-06-18' },
    body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
  });
  assert.equal(response.status, 200);
  assert.deepEqual(((await response.json()) as { result: unknown }).result, { method: 'tools/list', scope: 'mcp:read' });

  // discovery: the challenge's resource_metadata, then RFC 8414 metadata; MCP-Protocol-Version sent
  const prm = w.router.seen.find((s) => s.url.href === w.rs.metadataUrl)!;
  assert.equal(prm.headers.get('mcp-protocol-version'), '2025-06-18');
  assert.ok(w.router.seen.some((s) => s.url.href === w.as.metadataUrl));

  // dynamic registration: loopback redirect → native app, refresh_token declared, public client
  const reg = JSON.parse(w.router.to(w.as.origin, '/register')[0]!.body) as Record<string, unknown>;
  assert.deepEqual(reg.redirect_uris, [REDIRECT]);
  assert.equal(reg.application_type, 'native');
  assert.deepEqual(reg.grant_types, ['authorization_code', 'refresh_token']);
  assert.equal(reg.token_endpoint_auth_method, 'none');
  assert.equal(reg.client_name, 'test app');

  // the authorization request
  assert.equal(w.as.authorizations.length, 1);
  const auth = w.as.authorizations[0]!.searchParams;
  assert.equal(auth.get('response_type'), 'code');
  assert.equal(auth.get('code_challenge_method'), 'S256');
  assert.equal(auth.get('resource'), w.rs.resource);
  assert.equal(auth.get('redirect_uri'), REDIRECT);
  assert.equal(auth.get('scope'), 'mcp:read');
  assert.ok((auth.get('state') ?? '').length >= 32, 'an unguessable state');
  // the token request: the verifier matches the challenge; resource identical
  const tokenReq = w.as.tokenRequests[0]!.params;
  assert.equal(tokenReq.get('grant_type'), 'authorization_code');
  assert.equal(createHash('sha256').update(tokenReq.get('code_verifier')!).digest('base64url'), auth.get('code_challenge'));
  assert.equal(tokenReq.get('resource'), w.rs.resource);

  // the MCP requests: first without credentials, then with the bearer, only in the header
  const [first, second] = mcpRequests(w);
  assert.equal(first!.headers.get('authorization'), null);
  const token = (await oauth.tokens())!.accessToken;
  assert.equal(second!.headers.get('authorization'), `Bearer ${token}`);
  assert.equal(second!.body, first!.body, 'the same request replayed');
  assert.ok(!second!.url.href.includes(token));
});

test('the access token goes only to the MCP server’s origin and only in the Authorization header', async () => {
  const w = world();
  const other: Seen[] = [];
  w.router.add('https://other.example.com', (req) => {
    other.push(req);
    return json({});
  });
  const oauth = codeClient(w);
  const f = oauth.wrapFetch(w.router.fetch);
  assert.equal((await rpcPost(f, w.rs.url, 'tools/list')).status, 200);
  await f('https://other.example.com/collect', { method: 'POST', body: 'x' });
  assert.equal(other.length, 1);
  assert.equal(other[0]!.headers.get('authorization'), null);
  const token = (await oauth.tokens())!.accessToken;
  for (const seen of w.router.seen) {
    assert.ok(!seen.url.href.includes(token), `token in a URL: ${seen.url.href}`);
    if (seen.url.origin !== w.rs.url.origin) assert.ok(!(seen.headers.get('authorization') ?? '').includes(token), `token sent to ${seen.url.origin}`);
  }
});

test('the resource parameter is sent exactly as the resource metadata publishes it (no trailing slash added)', async () => {
  const w = world({ rs: { resource: 'https://mcp.example.com' } });
  const oauth = codeClient(w);
  assert.equal((await rpcPost(oauth.wrapFetch(w.router.fetch), w.rs.url, 'tools/list')).status, 200);
  assert.equal(w.as.authorizations[0]!.searchParams.get('resource'), 'https://mcp.example.com');
  assert.equal(w.as.tokenRequests[0]!.params.get('resource'), 'https://mcp.example.com');
});

test('resource metadata for another resource is refused before any registration or authorization', async () => {
  const w = world({ rs: { resource: 'https://evil.example.com/mcp' } });
  const oauth = codeClient(w);
  await rejectsWith(rpcPost(oauth.wrapFetch(w.router.fetch), w.rs.url, 'tools/list'), 'resource_mismatch');
  assert.equal(w.as.authorizations.length, 0);
  assert.equal(w.router.to(w.as.origin).length, 0, 'the authorization server was never contacted');
});

for (const methods of [undefined, ['plain']]) {
  test(`PKCE: the flow is refused when the server advertises ${methods === undefined ? 'no code_challenge_methods_supported' : 'only plain'}`, async () => {
    const w = world({ as: { metadata: { code_challenge_methods_supported: methods } } });
    const oauth = codeClient(w);
    await rejectsWith(rpcPost(oauth.wrapFetch(w.router.fetch), w.rs.url, 'tools/list'), 'pkce_unsupported');
    assert.equal(w.as.authorizations.length, 0);
  });
}

test('state: a redirect back with another state is discarded before any token request', async () => {
  const w = world();
  const oauth = codeClient(w, {
    grant: {
      type: 'authorization_code',
      redirectUri: REDIRECT,
      userAgent: async (request) => {
        const back = w.as.authorize(request.url);
        back.searchParams.set('state', 'forged-state');
        return back;
      },
    },
  });
  await rejectsWith(rpcPost(oauth.wrapFetch(w.router.fetch), w.rs.url, 'tools/list'), 'authorization_failed');
  assert.equal(w.as.tokenRequests.length, 0);
});

for (const [iss, advertised, ok] of [
  ['correct', true, true],
  ['omit', false, true],
  ['omit', true, false],
  ['wrong', true, false],
  ['wrong', false, false],
  ['trailing-slash', true, false],
] as const) {
  test(`iss (RFC 9207): ${iss} iss, ${advertised ? '' : 'not '}advertised → ${ok ? 'accepted' : 'refused'}`, async () => {
    const w = world({ as: { issInRedirect: iss, metadata: { authorization_response_iss_parameter_supported: advertised ? true : undefined } } });
    const oauth = codeClient(w);
    const request = rpcPost(oauth.wrapFetch(w.router.fetch), w.rs.url, 'tools/list');
    if (ok) assert.equal((await request).status, 200);
    else {
      await rejectsWith(request, 'authorization_failed');
      assert.equal(w.as.tokenRequests.length, 0, 'the code never reaches the token endpoint');
    }
  });
}

test('scope selection: the challenge’s scope, else scopes_supported, else none; offline_access only when offered', async () => {
  const cases: Array<{ rs: Partial<FakeResourceServerOptions>; as?: FakeAuthServerOptions; offline?: boolean; expected: string | null }> = [
    { rs: { challengeScope: 'files:read', scopesSupported: ['a', 'b'] }, expected: 'files:read' },
    { rs: { scopesSupported: ['mcp:basic', 'mcp:read'] }, expected: 'mcp:basic mcp:read' },
    { rs: {}, expected: null },
    { rs: { scopesSupported: ['mcp:basic'] }, as: { metadata: { scopes_supported: ['mcp:basic', 'offline_access'] } }, expected: 'mcp:basic offline_access' },
    { rs: { scopesSupported: ['mcp:basic'] }, as: { metadata: { scopes_supported: ['mcp:basic', 'offline_access'] } }, offline: false, expected: 'mcp:basic' },
    { rs: { scopesSupported: ['mcp:basic'] }, as: { metadata: { scopes_supported: ['mcp:basic'] } }, expected: 'mcp:basic' },
  ];
  for (const c of cases) {
    const w = world({ rs: c.rs, as: c.as });
    const oauth = codeClient(w, c.offline === undefined ? {} : { offlineAccess: c.offline });
    assert.equal((await rpcPost(oauth.wrapFetch(w.router.fetch), w.rs.url, 'tools/list')).status, 200);
    assert.equal(w.as.authorizations[0]!.searchParams.get('scope'), c.expected, JSON.stringify(c));
    if (c.offline === false) assert.deepEqual(JSON.parse(w.router.to(w.as.origin, '/register')[0]!.body).grant_types, ['authorization_code']);
  }
});

test('step-up: 403 insufficient_scope re-authorizes with the union of scopes and replays the request', async () => {
  const w = world({ rs: { challengeScope: 'mcp:read', methodScopes: { 'tools/call': ['mcp:write'] } } });
  const oauth = codeClient(w);
  const f = oauth.wrapFetch(w.router.fetch);
  assert.equal((await rpcPost(f, w.rs.url, 'tools/list')).status, 200);
  const call = await rpcPost(f, w.rs.url, 'tools/call', 2);
  assert.equal(call.status, 200);
  assert.deepEqual(
    w.as.authorizations.map((u) => u.searchParams.get('scope')),
    ['mcp:read', 'mcp:read mcp:write'],
  );
  assert.equal((await oauth.tokens())!.scope, 'mcp:read mcp:write');
});

test('step-up is bounded: when the scope is never granted the 403 is returned after maxStepUps attempts', async () => {
  const w = world({ rs: { challengeScope: 'mcp:read', methodScopes: { 'tools/call': ['mcp:write'] } } });
  w.as.grantOnly = ['mcp:read'];
  const oauth = codeClient(w, { maxStepUps: 2 });
  const f = oauth.wrapFetch(w.router.fetch);
  assert.equal((await rpcPost(f, w.rs.url, 'tools/list')).status, 200);
  assert.equal((await rpcPost(f, w.rs.url, 'tools/call', 2)).status, 403);
  assert.equal(w.as.authorizations.length, 3, 'the initial authorization and two step-ups');
});

test('no step-up when the token already holds every challenged scope (re-asking cannot help)', async () => {
  const w = world({ rs: { challengeScope: 'mcp:admin' } });
  w.rs.app = () => json({ error: 'insufficient_scope' }, 403, { 'www-authenticate': 'Bearer error="insufficient_scope", scope="mcp:admin"' });
  const oauth = codeClient(w);
  assert.equal((await rpcPost(oauth.wrapFetch(w.router.fetch), w.rs.url, 'tools/list')).status, 403);
  assert.equal(w.as.authorizations.length, 1);
});

test('refresh: a rejected (expired) token is refreshed, the refresh token rotated, the request replayed once', async () => {
  const w = world();
  const oauth = codeClient(w);
  const f = oauth.wrapFetch(w.router.fetch);
  assert.equal((await rpcPost(f, w.rs.url, 'tools/list')).status, 200);
  const before = (await oauth.tokens())!;
  w.as.tokens.get(before.accessToken)!.expiresAt = 0; // the server considers it expired
  assert.equal((await rpcPost(f, w.rs.url, 'tools/list', 2)).status, 200);
  const after = (await oauth.tokens())!;
  assert.notEqual(after.accessToken, before.accessToken);
  assert.notEqual(after.refreshToken, before.refreshToken, 'rotated');
  assert.equal(w.as.refreshTokens.get(before.refreshToken!)!.alive, false);
  const refresh = w.as.tokenRequests.at(-1)!.params;
  assert.equal(refresh.get('grant_type'), 'refresh_token');
  assert.equal(refresh.get('resource'), w.rs.resource);
  assert.equal(w.as.authorizations.length, 1, 'no new authorization');
});

test('refresh before sending when the token is known to be expired', async () => {
  const w = world();
  const store = new InMemoryOAuthStore();
  const oauth = codeClient(w, { store });
  const f = oauth.wrapFetch(w.router.fetch);
  assert.equal((await rpcPost(f, w.rs.url, 'tools/list')).status, 200);
  const key = w.rs.url.href;
  store.saveTokens(key, { ...store.getTokens(key)!, expiresAt: Date.now() - 1000 });
  const before = mcpRequests(w).length;
  assert.equal((await rpcPost(f, w.rs.url, 'tools/list', 2)).status, 200);
  assert.equal(mcpRequests(w).length, before + 1, 'no 401 round trip');
  assert.equal(w.as.tokenRequests.at(-1)!.params.get('grant_type'), 'refresh_token');
});

test('a refused refresh token leads to a new authorization; a second 401 is returned, not retried again', async () => {
  const w = world();
  const oauth = codeClient(w);
  const f = oauth.wrapFetch(w.router.fetch);
  assert.equal((await rpcPost(f, w.rs.url, 'tools/list')).status, 200);
  const t = (await oauth.tokens())!;
  w.as.tokens.get(t.accessToken)!.expiresAt = 0;
  w.as.refreshTokens.get(t.refreshToken!)!.alive = false;
  assert.equal((await rpcPost(f, w.rs.url, 'tools/list', 2)).status, 200);
  assert.equal(w.as.authorizations.length, 2);

  w.rs.rejectAll = true;
  const before = mcpRequests(w).length;
  assert.equal((await rpcPost(f, w.rs.url, 'tools/list', 3)).status, 401);
  assert.equal(mcpRequests(w).length, before + 2, 'sent, then replayed once after the refresh');
});

test('credentials are kept per issuer: a new authorization server gets its own registration, never the old client id', async () => {
  const as1 = new FakeAuthServer({ issuer: 'https://as1.example.com' });
  const as2 = new FakeAuthServer({ issuer: 'https://as2.example.com' });
  let current = as1;
  const rs = new FakeResourceServer({ authorizationServers: [as1.issuer] }, (t) => current.tokens.get(t));
  const router = new Router()
    .add(as1.origin, as1.handle)
    .add(as2.origin, as2.handle)
    .add(rs.url.origin, (req) => {
      if (req.url.href === rs.metadataUrl) return json({ resource: rs.resource, authorization_servers: [current.issuer] });
      return rs.handle(req);
    });
  const store = new InMemoryOAuthStore();
  const oauth = new OAuthClient({
    serverUrl: rs.url,
    grant: { type: 'authorization_code', redirectUri: REDIRECT, userAgent: (r) => current.userAgent(r) },
    fetch: router.fetch,
    store,
  });
  const f = oauth.wrapFetch(router.fetch);
  assert.equal((await rpcPost(f, rs.url, 'tools/list')).status, 200);
  const first = store.getClient(as1.issuer)!;
  current = as2; // the server moved to another authorization server
  assert.equal((await rpcPost(f, rs.url, 'tools/list', 2)).status, 200);
  const second = store.getClient(as2.issuer)!;
  assert.notEqual(second.clientId, first.clientId);
  assert.equal(router.to(as2.origin, '/register').length, 1);
  for (const seen of router.to(as2.origin))
    assert.ok(!seen.body.includes(first.clientId) && !(seen.headers.get('authorization') ?? '').includes(first.clientId));
  assert.ok(as2.authorizations.every((u) => u.searchParams.get('client_id') !== first.clientId));
  assert.equal(as2.tokenRequests.filter((r) => r.params.get('grant_type') === 'refresh_token').length, 0, 'the old refresh token never goes to the new server');
  assert.equal((await oauth.tokens())!.issuer, as2.issuer);
});

test('pre-registered credentials: client_secret_basic with form-encoded id and secret; never used with another issuer', async () => {
  const w = world({ as: { metadata: { token_endpoint_auth_methods_supported: ['client_secret_basic'], registration_endpoint: undefined } } });
  w.as.addClient({ clientId: 'pre-registered.client_1', secret: 's3cr:t+/ é', method: 'client_secret_basic', redirectUris: [REDIRECT] });
  const oauth = codeClient(w, { preRegistered: { issuer: w.as.issuer, clientId: 'pre-registered.client_1', clientSecret: 's3cr:t+/ é' } });
  assert.equal((await rpcPost(oauth.wrapFetch(w.router.fetch), w.rs.url, 'tools/list')).status, 200);
  const header = w.as.tokenRequests[0]!.authorization!;
  assert.equal(Buffer.from(header.slice(6), 'base64').toString('utf8'), 'pre-registered.client_1:s3cr%3At%2B%2F+%C3%A9');

  const other = world({ as: { metadata: { registration_endpoint: undefined } } });
  const mismatched = codeClient(other, { preRegistered: { issuer: 'https://elsewhere.example.com', clientId: 'x', clientSecret: 'y' } });
  await rejectsWith(rpcPost(mismatched.wrapFetch(other.router.fetch), other.rs.url, 'tools/list'), 'registration_failed');
  assert.equal(other.as.authorizations.length, 0);
});

test('pre-registered credentials: client_secret_post when that is all the server supports', async () => {
  const w = world({ as: { metadata: { token_endpoint_auth_methods_supported: ['client_secret_post'] } } });
  w.as.addClient({ clientId: 'poster', secret: 'pw', method: 'client_secret_post', redirectUris: [REDIRECT] });
  const oauth = codeClient(w, { preRegistered: () => ({ clientId: 'poster', clientSecret: 'pw' }) });
  assert.equal((await rpcPost(oauth.wrapFetch(w.router.fetch), w.rs.url, 'tools/list')).status, 200);
  const req = w.as.tokenRequests[0]!;
  assert.equal(req.authorization, null);
  assert.equal(req.params.get('client_secret'), 'pw');
  assert.equal(w.router.to(w.as.origin, '/register').length, 0);
});

test('client ID metadata document: the URL is the client id when the server supports it (no registration)', async () => {
  const cimd = 'https://app.example.com/oauth/client.json';
  const w = world({ as: { metadata: { client_id_metadata_document_supported: true } } });
  const oauth = codeClient(w, { clientIdMetadataDocumentUrl: cimd });
  assert.equal((await rpcPost(oauth.wrapFetch(w.router.fetch), w.rs.url, 'tools/list')).status, 200);
  assert.equal(w.as.authorizations[0]!.searchParams.get('client_id'), cimd);
  assert.equal(w.router.to(w.as.origin, '/register').length, 0);

  const w2 = world();
  const oauth2 = codeClient(w2, { clientIdMetadataDocumentUrl: cimd });
  assert.equal((await rpcPost(oauth2.wrapFetch(w2.router.fetch), w2.rs.url, 'tools/list')).status, 200);
  assert.equal(w2.router.to(w2.as.origin, '/register').length, 1, 'dynamic registration where CIMD is not advertised');
  assert.throws(() => codeClient(w2, { clientIdMetadataDocumentUrl: 'https://app.example.com' }), OAuthClientError);
  assert.throws(() => codeClient(w2, { clientIdMetadataDocumentUrl: 'http://app.example.com/c.json' }), OAuthClientError);
});

test('client credentials with private_key_jwt (ES256): the assertion names the client and the issuer', async () => {
  const { generateKeyPair, exportPKCS8, jwtVerify } = await import('jose');
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const w = world({ rs: { challengeScope: 'mcp:read' } });
  w.as.addClient({ clientId: 'svc', method: 'private_key_jwt' });
  const oauth = new OAuthClient({
    serverUrl: w.rs.url,
    grant: { type: 'client_credentials' },
    preRegistered: { issuer: w.as.issuer, clientId: 'svc', privateKey: { pem: await exportPKCS8(privateKey), alg: 'ES256' } },
    fetch: w.router.fetch,
  });
  assert.equal((await rpcPost(oauth.wrapFetch(w.router.fetch), w.rs.url, 'tools/list')).status, 200);
  const params = w.as.tokenRequests[0]!.params;
  assert.equal(params.get('grant_type'), 'client_credentials');
  assert.equal(params.get('scope'), 'mcp:read');
  assert.equal(params.get('resource'), w.rs.resource);
  assert.equal(params.get('client_assertion_type'), 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
  const { payload } = await jwtVerify(params.get('client_assertion')!, publicKey, { audience: w.as.issuer });
  assert.equal(payload.iss, 'svc');
  assert.equal(payload.sub, 'svc');
  assert.equal(w.as.authorizations.length, 0);
});

test('client credentials with client_secret_basic; the grant needs pre-registered credentials', async () => {
  const w = world();
  w.as.addClient({ clientId: 'svc-basic', secret: 'sekret', method: 'client_secret_basic' });
  const oauth = new OAuthClient({
    serverUrl: w.rs.url,
    grant: { type: 'client_credentials' },
    preRegistered: () => ({ clientId: 'svc-basic', clientSecret: 'sekret' }),
    fetch: w.router.fetch,
  });
  assert.equal((await rpcPost(oauth.wrapFetch(w.router.fetch), w.rs.url, 'tools/list')).status, 200);
  assert.ok(w.as.tokenRequests[0]!.authorization!.startsWith('Basic '));

  const w2 = world();
  const none = new OAuthClient({ serverUrl: w2.rs.url, grant: { type: 'client_credentials' }, fetch: w2.router.fetch });
  await rejectsWith(rpcPost(none.wrapFetch(w2.router.fetch), w2.rs.url, 'tools/list'), 'registration_failed');
});

test('JWT bearer grant (workload identity): the assertion is presented; a refusal is surfaced, not retried', async () => {
  const w = world();
  w.as.addClient({ clientId: 'workload', method: 'none' });
  const seen: string[] = [];
  const oauth = new OAuthClient({
    serverUrl: w.rs.url,
    grant: {
      type: 'jwt_bearer',
      assertion: (ctx) => {
        seen.push(`${ctx.issuer} ${ctx.resource}`);
        return 'workload.jwt.value';
      },
    },
    preRegistered: () => ({ clientId: 'workload' }),
    fetch: w.router.fetch,
  });
  const f = oauth.wrapFetch(w.router.fetch);
  assert.equal((await rpcPost(f, w.rs.url, 'tools/list')).status, 200);
  const params = w.as.tokenRequests[0]!.params;
  assert.equal(params.get('grant_type'), 'urn:ietf:params:oauth:grant-type:jwt-bearer');
  assert.equal(params.get('assertion'), 'workload.jwt.value');
  assert.deepEqual(seen, [`${w.as.issuer} ${w.rs.resource}`]);

  await oauth.signOut();
  w.as.failTokenWith = 'invalid_grant';
  const before = w.as.tokenRequests.length;
  const err = await rejectsWith(rpcPost(f, w.rs.url, 'tools/list', 2), 'token_request_failed');
  assert.equal(err.oauthError, 'invalid_grant');
  assert.equal(w.as.tokenRequests.length, before + 1, 'one attempt');
});

test('enterprise-managed authorization: token exchange for an ID-JAG at the IdP, then the JWT bearer grant', async () => {
  const w = world();
  w.as.addClient({ clientId: 'xaa-client', secret: 'xaa-secret', method: 'client_secret_basic' });
  const exchanges: URLSearchParams[] = [];
  w.router.add('https://idp.example.com', (req) => {
    const params = new URLSearchParams(req.body);
    exchanges.push(params);
    return json({ access_token: 'the.id.jag', issued_token_type: 'urn:ietf:params:oauth:token-type:id-jag', token_type: 'N_A' });
  });
  const oauth = new OAuthClient({
    serverUrl: w.rs.url,
    grant: {
      type: 'enterprise_managed',
      identityProvider: { tokenEndpoint: 'https://idp.example.com/token', clientId: 'idp-client' },
      subjectToken: () => 'the.id.token',
    },
    preRegistered: () => ({ clientId: 'xaa-client', clientSecret: 'xaa-secret' }),
    fetch: w.router.fetch,
  });
  assert.equal((await rpcPost(oauth.wrapFetch(w.router.fetch), w.rs.url, 'tools/list')).status, 200);
  const ex = exchanges[0]!;
  assert.equal(ex.get('grant_type'), 'urn:ietf:params:oauth:grant-type:token-exchange');
  assert.equal(ex.get('requested_token_type'), 'urn:ietf:params:oauth:token-type:id-jag');
  assert.equal(ex.get('subject_token'), 'the.id.token');
  assert.equal(ex.get('subject_token_type'), 'urn:ietf:params:oauth:token-type:id_token');
  assert.equal(ex.get('audience'), w.as.issuer);
  assert.equal(ex.get('resource'), w.rs.resource);
  assert.equal(ex.get('client_id'), 'idp-client');
  const grant = w.as.tokenRequests[0]!;
  assert.equal(grant.params.get('grant_type'), 'urn:ietf:params:oauth:grant-type:jwt-bearer');
  assert.equal(grant.params.get('assertion'), 'the.id.jag');
  assert.ok(grant.authorization!.startsWith('Basic '));
});

test('without a user agent: authorization_required carries the URL; finishAuthorization completes it once', async () => {
  const w = world();
  const oauth = codeClient(w, { grant: { type: 'authorization_code', redirectUri: REDIRECT } });
  const f = oauth.wrapFetch(w.router.fetch);
  const err = await rejectsWith(rpcPost(f, w.rs.url, 'tools/list'), 'authorization_required');
  const url = err.authorizationUrl!;
  assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
  const back = w.as.authorize(url);
  await rejectsWith(oauth.finishAuthorization('state=unknown&code=x'), 'authorization_failed');
  const tokens = await oauth.finishAuthorization(back);
  assert.equal(tokens.resource, w.rs.resource);
  assert.equal((await rpcPost(f, w.rs.url, 'tools/list', 2)).status, 200);
  await rejectsWith(oauth.finishAuthorization(back), 'authorization_failed');
});

test('the user declining is an authorization_failed with access_denied', async () => {
  const w = world();
  w.as.decision = 'deny';
  const err = await rejectsWith(rpcPost(codeClient(w).wrapFetch(w.router.fetch), w.rs.url, 'tools/list'), 'authorization_failed');
  assert.equal(err.oauthError, 'access_denied');
});

test('concurrent 401s share one authorization', async () => {
  const w = world();
  let agents = 0;
  const oauth = codeClient(w, {
    grant: {
      type: 'authorization_code',
      redirectUri: REDIRECT,
      userAgent: async (r) => {
        agents++;
        await new Promise((resolve) => setTimeout(resolve, 20));
        return w.as.authorize(r.url);
      },
    },
  });
  const f = oauth.wrapFetch(w.router.fetch);
  const results = await Promise.all([1, 2, 3, 4].map((id) => rpcPost(f, w.rs.url, 'tools/list', id)));
  assert.deepEqual(
    results.map((r) => r.status),
    [200, 200, 200, 200],
  );
  assert.equal(agents, 1);
  assert.equal(w.as.tokenRequests.length, 1);
});

test('the authorization URL is only handed out when it is http(s): javascript: and data: endpoints are refused', async () => {
  for (const endpoint of ['javascript:alert(1)//', 'data:text/html,hi', 'file:///etc/passwd']) {
    const w = world({ as: { metadata: { authorization_endpoint: endpoint } } });
    let called = false;
    const oauth = codeClient(w, {
      grant: {
        type: 'authorization_code',
        redirectUri: REDIRECT,
        userAgent: async () => {
          called = true;
          return new URL(REDIRECT);
        },
      },
    });
    await rejectsWith(rpcPost(oauth.wrapFetch(w.router.fetch), w.rs.url, 'tools/list'), 'insecure_url');
    assert.equal(called, false, endpoint);
  }
});

test('plain http is refused without the loudly named opt-in', async () => {
  const w = world({ as: { issuer: 'http://as.example.com' } });
  const oauth = codeClient(w);
  await rejectsWith(rpcPost(oauth.wrapFetch(w.router.fetch), w.rs.url, 'tools/list'), 'insecure_url');
  assert.throws(() => new OAuthClient({ serverUrl: 'http://mcp.example.com/mcp', grant: { type: 'client_credentials' } }), OAuthClientError);
  const allowed = codeClient(w, { dangerouslyAllowInsecureHttp: true });
  assert.equal((await rpcPost(allowed.wrapFetch(w.router.fetch), w.rs.url, 'tools/list')).status, 200);
});

test('redirect URIs must be https or loopback http', () => {
  const w = world();
  for (const bad of ['http://example.com/cb', 'myapp:/cb', 'https://app.example.com/cb#frag', 'javascript:alert(1)']) {
    assert.throws(() => codeClient(w, { grant: { type: 'authorization_code', redirectUri: bad } }), OAuthClientError, bad);
  }
  for (const good of ['http://localhost:8080/cb', 'http://127.0.0.1/cb', 'http://[::1]:9/cb', 'https://app.example.com/cb']) {
    codeClient(w, { grant: { type: 'authorization_code', redirectUri: good } });
  }
});

test('2025-03-26 servers: no resource metadata → AS metadata at the origin, else /authorize, /token, /register there', async () => {
  for (const withMetadata of [true, false]) {
    const as = new FakeAuthServer({ issuer: 'https://legacy.example.com', metadata: withMetadata ? {} : undefined });
    const rs = new FakeResourceServer(
      { url: 'https://legacy.example.com/v1/mcp', authorizationServers: [], noMetadata: true, resource: 'https://legacy.example.com/v1/mcp' },
      (t) => as.tokens.get(t),
    );
    const router = new Router().add(as.origin, async (req) => {
      if (!withMetadata && req.url.pathname.startsWith('/.well-known/')) return json({ error: 'not_found' }, 404);
      const r = await as.handle(req);
      return r.status === 404 ? rs.handle(req) : r;
    });
    const oauth = new OAuthClient({
      serverUrl: rs.url,
      grant: { type: 'authorization_code', redirectUri: REDIRECT, userAgent: as.userAgent },
      fetch: router.fetch,
    });
    assert.equal((await rpcPost(oauth.wrapFetch(router.fetch), rs.url, 'tools/list')).status, 200, `with metadata: ${withMetadata}`);
    assert.equal(as.authorizations[0]!.origin + as.authorizations[0]!.pathname, 'https://legacy.example.com/authorize');
    assert.equal(as.authorizations[0]!.searchParams.get('resource'), 'https://legacy.example.com/v1/mcp');
    assert.equal(router.to(as.origin, '/register').length, 1);
  }
});

test('a request body that cannot be replayed is not retried: the 401 is returned', async () => {
  const w = world();
  const oauth = codeClient(w);
  const body = new ReadableStream({
    start(c) {
      c.enqueue(new TextEncoder().encode('{}'));
      c.close();
    },
  });
  const response = await oauth.wrapFetch(w.router.fetch)(w.rs.url, { method: 'POST', body, duplex: 'half' } as RequestInit);
  assert.equal(response.status, 401);
  assert.equal(w.as.authorizations.length, 0);
});

test('authorize() obtains tokens before the first request; signOut() forgets them', async () => {
  const w = world({ rs: { scopesSupported: ['mcp:read'] } });
  const oauth = codeClient(w);
  const tokens = await oauth.authorize();
  assert.equal(tokens.scope, 'mcp:read');
  assert.equal((await rpcPost(oauth.wrapFetch(w.router.fetch), w.rs.url, 'tools/list')).status, 200);
  assert.equal(mcpRequests(w).length, 1, 'no 401 round trip');
  await oauth.signOut();
  assert.equal(await oauth.tokens(), undefined);
});
