/**
 * The fetch guard: the only way mcpkit's server side fetches a document named by someone
 * else — a JWKS, a client ID metadata document, authorization server metadata — without
 * becoming a proxy into the private network (SSRF; see the security notes and
 * draft-ietf-oauth-client-id-metadata-document § 6).
 *
 * Design notes (Node-specific: `node:dns`, `node:net`, `node:http`, `node:https`):
 * - HTTPS only. `dangerouslyAllowHttpLoopbackForTesting` admits `http:` and loopback
 *   addresses (127.0.0.0/8, ::1) — for tests against servers on 127.0.0.1, never production.
 * - Every destination address is checked twice: the addresses a host name resolves to (all of
 *   them; one refused address refuses the request) and the address the socket actually
 *   connected to, checked in the socket's `connect` event before the request is written. The
 *   connection goes to an address the guard's own lookup returned, so a DNS answer that
 *   changes between the check and the connection (rebinding) cannot slip through.
 * - Refused IPv4 ranges (IANA IPv4 Special-Purpose Address Registry): "this network",
 *   private (RFC 1918), shared (CGNAT), loopback, link-local, IETF protocol assignments,
 *   documentation, the 6to4 relay anycast, benchmarking, multicast, reserved and broadcast.
 * - IPv6 (IANA IPv6 Special-Purpose Address Registry): only global unicast (2000::/3) is
 *   fetched, so everything outside it is refused — unspecified, loopback, the whole
 *   reserved ::/8 (IPv4-compatible ::a.b.c.d, IPv4-mapped ::ffff:0:0/96, IPv4-translated
 *   ::ffff:0:0:0/96), NAT64 64:ff9b::/96 and 64:ff9b:1::/48, discard 100::/64, the dummy
 *   prefix, ULA, link-local, site-local, SRv6 SIDs and multicast; inside 2000::/3 the IETF
 *   protocol assignments 2001::/23 (Teredo, benchmarking, ORCHID), documentation
 *   (2001:db8::/32, 3fff::/20) and 6to4 2002::/16 are refused. Every block that embeds an
 *   IPv4 address is refused whole, whatever the embedded address: a translator behind it
 *   may reach a private IPv4 host, and the guard cannot know which translator that is.
 * - Redirects are followed by hand, at most `maxRedirects` hops, each hop checked like the
 *   first (scheme and addresses). A redirect to another origin carries only the headers of
 *   {@link CROSS_ORIGIN_HEADERS} (no `authorization`, `cookie`, `proxy-authorization`,
 *   `dpop`, API keys or any other header), and one that would resend a request body to
 *   another origin (307/308 after a POST) is refused (`blocked_redirect`). 303 (and 301/302
 *   after a POST) continue as GET.
 * - One deadline (`timeoutMs`) covers every hop, connection and body; the body is read with a
 *   size cap (`maxBytes`, checked against `Content-Length` first and while streaming). The
 *   result is a web `Response` holding the whole body.
 */
import { lookup as dnsLookup } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction, type Socket } from 'node:net';
import { CROSS_ORIGIN_HEADERS } from './redirect-headers.js';

/** Stable codes of {@link FetchGuardError}. */
export type FetchGuardErrorCode =
  /** The URL is not `https:` (or `http:` under the test opt-out), or not a valid URL. */
  | 'blocked_scheme'
  /** The host resolves or connects to a refused address. */
  | 'blocked_address'
  /** A redirect would resend the request body to another origin (307/308 across origins). */
  | 'blocked_redirect'
  /** More redirects than allowed. */
  | 'too_many_redirects'
  /** The body exceeds `maxBytes`. */
  | 'response_too_large'
  /** The deadline passed. */
  | 'timeout'
  /** DNS or connection failure, or the caller's signal aborted. */
  | 'network_error';

