/**
 * Host, request-target and Origin validation against DNS rebinding and cross-site requests
 * (2025-03-26 › Streamable HTTP › Security Warning: servers MUST validate `Origin`), and the
 * content-coding check of request bodies.
 *
 * Design notes:
 * - The policy is compiled once into sets, and each check reads only the request at hand
 *   (nothing of an earlier request is remembered). An allowed value in the form clients
 *   send (`name` or `name:port` as listed, lower case; an origin `scheme://name[:port]`)
 *   costs one or two set lookups and a scan of the port digits; anything else takes the
 *   strict parse below, which alone decides between malformed and foreign, so both paths
 *   give the same verdict. The default allows only the loopback names (`localhost`,
 *   `127.0.0.1`, `[::1]`) on any port, which is right for a local server; a server
 *   reachable under another name must list it.
 * - Host values are parsed strictly (RFC 9110 § 7.2: `uri-host [ ":" port ]`, the port all
 *   digits; IPv6 literals in brackets; RFC 3986 § 3.2.2 reg-name characters): a malformed
 *   value is 400 (RFC 9112 § 3.2), never read leniently into an allowed name.
 * - An absolute-form request target (`POST http://host/mcp`) names the host the server must
 *   use instead of `Host` (RFC 9112 § 3.2.2), so its authority is checked like `Host`; a
 *   `Host` sent beside it must pass too (a client sends the same authority in both).
 * Runtime-neutral.
 */

/** The loopback host names allowed by default (any port). */
export const LOOPBACK_HOSTS: readonly string[] = Object.freeze(['localhost', '127.0.0.1', '[::1]']);

/** What {@link RequestGuard.check} answers for an acceptable request. */
export const HOST_OK = 0;
/** {@link RequestGuard.check}: the Host value or target authority is malformed (answer 400, RFC 9112 § 3.2). */
export const HOST_MALFORMED = 400;
/** {@link RequestGuard.check}: the host is well-formed but not allowed (answer 403). */
export const HOST_FORBIDDEN = 403;

