/** `WWW-Authenticate` parsing: the shapes servers send, garbage, and linear time. */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isDpopNonceChallenge, parseWwwAuthenticate, resourceChallenge, splitScopes } from './www-authenticate.js';

test('a Bearer challenge with quoted parameters (RFC 9728 resource_metadata, scope)', () => {
  const [c] = parseWwwAuthenticate('Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", scope="files:read files:write"');
  assert.equal(c!.scheme, 'bearer');
  assert.equal(c!.params.resource_metadata, 'https://mcp.example.com/.well-known/oauth-protected-resource');
  assert.equal(c!.params.scope, 'files:read files:write');
});

test('several challenges, bare tokens, case-insensitive names, escapes, first occurrence wins', () => {
  const list = parseWwwAuthenticate(
    'Basic realm="x", DPoP algs="ES256", error=use_dpop_nonce, BEARER Error="insufficient_scope", error_description="say \\"hi\\"", error="second"',
  );
  assert.deepEqual(
    list.map((c) => c.scheme),
    ['basic', 'dpop', 'bearer'],
  );
  assert.equal(list[1]!.params.error, 'use_dpop_nonce');
  assert.equal(list[2]!.params.error, 'insufficient_scope');
  assert.equal(list[2]!.params.error_description, 'say "hi"');
});

test('token68 credentials are told apart from parameters', () => {
  const list = parseWwwAuthenticate('Negotiate abc+/def==, Bearer realm="r"');
  assert.equal(list[0]!.scheme, 'negotiate');
  assert.equal(list[0]!.token68, 'abc+/def==');
  assert.equal(list[1]!.params.realm, 'r');
});

test('garbage never throws; empty and null give no challenges', () => {
  assert.deepEqual(parseWwwAuthenticate(null), []);
  assert.deepEqual(parseWwwAuthenticate(''), []);
  for (const junk of ['"', '=', ',,,', 'Bearer ="x"', 'Bearer a="unterminated', '\u0000\u00ff Bearer x=1', 'Bearer scope=']) {
    assert.doesNotThrow(() => parseWwwAuthenticate(junk), junk);
  }
  assert.equal(parseWwwAuthenticate('Bearer a="unterminated')[0]!.params.a, 'unterminated');
});

test('linear time on hostile input', () => {
  // 400k characters each: a linear parser takes milliseconds, a quadratic one (~10^11 steps)
  // minutes, so the bound separates them even on a machine loaded many times over.
  const big = 'Bearer ' + 'a="\\'.repeat(100_000) + ', x'.repeat(100_000);
  const started = Date.now();
  parseWwwAuthenticate(big);
  parseWwwAuthenticate('Bearer ' + ','.repeat(200_000) + '"'.repeat(200_000));
  assert.ok(Date.now() - started < 20_000);
});

test('resourceChallenge merges Bearer and DPoP challenges; isDpopNonceChallenge finds use_dpop_nonce', () => {
  const headers = new Headers();
  headers.append('www-authenticate', 'DPoP resource_metadata="https://m/prm"');
  headers.append('www-authenticate', 'Bearer scope="a b", error="insufficient_scope"');
  assert.deepEqual(resourceChallenge(headers), { scheme: 'dpop', resourceMetadata: 'https://m/prm', scope: 'a b', error: 'insufficient_scope' });
  assert.equal(resourceChallenge(new Headers({ 'www-authenticate': 'Basic realm="x"' })), undefined);
  assert.equal(isDpopNonceChallenge(new Headers({ 'www-authenticate': 'DPoP error="use_dpop_nonce"' })), true);
  assert.equal(isDpopNonceChallenge(new Headers({ 'www-authenticate': 'Bearer error="use_dpop_nonce"' })), false);
});

test('splitScopes drops empties and duplicates, keeps order', () => {
  assert.deepEqual(splitScopes(' a  b a\tc '), ['a', 'b', 'c']);
  assert.deepEqual(splitScopes(undefined), []);
});
