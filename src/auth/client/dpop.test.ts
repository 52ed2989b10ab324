/**
 * DPoP (RFC 9449): the proofs themselves, and the OAuth client asking for DPoP-bound tokens,
 * presenting them with the DPoP scheme and a fresh proof per request, and retrying once with
 * a server-supplied nonce (token endpoint and MCP server).
 */

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { calculateJwkThumbprint, decodeProtectedHeader, importJWK, type JWK, jwtVerify } from 'jose';
import { FakeAuthServer, FakeResourceServer, json, Router, rpcPost, type Seen } from '../../../test/helpers/auth/fake-oauth.js';
import { DpopProver, dpopHtu } from './dpop.js';
import { OAuthClient } from './oauth-client.js';

async function verifyProof(proof: string): Promise<{ payload: Record<string, unknown>; jwk: JWK }> {
  const header = decodeProtectedHeader(proof);
  assert.equal(header.typ, 'dpop+jwt');
  const jwk = header.jwk as JWK;
  assert.equal(jwk.d, undefined, 'no private key material in the proof');
  const { payload } = await jwtVerify(proof, await importJWK(jwk, header.alg), { typ: 'dpop+jwt' });
  return { payload: payload as Record<string, unknown>, jwk };
}

test('a proof: typ dpop+jwt, public jwk, htm, htu without query or fragment, iat, unique jti, ath and nonce', async () => {
  const prover = await DpopProver.generate();
  const url = new URL('https://mcp.example.com/mcp?x=1#frag');
  assert.equal(dpopHtu(url), 'https://mcp.example.com/mcp');
  const a = await verifyProof(await prover.proof('post', url, 'the-token'));
  assert.equal(a.payload.htm, 'POST');
  assert.equal(a.payload.htu, 'https://mcp.example.com/mcp');
  assert.equal(a.payload.ath, createHash('sha256').update('the-token').digest('base64url'));
  assert.ok(Math.abs((a.payload.iat as number) - Date.now() / 1000) < 5);
  assert.equal(a.payload.nonce, undefined);
  assert.equal(await calculateJwkThumbprint(a.jwk, 'sha256'), await prover.thumbprint());

  const headers = new Headers({ 'dpop-nonce': 'n-1' });
  assert.equal(prover.noteNonce(url, headers), true);
  assert.equal(prover.noteNonce(url, headers), false, 'the same nonce again is no change');
  const b = await verifyProof(await prover.proof('GET', url));
  assert.equal(b.payload.nonce, 'n-1');
  assert.equal(b.payload.ath, undefined);
  assert.notEqual(b.payload.jti, a.payload.jti);
  const c = await verifyProof(await prover.proof('GET', new URL('https://other.example.com/')));
  assert.equal(c.payload.nonce, undefined, 'nonces are per origin');
});

test('DPoP-bound tokens: proof at the token endpoint (nonce retried), DPoP scheme and a fresh proof per MCP request (nonce retried)', async () => {
  const as = new FakeAuthServer({ metadata: { dpop_signing_alg_values_supported: ['ES256'] } });
  as.requireDpopNonce = 'as-nonce';
  const rs = new FakeResourceServer({ authorizationServers: [as.issuer] }, (t) => as.tokens.get(t));
  const proofs: Array<Record<string, unknown>> = [];
  let rsNonceChallenges = 0;
  const router = new Router().add(as.origin, as.handle).add(rs.url.origin, async (req: Seen) => {
    const auth = req.headers.get('authorization');
    if (req.url.pathname === rs.url.pathname && auth?.startsWith('DPoP ')) {
      const proof = req.headers.get('dpop');
      assert.ok(proof, 'a DPoP proof with every request');
      const { payload, jwk } = await verifyProof(proof);
      const token = auth.slice(5);
      assert.equal(payload.htm, req.method);
      assert.equal(payload.htu, dpopHtu(req.url));
      assert.equal(payload.ath, createHash('sha256').update(token).digest('base64url'));
      assert.equal(await calculateJwkThumbprint(jwk, 'sha256'), as.tokens.get(token)!.jkt, 'the key the token is bound to');
      proofs.push(payload);
      if (payload.nonce !== 'rs-nonce') {
        rsNonceChallenges++;
        return json({ error: 'use_dpop_nonce' }, 401, { 'www-authenticate': 'DPoP error="use_dpop_nonce"', 'dpop-nonce': 'rs-nonce' });
      }
    }
    return rs.handle(req);
  });
  const oauth = new OAuthClient({
    serverUrl: rs.url,
    grant: { type: 'authorization_code', redirectUri: 'http://127.0.0.1:9/cb', userAgent: as.userAgent },
    fetch: router.fetch,
    dpop: true,
  });
  const f = oauth.wrapFetch(router.fetch);
  assert.equal((await rpcPost(f, rs.url, 'tools/list')).status, 200);
  assert.equal((await rpcPost(f, rs.url, 'tools/call', 2)).status, 200);

  // token endpoint: first proof without nonce → use_dpop_nonce → retried with it
  assert.equal(as.tokenRequests.length, 2);
  assert.equal((await verifyProof(as.tokenRequests[1]!.dpop!)).payload.nonce, 'as-nonce');
  assert.equal(as.authorizations[0]!.searchParams.get('dpop_jkt'), await calculateJwkThumbprint((await verifyProof(as.tokenRequests[1]!.dpop!)).jwk, 'sha256'));
  const tokens = (await oauth.tokens())!;
  assert.equal(tokens.tokenType, 'DPoP');
  // MCP server: one nonce challenge, then the nonce is used; a fresh jti every time
  assert.equal(rsNonceChallenges, 1);
  assert.equal(new Set(proofs.map((p) => p.jti)).size, proofs.length);
  assert.equal(as.authorizations.length, 1, 'a nonce challenge is not a reason to re-authorize');
});

test('DPoP stays off where the authorization server does not advertise it', async () => {
  const as = new FakeAuthServer();
  const rs = new FakeResourceServer({ authorizationServers: [as.issuer] }, (t) => as.tokens.get(t));
  const router = new Router().add(as.origin, as.handle).add(rs.url.origin, rs.handle);
  const oauth = new OAuthClient({
    serverUrl: rs.url,
    grant: { type: 'authorization_code', redirectUri: 'http://127.0.0.1:9/cb', userAgent: as.userAgent },
    fetch: router.fetch,
    dpop: true,
  });
  assert.equal((await rpcPost(oauth.wrapFetch(router.fetch), rs.url, 'tools/list')).status, 200);
  assert.equal(as.tokenRequests[0]!.dpop, null);
  assert.equal((await oauth.tokens())!.tokenType, 'Bearer');
});
