/**
 * The protocol layer: a session plus the method table of the negotiated revision.
 *
 * It answers -32601 for methods absent from the revision or gated by a capability this
 * side did not declare, -32602 for params that fail the table's check, and refuses to
 * send a request the peer did not declare a capability for. Before initialization only
 * the methods marked `beforeInit` may cross. The roles (server, client) compose an
 * endpoint with their handlers; they never branch on the revision themselves. A server
 * endpoint that accepts the stateless era (`acceptStatelessRequests`) reads each request's
 * era once, when its context is made (incoming.ts): a request whose `_meta` names a revision
 * is checked against that revision's table and served by the role's handlers of that era;
 * the reading travels on the context (the role keeps it, `claimOf` gives it back).
 */
import { LocalError, McpError, methodNotFound, toError } from '../jsonrpc/errors.js';
import type { JSONObject, RequestId } from '../jsonrpc/types.js';
import { isThenable } from '../jsonrpc/values.js';
import { RequestContext } from '../session/context.js';
import { type RequestOptions, RpcChannel, type RpcChannelHooks, type RpcChannelOptions } from '../session/session.js';
import type { MessageInfo, SendOptions, Transport } from '../transport/types.js';
import { defaultErrorReporter } from './error-report.js';
import type { HandlerTableRef, RequestHandler } from './handler-table.js';
import { checkIncomingRequest, claimStatelessEra, type StatelessClaim } from './incoming.js';
import {
  type CallContext,
  compose,
  composeLayers,
  fromMiddleware,
  type InnerHandler,
  type Layer,
  type MethodHandler,
  type Middleware,
  type MiddlewareDirection,
} from './middleware.js';
import {
  extendedTableFor,
  hasCapability,
  type MethodSpec,
  mayBeSentBy,
  PRE_INIT_TABLE,
  type ProtocolExtension,
  type RevisionTable,
  tableFor,
} from './table.js';
import { LATEST_REVISION } from './versions.js';

export type { RequestHandler };

/** Listener of one incoming notification method. */
export type NotificationListener = (params: JSONObject | undefined, info: MessageInfo | undefined) => void;

/** Options of an endpoint. */
export interface EndpointOptions extends RpcChannelOptions {
  /**
   * Reports errors the peer is not told about in detail (handler crashes, garbage input).
   * Default: one line per error on stderr (the console's error stream), with the stack when
   * the environment variable `MCPKIT_DEBUG` is set; pass `() => {}` to drop them.
   */
  onError?: (error: Error) => void;
}

const LATEST_TABLE = tableFor(LATEST_REVISION)!;

/** The extensions of an endpoint that has none. */
const NO_EXTENSIONS: readonly ProtocolExtension[] = Object.freeze([]);

class NotificationCall implements CallContext {
  readonly kind = 'notification';
  constructor(
    readonly direction: 'incoming' | 'outgoing',
    readonly info: MessageInfo | undefined,
    readonly sessionId: string | undefined,
    /** Send options of an outgoing notification (its `relatedRequestId`). */
    readonly options?: SendOptions,
  ) {}
}

class OutgoingRequestCall implements CallContext {
  readonly direction = 'outgoing';
  readonly kind = 'request';
  constructor(
    readonly options: RequestOptions | undefined,
    readonly sessionId: string | undefined,
  ) {}
}

