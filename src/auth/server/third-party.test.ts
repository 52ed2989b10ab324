/**
 * The third-party authorization flow end to end: the example server (MCP server + its own
 * authorization server) with the oidc-provider fixture as the upstream, driven by a headless
 * browser and a hand-written MCP client.
 */

import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { type BrowseResult, browse, CookieJar } from '../../../test/helpers/auth/browser.js';
import { type OidcServer, pkcePair, startOidcServer } from '../../../test/helpers/auth/oidc-server.js';
import { callTool, initialize, mcpPost, openSession, parseChallenge } from '../../../test/helpers/auth/protected.js';
import { startThirdPartyExample, type ThirdPartyExample } from '../../../test/helpers/auth/third-party-example.js';
import { createGuardedFetch } from '../fetch-guard.js';
import type { ClientRegistration } from './third-party.js';

let oidc: OidcServer;
let ex: ThirdPartyExample;
const errors: Error[] = [];
const REDIRECT = 'http://127.0.0.1:47011/callback';

before(async () => {
  oidc = await startOidcServer();
  ex = await startThirdPartyExample(oidc, { onError: (e) => errors.push(e) });
});

after(async () => {
  await ex.close();
  await oidc.stop();
});

async function registerClient(metadata: Record<string, unknown> = {}): Promise<ClientRegistration> {
  const response = await fetch(`${ex.origin}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      client_name: 'Test Client',
      ...metadata,
    }),
  });
  const body = (await response.json()) as ClientRegistration & { error?: string };
  if (response.status !== 201) throw new Error(`registration: ${response.status} ${body.error}`);
  return body;
}

interface Authorization {
  url: URL;
  verifier: string;
  state: string;
}

function authorizationUrl(clientId: string, params: Record<string, string | undefined> = {}): Authorization {
  const { verifier, challenge } = pkcePair();
  const state = crypto.randomUUID();
  const url = new URL(`${ex.origin}/authorize`);
  const all: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state,
    scope: 'notes:read',
    resource: ex.url,
    ...params,
  };
  for (const [k, v] of Object.entries(all)) if (v !== undefined) url.searchParams.set(k, v);
  return { url, verifier, state };
}

function walk(url: URL, jar: CookieJar, consent: 'approve' | 'deny' = 'approve'): Promise<BrowseResult> {
  return browse(url, { jar, consent, stopAt: (u) => u.href.startsWith(REDIRECT) });
}

const sawConsent = (r: BrowseResult): boolean => r.visited.some((u) => u.pathname === '/oauth/consent');
const wentUpstream = (r: BrowseResult): boolean => r.visited.some((u) => u.origin === oidc.issuer);

async function token(params: Record<string, string>): Promise<{ status: number; body: Record<string, string>; headers: Headers }> {
  const response = await fetch(`${ex.origin}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params),
  });
  return { status: response.status, body: (await response.json()) as Record<string, string>, headers: response.headers };
}

/** The whole authorization for `client` in `jar`: resolves with the token response. */
async function authorizeAndExchange(client: ClientRegistration, jar = new CookieJar(), scope = 'notes:read'): Promise<Record<string, string>> {
  const a = authorizationUrl(client.client_id, { scope });
  const r = await walk(a.url, jar);
  assert.ok(r.stopped, `the walk ended at ${r.url.href}: ${r.body?.slice(0, 200)}`);
  const code = r.url.searchParams.get('code');
  assert.ok(code !== null, r.url.href);
  const t = await token({
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT,
    code_verifier: a.verifier,
    client_id: client.client_id,
    resource: ex.url,
  });
  assert.equal(t.status, 200, JSON.stringify(t.body));
  return t.body;
}

