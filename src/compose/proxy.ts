/**
 * A proxy: an MCP server that stands for ONE upstream MCP server in full. Runtime-neutral
 * (the upstream's transport comes from a factory: stdio, Streamable HTTP or legacy SSE).
 *
 * Design notes:
 * - One upstream session, shared by every downstream caller (see proxy-routing.ts for why and
 *   for who answers the upstream's sampling, elicitation and roots requests). The upstream is
 *   told the client capabilities in {@link ProxyOptions.clientCapabilities} (default: all the
 *   proxy can forward); a caller that lacks one the upstream uses gets the upstream's request
 *   refused (2025 era: LocalError `capability_missing` → -32603 upstream; 2026-07-28: -32021).
 * - Capabilities mirror the upstream's (tools, resources, prompts, completions, logging,
 *   tasks of the 2025 era, and the extensions it knows how to forward, whose requests go
 *   upstream: proxy-extensions.ts); nothing it would not serve is declared. `listChanged` is
 *   declared for each list the upstream has, since the proxy itself announces a change when
 *   the upstream comes back after a restart.
 * - Requests are forwarded as they came (params, cursors, `task` augmentation), without the
 *   downstream's era metadata (`_meta` keys `io.modelcontextprotocol/*`, multi round-trip
 *   `inputResponses`/`requestState`) and without its progress token: the upstream request
 *   gets the proxy's own token and its progress is re-sent under the caller's. Results come
 *   back as the upstream sent them less what its era adds (`resultType`, caching hints, its
 *   `serverInfo` in `_meta`: source.ts `withoutEraKeys`), which the proxy's server adds
 *   again, as its own, for a 2026-07-28 caller only.
 * - Cancellation: the caller's cancel aborts the upstream request (`notifications/cancelled`
 *   up); the upstream's cancel of its own request aborts the request the proxy made of the
 *   caller (`notifications/cancelled` down).
 * - A 2026-07-28 caller answers the upstream's requests as multi round-trip inputs: the first
 *   run's upstream call is cancelled and the call is made again, with the answer at hand,
 *   when the caller retries (the usual contract of a multi round-trip handler: it runs again).
 * - Eras: downstream, the McpServer serves both; upstream, the mcpkit Client speaks both
 *   (it probes for 2026-07-28 and falls back to `initialize`).
 * - No token passthrough: nothing of the caller's transport (headers, Authorization) is
 *   forwarded; the upstream transport carries the proxy's own credentials.
 * - Upstream death: callers get -32603 naming the cause; the proxy reconnects with
 *   exponential backoff ({@link ProxyOptions.restart}) and, once back, re-subscribes, re-sets
 *   the log level and announces `list_changed` for every list.
 */
import { ALL_REVISIONS, Client, type ClientOptions } from '../client/client.js';
import { inputOrigin } from '../client/input-origin.js';
import { LocalError, McpError } from '../jsonrpc/errors.js';
import { ErrorCode, type JSONObject } from '../jsonrpc/types.js';
import { isObject } from '../jsonrpc/values.js';
import { Method, Notification } from '../protocol/methods.js';
import type { ServerRequestContext } from '../server/connection.js';
import { McpServer, type ServerOptions } from '../server/index.js';
import type { SharedChange, SharedNotifier } from '../server/shared-notifications.js';
import type { RequestContext } from '../session/context.js';
import type { RequestOptions } from '../session/session.js';
import { tasksExtension } from '../tasks/wire.js';
import type { Transport } from '../transport/types.js';
import type { ClientCapabilities, ElicitFormParams, Implementation, LoggingLevel, ServerCapabilities } from '../types.js';
import { forwardedExtensionRequests, proxiedCapabilities, proxiedExtensions, upstreamExtensionTables } from './proxy-extensions.js';
import { type DownstreamTarget, InFlightRequests } from './proxy-routing.js';
import {
  callerDeclaresTaskExtension,
  callThroughTask,
  createdTaskId,
  EXTENSION_TASK_METHODS,
  offersTaskExtension,
  requiredTaskTools,
  TaskOwners,
  taskExtensionDeclaration,
  taskExtensionRequired,
  upstreamOffersTaskExtension,
  upstreamRunsToolTasks,
} from './proxy-tasks.js';
import { type MountSource, withoutEraKeys } from './source.js';

/** Reconnection of a proxy's upstream after it closed. */
export interface ProxyRestartOptions {
  /** First wait before reconnecting, in ms (default 250); doubled after each failed attempt. */
  initialDelayMs?: number;
  /** Longest wait between attempts, in ms (default 30 000). */
  maxDelayMs?: number;
}