/** A protocol endpoint: one connection, one role. */
export class Endpoint<C extends RequestContext = RequestContext> {
  readonly role: 'client' | 'server';
  readonly session: RpcChannel;
  #table: RevisionTable = PRE_INIT_TABLE;
  /** Protocol extensions added with {@link extend}; created by the first one. */
  #extensions: ProtocolExtension[] | undefined = undefined;
  #ownCapabilities: JSONObject = {};
  #peerCapabilities: JSONObject | undefined;
  #initialized = false;
  /**
   * The per-connection overlay: handlers set on this endpoint ({@link setRequestHandler}),
   * consulted before the role's table for every request of this connection. Created by the
   * first registration.
   */
  #connectionHandlers: Map<string, RequestHandler<C>> | undefined;
  /** The role's handler table (handler-table.ts), read per request: the role swaps it whole. */
  readonly #handlerTable: HandlerTableRef<C> | undefined;
  readonly #claimOf: ((ctx: C) => StatelessClaim | undefined) | undefined;
  #listeners: Map<string, Set<NotificationListener>> | undefined;
  /** Incoming layers and outgoing middleware, created by the first `use()`/`layer()` of each (sized exactly: a connection adds a few, once). */
  #incomingLayers: Layer[] | undefined = undefined;
  #outgoingMiddleware: Middleware[] | undefined = undefined;
  /** The incoming chain: answers at once when every layer can (see `InnerHandler`). */
  #incoming: InnerHandler;
  #outgoing: MethodHandler | undefined;
  readonly #onError: ((error: Error) => void) | undefined;
  /** One close listener as it is, several in an array (most connections have one). */
  #closeListeners: ((reason: Error | undefined) => void) | Array<(reason: Error | undefined) => void> | undefined = undefined;
  /** True once the peer sent `notifications/initialized` (and it passed the middleware). */
  #peerInitialized = false;

