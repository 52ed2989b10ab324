/**
 * A gateway: one MCP server (one Streamable HTTP endpoint, both eras) over many upstream
 * servers, each mounted under its name (`createGateway`). Runtime-neutral: each upstream's
 * transport comes from a factory (`mcpkit/client/node`'s `transportFactory` builds one from
 * an `mcpServers` entry; `mcpkit gateway --config FILE` does that for you).
 *
 * Design notes:
 * - Each upstream is an {@link McpProxy} (its routing of sampling, elicitation and roots
 *   requests to the caller whose call is in flight, progress, cancellation, logging, the
 *   2025 task bridge, reconnection with backoff) mounted on the gateway's server with
 *   `mount(server, name, proxy.source(server))`: tool and prompt names become
 *   `name_tool` (names.ts; separator configurable), resource URIs
 *   `mcpkit+mount://name/<uri>`.
 * - Failure isolation (gateway-upstream.ts): an upstream that closes, exits or stops
 *   answering pings is unmounted (its tools leave the lists; `list_changed` goes to the
 *   connected callers), calls in flight to it end at once with -32603 naming it, the others
 *   keep serving; it is reconnected with backoff and mounted again (`list_changed` again).
 *   A call to one of its tools while it is down gets -32603 saying it is down.
 * - `GET /healthz` answers 200 while the process serves; `GET /readyz` 200 when every
 *   required upstream is up, else 503; both bodies are JSON listing each upstream's state
 *   (names and states only: no error text, no URL). They are answered before the Host,
 *   Origin and authorization checks (probes send neither), on every path adapter.
 * - Logging: a caller's `logging/setLevel` is passed to every upstream (one upstream session
 *   is shared by all callers: the last level set wins, as through a proxy) and set again after
 *   a reconnection; upstream log messages go to the caller whose call is in flight, else to
 *   every connected caller (each filtered by its own level).
 * - Visibility: `policy` is installed with `visibility()` (visibility.ts) on the gateway's
 *   server, so it filters the merged, namespaced catalogue per caller. With `search`
 *   (progressive discovery, search-tools.ts) the policy is handed to `searchTools` instead,
 *   which applies it to every request AND to what `search_tools` finds and `call_tool` calls
 *   (a separately registered policy would hide tools from the list but not from search).
 * - Tasks (gateway-tasks.ts): the 2025-11-25 `tasks` capability is declared unless every
 *   upstream has been up and none offers task-augmented `tools/call` (capabilities are fixed
 *   at a caller's first connection, while upstreams come and go); task ids are gateway ids
 *   that name their upstream under a MAC bound to the caller; `tasks/list` merges the
 *   upstreams' lists (the caller's own tasks only). The 2026-07-28 tasks extension is
 *   declared in `server/discover` by the same rule, for the upstreams that offer it (in that
 *   era); its task ids are gateway ids of the same encoding.
 * - No token passthrough: the callers' requests reach an upstream through the proxy's own
 *   client, with the headers and environment configured for that upstream only.
 */
import type { Client } from '../client/client.js';
import { StreamableHttpHandler, type StreamableHttpOptions } from '../http/server/handler.js';
import type { HttpReply, HttpRequest, HttpRequestInfo } from '../http/server/types.js';
import { McpError } from '../jsonrpc/errors.js';
import { ErrorCode } from '../jsonrpc/types.js';
import { McpServer, type ServerOptions } from '../server/index.js';
import { tasksExtension } from '../tasks/wire.js';
import type { Transport } from '../transport/types.js';
import type { Implementation, LoggingLevel, ServerCapabilities } from '../types.js';
import { GatewayTasks, runsToolTasks } from './gateway-tasks.js';
import { Upstream, type UpstreamStatus } from './gateway-upstream.js';
import { DEFAULT_SEPARATOR, splitName, validatePrefix } from './names.js';
import type { ProxyRestartOptions } from './proxy.js';
import { offersTaskExtension, taskExtensionDeclaration } from './proxy-tasks.js';
import { type SearchToolsOptions, searchTools } from './search-tools.js';
import { type VisibilityPolicy, visibility } from './visibility.js';

export type { UpstreamState, UpstreamStatus } from './gateway-upstream.js';

/** One upstream of a gateway. */
export interface GatewayUpstream {
  /**
   * Opens a new transport to the upstream (at start and at every reconnection), carrying the
   * gateway's own credentials for it (headers, environment); never a caller's.
   */
  transport: () => Transport | Promise<Transport>;
  /** Whether the readiness endpoint waits for it (default true). */
  required?: boolean;
  /**
   * The prefix of its tools, prompts and resource URIs (default: its name). `''` merges its
   * catalogue unprefixed (e.g. to put one server behind the gateway unchanged); a name a
   * merged upstream shares with another is refused at mount (reported; retried with backoff).
   */
  prefix?: string;
  /**
   * Revisions the gateway may speak to it (default: both eras, 2026-07-28 preferred). Its
   * tasks pass in the form of the era spoken: the 2026-07-28 extension to 2026-07-28 callers,
   * or, with the 2025 revisions listed (e.g. `['2025-11-25', '2025-06-18']`), the 2025-11-25
   * form to 2025 callers.
   */
  protocolVersions?: readonly string[];
}