/** RFC 3986 § 3.2.2 reg-name: unreserved, sub-delims, percent-encoded octets (lower case). */
const REG_NAME = /^(?:[a-z0-9\-._~!$&'()*+,;=]|%[0-9a-f]{2})+$/;
/** A bracketed IPv6 literal (hex digits, colons, dots of an embedded IPv4 address). */
const IPV6_LITERAL = /^\[[0-9a-f:.]+\]$/;
const DIGITS = /^\d+$/;

/**
 * True when `value` from index `from` to its end is a port text `parseHost` accepts: empty,
 * or decimal digits whose value is at most 65535 (leading zeros allowed).
 */
function isPortText(value: string, from: number): boolean {
  let port = 0;
  for (let i = from; i < value.length; i++) {
    const digit = value.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return false;
    port = port * 10 + digit;
    if (port > 65535) return false;
  }
  return true;
}

/**
 * Parses `host[:port]` strictly into the lower-case host name and the port as a decimal
 * number text ('' when absent or empty); undefined when malformed: an empty or invalid
 * name, an unbracketed colon, a port that is not all digits or above 65535.
 */
function parseHost(value: string): [name: string, port: string] | undefined {
  const h = value.trim().toLowerCase();
  let name: string;
  let rest: string;
  if (h.charCodeAt(0) === 91 /* [ */) {
    const close = h.indexOf(']');
    if (close < 0) return undefined;
    name = h.slice(0, close + 1);
    if (!IPV6_LITERAL.test(name)) return undefined;
    rest = h.slice(close + 1);
  } else {
    const colon = h.indexOf(':');
    name = colon < 0 ? h : h.slice(0, colon);
    if (!REG_NAME.test(name)) return undefined;
    rest = colon < 0 ? '' : h.slice(colon);
  }
  if (rest.length <= 1) return rest === '' || rest === ':' ? [name, ''] : undefined;
  if (rest.charCodeAt(0) !== 58 /* : */) return undefined;
  const digits = rest.slice(1);
  if (!DIGITS.test(digits)) return undefined;
  const port = Number(digits);
  return port > 65535 ? undefined : [name, String(port)];
}

/** Where the authority of the absolute URL `url` ends (at `/`, `?`, `#` or the end), searching from `from`. */
function authorityEnd(url: string, from: number): number {
  for (let i = from; i < url.length; i++) {
    const c = url.charCodeAt(i);
    if (c === 47 /* / */ || c === 63 /* ? */ || c === 35 /* # */) return i;
  }
  return url.length;
}

/** True when the absolute URL `url` is `http://` or `https://` followed by exactly `authority` (then its end, `/`, `?` or `#`). */
function authorityIs(url: string, authority: string): boolean {
  const start = url.startsWith('http://') ? 7 : url.startsWith('https://') ? 8 : 0;
  if (start === 0 || !url.startsWith(authority, start)) return false;
  const end = start + authority.length;
  return end === url.length || authorityEnd(url, end) === end;
}

/** The authority of an absolute-form request target (`http://host:1/mcp` → `host:1`); '' for any other form. */
export function targetAuthority(url: string): string {
  if (url.charCodeAt(0) === 47 /* / */) return '';
  const scheme = url.indexOf('://');
  return scheme < 0 ? '' : url.slice(scheme + 3, authorityEnd(url, scheme + 3));
}

/**
 * The path of a request target: origin-form (`/mcp?x` → `/mcp`) or absolute-form
 * (`http://host/mcp?x` → `/mcp`, `http://host` → `/`); '' for any other form.
 */
export function targetPath(url: string): string {
  let start = 0;
  if (url.charCodeAt(0) !== 47 /* / */) {
    const scheme = url.indexOf('://');
    if (scheme < 0) return '';
    start = authorityEnd(url, scheme + 3);
    if (url.charCodeAt(start) !== 47 /* / */) return '/';
  }
  let end = url.length;
  for (let i = start; i < end; i++) {
    const c = url.charCodeAt(i);
    if (c === 63 /* ? */ || c === 35 /* # */) end = i;
  }
  return start === 0 && end === url.length ? url : url.slice(start, end);
}

/**
 * True when a `Content-Encoding` value names a coding other than `identity`: request bodies
 * are read as they are, so such a request gets 415 with `Accept-Encoding: identity`
 * (RFC 9110 § 8.4, § 15.5.16; RFC 7694 § 3). `null` (no header) is false.
 */
export function hasContentCoding(contentEncoding: string | null): boolean {
  if (contentEncoding === null) return false;
  for (const part of contentEncoding.split(',')) {
    const coding = part.trim().toLowerCase();
    if (coding !== '' && coding !== 'identity') return true;
  }
  return false;
}

/**
 * A compiled Host/Origin policy.
 *
 * - `allowedHosts`: entries `name` (any port) or `name:port` (that port only), compared
 *   case-insensitively with the `Host` header and the authority of an absolute-form request
 *   target; IPv6 literals in brackets (`[::1]`). `'*'` disables the Host and target checks
 *   (only behind a proxy that validates Host itself).
 * - `allowedOrigins`: entries that are origins (`https://app.example.com`, matched exactly
 *   after normalization: lower case, default port dropped) or bare host names
 *   (`localhost`: `http`/`https` on any port). `'*'` disables the check. A request without
 *   an `Origin` header (a non-browser client) is always allowed; `Origin: null` only when
 *   `'null'` is listed.
 *
 * The constructor throws `TypeError` for a host entry that is not `host[:port]` and for an
 * origin entry that is not a valid URL.
 */
export class RequestGuard {
  readonly #anyHost: boolean;
  readonly #hostNames: ReadonlySet<string>;
  readonly #hostPorts: ReadonlySet<string>;
  /** Every listed host entry in its normalized text (`name`, `name:port`): an exact match is allowed. */
  readonly #exactHosts: ReadonlySet<string>;
  /** `#exactHosts` as a list when it is short: compared with `===`, which hashes nothing (a header value is a fresh string per request). */
  readonly #exactHostList: readonly string[] | undefined;
  readonly #anyOrigin: boolean;
  /** `#hostNames` as a list when it is short (compared in place, see `#plainlyAllowed`). */
  readonly #hostNameList: readonly string[] | undefined;
  readonly #origins: ReadonlySet<string>;
  readonly #originHosts: ReadonlySet<string>;
  /** The entries of `#originHosts` a URL parser keeps as they are (`new URL('http://' + name).hostname === name`). */
  readonly #plainOriginHosts: ReadonlySet<string>;
  /** The last value {@link #plainlyAllowed} allowed: a client sends the same Host on every request. */
  #lastPlain: string | undefined = undefined;

  constructor(allowedHosts: readonly string[] | '*' = LOOPBACK_HOSTS, allowedOrigins: readonly string[] | '*' = LOOPBACK_HOSTS) {
    this.#anyHost = allowedHosts === '*';
    const names = new Set<string>();
    const ports = new Set<string>();
    if (allowedHosts !== '*') {
      for (const entry of allowedHosts) {
        const parsed = parseHost(entry);
        if (parsed === undefined) throw new TypeError(`allowedHosts: ${JSON.stringify(entry)} is not host[:port]`);
        const [name, port] = parsed;
        if (port === '') names.add(name);
        else ports.add(`${name}:${port}`);
      }
    }
    this.#hostNames = names;
    this.#hostNameList = names.size <= 8 ? [...names] : undefined;
    this.#hostPorts = ports;
    this.#exactHosts = new Set([...names, ...ports]);
    this.#exactHostList = this.#exactHosts.size <= 8 ? [...this.#exactHosts] : undefined;
    this.#anyOrigin = allowedOrigins === '*';
    const origins = new Set<string>();
    const originHosts = new Set<string>();
    if (allowedOrigins !== '*') {
      for (const entry of allowedOrigins) {
        if (entry === 'null') origins.add('null');
        else if (entry.includes('://')) origins.add(new URL(entry).origin);
        else originHosts.add(parseHost(entry)?.[0] ?? entry.trim().toLowerCase());
      }
    }
    this.#origins = origins;
    this.#originHosts = originHosts;
    this.#plainOriginHosts = new Set([...originHosts].filter(keptByUrlParser));
  }

  /** True when the `Host` header value is well-formed and allowed. A missing Host is refused unless any host is. */
  hostAllowed(host: string | null): boolean {
    return this.#anyHost || this.#hostVerdict(host) === HOST_OK;
  }

  /**
   * Checks the `Host` header value and the request target of one request: {@link HOST_OK},
   * {@link HOST_MALFORMED} (a missing or malformed Host on an origin-form target; a
   * malformed absolute-form target: not http(s), userinfo (RFC 9110 § 4.2.4), a malformed
   * authority) or {@link HOST_FORBIDDEN} (well-formed, not allowed). An absolute-form target's
   * authority is checked like Host (RFC 9112 § 3.2.2) and a Host beside it must pass too.
   * Other target forms (`*`) are left to routing. Never throws.
   */
  check(host: string | null, target: string): number {
    if (this.#anyHost) return HOST_OK;
    if (target.charCodeAt(0) !== 47 /* / */ && target.includes('://')) {
      // what Bun and Deno hand a web handler: `http://` + the Host value + the path; the one
      // authority is judged once, without slicing the URL
      if (host !== null && host.length > 0 && authorityIs(target, host)) return this.#judge(host);
      const verdict = this.#targetVerdict(target);
      if (verdict !== HOST_OK || host === null) return verdict;
    }
    return this.#hostVerdict(host);
  }

  #hostVerdict(host: string | null): number {
    if (host === null || host.length === 0) return HOST_MALFORMED;
    return this.#judge(host);
  }

  #targetVerdict(target: string): number {
    const schemeEnd = target.indexOf('://');
    const scheme = target.slice(0, schemeEnd).toLowerCase();
    if (scheme !== 'http' && scheme !== 'https') return HOST_MALFORMED;
    const authority = target.slice(schemeEnd + 3, authorityEnd(target, schemeEnd + 3));
    if (authority.length === 0 || authority.includes('@')) return HOST_MALFORMED;
    return this.#judge(authority);
  }

  /** {@link #plainlyListed}, answered from the last value it allowed when `value` is that one. */
  #plainlyAllowed(value: string): boolean {
    if (value === this.#lastPlain) return true;
    if (!this.#plainlyListed(value)) return false;
    this.#lastPlain = value;
    return true;
  }

  /**
   * True when `value` is allowed in the form clients send: exactly a listed entry, or a
   * listed any-port name, `:` and a port text. Only ever true where {@link #judge}'s strict
   * parse allows the value too (a listed name is a valid name); false sends it there.
   */
  #plainlyListed(value: string): boolean {
    const exact = this.#exactHostList;
    if (exact !== undefined) {
      for (const entry of exact) if (entry === value) return true;
    } else if (this.#exactHosts.has(value)) return true;
    // a short list (the default is three names) is compared in place: no substring, and no
    // `lastIndexOf`, which V8 runs as a C++ builtin, per request
    const names = this.#hostNameList;
    if (names !== undefined) {
      for (const name of names) {
        const end = name.length;
        if (value.length > end && value.charCodeAt(end) === 58 /* : */ && value.startsWith(name)) return isPortText(value, end + 1);
      }
      return false;
    }
    let colon = value.length - 1;
    while (colon > 0 && value.charCodeAt(colon) !== 58 /* : */) colon--;
    if (colon <= 0 || !isPortText(value, colon + 1)) return false;
    return this.#hostNames.has(value.slice(0, colon));
  }

  /** The verdict on one `host[:port]` value against the allowed names. */
  #judge(value: string): number {
    if (this.#plainlyAllowed(value)) return HOST_OK;
    const parsed = parseHost(value);
    if (parsed === undefined) return HOST_MALFORMED;
    const [name, port] = parsed;
    return this.#hostNames.has(name) || (port !== '' && this.#hostPorts.has(`${name}:${port}`)) ? HOST_OK : HOST_FORBIDDEN;
  }

  /** True when the `Origin` header value is allowed; `null` (no header) always is. */
  originAllowed(origin: string | null): boolean {
    if (origin === null || this.#anyOrigin) return true;
    if (origin === 'null') return this.#origins.has('null');
    if (this.#origins.has(origin) || this.#plainOriginAllowed(origin)) return true;
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false;
    }
    return this.#origins.has(url.origin) || ((url.protocol === 'http:' || url.protocol === 'https:') && this.#originHosts.has(url.hostname.toLowerCase()));
  }

  /**
   * True when `origin` is `http://` or `https://`, a listed any-port name the URL parser
   * keeps as it is, and an optional `:` and port text: exactly the values the URL-based
   * check allows for that name, without the parse. False sends the value to that check.
   */
  #plainOriginAllowed(origin: string): boolean {
    const start = origin.startsWith('http://') ? 7 : origin.startsWith('https://') ? 8 : 0;
    if (start === 0) return false;
    const close = origin.charCodeAt(start) === 91 /* [ */ ? origin.indexOf(']', start) : start;
    if (close < 0) return false;
    const colon = origin.indexOf(':', close);
    if (colon < 0) return this.#plainOriginHosts.has(origin.slice(start));
    return this.#plainOriginHosts.has(origin.slice(start, colon)) && isPortText(origin, colon + 1);
  }
}

/** True when a URL parser reads `name` as a host name unchanged (so a raw match means a parsed one). */
function keptByUrlParser(name: string): boolean {
  try {
    return new URL(`http://${name}`).hostname === name;
  } catch {
    return false;
  }
}
