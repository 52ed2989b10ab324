import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { after, before, test } from 'node:test';
import { createGuardedFetch, FetchGuardError, guardSocket, isRefusedAddress, type ResolvedAddress } from './fetch-guard.js';

/** A loopback server whose routes a test sets; records every request it receives. */
let server: Server;
let base: string;
const seen: Array<{ url: string; headers: IncomingMessage['headers'] }> = [];
let connections = 0;
const routes = new Map<string, (req: IncomingMessage, res: ServerResponse) => void>();

before(async () => {
  server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    const route = routes.get(new URL(req.url ?? '/', 'http://x').pathname);
    if (route === undefined) {
      res.writeHead(404).end();
      return;
    }
    route(req, res);
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  routes.set('/doc', (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
  routes.set('/to-metadata', (_req, res) => res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end());
  routes.set('/to-file', (_req, res) => res.writeHead(302, { location: 'file:///etc/passwd' }).end());
  routes.set('/to-private-name', (_req, res) => res.writeHead(307, { location: 'http://internal.test/admin' }).end());
  routes.set('/loop', (_req, res) => res.writeHead(302, { location: '/loop' }).end());
  routes.set('/to-doc', (_req, res) => res.writeHead(302, { location: '/doc' }).end());
  routes.set('/to-other-origin', (_req, res) => res.writeHead(302, { location: `http://loopback.test:${(server.address() as AddressInfo).port}/doc` }).end());
  routes.set('/to-other-origin-307', (_req, res) =>
    res.writeHead(307, { location: `http://loopback.test:${(server.address() as AddressInfo).port}/doc` }).end(),
  );
  routes.set('/to-other-origin-303', (_req, res) =>
    res.writeHead(303, { location: `http://loopback.test:${(server.address() as AddressInfo).port}/doc` }).end(),
  );
  routes.set('/to-other-then-back', (_req, res) =>
    res.writeHead(302, { location: `http://loopback.test:${(server.address() as AddressInfo).port}/to-doc` }).end(),
  );
  routes.set('/big-declared', (_req, res) => res.writeHead(200, { 'content-length': String(1024 * 1024) }).end(Buffer.alloc(1024 * 1024)));
  routes.set('/big-chunked', (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    for (let i = 0; i < 64; i++) res.write(Buffer.alloc(16 * 1024, 32));
    res.end();
  });
  routes.set('/hang', () => {
    // never answers
  });
  routes.set('/drip', (_req, res) => {
    res.writeHead(200);
    const timer = setInterval(() => res.write(' '), 50);
    res.on('close', () => clearInterval(timer));
  });
});

after(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** A resolver that answers from a table and counts its calls; unknown names fail like DNS. */
function fakeDns(table: Record<string, string[]>): { resolve: (h: string) => Promise<ResolvedAddress[]>; calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    resolve: async (hostname) => {
      calls.push(hostname);
      const answer = table[hostname];
      if (answer === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
      return answer.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }) as ResolvedAddress);
    },
  };
}