test('authorization server metadata (RFC 8414) and protected resource metadata point at each other', async () => {
  const md = (await (await fetch(`${ex.origin}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
  assert.equal(md.issuer, ex.origin);
  assert.deepEqual(md.code_challenge_methods_supported, ['S256']);
  assert.equal(md.authorization_response_iss_parameter_supported, true);
  assert.equal(md.client_id_metadata_document_supported, true);
  assert.equal(md.registration_endpoint, `${ex.origin}/register`);
  const prm = (await (await fetch(`${ex.origin}/.well-known/oauth-protected-resource/mcp`)).json()) as { authorization_servers: string[]; resource: string };
  assert.deepEqual(prm.authorization_servers, [ex.origin]);
  assert.equal(prm.resource, ex.url);
  // the same endpoints standalone, as a web-standard handler
  const standalone = await ex.as.fetch(new Request(`${ex.origin}/.well-known/oauth-authorization-server`));
  assert.equal(((await standalone.json()) as { issuer: string }).issuer, ex.origin);
  assert.equal((await ex.as.fetch(new Request(`${ex.origin}/elsewhere`))).status, 404);
  const unauthenticated = await mcpPost(ex.url, initialize());
  assert.equal(unauthenticated.status, 401);
  assert.equal(parseChallenge(unauthenticated.headers.get('www-authenticate')).resource_metadata, `${ex.origin}/.well-known/oauth-protected-resource/mcp`);
});

test('end to end: registration, consent, upstream sign-in, code, tokens, tool calls; upstream tokens stay on the server', async () => {
  const client = await registerClient();
  const jar = new CookieJar();
  const a = authorizationUrl(client.client_id);
  const r = await walk(a.url, jar);
  assert.ok(r.stopped);
  assert.ok(sawConsent(r), 'the user saw this server’s consent page');
  assert.ok(wentUpstream(r), 'and signed in upstream');
  assert.equal(r.url.searchParams.get('state'), a.state);
  assert.equal(r.url.searchParams.get('iss'), ex.origin, 'RFC 9207 iss');
  const t = await token({
    grant_type: 'authorization_code',
    code: r.url.searchParams.get('code')!,
    redirect_uri: REDIRECT,
    code_verifier: a.verifier,
    client_id: client.client_id,
    resource: ex.url,
  });
  assert.equal(t.status, 200);
  assert.equal(t.headers.get('cache-control'), 'no-store');
  assert.equal(t.body.token_type, 'Bearer');
  assert.equal(t.body.scope, 'notes:read');
  assert.ok(t.body.refresh_token !== undefined);
  const sessionId = await openSession(ex.url, t.body.access_token!);
  const whoami = JSON.parse(
    ((await callTool(ex.url, t.body.access_token!, sessionId, 'whoami')).json as { result: { content: [{ text: string }] } }).result.content[0].text,
  ) as Record<string, unknown>;
  assert.equal(whoami.subject, 'test-user', 'the upstream user');
  assert.equal(whoami.clientId, client.client_id);
  assert.equal(whoami.issuer, ex.origin);
  // the tool reaches the upstream API with the upstream token
  const profile = await callTool(ex.url, t.body.access_token!, sessionId, 'upstream_profile', 2);
  const seen = JSON.parse((profile.json as { result: { content: [{ text: string }] } }).result.content[0].text) as { subject: string; audience: string[] };
  assert.equal(seen.subject, 'test-user');
  assert.deepEqual(seen.audience, ['https://notes-api.example/']);
  // no passthrough, in either direction
  const upstreamToken = await ex.as.upstreamAccessToken(await ex.as.verifier.verify(t.body.access_token!));
  assert.ok(!JSON.stringify(t.body).includes(upstreamToken), 'the MCP client never sees the upstream token');
  await assert.rejects(ex.upstreamApi.verify(t.body.access_token!), 'the upstream API refuses MCP tokens');
  assert.equal((await mcpPost(ex.url, initialize(), { token: upstreamToken })).status, 401, 'the MCP server refuses upstream tokens');
  // per-tool scope: 403 with step-up guidance
  const denied = await callTool(ex.url, t.body.access_token!, sessionId, 'write_note', 3);
  assert.equal(denied.status, 403);
  assert.equal(parseChallenge(denied.headers.get('www-authenticate')).scope, 'notes:read notes:write');
});

test('consent is per client and remembered per browser; a new client (the confused deputy) must be approved before anything goes upstream', async () => {
  const trusted = await registerClient({ client_name: 'Trusted' });
  const jar = new CookieJar();
  await authorizeAndExchange(trusted, jar);
  const again = await walk(authorizationUrl(trusted.client_id).url, jar);
  assert.ok(again.stopped && again.url.searchParams.has('code'));
  assert.ok(!sawConsent(again), 'remembered for this client in this browser');
  const more = await walk(authorizationUrl(trusted.client_id, { scope: 'notes:read notes:write' }).url, jar);
  assert.ok(sawConsent(more), 'asked again for scopes not yet approved');
  // the attacker's freshly registered client, in the same browser, with the upstream session cookie present
  const attacker = await registerClient({ client_name: 'Evil <script>alert(1)</script>', redirect_uris: [REDIRECT] });
  const page = await fetch(authorizationUrl(attacker.client_id).url, { headers: { cookie: jar.header(new URL(ex.origin)) ?? '' } });
  assert.equal(page.status, 200);
  const html = await page.text();
  assert.ok(html.includes('Evil &lt;script&gt;'), 'the client name is escaped');
  assert.ok(!html.includes('<script>'));
  assert.ok(html.includes('127.0.0.1:47011'), 'the redirect target is shown');
  assert.equal(page.headers.get('x-frame-options'), 'DENY');
  assert.match(page.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
  const denied = await walk(authorizationUrl(attacker.client_id).url, jar, 'deny');
  assert.equal(denied.url.searchParams.get('error'), 'access_denied');
  assert.ok(!wentUpstream(denied), 'nothing was sent upstream without consent');
});

test('the consent form is bound to its browser and its anti-CSRF token; the cookie is HttpOnly and SameSite', async () => {
  const client = await registerClient();
  const first = await fetch(authorizationUrl(client.client_id).url);
  const setCookie = first.headers.get('set-cookie') ?? '';
  assert.match(setCookie, /HttpOnly/);
  assert.match(setCookie, /SameSite=Lax/);
  const html = await first.text();
  const transaction = /name="transaction" value="([^"]+)"/.exec(html)![1]!;
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)![1]!;
  const cookie = setCookie.split(';')[0]!;
  const post = (body: Record<string, string>, cookieHeader?: string) =>
    fetch(`${ex.origin}/oauth/consent`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookieHeader !== undefined ? { cookie: cookieHeader } : {}) },
      body: new URLSearchParams(body),
    });
  const forged = await post({ transaction, csrf: 'x'.repeat(csrf.length), decision: 'approve' }, cookie);
  assert.equal(forged.status, 400);
  assert.equal(forged.headers.get('location'), null);
  const crossSite = await fetch(`${ex.origin}/oauth/consent`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, origin: 'https://evil.example' },
    body: new URLSearchParams({ transaction, csrf, decision: 'approve' }),
  });
  assert.equal(crossSite.status, 403, 'a form posted from another site is refused');
  const otherBrowser = await post({ transaction, csrf, decision: 'approve' });
  assert.equal(otherBrowser.status, 400, 'the approval must come from the browser that asked');
  const ok = await post({ transaction, csrf, decision: 'approve' }, cookie);
  assert.equal(ok.status, 303);
  assert.ok(ok.headers.get('location')!.startsWith(oidc.issuer));
});

test('the upstream callback must come back to the browser that started, once', async () => {
  const client = await registerClient();
  const jar = new CookieJar();
  const toCallback = await browse(authorizationUrl(client.client_id).url, { jar, stopAt: (u) => u.pathname === '/oauth/callback' });
  assert.ok(toCallback.stopped);
  const elsewhere = await fetch(toCallback.url, { redirect: 'manual' });
  assert.equal(elsewhere.status, 400, 'another browser (no cookie) is refused');
  assert.equal(elsewhere.headers.get('location'), null);
  const replay = await fetch(toCallback.url, { redirect: 'manual', headers: { cookie: jar.header(toCallback.url) ?? '' } });
  assert.equal(replay.status, 400, 'the upstream state is single use');
});

test('PKCE S256 is required and checked; codes are single use and a replay revokes what they produced', async () => {
  const client = await registerClient();
  const jar = new CookieJar();
  const noPkce = await walk(authorizationUrl(client.client_id, { code_challenge: undefined, code_challenge_method: undefined }).url, jar);
  assert.equal(noPkce.url.searchParams.get('error'), 'invalid_request');
  const plain = await walk(authorizationUrl(client.client_id, { code_challenge_method: 'plain' }).url, jar);
  assert.equal(plain.url.searchParams.get('error'), 'invalid_request');
  assert.ok(!wentUpstream(noPkce) && !wentUpstream(plain));
  const a = authorizationUrl(client.client_id);
  const r = await walk(a.url, jar);
  const code = r.url.searchParams.get('code')!;
  const wrong = await token({
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT,
    code_verifier: pkcePair().verifier,
    client_id: client.client_id,
  });
  assert.equal(wrong.status, 400);
  assert.equal(wrong.body.error, 'invalid_grant');
  // that attempt consumed the code
  const a2 = authorizationUrl(client.client_id);
  const code2 = (await walk(a2.url, jar)).url.searchParams.get('code')!;
  const good = await token({ grant_type: 'authorization_code', code: code2, redirect_uri: REDIRECT, code_verifier: a2.verifier, client_id: client.client_id });
  assert.equal(good.status, 200);
  assert.equal((await mcpPost(ex.url, initialize(), { token: good.body.access_token })).status, 200);
  const replay = await token({
    grant_type: 'authorization_code',
    code: code2,
    redirect_uri: REDIRECT,
    code_verifier: a2.verifier,
    client_id: client.client_id,
  });
  assert.equal(replay.body.error, 'invalid_grant');
  assert.equal((await mcpPost(ex.url, initialize(), { token: good.body.access_token })).status, 401, 'the replay revoked the tokens of the first redemption');
});

test('redirect URIs: registered ones only, matched exactly, https or loopback; errors before validation are never redirected', async () => {
  for (const bad of [
    'javascript:alert(1)',
    'data:text/html,x',
    'file:///etc/passwd',
    'http://evil.example/cb',
    'https://app.example/cb#frag',
    'https://user:pw@app.example/cb',
    'not a uri',
  ]) {
    const response = await fetch(`${ex.origin}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [bad], token_endpoint_auth_method: 'none' }),
    });
    assert.equal(response.status, 400, bad);
    assert.equal(((await response.json()) as { error: string }).error, 'invalid_redirect_uri');
  }
  const client = await registerClient({ redirect_uris: [REDIRECT, 'https://app.example/cb'] });
  for (const other of ['http://127.0.0.1:47011/callback/', 'http://127.0.0.1:47012/callback', 'https://app.example/cb?x=1', 'https://evil.example/cb']) {
    const response = await fetch(authorizationUrl(client.client_id, { redirect_uri: other }).url, { redirect: 'manual' });
    assert.equal(response.status, 400, other);
    assert.equal(response.headers.get('location'), null, 'never redirected to an unregistered URI');
    await response.body?.cancel();
  }
  const unknown = await fetch(authorizationUrl('no-such-client').url, { redirect: 'manual' });
  assert.equal(unknown.status, 400);
  await unknown.body?.cancel();
});

