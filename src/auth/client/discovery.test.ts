/** Discovery: where documents are looked for, in which order, and which ones are refused. */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { json, Router } from '../../../test/helpers/auth/fake-oauth.js';
import { discoverAuthorizationServer, discoverLegacyAuthorizationServer, discoverProtectedResource } from './discovery.js';
import { OAuthClientError } from './errors.js';
import type { HttpContext } from './http.js';

function context(documents: Record<string, unknown>, extra: Partial<HttpContext> = {}): { ctx: HttpContext; router: Router } {
  const router = new Router();
  const origins = new Set(Object.keys(documents).map((u) => new URL(u).origin));
  for (const origin of origins) {
    router.add(origin, (req) => (req.url.href in documents ? json(documents[req.url.href]) : json({ error: 'not_found' }, 404)));
  }
  return { ctx: { fetch: router.fetch, timeoutMs: 2000, allowInsecure: false, ...extra }, router };
}

const SERVER = new URL('https://mcp.example.com/public/mcp');

test('protected resource metadata: the challenge URL first, then path-based, then root; MCP-Protocol-Version sent', async () => {
  const { ctx, router } = context(
    {
      'https://mcp.example.com/.well-known/oauth-protected-resource': {
        resource: 'https://mcp.example.com',
        authorization_servers: ['https://as.example.com'],
      },
    },
    { protocolVersion: '2025-11-25' },
  );
  const found = await discoverProtectedResource(ctx, SERVER, 'https://mcp.example.com/custom/prm.json');
  assert.equal(found!.metadata.resource, 'https://mcp.example.com');
  assert.deepEqual(
    router.seen.map((s) => s.url.pathname),
    ['/custom/prm.json', '/.well-known/oauth-protected-resource/public/mcp', '/.well-known/oauth-protected-resource'],
  );
  assert.ok(router.seen.every((s) => s.headers.get('mcp-protocol-version') === '2025-11-25'));
});

test('the path-based document wins: the root one is not fetched', async () => {
  const { ctx, router } = context({
    'https://mcp.example.com/.well-known/oauth-protected-resource/public/mcp': { resource: SERVER.href, authorization_servers: ['https://as.example.com'] },
  });
  await discoverProtectedResource(ctx, SERVER, undefined);
  assert.equal(router.seen.length, 1);
});

test('a document for another resource is refused (not skipped); malformed documents are errors', async () => {
  const { ctx } = context({ 'https://mcp.example.com/.well-known/oauth-protected-resource/public/mcp': { resource: 'https://evil.example.com/public/mcp' } });
  await assert.rejects(discoverProtectedResource(ctx, SERVER, undefined), (e: unknown) => e instanceof OAuthClientError && e.code === 'resource_mismatch');
  const { ctx: c2 } = context({ 'https://mcp.example.com/.well-known/oauth-protected-resource/public/mcp': { authorization_servers: [] } });
  await assert.rejects(discoverProtectedResource(c2, SERVER, undefined), (e: unknown) => e instanceof OAuthClientError && e.code === 'discovery_failed');
  const { ctx: c3 } = context({
    'https://mcp.example.com/.well-known/oauth-protected-resource/public/mcp': { resource: SERVER.href, authorization_servers: 'https://as' },
  });
  await assert.rejects(discoverProtectedResource(c3, SERVER, undefined), (e: unknown) => e instanceof OAuthClientError && e.code === 'discovery_failed');
});

test('no resource metadata anywhere: undefined (a 2025-03-26 server); a non-https challenge URL is refused', async () => {
  const { ctx } = context({ 'https://mcp.example.com/other': {} });
  assert.equal(await discoverProtectedResource(ctx, SERVER, undefined), undefined);
  await assert.rejects(
    discoverProtectedResource(ctx, SERVER, 'http://mcp.example.com/prm'),
    (e: unknown) => e instanceof OAuthClientError && e.code === 'insecure_url',
  );
  await assert.rejects(
    discoverProtectedResource(ctx, SERVER, 'javascript:alert(1)'),
    (e: unknown) => e instanceof OAuthClientError && e.code === 'insecure_url',
  );
});

