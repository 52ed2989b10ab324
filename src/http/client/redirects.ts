/**
 * Redirect handling of the HTTP client transports (RFC 9110 § 15.4).
 *
 * Design note: every request a transport makes goes through {@link transportFetch}, which
 * calls the underlying fetch (the injected one, wrapped by `auth` when given) with
 * `redirect: 'manual'` — whatever `requestInit` says — and decides about each 3xx itself:
 * - A redirect to another origin is refused before anything is sent there: the request's
 *   body (a JSON-RPC message), its custom headers, `Authorization` and `Mcp-Session-Id`
 *   would all go with it. The origin check is the same one the legacy transport applies to
 *   its `endpoint` event.
 * - A same-origin 307 or 308 is followed with the same method, body and headers (the method
 *   must not change, § 15.4.8, § 15.4.9). A 301 or 302 is followed for methods other than
 *   POST, and a 303 for GET only, since user agents turn those into a GET (§ 15.4.2-15.4.4):
 *   a POST that became a GET would silently drop its message, so it is refused instead.
 *   Each hop goes through `auth` again, so credentials (and DPoP proofs, which name the URL)
 *   are made for the URL actually requested. The target is not remembered: each request
 *   starts at the configured URL.
 * - At most `maxRedirects` hops per request.
 * - An injected fetch that hides redirects (an `opaqueredirect` response) or follows them
 *   anyway (`response.redirected`) cannot be checked: its answer is refused. In that second
 *   case the request did reach the target; a fetch handed to a transport must honour
 *   `init.redirect`.
 * The transports send string bodies only, so a followed request is re-sent unchanged.
 * With `options.requester` instead of a fetch, the requester makes the requests (it never
 * follows redirects itself; with `auth` it is adapted to a fetch, see requester-fetch.ts).
 */
import { type ClientResponse, discardBody, type HttpClientCommonOptions, resolveFetch, type TransportInit, toAbortSignal } from './common.js';
import { RedirectRefusedError } from './errors.js';
import { requesterAsFetch, requesterCall } from './requester-fetch.js';

export type { TransportInit } from './common.js';

/** `init` as a fetch takes it: its headers are a `Headers` then (see `baseHeaders`), its signal a real one. */
function fetchInit(init: TransportInit): RequestInit {
  const signal = init.signal;
  return { ...(init as RequestInit), signal: signal === undefined || signal === null ? signal : toAbortSignal(signal), redirect: 'manual' };
}

/** How a transport fetches: an absolute URL and the full request init. */
export type TransportFetch = (url: URL, init: TransportInit) => Promise<ClientResponse>;

/** Default of {@link HttpClientCommonOptions.maxRedirects}. */
export const DEFAULT_MAX_REDIRECTS = 5;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * The fetch a transport uses for every request: `options.requester`, else `options.fetch`
 * (else the global one), wrapped by `options.auth`, with redirects handled as the module's
 * design note says. The returned function rejects with {@link RedirectRefusedError} for a
 * refused redirect and otherwise as the underlying requester or fetch does. Throws
 * RangeError when `maxRedirects` is not a non-negative integer, TypeError when both
 * `fetch` and `requester` are given or when there is neither and no global fetch.
 */
export function transportFetch(options: HttpClientCommonOptions): TransportFetch {
  return wholeFetch(splitFetch(options));
}

/** The fetch that makes `split`'s two steps one. */
export function wholeFetch(split: SplitFetch): TransportFetch {
  return (url, init) => split.send(url, init).then((response) => split.redirected(response, url, init) ?? response);
}

/**
 * {@link transportFetch} in two steps, for a transport that awaits the request itself
 * (one turn of the microtask queue less than awaiting a wrapped promise): `send` makes one
 * request; `redirected` looks at its answer and returns undefined when it is no redirect
 * (it is the final answer), else the promise of what following it gives, which rejects as
 * the full fetch would. Throws as {@link transportFetch} does.
 */
export interface SplitFetch {
  send(url: URL, init: TransportInit): Promise<ClientResponse>;
  redirected(response: ClientResponse, url: URL, init: TransportInit): Promise<ClientResponse> | undefined;
}