/** Pings that tell a hung upstream from a live one. */
export interface GatewayHealthCheckOptions {
  /** Between two rounds of pings, in ms (default 15 000). */
  intervalMs?: number;
  /** How long an upstream has to answer, in ms (default 5 000); past it the upstream is restarted. */
  timeoutMs?: number;
}

/** Options of {@link createGateway}. */
export interface GatewayOptions {
  /** The upstreams by name; each name is the prefix of its tools and prompts (1-64 of `A-Z a-z 0-9 _ - .`, without the separator). */
  upstreams: Readonly<Record<string, GatewayUpstream>>;
  /** Between an upstream's name and its tool or prompt names (default `_`). */
  separator?: string;
  /** The gateway's identity toward its callers (default `{ name: 'mcpkit-gateway', version: '1' }`). */
  serverInfo?: Implementation;
  /** What each caller sees and may call (visibility.ts); names are the namespaced ones. Default: everything. */
  policy?: VisibilityPolicy;
  /**
   * Progressive discovery (`searchTools`, search-tools.ts): a caller who may see more than
   * `threshold` tools (default 50) gets `search_tools` and `call_tool` (and the `pinned` ones)
   * instead of the whole catalogue. `policy` applies to what search finds and call_tool calls.
   * Default: off.
   */
  search?: Omit<SearchToolsOptions, 'visibility'>;
  /** Most upstream tasks the gateway remembers for `tasks/list` and task status notifications (default 10 000; oldest forgotten first). */
  maxTaskRecords?: number;
  /** Reconnection of an upstream (default 250 ms doubling to 30 s, for ever). */
  restart?: ProxyRestartOptions;
  /** Timeout of each forwarded request, reset by progress, in ms (default 600 000). */
  requestTimeoutMs?: number;
  /** Health pings of the upstreams (default every 15 s, 5 s to answer); `false`: none. */
  healthCheck?: GatewayHealthCheckOptions | false;
  /** Options of the gateway's McpServer (e.g. `stateless.requestState.secret`, shared by every instance). */
  server?: Omit<ServerOptions, 'capabilities' | 'instructions'>;
  /** Options of the HTTP handler (auth, allowed hosts, legacy SSE, a shared session directory and event store). */
  http?: Omit<StreamableHttpOptions, 'server'>;
  /** Path of the liveness endpoint (default `/healthz`). */
  healthPath?: string;
  /** Path of the readiness endpoint (default `/readyz`). */
  readyPath?: string;
  /** Upstream failures, reconnections and refused catalogue items (default: stderr, one line each). */
  onError?: (error: Error) => void;
  /** Told each time an upstream changes state. */
  onStatus?: (status: UpstreamStatus) => void;
  /**
   * Called with each upstream's client before it connects (at start and at every
   * reconnection), with the upstream's name: instrument it (`instrument(client, options)` of
   * mcpkit/otel; instrument `gateway.server` too for one trace from caller to upstream).
   */
  onUpstreamClient?: (client: Client, name: string) => void;
}

/** A running gateway. */
export interface Gateway {
  /** The gateway's server (serve it over other transports too, if you like). */
  readonly server: McpServer;
  /** The HTTP handler: the MCP endpoint (default `/mcp`), the health endpoints; `serveNode(gateway.handler)` serves it on Node. */
  readonly handler: StreamableHttpHandler;
  /** The web-standard entry point (`handler.fetch`). */
  fetch(request: Request, info?: HttpRequestInfo): Promise<Response>;
  /** Each upstream's state, in configuration order. */
  status(): UpstreamStatus[];
  /** True when every required upstream is up. */
  readonly ready: boolean;
  /** Resolves once {@link ready}; rejects with an Error listing the states after `timeoutMs` (default 60 000). */
  whenReady(timeoutMs?: number): Promise<void>;
  /** Stops the HTTP handler, then every upstream (stdio children end). */
  close(): Promise<void>;
}

/** The default health check interval and timeout. */
export const DEFAULT_GATEWAY_HEALTH_CHECK = Object.freeze({ intervalMs: 15_000, timeoutMs: 5_000 });

const CAPABILITIES: ServerCapabilities = {
  tools: { listChanged: true },
  prompts: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  completions: {},
  logging: {},
};

