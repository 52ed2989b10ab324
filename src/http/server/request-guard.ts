/**
 * Host and Origin validation against DNS rebinding and cross-site requests
 * (2025-03-26 › Streamable HTTP › Security Warning: servers MUST validate `Origin`).
 *
 * Design note: the policy is compiled once into sets; a request costs a few string
 * operations, plus one URL parse when it carries an `Origin` header. The last allowed
 * `Host` and `Origin` values are remembered (a client repeats them on every request), so
 * the common request costs one string comparison each. The default allows
 * only the loopback names (`localhost`, `127.0.0.1`, `[::1]`) on any port, which is right
 * for a local server; a server reachable under another name must list it. Runtime-neutral.
 */

/** The loopback host names allowed by default (any port). */
export const LOOPBACK_HOSTS: readonly string[] = Object.freeze(['localhost', '127.0.0.1', '[::1]']);

/** Splits `host[:port]` into the lower-case host name and the port text ('' when absent). */
function splitHost(host: string): [name: string, port: string] {
  const h = host.trim().toLowerCase();
  if (h.startsWith('[')) {
    const close = h.indexOf(']');
    if (close < 0) return [h, ''];
    const rest = h.slice(close + 1);
    return [h.slice(0, close + 1), rest.startsWith(':') ? rest.slice(1) : ''];
  }
  const colon = h.lastIndexOf(':');
  return colon < 0 ? [h, ''] : [h.slice(0, colon), h.slice(colon + 1)];
}

/**
 * A compiled Host/Origin policy.
 *
 * - `allowedHosts`: entries `name` (any port) or `name:port` (that port only), compared
 *   case-insensitively with the `Host` header; IPv6 literals in brackets (`[::1]`).
 *   `'*'` disables the check (only behind a proxy that validates Host itself).
 * - `allowedOrigins`: entries that are origins (`https://app.example.com`, matched exactly
 *   after normalization: lower case, default port dropped) or bare host names
 *   (`localhost`: `http`/`https` on any port). `'*'` disables the check. A request without
 *   an `Origin` header (a non-browser client) is always allowed; `Origin: null` only when
 *   `'null'` is listed.
 *
 * The constructor throws `TypeError` for an origin entry that is not a valid URL.
 */
export class RequestGuard {
  readonly #anyHost: boolean;
  readonly #hostNames: ReadonlySet<string>;
  readonly #hostPorts: ReadonlySet<string>;
  readonly #anyOrigin: boolean;
  readonly #origins: ReadonlySet<string>;
  readonly #originHosts: ReadonlySet<string>;
  #lastHost: string | null = null;
  #lastOrigin: string | null = null;

  constructor(allowedHosts: readonly string[] | '*' = LOOPBACK_HOSTS, allowedOrigins: readonly string[] | '*' = LOOPBACK_HOSTS) {
    this.#anyHost = allowedHosts === '*';
    const names = new Set<string>();
    const ports = new Set<string>();
    if (allowedHosts !== '*') {
      for (const entry of allowedHosts) {
        const [name, port] = splitHost(entry);
        if (port === '') names.add(name);
        else ports.add(`${name}:${port}`);
      }
    }
    this.#hostNames = names;
    this.#hostPorts = ports;
    this.#anyOrigin = allowedOrigins === '*';
    const origins = new Set<string>();
    const originHosts = new Set<string>();
    if (allowedOrigins !== '*') {
      for (const entry of allowedOrigins) {
        if (entry === 'null') origins.add('null');
        else if (entry.includes('://')) origins.add(new URL(entry).origin);
        else originHosts.add(splitHost(entry)[0]);
      }
    }
    this.#origins = origins;
    this.#originHosts = originHosts;
  }

  /** True when the `Host` header value is allowed. A missing Host is refused unless any host is. */
  hostAllowed(host: string | null): boolean {
    if (this.#anyHost) return true;
    if (host === null || host.length === 0) return false;
    if (host === this.#lastHost) return true;
    const [name, port] = splitHost(host);
    const allowed = this.#hostNames.has(name) || (port !== '' && this.#hostPorts.has(`${name}:${port}`));
    if (allowed && host.length <= 256) this.#lastHost = host;
    return allowed;
  }

  /** True when the `Origin` header value is allowed; `null` (no header) always is. */
  originAllowed(origin: string | null): boolean {
    if (origin === null || this.#anyOrigin) return true;
    if (origin === 'null') return this.#origins.has('null');
    if (origin === this.#lastOrigin) return true;
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false;
    }
    const allowed = this.#origins.has(url.origin) || ((url.protocol === 'http:' || url.protocol === 'https:') && this.#originHosts.has(url.hostname.toLowerCase()));
    if (allowed && origin.length <= 256) this.#lastOrigin = origin;
    return allowed;
  }
}
