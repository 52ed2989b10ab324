/**
 * The auth scenarios' set-up (the suite itself runs them end to end in conformance.test.ts):
 * which grant and credentials each scenario's context leads to, and the headless user agent.
 */

import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import {
  AuthScenarioFailure,
  authClientOptions,
  CONFORMANCE_CIMD_URL,
  CONFORMANCE_REDIRECT_URI,
  headlessUserAgent,
  isAuthScenario,
  runAuthScenario,
} from './auth-scenarios.js';

const URL_ = 'http://localhost:9/mcp';

test('every auth scenario gets the OAuth client an application would configure for it', async () => {
  const code = authClientOptions('auth/metadata-default', URL_, undefined);
  assert.equal(code.grant.type, 'authorization_code');
  assert.equal(code.grant.type === 'authorization_code' && code.grant.redirectUri, CONFORMANCE_REDIRECT_URI);
  assert.equal(code.clientIdMetadataDocumentUrl, CONFORMANCE_CIMD_URL);
  assert.equal(code.dangerouslyAllowInsecureHttp, true);
  assert.equal(code.dpop, false);
  assert.equal(authClientOptions('auth/dpop-nonce', URL_, undefined).dpop, true);

  const pre = authClientOptions('auth/pre-registration', URL_, { client_id: 'pre', client_secret: 'sec', issuer: 'http://localhost:1' });
  const lookup = pre.preRegistered as (issuer: string) => unknown;
  assert.deepEqual(lookup('http://localhost:1'), { clientId: 'pre', clientSecret: 'sec' });
  assert.equal(lookup('http://localhost:2'), undefined, 'bound to the issuer the context names');

  const cc = authClientOptions('auth/client-credentials-jwt', URL_, { client_id: 'c', private_key_pem: 'PEM', signing_algorithm: 'ES256' });
  assert.equal(cc.grant.type, 'client_credentials');
  assert.deepEqual((cc.preRegistered as (i: string) => unknown)('x'), { clientId: 'c', privateKey: { pem: 'PEM', alg: 'ES256' } });

  const wif = authClientOptions('auth/wif-jwt-bearer', URL_, { client_id: 'w', valid_jwt: 'jwt' });
  assert.equal(wif.grant.type, 'jwt_bearer');
  const xaa = authClientOptions('auth/enterprise-managed-authorization', URL_, {
    client_id: 'x',
    client_secret: 's',
    idp_client_id: 'i',
    idp_id_token: 't',
    idp_issuer: 'http://idp',
    idp_token_endpoint: 'http://idp/token',
  });
  assert.equal(xaa.grant.type, 'enterprise_managed');
  assert.throws(
    () => authClientOptions('auth/client-credentials-basic', URL_, { client_id: 'c' }),
    AuthScenarioFailure,
    'a missing context field is a clear failure',
  );

  assert.ok(isAuthScenario('auth/iss-supported'));
  assert.ok(!isAuthScenario('tools_call'));
  await assert.rejects(runAuthScenario('tools_call', URL_), AuthScenarioFailure);
});

test('the headless user agent returns where the authorization endpoint redirects, without following it', async () => {
  let hits = 0;
  const server = createServer((req, res) => {
    hits++;
    if (req.url?.startsWith('/authorize')) {
      res.writeHead(302, { location: 'http://localhost:3000/callback?code=c&state=s' }).end();
    } else res.writeHead(200).end('no redirect');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  try {
    const back = await headlessUserAgent({
      url: new URL(`http://127.0.0.1:${port}/authorize?x=1`),
      state: 's',
      redirectUri: CONFORMANCE_REDIRECT_URI,
      issuer: 'x',
    });
    assert.equal(back.href, 'http://localhost:3000/callback?code=c&state=s');
    await assert.rejects(
      headlessUserAgent({ url: new URL(`http://127.0.0.1:${port}/other`), state: 's', redirectUri: CONFORMANCE_REDIRECT_URI, issuer: 'x' }),
      AuthScenarioFailure,
    );
    assert.equal(hits, 2, 'the redirect target is never fetched');
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