  constructor(
    role: 'client' | 'server',
    transport: Transport,
    options: EndpointOptions & {
      /**
       * Makes the context of an incoming request; `claim` is its 2026-07-28 era reading
       * (undefined: a 2025-era request). The role keeps the claim on the context and gives it
       * back through `claimOf`.
       */
      createContext?: (
        session: RpcChannel,
        id: RequestId,
        method: string,
        params: JSONObject | undefined,
        info: MessageInfo | undefined,
        claim: StatelessClaim | undefined,
      ) => C;
      /** The era reading a context was made with (see `createContext`). */
      claimOf?: (ctx: C) => StatelessClaim | undefined;
      /**
       * The role's handler table, shared by many endpoints (a server's connections): 2025-era
       * requests read `current.session`, 2026-07-28 requests `current.stateless`, after this
       * endpoint's own handlers. Never modified through this endpoint.
       */
      handlers?: HandlerTableRef<C>;
    } = {},
  ) {
    this.role = role;
    this.#onError = options.onError ?? defaultErrorReporter(role);
    this.#handlerTable = options.handlers;
    this.#claimOf = options.claimOf;
    this.#incoming = this.#terminalIncoming;
    this.#createContext = options.createContext;
    this.session = new RpcChannel(transport, new Endpoint.#Hooks(this), options);
  }

  readonly #createContext:
    | ((
        session: RpcChannel,
        id: RequestId,
        method: string,
        params: JSONObject | undefined,
        info: MessageInfo | undefined,
        claim: StatelessClaim | undefined,
      ) => C)
    | undefined;

  /**
   * The session's hooks: one small object per endpoint whose methods (on the prototype)
   * reach the endpoint's private ones, instead of an object and six closures.
   */
  static readonly #Hooks = class EndpointHooks implements RpcChannelHooks {
    // biome-ignore lint/suspicious/noExplicitAny: one hooks class serves endpoints of every context type
    readonly #endpoint: Endpoint<any>;
    // biome-ignore lint/suspicious/noExplicitAny: as above
    constructor(endpoint: Endpoint<any>) {
      this.#endpoint = endpoint;
    }
    request(ctx: RequestContext): Promise<unknown> | unknown {
      return this.#endpoint.#onRequest(ctx);
    }
    notification(method: string, params: JSONObject | undefined, info: MessageInfo | undefined): void {
      this.#endpoint.#onNotification(method, params, info);
    }
    batchesAllowed(): boolean {
      return this.#endpoint.#table.batches;
    }
    protocolVersion(): string | undefined {
      return this.#endpoint.revision;
    }
    createContext(
      session: RpcChannel,
      id: RequestId,
      method: string,
      params: JSONObject | undefined,
      info: MessageInfo | undefined,
    ): RequestContext | McpError {
      const ep = this.#endpoint;
      const create = ep.#createContext;
      if (create === undefined) return new RequestContext(session, id, method, params, info);
      const claim = claimStatelessEra(params, ep.#statelessRevisions, ep.#statelessTable);
      return claim instanceof McpError ? claim : create(session, id, method, params, info, claim);
    }
    error(error: Error): void {
      this.#endpoint.#onError?.(error);
    }
    closed(reason: Error | undefined): void {
      const listeners = this.#endpoint.#closeListeners;
      if (typeof listeners === 'function') listeners(reason);
      else if (listeners !== undefined) for (const listener of listeners) listener(reason);
    }
  };

  /** The negotiated revision, once known. */
  get revision(): string | undefined {
    return this.#table === PRE_INIT_TABLE ? undefined : this.#table.revision;
  }

  /** The active method table. */
  get table(): RevisionTable {
    return this.#table;
  }

  /** True once initialization completed (server: `initialize` answered; client: handshake done). */
  get initialized(): boolean {
    return this.#initialized;
  }

  /**
   * True once the peer's `notifications/initialized` arrived (after the middleware let it
   * through, before its listeners run). A client endpoint never receives it.
   */
  get peerInitialized(): boolean {
    return this.#peerInitialized;
  }

  get ownCapabilities(): JSONObject {
    return this.#ownCapabilities;
  }

  get peerCapabilities(): JSONObject | undefined {
    return this.#peerCapabilities;
  }

  /** Sets this side's declared capabilities (before connecting). */
  setOwnCapabilities(caps: JSONObject): void {
    this.#ownCapabilities = caps;
  }

  /**
   * Switches to the table of `revision` and records the peer's capabilities. Called by the
   * role once the handshake settled the revision. Throws LocalError
   * `unsupported_protocol_version` for a revision without a table.
   */
  negotiated(revision: string, peerCapabilities: JSONObject): void {
    const table = extendedTableFor(revision, this.#extensions ?? NO_EXTENSIONS);
    if (!table) throw new LocalError('unsupported_protocol_version', `Protocol version ${revision} is not supported`);
    this.#table = table;
    this.#peerCapabilities = peerCapabilities;
  }

  /** Marks initialization complete: all methods of the revision may now cross. */
  markInitialized(): void {
    this.#initialized = true;
  }

  /**
   * Adds a protocol extension's method-table entries. Call before the revision is
   * negotiated; throws LocalError `already_connected` after.
   */
  extend(extension: ProtocolExtension): void {
    if (this.#table !== PRE_INIT_TABLE) throw new LocalError('already_connected', 'Extensions must be added before the revision is negotiated');
    // concat: an array of exactly the length (push would leave room for 16 more)
    if (this.#extensions === undefined) this.#extensions = [extension];
    else if (!this.#extensions.some((e) => e.name === extension.name)) this.#extensions = this.#extensions.concat(extension);
    this.#statelessTables?.clear();
  }

  /**
   * Registers the handler of an incoming request method on this connection only (replacing
   * any earlier one): the per-connection overlay, consulted before the role's handler table
   * for every request of this connection, of either era.
   */
  setRequestHandler(method: string, handler: RequestHandler<C>): void {
    (this.#connectionHandlers ??= new Map()).set(method, handler);
  }

  /**
   * The handler of a 2025-era request of `method` on this connection (its own, else the
   * role's), if any. Lets an extension wrap a role's handler: read it, then register a
   * handler that delegates to it.
   */
  getRequestHandler(method: string): RequestHandler<C> | undefined {
    return this.#connectionHandlers?.get(method) ?? this.#handlerTable?.current.session.get(method);
  }

  /** Adds a listener for an incoming notification; returns a function that removes it. */
  on(method: string, listener: NotificationListener): () => void {
    const listeners = (this.#listeners ??= new Map());
    let set = listeners.get(method);
    if (!set) listeners.set(method, (set = new Set()));
    set.add(listener);
    return () => set!.delete(listener);
  }

  /** Adds a listener for the end of the connection. */
  onClose(listener: (reason: Error | undefined) => void): void {
    const listeners = this.#closeListeners;
    if (listeners === undefined) this.#closeListeners = listener;
    else if (typeof listeners === 'function') this.#closeListeners = [listeners, listener];
    else this.#closeListeners = listeners.concat(listener);
  }

  /** Adds middleware; the first added runs outermost (after the layers added before it). */
  use(middleware: Middleware, direction: MiddlewareDirection = 'incoming'): void {
    if (direction !== 'outgoing') this.layer(fromMiddleware(middleware));
    if (direction !== 'incoming') {
      const list = (this.#outgoingMiddleware = this.#outgoingMiddleware === undefined ? [middleware] : this.#outgoingMiddleware.concat(middleware));
      this.#outgoing = compose(list, (method, params, ctx) =>
        ctx.kind === 'request' ? this.session.request(method, params, ctx.options) : this.session.notify(method, params, ctx.options),
      );
    }
  }

  /**
   * @internal Takes outgoing `middleware` (added with {@link use}) out of the chain again; the
   * others keep their order. Without any left, requests go straight to the session.
   */
  removeOutgoing(middleware: Middleware): void {
    const list = this.#outgoingMiddleware?.filter((m) => m !== middleware);
    if (list === undefined || list.length === this.#outgoingMiddleware!.length) return;
    this.#outgoingMiddleware = list.length === 0 ? undefined : list;
    this.#outgoing =
      list.length === 0
        ? undefined
        : compose(list, (method, params, ctx) =>
            ctx.kind === 'request' ? this.session.request(method, params, ctx.options) : this.session.notify(method, params, ctx.options),
          );
  }

  /** @internal Adds a layer to the incoming chain (see `Layer`); the first added runs outermost. */
  layer(layer: Layer): void {
    const list = (this.#incomingLayers = this.#incomingLayers === undefined ? [layer] : this.#incomingLayers.concat(layer));
    this.#incoming = composeLayers(list, this.#terminalIncoming);
  }

  // ───────────── outgoing ─────────────

  /**
   * Sends a request of the active revision. Throws LocalError `method_unsupported` when the
   * method does not exist in it or is not this role's to send, `capability_missing` when the
   * peer did not declare the capability it needs.
   */
  request(method: string, params: JSONObject | undefined, options?: RequestOptions): Promise<unknown> {
    const spec = this.#table.methods.get(method);
    const problem = this.#checkOutgoing(spec, method, 'request');
    if (problem) return Promise.reject(problem);
    if (this.#outgoing) return this.#outgoing(method, params, new OutgoingRequestCall(options, this.session.transportSessionId));
    return this.session.request(method, params, options);
  }

  /**
   * @internal Sends a request through the outgoing middleware without the method table's
   * checks: the era probe (`server/discover`), sent before any revision is agreed, so that
   * middleware (telemetry) sees it like every other request.
   */
  requestUnchecked(method: string, params: JSONObject | undefined, options?: RequestOptions): Promise<unknown> {
    if (this.#outgoing) return this.#outgoing(method, params, new OutgoingRequestCall(options, this.session.transportSessionId));
    return this.session.request(method, params, options);
  }

  /** Sends a notification of the active revision; gating as for {@link request}. */
  notify(method: string, params?: JSONObject, options?: SendOptions): Promise<void> {
    const spec = this.#table.methods.get(method);
    const problem = this.#checkOutgoing(spec, method, 'notification');
    if (problem) return Promise.reject(problem);
    if (this.#outgoing)
      return this.#outgoing(method, params, new NotificationCall('outgoing', undefined, this.session.transportSessionId, options)).then(() => undefined);
    return this.session.notify(method, params, options);
  }

  /** True when `method` may be sent now (exists, is ours to send, capability declared). */
  canSend(method: string): boolean {
    const spec = this.#table.methods.get(method);
    return this.#checkOutgoing(spec, method, spec?.kind ?? 'request') === undefined;
  }

  #checkOutgoing(spec: MethodSpec | undefined, method: string, kind: 'request' | 'notification'): LocalError | undefined {
    if (spec === undefined || spec.kind !== kind || !mayBeSentBy(spec, this.role)) {
      const when = this.#table === PRE_INIT_TABLE ? 'before initialization' : `in protocol revision ${this.#table.revision}`;
      return new LocalError('method_unsupported', `${method} cannot be sent by the ${this.role} ${when}`);
    }
    const gate = spec.gate;
    if (gate !== undefined) {
      const caps = gate.holder === 'receiver' ? this.#peerCapabilities : this.#ownCapabilities;
      if (!hasCapability(caps, gate.path)) {
        const whose = gate.holder === 'receiver' ? `the ${this.role === 'client' ? 'server' : 'client'} did not` : 'this side did not';
        return new LocalError('capability_missing', `${method} needs the "${gate.path.join('.')}" capability, which ${whose} declare`);
      }
    }
    return undefined;
  }

  // ───────────── incoming ─────────────

  #onRequest(ctx: C): Promise<unknown> | unknown {
    // Middleware runs outermost, so it sees every request, including those the table refuses.
    return this.#incoming(ctx.method, ctx.params, ctx as unknown as CallContext);
  }

  /**
   * Serves incoming requests that claim the stateless era (their `_meta` names a protocol
   * version, see stateless/wire.ts) at the revision they name, checked against that revision's
   * table whatever this connection negotiated: a request naming a revision outside
   * `revisions` gets -32022, one with malformed per-request metadata -32602. Called by the
   * server role before its transport starts; an empty list turns it off (the default).
   */
  acceptStatelessRequests(revisions: readonly string[]): void {
    this.#statelessRevisions = revisions;
  }

  #statelessRevisions: readonly string[] = [];
  /** The (extended) table of each stateless revision served, looked up once; created by the first stateless request. */
  #statelessTables: Map<string, RevisionTable> | undefined = undefined;

  /** The table of stateless revision `revision` (a method: `claimStatelessEra` calls it only for a stateless request). */
  #statelessTable = (revision: string): RevisionTable => {
    const tables = (this.#statelessTables ??= new Map());
    let found = tables.get(revision);
    if (found === undefined) tables.set(revision, (found = extendedTableFor(revision, this.#extensions ?? NO_EXTENSIONS) ?? this.#table));
    return found;
  };

  /** The end of the incoming chain: returns the handler's outcome as it comes (a value or a promise); throws what the table or the handler throws. */
  readonly #terminalIncoming: InnerHandler = (method, params, ctx) => {
    if (ctx.kind === 'notification') {
      this.#deliverNotification(method, params, ctx.info);
      return undefined;
    }
    const claim = this.#statelessRevisions.length > 0 ? this.#claimOf?.(ctx as unknown as C) : undefined;
    if (claim !== undefined) {
      checkIncomingRequest(claim.table, this.role, this.#ownCapabilities, method, params);
      const handler = this.#connectionHandlers?.get(method) ?? this.#handlerTable?.current.stateless.get(method);
      if (handler === undefined) throw methodNotFound(method);
      return handler(params, ctx as unknown as C);
    }
    checkIncomingRequest(this.#table, this.role, this.#ownCapabilities, method, params);
    const handler = this.#connectionHandlers?.get(method) ?? this.#handlerTable?.current.session.get(method);
    if (handler === undefined) throw methodNotFound(method);
    return handler(params, ctx as unknown as C);
  };

  #onNotification(method: string, params: JSONObject | undefined, info: MessageInfo | undefined): void {
    const spec = this.#table.methods.get(method) ?? (this.#table === PRE_INIT_TABLE ? LATEST_TABLE.methods.get(method) : undefined);
    // Unknown notifications and those not meant for this role are ignored (JSON-RPC: no reply).
    if (spec === undefined || spec.kind !== 'notification' || (mayBeSentBy(spec, this.role) && spec.direction !== 'both')) return;
    if (spec.params !== undefined) {
      const problem = spec.params(params);
      if (problem !== undefined) {
        this.#onError?.(new LocalError('invalid_message', `Ignored ${method}: ${problem}`));
        return;
      }
    }
    if (this.#incomingLayers === undefined) {
      this.#deliverNotification(method, params, info);
      return;
    }
    try {
      const outcome = this.#incoming(method, params, new NotificationCall('incoming', info, this.session.transportSessionId));
      if (isThenable(outcome)) outcome.then(undefined, (err: unknown) => this.#onError?.(toError(err)));
    } catch (err) {
      this.#onError?.(toError(err));
    }
  }

  /** A notification that passed the table and the middleware: noted, then handed to its listeners. */
  #deliverNotification(method: string, params: JSONObject | undefined, info: MessageInfo | undefined): void {
    if (method === 'notifications/initialized') this.#peerInitialized = true;
    const set = this.#listeners?.get(method);
    if (set) for (const listener of set) listener(params, info);
  }
}

export { RequestContext };
