/**
 * One handler type and one middleware type, the same for incoming and outgoing messages.
 *
 * A {@link MethodHandler} handles one request or notification. A {@link Middleware} wraps a
 * handler and returns a new one; middleware is composed once, when registered, so a message
 * passing through it costs no allocation for the chain. The first registered middleware
 * runs outermost.
 */
import type { JSONObject, RequestId } from '../jsonrpc/types.js';
import type { RequestOptions } from '../session/session.js';
import type { MessageInfo } from '../transport/types.js';

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

/**
 * Wraps a handler. Called once per registration on each connection, not per message, so
 * state it keeps around `next` is per connection. For servers, prefer a per-request
 * interceptor (`McpServer.use` with an `Interceptor`), which sees who is asking.
 */
export type Middleware = (next: MethodHandler) => MethodHandler;

/** Where a middleware applies. */
export type MiddlewareDirection = 'incoming' | 'outgoing' | 'both';

/** Composes `middleware` around `terminal`, the first element outermost. */
export function compose(middleware: readonly Middleware[], terminal: MethodHandler): MethodHandler {
  let handler = terminal;
  for (let i = middleware.length - 1; i >= 0; i--) handler = middleware[i]!(handler);
  return handler;
}

/**
 * A handler that may answer at once: it returns the result (or a promise of it) and may
 * throw. Incoming requests run through such a chain, so a request whose handler is
 * synchronous is answered without a turn of the microtask queue (bench row
 * "instructions: server JSON tools/call"); an era's `serve` receives one. A
 * {@link Middleware} still gets a {@link MethodHandler}, which always returns a promise.
 */
export type InnerHandler = (method: string, params: JSONObject | undefined, ctx: CallContext) => unknown;

/**
 * @internal A layer of the incoming chain written against {@link InnerHandler}: it takes the
 * next handler's outcome as it comes (value, promise or throw) and may return either. The
 * roles' own layers (the era strategy, the interceptor runner) are of this type, so they
 * add no promise; a user's {@link Middleware} becomes one through {@link fromMiddleware}.
 */
export type Layer = (next: InnerHandler) => InnerHandler;

/** @internal Composes `layers` around `terminal`, the first element outermost. */
export function composeLayers(layers: readonly Layer[], terminal: InnerHandler): InnerHandler {
  let handler = terminal;
  for (let i = layers.length - 1; i >= 0; i--) handler = layers[i]!(handler);
  return handler;
}

/**
 * @internal `middleware` as a {@link Layer}: its `next` always returns a promise, as
 * {@link MethodHandler} promises (a value is wrapped, a throw becomes a rejection).
 */
export function fromMiddleware(middleware: Middleware): Layer {
  return (next) => middleware(promising(next));
}

/** `handler` as a {@link MethodHandler}: its value wrapped in a promise, its throw a rejection. */
function promising(handler: InnerHandler): MethodHandler {
  return (method, params, ctx) => {
    try {
      return Promise.resolve(handler(method, params, ctx));
    } catch (error) {
      return Promise.reject(error);
    }
  };
}
