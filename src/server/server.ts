/**
 * The MCP server: registries shared by every connection, and `connect()` that makes a
 * {@link ServerConnection} per transport. One server object serves any number of clients;
 * each connection has its own state, so nothing leaks between clients. Every connection
 * serves both eras: 2025-era requests after `initialize`, and stateless-era (2026-07-28)
 * requests whenever they come, each by itself (stateless/layer.ts).
 *
 * Which function answers a request: one {@link HandlerTable} (protocol/handler-table.ts),
 * built from what {@link McpServer.handle} and {@link McpServer.wrap} registered, read by
 * every connection's endpoint and by the connectionless dispatch; a connection's own
 * handlers (set in `onConnect`) come first on that connection. Around every request:
 * the era's shaping, then the interceptors of {@link McpServer.use} (interceptors.ts).
 */

import { LocalError } from '../jsonrpc/errors.js';
import type { JSONObject, RequestId } from '../jsonrpc/types.js';
import type { EndpointOptions } from '../protocol/endpoint.js';
import { defaultErrorReporter } from '../protocol/error-report.js';
import {
  type HandlerEra,
  type HandlerOptions,
  HandlerRegistry,
  type HandlerTable,
  type HandlerWrapper,
  type RequestHandler,
} from '../protocol/handler-table.js';
import type { StatelessClaim } from '../protocol/incoming.js';
import { Notification } from '../protocol/methods.js';
import { fromMiddleware, type Layer, type Middleware, type MiddlewareDirection } from '../protocol/middleware.js';
import { isStatelessRevision, type RequestMeta, STATELESS_REVISIONS } from '../protocol/stateless/wire.js';
import type { ProtocolExtension } from '../protocol/table.js';
import { extendedTableFor, type RevisionTable } from '../protocol/table.js';
import { STATEFUL_REVISIONS } from '../protocol/versions.js';
import type { JsonSchemaValidator } from '../schema/types.js';
import type { MessageInfo, Transport } from '../transport/types.js';
import type { Implementation, LoggingLevel, PromptArgument, ServerCapabilities, Tool } from '../types.js';
import { registerBuiltinHandlers } from './builtin-handlers.js';
import { ServerConnection, type ServerCore, type ServerRequestContext } from './connection.js';
import type { ServerEra } from './era.js';
import type { PromptArgs, ToolArgs, ToolStructured } from './infer.js';
import { type InterceptDirection, type Interceptor, type InterceptorOptions, incomingLayer, isInterceptor, outgoingMiddleware } from './interceptors.js';
import { type PromptConfig, type PromptHandler, PromptRegistry, type RegisteredPrompt } from './prompts.js';
import {
  type RegisteredResource,
  type ResourceMetadata,
  type ResourceReader,
  ResourceRegistry,
  type ResourceTemplateConfig,
  type TemplateReader,
} from './resources.js';
import { isSharedListChanged, localDelivery, type SharedChange, type SharedNotifier } from './shared-notifications.js';
import { type StatelessDispatch, StatelessDispatcher, type StatelessReplyChannel } from './stateless/dispatch.js';
import { StatelessLayer, type StatelessServerOptions } from './stateless/layer.js';
import { type SubscriptionLimitOptions, type SubscriptionLimits, subscriptionLimits } from './subscription-limits.js';
import { type RawToolHandler, type RegisteredTool, type ToolConfig, type ToolHandlerFor, ToolRegistry, type UserSchema } from './tools.js';

/** Per-connection overrides of {@link McpServer.connect}. */
export interface ConnectOptions {
  /**
   * Most requests of this connection handled at once (default: `ServerOptions.maxInFlight`).
   * Transports that carry many clients on one connection raise it.
   */
  maxInFlight?: number;
}