/** A refusal or failure of a guarded fetch. Compare `code`, not the message. */
export class FetchGuardError extends Error {
  readonly code: FetchGuardErrorCode;
  /** The URL of the hop that failed. */
  readonly url: string;
  constructor(code: FetchGuardErrorCode, url: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'FetchGuardError';
    this.code = code;
    this.url = url;
  }
}

/** One resolved address, as `dns.lookup(…, { all: true })` gives it. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Options of {@link createGuardedFetch}. */
export interface FetchGuardOptions {
  /** Most bytes of a response body. Default 256 KiB (metadata documents are small). */
  maxBytes?: number;
  /** Deadline of the whole fetch, redirects included, in ms. Default 5000. */
  timeoutMs?: number;
  /** Most redirects followed. Default 3. */
  maxRedirects?: number;
  /**
   * DANGEROUS, tests only: also accept `http:` URLs and loopback addresses (127.0.0.0/8,
   * `::1`). Every other refused range stays refused. Never enable it in production: it lets
   * anyone who can name a URL reach services on the server's own loopback interface.
   */
  dangerouslyAllowHttpLoopbackForTesting?: boolean;
  /** Resolves host names. Default `dns.lookup` (all addresses). Tests inject answers here. */
  resolve?: (hostname: string) => Promise<readonly ResolvedAddress[]>;
}

/** The request options a guarded fetch understands (a subset of `RequestInit`). */
export interface GuardedFetchInit {
  method?: string;
  headers?: RequestInit['headers'];
  body?: string | URLSearchParams | Uint8Array;
  signal?: AbortSignal;
  /** Accepted for compatibility with fetch callers (jose, oauth4webapi); redirects are always followed by the guard's rules. */
  redirect?: RequestInit['redirect'];
}

/** A `fetch`-shaped function that applies the guard; see {@link createGuardedFetch}. */
export type GuardedFetch = (input: string | URL, init?: GuardedFetchInit) => Promise<Response>;

// Two lists: one BlockList holding both families matches IPv4 addresses against IPv6 rules
// through their mapped form (::ffff:a.b.c.d), which would refuse every IPv4 address.
const REFUSED_V4 = new BlockList();
const REFUSED_V6 = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // shared address space (CGNAT)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata services live here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  REFUSED_V4.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  // outside 2000::/3 everything is refused anyway (see GLOBAL_V6); listed for the record
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['::', 8], // reserved: IPv4-compatible ::/96, IPv4-mapped ::ffff:0:0/96, IPv4-translated ::ffff:0:0:0/96
  ['64:ff9b::', 96], // NAT64 well-known prefix
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard-only
  ['100:0:0:1::', 64], // dummy prefix
  ['5f00::', 16], // SRv6 SIDs
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
  // inside global unicast
  ['2001::', 23], // IETF protocol assignments: Teredo 2001::/32, benchmarking 2001:2::/48, ORCHID, anycast services
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4 (embeds an IPv4 address)
  ['3fff::', 20], // documentation
] as const) {
  REFUSED_V6.addSubnet(net, prefix, 'ipv6');
}
/** IPv6 global unicast: the only IPv6 space fetched (the special blocks inside it excepted). */
const GLOBAL_V6 = new BlockList();
GLOBAL_V6.addSubnet('2000::', 3, 'ipv6');

const LOOPBACK_V4 = new BlockList();
LOOPBACK_V4.addSubnet('127.0.0.0', 8, 'ipv4');

/**
 * True when `address` (an IPv4 or IPv6 literal, without brackets or zone) is one the guard
 * refuses; `allowLoopback` admits 127.0.0.0/8 and `::1`. A string that is not an IP address
 * is refused. Pure; safe to call anywhere.
 */
