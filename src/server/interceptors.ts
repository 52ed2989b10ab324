/**
 * Per-request interceptors: functions around EACH request and notification a server
 * handles (or sends), told who is asking. Registered with `McpServer.use(interceptor)`.
 *
 * An {@link Interceptor} gets an {@link InterceptContext} (principal, client info, era and
 * revision, connection, method, params, id, signal, direction, kind) and `next`. It may
 * - read the call and let it pass: `return next()`;
 * - change the params the handler (or, outgoing, the client) gets: `next({ ...params, _meta })`;
 * - read, replace or filter the result: `const result = await next(); return filtered`;
 * - refuse: throw an McpError (the peer gets it as it is) without calling `next`.
 * `next` may be called once; a second call throws an Error naming the interceptor and the
 * method, and the handler does not run again. `next` returns the rest's outcome as it comes
 * — the result itself when the handler answered at once, else a promise of it — and may
 * throw: `await` it (its type, `unknown`, keeps `.then` from being called on a value).
 *
 * Designed for a gateway's per-principal visibility (filter `tools/list`, refuse
 * `tools/call` of hidden tools), telemetry (observe start, end, error and result `isError`;
 * read or inject trace context in `_meta`, on incoming requests and, with
 * `{ direction: 'outgoing' }`, on the server's own requests to the client: sampling,
 * elicitation, roots, ping, and its notifications), and policy (rate limits, scopes, audit:
 * middleware.ts, auth/server/scopes.ts).
 *
 * Cost: nothing is installed until the first interceptor is registered; each registered
 * interceptor costs one context object and one `next` closure per message, and no promise
 * of its own: `next` hands the outcome through as it comes, so an interceptor that decides
 * before `next` and returns its outcome (`rateLimit`, `requireScopes`) keeps a synchronous
 * tool answered at once (bench row "instructions: server JSON/SSE", whose mcpkit server
 * registers `rateLimit`). Interceptors run
 * outside the method table's checks (they see requests the table refuses) and inside the
 * era's shaping of 2026-07-28 results (they see the handler's result as it returned it).
 */
import type { JSONObject, RequestId } from '../jsonrpc/types.js';
import type { HandlerEra } from '../protocol/handler-table.js';
import type { CallContext, InnerHandler, Layer, Middleware } from '../protocol/middleware.js';
import type { RequestOptions } from '../session/session.js';
import type { MessageInfo, SendOptions } from '../transport/types.js';
import type { Implementation } from '../types.js';
import type { ServerConnection, ServerRequestContext } from './connection.js';

/**
 * What an interceptor knows about the message it wraps: who is asking, and what. It has
 * every member of `CallContext` (a function written for the old middleware context reads
 * it the same way), each always present (undefined when it does not apply).
 */
export interface InterceptContext {
  /** `incoming`: from the client; `outgoing`: the server's own request or notification to the client. */
  readonly direction: 'incoming' | 'outgoing';
  readonly kind: 'request' | 'notification';
  readonly method: string;
  /** The params as they reach this interceptor (an outer interceptor may have changed them). */
  readonly params: JSONObject | undefined;
  /**
   * The request id: of an incoming request; of an outgoing request, once the rest of the
   * chain sent it (read it after `next`: the id is assigned below the interceptors).
   */
  readonly id: RequestId | undefined;
  /** Fires when the request is cancelled (requests with a signal). */
  readonly signal: AbortSignal | undefined;
  /** The verified auth information the transport attached (HTTP: the bearer authorizer's), if any. */
  readonly principal: unknown;
  /** The client's self-reported identity: 2026-07-28, from the request's `_meta`; 2025, from `initialize`. */
  readonly clientInfo: Implementation | undefined;
  /** The protocol era of the message. */
  readonly era: HandlerEra;
  /** The protocol revision it is served at (undefined before `initialize`). */
  readonly revision: string | undefined;
  /** The connection it came on or goes to; undefined for a 2026-07-28 request served without one (each Streamable HTTP POST). */
  readonly connection: ServerConnection | undefined;
  /** The handler's context of an incoming request (log, progress, ask the client); undefined otherwise. */
  readonly request: ServerRequestContext | undefined;
  /** Transport information of an incoming message (HTTP: headers, the auth info). */
  readonly info: MessageInfo | undefined;
  /** The transport's session id (a Streamable HTTP `Mcp-Session-Id`), when there is one. */
  readonly sessionId: string | undefined;
  /** Send options of an outgoing message. */
  readonly options: (RequestOptions & SendOptions) | undefined;
}

/**
 * Runs the rest of the chain (further interceptors, then the handler, or the send). Pass
 * params to replace those the rest sees; omit them to keep them. Returns the outcome as it
 * comes: the result, or a promise of it (`await` it); may throw. Throws when called twice.
 */
export type InterceptNext = (params?: JSONObject) => unknown;

/** A per-request interceptor (see the module note). */
export interface Interceptor {
  /** Named in error messages (default: `interceptor`). */
  readonly name?: string;
  /**
   * Handles one message: returns (or resolves to) the result the rest of the chain should
   * see — usually what `next` resolved to — or throws. A notification's result is ignored.
   */
  intercept(call: InterceptContext, next: InterceptNext): unknown;
}