/** The wait before reconnection attempt `attempt` (0 first): `initialDelayMs` doubled per attempt, at most `maxDelayMs`. */
export function restartDelay(restart: ProxyRestartOptions | undefined, attempt: number): number {
  return Math.min((restart?.initialDelayMs ?? 250) * 2 ** Math.min(attempt, 30), restart?.maxDelayMs ?? 30_000);
}

/** Options of {@link McpProxy.open}. */
export interface ProxyOptions {
  /**
   * Opens a new transport to the upstream (called at open and at every reconnection). It
   * carries the proxy's own credentials for the upstream (an OAuth client with its token
   * store, or static headers); never the caller's.
   */
  upstream: () => Transport | Promise<Transport>;
  /** The upstream's name in the errors callers get (e.g. a gateway's server name). Default: none ("the upstream server"). */
  name?: string;
  /** The proxy's identity toward the upstream (default `{ name: 'mcpkit-proxy', version: '1' }`). */
  clientInfo?: Implementation;
  /** The proxy's identity toward its callers (default: the upstream's `serverInfo`). */
  serverInfo?: Implementation;
  /**
   * Client capabilities declared to the upstream (default: `sampling`, form and URL
   * `elicitation`, `roots` with `listChanged`: everything the proxy forwards to callers).
   */
  clientCapabilities?: ClientCapabilities;
  /** Revisions the upstream client may speak (default: both eras, {@link ALL_REVISIONS}). */
  protocolVersions?: readonly string[];
  /** Options of the downstream McpServer (its capabilities and notifier are the proxy's). */
  server?: Omit<ServerOptions, 'capabilities' | 'notifier' | 'instructions'>;
  /** Timeout of each forwarded request, reset by progress, in ms (default 600 000). */
  requestTimeoutMs?: number;
  /** Reconnection after the upstream closed (default: on, 250 ms doubling to 30 s); `false`: stay down. */
  restart?: ProxyRestartOptions | false;
  /** Most distinct resource URIs the proxy subscribes to upstream (default 1000); a caller's subscription past it gets -32603. */
  maxUpstreamSubscriptions?: number;
  /**
   * Most 2026-07-28 extension tasks (SEP-2663) whose creator the proxy remembers (default
   * 10 000); past it the oldest task's id answers -32602 through the proxy (proxy-tasks.ts).
   */
  maxProxiedTasks?: number;
  /** Reports upstream closes, reconnection failures and failed notifications (default: ignore). */
  onError?: (error: Error) => void;
  /** Told when the upstream goes down (with the reason) and when it is back up. */
  onStatus?: (status: 'up' | 'down', reason?: Error) => void;
  /**
   * Called with each upstream client before it connects (at open and at every
   * reconnection): instrument it here (`instrument(client, options)` of mcpkit/otel, so
   * that one trace runs from the caller through the proxy to the upstream) or add
   * middleware. Must not connect it.
   */
  onClient?: (client: Client) => void;
}

/** Default {@link ProxyOptions.requestTimeoutMs}. */
export const DEFAULT_PROXY_REQUEST_TIMEOUT_MS = 600_000;

/** Default {@link ProxyOptions.maxUpstreamSubscriptions}. */
export const DEFAULT_MAX_UPSTREAM_SUBSCRIPTIONS = 1000;

/** Requests forwarded to the upstream when it declares the capability they need. */
const FORWARDED: ReadonlyArray<readonly [method: string, capability: keyof ServerCapabilities]> = [
  [Method.ToolsList, 'tools'],
  [Method.ToolsCall, 'tools'],
  [Method.ResourcesList, 'resources'],
  [Method.ResourcesTemplatesList, 'resources'],
  [Method.ResourcesRead, 'resources'],
  [Method.PromptsList, 'prompts'],
  [Method.PromptsGet, 'prompts'],
  [Method.CompletionComplete, 'completions'],
];

/** The 2025-era task methods forwarded when the upstream declares `tasks`. */
const TASK_METHODS: readonly string[] = ['tasks/get', 'tasks/result', 'tasks/list', 'tasks/cancel'];

const LIST_CHANGES: ReadonlyArray<readonly [keyof ServerCapabilities, SharedChange['method']]> = [
  ['tools', Notification.ToolsListChanged],
  ['resources', Notification.ResourcesListChanged],
  ['prompts', Notification.PromptsListChanged],
];

const DEFAULT_CLIENT_CAPABILITIES: ClientCapabilities = {
  sampling: {},
  elicitation: { form: {}, url: {} },
  roots: { listChanged: true },
} as ClientCapabilities;

