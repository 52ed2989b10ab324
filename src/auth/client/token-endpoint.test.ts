/** Client authentication encodings and token response conversion. */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OAuthClientError } from './errors.js';
import { clientAuthentication, clientSecretBasic, formEncode, storedTokens } from './token-endpoint.js';

test('form encoding is application/x-www-form-urlencoded: -._* stay, space is +, the rest is percent-encoded', () => {
  assert.equal(formEncode('conformance-test-client'), 'conformance-test-client');
  assert.equal(formEncode('a.b_c*d'), 'a.b_c*d');
  assert.equal(formEncode("a b:c/d+e!'()~é"), 'a+b%3Ac%2Fd%2Be%21%27%28%29%7E%C3%A9');
});

test('client_secret_basic puts the encoded id and secret in HTTP Basic, nothing in the body', async () => {
  const headers = new Headers();
  const body = new URLSearchParams();
  await clientSecretBasic('p@ss word')({ issuer: 'https://as' }, { client_id: 'my-client' }, body, headers);
  assert.equal(headers.get('authorization'), `Basic ${btoa('my-client:p%40ss+word')}`);
  assert.equal(body.toString(), '');
});

test('client authentication methods need their secret or key', async () => {
  await assert.rejects(clientAuthentication({ clientId: 'c', method: 'client_secret_basic' }), OAuthClientError);
  await assert.rejects(clientAuthentication({ clientId: 'c', method: 'private_key_jwt' }), OAuthClientError);
  await assert.rejects(clientAuthentication({ clientId: 'c', method: 'private_key_jwt', privateKey: { pem: 'not a key', alg: 'ES256' } }), OAuthClientError);
  const none = await clientAuthentication({ clientId: 'c', method: 'none' });
  const body = new URLSearchParams();
  await none({ issuer: 'https://as' }, { client_id: 'c' }, body, new Headers());
  assert.equal(body.get('client_id'), 'c');
});

test('token responses: Bearer/DPoP only, expiry recorded, granted scope else requested, refresh token kept when not rotated', () => {
  const issued = { issuer: 'https://as', resource: 'https://mcp', requestedScope: 'a b', dpopJkt: undefined };
  const t = storedTokens({ access_token: 'x', token_type: 'bearer', expires_in: 60 }, issued, {
    ...issued,
    accessToken: 'old',
    tokenType: 'Bearer',
    refreshToken: 'keep',
  });
  assert.equal(t.tokenType, 'Bearer');
  assert.equal(t.scope, 'a b');
  assert.equal(t.refreshToken, 'keep');
  assert.ok(t.expiresAt! > Date.now() + 55_000);
  const rotated = storedTokens({ access_token: 'y', token_type: 'dpop', refresh_token: 'new', scope: 'a' }, { ...issued, dpopJkt: 'jkt' }, t);
  assert.equal(rotated.tokenType, 'DPoP');
  assert.equal(rotated.refreshToken, 'new');
  assert.equal(rotated.scope, 'a');
  assert.equal(rotated.dpopJkt, 'jkt');
  assert.throws(() => storedTokens({ access_token: 'z', token_type: 'mac' }, issued), OAuthClientError);
});