test('resource indicators: tokens only for this MCP server; other resources and unknown scopes are refused', async () => {
  const client = await registerClient();
  const jar = new CookieJar();
  const sameServer = await walk(authorizationUrl(client.client_id, { resource: ex.url.replace('http://', 'HTTP://') + '/' }).url, jar);
  assert.ok(sameServer.url.searchParams.has('code'), 'scheme/host case and a trailing slash do not make another resource');
  const wrongResource = await walk(authorizationUrl(client.client_id, { resource: 'https://other.example/mcp' }).url, jar);
  assert.equal(wrongResource.url.searchParams.get('error'), 'invalid_target');
  const unknownScope = await walk(authorizationUrl(client.client_id, { scope: 'admin' }).url, jar);
  assert.equal(unknownScope.url.searchParams.get('error'), 'invalid_scope');
  const a = authorizationUrl(client.client_id);
  const code = (await walk(a.url, jar)).url.searchParams.get('code')!;
  const t = await token({
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT,
    code_verifier: a.verifier,
    client_id: client.client_id,
    resource: 'https://other.example/mcp',
  });
  assert.equal(t.body.error, 'invalid_target');
});

test('refresh tokens rotate; a replayed one revokes the whole grant', async () => {
  const client = await registerClient();
  const first = await authorizeAndExchange(client);
  const second = await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token!, client_id: client.client_id });
  assert.equal(second.status, 200);
  assert.notEqual(second.body.refresh_token, first.refresh_token);
  assert.notEqual(second.body.access_token, first.access_token);
  const narrowed = await token({ grant_type: 'refresh_token', refresh_token: second.body.refresh_token!, client_id: client.client_id, scope: 'notes:write' });
  assert.equal(narrowed.body.error, 'invalid_scope', 'a refresh cannot widen scopes');
  const third = await token({ grant_type: 'refresh_token', refresh_token: second.body.refresh_token!, client_id: client.client_id });
  assert.equal(third.body.error, 'invalid_grant', 'the failed attempt above used the token up');
  // a fresh grant: rotate once, then replay the old refresh token
  const fresh = await authorizeAndExchange(client);
  const rotated = await token({ grant_type: 'refresh_token', refresh_token: fresh.refresh_token!, client_id: client.client_id });
  assert.equal((await mcpPost(ex.url, initialize(), { token: rotated.body.access_token })).status, 200);
  const replay = await token({ grant_type: 'refresh_token', refresh_token: fresh.refresh_token!, client_id: client.client_id });
  assert.equal(replay.body.error, 'invalid_grant');
  assert.equal((await mcpPost(ex.url, initialize(), { token: rotated.body.access_token })).status, 401, 'the replay ended the grant');
  const other = await registerClient();
  const stolen = await token({ grant_type: 'refresh_token', refresh_token: rotated.body.refresh_token!, client_id: other.client_id });
  assert.equal(stolen.body.error, 'invalid_grant');
});