/**
 * Creates a gateway over `options.upstreams` (see the module note) and starts connecting
 * them in the background: the gateway serves at once, each upstream's tools appear when it
 * is up. Throws TypeError for a bad name, separator, path or policy rule.
 */
export function createGateway(options: GatewayOptions): Gateway {
  const separator = options.separator ?? DEFAULT_SEPARATOR;
  const names = Object.keys(options.upstreams);
  const prefixes = new Map<string, string>();
  for (const name of names) {
    const prefix = options.upstreams[name]!.prefix ?? name;
    try {
      validatePrefix(prefix, separator);
    } catch (error) {
      throw new TypeError(`Upstream ${JSON.stringify(name)} cannot be mounted under ${JSON.stringify(prefix)}: ${(error as Error).message}`);
    }
    if (prefix !== '' && prefixes.has(prefix))
      throw new TypeError(
        `Upstreams ${JSON.stringify(prefixes.get(prefix))} and ${JSON.stringify(name)} share the prefix ${JSON.stringify(prefix)}: give each its own`,
      );
    prefixes.set(prefix, name);
  }
  const healthPath = options.healthPath ?? '/healthz';
  const readyPath = options.readyPath ?? '/readyz';
  for (const path of [healthPath, readyPath])
    if (!path.startsWith('/') || path === (options.http?.endpoint ?? '/mcp'))
      throw new TypeError(`Health path ${JSON.stringify(path)} must start with "/" and differ from the MCP endpoint`);
  const onError = options.onError ?? ((error: Error) => void console.error(`mcpkit gateway: ${error.message}`));
  const server = new McpServer(options.serverInfo ?? { name: 'mcpkit-gateway', version: '1' }, {
    onError,
    ...options.server,
    capabilities: CAPABILITIES,
  });
  // with search, the policy goes to searchTools, which gates every request and filters search too
  if (options.search !== undefined) searchTools(server, { ...options.search, ...(options.policy === undefined ? {} : { visibility: options.policy }) });
  else if (options.policy !== undefined) server.use(visibility(options.policy));
  const upstreams = new Map<string, Upstream>();
  // the task id key: shared by the instances that share the requestState secret, else random per instance
  const tasks = new GatewayTasks(upstreams, {
    secret: options.server?.stateless?.requestState?.secret,
    maxRecords: options.maxTaskRecords,
    policy: options.policy,
  });
  // declared unless every upstream has been up and none runs tool tasks (fixed at the first caller's connection)
  const declareTasks = (): boolean => [...upstreams.values()].some((u) => u.lastCapabilities === undefined || runsToolTasks(u.lastCapabilities));
  const extension = tasksExtension((role) =>
    role === 'server' && declareTasks() ? { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } } : undefined,
  );
  // the 2026-07-28 tasks extension in server/discover: the same rule, for the upstreams that offer it
  const declareFlat = (): boolean => [...upstreams.values()].some((u) => u.lastOffersTaskExtension !== false);
  extension.statelessExtensions = (role) => (role === 'server' && declareFlat() ? taskExtensionDeclaration() : undefined);
  server.extend(extension);
  server.use(
    tasks.interceptor(
      () => (server.capabilities() as { tasks?: unknown }).tasks !== undefined,
      () => offersTaskExtension(server),
    ),
  );
  for (const name of names) {
    const spec = options.upstreams[name]!;
    upstreams.set(
      name,
      new Upstream(server, {
        name,
        prefix: spec.prefix ?? name,
        transport: spec.transport,
        protocolVersions: spec.protocolVersions,
        required: spec.required ?? true,
        separator,
        restart: options.restart,
        requestTimeoutMs: options.requestTimeoutMs,
        onError,
        onState: (upstream) => options.onStatus?.(upstream.status()),
        tasks,
        onClient: options.onUpstreamClient === undefined ? undefined : (client) => options.onUpstreamClient!(client, name),
      }),
    );
  }
  // a tool of an upstream that is down: -32603 saying so (mounted tools are routed before this)
  server.wrap('tools/call', (inner) => (params, ctx) => {
    const split = typeof params?.name === 'string' ? splitName(params.name, separator) : undefined;
    const owner = split === undefined ? undefined : prefixes.get(split.prefix);
    const upstream = owner === undefined ? undefined : upstreams.get(owner);
    if (upstream !== undefined && upstream.state !== 'up')
      throw new McpError(
        ErrorCode.InternalError,
        `Upstream "${upstream.name}" is ${upstream.state === 'connecting' ? 'connecting' : 'down'}, so ${JSON.stringify(params!.name)} cannot be called now; the gateway reconnects it, retry shortly.`,
      );
    return inner(params, ctx);
  });
  // the callers' log level goes to every upstream (one level per upstream session: the last one set wins, as through a proxy)
  server.wrap(
    'logging/setLevel',
    (inner) => async (params, ctx) => {
      // the gateway's own handler checks the level first (an invalid one gets -32602 and goes nowhere)
      const result = await inner(params, ctx);
      const level = params?.level as LoggingLevel;
      await Promise.all(
        [...upstreams.values()].map((u) =>
          u.setLogLevel(level).catch((error: unknown) => onError(new Error(`upstream "${u.name}": setting its log level failed: ${(error as Error).message}`))),
        ),
      );
      return result;
    },
    { era: '2025' },
  );
  const status = (): UpstreamStatus[] => [...upstreams.values()].map((u) => u.status());
  const isReady = (): boolean => [...upstreams.values()].every((u) => u.state === 'up' || !u.status().required);
  const handler = new GatewayHttpHandler({ ...options.http, server }, { healthPath, readyPath, status, ready: isReady });
  const check = options.healthCheck === false ? undefined : { ...DEFAULT_GATEWAY_HEALTH_CHECK, ...options.healthCheck };
  let timer: ReturnType<typeof setInterval> | undefined;
  if (check !== undefined) {
    if (!(check.intervalMs >= 1 && check.timeoutMs >= 1)) throw new TypeError('healthCheck.intervalMs and healthCheck.timeoutMs must be at least 1 ms');
    timer = setInterval(() => {
      for (const upstream of upstreams.values()) void upstream.check(check.timeoutMs);
    }, check.intervalMs);
    (timer as { unref?: () => void }).unref?.();
  }
  for (const upstream of upstreams.values()) upstream.start();
  let closing: Promise<void> | undefined;
  return {
    server,
    handler,
    fetch: (request, info) => handler.fetch(request, info),
    status,
    get ready() {
      return isReady();
    },
    whenReady(timeoutMs = 60_000) {
      return new Promise<void>((resolve, reject) => {
        if (isReady()) return resolve();
        const poll = setInterval(() => {
          if (isReady()) {
            clearInterval(poll);
            clearTimeout(limit);
            resolve();
          }
        }, 20);
        const limit = setTimeout(() => {
          clearInterval(poll);
          reject(new Error(`The gateway is not ready after ${timeoutMs} ms: ${JSON.stringify(status().map((s) => `${s.name}: ${s.state}`))}`));
        }, timeoutMs);
      });
    },
    close() {
      closing ??= (async () => {
        clearInterval(timer);
        await handler.close();
        await Promise.all([...upstreams.values()].map((u) => u.close().catch((error: unknown) => onError(error as Error))));
        await server.close();
      })();
      return closing;
    },
  };
}

