/**
 * Introspection edge cases against a scripted endpoint on loopback: what an answer must say to
 * be accepted, caching bounds and sharing, failures. Revocation against the real
 * authorization server is covered in bearer.test.ts.
 */

import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { createIntrospectionVerifier, type IntrospectionVerifierOptions } from './introspection-verifier.js';
import type { AuthError } from './types.js';

const AUD = 'https://mcp.example/mcp';
let server: Server;
let endpoint: string;
let calls = 0;
let lastAuth: string | undefined;
let lastBody = '';
let answer: (token: string) => { status: number; body: unknown; delayMs?: number } = () => ({ status: 200, body: { active: false } });

before(async () => {
  server = createServer((req, res) => {
    calls++;
    lastAuth = req.headers.authorization;
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      lastBody = body;
      const a = answer(new URLSearchParams(body).get('token') ?? '');
      setTimeout(() => res.writeHead(a.status, { 'content-type': 'application/json' }).end(JSON.stringify(a.body)), a.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/introspect`;
});

after(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const soon = (): number => Math.floor(Date.now() / 1000) + 300;

function verifier(extra: Partial<IntrospectionVerifierOptions> = {}) {
  return createIntrospectionVerifier({ endpoint, clientId: 'rs', clientSecret: 's3cret', audience: AUD, issuer: 'https://as.example', ...extra });
}

const invalid = (pattern: RegExp) => (e: AuthError) => e.code === 'invalid_token' && pattern.test(e.message);

test('an active access token for this audience is accepted and mapped; the client authenticates', async () => {
  answer = () => ({
    status: 200,
    body: { active: true, client_id: 'c1', sub: 'u1', scope: 'x y', aud: AUD, exp: soon(), iss: 'https://as.example', token_type: 'Bearer' },
  });
  const info = await verifier({ cacheTtlMs: 0 }).verify('tok-1');
  assert.equal(info.subject, 'u1');
  assert.deepEqual(info.scopes, ['x', 'y']);
  assert.equal(lastAuth, `Basic ${btoa('rs:s3cret')}`);
  assert.equal(new URLSearchParams(lastBody).get('token_type_hint'), 'access_token');
  await verifier({ cacheTtlMs: 0, authMethod: 'client_secret_post' }).verify('tok-1');
  assert.equal(lastAuth, undefined);
  assert.equal(new URLSearchParams(lastBody).get('client_secret'), 's3cret');
});

test('inactive, foreign-audience, audience-less, expired, foreign-issuer and non-access tokens are refused', async () => {
  const v = verifier({ cacheTtlMs: 0 });
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ active: false }, /not active/],
    [{ active: 'true', aud: AUD }, /not active/],
    [{ active: true, aud: 'https://other.example', exp: soon() }, /not issued for this resource/],
    [{ active: true, exp: soon() }, /not issued for this resource/],
    [{ active: true, aud: AUD, exp: Math.floor(Date.now() / 1000) - 60 }, /expired/],
    [{ active: true, aud: AUD, exp: soon(), iss: 'https://evil.example' }, /another authorization server/],
    [{ active: true, aud: AUD, exp: soon(), token_type: 'refresh_token' }, /not an access token/],
  ];
  for (const [body, pattern] of cases) {
    answer = () => ({ status: 200, body });
    await assert.rejects(v.verify('t'), invalid(pattern), JSON.stringify(body));
  }
});

test('endpoint failures are "unavailable", not "invalid"', async () => {
  const unavailable = (e: AuthError) => e.code === 'verifier_unavailable';
  answer = () => ({ status: 500, body: {} });
  await assert.rejects(verifier({ cacheTtlMs: 0 }).verify('t'), unavailable);
  answer = () => ({ status: 200, body: [1, 2] });
  await assert.rejects(verifier({ cacheTtlMs: 0 }).verify('t'), unavailable);
  answer = () => ({ status: 200, body: { active: true }, delayMs: 500 });
  await assert.rejects(verifier({ cacheTtlMs: 0, timeoutMs: 100 }).verify('t'), unavailable);
  await assert.rejects(
    createIntrospectionVerifier({ endpoint: 'http://127.0.0.1:1/x', clientId: 'a', clientSecret: 'b', audience: AUD }).verify('t'),
    unavailable,
  );
});

test('answers are cached (never past exp), concurrent checks share one request, and the cache is bounded', async () => {
  let now = 1_000_000_000_000;
  const exp = Math.floor(now / 1000) + 3;
  answer = () => ({ status: 200, body: { active: true, aud: AUD, exp, client_id: 'c' } });
  const v = verifier({ cacheTtlMs: 10_000, now: () => now, clockToleranceSeconds: 0 });
  calls = 0;
  await Promise.all([v.verify('same'), v.verify('same'), v.verify('same')]);
  assert.equal(calls, 1, 'one request for concurrent checks');
  await v.verify('same');
  assert.equal(calls, 1, 'served from the cache');
  now += 3500; // past exp although within the cache ttl
  await assert.rejects(v.verify('same'), invalid(/expired/));
  // negative answers are cached briefly
  answer = () => ({ status: 200, body: { active: false } });
  calls = 0;
  await assert.rejects(v.verify('bad'));
  await assert.rejects(v.verify('bad'));
  assert.equal(calls, 1);
  now += 2500;
  await assert.rejects(v.verify('bad'));
  assert.equal(calls, 2);
  // bounded: the oldest answers go first
  answer = () => ({ status: 200, body: { active: true, aud: AUD, exp: Math.floor(now / 1000) + 300, client_id: 'c' } });
  const small = verifier({ maxCacheEntries: 10, now: () => now });
  calls = 0;
  for (let i = 0; i < 25; i++) await small.verify(`t${i}`);
  assert.equal(calls, 25);
  await small.verify('t24');
  assert.equal(calls, 25, 'the newest is still cached');
  await small.verify('t0');
  assert.equal(calls, 26, 'the oldest was dropped');
});