/** The two steps of {@link transportFetch}; see {@link SplitFetch}. */
export function splitFetch(options: HttpClientCommonOptions): SplitFetch {
  const max = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  if (!Number.isInteger(max) || max < 0) throw new RangeError('maxRedirects must be a non-negative integer');
  const requester = options.requester;
  let inner: TransportFetch;
  if (requester !== undefined) {
    if (options.fetch !== undefined) {
      throw new TypeError(
        'Pass either options.fetch or options.requester, not both: a requester makes the requests itself (to instrument them, wrap the requester instead)',
      );
    }
    if (typeof requester !== 'function')
      throw new TypeError('options.requester must be a function (url, init) => Promise<ClientResponse>, such as nodeHttpRequester() from mcpkit/node');
    if (options.auth) {
      const authorized = options.auth.wrapFetch(requesterAsFetch(requester));
      // with auth the headers are a Headers (see baseHeaders)
      inner = (url, init) => authorized(url, fetchInit(init));
    } else inner = (url, init) => requesterCall(requester, url, init);
  } else {
    const fetch = resolveFetch(options.fetch, options.auth);
    // a fetch gets a Headers (see baseHeaders)
    inner = (url, init) => fetch(url, fetchInit(init));
  }
  return {
    send: inner,
    // the common case first: an answer that is no redirect
    redirected: (response, url, init) =>
      response.type !== 'opaqueredirect' && !response.redirected && !REDIRECTS.has(response.status) ? undefined : follow(inner, max, url, init, response),
  };
}

/** Decides about `first`, the answer to `init` at `url`, and about the answers of the redirects followed from there. */
async function follow(inner: TransportFetch, max: number, url: URL, init: TransportInit, first: ClientResponse): Promise<ClientResponse> {
  let current = url;
  let response = first;
  for (let hops = 0; ; hops++) {
    const method = (init.method ?? 'GET').toUpperCase();
    if (response.type === 'opaqueredirect') {
      discardBody(response);
      throw new RedirectRefusedError(
        'unreadable',
        0,
        method,
        undefined,
        `${method} ${current.href} was redirected, but the fetch in use hides the target (an opaque redirect); point the client at the final URL`,
      );
    }
    if (response.redirected) {
      discardBody(response);
      const origin = originOf(response.url);
      throw new RedirectRefusedError(
        'followed_by_fetch',
        response.status,
        method,
        origin,
        `The fetch in use followed a redirect of ${method} ${url.href}${origin ? ` to ${origin}` : ''} although the transport asked for redirect: 'manual'; its answer is not used. Pass a fetch that honours init.redirect, and point the client at the final URL`,
      );
    }
    const status = response.status;
    if (!REDIRECTS.has(status)) return response;
    const location = response.headers.get('location');
    // a 3xx without Location is no redirect to follow: the caller sees its status
    if (location === null) return response;
    discardBody(response);
    let target: URL;
    try {
      target = new URL(location, current);
    } catch {
      throw new RedirectRefusedError(
        'invalid_location',
        status,
        method,
        undefined,
        `${method} ${current.href} was redirected (HTTP ${status}) to a Location that is not a valid URL`,
      );
    }
    if (target.origin !== current.origin) {
      throw new RedirectRefusedError(
        'cross_origin',
        status,
        method,
        target.origin,
        `${method} ${current.href} was redirected (HTTP ${status}) to another origin, ${target.origin}; redirects across origins are never followed (the message and its headers would go there). If the server has moved, point the client at the final URL`,
      );
    }
    if (changesMethod(status, method)) {
      throw new RedirectRefusedError(
        'method_change',
        status,
        method,
        target.origin,
        `${method} ${current.href} was redirected with HTTP ${status}, which turns a ${method} into a GET and would drop the message; only 307 and 308 are followed for a ${method}. Point the client at the final URL`,
      );
    }
    if (hops >= max) {
      const why = max === 0 ? 'redirects are turned off (maxRedirects 0)' : `it was redirected more than ${max} times`;
      throw new RedirectRefusedError(
        'too_many_redirects',
        status,
        method,
        target.origin,
        `${method} ${url.href} was not sent: ${why}. Point the client at the final URL`,
      );
    }
    current = target;
    response = await inner(current, init);
  }
}

/** True when following `status` the way user agents do would change `method` (RFC 9110 § 15.4). */
function changesMethod(status: number, method: string): boolean {
  if (status === 303) return method !== 'GET' && method !== 'HEAD';
  if (status === 301 || status === 302) return method === 'POST';
  return false;
}

function originOf(url: string): string | undefined {
  try {
    return url === '' ? undefined : new URL(url).origin;
  } catch {
    return undefined;
  }
}
