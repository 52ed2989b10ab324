/**
 * JWT validation edge cases with locally minted tokens (a JWKS served on loopback): `typ`,
 * refused algorithms, `nbf`, unknown keys, claims mapping. The real authorization server's
 * tokens are covered in bearer.test.ts.
 */

import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import * as jose from 'jose';
import { createJwtVerifier } from './jwt-verifier.js';
import type { AuthError } from './types.js';

const ISSUER = 'https://as.example';
const AUDIENCE = 'https://mcp.example/mcp';
let server: Server;
let jwksUri: string;
let key: CryptoKey;
let jwksFetches = 0;
const kid = 'k1';

before(async () => {
  const pair = await jose.generateKeyPair('ES256', { extractable: true });
  key = pair.privateKey;
  const publicJwk = { ...(await jose.exportJWK(pair.publicKey)), kid, alg: 'ES256', use: 'sig' };
  server = createServer((_req, res) => {
    jwksFetches++;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [publicJwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  jwksUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
});

after(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function verifier(extra: Partial<Parameters<typeof createJwtVerifier>[0]> = {}) {
  return createJwtVerifier({
    issuer: ISSUER,
    audience: AUDIENCE,
    jwksUri,
    clockToleranceSeconds: 0,
    fetchGuard: { dangerouslyAllowHttpLoopbackForTesting: true },
    ...extra,
  });
}

async function mint(claims: jose.JWTPayload = {}, header: Partial<jose.JWTHeaderParameters> = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const payload: jose.JWTPayload = { iss: ISSUER, aud: AUDIENCE, sub: 'user-1', iat: now, exp: now + 300, jti: 'j1', client_id: 'c1', scope: 'a b', ...claims };
  return new jose.SignJWT(payload).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid, ...header }).sign(key);
}

const invalid = (pattern: RegExp) => (e: AuthError) => e.code === 'invalid_token' && pattern.test(e.message);

test('a good token maps to AuthInfo', async () => {
  const info = await verifier().verify(await mint());
  assert.equal(info.issuer, ISSUER);
  assert.equal(info.subject, 'user-1');
  assert.equal(info.clientId, 'c1');
  assert.deepEqual(info.scopes, ['a', 'b']);
  assert.deepEqual(info.audience, [AUDIENCE]);
  assert.equal(info.tokenId, 'j1');
  assert.equal(typeof info.expiresAt, 'number');
});

test('typ must be at+jwt (or application/at+jwt) unless disabled', async () => {
  await assert.rejects(verifier().verify(await mint({}, { typ: 'JWT' })), invalid(/typ/));
  await verifier().verify(await mint({}, { typ: 'application/at+jwt' }));
  await verifier({ typ: false }).verify(await mint({}, { typ: 'JWT' }));
});

test('alg none and HMAC tokens are refused; HMAC cannot even be configured', async () => {
  const unsigned = new jose.UnsecuredJWT({ client_id: 'c1' }).setIssuer(ISSUER).setAudience(AUDIENCE).setExpirationTime('5m').encode();
  await assert.rejects(verifier().verify(unsigned), invalid(/./));
  const hmac = await new jose.SignJWT({ client_id: 'c1' })
    .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setExpirationTime('5m')
    .sign(new Uint8Array(32));
  await assert.rejects(verifier().verify(hmac), invalid(/./));
  assert.throws(() => verifier({ algorithms: ['HS256'] }), TypeError);
  assert.throws(() => verifier({ algorithms: ['none'] }), TypeError);
});

test('claims: audience, issuer, expiry, not-before, required exp', async () => {
  await assert.rejects(verifier().verify(await mint({ aud: 'https://other.example/mcp' })), invalid(/not issued for this resource/));
  await assert.rejects(verifier().verify(await mint({ iss: 'https://evil.example' })), invalid(/another authorization server/));
  await assert.rejects(verifier().verify(await mint({ exp: Math.floor(Date.now() / 1000) - 10 })), invalid(/expired/));
  await assert.rejects(verifier().verify(await mint({ nbf: Math.floor(Date.now() / 1000) + 60 })), invalid(/nbf/));
  const noExp = await new jose.SignJWT({ client_id: 'c1' })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .sign(key);
  await assert.rejects(verifier().verify(noExp), invalid(/exp/));
  // a token for several audiences is fine when one is this resource
  await verifier().verify(await mint({ aud: ['https://other.example', AUDIENCE] }));
  // the clock tolerance admits a just-expired token
  await verifier({ clockToleranceSeconds: 30 }).verify(await mint({ exp: Math.floor(Date.now() / 1000) - 10 }));
});

test('a token signed by an unknown key is invalid; the JWKS is fetched once and cached', async () => {
  const v = verifier({ cooldownMs: 60_000 });
  const before = jwksFetches;
  await v.verify(await mint());
  await v.verify(await mint());
  assert.equal(jwksFetches - before, 1);
  const other = await jose.generateKeyPair('ES256');
  const forged = await new jose.SignJWT({ client_id: 'c1' })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'k2' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setExpirationTime('5m')
    .sign(other.privateKey);
  await assert.rejects(v.verify(forged), invalid(/unknown key/));
  const sameKid = await new jose.SignJWT({ client_id: 'c1' })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setExpirationTime('5m')
    .sign(other.privateKey);
  await assert.rejects(v.verify(sameKid), invalid(/signature/));
});

test('configuration errors throw TypeError', () => {
  assert.throws(() => createJwtVerifier({ issuer: ISSUER, audience: [], jwksUri }), TypeError);
  assert.throws(() => createJwtVerifier({ issuer: '', audience: AUDIENCE, jwksUri }), TypeError);
  assert.throws(() => createJwtVerifier({ issuer: ISSUER, audience: AUDIENCE, jwksUri: 'not a url' }), TypeError);
});