/** A server that stands for one upstream (see the module note). Open one with {@link McpProxy.open}. */
export class McpProxy {
  /** The downstream server: connect it to transports or serve it over HTTP. */
  readonly server: McpServer;
  readonly #options: ProxyOptions;
  readonly #inFlight: InFlightRequests;
  readonly #changes = new Set<(change: SharedChange) => void>();
  /** Resources some caller subscribed to (subscribed upstream; again after a reconnection). */
  readonly #subscribed = new Set<string>();
  #client: Client | undefined;
  #upstreamCapabilities: ServerCapabilities;
  #logLevel: LoggingLevel | undefined;
  #downReason: Error | undefined;
  #attempt = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;
  /** Tools whose calls must be tasks (see proxy-tasks.ts); undefined until known, and again after the upstream's list changed. */
  #taskTools: Set<string> | undefined;
  /** The servers this proxy is mounted on through {@link source}: they get the upstream's log messages too. */
  readonly #outers = new Set<McpServer>();
  /** Who created each 2026-07-28 extension task through the proxy's own server (proxy-tasks.ts). */
  readonly #taskOwners: TaskOwners;

  /** The input schema of each tool the upstream listed last (the HTTP binding checks `Mcp-Param-*` headers against them). */
  readonly #toolSchemas = new Map<string, unknown>();

  /** Where the upstream client's handlers find this proxy (every reconnection reuses it). */
  readonly #slot: { proxy?: McpProxy };

  private constructor(options: ProxyOptions, client: Client, slot: { proxy?: McpProxy }) {
    this.#options = options;
    this.#slot = slot;
    this.#client = client;
    this.#taskOwners = new TaskOwners(options.maxProxiedTasks);
    const upstream = client.serverCapabilities ?? {};
    this.#upstreamCapabilities = upstream;
    const notifier: SharedNotifier = {
      resourceUpdated: () => Promise.resolve(),
      listChanged: () => Promise.resolve(),
      onNotification: (handler) => {
        this.#changes.add(handler);
        return () => void this.#changes.delete(handler);
      },
    };
    this.server = new ProxyServer(
      options.serverInfo ?? client.serverInfo ?? { name: 'mcpkit-proxy', version: '1' },
      {
        ...(options.onError === undefined ? {} : { onError: options.onError }),
        ...options.server,
        capabilities: proxiedCapabilities(upstream),
        notifier,
        ...(client.instructions === undefined ? {} : { instructions: client.instructions }),
      },
      this.#toolSchemas,
    );
    this.#inFlight = new InFlightRequests(this.server);
    this.#install();
    this.#watch(client);
  }

  /**
   * Connects to the upstream (rejects when it cannot: the caller decides whether to retry)
   * and returns the proxy, whose server mirrors the upstream's capabilities.
   */
  static async open(options: ProxyOptions): Promise<McpProxy> {
    const slot: { proxy?: McpProxy } = {};
    const client = await McpProxy.#connect(options, slot);
    slot.proxy = new McpProxy(options, client, slot);
    return slot.proxy;
  }

  /** The connected upstream client; undefined while the upstream is down. */
  get upstream(): Client | undefined {
    return this.#client;
  }

  /** `up` while the upstream is connected, `down` while it is being reconnected, `closed` after {@link close}. */
  get status(): 'up' | 'down' | 'closed' {
    return this.#closed ? 'closed' : this.#client === undefined ? 'down' : 'up';
  }

