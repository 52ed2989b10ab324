/** The client ID metadata document builder (SEP-991). */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OAuthClientError } from './errors.js';
import { clientMetadataDocument } from './metadata-document.js';

test('the document names itself as client_id and carries name, redirect URIs, grants and auth method', () => {
  const doc = clientMetadataDocument({
    clientId: 'https://app.example.com/oauth/client.json',
    clientName: 'App',
    redirectUris: ['http://127.0.0.1:3000/callback'],
    clientUri: 'https://app.example.com',
  });
  assert.deepEqual(doc, {
    client_id: 'https://app.example.com/oauth/client.json',
    client_name: 'App',
    redirect_uris: ['http://127.0.0.1:3000/callback'],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    client_uri: 'https://app.example.com',
  });
  const withKeys = clientMetadataDocument({
    clientId: 'https://app.example.com/c.json',
    clientName: 'App',
    redirectUris: ['https://app.example.com/cb'],
    jwks: { keys: [{ kty: 'EC' }] },
    refreshTokens: false,
  });
  assert.equal(withKeys.token_endpoint_auth_method, 'private_key_jwt');
  assert.deepEqual(withKeys.grant_types, ['authorization_code']);
});

test('the client id must be an https URL with a path; redirect URIs must be https or loopback', () => {
  for (const clientId of ['http://app.example.com/c.json', 'https://app.example.com', 'https://app.example.com/']) {
    assert.throws(() => clientMetadataDocument({ clientId, clientName: 'A', redirectUris: ['https://a/cb'] }), OAuthClientError, clientId);
  }
  assert.throws(() => clientMetadataDocument({ clientId: 'https://a.example/c.json', clientName: 'A', redirectUris: [] }), OAuthClientError);
  assert.throws(
    () => clientMetadataDocument({ clientId: 'https://a.example/c.json', clientName: 'A', redirectUris: ['http://evil.example/cb'] }),
    OAuthClientError,
  );
});
