/**
 * End to end against a real authorization server (oidc-provider, `startOidcServer`) and
 * mcpkit's HTTP server protected by `requireBearerAuth` (JWT access tokens, audience = the
 * MCP endpoint), over real sockets on 127.0.0.1, with mcpkit's `Client` and the OAuth client
 * as the transport's `auth`: the first 401 to a tool call (dynamic registration, PKCE,
 * resource indicators, `iss`), step-up for a tool that needs more scope, a token the server
 * refuses (refresh, rotation, the same request replayed), an expired token refreshed before
 * sending, a refresh token that no longer works (re-authorization), a client ID metadata
 * document instead of registration, and the client credentials grant. State lives in a
 * `FileOAuthStore`.
 */

import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type OidcServer, startOidcServer, tokenRequest } from '../../../test/helpers/auth/oidc-server.js';
import { type ProtectedServer, startProtectedServer } from '../../../test/helpers/auth/protected.js';
import { Client } from '../../client/client.js';
import { StreamableHttpClientTransport } from '../../http/client/streamable.js';
import { createJwtVerifier } from '../server/jwt-verifier.js';
import { FileOAuthStore } from './file-store.js';
import { clientMetadataDocument } from './metadata-document.js';
import { OAuthClient, type OAuthClientOptions } from './oauth-client.js';

const REDIRECT = 'http://127.0.0.1:43117/callback';
const SHORT_TTL_SECONDS = 2;

let oidc: OidcServer;
let mcp: ProtectedServer;
let dir: string;

before(async () => {
  oidc = await startOidcServer({ accessTokenTtlSeconds: 300 });
  mcp = await startProtectedServer({
    verifier: (resource) =>
      createJwtVerifier({
        issuer: oidc.issuer,
        audience: resource,
        jwksUri: oidc.metadata.jwks_uri,
        fetchGuard: { dangerouslyAllowHttpLoopbackForTesting: true },
      }),
    authorizationServers: [oidc.issuer],
    scopesSupported: ['mcp:read'],
    scopes: { tools: { write_note: ['mcp:write'] } },
    onResource: (resource) => oidc.addResource(resource, { scopes: ['mcp:read', 'mcp:write'], format: 'jwt' }),
  });
  dir = await mkdtemp(join(tmpdir(), 'mcpkit-oauth-e2e-'));
});