/** Options of a server. */
export interface ServerOptions extends EndpointOptions {
  /** Sent to clients in the initialize result. */
  instructions?: string;
  /**
   * Capabilities declared in addition to those derived from the registries (merged over them).
   * The capabilities are fixed when the server starts serving (its first connection or
   * `ready()`): a server that registers tools, resources or prompts only after that declares
   * them here, e.g. `{ tools: { listChanged: true } }` (a registration of a kind not declared
   * by then throws a TypeError naming this option).
   */
  capabilities?: ServerCapabilities;
  /** Items per page of every list method. Default 100. */
  pageSize?: number;
  /**
   * Revisions this server speaks, of either era (default: every revision mcpkit speaks). The
   * stateful ones are negotiated by `initialize`; the stateless ones (2026-07-28) are served
   * per request. A list without stateless revisions turns that era off.
   */
  protocolVersions?: readonly string[];
  /** The stateless era (2026-07-28): request-state protection, caching hints, identity. */
  stateless?: StatelessServerOptions;
  /** Log level applied before a client sets one. Default: everything is sent. */
  defaultLogLevel?: LoggingLevel;
  /** JSON Schema validator for tool schemas (default: ajv, 2020-12 unless declared). */
  jsonSchemaValidator?: JsonSchemaValidator;
  /**
   * Bounds on resource subscriptions (see {@link SubscriptionLimitOptions}): default at most
   * 1000 URIs per session or per `subscriptions/listen`, each at most 4096 characters.
   */
  subscriptions?: SubscriptionLimitOptions;
  /**
   * Shares `notifications/resources/updated` and the `list_changed` notifications with the
   * other instances of a deployment (mcpkit/redis's `RedisNotifier`; see
   * shared-notifications.ts): a change raised here is published, and a change raised
   * elsewhere reaches this instance's subscribers — 2025-era sessions it holds (over
   * Streamable HTTP: from the instance their GET stream is attached to, exactly once) and
   * its open `subscriptions/listen` requests. Registry changes made before the server
   * serves (before the first connection or {@link McpServer.ready}) are not published.
   * Failures to publish go to `onError`. Default: none (changes stay on this instance).
   */
  notifier?: SharedNotifier;
}

/**
 * The outermost incoming layer of every connection of a server that serves the 2026-07-28
 * era, and of its connectionless dispatch: the request's era strategy runs it (2025 era:
 * unchanged; 2026-07-28: its result shaped). Notifications pass.
 */
const ERA_LAYER: Layer = (next) => (method, params, ctx) =>
  ctx.kind === 'request'
    ? (ctx as unknown as ServerRequestContext).era.serve(next, method, params, ctx as unknown as ServerRequestContext)
    : next(method, params, ctx);

/** One `use()` registration: an interceptor, or a deprecated once-per-connection middleware. */
type UseEntry =
  | { readonly interceptor: Interceptor; readonly direction: InterceptDirection }
  | { readonly middleware: Middleware; readonly direction: MiddlewareDirection };

/** The server's current handler table; swapped whole by a registration after it was built. */
interface TableSlot {
  current: HandlerTable<ServerRequestContext>;
}

/** An MCP server. */
export class McpServer implements ServerCore {
  readonly info: Implementation;
  readonly instructions: string | undefined;
  readonly revisions: readonly string[];
  readonly defaultLogLevel: LoggingLevel | undefined;
  /** Bounds on resource subscriptions (`ServerOptions.subscriptions`, defaults applied). */
  readonly subscriptionLimits: SubscriptionLimits;
  readonly tools: ToolRegistry;
  readonly resources: ResourceRegistry;
  readonly prompts: PromptRegistry;
  readonly #options: ServerOptions;
  readonly #pageSize: number;
  readonly #sessions = new Set<ServerConnection>();
  /** What `use()` registered, in order (the first runs outermost). */
  readonly #uses: UseEntry[] = [];
  /** Every handler registration (`handle`, `wrap` and the built-in ones). */
  readonly #registry = new HandlerRegistry<ServerRequestContext>();
  /** The table built from {@link #registry}; undefined until first needed. */
  #table: TableSlot | undefined;
  readonly #extensions: ProtocolExtension[] = [];
  readonly #pendingChanges = new Set<string>();
  #capabilities: ServerCapabilities | undefined;
  /** The stateless era's middleware, handlers and subscriptions. */
  readonly #stateless: StatelessLayer;
  /** `ServerOptions.notifier`, and what this server shares through it. */
  readonly #notifier: SharedNotifier | undefined;
  #offShared: (() => void) | undefined;
  /** list_changed methods raised since the last flush that the other instances are told about. */
  readonly #publishChanges = new Set<string>();
  /** The transport of each connection, kept only with a notifier (instance-local delivery). */
  readonly #transports = new WeakMap<ServerConnection, Transport>();
  readonly #report: (error: Error) => void;

