/**
 * Errors of the HTTP client transports. Both are {@link LocalError}s: they describe what
 * happened to an HTTP exchange on this side and never cross the wire. A JSON-RPC error the
 * server actually sent is delivered as a message instead (and surfaces as an `McpError`).
 */
import { LocalError, type LocalErrorCode } from '../../jsonrpc/errors.js';
import type { RequestId } from '../../jsonrpc/types.js';

/**
 * An HTTP request of the transport got a non-success status that carried no JSON-RPC answer
 * for the request(s) it held. `code` is `rate_limited` for 429, `message_too_large` for 413,
 * and `connection_closed` otherwise; compare `status` for anything finer.
 */
export class HttpStatusError extends LocalError {
  /** The HTTP status code. */
  readonly status: number;
  /** The HTTP method of the failed request. */
  readonly method: string;
  constructor(status: number, method: string, message: string, options?: { cause?: unknown }) {
    super(codeForStatus(status), message, options);
    this.name = 'HttpStatusError';
    this.status = status;
    this.method = method;
  }
}

function codeForStatus(status: number): LocalErrorCode {
  if (status === 429) return 'rate_limited';
  if (status === 413) return 'message_too_large';
  return 'connection_closed';
}

/**
 * The server answered HTTP 404 to a request carrying `Mcp-Session-Id`: the session is gone
 * (spec: Streamable HTTP › Session Management). The transport closes itself; the owner starts
 * a new session with a new client and transport. Code `connection_closed`.
 */
export class SessionExpiredError extends LocalError {
  /** The session id the server no longer knows. */
  readonly sessionId: string;
  /**
   * The ids of the requests whose own POST the 404 answered: the server never ran them, so
   * they are safe to send again in a new session. Empty when the 404 came on another request
   * (a resumption, the GET stream).
   */
  readonly refused: ReadonlySet<RequestId>;
  constructor(sessionId: string, refused: Iterable<RequestId> = []) {
    super('session_expired', 'The server no longer knows this session (HTTP 404); start a new session');
    this.name = 'SessionExpiredError';
    this.sessionId = sessionId;
    this.refused = new Set(refused);
  }
}

/**
 * Why a transport refused a redirect (see {@link RedirectRefusedError}):
 * - `cross_origin`: the target has another origin (scheme, host or port);
 * - `method_change`: a 301/302 to a POST, or a 303 to anything but GET, would change the
 *   method (and drop the message);
 * - `too_many_redirects`: more same-origin hops than `maxRedirects`;
 * - `invalid_location`: a redirect without a usable `Location`;
 * - `unreadable`: the `fetch` in use hides redirects (an `opaqueredirect` response, as
 *   browsers give for `redirect: 'manual'`), so the target cannot be checked;
 * - `followed_by_fetch`: the `fetch` in use followed a redirect itself although the
 *   transport asked for `redirect: 'manual'`; its answer is not used.
 */
export type RedirectRefusal = 'cross_origin' | 'method_change' | 'too_many_redirects' | 'invalid_location' | 'unreadable' | 'followed_by_fetch';

/**
 * The server answered an HTTP request of the transport with a redirect the transport does
 * not follow (RFC 9110 § 15.4). Nothing was sent to the target: never to another origin (the
 * JSON-RPC body, custom headers, `Authorization` and `Mcp-Session-Id` would go with it), and
 * never with a changed method. The fix is on the caller's side: point the client at the
 * final URL. Code `connection_closed`; compare `refusal` for the reason.
 */
export class RedirectRefusedError extends LocalError {
  /** The redirect's HTTP status (the final status for `followed_by_fetch`; 0 for `unreadable`). */
  readonly status: number;
  /** The HTTP method of the redirected request. */
  readonly method: string;
  /** Why the redirect was refused. */
  readonly refusal: RedirectRefusal;
  /** The origin the redirect pointed to, when known (never the full target URL). */
  readonly targetOrigin: string | undefined;
  constructor(refusal: RedirectRefusal, status: number, method: string, targetOrigin: string | undefined, message: string) {
    super('connection_closed', message);
    this.name = 'RedirectRefusedError';
    this.refusal = refusal;
    this.status = status;
    this.method = method;
    this.targetOrigin = targetOrigin;
  }
}
