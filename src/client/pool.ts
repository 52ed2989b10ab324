/**
 * A pool of clients: many MCP servers behind one object, as an agent host needs them.
 *
 * Each server is a name and a {@link TransportFactory} (a fresh transport per connection
 * attempt; `mcpkit/client/node` builds them from an `mcpServers` config: stdio commands,
 * Streamable HTTP with the legacy SSE fallback, OAuth from the CLI's token store). The pool is
 * runtime-neutral: it never starts a process or opens a socket itself.
 *
 * Contracts:
 * - Connecting: eager servers start connecting when added; lazy ones on first use (a call, a
 *   listing). {@link ClientPool.connect} connects many in parallel and settles when each is
 *   ready or failed. Each attempt has its own timeout (`connectTimeoutMs`).
 * - Failure isolation: a server that fails, hangs or dies only fails requests routed to it,
 *   at once, with a {@link PoolError} naming its state and last error; the others go on.
 *   {@link ClientPool.status} shows every server's state and last error.
 * - Reconnection: a connection that ends (process exit, network error) or an attempt that
 *   fails is tried again after a backoff (`reconnect`: doubling from `initialDelayMs` to
 *   `maxDelayMs`, at most `maxAttempts` in a row, then the server is `failed` until
 *   {@link ClientPool.connect} names it again). An expired HTTP session (404) is not a lost
 *   connection: the `Client` itself starts a new session (`ClientOptions.reinitialize`); only
 *   when that fails does the pool reconnect.
 * - Names: tools and prompts are namespaced `server.name` by the composition naming rules
 *   (src/compose/names.ts, separator `.`); a server's name is a valid prefix (no `.`).
 *   Resources and templates keep their URIs and carry the server they came from; a read is
 *   routed to that server (a listed URI, then the one server whose template matches).
 * - The catalogue (tools, prompts, resources, templates; every page) is listed per server
 *   when it connects and again, for that server and kind only, on its `list_changed`.
 * - Notifications of every server reach {@link ClientPool.on} listeners with their source.
 * - Bounds: `maxServers` (default 1,000); each list through the client's `maxPages`; the tool
 *   index through `search` ({@link ToolSearchOptions}).
 */

import { namespaceName, splitName, validatePrefix } from '../compose/names.js';
import { LocalError, toError } from '../jsonrpc/errors.js';
import type { JSONObject } from '../jsonrpc/types.js';
import { Notification } from '../protocol/methods.js';
import type { RequestOptions } from '../session/session.js';
import type { Transport } from '../transport/types.js';
import type { CallToolResult, GetPromptResult, Implementation, Prompt, ReadResourceResult, Resource, ResourceTemplate, Tool } from '../types.js';
import { Client, type ClientOptions } from './client.js';
import { ToolSearch, type ToolSearchOptions } from './tool-search.js';

/** The separator between a server's name and its tools' and prompts' names. */
export const POOL_SEPARATOR = '.';

/** Builds a fresh, unstarted transport for one connection attempt to server `name`. */
export type TransportFactory = (name: string) => Transport | Promise<Transport>;

/** How the pool reconnects; see the module note. */
export interface ReconnectOptions {
  /** Delay before the first retry (default 500 ms). */
  initialDelayMs?: number;
  /** Longest delay (default 30 s). */
  maxDelayMs?: number;
  /** Retries in a row before the server is left `failed` (default 10). */
  maxAttempts?: number;
}

/** One server of a pool. */
export interface PoolServerOptions {
  /** Builds the transport of each connection attempt. */
  transport: TransportFactory;
  /** Connect on first use rather than when added (default: the pool's `lazy`). */
  lazy?: boolean;
  /** How long one connection attempt (transport start and handshake) may take (default: the pool's). */
  connectTimeoutMs?: number;
  /** Client options for this server, over the pool's `client` options. */
  client?: ClientOptions;
}