/** The health endpoints' view of the gateway. */
interface HealthView {
  readonly healthPath: string;
  readonly readyPath: string;
  status(): UpstreamStatus[];
  ready(): boolean;
}

/** The gateway's HTTP handler: the Streamable HTTP handler with the health endpoints in front. */
class GatewayHttpHandler extends StreamableHttpHandler {
  readonly #health: HealthView;

  constructor(options: StreamableHttpOptions, health: HealthView) {
    super(options);
    this.#health = health;
  }

  override handle(request: HttpRequest, info?: HttpRequestInfo): Promise<HttpReply> {
    const reply = this.#healthReply(request.method, request.url);
    return reply === undefined ? super.handle(request, info) : Promise.resolve(reply);
  }

  override fetch(request: Request, info?: HttpRequestInfo): Promise<Response> {
    const reply = this.#healthReply(request.method, request.url);
    if (reply === undefined) return super.fetch(request, info);
    return Promise.resolve(new Response(request.method === 'HEAD' ? null : reply.body, { status: reply.status, headers: reply.headers }));
  }

  /** The reply of a health endpoint, or undefined for any other request. */
  #healthReply(method: string, url: string): { status: number; headers: Record<string, string>; body: string } | undefined {
    if (method !== 'GET' && method !== 'HEAD') return undefined;
    const path = pathOf(url);
    if (path !== this.#health.healthPath && path !== this.#health.readyPath) return undefined;
    const upstreams = this.#health.status().map(({ name, state, required }) => ({ name, state, required }));
    const live = path === this.#health.healthPath;
    const ok = live ? this.ready : this.ready && this.#health.ready();
    const body = JSON.stringify({ status: ok ? (live ? 'alive' : 'ready') : live ? 'stopping' : 'not ready', upstreams });
    return { status: ok ? 200 : 503, headers: { 'content-type': 'application/json', 'cache-control': 'no-store' }, body };
  }
}

/** The path of a request target (origin form or absolute), without its query. */
function pathOf(url: string): string {
  const start = url.startsWith('/') ? 0 : url.indexOf('/', url.indexOf('//') + 2);
  if (start < 0) return '/';
  const end = url.search(/[?#]/);
  return url.slice(start, end < 0 ? undefined : end);
}
