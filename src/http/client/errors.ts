/**
 * Errors of the HTTP client transports. Both are {@link LocalError}s: they describe what
 * happened to an HTTP exchange on this side and never cross the wire. A JSON-RPC error the
 * server actually sent is delivered as a message instead (and surfaces as an `McpError`).
 */
import { LocalError, type LocalErrorCode } from '../../jsonrpc/errors.js';

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
  constructor(sessionId: string) {
    super('connection_closed', 'The server no longer knows this session (HTTP 404); start a new session');
    this.name = 'SessionExpiredError';
    this.sessionId = sessionId;
  }
}