  constructor(info: Implementation, options: ServerOptions = {}) {
    this.info = info;
    this.#options = options;
    this.subscriptionLimits = subscriptionLimits(options.subscriptions);
    this.instructions = options.instructions;
    this.revisions = options.protocolVersions?.filter((v) => !isStatelessRevision(v)) ?? STATEFUL_REVISIONS;
    this.#stateless = new StatelessLayer(this, options.protocolVersions?.filter(isStatelessRevision) ?? STATELESS_REVISIONS, options.stateless);
    this.defaultLogLevel = options.defaultLogLevel;
    this.#pageSize = options.pageSize ?? 100;
    if (!(this.#pageSize >= 1)) throw new RangeError('pageSize must be at least 1');
    const report = options.onError ?? defaultErrorReporter('server');
    this.#report = report;
    this.#notifier = options.notifier;
    this.#offShared = options.notifier?.onNotification((change) => this.#sharedArrived(change));
    this.tools = new ToolRegistry(() => this.#changed(Notification.ToolsListChanged), options.jsonSchemaValidator, report);
    this.resources = new ResourceRegistry(() => this.#changed(Notification.ResourcesListChanged));
    this.prompts = new PromptRegistry(() => this.#changed(Notification.PromptsListChanged));
    registerBuiltinHandlers(this.#registry, {
      tools: this.tools,
      resources: this.resources,
      prompts: this.prompts,
      pageSize: this.#pageSize,
      stateless: this.#stateless,
    });
  }

  // ───────────── registration ─────────────

  /**
   * Registers a typed tool (validated input, tool errors for failures). The handler's
   * arguments are typed from `inputSchema` and its `structuredContent` from `outputSchema`
   * (a Standard Schema's types, or a JSON Schema literal's; see infer.ts). Throws TypeError
   * for a bad or duplicate name and SchemaError for a schema that is not an object schema or
   * breaks its dialect's rules (the message names the JSON Pointer). See {@link ToolRegistry.register}.
   */
  registerTool<const I extends UserSchema | undefined = undefined, const O extends UserSchema | undefined = undefined>(
    name: string,
    config: ToolConfig<I, O>,
    handler: ToolHandlerFor<I, O>,
  ): RegisteredTool<ToolArgs<I>, ToolStructured<O>> {
    this.#mayServe('tools', `tool ${JSON.stringify(name)}`);
    return this.tools.register(name, config, handler);
  }

  /** Registers a raw tool (no validation; params in, wire result out). */
  registerRawTool(definition: Tool, handler: RawToolHandler): RegisteredTool {
    this.#mayServe('tools', `tool ${JSON.stringify(definition.name)}`);
    return this.tools.registerRaw(definition, handler);
  }

  /** Registers a static resource. */
  registerResource(uri: string, metadata: ResourceMetadata, read: ResourceReader): RegisteredResource {
    this.#mayServe('resources', `resource ${uri}`);
    return this.resources.register(uri, metadata, read);
  }

  /** Registers an RFC 6570 resource template. */
  registerResourceTemplate(uriTemplate: string, config: ResourceTemplateConfig, read: TemplateReader): RegisteredResource {
    this.#mayServe('resources', `resource template ${uriTemplate}`);
    return this.resources.registerTemplate(uriTemplate, config, read);
  }

  /**
   * Registers a prompt. The handler's arguments are typed from the declared list: a string
   * for each required argument, an optional string for each other one. Throws TypeError for
   * an empty or duplicate name.
   */
  registerPrompt<const A extends readonly PromptArgument[] | undefined = undefined>(
    name: string,
    config: PromptConfig<A>,
    handler: PromptHandler<PromptArgs<A>>,
  ): RegisteredPrompt {
    this.#mayServe('prompts', `prompt ${JSON.stringify(name)}`);
    return this.prompts.register(name, config, handler);
  }

  /**
   * Adds a per-request interceptor (interceptors.ts) to every request the server serves —
   * on every connection, present and future, and on the connectionless 2026-07-28 dispatch —
   * and, with `direction: 'incoming'` (the default) or `'both'`, to every incoming
   * notification; with `'outgoing'` or `'both'`, to the server's requests and notifications
   * to its clients. The first registered runs outermost. Throws TypeError for anything
   * that is neither an interceptor nor a middleware function.
   */
  use(interceptor: Interceptor, options?: InterceptorOptions | InterceptDirection): this;
  /**
   * @deprecated the once-per-connection form: `middleware(next)` is called once for each
   * connection (and once for the connectionless dispatch), so state it keeps around `next`
   * is per connection, and it does not see who is asking. Pass an {@link Interceptor}
   * (`{ intercept(call, next) }`) instead; see docs/migrating.md › Handler verbs.
   */
  use(middleware: Middleware, direction?: MiddlewareDirection): this;
  use(entry: Interceptor | Middleware, options?: InterceptorOptions | InterceptDirection): this {
    const direction = (typeof options === 'string' ? options : options?.direction) ?? 'incoming';
    if (direction !== 'incoming' && direction !== 'outgoing' && direction !== 'both')
      throw new TypeError(`use(): direction must be 'incoming', 'outgoing' or 'both', not ${JSON.stringify(direction)}`);
    // an interceptor is an object with an `intercept` method; the old form is a bare function (see isInterceptor)
    let item: UseEntry;
    if (isInterceptor(entry)) item = { interceptor: entry, direction };
    else if (typeof entry === 'function') item = { middleware: entry, direction };
    else throw new TypeError('use() takes an interceptor ({ intercept(call, next) { ... } }) or, deprecated, a middleware function (next) => handler');
    this.#uses.push(item);
    for (const connection of this.#sessions) this.#install(connection, item);
    this.#dispatcher?.invalidate();
    return this;
  }

  /** Adds one `use()` registration to a connection's chains. */
  #install(connection: ServerConnection, item: UseEntry): void {
    const ep = connection.endpoint;
    if ('middleware' in item) {
      ep.use(item.middleware, item.direction);
      return;
    }
    if (item.direction !== 'outgoing') ep.layer(incomingLayer(item.interceptor, connection));
    if (item.direction !== 'incoming') ep.use(outgoingMiddleware(item.interceptor, connection), 'outgoing');
  }

  // ───────────── handlers ─────────────

  /**
   * Sets the function that answers request `method`: for both eras by default, or for one
   * (`{ era: '2025' }`: requests of connections that ran `initialize`; `{ era: '2026-07-28' }`:
   * requests that carry their version in `_meta`, with or without a connection). An era's
   * own handler wins over the both-eras one; a handler set on one connection
   * (`connection.endpoint.setRequestHandler` in {@link onConnect}) wins over both there.
   * Replaces the built-in handler of a method (`tools/call`, …) or an earlier one of the
   * same scope. The method must be in the revision's method table (or an extension's,
   * {@link extend}) to be reached. Registering after the server started serving builds a
   * new handler table and swaps it in at once: requests already running keep theirs.
   */
  handle(method: string, handler: RequestHandler<ServerRequestContext>, options?: HandlerOptions): this {
    this.#registry.handle(method, handler, options?.era);
    this.#rebuild();
    return this;
  }

  /**
   * Wraps the handler of request `method` (for both eras by default, or `options.era`):
   * it is served by `wrapper(current)`, whatever handler is set for it now or later with
   * {@link handle}. Several wrappers nest, the first added innermost. A method without a
   * handler stays without one (-32601). Swaps the table as {@link handle} does.
   */
  wrap(method: string, wrapper: HandlerWrapper<ServerRequestContext>, options?: HandlerOptions): this {
    this.#registry.wrap(method, wrapper, options?.era);
    this.#rebuild();
    return this;
  }

  /**
   * @internal The handler that serves request `method` in `era` now, every `handle` and
   * `wrap` applied whatever their order (building the table when it is not built yet), or
   * undefined when none does. For transforms that read what the server serves (mcpkit/compose's
   * `searchTools` reads the whole `tools/list`); interceptors are not part of it.
   */
  handlerOf(method: string, era: HandlerEra): RequestHandler<ServerRequestContext> | undefined {
    return this.#handlers().current.get(era, method);
  }

  /** The handler table every connection and the connectionless dispatch read (built on first use). */
  #handlers(): TableSlot {
    return (this.#table ??= { current: this.#registry.build() });
  }

  /** After a registration: a built table is replaced by a new one (never modified). */
  #rebuild(): void {
    if (this.#table !== undefined) this.#table.current = this.#registry.build();
  }

  /** @deprecated use {@link handle}: `server.handle(method, handler)` (both eras). */
  setRequestHandler(method: string, handler: RequestHandler<ServerRequestContext>): this {
    return this.handle(method, handler);
  }

  /** @deprecated use {@link handle} with the era: `server.handle(method, handler, { era: '2025' })`. */
  setSessionHandler(method: string, handler: RequestHandler<ServerRequestContext>): this {
    return this.handle(method, handler, { era: '2025' });
  }

  /** @deprecated use {@link wrap} with the era: `server.wrap(method, wrapper, { era: '2025' })`. */
  wrapSessionHandler(method: string, wrapper: HandlerWrapper<ServerRequestContext>): this {
    return this.wrap(method, wrapper, { era: '2025' });
  }

  /** @deprecated use {@link handle} with the era: `server.handle(method, handler, { era: '2026-07-28' })`. */
  setStatelessHandler(method: string, handler: RequestHandler<ServerRequestContext>): this {
    return this.handle(method, handler, { era: '2026-07-28' });
  }

  /**
   * @deprecated to add behaviour around a handler use {@link wrap} (`{ era: '2026-07-28' }`),
   * which also wraps a handler set later. Returns the current 2026-07-28 handler of `method`.
   */
  statelessHandler(method: string): RequestHandler<ServerRequestContext> | undefined {
    return this.#handlers().current.stateless.get(method);
  }

  /**
   * Adds a protocol extension's method-table entries to every future connection (for
   * example tasks), and the capabilities it declares (add it before the first connection,
   * which fixes the capabilities). Its handlers are installed with `onConnect`.
   */
  extend(extension: ProtocolExtension): this {
    this.#extensions.push(extension);
    return this;
  }

  /**
   * Refuses a registration the clients could never use: once the server serves (its first
   * connection, or {@link ready}), its capabilities are fixed (they were sent in
   * `initialize` and `server/discover`), and a client does not call `tools/*`,
   * `resources/*` or `prompts/*` of a server that did not declare them.
   */
  #mayServe(kind: 'tools' | 'resources' | 'prompts', what: string): void {
    const caps = this.#capabilities;
    if (caps === undefined || caps[kind] !== undefined) return;
    const declared = kind === 'resources' ? '{ resources: { subscribe: true, listChanged: true } }' : `{ ${kind}: { listChanged: true } }`;
    throw new TypeError(
      `Cannot register ${what}: this server already serves without the "${kind}" capability (nothing of the kind was registered when it first connected), so its clients were told it has no ${kind}. ` +
        `Declare the capability up front with the option capabilities: ${declared} (new McpServer(info, { capabilities: ${declared} })), or register before connect()`,
    );
  }

  /** Calls `listener` with every new connection, before its transport starts (to install handlers). */
  onConnect(listener: (connection: ServerConnection) => void): this {
    this.#connectListeners.push(listener);
    return this;
  }

  readonly #connectListeners: Array<(connection: ServerConnection) => void> = [];

  // ───────────── capabilities ─────────────

  /**
   * The capabilities declared at initialization: derived from what is registered
   * (fixed at the first connection) and merged with `options.capabilities`. A tool,
   * resource or prompt registered later must be of a kind declared by then.
   */
  capabilities(): ServerCapabilities {
    if (this.#capabilities) return this.#capabilities;
    const caps: ServerCapabilities = { logging: {} };
    if (this.tools.size > 0) caps.tools = { listChanged: true };
    if (this.resources.size > 0) caps.resources = { subscribe: true, listChanged: true };
    if (this.prompts.size > 0) caps.prompts = { listChanged: true };
    if (this.prompts.size > 0 || this.resources.size > 0) caps.completions = {};
    for (const ext of this.#extensions) Object.assign(caps, ext.capabilities?.('server', caps));
    return (this.#capabilities = { ...caps, ...this.#options.capabilities });
  }

  /**
   * The capabilities `server/discover` declares (stateless era): {@link capabilities} without
   * the 2025-era `tasks` member, plus what protocol extensions add to `extensions`.
   */
  statelessCapabilities(): ServerCapabilities {
    if (this.#statelessCapabilities) return this.#statelessCapabilities;
    const { tasks: _tasks, ...caps } = this.capabilities() as ServerCapabilities & { tasks?: unknown };
    let extensions = (caps as JSONObject).extensions as JSONObject | undefined;
    for (const ext of this.#extensions) {
      const declared = ext.statelessExtensions?.('server');
      if (declared !== undefined) extensions = { ...extensions, ...(declared as JSONObject) };
    }
    return (this.#statelessCapabilities = extensions === undefined ? caps : ({ ...caps, extensions } as ServerCapabilities));
  }

  #statelessCapabilities: ServerCapabilities | undefined;

  // ───────────── connections ─────────────

  /** Live connections. */
  get connections(): ReadonlySet<ServerConnection> {
    return this.#sessions;
  }

  /** @deprecated renamed {@link connections}. */
  get sessions(): ReadonlySet<ServerConnection> {
    return this.#sessions;
  }

  /** Live stateless-era subscriptions (`subscriptions/listen` requests still open), for tests and metrics. */
  get statelessSubscriptionCount(): number {
    return this.#stateless.subscriptionCount;
  }

  /**
   * Serves one client over `transport` and resolves once the transport started. Each call
   * makes a separate session; a transport can be connected once.
   */
  async connect(transport: Transport, options?: ConnectOptions): Promise<ServerConnection> {
    // schemas whose wire form comes from a converter loaded on first use: a failure shows here
    if (this.tools.pending) await this.tools.ready();
    this.capabilities();
    const session = new ServerConnection(
      this,
      transport,
      options?.maxInFlight === undefined ? this.#options : { ...this.#options, maxInFlight: options.maxInFlight },
      this.#handlers(),
    );
    const ep = session.endpoint;
    ep.setOwnCapabilities(this.capabilities() as JSONObject);
    for (const ext of this.#extensions) ep.extend(ext);
    if (this.#stateless.enabled) {
      // outermost: it shapes every stateless-era result, whatever the middleware below does
      ep.acceptStatelessRequests(this.#stateless.revisions);
      ep.layer(ERA_LAYER);
    }
    for (const item of this.#uses) this.#install(session, item);
    for (const listener of this.#connectListeners) listener(session);
    if (this.#notifier !== undefined) this.#transports.set(session, transport);
    this.#sessions.add(session);
    ep.onClose(() => this.#sessions.delete(session));
    try {
      await ep.session.start();
    } catch (err) {
      this.#sessions.delete(session);
      throw err;
    }
    return session;
  }

  /**
   * The input schema of tool `name` as `tools/list` shows it, or undefined for an unknown
   * tool: the one lookup a transport binding needs (the 2026-07-28 HTTP binding mirrors
   * arguments annotated with `x-mcp-header` into headers). Same object until the tool's
   * definition is replaced.
   */
  toolInputSchema(name: string): unknown {
    return this.tools.get(name)?.inputSchema;
  }

  /** @internal see ServerCore */
  statelessEra(claim: StatelessClaim): ServerEra {
    return this.#stateless.requestEra(claim.meta, claim.table);
  }

  // ───────────── connectionless 2026-07-28 requests ─────────────

  #dispatcher: StatelessDispatcher | undefined;
  readonly #tables = new Map<string, RevisionTable>();

  /**
   * Serves one 2026-07-28 request that arrived without a connection (each Streamable HTTP
   * POST of the era): `meta` is its `_meta` as `readRequestMeta` checked it against
   * {@link statelessRevisions}; its notifications and its outcome go to `reply`. Returns the
   * handle that cancels it. Only what the request needs is allocated (stateless/dispatch.ts).
   * Call after {@link ready} resolved.
   */
  dispatchStateless(
    id: RequestId,
    method: string,
    params: JSONObject | undefined,
    meta: RequestMeta,
    info: MessageInfo | undefined,
    reply: StatelessReplyChannel,
  ): StatelessDispatch {
    const dispatcher = (this.#dispatcher ??= this.#makeDispatcher());
    return dispatcher.dispatch(id, method, params, meta, info, reply);
  }

  /**
   * Resolves once the server can serve requests without a connection: schemas converted on
   * first use are ready and the capabilities are fixed. Rejects as `connect()` would.
   */
  async ready(): Promise<void> {
    if (this.tools.pending) await this.tools.ready();
    this.capabilities();
  }

  #makeDispatcher(): StatelessDispatcher {
    const report = this.#options.onError ?? defaultErrorReporter('server');
    return new StatelessDispatcher({
      layer: this.#stateless,
      ownCapabilities: () => this.capabilities(),
      tableOf: (revision) => {
        let table = this.#tables.get(revision);
        if (table === undefined) this.#tables.set(revision, (table = extendedTableFor(revision, this.#extensions)!));
        return table;
      },
      handlers: () => this.#handlers().current,
      layers: () => [
        ERA_LAYER,
        ...this.#uses
          .filter((u) => u.direction !== 'outgoing')
          .map((u) => ('middleware' in u ? fromMiddleware(u.middleware) : incomingLayer(u.interceptor, undefined))),
      ],
      reportError: report,
    });
  }

  // ───────────── notifications to every client ─────────────

  #changed(method: string): void {
    // registrations before the server serves (capabilities not fixed yet) are not announced elsewhere
    const publish = this.#notifier !== undefined && this.#capabilities !== undefined;
    if (!publish && this.#sessions.size === 0 && this.#stateless.subscriptionCount === 0) return;
    if (this.#pendingChanges.size === 0 && this.#publishChanges.size === 0) queueMicrotask(() => this.#flushChanges());
    this.#pendingChanges.add(method);
    if (publish) this.#publishChanges.add(method);
  }

  #flushChanges(): void {
    const methods = [...this.#pendingChanges];
    this.#pendingChanges.clear();
    for (const m of methods) this.#deliverListChanged(m);
    if (this.#publishChanges.size === 0) return;
    const published = [...this.#publishChanges];
    this.#publishChanges.clear();
    for (const m of published) if (isSharedListChanged(m)) this.#notifier!.listChanged(m).catch((error: unknown) => this.#report(asError(error)));
  }

  /** A list_changed notification to this instance's subscribers of both eras. */
  #deliverListChanged(method: string): void {
    for (const s of this.#sessions) {
      if (!s.ready || !s.endpoint.canSend(method)) continue;
      if (this.#notifier === undefined) s.notify(method).catch(() => {});
      else this.#deliverHere(s, method, undefined);
    }
    this.#stateless.listChanged(method);
  }

  /** `notifications/resources/updated` to this instance's subscribers of `uri`, of both eras. */
  #deliverResourceUpdated(uri: string): Promise<void> {
    this.#stateless.resourceUpdated(uri);
    const params = { uri };
    if (this.#notifier !== undefined) {
      for (const s of this.#sessions) if (s.subscriptions.has(uri)) this.#deliverHere(s, Notification.ResourcesUpdated, params);
      return Promise.resolve();
    }
    const sends: Promise<void>[] = [];
    for (const s of this.#sessions) if (s.subscriptions.has(uri)) sends.push(s.notify(Notification.ResourcesUpdated, params).catch(() => {}));
    return Promise.all(sends).then(() => undefined);
  }

  /**
   * Sends a shared notification to session `s` if its client is reached from this instance:
   * over a transport with instance-local delivery (Streamable HTTP sessions, which several
   * instances may hold) only when its GET stream is attached here, else as usual.
   */
  #deliverHere(s: ServerConnection, method: string, params: JSONObject | undefined): void {
    const transport = this.#transports.get(s);
    const local = transport === undefined ? undefined : localDelivery(transport);
    if (local === undefined) {
      s.notify(method, params).catch(() => {});
      return;
    }
    try {
      local.deliverHere(JSON.stringify(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params }));
    } catch (error) {
      this.#report(asError(error));
    }
  }

  /** A change another instance raised (through `ServerOptions.notifier`). */
  #sharedArrived(change: SharedChange): void {
    if (change.method === Notification.ResourcesUpdated) {
      if (typeof change.uri === 'string') void this.#deliverResourceUpdated(change.uri);
    } else if (isSharedListChanged(change.method)) this.#deliverListChanged(change.method);
  }

  /**
   * Sends `notifications/resources/updated` to every client subscribed to `uri` (2025 era:
   * `resources/subscribe`; stateless era: a `subscriptions/listen` that named it). With
   * `ServerOptions.notifier` it also tells the other instances, which notify their own
   * subscribers; a failure to tell them goes to `onError` (this instance's subscribers got
   * it regardless) and this resolves all the same.
   */
  /**
   * Announces that a list changed although no registry of this server did (a mounted
   * source's list, mcpkit/compose): `notifications/<kind>/list_changed` goes to the
   * clients of both eras (and to the other instances, with a notifier), as a
   * registration would announce it.
   */
  announceListChanged(kind: 'tools' | 'resources' | 'prompts'): void {
    this.#changed(kind === 'tools' ? Notification.ToolsListChanged : kind === 'prompts' ? Notification.PromptsListChanged : Notification.ResourcesListChanged);
  }

  async notifyResourceUpdated(uri: string): Promise<void> {
    await this.#deliverResourceUpdated(uri);
    if (this.#notifier === undefined) return;
    try {
      await this.#notifier.resourceUpdated(uri);
    } catch (error) {
      this.#report(asError(error));
    }
  }

  /**
   * Sends `notifications/elicitation/complete` to the one client that started
   * `elicitationId`. Throws LocalError `validation_failed` when no live session owns it.
   */
  async completeElicitation(elicitationId: string): Promise<void> {
    for (const s of this.#sessions) if (s.ownsElicitation(elicitationId)) return s.notifyElicitationComplete(elicitationId);
    throw new LocalError('validation_failed', `No connected client started elicitation ${elicitationId}`);
  }

  /** Sends a log message to every initialized client (each client's level applies). */
  async log(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    await Promise.all([...this.#sessions].map((s) => s.sendLog(level, data, logger).catch(() => {})));
  }

  /**
   * Closes every connection. Live stateless-era subscriptions are first ended gracefully
   * (their `subscriptions/listen` requests are answered). Stops hearing the notifier's
   * changes (`ServerOptions.notifier`; the notifier itself stays open: its owner closes it).
   */
  async close(): Promise<void> {
    this.#offShared?.();
    this.#offShared = undefined;
    if (this.#stateless.subscriptionCount > 0) {
      this.#stateless.closeSubscriptions();
      // let the answers reach the transports before they close
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    await Promise.all([...this.#sessions].map((s) => s.close()));
  }

  /** Revisions of the stateless era this server serves (empty: the era is off). */
  get statelessRevisions(): readonly string[] {
    return this.#stateless.revisions;
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

export type { ServerCore, ServerRequestContext };