/** Options of a {@link ClientPool}. */
export interface ClientPoolOptions {
  /** The `clientInfo` every client sends (default `{ name: 'mcpkit-pool', version: '0.1.0' }`). */
  clientInfo?: Implementation;
  /** Options of every client (a server's own `client` options go over them). */
  client?: ClientOptions;
  /** Connect servers on first use instead of when added (default false). */
  lazy?: boolean;
  /** How long one connection attempt may take (default 30 s). */
  connectTimeoutMs?: number;
  /** Reconnection with backoff, or false for none (default: see {@link ReconnectOptions}). */
  reconnect?: ReconnectOptions | false;
  /** Most servers (default 1,000); `add` past it rejects. */
  maxServers?: number;
  /** Bounds of the tool search index. */
  search?: ToolSearchOptions;
}

/** The state of one server. */
export type PoolServerState = 'idle' | 'connecting' | 'ready' | 'reconnecting' | 'failed' | 'closed';

/** What {@link ClientPool.status} reports for one server. */
export interface PoolServerStatus {
  name: string;
  state: PoolServerState;
  /** The last connection or listing error, if any (kept after a later success until the next failure). */
  lastError?: string;
  /** Failed attempts in a row. */
  failures: number;
  /** The server's `serverInfo` and negotiated revision, once connected. */
  serverInfo?: Implementation;
  protocolVersion?: string;
  /** How many tools, prompts, resources and templates of it are in the catalogue. */
  counts: { tools: number; prompts: number; resources: number; resourceTemplates: number };
}

/** A tool in the catalogue: the server's definition under its namespaced name. */
export interface PoolTool extends Tool {
  /** The server it came from. */
  server: string;
  /** Its name on that server. */
  originalName: string;
}

/** A prompt in the catalogue, namespaced like a tool. */
export interface PoolPrompt extends Prompt {
  server: string;
  originalName: string;
}

/** A resource in the catalogue (URI unchanged). */
export interface PoolResource extends Resource {
  server: string;
}

/** A resource template in the catalogue (template unchanged). */
export interface PoolResourceTemplate extends ResourceTemplate {
  server: string;
}

/** A notification of one of the pool's servers. */
export interface PoolNotification {
  server: string;
  method: string;
  params: JSONObject | undefined;
}

/** The events of {@link ClientPool.on}. */
export interface PoolEvents {
  notification: PoolNotification;
  /** A server's state changed. */
  status: PoolServerStatus;
}

/** Why the pool could not route or serve a request. Compare `code`. */
export class PoolError extends Error {
  override name = 'PoolError';
  readonly code: 'unknown_server' | 'server_unavailable' | 'not_routable' | 'pool_closed' | 'invalid_server';
  readonly server: string | undefined;
  constructor(code: PoolError['code'], message: string, server?: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.server = server;
  }
}

/** Notifications passed on to {@link ClientPool.on} listeners. */
const FORWARDED = [
  Notification.Message,
  Notification.ResourcesUpdated,
  Notification.ResourcesListChanged,
  Notification.ToolsListChanged,
  Notification.PromptsListChanged,
  Notification.ElicitationComplete,
] as const;

type Kind = 'tools' | 'prompts' | 'resources' | 'resourceTemplates';

interface Entry {
  readonly name: string;
  readonly options: PoolServerOptions;
  state: PoolServerState;
  client: Client | undefined;
  /** The attempt in flight; settles when it is ready or failed (never rejects). */
  attempt: Promise<void> | undefined;
  lastError: string | undefined;
  failures: number;
  retryTimer: ReturnType<typeof setTimeout> | undefined;
  tools: PoolTool[];
  prompts: PoolPrompt[];
  resources: PoolResource[];
  resourceTemplates: PoolResourceTemplate[];
  /** Listings in flight, per kind (a list_changed during one lists again once after it). */
  listing: Map<Kind, { running: Promise<void>; again: boolean }>;
  /** Resources subscribed through the pool, subscribed again on every new connection. */
  subscribed: Set<string>;
}