async function refused(promise: Promise<unknown>, code: string): Promise<FetchGuardError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof FetchGuardError, `expected a FetchGuardError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    return error;
  }
  assert.fail(`expected a refusal with ${code}`);
}

test('isRefusedAddress covers the private, loopback, link-local, ULA, multicast, unspecified and mapped ranges', () => {
  for (const a of [
    '127.0.0.1',
    '127.255.0.9',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.251',
    '255.255.255.255',
    '192.0.2.10',
    '::1',
    '::',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:8.8.8.8',
    '::127.0.0.1',
    '64:ff9b::a00:1',
    '2002:7f00:1::',
    '2001:0:4136:e378::1',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'fe80::1%eth0',
    'fec0::1',
    'ff02::1',
    'not-an-ip',
  ]) {
    assert.equal(isRefusedAddress(a), true, a);
  }
  for (const a of ['8.8.8.8', '93.184.216.34', '172.32.0.1', '192.169.0.1', '2606:4700:4700::1111', '2a00:1450:4001::200e']) {
    assert.equal(isRefusedAddress(a), false, a);
  }
  assert.equal(isRefusedAddress('127.0.0.1', true), false);
  assert.equal(isRefusedAddress('::1', true), false);
  assert.equal(isRefusedAddress('10.0.0.1', true), true, 'the loopback opt-out admits loopback only');
  assert.equal(isRefusedAddress('::ffff:127.0.0.1', true), true, 'mapped loopback stays refused');
});

test('every IANA special-purpose block that can reach a private, loopback or link-local host is refused (one row each)', () => {
  const rows: Array<[address: string, refused: boolean, why: string]> = [
    // IPv6 blocks that carry an IPv4 address
    ['::ffff:0:0:0', true, 'IPv4-translated ::ffff:0:0:0/96 (RFC 2765), base'],
    ['::ffff:0:7f00:1', true, 'IPv4-translated 127.0.0.1'],
    ['::ffff:0:a00:1', true, 'IPv4-translated 10.0.0.1'],
    ['::ffff:0:a9fe:a9fe', true, 'IPv4-translated 169.254.169.254'],
    ['::ffff:0:808:808', true, 'IPv4-translated, even a public IPv4 (refused whole)'],
    ['::ffff:127.0.0.1', true, 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', true, 'IPv4-mapped loopback, hex form'],
    ['::ffff:169.254.169.254', true, 'IPv4-mapped link-local'],
    ['::ffff:8.8.8.8', true, 'IPv4-mapped public (refused whole)'],
    ['::127.0.0.1', true, 'IPv4-compatible ::a.b.c.d loopback'],
    ['::10.0.0.1', true, 'IPv4-compatible private'],
    ['::7f00:1', true, 'IPv4-compatible, hex form'],
    ['::1:0:0:1', true, 'elsewhere in the reserved ::/8'],
    ['64:ff9b::7f00:1', true, 'NAT64 64:ff9b::/96 carrying 127.0.0.1'],
    ['64:ff9b::10.0.0.1', true, 'NAT64 carrying 10.0.0.1'],
    ['64:ff9b::a9fe:a9fe', true, 'NAT64 carrying 169.254.169.254'],
    ['64:ff9b::808:808', true, 'NAT64 carrying a public IPv4 (refused whole)'],
    ['64:ff9b:1::a00:1', true, 'local-use NAT64 64:ff9b:1::/48'],
    ['64:ff9b:1:ffff::1', true, 'local-use NAT64, another embedding'],
    ['2002:7f00:1::', true, '6to4 2002::/16 embedding 127.0.0.1'],
    ['2002:c0a8:101::1', true, '6to4 embedding 192.168.1.1'],
    ['2002:808:808::1', true, '6to4 embedding a public IPv4 (refused whole)'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', true, 'Teredo 2001::/32'],
    ['2001:0:0:0:0:0:f5ff:fffe', true, 'Teredo whose obfuscated client is 10.0.0.1'],
    ['2001:2::1', true, 'benchmarking 2001:2::/48'],
    ['2001:1::1', true, 'IETF protocol assignments 2001::/23 (PCP anycast)'],
    ['2001:20::1', true, 'ORCHIDv2'],
    ['2001:db8::1', true, 'documentation 2001:db8::/32'],
    ['3fff::1', true, 'documentation 3fff::/20'],
    ['100::1', true, 'discard-only 100::/64'],
    ['100:0:0:1::1', true, 'dummy prefix 100:0:0:1::/64'],
    ['5f00::1', true, 'SRv6 SIDs 5f00::/16'],
    ['::', true, 'unspecified'],
    ['::1', true, 'loopback'],
    ['fc00::1', true, 'ULA fc00::/7'],
    ['fd00:ec2::254', true, 'ULA (the AWS IPv6 metadata address)'],
    ['fe80::1', true, 'link-local'],
    ['fe80::1%eth0', true, 'link-local with a zone'],
    ['febf::1', true, 'link-local, top of fe80::/10'],
    ['fec0::1', true, 'site-local (deprecated)'],
    ['ff02::1', true, 'multicast'],
    ['4000::1', true, 'unassigned (outside 2000::/3)'],
    ['e000::1', true, 'unassigned (outside 2000::/3)'],
    ['2606:4700:4700::1111', false, 'global unicast'],
    ['2a00:1450:4001::200e', false, 'global unicast'],
    ['2001:200::1', false, 'global unicast just past 2001::/23'],
    ['2620:4f:8000::1', false, 'AS112 direct delegation (global)'],
    // IPv4 special-purpose registry
    ['0.0.0.0', true, 'this network 0.0.0.0/8'],
    ['0.1.2.3', true, 'this network'],
    ['10.0.0.1', true, 'private 10/8'],
    ['100.64.0.1', true, 'shared 100.64/10'],
    ['100.127.255.254', true, 'shared, top'],
    ['127.0.0.1', true, 'loopback'],
    ['127.1.2.3', true, 'loopback /8'],
    ['169.254.169.254', true, 'link-local (cloud metadata)'],
    ['172.16.0.1', true, 'private 172.16/12'],
    ['172.31.255.255', true, 'private, top'],
    ['192.0.0.1', true, 'IETF protocol assignments 192.0.0.0/24 (DS-Lite)'],
    ['192.0.0.170', true, 'NAT64 discovery'],
    ['192.0.2.1', true, 'documentation TEST-NET-1'],
    ['192.88.99.1', true, '6to4 relay anycast'],
    ['192.168.1.1', true, 'private 192.168/16'],
    ['198.18.0.1', true, 'benchmarking'],
    ['198.51.100.1', true, 'documentation TEST-NET-2'],
    ['203.0.113.1', true, 'documentation TEST-NET-3'],
    ['224.0.0.251', true, 'multicast'],
    ['240.0.0.1', true, 'reserved'],
    ['255.255.255.255', true, 'limited broadcast'],
    ['8.8.8.8', false, 'public'],
    ['100.128.0.1', false, 'public, just past 100.64/10'],
    ['172.32.0.1', false, 'public, just past 172.16/12'],
    ['192.31.196.1', false, 'AS112 (global)'],
    ['not-an-ip', true, 'not an address'],
  ];
  for (const [address, refused, why] of rows) assert.equal(isRefusedAddress(address), refused, `${address}: ${why}`);
});

test('only https is fetched; other schemes are refused before any lookup', async () => {
  const dns = fakeDns({ 'example.com': ['93.184.216.34'] });
  const fetchGuarded = createGuardedFetch({ resolve: dns.resolve });
  await refused(fetchGuarded('http://example.com/.well-known/jwks.json'), 'blocked_scheme');
  await refused(fetchGuarded('file:///etc/passwd'), 'blocked_scheme');
  await refused(fetchGuarded('data:application/json,{}'), 'blocked_scheme');
  await refused(fetchGuarded('javascript:alert(1)'), 'blocked_scheme');
  await refused(fetchGuarded('ftp://example.com/x'), 'blocked_scheme');
  await refused(fetchGuarded('https://user:pw@example.com/x'), 'blocked_scheme');
  await refused(fetchGuarded('not a url'), 'blocked_scheme');
  assert.deepEqual(dns.calls, []);
  // even with the test opt-out, http is only for loopback
  await refused(createGuardedFetch({ resolve: dns.resolve, dangerouslyAllowHttpLoopbackForTesting: true })('ftp://127.0.0.1/'), 'blocked_scheme');
});

test('address literals in refused ranges are refused without connecting', async () => {
  const fetchGuarded = createGuardedFetch();
  const before = connections;
  for (const url of [
    'https://127.0.0.1/',
    'https://[::1]/',
    'https://[::ffff:127.0.0.1]/',
    'https://[::ffff:0:7f00:1]/',
    'https://[64:ff9b::a9fe:a9fe]/',
    'https://[2002:a00:1::1]/',
    'https://[::127.0.0.1]/',
    'https://017700000001/',
    'https://127.1/',
    'https://169.254.169.254/latest/meta-data/',
    'https://10.0.0.1/',
    'https://192.168.0.1/',
    'https://[fd00::1]/',
    'https://[fe80::1]/',
    'https://224.0.0.1/',
    'https://0.0.0.0/',
    'https://100.64.0.1/',
    'https://2130706433/',
    'https://0x7f.1/',
  ]) {
    await refused(fetchGuarded(url), 'blocked_address');
  }
  await refused(fetchGuarded(`${base.replace('http:', 'https:')}/doc`), 'blocked_address');
  assert.equal(connections, before, 'no connection was opened');
});

test('a host name resolving to a refused address is refused — every answer is checked', async () => {
  const dns = fakeDns({
    'internal.test': ['10.0.0.7'],
    'mixed.test': ['93.184.216.34', '127.0.0.1'],
    'v6.test': ['fd00::5'],
    'meta.test': ['169.254.169.254'],
  });
  const fetchGuarded = createGuardedFetch({ resolve: dns.resolve });
  await refused(fetchGuarded('https://internal.test/x'), 'blocked_address');
  await refused(fetchGuarded('https://mixed.test/x'), 'blocked_address');
  await refused(fetchGuarded('https://v6.test/x'), 'blocked_address');
  await refused(fetchGuarded('https://meta.test/x'), 'blocked_address');
  await refused(fetchGuarded('https://unknown.test/x'), 'network_error');
});

test('loopback is refused without the test opt-out even when a server listens there', async () => {
  const dns = fakeDns({ 'loopback.test': ['127.0.0.1'] });
  const before = seen.length;
  await refused(createGuardedFetch({ resolve: dns.resolve })(`https://loopback.test:${new URL(base).port}/doc`), 'blocked_address');
  await refused(createGuardedFetch({ resolve: dns.resolve, dangerouslyAllowHttpLoopbackForTesting: false })(`${base}/doc`), 'blocked_scheme');
  assert.equal(seen.length, before, 'the server received no request');
});