/** Where an interceptor applies (default: `incoming`). */
export type InterceptDirection = 'incoming' | 'outgoing' | 'both';

/** Options of `McpServer.use(interceptor, options)`. */
export interface InterceptorOptions {
  /** Default `incoming`. */
  direction?: InterceptDirection;
}

/** The context of an incoming request: read from its handler context when asked. */
class IncomingRequestCall implements InterceptContext {
  readonly direction = 'incoming';
  readonly kind = 'request';
  readonly options = undefined;
  constructor(
    readonly request: ServerRequestContext,
    readonly method: string,
    readonly params: JSONObject | undefined,
  ) {}
  get id(): RequestId {
    return this.request.id;
  }
  get signal(): AbortSignal {
    return this.request.signal;
  }
  get info(): MessageInfo | undefined {
    return this.request.info;
  }
  get sessionId(): string | undefined {
    return this.request.sessionId;
  }
  get principal(): unknown {
    return this.request.info?.authInfo;
  }
  get clientInfo(): Implementation | undefined {
    return this.request.clientInfo;
  }
  get era(): HandlerEra {
    return this.request.era.claim === undefined ? '2025' : '2026-07-28';
  }
  get revision(): string | undefined {
    return this.request.protocolVersion;
  }
  get connection(): ServerConnection | undefined {
    return this.request.connection;
  }
}

/** The context of a notification (either direction) or of an outgoing request, on a connection. */
class ConnectionCall implements InterceptContext {
  readonly request = undefined;
  /** Set when an outgoing request is sent (see {@link outgoingMiddleware}). */
  id: RequestId | undefined = undefined;
  readonly era = '2025';
  constructor(
    readonly connection: ServerConnection,
    readonly direction: 'incoming' | 'outgoing',
    readonly kind: 'request' | 'notification',
    readonly method: string,
    readonly params: JSONObject | undefined,
    readonly info: MessageInfo | undefined,
    readonly options: (RequestOptions & SendOptions) | undefined,
  ) {}
  get signal(): AbortSignal | undefined {
    return this.options?.signal;
  }
  get sessionId(): string | undefined {
    return this.connection.sessionId;
  }
  get principal(): unknown {
    return this.info?.authInfo;
  }
  get clientInfo(): Implementation | undefined {
    return this.connection.clientInfo;
  }
  get revision(): string | undefined {
    return this.connection.protocolVersion;
  }
}

/** The error of a second `next()` call: the rest of the chain ran already and does not run again. */
function calledTwice(interceptor: Interceptor, method: string): Error {
  return new Error(
    `Interceptor "${interceptor.name ?? 'interceptor'}" called next() twice for ${method}: the rest of the chain runs once per message; keep the outcome of the first call`,
  );
}

/**
 * @internal `interceptor` as a layer of a connection's incoming chain (`connection` set) or
 * of the connectionless 2026-07-28 dispatch (`connection` undefined: only requests pass there).
 */
export function incomingLayer(interceptor: Interceptor, connection: ServerConnection | undefined): Layer {
  return (next: InnerHandler) => (method, params, ctx) => {
    const call: InterceptContext =
      ctx.kind === 'request'
        ? new IncomingRequestCall(ctx as unknown as ServerRequestContext, method, params)
        : new ConnectionCall(connection!, 'incoming', 'notification', method, params, ctx.info, undefined);
    let called = false;
    return interceptor.intercept(call, (replaced) => {
      if (called) throw calledTwice(interceptor, method);
      called = true;
      return next(method, replaced === undefined ? params : replaced, ctx);
    });
  };
}

/** @internal `interceptor` as outgoing middleware of `connection` (its requests and notifications to the client). */
export function outgoingMiddleware(interceptor: Interceptor, connection: ServerConnection): Middleware {
  return (next) => (method, params, ctx) => {
    const options = ctx.options as (RequestOptions & SendOptions) | undefined;
    const call = new ConnectionCall(connection, 'outgoing', ctx.kind, method, params, undefined, options);
    // an outgoing request learns its id when the channel assigns it, below every interceptor
    const sent: CallContext =
      ctx.kind === 'request'
        ? {
            direction: ctx.direction,
            kind: ctx.kind,
            id: ctx.id,
            signal: ctx.signal,
            info: ctx.info,
            sessionId: ctx.sessionId,
            options: {
              ...options,
              onRequestId: (id) => {
                call.id = id;
                options?.onRequestId?.(id);
              },
            },
          }
        : ctx;
    let called = false;
    try {
      return Promise.resolve(
        interceptor.intercept(call, (replaced) => {
          if (called) throw calledTwice(interceptor, method);
          called = true;
          return next(method, replaced === undefined ? params : replaced, sent);
        }),
      );
    } catch (error) {
      return Promise.reject(error);
    }
  };
}

/**
 * True when `value` is an {@link Interceptor} (an object with an `intercept` method) rather
 * than the deprecated once-per-connection middleware factory (a function `(next) => handler`).
 * The shapes cannot be confused: a function's arity is no evidence (default and rest
 * parameters hide it), so the interceptor carries an explicit method name instead.
 */
export function isInterceptor(value: unknown): value is Interceptor {
  return typeof value === 'object' && value !== null && typeof (value as Interceptor).intercept === 'function';
}