after(async () => {
  await mcp?.close();
  await oidc?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

function oauthClient(store: FileOAuthStore, extra: Partial<OAuthClientOptions> = {}): OAuthClient {
  return new OAuthClient({
    serverUrl: mcp.url,
    grant: { type: 'authorization_code', redirectUri: REDIRECT, userAgent: (request) => oidc.authorizeHeadless(request.url) },
    store,
    clientMetadata: { clientName: 'mcpkit e2e' },
    dangerouslyAllowInsecureHttp: true,
    ...extra,
  });
}

async function connect(oauth: OAuthClient): Promise<{ client: Client; transport: StreamableHttpClientTransport }> {
  const client = new Client({ name: 'e2e', version: '1.0.0' }, { requestTimeoutMs: 15_000 });
  const transport = new StreamableHttpClientTransport({ url: mcp.url, auth: oauth, openGetStream: false });
  await client.connect(transport);
  return { client, transport };
}

function text(result: { content: unknown[] }): string {
  return (result.content[0] as { text: string }).text;
}

test('first 401 to a tool call, step-up, refused token refreshed and replayed, expiry, dead refresh token', { timeout: 60_000 }, async () => {
  const store = new FileOAuthStore(join(dir, 'code.json'));
  const oauth = oauthClient(store);
  const { client, transport } = await connect(oauth);
  const session = transport.sessionId;

  // the whole path from the first 401: a real registration, a real login, a JWT for this resource
  assert.equal(text(await client.callTool({ name: 'read_notes', arguments: {} })), 'notes');
  const first = (await oauth.tokens())!;
  assert.equal(first.issuer, oidc.issuer);
  assert.equal(first.resource, mcp.url);
  assert.deepEqual(first.requestedScope!.split(' ').sort(), ['mcp:read', 'offline_access'], 'the challenge’s scope, plus offline_access (offered)');
  assert.equal(first.scope, 'mcp:read');
  assert.ok(first.refreshToken, 'offline_access brought a refresh token');
  const claims = JSON.parse(Buffer.from(first.accessToken.split('.')[1]!, 'base64url').toString('utf8')) as { aud: string };
  assert.equal(claims.aud, mcp.url, 'the token is bound to this MCP server');
  assert.equal((await stat(store.path)).mode & 0o777, 0o600);
  const registered = await store.getClient(oidc.issuer);
  assert.equal(registered?.method, 'dynamic');

  // step-up: write_note needs mcp:write
  assert.equal(text(await client.callTool({ name: 'write_note', arguments: { text: 'hi' } })), 'written');
  const stepped = (await oauth.tokens())!;
  assert.deepEqual(stepped.scope!.split(' ').sort(), ['mcp:read', 'mcp:write']);
  assert.deepEqual(stepped.requestedScope!.split(' ').sort(), ['mcp:read', 'mcp:write', 'offline_access'], 'scopes accumulate on step-up');
  assert.equal(transport.sessionId, session, 'the same session throughout');

  // a token the server refuses: refreshed (rotated) and the request replayed
  await store.saveTokens(mcp.url, { ...stepped, accessToken: `${stepped.accessToken}x` });
  assert.equal(text(await client.callTool({ name: 'read_notes', arguments: {} })), 'notes');
  const refreshed = (await oauth.tokens())!;
  assert.notEqual(refreshed.refreshToken, stepped.refreshToken, 'the refresh token was rotated');
  assert.ok(!refreshed.accessToken.endsWith('x'));

  // a token known to be expired is refreshed before the request is sent
  await store.saveTokens(mcp.url, { ...refreshed, expiresAt: Date.now() - 1 });
  assert.equal(text(await client.callTool({ name: 'read_notes', arguments: {} })), 'notes');
  const renewed = (await oauth.tokens())!;
  assert.notEqual(renewed.refreshToken, refreshed.refreshToken);

  // the rotated-away refresh token is dead at the server (and reusing it revokes the grant)
  const reg = (await store.getClient(oidc.issuer))!;
  await assert.rejects(
    tokenRequest(
      oidc,
      { client_id: reg.clientId, token_endpoint_auth_method: 'none' },
      { grant_type: 'refresh_token', refresh_token: refreshed.refreshToken!, resource: mcp.url },
    ),
    /invalid_grant/,
  );
  // so the next refresh fails and the client authorizes anew, transparently
  await store.saveTokens(mcp.url, { ...renewed, accessToken: `${renewed.accessToken}x` });
  assert.equal(text(await client.callTool({ name: 'read_notes', arguments: {} })), 'notes');
  assert.notEqual((await oauth.tokens())!.refreshToken, renewed.refreshToken);
  await client.close();
});

test('short-lived tokens expire and are refreshed with rotation', { timeout: 60_000 }, async () => {
  await oidc.addResource(mcp.url, { scopes: ['mcp:read', 'mcp:write'], format: 'jwt', accessTokenTtlSeconds: SHORT_TTL_SECONDS });
  try {
    const store = new FileOAuthStore(join(dir, 'short.json'));
    const oauth = oauthClient(store);
    const { client } = await connect(oauth);
    assert.equal(text(await client.callTool({ name: 'read_notes', arguments: {} })), 'notes');
    const before = (await oauth.tokens())!;
    assert.ok(before.expiresAt! - Date.now() <= SHORT_TTL_SECONDS * 1000);
    await new Promise((resolve) => setTimeout(resolve, SHORT_TTL_SECONDS * 1000 + 300));
    assert.equal(text(await client.callTool({ name: 'read_notes', arguments: {} })), 'notes');
    const after = (await oauth.tokens())!;
    assert.notEqual(after.accessToken, before.accessToken);
    assert.notEqual(after.refreshToken, before.refreshToken);
    await client.close();
  } finally {
    await oidc.addResource(mcp.url, { scopes: ['mcp:read', 'mcp:write'], format: 'jwt' });
  }
});

test('a client ID metadata document instead of registration (SEP-991)', { timeout: 60_000 }, async () => {
  const cimd = 'https://client.example.com/mcpkit/client-metadata.json';
  await oidc.setClientMetadataDocument(
    cimd,
    clientMetadataDocument({ clientId: cimd, clientName: 'mcpkit e2e (CIMD)', redirectUris: [REDIRECT], applicationType: 'native' }),
  );
  const store = new FileOAuthStore(join(dir, 'cimd.json'));
  const oauth = oauthClient(store, { clientIdMetadataDocumentUrl: cimd });
  const { client } = await connect(oauth);
  assert.equal(text(await client.callTool({ name: 'read_notes', arguments: {} })), 'notes');
  assert.equal(await store.getClient(oidc.issuer), undefined, 'nothing was registered');
  assert.ok((await oidc.stats()).cimdFetches >= 1, 'the authorization server fetched the document');
  await client.close();
});

test('the client credentials grant with a pre-registered confidential client', { timeout: 60_000 }, async () => {
  const registered = await oidc.registerClient({
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: 'client_secret_basic',
  });
  const oauth = new OAuthClient({
    serverUrl: mcp.url,
    grant: { type: 'client_credentials' },
    preRegistered: { issuer: oidc.issuer, clientId: registered.client_id, clientSecret: registered.client_secret! },
    dangerouslyAllowInsecureHttp: true,
  });
  const { client } = await connect(oauth);
  assert.equal(text(await client.callTool({ name: 'read_notes', arguments: {} })), 'notes');
  const tokens = (await oauth.tokens())!;
  assert.equal(tokens.refreshToken, undefined);
  assert.equal(tokens.resource, mcp.url);
  await client.close();
});