test('with the test opt-out, http on loopback works and the connection uses the vetted answer (no second lookup)', async () => {
  const dns = fakeDns({ 'loopback.test': ['127.0.0.1'] });
  const fetchGuarded = createGuardedFetch({ resolve: dns.resolve, dangerouslyAllowHttpLoopbackForTesting: true });
  const response = await fetchGuarded(`${base}/doc`);
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), { ok: true });
  // `loopback.test` exists only in the fake resolver: a lookup by the HTTP stack itself would fail
  const byName = await fetchGuarded(`http://loopback.test:${new URL(base).port}/doc`);
  assert.equal(byName.status, 200);
  assert.deepEqual(dns.calls, ['loopback.test']);
  await refused(fetchGuarded('http://10.0.0.1/'), 'blocked_address');
});

test('redirects are followed by hand and every hop is checked', async () => {
  const dns = fakeDns({ 'internal.test': ['192.168.10.10'], 'loopback.test': ['127.0.0.1'] });
  const fetchGuarded = createGuardedFetch({ resolve: dns.resolve, dangerouslyAllowHttpLoopbackForTesting: true, maxRedirects: 3 });
  await refused(fetchGuarded(`${base}/to-metadata`), 'blocked_address');
  await refused(fetchGuarded(`${base}/to-file`), 'blocked_scheme');
  await refused(fetchGuarded(`${base}/to-private-name`), 'blocked_address');
  const loop = await refused(fetchGuarded(`${base}/loop`), 'too_many_redirects');
  assert.match(loop.message, /more than 3 redirects/);
  const ok = await fetchGuarded(`${base}/to-doc`);
  assert.equal(ok.status, 200);
  assert.equal(ok.url, `${base}/doc`);
});