  /**
   * The proxy as a {@link MountSource} for `outer`, a server that mounts it (what a gateway
   * does for each upstream): a caller's request is forwarded with the OUTER request's
   * context, so the upstream's sampling, elicitation and roots requests go back to `outer`'s
   * callers by the routing rules (proxy-routing.ts, counting `outer`'s connections), progress
   * and cancellation flow as through the proxy's own server, and log messages not tied to a
   * request reach `outer`'s callers. The mount's own catalogue reads go upstream bounded by
   * {@link ProxyOptions.requestTimeoutMs}; while the upstream is down every request rejects
   * with the -32603 naming it. Follows the upstream's list changes (also the ones announced
   * after a reconnection) and `resources/updated`. A `resources/subscribe` takes the same way
   * as through the proxy's own server: it is kept (and made again after a reconnection) and
   * reaches a 2026-07-28 upstream as `subscriptions/listen`.
   */
  source(outer: McpServer): MountSource {
    this.#inFlight.attach(outer);
    this.#outers.add(outer);
    return {
      capabilities: () => this.#upstreamCapabilities,
      request: (method, params, ctx) => {
        const uri = params?.uri;
        if (method === Method.ResourcesSubscribe && typeof uri === 'string') return this.#subscribeAll([uri], ctx?.signal).then(() => ({}));
        // a 2026-07-28 upstream's subscriptions/listen stream stays open (as for the proxy's own callers)
        if (method === Method.ResourcesUnsubscribe && typeof uri === 'string') {
          if (this.#client?.era === 'stateless') return Promise.resolve({});
          this.#subscribed.delete(uri);
        }
        // the 2026-07-28 tasks extension passes only when `outer` offers it (it then owns the task ids, as the gateway does)
        const tasks = ctx !== undefined && (method === Method.ToolsCall || EXTENSION_TASK_METHODS.includes(method)) && offersTaskExtension(outer);
        if (ctx !== undefined) return this.#forward(method, params, ctx, tasks) as Promise<JSONObject>;
        const client = this.#client;
        if (client === undefined) return Promise.reject(this.#unavailable(method));
        return client
          .request(method, params, { timeoutMs: this.#options.requestTimeoutMs ?? DEFAULT_PROXY_REQUEST_TIMEOUT_MS })
          .then((result) => withoutEraKeys(method, result, false));
      },
      on: (method, listener) => {
        const handler = (change: SharedChange): void => {
          if (change.method === method) listener(change.uri === undefined ? undefined : { uri: change.uri });
        };
        this.#changes.add(handler);
        return () => void this.#changes.delete(handler);
      },
      close: () => Promise.resolve(),
    };
  }

  /**
   * Drops the upstream connection now (e.g. it stopped answering: it hangs) and reconnects
   * with backoff as after a close ({@link ProxyOptions.restart}); callers get `reason` in the
   * -32603 they meet meanwhile. Resolves once the old connection is closed; does nothing
   * while the upstream is already down or the proxy closed.
   */
  async restart(reason: Error): Promise<void> {
    const client = this.#client;
    if (client === undefined || this.#closed) return;
    this.#client = undefined;
    this.#down(reason);
    await client.close().catch(() => {});
  }

  /** Closes the downstream server and the upstream, and stops reconnecting. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    const client = this.#client;
    this.#client = undefined;
    await this.server.close();
    await client?.close().catch(() => {});
  }

  // ───────────── downstream → upstream ─────────────

  #install(): void {
    const caps = this.#upstreamCapabilities;
    for (const [method, capability] of FORWARDED) {
      if (caps[capability] !== undefined) this.server.handle(method, (params, ctx) => this.#forward(method, params, ctx, method === Method.ToolsCall));
    }
    const tasks2025 = (caps as { tasks?: unknown }).tasks !== undefined;
    const tasks2026 = this.#client?.era === 'stateless' && upstreamOffersTaskExtension(caps);
    if (tasks2025 || tasks2026) {
      const extension = tasksExtension();
      // the 2026-07-28 extension, declared in the proxy's own server/discover (not in the mirrored capabilities)
      if (tasks2026) extension.statelessExtensions = (role) => (role === 'server' ? taskExtensionDeclaration() : undefined);
      this.server.extend(extension);
    }
    if (tasks2025) for (const method of TASK_METHODS) this.server.handle(method, (params, ctx) => this.#forward(method, params, ctx), { era: '2025' });
    if (tasks2026) {
      for (const method of EXTENSION_TASK_METHODS) {
        this.server.handle(
          method,
          async (params, ctx) => {
            if (!callerDeclaresTaskExtension(ctx)) throw taskExtensionRequired();
            await this.#taskOwners.check(params?.taskId, ctx);
            return this.#forward(method, params, ctx, true);
          },
          { era: '2026-07-28' },
        );
      }
    }
    // the extensions the proxy declares (proxy-extensions.ts): their requests go upstream
    for (const { extension, requests } of forwardedExtensionRequests(proxiedExtensions(caps))) {
      this.server.extend(extension);
      for (const method of requests) this.server.handle(method, (params, ctx) => this.#forward(method, params, ctx));
    }
    if (caps.resources?.subscribe === true) {
      this.server.wrap(Method.ResourcesSubscribe, (inner) => async (params, ctx) => {
        const uri = params?.uri;
        if (typeof uri === 'string' && !this.#subscribed.has(uri)) {
          await this.#subscribeAll([uri], ctx.signal).catch((error: unknown) => {
            throw this.#callerError(Method.ResourcesSubscribe, error, ctx);
          });
        }
        return inner(params, ctx);
      });
    }
    if (caps.logging !== undefined) {
      // through the client's own verb: a 2026-07-28 upstream takes the level in each request's _meta
      this.server.wrap(Method.LoggingSetLevel, (inner) => async (params, ctx) => {
        const client = this.#client;
        if (client === undefined) throw this.#unavailable(Method.LoggingSetLevel);
        const level = params?.level as LoggingLevel;
        await client.setLoggingLevel(level, { signal: ctx.signal }).catch((error: unknown) => {
          throw this.#callerError(Method.LoggingSetLevel, error, ctx);
        });
        this.#logLevel = level;
        return inner(params, ctx);
      });
    }
    this.server.use({
      name: 'proxy',
      intercept: (call, next) => {
        if (call.kind === 'notification' && call.method === Notification.RootsListChanged)
          this.#client?.sendRootsListChanged().catch((error: unknown) => this.#report(error));
        // a 2026-07-28 caller's subscriptions/listen naming resources: the upstream is subscribed to them first
        if (call.kind === 'request' && call.method === 'subscriptions/listen' && caps.resources?.subscribe === true) {
          const uris = ((call.params?.notifications as JSONObject | undefined)?.resourceSubscriptions ?? []) as unknown[];
          const fresh = uris.filter((uri): uri is string => typeof uri === 'string' && !this.#subscribed.has(uri));
          if (fresh.length > 0) return this.#subscribeAll(fresh, call.signal).then(() => next());
        }
        return next();
      },
    });
  }

  /**
   * Forwards one request upstream on behalf of `ctx`'s caller. `tasks`: the request came to
   * the proxy's own server, which offers the 2026-07-28 tasks extension when the upstream
   * does; a caller's request declaring it is sent declaring it (proxy-tasks.ts).
   */
  async #forward(method: string, params: JSONObject | undefined, ctx: ServerRequestContext, tasks = false): Promise<unknown> {
    const client = this.#client;
    if (client === undefined) throw this.#unavailable(method);
    const controller = this.#inFlight.add(ctx);
    const signal = ctx.signal;
    const onAbort = () => controller.abort(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    try {
      const options: RequestOptions = {
        signal: controller.signal,
        timeoutMs: this.#options.requestTimeoutMs ?? DEFAULT_PROXY_REQUEST_TIMEOUT_MS,
        resetTimeoutOnProgress: true,
        ...(ctx.progressToken === undefined ? {} : { onProgress: (p) => void ctx.sendProgress(p.progress, p.total, p.message).catch(() => {}) }),
      };
      if (tasks && client.era === 'stateless' && callerDeclaresTaskExtension(ctx) && upstreamOffersTaskExtension(this.#upstreamCapabilities))
        options.returnTasks = true;
      const sent = upstreamParams(method, params);
      // (the capability is checked first: most upstreams run no tool tasks, and their calls take no extra turn)
      if (
        method === Method.ToolsCall &&
        sent !== undefined &&
        sent.task === undefined &&
        upstreamRunsToolTasks(this.#upstreamCapabilities) &&
        (await this.#mustBeTask(client, sent.name))
      )
        return withoutEraKeys(method, await callThroughTask(client, sent, options), ctx.era.stateless !== undefined);
      const result = withoutEraKeys(method, await client.request(method, sent, options), ctx.era.stateless !== undefined);
      if (method === Method.ToolsList) this.#keepToolSchemas((result as { tools?: unknown }).tools);
      const taskId = options.returnTasks === true && method === Method.ToolsCall ? createdTaskId(result) : undefined;
      if (taskId !== undefined) await this.#taskOwners.created(taskId, ctx);
      return result;
    } catch (error) {
      throw this.#callerError(method, error, ctx);
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.#inFlight.delete(ctx);
    }
  }

  /**
   * Subscribes the upstream to `uri`: `resources/subscribe` (2025 era), or a
   * `subscriptions/listen` of its own (2026-07-28), whose notifications reach the client's
   * listeners like any other.
   */
  async #subscribeUpstream(client: Client, uri: string, signal?: AbortSignal): Promise<void> {
    if (client.era === 'stateless') await client.listen({ resourceSubscriptions: [uri] });
    else await client.subscribeResource(uri, signal === undefined ? undefined : { signal });
  }

  /** Subscribes the upstream to each of `uris` not subscribed yet, within {@link ProxyOptions.maxUpstreamSubscriptions}. */
  async #subscribeAll(uris: readonly string[], signal: AbortSignal | undefined): Promise<void> {
    const client = this.#client;
    if (client === undefined) throw this.#unavailable(Method.ResourcesSubscribe);
    for (const uri of uris) {
      if (this.#subscribed.has(uri)) continue;
      if (this.#subscribed.size >= (this.#options.maxUpstreamSubscriptions ?? DEFAULT_MAX_UPSTREAM_SUBSCRIPTIONS)) {
        throw new McpError(
          ErrorCode.InternalError,
          `The proxy holds its most upstream subscriptions (${this.#subscribed.size}); ask its operator to raise maxUpstreamSubscriptions.`,
        );
      }
      await this.#subscribeUpstream(client, uri, signal);
      this.#subscribed.add(uri);
    }
  }

  /** True when a call of tool `name` must be a task upstream and the caller did not ask for one (see proxy-tasks.ts). */
  async #mustBeTask(client: Client, name: unknown): Promise<boolean> {
    if (typeof name !== 'string' || !upstreamRunsToolTasks(this.#upstreamCapabilities)) return false;
    this.#taskTools ??= new Set(requiredTaskTools(await client.listAllTools()));
    return this.#taskTools.has(name);
  }

  /** The error a caller gets for a failed upstream request: the upstream's own McpError as it is; anything else as -32603 naming the cause. */
  #callerError(method: string, error: unknown, ctx: ServerRequestContext): unknown {
    if (error instanceof McpError) return error;
    // the caller cancelled: its request ends as cancelled requests do (no answer is sent)
    if (ctx.signal.aborted) return ctx.signal.reason;
    const message = error instanceof Error ? error.message : String(error);
    if (this.#client === undefined) return this.#unavailable(method);
    return new McpError(ErrorCode.InternalError, `The proxy's upstream${this.#named()} request ${method} failed: ${message}`);
  }

  #unavailable(method: string): McpError {
    const reason = this.#downReason?.message ?? 'it closed';
    const retry = this.#options.restart === false || this.#closed ? 'The proxy does not reconnect it.' : 'The proxy is reconnecting it; retry shortly.';
    return new McpError(ErrorCode.InternalError, `The upstream server${this.#named()} is unavailable (${reason}), so ${method} was not served. ${retry}`);
  }

  // ───────────── upstream → downstream ─────────────

  /** Asks the caller chosen by the routing rules; the upstream's cancel aborts the downstream request. */
  async #ask<T>(method: string, up: RequestContext, send: (target: DownstreamTarget, options: AskOptions) => Promise<T>): Promise<T> {
    // a 2026-07-28 upstream's input: its caller's request answers it, under the upstream's own key
    const origin = inputOrigin(up);
    const target = this.#inFlight.target(method, origin?.signal);
    try {
      const options: AskOptions = { signal: up.signal, timeoutMs: this.#options.requestTimeoutMs ?? DEFAULT_PROXY_REQUEST_TIMEOUT_MS };
      if (origin !== undefined) options.inputKey = origin.key;
      return await send(target, options);
    } catch (error) {
      // 2026-07-28 caller: the input goes back to it; its retry runs the call again with the answer
      if (error instanceof Error && error.name === 'InputRequiredSignal' && 'request' in target) {
        this.#inFlight.abort(target.request, error);
        throw new McpError(
          ErrorCode.InternalError,
          `The proxy's caller answers ${method} in a later round (2026-07-28 multi round-trip); this request is abandoned and the call will be made again.`,
        );
      }
      if (error instanceof McpError) throw error;
      if (error instanceof LocalError && error.code === 'capability_missing')
        throw new McpError(ErrorCode.InternalError, `The proxy's caller cannot answer ${method}: ${error.message}`);
      throw error;
    }
  }

  /** Forwards the upstream's notifications to the callers. */
  #listen(client: Client): void {
    for (const [, method] of LIST_CHANGES) client.on(method, () => this.#announce({ method }));
    client.on(Notification.ToolsListChanged, () => {
      this.#taskTools = undefined;
      this.#readToolSchemas(client);
    });
    client.on(Notification.ResourcesUpdated, (params) => {
      if (typeof params?.uri === 'string') this.#announce({ method: Notification.ResourcesUpdated, uri: params.uri });
    });
    client.on(Notification.Message, (params) => {
      const level = params?.level as LoggingLevel;
      const only = this.#inFlight.only();
      const logger = params?.logger as string | undefined;
      if (only !== undefined) {
        only.log(level, params?.data, logger).catch((error: unknown) => this.#report(error));
        return;
      }
      for (const server of [this.server, ...this.#outers]) server.log(level, params?.data, logger).catch((error: unknown) => this.#report(error));
    });
    client.on(Notification.ElicitationComplete, (params) => {
      if (typeof params?.elicitationId === 'string') this.server.completeElicitation(params.elicitationId).catch(() => {});
    });
  }

  /** Records the input schemas of a `tools/list` page, within {@link MAX_TOOL_SCHEMAS}. */
  #keepToolSchemas(tools: unknown): void {
    if (!Array.isArray(tools)) return;
    for (const tool of tools) {
      if (!isObject(tool) || typeof tool.name !== 'string') continue;
      if (this.#toolSchemas.size >= MAX_TOOL_SCHEMAS && !this.#toolSchemas.has(tool.name)) return;
      this.#toolSchemas.set(tool.name, tool.inputSchema);
    }
  }

  /** Reads the upstream's tool list for its input schemas (at connection and after each change), best effort. */
  #readToolSchemas(client: Client): void {
    if (client.serverCapabilities?.tools === undefined) return;
    client.listAllTools().then(
      (tools) => {
        if (this.#client !== client) return;
        this.#toolSchemas.clear();
        this.#keepToolSchemas(tools);
      },
      (error: unknown) => this.#report(error),
    );
  }

  #announce(change: SharedChange): void {
    for (const handler of this.#changes) handler(change);
  }

  // ───────────── the upstream's life ─────────────

  #watch(client: Client): void {
    this.#listen(client);
    this.#readToolSchemas(client);
    if (client.era === 'stateless') {
      // a 2026-07-28 upstream tells list changes only on a subscriptions/listen stream
      const caps = client.serverCapabilities ?? {};
      const filter = {
        toolsListChanged: caps.tools !== undefined,
        promptsListChanged: caps.prompts !== undefined,
        resourcesListChanged: caps.resources !== undefined,
      };
      if (filter.toolsListChanged || filter.promptsListChanged || filter.resourcesListChanged)
        client.listen(filter).catch((error: unknown) => this.#report(error));
    }
    client.endpoint?.onClose((reason) => {
      if (this.#client !== client || this.#closed) return;
      this.#client = undefined;
      this.#down(reason ?? new Error('the upstream closed the connection'));
    });
  }

  /** The upstream is gone (its client already cleared): record why, tell, and reconnect. */
  #down(reason: Error): void {
    this.#downReason = reason;
    this.#report(new Error(`mcpkit proxy: the upstream${this.#named()} closed: ${reason.message}`));
    this.#options.onStatus?.('down', reason);
    this.#scheduleRestart();
  }

  /** ` "name"` when the upstream has a name, else nothing (for messages). */
  #named(): string {
    return this.#options.name === undefined ? '' : ` ${JSON.stringify(this.#options.name)}`;
  }

  #scheduleRestart(): void {
    const restart = this.#options.restart;
    if (restart === false || this.#closed) return;
    const delay = restartDelay(restart, this.#attempt);
    this.#attempt++;
    this.#timer = setTimeout(() => void this.#reconnect(), delay);
  }

  async #reconnect(): Promise<void> {
    let client: Client;
    try {
      client = await McpProxy.#connect(this.#options, this.#slot);
    } catch (error) {
      this.#downReason = error instanceof Error ? error : new Error(String(error));
      this.#report(new Error(`mcpkit proxy: reconnecting the upstream failed (attempt ${this.#attempt}): ${this.#downReason.message}`));
      this.#scheduleRestart();
      return;
    }
    if (this.#closed) {
      await client.close().catch(() => {});
      return;
    }
    this.#client = client;
    this.#attempt = 0;
    this.#downReason = undefined;
    this.#upstreamCapabilities = client.serverCapabilities ?? {};
    this.#taskTools = undefined;
    this.#watch(client);
    const resubscribe = [...this.#subscribed].map((uri) => this.#subscribeUpstream(client, uri).catch((error: unknown) => this.#report(error)));
    if (this.#logLevel !== undefined) resubscribe.push(client.setLoggingLevel(this.#logLevel).catch((error: unknown) => this.#report(error)));
    await Promise.all(resubscribe);
    this.#options.onStatus?.('up');
    for (const [capability, method] of LIST_CHANGES) if (this.#upstreamCapabilities[capability] !== undefined) this.#announce({ method });
  }

  /**
   * Builds the upstream client and connects it. Its handlers reach the proxy through `slot`
   * (filled once the proxy exists): a request the upstream makes before that is refused.
   */
  static async #connect(options: ProxyOptions, slot: { proxy?: McpProxy }): Promise<Client> {
    const ask = <T>(method: string, up: RequestContext, send: (target: DownstreamTarget, options: AskOptions) => Promise<T>): Promise<T> => {
      const proxy = slot.proxy;
      if (proxy === undefined)
        return Promise.reject(new McpError(ErrorCode.InternalError, `The proxy is still starting and has no caller to ask for ${method}.`));
      return proxy.#ask(method, up, send);
    };
    const declared = options.clientCapabilities ?? DEFAULT_CLIENT_CAPABILITIES;
    const handlers: Pick<ClientOptions, 'sampling' | 'elicitation' | 'roots'> = {
      sampling: {
        tools: true,
        context: true,
        createMessage: (params, up) =>
          ask(Method.SamplingCreateMessage, up, (t, o) => ('request' in t ? t.request.createMessage(params, o) : t.connection.createMessage(params, o))),
      },
      elicitation: {
        applyDefaults: false,
        form: (params, up) => {
          const { mode: _mode, ...form } = params as ElicitFormParams & { mode?: string };
          return ask(Method.ElicitationCreate, up, (t, o) => ('request' in t ? t.request.elicitForm(form, o) : t.connection.elicitForm(form, o)));
        },
        url: async (request, up) => {
          const params = { message: request.message, url: request.url, elicitationId: request.elicitationId };
          const result = await ask(Method.ElicitationCreate, up, (t, o) =>
            'request' in t ? t.request.elicitUrl(params, o) : t.connection.elicitUrl(params, o),
          );
          return result.action;
        },
      },
      roots: {
        listChanged: true,
        list: (up) => ask(Method.RootsList, up, (t, o) => ('request' in t ? t.request.listRoots(o) : t.connection.listRoots(o))),
      },
    };
    const client = new Client(options.clientInfo ?? { name: 'mcpkit-proxy', version: '1' }, {
      ...(options.onError === undefined ? {} : { onError: options.onError }),
      protocolVersions: options.protocolVersions ?? ALL_REVISIONS,
      capabilities: declared,
      ...(declared.sampling === undefined ? {} : { sampling: handlers.sampling! }),
      ...(declared.elicitation === undefined ? {} : { elicitation: handlers.elicitation! }),
      ...(declared.roots === undefined ? {} : { roots: handlers.roots! }),
    });
    // the task methods, to send them when the upstream has tasks (declares nothing by itself)
    client.extend(tasksExtension());
    // and the forwarded extensions' requests (declared by the proxy only when the upstream declares the extension)
    for (const extension of upstreamExtensionTables()) client.extend(extension);
    options.onClient?.(client);
    const transport = await options.upstream();
    try {
      await client.connect(transport);
    } catch (error) {
      await client.close().catch(() => {});
      throw error;
    }
    return client;
  }

  #report(error: unknown): void {
    this.#options.onError?.(error instanceof Error ? error : new Error(String(error)));
  }
}

/** How the proxy asks its caller for an answer to the upstream's request. */
interface AskOptions {
  signal: AbortSignal;
  timeoutMs: number;
  /** The upstream's key of the input (2026-07-28 upstream): the caller sees the same name. */
  inputKey?: string;
}

/** Most tool input schemas a proxy keeps for the `Mcp-Param-*` header check (tools past it are not checked there). */
const MAX_TOOL_SCHEMAS = 10_000;

/**
 * The proxy's downstream server: its tools are the upstream's, so the input schema the HTTP
 * binding checks a call's `Mcp-Param-*` headers against (SEP-2243) is the one the upstream
 * listed; without it a mismatched header would pass the proxy's front unchecked.
 */
class ProxyServer extends McpServer {
  readonly #schemas: ReadonlyMap<string, unknown>;

  constructor(info: Implementation, options: ServerOptions, schemas: ReadonlyMap<string, unknown>) {
    super(info, options);
    this.#schemas = schemas;
  }

  override toolInputSchema(name: string): unknown {
    return this.#schemas.get(name) ?? super.toolInputSchema(name);
  }
}

/**
 * The 2026-07-28 request metadata a caller sends about itself (protocol version, client
 * capabilities, client info, log level): the upstream client sends the proxy's own. Spelled
 * out here (the reserved keys of the spec) so that this module stays era-neutral.
 */
const ERA_META: ReadonlySet<string> = new Set(
  ['protocolVersion', 'clientCapabilities', 'clientInfo', 'logLevel'].map((key) => `io.modelcontextprotocol/${key}`),
);

/**
 * The params sent upstream: without the caller's era metadata, progress token and multi
 * round-trip fields (a `tasks/update` keeps its `inputResponses`: they are its payload).
 */
function upstreamParams(method: string, params: JSONObject | undefined): JSONObject | undefined {
  if (params === undefined) return undefined;
  const { _meta, inputResponses, requestState: _state, ...rest } = params;
  if (method === 'tasks/update' && inputResponses !== undefined) rest.inputResponses = inputResponses;
  if (_meta === undefined || typeof _meta !== 'object' || _meta === null || Array.isArray(_meta)) return rest;
  const meta: JSONObject = {};
  for (const [key, value] of Object.entries(_meta)) if (key !== 'progressToken' && !ERA_META.has(key)) meta[key] = value;
  return Object.keys(meta).length > 0 ? { ...rest, _meta: meta } : rest;
}
