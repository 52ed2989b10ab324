/**
 * Property tests of the Host and Origin checks: the guard's verdicts equal a reference
 * written here from the grammars (RFC 9110 § 7.2 `Host = uri-host [ ":" port ]`, RFC 3986
 * § 3.2.2 reg-name and IP-literal, RFC 9112 § 3.2: malformed is 400, foreign 403; Origin by
 * the WHATWG URL parser, as the 2025-03-26 Streamable HTTP Security Warning asks servers to
 * validate it), for any value and in any order of calls, so no check depends on an earlier
 * request. Plus a scan of the HTTP server sources: no module-level variable and no `#last…`
 * field keeps a reading of a past request.
 */

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { check } from '../../../test/abuse/chunk-splits.js';
import { HOST_FORBIDDEN, HOST_MALFORMED, HOST_OK, LOOPBACK_HOSTS, RequestGuard } from './request-guard.js';

const HOST_GRAMMAR = /^(?:((?:[a-z0-9\-._~!$&'()*+,;=]|%[0-9a-f]{2})+)|(\[[0-9a-f:.]+\]))(?::(\d*))?$/;

/** The reference verdict on one Host value against `names` (any port) and `ports` (`name:port`). */
function referenceHost(value: string, names: readonly string[], ports: readonly string[]): number {
  const match = HOST_GRAMMAR.exec(value.trim().toLowerCase());
  if (match === null) return HOST_MALFORMED;
  const name = (match[1] ?? match[2])!;
  const digits = match[3] ?? '';
  if (digits !== '' && Number(digits) > 65535) return HOST_MALFORMED;
  if (names.includes(name)) return HOST_OK;
  return digits !== '' && ports.includes(`${name}:${Number(digits)}`) ? HOST_OK : HOST_FORBIDDEN;
}

/** The reference verdict on one Origin value: exact origins after URL normalization, or http(s) on a listed name. */
function referenceOrigin(value: string, origins: readonly string[], names: readonly string[]): boolean {
  if (value === 'null') return origins.includes('null');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  // a listed entry stands for its origin; an opaque one ('null', or e.g. `localhost:` read as a scheme) matches a listed 'null'
  if (origins.some((o) => (o === 'null' ? 'null' : new URL(o).origin) === url.origin)) return true;
  return (url.protocol === 'http:' || url.protocol === 'https:') && names.includes(url.hostname.toLowerCase());
}

const CUSTOM_HOSTS = ['api.example.com:8443', 'plain.example.com', '[::1]:3000', 'localhost:080'];
const CUSTOM_ORIGINS = ['https://app.example.com', 'https://other.example.com:8443', 'localhost', '127.0.0.1', 'example.org', '0x7f.0.0.2'];
const ORIGIN_NAMES = ['localhost', '127.0.0.1', 'example.org', '0x7f.0.0.2'];

const name = fc.constantFrom(
  'localhost',
  'LocalHost',
  '127.0.0.1',
  '[::1]',
  '[::2]',
  '[::1',
  '::1',
  'plain.example.com',
  'api.example.com',
  'app.example.com',
  'other.example.com',
  'example.org',
  '0x7f.0.0.2',
  '127.0.0.2',
  'evil.com',
  'localhost.evil.com',
  'user@localhost',
  'local host',
  'local\thost',
  '',
  'xn--bcher-kva.example',
  'b\u00fccher.example',
  '%6cocalhost',
);
const port = fc.constantFrom('', ':', ':80', ':080', ':0080', ':3000', ':8443', ':65535', ':65536', ':99999999999999', ':8a', '::80', ':-1');
const tail = fc.constantFrom('', ' ', '\t', '/', '/x', '?q', '#f', ':evil.com');
const hostValue = fc.oneof(
  fc.tuple(fc.constantFrom('', ' '), name, port, tail).map((p) => p.join('')),
  fc.string({ maxLength: 24 }),
);
const originValue = fc.oneof(
  fc.tuple(fc.constantFrom('http://', 'https://', 'HTTP://', 'ftp://', 'chrome-extension://', 'file://', ''), name, port, tail).map((p) => p.join('')),
  fc.constant('null'),
  fc.string({ maxLength: 24 }),
);

test('Host verdicts equal the grammar reference, whatever was checked before (RFC 9110 § 7.2, RFC 9112 § 3.2)', () => {
  const loopback = new RequestGuard();
  const custom = new RequestGuard(CUSTOM_HOSTS, []);
  const customNames = ['plain.example.com'];
  const customPorts = ['api.example.com:8443', '[::1]:3000', 'localhost:80'];
  check(
    fc.property(fc.array(hostValue, { minLength: 1, maxLength: 8 }), (values) => {
      for (const value of values) {
        assert.equal(loopback.check(value, '/mcp'), referenceHost(value, LOOPBACK_HOSTS, []), JSON.stringify(value));
        assert.equal(custom.check(value, '/mcp'), referenceHost(value, customNames, customPorts), JSON.stringify(value));
      }
    }),
    500,
  );
});

test('an absolute-form target authority gets the verdict its Host value would (RFC 9112 § 3.2.2)', () => {
  const guard = new RequestGuard();
  check(
    fc.property(fc.tuple(name, port), ([n, p]) => {
      const authority = `${n}${p}`;
      const expected = authority === '' || authority.includes('@') ? HOST_MALFORMED : referenceHost(authority, LOOPBACK_HOSTS, []);
      // the authority ends at the first '/', '?' or '#'; a value with one of those is another authority
      if (/[/?#]/.test(authority)) return;
      assert.equal(guard.check(null, `http://${authority}/mcp`), expected, JSON.stringify(authority));
    }),
    300,
  );
});

test('a target built from its Host value (what Bun and Deno hand a fetch handler) gets the Host value’s verdict', () => {
  const guard = new RequestGuard();
  const custom = new RequestGuard(CUSTOM_HOSTS);
  const customNames = ['plain.example.com'];
  const customPorts = ['api.example.com:8443', '[::1]:3000', 'localhost:80'];
  check(
    fc.property(fc.tuple(name, port, fc.constantFrom('http://', 'https://', 'HTTP://'), fc.constantFrom('/mcp', '?x=1', '#f', '')), ([n, p, scheme, rest]) => {
      const host = `${n}${p}`;
      if (host === '' || /[/?#]/.test(host)) return;
      const target = `${scheme}${host}${rest}`;
      const malformed = host.includes('@') || host.trim() !== host;
      assert.equal(guard.check(host, target), malformed ? HOST_MALFORMED : referenceHost(host, LOOPBACK_HOSTS, []), JSON.stringify(target));
      assert.equal(custom.check(host, target), malformed ? HOST_MALFORMED : referenceHost(host, customNames, customPorts), JSON.stringify(target));
    }),
    500,
  );
});

test('Origin verdicts equal the URL-parser reference, whatever was checked before', () => {
  const loopback = new RequestGuard();
  const custom = new RequestGuard(undefined, [...CUSTOM_ORIGINS, 'null']);
  const customOrigins = ['https://app.example.com', 'https://other.example.com:8443', 'null'];
  check(
    fc.property(fc.array(originValue, { minLength: 1, maxLength: 8 }), (values) => {
      for (const value of values) {
        assert.equal(loopback.originAllowed(value), referenceOrigin(value, [], LOOPBACK_HOSTS), JSON.stringify(value));
        assert.equal(custom.originAllowed(value), referenceOrigin(value, customOrigins, ORIGIN_NAMES), JSON.stringify(value));
      }
    }),
    500,
  );
});

test('the HTTP server modules keep no reading of an earlier request: no module-level variable, no #last… field', () => {
  const here = dirname(fileURLToPath(import.meta.url));
  const dir = resolve(here, '..', '..', '..', 'src', 'http', 'server');
  /** Module-level state that holds no request's reading, with the reason. */
  const allowed: Record<string, string> = {
    'outbound.ts: let sharedBudget: OutboundBudget | undefined;': 'the process-wide default bound on text queued for slow readers',
  };
  const offenders: string[] = [];
  for (const file of readdirSync(dir)) {
    if (!file.endsWith('.ts') || file.endsWith('.test.ts') || file.endsWith('.test.helper.ts')) continue;
    const text = readFileSync(join(dir, file), 'utf8');
    for (const [i, line] of text.split('\n').entries()) {
      if (/^(?:export\s+)?(?:let|var)\s/.test(line) || /^\s+#last[A-Z]\w*\s*[:=]/.test(line)) {
        if (allowed[`${file}: ${line.trim()}`] === undefined) offenders.push(`${file}:${i + 1}: ${line.trim()}`);
      }
    }
  }
  assert.deepEqual(offenders, []);
});