test('credentials are dropped on a cross-origin redirect and kept on a same-origin one', async () => {
  const dns = fakeDns({ 'loopback.test': ['127.0.0.1'] });
  const fetchGuarded = createGuardedFetch({ resolve: dns.resolve, dangerouslyAllowHttpLoopbackForTesting: true });
  seen.length = 0;
  await fetchGuarded(`${base}/to-doc`, { headers: { authorization: 'Bearer secret' } });
  assert.equal(seen.at(-1)!.headers.authorization, 'Bearer secret');
  await fetchGuarded(`${base}/to-other-origin`, { headers: { authorization: 'Bearer secret', cookie: 'a=b' } });
  assert.equal(seen.at(-1)!.url, '/doc');
  assert.equal(seen.at(-1)!.headers.authorization, undefined);
  assert.equal(seen.at(-1)!.headers.cookie, undefined);
});

test('a cross-origin redirect carries only the allow-listed headers, and never resends a body', async () => {
  const dns = fakeDns({ 'loopback.test': ['127.0.0.1'] });
  const fetchGuarded = createGuardedFetch({ resolve: dns.resolve, dangerouslyAllowHttpLoopbackForTesting: true });
  const secrets = {
    authorization: 'DPoP token',
    cookie: 'a=b',
    'proxy-authorization': 'Basic cHJveHk6cHc=',
    dpop: 'eyJ.proof',
    'x-api-key': 'key',
    'x-amz-security-token': 'tok',
    'private-token': 'gl',
    'x-custom': 'anything',
  };
  for (const path of ['/to-other-origin', '/to-other-then-back']) {
    seen.length = 0;
    await fetchGuarded(`${base}${path}`, { headers: { ...secrets, accept: 'application/json', 'user-agent': 'mcpkit-test' } });
    const last = seen.at(-1)!;
    assert.equal(last.url, '/doc', path);
    for (const name of Object.keys(secrets)) assert.equal(last.headers[name], undefined, `${path}: ${name} crossed origins`);
    assert.equal(last.headers.accept, 'application/json');
    assert.equal(last.headers['user-agent'], 'mcpkit-test');
  }
  // a 307 would resend the body (a token request's code, verifier or client secret) to the other origin: refused
  seen.length = 0;
  await refused(fetchGuarded(`${base}/to-other-origin-307`, { method: 'POST', body: new URLSearchParams({ client_secret: 's' }) }), 'blocked_redirect');
  assert.deepEqual(
    seen.map((r) => r.url),
    ['/to-other-origin-307'],
  );
  // a 303 continues as a GET without the body
  seen.length = 0;
  const response = await fetchGuarded(`${base}/to-other-origin-303`, { method: 'POST', body: 'x=1', headers: { 'x-api-key': 'key' } });
  assert.equal(response.status, 200);
  assert.equal(seen.at(-1)!.headers['x-api-key'], undefined);
  assert.equal(seen.at(-1)!.headers['content-length'], undefined);
});