export function isRefusedAddress(address: string, allowLoopback = false): boolean {
  const zone = address.indexOf('%');
  const plain = zone < 0 ? address : address.slice(0, zone);
  const family = isIP(plain);
  if (family === 0) return true;
  if (family === 4) return !(allowLoopback && LOOPBACK_V4.check(plain, 'ipv4')) && REFUSED_V4.check(plain, 'ipv4');
  if (allowLoopback && plain.toLowerCase() === '::1') return false;
  return !GLOBAL_V6.check(plain, 'ipv6') || REFUSED_V6.check(plain, 'ipv6');
}

const defaultResolve = (hostname: string): Promise<readonly ResolvedAddress[]> =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => {
      if (error) reject(error);
      else resolve(addresses as ResolvedAddress[]);
    });
  });

/** The host of a URL as an address literal (brackets removed) when it is one, else undefined. */
function literalHost(url: URL): string | undefined {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return isIP(host) === 0 ? undefined : host;
}

/**
 * Refuses a socket whose connected address is not allowed: destroys it with a
 * {@link FetchGuardError} `blocked_address`. Attached to the socket's `connect` event before
 * the request is written. Exported for tests of this layer alone (the package does not export it).
 */
export function guardSocket(socket: Socket, url: string, allowLoopback: boolean): void {
  const check = (): void => {
    const remote = socket.remoteAddress;
    if (remote === undefined || isRefusedAddress(remote, allowLoopback)) {
      socket.destroy(new FetchGuardError('blocked_address', url, `Refused: ${url} connected to a disallowed address (${remote ?? 'unknown'})`));
    }
  };
  if (socket.connecting) socket.once('connect', check);
  else check();
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function toHeaderRecord(headers: RequestInit['headers'] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (headers !== undefined)
    new Headers(headers).forEach((value, name) => {
      out[name] = value;
    });
  return out;
}

/**
 * Creates a guarded `fetch` (see the module notes). The returned function resolves with a
 * `Response` whose body is fully read (at most `maxBytes`); 3xx responses are followed, not
 * returned (a redirect without `Location` is returned as is). It rejects with a
 * {@link FetchGuardError}: `blocked_scheme`, `blocked_address`, `blocked_redirect`, `too_many_redirects`,
 * `response_too_large`, `timeout`, `network_error`. Safe for concurrent use; holds no
 * connection between calls (no keep-alive). Throws `RangeError` for invalid limits.
 */
export function createGuardedFetch(options: FetchGuardOptions = {}): GuardedFetch {
  const maxBytes = options.maxBytes ?? 256 * 1024;
  const timeoutMs = options.timeoutMs ?? 5000;
  const maxRedirects = options.maxRedirects ?? 3;
  const allowLoopback = options.dangerouslyAllowHttpLoopbackForTesting === true;
  const resolve = options.resolve ?? defaultResolve;
  if (!(maxBytes >= 1) || !(timeoutMs > 0) || !(Number.isInteger(maxRedirects) && maxRedirects >= 0)) {
    throw new RangeError('createGuardedFetch: maxBytes >= 1, timeoutMs > 0 and an integer maxRedirects >= 0 are required');
  }

  /** Checks a hop before connecting; resolves with the addresses to connect to (undefined for a literal host). */
  async function vet(url: URL): Promise<readonly ResolvedAddress[] | undefined> {
    if (url.protocol !== 'https:' && !(allowLoopback && url.protocol === 'http:')) {
      throw new FetchGuardError('blocked_scheme', url.href, `Refused: ${url.protocol} URLs are not fetched (HTTPS only): ${url.href}`);
    }
    if (url.username !== '' || url.password !== '')
      throw new FetchGuardError('blocked_scheme', url.href, `Refused: URLs with credentials are not fetched: ${url.origin}`);
    const literal = literalHost(url);
    if (literal !== undefined) {
      if (isRefusedAddress(literal, allowLoopback)) throw new FetchGuardError('blocked_address', url.href, `Refused: ${url.host} is a disallowed address`);
      return undefined;
    }
    let addresses: readonly ResolvedAddress[];
    try {
      addresses = await resolve(url.hostname);
    } catch (error) {
      throw new FetchGuardError('network_error', url.href, `Could not resolve ${url.hostname}`, { cause: error });
    }
    if (addresses.length === 0) throw new FetchGuardError('network_error', url.href, `${url.hostname} has no address`);
    for (const a of addresses) {
      if (isRefusedAddress(a.address, allowLoopback)) {
        throw new FetchGuardError('blocked_address', url.href, `Refused: ${url.hostname} resolves to a disallowed address (${a.address})`);
      }
    }
    return addresses;
  }

  /** One request without redirect handling. Resolves with the response head and the capped body. */
  function send(
    url: URL,
    method: string,
    headers: Record<string, string>,
    body: Uint8Array | undefined,
    addresses: readonly ResolvedAddress[] | undefined,
    signal: AbortSignal,
  ): Promise<{ res: IncomingMessage; body: Buffer }> {
    return new Promise((resolveHop, rejectHop) => {
      let settled = false;
      const fail = (error: FetchGuardError): void => {
        if (settled) return;
        settled = true;
        req.destroy();
        rejectHop(error);
      };
      // connect only to the addresses vetted above: no second DNS answer is ever used
      const lookup: LookupFunction | undefined =
        addresses === undefined
          ? undefined
          : (_hostname, lookupOptions, callback) => {
              const family = (lookupOptions as { family?: number }).family;
              const usable = family === 4 || family === 6 ? addresses.filter((a) => a.family === family) : addresses;
              if ((lookupOptions as { all?: boolean }).all === true) (callback as unknown as (e: null, a: ResolvedAddress[]) => void)(null, [...usable]);
              else if (usable.length === 0) callback(Object.assign(new Error(`no IPv${family} address`), { code: 'ENOTFOUND' }), '', 0);
              else callback(null, usable[0]!.address, usable[0]!.family);
            };
      const requestOptions = {
        method,
        headers: body === undefined ? headers : { ...headers, 'content-length': String(body.byteLength) },
        agent: false as const,
        ...(lookup !== undefined ? { lookup } : {}),
      };
      const req = url.protocol === 'https:' ? httpsRequest(url, requestOptions) : httpRequest(url, requestOptions);
      req.on('socket', (socket: Socket) => guardSocket(socket, url.href, allowLoopback));
      req.on('error', (error: Error) => {
        if (error instanceof FetchGuardError) fail(error);
        else if (signal.aborted) fail(abortError(url, signal));
        else fail(new FetchGuardError('network_error', url.href, `Fetching ${url.href} failed: ${error.message}`, { cause: error }));
      });
      const onAbort = (): void => fail(abortError(url, signal));
      signal.addEventListener('abort', onAbort, { once: true });
      req.on('close', () => signal.removeEventListener('abort', onAbort));
      req.on('response', (res: IncomingMessage) => {
        const remote = res.socket?.remoteAddress;
        if (remote !== undefined && isRefusedAddress(remote, allowLoopback)) {
          fail(new FetchGuardError('blocked_address', url.href, `Refused: ${url.href} answered from a disallowed address (${remote})`));
          return;
        }
        if (REDIRECTS.has(res.statusCode ?? 0)) {
          // the body of a redirect is not needed
          settled = true;
          res.resume();
          resolveHop({ res, body: Buffer.alloc(0) });
          return;
        }
        const declared = Number(res.headers['content-length']);
        if (Number.isFinite(declared) && declared > maxBytes) {
          fail(new FetchGuardError('response_too_large', url.href, `Refused: the response of ${url.href} declares ${declared} bytes (limit ${maxBytes})`));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            fail(new FetchGuardError('response_too_large', url.href, `Refused: the response of ${url.href} exceeds ${maxBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => {
          if (settled) return;
          settled = true;
          resolveHop({ res, body: Buffer.concat(chunks, size) });
        });
        res.on('error', (error: Error) =>
          fail(new FetchGuardError('network_error', url.href, `Reading ${url.href} failed: ${error.message}`, { cause: error })),
        );
      });
      req.end(body === undefined ? undefined : Buffer.from(body));
    });
  }

  function abortError(url: URL, signal: AbortSignal): FetchGuardError {
    const reason = signal.reason as { name?: string } | undefined;
    return reason?.name === 'TimeoutError' || reason === DEADLINE
      ? new FetchGuardError('timeout', url.href, `Fetching ${url.href} took longer than ${timeoutMs} ms`)
      : new FetchGuardError('network_error', url.href, `Fetching ${url.href} was aborted`, { cause: signal.reason });
  }

  return async function guardedFetch(input, init = {}) {
    let url: URL;
    try {
      url = new URL(input);
    } catch (error) {
      throw new FetchGuardError('blocked_scheme', String(input), `Refused: not a valid URL: ${String(input)}`, { cause: error });
    }
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(DEADLINE), timeoutMs);
    const signal = init.signal === undefined ? deadline.signal : AbortSignal.any([deadline.signal, init.signal]);
    let method = (init.method ?? 'GET').toUpperCase();
    let headers = toHeaderRecord(init.headers);
    let body: Uint8Array | undefined =
      init.body === undefined
        ? undefined
        : typeof init.body === 'string' || init.body instanceof URLSearchParams
          ? new TextEncoder().encode(String(init.body))
          : init.body;
    if (init.body instanceof URLSearchParams && headers['content-type'] === undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
    try {
      for (let hop = 0; ; hop++) {
        if (signal.aborted) throw abortError(url, signal);
        const addresses = await untilAborted(vet(url), signal, () => abortError(url, signal));
        const { res, body: data } = await send(url, method, headers, body, addresses, signal);
        const status = res.statusCode ?? 0;
        const location = res.headers.location;
        if (REDIRECTS.has(status) && typeof location === 'string') {
          if (hop >= maxRedirects)
            throw new FetchGuardError('too_many_redirects', url.href, `Refused: more than ${maxRedirects} redirects from ${String(input)}`);
          let next: URL;
          try {
            next = new URL(location, url);
          } catch (error) {
            throw new FetchGuardError('blocked_scheme', location, `Refused: an invalid redirect target ${location}`, { cause: error });
          }
          if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) {
            method = 'GET';
            body = undefined;
            delete headers['content-type'];
          }
          if (next.origin !== url.origin) {
            if (body !== undefined) {
              throw new FetchGuardError(
                'blocked_redirect',
                next.href,
                `Refused: ${url.origin} redirected a ${method} with a body to another origin (${next.origin}); the body is not resent`,
              );
            }
            const kept: Record<string, string> = {};
            for (const name of CROSS_ORIGIN_HEADERS) if (headers[name] !== undefined) kept[name] = headers[name]!;
            headers = kept;
          }
          url = next;
          continue;
        }
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (value === undefined) continue;
          if (Array.isArray(value)) for (const v of value) responseHeaders.append(name, v);
          else responseHeaders.set(name, value);
        }
        const nullBody = status === 204 || status === 205 || status === 304 || method === 'HEAD';
        const response = new Response(nullBody ? null : new Uint8Array(data.buffer as ArrayBuffer, data.byteOffset, data.byteLength), {
          status,
          statusText: res.statusMessage ?? '',
          headers: responseHeaders,
        });
        Object.defineProperty(response, 'url', { value: url.href });
        return response;
      }
    } finally {
      clearTimeout(timer);
    }
  };
}

/** The abort reason of the guard's own deadline. */
const DEADLINE = Object.freeze({ name: 'TimeoutError', message: 'deadline' });

/** Settles like `promise`, or rejects with `make()` as soon as `signal` aborts (the listener is removed either way). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal, make: () => Error): Promise<T> {
  if (signal.aborted) return Promise.reject(make());
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(make());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
