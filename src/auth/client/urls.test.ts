/** URL rules: fetchable and openable schemes, canonical URIs, resource matching, well-known orders, redirect URIs. */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OAuthClientError } from './errors.js';
import {
  authorizationServerMetadataUrls,
  canonicalServerUri,
  protectedResourceMetadataUrls,
  requireBrowserUrl,
  requireFetchableUrl,
  requireRedirectUri,
  resourceCovers,
  sameRedirectUri,
} from './urls.js';

test('fetchable URLs: https always, http only with the opt-in, nothing else ever', () => {
  assert.equal(requireFetchableUrl('https://a.example/x', 'u', false).href, 'https://a.example/x');
  assert.throws(() => requireFetchableUrl('http://a.example/x', 'u', false), OAuthClientError);
  assert.equal(requireFetchableUrl('http://a.example/x', 'u', true).protocol, 'http:');
  for (const bad of ['javascript:alert(1)', 'data:text/plain,x', 'file:///etc/passwd', 'ftp://a/x', 'not a url', 'https://user:pw@a.example/']) {
    assert.throws(
      () => requireFetchableUrl(bad, 'u', true),
      (e: unknown) => e instanceof OAuthClientError && e.code === 'insecure_url',
      bad,
    );
  }
});

test('openable URLs: only http and https (javascript:, data:, file:, vbscript: refused)', () => {
  assert.equal(requireBrowserUrl('https://as.example/authorize?x=1').protocol, 'https:');
  assert.equal(requireBrowserUrl('http://127.0.0.1:9/authorize').protocol, 'http:');
  for (const bad of ['javascript:alert(1)', 'JavaScript:alert(1)', 'data:text/html,<script>', 'file:///c:/windows', 'vbscript:msgbox', 'ms-settings:', '']) {
    assert.throws(
      () => requireBrowserUrl(bad),
      (e: unknown) => e instanceof OAuthClientError && e.code === 'insecure_url',
      bad,
    );
  }
});

test('canonical server URI: lower-case scheme and host, no fragment, no lone trailing slash', () => {
  assert.equal(canonicalServerUri(new URL('HTTPS://MCP.Example.com/')), 'https://mcp.example.com');
  assert.equal(canonicalServerUri(new URL('https://mcp.example.com:8443/server/mcp#x')), 'https://mcp.example.com:8443/server/mcp');
});

test('a published resource covers the server at or below its path, same origin only', () => {
  const server = new URL('https://mcp.example.com/tenant/mcp');
  for (const ok of [
    'https://mcp.example.com',
    'https://mcp.example.com/',
    'https://mcp.example.com/tenant',
    'https://mcp.example.com/tenant/',
    'https://mcp.example.com/tenant/mcp',
    'HTTPS://MCP.EXAMPLE.COM/tenant/mcp',
  ]) {
    assert.ok(resourceCovers(ok, server), ok);
  }
  for (const bad of [
    'https://evil.example.com/tenant/mcp',
    'http://mcp.example.com/tenant/mcp',
    'https://mcp.example.com:444/tenant/mcp',
    'https://mcp.example.com/ten',
    'https://mcp.example.com/tenant/mcp/extra',
    'https://mcp.example.com/tenant/mcp#f',
    'https://mcp.example.com/tenant/mcp?a=1',
    'mcp.example.com',
    'javascript:1',
  ]) {
    assert.ok(!resourceCovers(bad, server), bad);
  }
});

test('protected resource metadata URLs: challenge URL, then path-based, then root', () => {
  const server = new URL('https://mcp.example.com/public/mcp');
  assert.deepEqual(protectedResourceMetadataUrls(server, new URL('https://mcp.example.com/custom.json')).map(String), [
    'https://mcp.example.com/custom.json',
    'https://mcp.example.com/.well-known/oauth-protected-resource/public/mcp',
    'https://mcp.example.com/.well-known/oauth-protected-resource',
  ]);
  assert.deepEqual(protectedResourceMetadataUrls(new URL('https://mcp.example.com/'), undefined).map(String), [
    'https://mcp.example.com/.well-known/oauth-protected-resource',
  ]);
});

test('authorization server metadata URLs in the MCP 2025-11-25 order', () => {
  assert.deepEqual(
    authorizationServerMetadataUrls(new URL('https://auth.example.com/tenant1')).map((c) => `${c.kind} ${c.url}`),
    [
      'oauth https://auth.example.com/.well-known/oauth-authorization-server/tenant1',
      'openid https://auth.example.com/.well-known/openid-configuration/tenant1',
      'openid https://auth.example.com/tenant1/.well-known/openid-configuration',
    ],
  );
  assert.deepEqual(
    authorizationServerMetadataUrls(new URL('https://auth.example.com/tenant1/')).map((c) => String(c.url))[0],
    'https://auth.example.com/.well-known/oauth-authorization-server/tenant1',
  );
  assert.deepEqual(
    authorizationServerMetadataUrls(new URL('https://auth.example.com')).map((c) => `${c.kind} ${c.url}`),
    ['oauth https://auth.example.com/.well-known/oauth-authorization-server', 'openid https://auth.example.com/.well-known/openid-configuration'],
  );
});

test('redirect URIs: https, or http on a loopback name; loopback ports may differ (RFC 8252)', () => {
  for (const ok of ['https://app.example.com/cb', 'http://localhost/cb', 'http://127.0.0.1:1234/cb', 'http://[::1]:1/cb'])
    assert.doesNotThrow(() => requireRedirectUri(ok), ok);
  for (const bad of ['http://app.example.com/cb', 'http://127.0.0.2/cb', 'custom:/cb', 'https://a/cb#x', 'https://u:p@a/cb', 'javascript:alert(1)']) {
    assert.throws(() => requireRedirectUri(bad), OAuthClientError, bad);
  }
  assert.ok(sameRedirectUri('http://127.0.0.1:1111/cb', 'http://127.0.0.1:2222/cb'));
  assert.ok(!sameRedirectUri('http://127.0.0.1:1111/cb', 'http://127.0.0.1:2222/other'));
  assert.ok(!sameRedirectUri('https://a.example:1/cb', 'https://a.example:2/cb'));
});
