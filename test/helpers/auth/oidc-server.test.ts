/**
 * The oidc-provider fixture itself: what tests rely on (discovery, registration, scripted
 * interaction, CIMD documents, resource indicators, lifetimes, stopping).
 */

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { authorizationCodeFlow, type OidcServer, pkcePair, startOidcServer, tokenRequest } from './oidc-server.js';

let oidc: OidcServer;
const RESOURCE = 'https://mcp.example/mcp';
const REDIRECT = 'http://127.0.0.1:40000/cb';

before(async () => {
  oidc = await startOidcServer({ resources: { [RESOURCE]: { scopes: ['mcp:read'] } }, accessTokenTtlSeconds: 120 });
});

after(async () => {
  await oidc.stop();
});

function claims(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
}

test('discovery advertises what MCP needs: S256, registration, CIMD, iss in responses, introspection, revocation', () => {
  assert.match(oidc.issuer, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal(oidc.metadata.issuer, oidc.issuer);
  assert.deepEqual(oidc.metadata.code_challenge_methods_supported, ['S256']);
  assert.equal(oidc.metadata.client_id_metadata_document_supported, true);
  assert.equal(oidc.metadata.authorization_response_iss_parameter_supported, true);
  assert.ok(oidc.metadata.registration_endpoint !== undefined);
  assert.ok((oidc.metadata.grant_types_supported as string[]).includes('client_credentials'));
  assert.ok(oidc.metadata.introspection_endpoint.startsWith(oidc.issuer));
  assert.ok(oidc.metadata.revocation_endpoint.startsWith(oidc.issuer));
});

test('JWT access tokens carry the resource as audience, within its scopes; lifetimes follow the options', async () => {
  const client = await oidc.registerClient({
    redirect_uris: [REDIRECT],
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
  });
  const tokens = await authorizationCodeFlow(oidc, { client, resource: RESOURCE, scope: 'mcp:read mcp:write' });
  const c = claims(tokens.access_token);
  assert.equal(c.aud, RESOURCE);
  assert.equal(c.scope, 'mcp:read', 'mcp:write is not a scope of this resource');
  assert.equal(c.iss, oidc.issuer);
  assert.equal((c.exp as number) - (c.iat as number), 120);
  const header = JSON.parse(Buffer.from(tokens.access_token.split('.')[0]!, 'base64url').toString()) as { typ: string };
  assert.equal(header.typ, 'at+jwt');
  await oidc.configure({ accessTokenTtlSeconds: 30 });
  await oidc.addResource('https://mcp.example/second');
  const second = await authorizationCodeFlow(oidc, { client, resource: 'https://mcp.example/second', scope: 'mcp:write' });
  const c2 = claims(second.access_token);
  assert.equal((c2.exp as number) - (c2.iat as number), 30);
  await assert.rejects(authorizationCodeFlow(oidc, { client, resource: 'https://unknown.example/mcp', scope: 'mcp:read' }), /invalid_target/);
});

test('PKCE is required and checked; redirect URIs must match exactly', async () => {
  const client = await oidc.registerClient({
    redirect_uris: [REDIRECT],
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code'],
    response_types: ['code'],
  });
  const url = new URL(oidc.metadata.authorization_endpoint);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: REDIRECT,
    scope: 'mcp:read',
    resource: RESOURCE,
  }).toString();
  const noPkce = await oidc.authorizeHeadless(url);
  assert.equal(noPkce.searchParams.get('error'), 'invalid_request');
  const { verifier, challenge } = pkcePair();
  url.searchParams.set('code_challenge', challenge);
  url.searchParams.set('code_challenge_method', 'S256');
  const back = await oidc.authorizeHeadless(url);
  const code = back.searchParams.get('code')!;
  await assert.rejects(
    tokenRequest(oidc, client, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: pkcePair().verifier, resource: RESOURCE }),
    /invalid_grant/,
  );
  const wrongRedirect = new URL(url);
  wrongRedirect.searchParams.set('redirect_uri', 'http://127.0.0.1:40000/other');
  await assert.rejects(oidc.authorizeHeadless(wrongRedirect), /redirect_uri/);
  assert.ok(verifier.length > 40);
});

test('the scripted interaction can sign in another account, grant less, or deny', async () => {
  const client = await oidc.registerClient({
    redirect_uris: [REDIRECT],
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code'],
    response_types: ['code'],
  });
  await oidc.setInteraction({ accountId: 'carol' });
  const carol = await authorizationCodeFlow(oidc, { client, resource: RESOURCE, scope: 'mcp:read' });
  assert.equal(claims(carol.access_token).sub, 'carol');
  await oidc.setInteraction({ decision: 'deny' });
  await assert.rejects(authorizationCodeFlow(oidc, { client, resource: RESOURCE, scope: 'mcp:read' }), /access_denied/);
  await oidc.setInteraction({});
  const back = await authorizationCodeFlow(oidc, { client, resource: RESOURCE, scope: 'mcp:read' });
  assert.equal(claims(back.access_token).sub, 'test-user');
});

test('client ID metadata documents are served to the provider from the fixture', async () => {
  const clientId = 'https://app.example/oauth/client.json';
  await oidc.setClientMetadataDocument(clientId, {
    client_id: clientId,
    client_name: 'CIMD app',
    redirect_uris: [REDIRECT],
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code'],
    response_types: ['code'],
  });
  const tokens = await authorizationCodeFlow(oidc, { client: { client_id: clientId, redirect_uris: [REDIRECT] }, resource: RESOURCE, scope: 'mcp:read' });
  assert.equal(claims(tokens.access_token).client_id, clientId);
  assert.ok((await oidc.stats()).cimdFetches >= 1);
  await oidc.setClientMetadataDocument(clientId, undefined);
  await assert.rejects(
    authorizationCodeFlow(oidc, { client: { client_id: clientId, redirect_uris: [REDIRECT] }, resource: RESOURCE, scope: 'mcp:read' }),
    /invalid_client|client/,
  );
});

test('registration errors surface; stop() ends the child and is idempotent', async () => {
  await assert.rejects(oidc.registerClient({ redirect_uris: ['javascript:alert(1)'] }), /registration failed/);
  const extra = await startOidcServer();
  await extra.stop();
  await extra.stop();
  await assert.rejects(fetch(`${extra.issuer}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(2000) }));
  await assert.rejects(extra.setInteraction({}), /stopped/);
});
