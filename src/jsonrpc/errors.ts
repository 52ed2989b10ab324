/**
 * The two error families.
 *
 * - {@link McpError}: a wire error (`code`, `message`, `data`) received from or sent to the
 *   peer. Code compares `code`, never `message`.
 * - {@link LocalError}: something that happened on this side (timeout, closed connection,
 *   capability not negotiated). It carries a stable string `code` and never crosses the wire.
 */
import { ErrorCode, type JSONRPCErrorObject } from './types.js';

/** A JSON-RPC error that crosses the wire. Throw it from a handler to answer with it. */
export class McpError extends Error {
  readonly code: number;
  readonly data: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = 'McpError';
    this.code = code;
    this.data = data;
  }
  /** The wire form of this error. */
  toJSON(): JSONRPCErrorObject {
    return this.data === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, data: this.data };
  }
  /** Builds an error from a received error object. */
  static from(error: JSONRPCErrorObject): McpError {
    const e =
      error.code === ErrorCode.URLElicitationRequired
        ? new UrlElicitationRequiredError(error.message, error.data)
        : new McpError(error.code, error.message, error.data);
    e.#received = true;
    return e;
  }

  #received = false;

  /** True when this error was received from the peer (not raised on this side). */
  get received(): boolean {
    return this.#received;
  }
}

/**
 * `value` itself when it is an `Error` (subclasses included, returned as they are), else a new
 * `Error` whose message is `String(value)`. For passing a caught value to a callback typed
 * `(error: Error) => void`. Pure.
 */
export function toError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}

/** -32602 with a message naming the offending field. */
export function invalidParams(message: string, data?: unknown): McpError {
  return new McpError(ErrorCode.InvalidParams, message, data);
}

/** -32601 for `method`. */
export function methodNotFound(method: string): McpError {
  return new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
}

/** A URL-mode elicitation the server needs before it can proceed (-32042, 2025-11-25). */
export interface PendingUrlElicitation {
  mode: 'url';
  elicitationId: string;
  url: string;
  message: string;
}

/**
 * -32042: the request cannot proceed until the user completes the URL-mode elicitations in
 * `elicitations`. Servers throw it from a handler; clients receive it from a request.
 */
export class UrlElicitationRequiredError extends McpError {
  readonly elicitations: PendingUrlElicitation[];
  constructor(message: string, data: unknown) {
    super(ErrorCode.URLElicitationRequired, message, data);
    this.name = 'UrlElicitationRequiredError';
    const list = (data as { elicitations?: unknown } | undefined)?.elicitations;
    this.elicitations = Array.isArray(list) ? (list as PendingUrlElicitation[]) : [];
  }
  /** Builds the error a server throws for these elicitations. */
  static of(elicitations: PendingUrlElicitation[], message = 'This request requires more information.'): UrlElicitationRequiredError {
    return new UrlElicitationRequiredError(message, { elicitations });
  }
}

/** Stable codes of {@link LocalError}. */
export type LocalErrorCode =
  | 'timeout'
  | 'cancelled'
  | 'connection_closed'
  /** The server no longer knows the session (HTTP 404 to a request carrying `Mcp-Session-Id`). */
  | 'session_expired'
  | 'not_connected'
  | 'already_connected'
  | 'capability_missing'
  | 'method_unsupported'
  | 'unsupported_protocol_version'
  | 'invalid_result'
  | 'invalid_message'
  | 'message_too_large'
  | 'rate_limited'
  | 'consent_denied'
  | 'process_exited'
  | 'validation_failed';

/** An error raised on this side; never sent to the peer. Compare `code`, not `message`. */
export class LocalError extends Error {
  readonly code: LocalErrorCode;
  constructor(code: LocalErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LocalError';
    this.code = code;
  }
}
