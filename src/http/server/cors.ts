/**
 * CORS for a web page that calls an MCP endpoint on another origin (a browser MCP client).
 * {@link withCors} wraps any web-standard fetch handler (`handler.fetch` of
 * {@link StreamableHttpHandler}, or an app around it) and answers what a browser asks before
 * and after such a call; the handler's own `allowedOrigins` check still decides whether the
 * request is served (list the page's origin in both).
 *
 * Design notes:
 * - Only origins listed in `allowedOrigins` get CORS headers, echoed exactly (never `*` with
 *   credentials, never a reflected arbitrary origin); `'*'` answers `*`. No
 *   `Access-Control-Allow-Credentials`: MCP authenticates with the `Authorization` header,
 *   which a page sets itself, so cookies are never needed cross-origin.
 * - A preflight (`OPTIONS` with `Access-Control-Request-Method`) from an allowed origin gets
 *   204 with the methods of the Streamable HTTP transport (GET, POST, DELETE) and the request
 *   headers it uses (`accept`, `authorization`, `content-type`, `last-event-id`,
 *   `mcp-protocol-version`, `mcp-session-id`, plus `allowHeaders`); from any other origin,
 *   403 without CORS headers, so the browser blocks the call. Other requests go to the
 *   wrapped handler untouched; its response gains `Access-Control-Allow-Origin`,
 *   `Vary: Origin` and `Access-Control-Expose-Headers` (`mcp-session-id`,
 *   `mcp-protocol-version`, `www-authenticate`), so the client reads its session id and the
 *   401 challenge. A response that already carries `Access-Control-Allow-Origin` (the
 *   protected resource metadata route answers `*`) is left as it is.
 * - Runtime-neutral (no `node:*` imports); works on Node through any `Request`/`Response`
 *   adapter, and directly with `Bun.serve`, `Deno.serve` and Workers.
 */
import type { StreamableHttpHandler } from './handler.js';

/** Options of {@link withCors}. */
export interface CorsOptions {
  /**
   * The page origins (`scheme://host[:port]`, compared exactly, case-insensitively) allowed
   * to call the endpoint, or `'*'` for any page (only for a public, unauthenticated server).
   * Required: there is no default.
   */
  allowedOrigins: readonly string[] | '*';
  /** Request headers a page may send beyond the transport's own. Default none. */
  allowHeaders?: readonly string[];
  /** How long a browser may cache a preflight answer, in seconds. Default 600. */
  maxAgeSeconds?: number;
}

/** A web-standard request handler. */
export type FetchHandler = (request: Request) => Response | Promise<Response>;

/** The request headers of the Streamable HTTP transport (and its authorization). */
export const CORS_REQUEST_HEADERS: readonly string[] = ['accept', 'authorization', 'content-type', 'last-event-id', 'mcp-protocol-version', 'mcp-session-id'];
/** The response headers a browser client must be able to read. */
export const CORS_EXPOSED_HEADERS: readonly string[] = ['mcp-session-id', 'mcp-protocol-version', 'www-authenticate'];

/**
 * Wraps `handler` (a fetch function, or a {@link StreamableHttpHandler} whose `fetch` is used)
 * with the CORS answers described in the module note. Throws `TypeError` for an
 * `allowedOrigins` entry that is not an origin. The returned function never throws
 * synchronously; it rejects only when `handler` does.
 */
export function withCors(handler: FetchHandler | Pick<StreamableHttpHandler, 'fetch'>, options: CorsOptions): (request: Request) => Promise<Response> {
  const inner: FetchHandler = typeof handler === 'function' ? handler : (request) => handler.fetch(request);
  const any = options.allowedOrigins === '*';
  const allowed = new Set<string>();
  if (!any) {
    for (const origin of options.allowedOrigins as readonly string[]) {
      let parsed: URL;
      try {
        parsed = new URL(origin);
      } catch {
        throw new TypeError(`withCors: allowedOrigins entry ${JSON.stringify(origin)} is not an origin (expected scheme://host[:port])`);
      }
      if (parsed.origin === 'null' || parsed.origin !== origin.toLowerCase().replace(/\/$/, '')) {
        throw new TypeError(`withCors: allowedOrigins entry ${JSON.stringify(origin)} is not an origin (expected scheme://host[:port], no path)`);
      }
      allowed.add(parsed.origin);
    }
  }
  const allowHeaders = [...CORS_REQUEST_HEADERS, ...(options.allowHeaders ?? []).map((h) => h.toLowerCase())].join(', ');
  const maxAge = String(options.maxAgeSeconds ?? 600);
  const exposed = CORS_EXPOSED_HEADERS.join(', ');
  const allows = (origin: string): boolean => any || allowed.has(origin.toLowerCase());

  return async (request) => {
    const origin = request.headers.get('origin');
    if (origin === null) return inner(request);
    if (request.method === 'OPTIONS' && request.headers.has('access-control-request-method')) {
      if (!allows(origin)) return new Response(null, { status: 403, headers: { vary: 'Origin' } });
      return new Response(null, {
        status: 204,
        headers: {
          'access-control-allow-origin': any ? '*' : origin,
          'access-control-allow-methods': 'GET, POST, DELETE',
          'access-control-allow-headers': allowHeaders,
          'access-control-max-age': maxAge,
          vary: 'Origin',
        },
      });
    }
    const response = await inner(request);
    if (!allows(origin) || response.headers.has('access-control-allow-origin')) return response;
    const allowOrigin = any ? '*' : origin;
    // a Response the handler built has mutable headers: they gain the CORS fields in place,
    // and the body (a complete string for a JSON reply) is never turned into a stream
    try {
      addCorsHeaders(response.headers, allowOrigin, exposed);
      return response;
    } catch {
      // immutable headers (`Response.error()`, `Response.redirect()`, a fetched response):
      // a copy carries them, over the same body
    }
    const headers = new Headers(response.headers);
    addCorsHeaders(headers, allowOrigin, exposed);
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  };
}

/** Sets the CORS fields of a response from an allowed origin on `headers` (throws `TypeError` when they are immutable, before any change). */
function addCorsHeaders(headers: Headers, allowOrigin: string, exposed: string): void {
  headers.set('access-control-allow-origin', allowOrigin);
  headers.set('access-control-expose-headers', exposed);
  headers.append('vary', 'Origin');
}