test('client authentication at the token endpoint: confidential clients must prove their secret, the way they registered', async () => {
  const confidential = await registerClient({ token_endpoint_auth_method: 'client_secret_basic' });
  assert.ok(confidential.client_secret !== undefined);
  const tokens = await (async () => {
    const jar = new CookieJar();
    const a = authorizationUrl(confidential.client_id);
    const code = (await walk(a.url, jar)).url.searchParams.get('code')!;
    const withoutSecret = await token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: a.verifier,
      client_id: confidential.client_id,
    });
    assert.equal(withoutSecret.status, 401);
    assert.equal(withoutSecret.body.error, 'invalid_client');
    const a2 = authorizationUrl(confidential.client_id);
    const code2 = (await walk(a2.url, jar)).url.searchParams.get('code')!;
    const basic = `Basic ${btoa(`${encodeURIComponent(confidential.client_id)}:${encodeURIComponent(confidential.client_secret!)}`)}`;
    const response = await fetch(`${ex.origin}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: code2, redirect_uri: REDIRECT, code_verifier: a2.verifier }),
    });
    assert.equal(response.status, 200);
    return (await response.json()) as Record<string, string>;
  })();
  const wrongSecret = await fetch(`${ex.origin}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${btoa(`${confidential.client_id}:nope`)}` },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token! }),
  });
  assert.equal(wrongSecret.status, 401);
  assert.match(wrongSecret.headers.get('www-authenticate') ?? '', /^Basic/);
  const viaPost = await token({
    grant_type: 'refresh_token',
    refresh_token: tokens.refresh_token!,
    client_id: confidential.client_id,
    client_secret: confidential.client_secret!,
  });
  assert.equal(viaPost.status, 401, 'registered for client_secret_basic, not client_secret_post');
  const dup = await fetch(`${ex.origin}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=refresh_token&grant_type=authorization_code&client_id=x',
  });
  assert.equal(((await dup.json()) as { error: string }).error, 'invalid_request');
});