test('response size is capped (declared and streamed)', async () => {
  const fetchGuarded = createGuardedFetch({ dangerouslyAllowHttpLoopbackForTesting: true, maxBytes: 64 * 1024 });
  await refused(fetchGuarded(`${base}/big-declared`), 'response_too_large');
  await refused(fetchGuarded(`${base}/big-chunked`), 'response_too_large');
  const small = await createGuardedFetch({ dangerouslyAllowHttpLoopbackForTesting: true, maxBytes: 11 })(`${base}/doc`);
  assert.equal(await small.text(), '{"ok":true}');
});

test('one deadline covers the request and the body', async () => {
  const fetchGuarded = createGuardedFetch({ dangerouslyAllowHttpLoopbackForTesting: true, timeoutMs: 200 });
  let t0 = performance.now();
  await refused(fetchGuarded(`${base}/hang`), 'timeout');
  assert.ok(performance.now() - t0 < 2000);
  t0 = performance.now();
  await refused(fetchGuarded(`${base}/drip`), 'timeout');
  assert.ok(performance.now() - t0 < 2000);
  const controller = new AbortController();
  const pending = createGuardedFetch({ dangerouslyAllowHttpLoopbackForTesting: true })(`${base}/hang`, { signal: controller.signal });
  controller.abort();
  await refused(pending, 'network_error');
});

test('the connected address is checked before anything is written (guardSocket)', async () => {
  const before = seen.length;
  const socket = connect({ host: '127.0.0.1', port: Number(new URL(base).port) });
  guardSocket(socket, base, false);
  socket.write('GET /doc HTTP/1.1\r\nHost: x\r\n\r\n');
  const error = await new Promise<Error>((resolve) => socket.once('error', resolve));
  assert.ok(error instanceof FetchGuardError);
  assert.equal(error.code, 'blocked_address');
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(seen.length, before, 'the request never reached the server');
  // the same socket check admits loopback under the test opt-out
  const allowed = connect({ host: '127.0.0.1', port: Number(new URL(base).port) });
  guardSocket(allowed, base, true);
  await new Promise<void>((resolve, reject) => {
    allowed.once('connect', () => setImmediate(() => (allowed.destroyed ? reject(new Error('destroyed')) : resolve())));
    allowed.once('error', reject);
  });
  allowed.destroy();
});

test('invalid limits throw RangeError', () => {
  assert.throws(() => createGuardedFetch({ maxBytes: 0 }), RangeError);
  assert.throws(() => createGuardedFetch({ timeoutMs: 0 }), RangeError);
  assert.throws(() => createGuardedFetch({ maxRedirects: -1 }), RangeError);
});
