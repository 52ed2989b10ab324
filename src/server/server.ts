/**
 * The MCP server: registries shared by every connection, and `connect()` that makes a
 * {@link ServerSession} per transport. One server object serves any number of clients;
 * each connection has its own state, so nothing leaks between clients. Every connection
 * serves both eras: 2025-era requests after `initialize`, and stateless-era (2026-07-28)
 * requests whenever they come, each by itself (stateless/layer.ts).
 */
import { defaultErrorReporter } from '../protocol/error-report.js';
import type { JSONObject } from '../jsonrpc/types.js';
import { LocalError } from '../jsonrpc/errors.js';
import type { EndpointOptions, RequestHandler } from '../protocol/endpoint.js';
import { Method, Notification } from '../protocol/methods.js';
import { passesThrough, type Middleware, type MiddlewareDirection } from '../protocol/middleware.js';
import type { ProtocolExtension } from '../protocol/table.js';
import { STATEFUL_REVISIONS } from '../protocol/versions.js';
import type { JsonSchemaValidator } from '../schema/types.js';
import type { Transport } from '../transport/types.js';
import type { Implementation, LoggingLevel, PromptArgument, ServerCapabilities } from '../types.js';
import { toCompleteResult, type Completer } from './completions.js';
import { subscriptionLimits, type SubscriptionLimitOptions, type SubscriptionLimits } from './subscription-limits.js';
import type { ServerRequestContext } from './context.js';
import { paginate } from './pagination.js';
import { PromptRegistry, type PromptConfig, type PromptHandler, type RegisteredPrompt } from './prompts.js';
import { ResourceRegistry, type RegisteredResource, type ResourceMetadata, type ResourceReader, type ResourceTemplateConfig, type TemplateReader } from './resources.js';
import { SESSION_HANDLERS, ServerSession } from './server-session.js';
import { ToolRegistry, type RawToolHandler, type RegisteredTool, type ToolConfig, type ToolHandlerFor, type UserSchema } from './tools.js';
import type { PromptArgs, ToolArgs, ToolStructured } from './infer.js';
import { invalidParams } from '../jsonrpc/errors.js';
import type { Tool } from '../types.js';
import { STATELESS_REVISIONS, isStatelessRevision, type RequestMeta } from '../protocol/stateless/wire.js';
import type { StatelessClaim } from '../protocol/incoming.js';
import { extendedTableFor, type RevisionTable } from '../protocol/table.js';
import type { MessageInfo } from '../transport/types.js';
import type { RequestId } from '../jsonrpc/types.js';
import type { ServerEra } from './era.js';
import { StatelessLayer, type StatelessServerOptions } from './stateless/layer.js';
import { StatelessDispatcher, type StatelessDispatch, type StatelessReplyChannel } from './stateless/dispatch.js';
import { isSharedListChanged, localDelivery, type SharedChange, type SharedNotifier } from './shared-notifications.js';

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

/** @internal what sessions read from their server */
export interface ServerCore {
  readonly info: Implementation;
  readonly instructions: string | undefined;
  readonly revisions: readonly string[];
  readonly defaultLogLevel: LoggingLevel | undefined;
  /** Bounds on resource subscriptions, defaults applied. */
  readonly subscriptionLimits: SubscriptionLimits;
  capabilities(): ServerCapabilities;
  /** The era strategy of a 2026-07-28 request, from its era reading. */
  statelessEra(claim: StatelessClaim): ServerEra;
}

/**
 * The outermost incoming middleware of every connection of a server that serves the
 * 2026-07-28 era: the request's era strategy runs it (2025 era: unchanged; 2026-07-28: its
 * result shaped). Notifications pass.
 */