test('revocation (RFC 7009): an access token stops working; a refresh token ends the grant', async () => {
  const client = await registerClient();
  const t = await authorizeAndExchange(client);
  const revoke = (value: string) =>
    fetch(`${ex.origin}/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: value, client_id: client.client_id }),
    });
  assert.equal((await revoke(t.access_token!)).status, 200);
  assert.equal((await mcpPost(ex.url, initialize(), { token: t.access_token })).status, 401);
  const refreshed = await token({ grant_type: 'refresh_token', refresh_token: t.refresh_token!, client_id: client.client_id });
  assert.equal(refreshed.status, 200, 'revoking an access token leaves the grant');
  assert.equal((await revoke(refreshed.body.refresh_token!)).status, 200);
  assert.equal((await mcpPost(ex.url, initialize(), { token: refreshed.body.access_token })).status, 401, 'the grant ended');
  assert.equal((await revoke('unknown-token')).status, 200, 'unknown tokens answer the same');
});

test('upstream expiry: renewed with the upstream refresh token on use; a refused renewal ends the grant (401)', async () => {
  // upstream access tokens live 2 s (exp has whole seconds: each is good for at least 1 s)
  const short = await startThirdPartyExample(oidc, { upstreamAccessTokenTtlSeconds: 2, onError: (e) => errors.push(e) });
  try {
    const registered = await fetch(`${short.origin}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'] }),
    });
    const client = (await registered.json()) as ClientRegistration;
    const { verifier, challenge } = pkcePair();
    const url = new URL(`${short.origin}/authorize`);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      scope: 'notes:read',
      resource: short.url,
    }).toString();
    const back = await browse(url, { stopAt: (u) => u.href.startsWith(REDIRECT) });
    const response = await fetch(`${short.origin}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: back.url.searchParams.get('code')!,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
        client_id: client.client_id,
      }),
    });
    const tokens = (await response.json()) as Record<string, string>;
    const sessionId = await openSession(short.url, tokens.access_token!);
    const firstUpstream = await short.as.upstreamAccessToken(await short.as.verifier.verify(tokens.access_token!));
    const first = JSON.parse(Buffer.from(firstUpstream.split('.')[1]!, 'base64url').toString()) as { exp: number; jti: string };
    // from now on the upstream issues refresh tokens that live 1 s: the next renewal works, the one after cannot
    await oidc.configure({ refreshTokenTtlSeconds: 1 });
    try {
      // The server dates the upstream token from when it received it (whole seconds + expires_in), which
      // can be one second past the token's own exp when issuing and receiving straddle a second under
      // load: wait out both, or the server rightly still holds the token as current.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, first.exp * 1000 - Date.now()) + 1100));
      const profile = await callTool(short.url, tokens.access_token!, sessionId, 'upstream_profile');
      assert.equal(profile.status, 200, JSON.stringify(profile.json));
      const seen = JSON.parse((profile.json as { result: { content: [{ text: string }] } }).result.content[0].text) as { tokenId: string; subject: string };
      assert.notEqual(seen.tokenId, first.jti, 'the upstream API saw a renewed upstream token');
      assert.equal(seen.subject, 'test-user');
      // past the renewed access token and its 1 s refresh token: the upstream refuses, the grant ends
      await new Promise((resolve) => setTimeout(resolve, 2200));
      const ended = await callTool(short.url, tokens.access_token!, sessionId, 'read_notes', 4);
      assert.equal(ended.status, 401, 'the upstream refused the renewal: the MCP token is no longer honoured');
      assert.equal(parseChallenge(ended.headers.get('www-authenticate')).error, 'invalid_token');
      await assert.rejects(
        short.as.upstreamAccessToken({
          issuer: short.origin,
          subject: 'test-user',
          clientId: client.client_id,
          scopes: [],
          audience: [short.url],
          expiresAt: undefined,
          tokenId: undefined,
          claims: { grant: 'no-such-grant' },
        }),
        /revoked or has expired/,
      );
    } finally {
      await oidc.configure({ refreshTokenTtlSeconds: 3600 });
    }
  } finally {
    await short.close();
  }
});

test('client ID metadata documents: fetched through the guard, must match their URL, may not use secrets; private addresses are refused', async () => {
  // a document host on loopback, reached as https://app.example through a guarded fetch
  const docs = new Map<string, unknown>();
  const host: Server = createServer((req, res) => {
    const doc = docs.get(req.url ?? '');
    if (doc === undefined) res.writeHead(404).end();
    else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc));
  });
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
  const hostOrigin = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
  const guard = createGuardedFetch({ dangerouslyAllowHttpLoopbackForTesting: true });
  const cimdErrors: Error[] = [];
  const withDocs = await startThirdPartyExample(oidc, {
    fetch: (input, init) => guard(String(input).replace('https://app.example', hostOrigin), init),
    onError: (e) => cimdErrors.push(e),
  });
  const plainGuard = await startThirdPartyExample(oidc, { onError: (e) => cimdErrors.push(e) });
  try {
    const clientId = 'https://app.example/oauth/client.json';
    docs.set('/oauth/client.json', {
      client_id: clientId,
      client_name: 'Doc App',
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code'],
    });
    docs.set('/oauth/mismatch.json', { client_id: 'https://app.example/oauth/other.json', client_name: 'Liar', redirect_uris: [REDIRECT] });
    docs.set('/oauth/secret.json', {
      client_id: 'https://app.example/oauth/secret.json',
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'client_secret_basic',
    });
    const { verifier, challenge } = pkcePair();
    const url = new URL(`${withDocs.origin}/authorize`);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      scope: 'notes:read',
      resource: withDocs.url,
    }).toString();
    const r = await browse(url, { stopAt: (u) => u.href.startsWith(REDIRECT) });
    assert.ok(r.stopped && r.url.searchParams.has('code'), r.body?.slice(0, 300));
    const t = await fetch(`${withDocs.origin}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: r.url.searchParams.get('code')!,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
        client_id: clientId,
      }),
    });
    assert.equal(t.status, 200);
    const refused = async (server: ThirdPartyExample, id: string): Promise<void> => {
      const u = new URL(`${server.origin}/authorize`);
      u.search = new URLSearchParams({
        response_type: 'code',
        client_id: id,
        redirect_uri: REDIRECT,
        code_challenge: challenge,
        code_challenge_method: 'S256',
      }).toString();
      const response = await fetch(u, { redirect: 'manual' });
      assert.equal(response.status, 400, id);
      assert.equal(response.headers.get('location'), null);
      await response.body?.cancel();
    };
    await refused(withDocs, 'https://app.example/oauth/mismatch.json');
    await refused(withDocs, 'https://app.example/oauth/secret.json');
    await refused(withDocs, 'https://app.example/oauth/missing.json');
    const before = cimdErrors.length;
    // SSRF: the real guard refuses private and metadata-service addresses, even with the loopback test opt-out
    await refused(plainGuard, 'https://169.254.169.254/latest/meta-data.json');
    await refused(plainGuard, 'https://10.0.0.1/client.json');
    await refused(plainGuard, 'https://[fd00::1]/client.json');
    assert.ok(cimdErrors.slice(before).every((e) => /could not be fetched/.test(e.message)));
    assert.equal(cimdErrors.length - before, 3);
  } finally {
    await withDocs.close();
    await plainGuard.close();
    host.closeAllConnections();
    await new Promise<void>((resolve) => host.close(() => resolve()));
  }
});

test('sessions of the MCP endpoint are bound to the upstream user and client', async () => {
  const client = await registerClient();
  await oidc.setInteraction({ accountId: 'dana' });
  const dana = await authorizeAndExchange(client);
  await oidc.setInteraction({ accountId: 'eve' });
  const eve = await authorizeAndExchange(client);
  await oidc.setInteraction({});
  const sessionId = await openSession(ex.url, dana.access_token!);
  assert.equal((await callTool(ex.url, eve.access_token!, sessionId, 'whoami')).status, 404);
  assert.equal((await callTool(ex.url, dana.access_token!, sessionId, 'whoami')).status, 200);
});

test('no unexpected server-side errors were reported', () => {
  assert.deepEqual(
    errors.map((e) => e.message),
    [],
  );
});
