/**
 * One handler type and one middleware type, the same for incoming and outgoing messages.
 *
 * A {@link MethodHandler} handles one request or notification. A {@link Middleware} wraps a
 * handler and returns a new one; middleware is composed once, when registered, so a message
 * passing through it costs no allocation for the chain. The first registered middleware
 * runs outermost.
 */
import type { JSONObject, RequestId } from '../jsonrpc/types.js';
import type { MessageInfo } from '../transport/types.js';
import type { RequestOptions } from '../session/session.js';

/** What a handler or middleware knows about the message it handles. */
export interface CallContext {
  /** `incoming`: received from the peer; `outgoing`: about to be sent. */
  readonly direction: 'incoming' | 'outgoing';
  readonly kind: 'request' | 'notification';
  /** The request id (incoming requests only; outgoing ids are assigned after middleware). */
  readonly id?: RequestId;
  /** Fires when the request is cancelled (incoming requests). */
  readonly signal?: AbortSignal;
  /** Transport information (incoming messages). */
  readonly info?: MessageInfo;
  /** Send options (outgoing requests). */
  readonly options?: RequestOptions;
  /** An identifier of the connection, when the transport has one. */
  readonly sessionId?: string;
}

/**
 * Handles one message: resolves to the result object of a request (ignored for
 * notifications) or throws an McpError (sent to the peer) or any error (incoming: -32603;
 * outgoing: rejected to the caller).
 */
export type MethodHandler = (method: string, params: JSONObject | undefined, ctx: CallContext) => Promise<unknown>;

/** Wraps a handler. Called once per registration, not per message. */
export type Middleware = (next: MethodHandler) => MethodHandler;

/** Where a middleware applies. */
export type MiddlewareDirection = 'incoming' | 'outgoing' | 'both';

/** Composes `middleware` around `terminal`, the first element outermost. */
export function compose(middleware: readonly Middleware[], terminal: MethodHandler): MethodHandler {
  let handler = terminal;
  for (let i = middleware.length - 1; i >= 0; i--) handler = middleware[i]!(handler);
  return handler;
}