test('authorization server metadata: tried in order, issuer compared exactly', async () => {
  const issuer = 'https://auth.example.com/tenant1';
  const { ctx, router } = context({
    'https://auth.example.com/tenant1/.well-known/openid-configuration': {
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
    },
  });
  const found = await discoverAuthorizationServer(ctx, issuer);
  assert.equal(found.source, 'openid');
  assert.deepEqual(
    router.seen.map((s) => s.url.pathname),
    ['/.well-known/oauth-authorization-server/tenant1', '/.well-known/openid-configuration/tenant1', '/tenant1/.well-known/openid-configuration'],
  );

  for (const wrong of ['https://attacker.example.com', `${issuer}/`, 'https://AUTH.example.com/tenant1']) {
    const { ctx: c } = context({ 'https://auth.example.com/.well-known/oauth-authorization-server/tenant1': { issuer: wrong } });
    await assert.rejects(discoverAuthorizationServer(c, issuer), (e: unknown) => e instanceof OAuthClientError && e.code === 'issuer_mismatch', wrong);
  }
  const { ctx: none } = context({ 'https://auth.example.com/x': {} });
  await assert.rejects(discoverAuthorizationServer(none, issuer), (e: unknown) => e instanceof OAuthClientError && e.code === 'discovery_failed');
  await assert.rejects(
    discoverAuthorizationServer(none, 'https://auth.example.com/?q=1'),
    (e: unknown) => e instanceof OAuthClientError && e.code === 'insecure_url',
  );
});

test('2025-03-26: metadata at the MCP server’s origin, else the default endpoints there', async () => {
  const server = new URL('https://api.example.com/v1/mcp');
  const { ctx } = context({
    'https://api.example.com/.well-known/oauth-authorization-server': {
      issuer: 'https://api.example.com/oauth',
      token_endpoint: 'https://api.example.com/oauth/token',
    },
  });
  const found = await discoverLegacyAuthorizationServer(ctx, server);
  assert.equal(found.source, 'legacy-metadata');
  assert.equal(found.metadata.token_endpoint, 'https://api.example.com/oauth/token');
  const { ctx: empty } = context({ 'https://api.example.com/nothing': {} });
  const defaults = await discoverLegacyAuthorizationServer(empty, server);
  assert.equal(defaults.source, 'legacy-defaults');
  assert.deepEqual(
    [defaults.metadata.authorization_endpoint, defaults.metadata.token_endpoint, defaults.metadata.registration_endpoint],
    ['https://api.example.com/authorize', 'https://api.example.com/token', 'https://api.example.com/register'],
  );
});

test('metadata documents are size-capped and time-bounded', async () => {
  const router = new Router().add(
    'https://big.example.com',
    () => new Response('{"resource":"' + 'x'.repeat(400_000) + '"}', { headers: { 'content-type': 'application/json' } }),
  );
  const ctx: HttpContext = { fetch: router.fetch, timeoutMs: 100, allowInsecure: false };
  await assert.rejects(
    discoverProtectedResource(ctx, new URL('https://big.example.com/mcp'), undefined),
    (e: unknown) => e instanceof OAuthClientError && e.code === 'discovery_failed',
  );
  const slow = {
    ...ctx,
    fetch: ((_input: string, init: RequestInit) =>
      new Promise<Response>((_, reject) => init.signal!.addEventListener('abort', () => reject(init.signal!.reason)))) as unknown as typeof fetch,
  };
  // AbortSignal.timeout() does not hold the event loop open; a timer does, for the test's sake
  const keepAlive = setTimeout(() => undefined, 5000);
  try {
    await assert.rejects(
      discoverProtectedResource(slow, new URL('https://slow.example.com/mcp'), undefined),
      (e: unknown) => e instanceof OAuthClientError && e.code === 'timeout',
    );
  } finally {
    clearTimeout(keepAlive);
  }
});
