/**
 * What a request keeps when a redirect takes it to another origin: only the headers named
 * in {@link CROSS_ORIGIN_HEADERS}. Every credential — `authorization`, `cookie`,
 * `proxy-authorization`, `dpop`, `x-api-key`, or any header a caller invented — stays with
 * the origin it was meant for. Shared by the fetch guard and the OAuth client, the two
 * places in `mcpkit/auth` that follow redirects. Runtime-neutral.
 */

/** The request headers a redirect to another origin carries (lower case). */
export const CROSS_ORIGIN_HEADERS: readonly string[] = Object.freeze([
  'accept',
  'accept-language',
  'content-language',
  'content-type',
  'user-agent',
  'cache-control',
  'pragma',
]);

/** Redirect statuses (RFC 9110 § 15.4) a client follows. */
export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/** `headers` reduced to {@link CROSS_ORIGIN_HEADERS}. Pure. */
export function crossOriginHeaders(headers: Headers): Headers {
  const out = new Headers();
  for (const name of CROSS_ORIGIN_HEADERS) {
    const value = headers.get(name);
    if (value !== null) out.set(name, value);
  }
  return out;
}

/**
 * The method a redirect continues with: GET after a 303, and after a 301 or 302 of a POST
 * (RFC 9110 § 15.4.2-4, as browsers do); otherwise the same method and body. Pure.
 */
export function redirectedMethod(status: number, method: string): { method: string; dropBody: boolean } {
  if (status === 303 && method !== 'HEAD') return { method: 'GET', dropBody: true };
  if ((status === 301 || status === 302) && method === 'POST') return { method: 'GET', dropBody: true };
  return { method, dropBody: false };
}