const ERA_MIDDLEWARE: Middleware = passesThrough(
  (next) => (method, params, ctx) =>
    // marked passesThrough: the chain takes the era's outcome as it comes, value or promise
    (ctx.direction === 'incoming' && ctx.kind === 'request' ? (ctx as ServerRequestContext).era.serve(next, method, params, ctx as ServerRequestContext) : next(method, params, ctx)) as Promise<unknown>,
);

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
  readonly #sessions = new Set<ServerSession>();
  readonly #middleware: Array<[Middleware, MiddlewareDirection]> = [];
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
  readonly #transports = new WeakMap<ServerSession, Transport>();
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
  registerPrompt<const A extends readonly PromptArgument[] | undefined = undefined>(name: string, config: PromptConfig<A>, handler: PromptHandler<PromptArgs<A>>): RegisteredPrompt {
    this.#mayServe('prompts', `prompt ${JSON.stringify(name)}`);
    return this.prompts.register(name, config, handler);
  }

  /**
   * Adds middleware to every connection, present and future. The middleware function is
   * called once per connection, so state it creates around `next` is per connection.
   */
  use(middleware: Middleware, direction: MiddlewareDirection = 'incoming'): this {
    this.#middleware.push([middleware, direction]);
    for (const s of this.#sessions) s.endpoint.use(middleware, direction);
    this.#dispatcher?.invalidate();
    return this;
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
  onConnect(listener: (session: ServerSession) => void): this {
    this.#connectListeners.push(listener);
    return this;
  }

  readonly #connectListeners: Array<(session: ServerSession) => void> = [];

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
  get sessions(): ReadonlySet<ServerSession> {
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
  async connect(transport: Transport, options?: ConnectOptions): Promise<ServerSession> {
    // schemas whose wire form comes from a converter loaded on first use: a failure shows here
    if (this.tools.pending) await this.tools.ready();
    this.capabilities();
    const session = new ServerSession(
      this,
      transport,
      options?.maxInFlight === undefined ? this.#options : { ...this.#options, maxInFlight: options.maxInFlight },
      this.#sharedHandlers(),
      this.#stateless.enabled ? this.#statelessHandlerTable() : undefined,
    );
    const ep = session.endpoint;
    ep.setOwnCapabilities(this.capabilities() as JSONObject);
    for (const ext of this.#extensions) ep.extend(ext);
    if (this.#stateless.enabled) {
      // outermost: it shapes every stateless-era result, whatever the middleware below does
      ep.acceptStatelessRequests(this.#stateless.revisions);
      ep.use(ERA_MIDDLEWARE);
    }
    for (const [mw, dir] of this.#middleware) ep.use(mw, dir);
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

  /** The 2025-era table every connection shares (see {@link #sharedHandlers}). */
  #handlers: Map<string, RequestHandler<ServerRequestContext>> | undefined;

  /**
   * The handler table every 2025-era connection of this server shares (built once, at the
   * first connection): the base table with the session-only handlers, every wrapped method
   * wrapped. No per-session closures.
   */
  #sharedHandlers(): ReadonlyMap<string, RequestHandler<ServerRequestContext>> {
    if (this.#handlers) return this.#handlers;
    const session = new Map(this.#baseTable());
    for (const [method, handler] of this.#sessionOnly) session.set(method, handler);
    for (const method of this.#sessionWraps.keys()) {
      const handler = session.get(method);
      if (handler !== undefined) session.set(method, this.#wrapped(method, handler));
    }
    return (this.#handlers = session);
  }

  /**
   * The handlers of both eras (built once): the session-level methods, the registries and
   * {@link setRequestHandler}'s; the 2025-era and the 2026-07-28 tables start from it.
   */
  #baseTable(): Map<string, RequestHandler<ServerRequestContext>> {
    if (this.#baseHandlers) return this.#baseHandlers;
    const size = this.#pageSize;
    const table = new Map<string, RequestHandler<ServerRequestContext>>(SESSION_HANDLERS);
    const listTools = (cursor: unknown) => {
      const { page, nextCursor } = paginate(this.tools.list(), cursor, size);
      return nextCursor === undefined ? { tools: page } : { tools: page, nextCursor };
    };
    // a schema converted after registration (valibot, zod 3) is listed once ready; a failed one is not listed
    table.set(Method.ToolsList, (p) => (this.tools.pending ? this.tools.ready().then(() => listTools(p?.cursor), () => listTools(p?.cursor)) : listTools(p?.cursor)));
    table.set(Method.ToolsCall, (p, ctx) => this.tools._call(p!, ctx));
    table.set(Method.ResourcesList, async (p, ctx) => {
      const { page, nextCursor } = paginate(await this.resources.list(ctx), p?.cursor, size);
      return nextCursor === undefined ? { resources: page } : { resources: page, nextCursor };
    });
    table.set(Method.ResourcesTemplatesList, (p) => {
      const { page, nextCursor } = paginate(this.resources.listTemplates(), p?.cursor, size);
      return nextCursor === undefined ? { resourceTemplates: page } : { resourceTemplates: page, nextCursor };
    });
    table.set(Method.ResourcesRead, (p, ctx) => this.resources.read(p!.uri as string, ctx));
    table.set(Method.PromptsList, (p) => {
      const { page, nextCursor } = paginate(this.prompts.list(), p?.cursor, size);
      return nextCursor === undefined ? { prompts: page } : { prompts: page, nextCursor };
    });
    table.set(Method.PromptsGet, (p, ctx) => this.prompts.get(p!, ctx));
    table.set(Method.CompletionComplete, (p) => this.#complete(p!));
    for (const [method, handler] of this.#handlerOverrides) table.set(method, handler);
    return (this.#baseHandlers = table);
  }

  /** See {@link #baseTable}. */
  #baseHandlers: Map<string, RequestHandler<ServerRequestContext>> | undefined;
  readonly #handlerOverrides = new Map<string, RequestHandler<ServerRequestContext>>();
  /** 2025-era-only handlers ({@link setSessionHandler}). */
  readonly #sessionOnly = new Map<string, RequestHandler<ServerRequestContext>>();
  /** 2025-era wrappers by method, innermost first ({@link wrapSessionHandler}). */
  readonly #sessionWraps = new Map<string, Array<(inner: RequestHandler<ServerRequestContext>) => RequestHandler<ServerRequestContext>>>();

  #wrapped(method: string, handler: RequestHandler<ServerRequestContext>): RequestHandler<ServerRequestContext> {
    for (const wrap of this.#sessionWraps.get(method) ?? []) handler = wrap(handler);
    return handler;
  }

  /**
   * Sets the handler of a request method for 2025-era connections only (every connection,
   * present and future, sharing one table; the 2026-07-28 requests keep theirs) — the way an
   * extension serves a method that only the 2025 era has (the 2025-11-25 `tasks/*` methods,
   * say). Wins over {@link setRequestHandler} for those connections; a handler set on one
   * connection's endpoint wins over both there.
   */
  setSessionHandler(method: string, handler: RequestHandler<ServerRequestContext>): this {
    this.#sessionOnly.set(method, handler);
    this.#handlers?.set(method, this.#wrapped(method, handler));
    return this;
  }

  /**
   * Wraps the handler of `method` on 2025-era connections: they are served by
   * `wrap(current)`, and so is any handler set for the method later (with
   * {@link setRequestHandler} or {@link setSessionHandler}); several wrappers nest, the
   * first added innermost. The 2026-07-28 requests are not wrapped. How an extension adds
   * behaviour to a method for every connection without a handler per connection (the tasks
   * engine's task-augmented `tools/call`). Nothing happens to a method without a handler.
   */
  wrapSessionHandler(method: string, wrap: (inner: RequestHandler<ServerRequestContext>) => RequestHandler<ServerRequestContext>): this {
    let list = this.#sessionWraps.get(method);
    if (list === undefined) this.#sessionWraps.set(method, (list = []));
    list.push(wrap);
    const current = this.#handlers?.get(method);
    if (current !== undefined) this.#handlers!.set(method, wrap(current));
    return this;
  }

  /**
   * Sets the handler of a request method for the whole server, in both eras: every
   * connection (present and future) and the connectionless 2026-07-28 dispatch — the way an
   * extension serves its own methods (add them to the method tables with {@link extend}).
   * A handler set on one connection's endpoint (`session.endpoint.setRequestHandler` in
   * `onConnect`) serves that connection only, so 2026-07-28 requests over HTTP never see it.
   * A 2026-07-28-only handler set with {@link setStatelessHandler} wins for that era.
   */
  setRequestHandler(method: string, handler: RequestHandler<ServerRequestContext>): this {
    this.#handlerOverrides.set(method, handler);
    this.#baseHandlers?.set(method, handler);
    if (!this.#sessionOnly.has(method)) this.#handlers?.set(method, this.#wrapped(method, handler));
    if (this.#statelessHandlers !== undefined && !this.#statelessOverrides.has(method)) this.#statelessHandlers.set(method, handler);
    return this;
  }

  #statelessHandlers: Map<string, RequestHandler<ServerRequestContext>> | undefined;
  readonly #statelessOverrides = new Map<string, RequestHandler<ServerRequestContext>>();

  /**
   * The handler table of 2026-07-28 requests (built once, at the first use): the shared
   * table, `server/discover`, `subscriptions/listen`, and what extensions set with
   * {@link setStatelessHandler}. The 2025-only methods are in it too, but the era's method
   * table refuses them (-32601) before a handler is looked up.
   */
  #statelessHandlerTable(): ReadonlyMap<string, RequestHandler<ServerRequestContext>> {
    if (this.#statelessHandlers) return this.#statelessHandlers;
    const table = new Map(this.#baseTable());
    table.set(Method.ServerDiscover, () => this.#stateless.discover());
    table.set(Method.SubscriptionsListen, (p, ctx) => this.#stateless.listen(p, ctx));
    for (const [method, handler] of this.#statelessOverrides) table.set(method, handler);
    return (this.#statelessHandlers = table);
  }

  /**
   * Sets the handler of `method` for 2026-07-28 requests, on every connection and on the
   * connectionless dispatch (an extension's entry point, for example the tasks extension's
   * `tools/call`). The method must be in the era's method table (or an extension's) to be
   * reached. Read the current one with {@link statelessHandler} to wrap it.
   */
  setStatelessHandler(method: string, handler: RequestHandler<ServerRequestContext>): this {
    this.#statelessOverrides.set(method, handler);
    this.#statelessHandlers?.set(method, handler);
    return this;
  }

  /** The handler of `method` for 2026-07-28 requests (see {@link setStatelessHandler}). */
  statelessHandler(method: string): RequestHandler<ServerRequestContext> | undefined {
    return this.#statelessHandlerTable().get(method);
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
  dispatchStateless(id: RequestId, method: string, params: JSONObject | undefined, meta: RequestMeta, info: MessageInfo | undefined, reply: StatelessReplyChannel): StatelessDispatch {
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
      handlers: () => this.#statelessHandlerTable(),
      middleware: () => [ERA_MIDDLEWARE, ...this.#middleware.filter(([, d]) => d !== 'outgoing').map(([m]) => m)],
      reportError: report,
    });
  }

  async #complete(params: JSONObject): Promise<JSONObject> {
    const ref = params.ref as { type: string; name?: string; uri?: string };
    const argument = params.argument as { name: string; value: string };
    const context = { arguments: ((params.context as JSONObject | undefined)?.arguments ?? {}) as Record<string, string> };
    let completer: Completer | undefined | null;
    if (ref.type === 'ref/prompt') {
      completer = this.prompts.completer(ref.name!, argument.name);
      if (completer === null) throw invalidParams(`Unknown prompt: ${ref.name}`);
    } else {
      completer = this.resources.completer(ref.uri!, argument.name);
      if (completer === null && !this.resources.has(ref.uri!)) throw invalidParams(`Unknown resource template: ${ref.uri}`);
    }
    const answer = completer ? await completer(argument.value, context) : undefined;
    return toCompleteResult(answer) as unknown as JSONObject;
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
  #deliverHere(s: ServerSession, method: string, params: JSONObject | undefined): void {
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

export type { ServerRequestContext };