/** A pool of MCP clients; see the module note. */
export class ClientPool {
  readonly #options: ClientPoolOptions;
  readonly #entries = new Map<string, Entry>();
  readonly #search: ToolSearch;
  readonly #listeners: { [K in keyof PoolEvents]: Set<(event: PoolEvents[K]) => void> } = { notification: new Set(), status: new Set() };
  #closed = false;

  constructor(options: ClientPoolOptions = {}) {
    for (const key of ['connectTimeoutMs', 'maxServers'] as const) {
      const v = options[key];
      if (v !== undefined && (!Number.isInteger(v) || v < 1)) throw new RangeError(`ClientPoolOptions.${key} must be a positive integer, got ${String(v)}`);
    }
    this.#options = options;
    this.#search = new ToolSearch(options.search);
  }

  /** The names of the servers, in the order they were added. */
  get servers(): string[] {
    return [...this.#entries.keys()];
  }

  /**
   * Adds server `name`. Rejects with {@link PoolError} `invalid_server` for a name that is not
   * a valid prefix (1-64 of `A-Z a-z 0-9 _ -`, no `.`), a name already in the pool, or past
   * `maxServers`; `pool_closed` after {@link close}. An eager server starts connecting; the
   * promise does not wait for it (see {@link connect}).
   */
  async add(name: string, server: PoolServerOptions): Promise<void> {
    if (this.#closed) throw new PoolError('pool_closed', 'The pool is closed; create another one', name);
    try {
      validatePrefix(name, POOL_SEPARATOR);
      if (name === '') throw new TypeError('A server name must not be empty');
    } catch (err) {
      throw new PoolError('invalid_server', `Cannot add server ${JSON.stringify(name)}: ${(err as Error).message}`, name);
    }
    if (this.#entries.has(name))
      throw new PoolError('invalid_server', `A server named ${JSON.stringify(name)} is already in the pool; remove it first or choose another name`, name);
    const max = this.#options.maxServers ?? 1000;
    if (this.#entries.size >= max) throw new PoolError('invalid_server', `The pool holds ${max} servers (maxServers); remove one or raise the limit`, name);
    if (typeof server?.transport !== 'function') throw new PoolError('invalid_server', `Server ${JSON.stringify(name)} needs a transport factory`, name);
    const entry: Entry = {
      name,
      options: server,
      state: 'idle',
      client: undefined,
      attempt: undefined,
      lastError: undefined,
      failures: 0,
      retryTimer: undefined,
      tools: [],
      prompts: [],
      resources: [],
      resourceTemplates: [],
      listing: new Map(),
      subscribed: new Set(),
    };
    this.#entries.set(name, entry);
    if (!(server.lazy ?? this.#options.lazy ?? false)) void this.#start(entry);
  }

  /** Removes server `name`: closes its client and drops its catalogue. Resolves false when there was none. */
  async remove(name: string): Promise<boolean> {
    const entry = this.#entries.get(name);
    if (entry === undefined) return false;
    this.#entries.delete(name);
    await this.#shut(entry);
    return true;
  }

  /**
   * Connects `names` (default: every server) in parallel, lazy ones too, and a `failed` or
   * `reconnecting` server again at once; resolves with their statuses once each attempt
   * settled: `ready`, or `reconnecting` (it failed and will be tried again after the backoff)
   * or `failed` (no retries left, or `reconnect: false`), with `lastError`. Never rejects for
   * a server's failure.
   */
  async connect(names?: readonly string[]): Promise<PoolServerStatus[]> {
    const entries = (names ?? this.servers).map((n) => this.#entry(n));
    await Promise.all(entries.map((e) => this.#start(e, true)));
    return entries.map((e) => this.#status(e));
  }

  /** Every server's state and last error. */
  status(): PoolServerStatus[] {
    return [...this.#entries.values()].map((e) => this.#status(e));
  }

  /**
   * The connected client of server `name`, connecting a lazy or idle one. Rejects with
   * {@link PoolError}: `unknown_server`, or `server_unavailable` when it is not connected
   * (failed, or reconnecting after a loss; the message has its last error).
   */
  async client(name: string): Promise<Client> {
    const entry = this.#entry(name);
    if (entry.state === 'idle') await this.#start(entry);
    else if (entry.state === 'connecting') await entry.attempt;
    if (entry.state !== 'ready' || entry.client === undefined) {
      throw new PoolError(
        'server_unavailable',
        `Server ${JSON.stringify(name)} is ${entry.state}${entry.lastError === undefined ? '' : `: ${entry.lastError}`}`,
        name,
      );
    }
    return entry.client;
  }

  /** The merged tools of every server (connecting lazy ones; failed servers are left out, see {@link status}). */
  async listTools(): Promise<PoolTool[]> {
    return (await this.#ready()).flatMap((e) => e.tools);
  }

  /** The merged prompts. */
  async listPrompts(): Promise<PoolPrompt[]> {
    return (await this.#ready()).flatMap((e) => e.prompts);
  }

  /** The merged resources, each with its server. */
  async listResources(): Promise<PoolResource[]> {
    return (await this.#ready()).flatMap((e) => e.resources);
  }

  /** The merged resource templates, each with its server. */
  async listResourceTemplates(): Promise<PoolResourceTemplate[]> {
    return (await this.#ready()).flatMap((e) => e.resourceTemplates);
  }

  /**
   * Calls tool `server.tool` on its server. Rejects with {@link PoolError} `not_routable` for a
   * name without a known server prefix, `server_unavailable` when that server is down; errors
   * of the call itself are the client's.
   */
  async callTool(name: string, args?: Record<string, unknown>, options?: RequestOptions): Promise<CallToolResult> {
    const { server, original } = this.#route(name, 'tool');
    const client = await this.client(server);
    return client.callTool({ name: original, ...(args === undefined ? {} : { arguments: args as JSONObject }) }, options);
  }

  /** Gets prompt `server.prompt` from its server (errors as {@link callTool}). */
  async getPrompt(name: string, args?: Record<string, string>, options?: RequestOptions): Promise<GetPromptResult> {
    const { server, original } = this.#route(name, 'prompt');
    const client = await this.client(server);
    return client.getPrompt(original, args, options);
  }

  /**
   * Reads resource `uri` from the server it came from: `options.server` when given, else the
   * server that listed exactly this URI, else the one server with a template matching it.
   * Rejects with {@link PoolError} `not_routable` when no server, or more than one, fits.
   */
  async readResource(uri: string, options: RequestOptions & { server?: string } = {}): Promise<ReadResourceResult> {
    const { server, ...request } = options;
    const target = server ?? (await this.#resourceServer(uri));
    const client = await this.client(target);
    return client.readResource(uri, request);
  }

  /**
   * Subscribes to updates of resource `uri` (routed as {@link readResource}); the server's
   * `notifications/resources/updated` reach {@link on} listeners with its name. The
   * subscription is made again whenever the pool reconnects that server. At most 10,000 per
   * server (a RangeError past it).
   */
  async subscribeResource(uri: string, options: RequestOptions & { server?: string } = {}): Promise<void> {
    const { server, ...request } = options;
    const name = server ?? (await this.#resourceServer(uri));
    const entry = this.#entry(name);
    if (!entry.subscribed.has(uri) && entry.subscribed.size >= 10_000)
      throw new RangeError(`Server ${JSON.stringify(name)} has 10,000 subscriptions through the pool; unsubscribe some first`);
    await (await this.client(name)).subscribeResource(uri, request);
    entry.subscribed.add(uri);
  }

  /** Ends a subscription made with {@link subscribeResource}. */
  async unsubscribeResource(uri: string, options: RequestOptions & { server?: string } = {}): Promise<void> {
    const { server, ...request } = options;
    const name = server ?? [...this.#entries.values()].find((e) => e.subscribed.has(uri))?.name ?? (await this.#resourceServer(uri));
    const entry = this.#entry(name);
    entry.subscribed.delete(uri);
    await (await this.client(name)).unsubscribeResource(uri, request);
  }

  /**
   * The tools that best fit `query` (BM25 over names, titles, descriptions and argument
   * names; see {@link ToolSearch}), across every ready server or only `servers`, best first.
   * Lists the catalogue first when needed. Throws the index's RangeError for a query or
   * `limit` outside its bounds.
   */
  async searchTools(query: string, options: { limit?: number; servers?: readonly string[] } = {}): Promise<PoolTool[]> {
    // only servers that can take the call: a down server's tools stay indexed until it is back
    const ready = await this.#ready();
    const groups = ready.map((e) => e.name).filter((n) => options.servers === undefined || options.servers.includes(n));
    if (groups.length === 0) return [];
    const hits = this.#search.search(query, { limit: options.limit, groups });
    const byName = new Map<string, PoolTool>();
    for (const e of ready) for (const t of e.tools) byName.set(t.name, t);
    return hits.map((h) => byName.get(h.key)).filter((t): t is PoolTool => t !== undefined);
  }

  /** Listens to `event`; returns a function that stops listening. */
  on<K extends keyof PoolEvents>(event: K, listener: (event: PoolEvents[K]) => void): () => void {
    const set = this.#listeners[event] as Set<(event: PoolEvents[K]) => void>;
    if (set === undefined) throw new TypeError(`Unknown pool event ${JSON.stringify(event)}; use "notification" or "status"`);
    set.add(listener);
    return () => set.delete(listener);
  }

  /** Closes every client; the pool accepts nothing afterwards. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    const entries = [...this.#entries.values()];
    await Promise.all(entries.map((e) => this.#shut(e)));
  }

  // ───────────── connections ─────────────

  #entry(name: string): Entry {
    const entry = this.#entries.get(name);
    if (entry === undefined)
      throw new PoolError('unknown_server', `No server named ${JSON.stringify(name)} in the pool (it has: ${this.servers.join(', ') || 'none'})`, name);
    return entry;
  }

  /** Starts an attempt unless one runs or the server is ready; `force` also restarts a failed or reconnecting one now. */
  #start(entry: Entry, force = false): Promise<void> {
    if (entry.state === 'ready' || entry.state === 'closed') return Promise.resolve();
    if (entry.attempt !== undefined) return entry.attempt;
    if (!force && (entry.state === 'failed' || entry.state === 'reconnecting')) return Promise.resolve();
    if (entry.retryTimer !== undefined) clearTimeout(entry.retryTimer);
    entry.retryTimer = undefined;
    const attempt = this.#attempt(entry).finally(() => {
      if (entry.attempt === attempt) entry.attempt = undefined;
    });
    entry.attempt = attempt;
    return attempt;
  }

  async #attempt(entry: Entry): Promise<void> {
    this.#set(entry, entry.failures === 0 ? 'connecting' : 'reconnecting');
    const options: ClientOptions = { ...this.#options.client, ...entry.options.client };
    const userOnError = options.onError;
    let client: Client | undefined;
    options.onError = (error) => {
      userOnError?.(error);
      // the client could not start a new session after an expiry (it has no handshake result
      // then; the expiry itself is reported while the old one is still there): the connection is gone
      if (client !== undefined && entry.client === client && isExpiry(error) && client.serverInfo === undefined) this.#lost(entry, client, error);
    };
    client = new Client(this.#options.clientInfo ?? { name: 'mcpkit-pool', version: '0.1.0' }, options);
    const own = client;
    for (const method of FORWARDED) own.on(method, (params) => this.#notified(entry, own, method, params));
    own.onConnect((endpoint) => {
      endpoint.onClose((reason) => {
        // (entry.client is set once the handshake is done: a close while listing counts too)
        if (entry.client !== own) return;
        // an expired session: the client starts a new one itself (ClientOptions.reinitialize)
        if (isExpiry(reason) && options.reinitialize !== false) return;
        this.#lost(entry, own, reason ?? new LocalError('connection_closed', 'The connection closed'));
      });
    });
    const timeoutMs = entry.options.connectTimeoutMs ?? this.#options.connectTimeoutMs ?? 30_000;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new LocalError('timeout', `Connecting took longer than ${timeoutMs} ms (connectTimeoutMs)`)), timeoutMs);
    try {
      // the factory is bounded by the timeout too; a transport it makes too late is closed
      const made = Promise.resolve().then(() => entry.options.transport(entry.name));
      const aborted = new Promise<never>((_resolve, reject) =>
        controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true }),
      );
      const transport = await Promise.race([made, aborted]).catch((err: unknown) => {
        if (controller.signal.aborted)
          void made.then(
            (late) => late.close(),
            () => {},
          );
        throw err;
      });
      await own.connect(transport, { signal: controller.signal, timeoutMs });
    } catch (err) {
      clearTimeout(timer);
      await own.close().catch(() => {});
      if (entry.state === 'closed') return;
      this.#failed(entry, controller.signal.aborted ? toError(controller.signal.reason) : toError(err));
      return;
    } finally {
      clearTimeout(timer);
    }
    if (entry.state === 'closed' || this.#entries.get(entry.name) !== entry) {
      await own.close().catch(() => {});
      return;
    }
    entry.client = own;
    entry.failures = 0;
    const resubscribed = [...entry.subscribed].map((uri) =>
      own.subscribeResource(uri).catch((err: unknown) => {
        entry.lastError = `subscribing to ${uri} again failed: ${toError(err).message}`;
      }),
    );
    await Promise.all([...(['tools', 'prompts', 'resources', 'resourceTemplates'] as const).map((kind) => this.#list(entry, own, kind)), ...resubscribed]);
    if (entry.client === own && (entry.state as PoolServerState) !== 'closed') this.#set(entry, 'ready');
  }

  /** The connection of `client` ended: drop it and reconnect after the backoff. */
  #lost(entry: Entry, client: Client, reason: Error): void {
    if (entry.client !== client) return;
    entry.client = undefined;
    void client.close().catch(() => {});
    this.#failed(entry, reason);
  }

  /** An attempt failed or a connection was lost: record it and schedule the next attempt. */
  #failed(entry: Entry, error: Error): void {
    entry.lastError = error.message;
    entry.failures++;
    const reconnect = this.#options.reconnect;
    const maxAttempts = reconnect === false ? 0 : (reconnect?.maxAttempts ?? 10);
    if (this.#closed || entry.failures > maxAttempts) {
      this.#set(entry, 'failed');
      return;
    }
    const initial = (reconnect || undefined)?.initialDelayMs ?? 500;
    const max = (reconnect || undefined)?.maxDelayMs ?? 30_000;
    const delay = Math.min(max, initial * 2 ** (entry.failures - 1));
    this.#set(entry, 'reconnecting');
    entry.retryTimer = setTimeout(() => {
      entry.retryTimer = undefined;
      // an attempt may still be finishing (the connection was lost while it listed): retry after it
      void (entry.attempt ?? Promise.resolve()).then(() => {
        if (this.#entries.get(entry.name) === entry && entry.state === 'reconnecting' && entry.client === undefined) void this.#start(entry, true);
      });
    }, delay);
    // a pending retry must not keep a process alive on its own
    (entry.retryTimer as { unref?: () => void }).unref?.();
  }

  async #shut(entry: Entry): Promise<void> {
    if (entry.retryTimer !== undefined) clearTimeout(entry.retryTimer);
    entry.retryTimer = undefined;
    const client = entry.client;
    entry.client = undefined;
    this.#set(entry, 'closed');
    this.#search.removeGroup(entry.name);
    entry.tools = [];
    entry.prompts = [];
    entry.resources = [];
    entry.resourceTemplates = [];
    await client?.close().catch(() => {});
    await entry.attempt;
  }

  #set(entry: Entry, state: PoolServerState): void {
    if (entry.state === state) return;
    entry.state = state;
    this.#emit('status', this.#status(entry));
  }

  #status(entry: Entry): PoolServerStatus {
    const status: PoolServerStatus = {
      name: entry.name,
      state: entry.state,
      failures: entry.failures,
      counts: {
        tools: entry.tools.length,
        prompts: entry.prompts.length,
        resources: entry.resources.length,
        resourceTemplates: entry.resourceTemplates.length,
      },
    };
    if (entry.lastError !== undefined) status.lastError = entry.lastError;
    const info = entry.client?.serverInfo;
    if (info !== undefined) status.serverInfo = info;
    const version = entry.client?.protocolVersion;
    if (version !== undefined) status.protocolVersion = version;
    return status;
  }

  #emit<K extends keyof PoolEvents>(event: K, value: PoolEvents[K]): void {
    for (const listener of this.#listeners[event] as Set<(event: PoolEvents[K]) => void>) {
      try {
        listener(value);
      } catch (err) {
        queueMicrotask(() => {
          throw err;
        });
      }
    }
  }

  /** Every server connected (lazy and idle ones started, attempts in flight awaited); the ready ones. */
  async #ready(): Promise<Entry[]> {
    const entries = [...this.#entries.values()];
    await Promise.all(entries.map((e) => (e.state === 'idle' ? this.#start(e) : e.attempt)));
    await Promise.all(entries.flatMap((e) => [...e.listing.values()].map((l) => l.running)));
    return entries.filter((e) => e.state === 'ready');
  }

  // ───────────── the catalogue ─────────────

  #notified(entry: Entry, client: Client, method: string, params: JSONObject | undefined): void {
    if (entry.client !== client && entry.state === 'ready') return;
    if (method === Notification.ToolsListChanged) void this.#list(entry, client, 'tools');
    else if (method === Notification.PromptsListChanged) void this.#list(entry, client, 'prompts');
    else if (method === Notification.ResourcesListChanged) {
      void this.#list(entry, client, 'resources');
      void this.#list(entry, client, 'resourceTemplates');
    }
    this.#emit('notification', { server: entry.name, method, params });
  }

  /** Lists one kind of one server (all pages) into the catalogue; a second request while one runs lists once more after it. */
  #list(entry: Entry, client: Client, kind: Kind): Promise<void> {
    const running = entry.listing.get(kind);
    if (running !== undefined) {
      running.again = true;
      return running.running;
    }
    const state = { running: Promise.resolve(), again: false };
    state.running = (async () => {
      do {
        state.again = false;
        await this.#listOnce(entry, client, kind);
      } while (state.again && entry.client === client);
      entry.listing.delete(kind);
    })();
    entry.listing.set(kind, state);
    return state.running;
  }

  async #listOnce(entry: Entry, client: Client, kind: Kind): Promise<void> {
    const caps = client.serverCapabilities;
    const capability = kind === 'tools' ? caps?.tools : kind === 'prompts' ? caps?.prompts : caps?.resources;
    if (capability === undefined) return;
    const server = entry.name;
    try {
      if (kind === 'tools') {
        const tools = (await client.listAllTools()).map(
          (t): PoolTool => ({ ...t, name: namespaceName(server, t.name, POOL_SEPARATOR), server, originalName: t.name }),
        );
        if (entry.client !== client && entry.state !== 'connecting' && entry.state !== 'reconnecting') return;
        this.#search.replace(tools, { group: server, key: (t) => t.name });
        entry.tools = tools;
      } else if (kind === 'prompts') {
        entry.prompts = (await client.listAllPrompts()).map((p) => ({
          ...p,
          name: namespaceName(server, p.name, POOL_SEPARATOR),
          server,
          originalName: p.name,
        }));
      } else if (kind === 'resources') {
        entry.resources = (await client.listAllResources()).map((r) => ({ ...r, server }));
      } else {
        entry.resourceTemplates = (await client.listAllResourceTemplates()).map((t) => ({ ...t, server }));
      }
    } catch (err) {
      entry.lastError = `listing ${kind} failed: ${toError(err).message}`;
    }
  }

  /** The server and original name of a namespaced tool or prompt. */
  #route(name: string, what: 'tool' | 'prompt'): { server: string; original: string } {
    const split = typeof name === 'string' ? splitName(name, POOL_SEPARATOR) : undefined;
    if (split === undefined || !this.#entries.has(split.prefix)) {
      throw new PoolError(
        'not_routable',
        `${what === 'tool' ? 'Tool' : 'Prompt'} ${JSON.stringify(String(name).slice(0, 200))} does not name a server of the pool: use SERVER${POOL_SEPARATOR}NAME (servers: ${this.servers.join(', ') || 'none'})`,
      );
    }
    return { server: split.prefix, original: split.name };
  }

  /** The server a resource URI belongs to: the one that listed it, else the one template that matches it. */
  async #resourceServer(uri: string): Promise<string> {
    const entries = await this.#ready();
    const listed = entries.filter((e) => e.resources.some((r) => r.uri === uri));
    if (listed.length === 1) return listed[0]!.name;
    const candidates = listed.length > 1 ? listed : entries.filter((e) => e.resourceTemplates.some((t) => templateMatches(t.uriTemplate, uri)));
    if (candidates.length === 1) return candidates[0]!.name;
    const which =
      candidates.length === 0 ? 'no server lists it or has a template matching it' : `several servers have it (${candidates.map((e) => e.name).join(', ')})`;
    throw new PoolError('not_routable', `Cannot route resource ${JSON.stringify(uri.slice(0, 200))}: ${which}; pass { server } to say which`);
  }
}

/** True for the end of an expired session (LocalError `session_expired`, or a close it caused). */
function isExpiry(reason: Error | undefined): boolean {
  if (!(reason instanceof LocalError)) return false;
  if (reason.code === 'session_expired') return true;
  const cause = (reason as { cause?: unknown }).cause;
  return cause instanceof LocalError && cause.code === 'session_expired';
}

/**
 * Whether `uri` is an expansion of RFC 6570 `template`, as a router reads it: the literal
 * parts appear in order, each expression takes what lies between them (a simple `{var}` one
 * or more characters other than `/ ? #`; `{+var}`, `{#var}` and the other operators any
 * characters), each literal matching at its first place after the previous one. No regular
 * expression, no backtracking: one left-to-right pass.
 */
export function templateMatches(template: string, uri: string): boolean {
  if (typeof template !== 'string' || typeof uri !== 'string' || template.length > 1000) return false;
  const literals: string[] = [];
  const loose: boolean[] = [];
  let at = 0;
  for (const m of template.matchAll(/\{([+#./;?&]?)[^{}]*\}/g)) {
    const literal = template.slice(at, m.index);
    if (literal === '' && loose.length > 0) {
      // two expressions in a row read as one, the looser of the two
      loose[loose.length - 1] = true;
    } else {
      literals.push(literal);
      loose.push(m[1] !== '');
    }
    at = m.index! + m[0].length;
  }
  literals.push(template.slice(at));
  if (!uri.startsWith(literals[0]!)) return false;
  let pos = literals[0]!.length;
  for (let i = 0; i < loose.length; i++) {
    const next = literals[i + 1]!;
    const last = i === loose.length - 1;
    const end = next === '' && last ? uri.length : last ? uri.length - next.length : uri.indexOf(next, pos + 1);
    if (end < pos + 1 || (last && !uri.endsWith(next))) return false;
    if (!loose[i] && /[/?#]/.test(uri.slice(pos, end))) return false;
    pos = end + next.length;
  }
  return pos === uri.length;
}
