/**
 * Serving one 2026-07-28 request without a connection: the dispatch a transport uses when
 * each request stands alone (Streamable HTTP: one POST, one request, its own reply).
 *
 * Design notes:
 * - Per request it allocates what the request needs and nothing else: its context (the
 *   handler's `ServerRequestContext`, whose `server` is undefined: there is no connection)
 *   and its era strategy (`StatelessRequest`). No session, id table, endpoint or id
 *   remapping: the request keeps the id it came with, and its reply channel (the
 *   transport's own object for the request) carries its notifications and its response.
 * - The chain is the server's: the era's `serve` outermost (it shapes the result), then the
 *   server's interceptors (and deprecated middleware), then the method table of the
 *   request's revision and the 2026-07-28 side of the server's handler table — the same
 *   `HandlerTable` the connections read. It is composed once and again only when `use()`
 *   adds to it; the interceptors themselves run per request and see who is asking.
 * - Cancellation is the transport's: when the request's stream goes away it calls
 *   {@link StatelessDispatch.cancel}; the handler's signal fires and no response is written.
 */

import { methodNotFound } from '../../jsonrpc/errors.js';
import type { JSONObject, JSONRPCErrorObject, RequestId } from '../../jsonrpc/types.js';
import { isThenable } from '../../jsonrpc/values.js';
import type { HandlerTable } from '../../protocol/handler-table.js';
import { checkIncomingRequest } from '../../protocol/incoming.js';
import { composeLayers, type InnerHandler, type Layer } from '../../protocol/middleware.js';
import type { RequestMeta } from '../../protocol/stateless/wire.js';
import type { RevisionTable } from '../../protocol/table.js';
import type { RequestChannel } from '../../session/context.js';
import { toWireError } from '../../session/session.js';
import type { MessageInfo } from '../../transport/types.js';
import { ServerRequestContext } from '../connection.js';
import type { StatelessLayer } from './layer.js';

/** Where one request's messages go: its notifications, then exactly one outcome (unless cancelled first). */
export interface StatelessReplyChannel extends RequestChannel {
  /** The request's result, shaped for the wire (`stringifyResponse` writes it). */
  result(id: RequestId, result: unknown): void;
  /** The request's error. */
  error(id: RequestId, error: JSONRPCErrorObject): void;
}

/** What the dispatch reads from its server. */
export interface StatelessDispatchHost {
  readonly layer: StatelessLayer;
  /** The capabilities this server declares (gates the table's methods). */
  ownCapabilities(): object;
  /** The table of a served revision, with the server's extensions. */
  tableOf(revision: string): RevisionTable;
  /** The server's current handler table (its `stateless` side serves here). */
  handlers(): HandlerTable<ServerRequestContext>;
  /** The layers of the chain, outermost first: the era's, then the server's interceptors and middleware. */
  layers(): readonly Layer[];
  /** Reports handler failures the client is not told about in detail. */
  reportError(error: Error): void;
}

/** A request in progress, as its transport holds it. */
export interface StatelessDispatch {
  /** Cancels the request: its signal fires with `reason` and no outcome is written. */
  cancel(reason: unknown): void;
}

/** The connectionless dispatch of one server; see the module note. Created by `McpServer`. */
export class StatelessDispatcher {
  readonly #host: StatelessDispatchHost;
  #chain: InnerHandler | undefined;

  constructor(host: StatelessDispatchHost) {
    this.#host = host;
  }

  /** Drops the composed chain (`use()` added to it); the next request composes it again. */
  invalidate(): void {
    this.#chain = undefined;
  }

  /** The end of the chain: the handler's outcome as it comes (a value or a promise); throws what the table or the handler throws. */
  readonly #terminal: InnerHandler = (method, params, ctx) => {
    const context = ctx as ServerRequestContext;
    checkIncomingRequest(context.era.claim!.table, 'server', this.#host.ownCapabilities(), method, params);
    const handler = this.#host.handlers().stateless.get(method);
    if (handler === undefined) throw methodNotFound(method);
    return handler(params, context);
  };

  /**
   * Serves request `id` (`method`, `params`) whose `_meta` the transport already checked
   * (`meta`, from `readRequestMeta`). The outcome goes to `reply` (within this call when
   * every step answered at once); the returned handle cancels. Never throws.
   */
  dispatch(
    id: RequestId,
    method: string,
    params: JSONObject | undefined,
    meta: RequestMeta,
    info: MessageInfo | undefined,
    reply: StatelessReplyChannel,
  ): StatelessDispatch {
    const ctx = new ServerRequestContext(undefined, reply, id, method, params, info, this.#host.layer.requestEra(meta, this.#host.tableOf(meta.revision)));
    const chain = (this.#chain ??= composeLayers(this.#host.layers(), this.#terminal));
    let outcome: unknown;
    try {
      outcome = chain(method, params, ctx);
    } catch (error) {
      this.#failed(ctx, reply, error);
      return ctx;
    }
    if (!isThenable(outcome)) this.#succeeded(ctx, reply, outcome);
    else
      Promise.resolve(outcome).then(
        (result) => this.#succeeded(ctx, reply, result),
        (error: unknown) => this.#failed(ctx, reply, error),
      );
    return ctx; // its cancel() is the handle
  }

  #succeeded(ctx: ServerRequestContext, reply: StatelessReplyChannel, result: unknown): void {
    const cancelled = ctx.cancelled;
    ctx.finish();
    if (!cancelled) reply.result(ctx.id, result ?? {});
  }

  #failed(ctx: ServerRequestContext, reply: StatelessReplyChannel, error: unknown): void {
    const cancelled = ctx.cancelled;
    ctx.finish();
    if (!cancelled) reply.error(ctx.id, toWireError(error, this.#host.reportError));
  }
}
