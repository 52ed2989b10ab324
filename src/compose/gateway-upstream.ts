/**
 * One upstream of a gateway: an {@link McpProxy} to it, mounted on the gateway's server
 * under the upstream's name while it is connected, and its life (runtime-neutral).
 *
 * States: `connecting` (first connection, or connected and its catalogue being read),
 * `up` (mounted: its tools are served), `down` (lost or not reachable: unmounted, so its
 * tools left the lists with `list_changed`; reconnection with backoff is scheduled),
 * `closed`. The first connection is retried with the same backoff as a reconnection
 * (`McpProxy` reconnects after a close by itself; this class reconnects when the very first
 * attempt failed). A health check pings the upstream; an upstream that does not answer
 * within the timeout is dropped and reconnected (`McpProxy.restart`), which is how a hung
 * upstream is told from a slow call.
 */

import type { Client } from '../client/client.js';
import { LocalError, McpError } from '../jsonrpc/errors.js';
import { ErrorCode, type JSONObject } from '../jsonrpc/types.js';
import type { ServerRequestContext } from '../server/connection.js';
import type { McpServer } from '../server/index.js';
import { TaskNotification } from '../tasks/types.js';
import type { Transport } from '../transport/types.js';
import type { LoggingLevel, ServerCapabilities } from '../types.js';
import { type GatewayTasks, runsToolTasks, type TaskUpstream } from './gateway-tasks.js';
import { type Mount, mount } from './mount.js';
import { namespaceName } from './names.js';
import { McpProxy, type ProxyRestartOptions, restartDelay } from './proxy.js';
import { callerDeclaresTaskExtension, upstreamOffersTaskExtension } from './proxy-tasks.js';
import type { MountSource } from './source.js';

/** Where an upstream is in its life (see the module note). */
export type UpstreamState = 'connecting' | 'up' | 'down' | 'closed';

/** One upstream as the readiness endpoint and {@link Gateway.status} show it. */
export interface UpstreamStatus {
  readonly name: string;
  readonly state: UpstreamState;
  /** Whether readiness waits for it. */
  readonly required: boolean;
  /** Tools it serves now (0 unless `up`). */
  readonly tools: number;
  /** When it entered its state (ISO 8601). */
  readonly since: string;
  /** Failed connection attempts since it was last up. */
  readonly failures: number;
}

/** What an upstream needs from its gateway. */
export interface UpstreamSettings {
  readonly name: string;
  /** The prefix it is mounted under (its name, or '' to merge). */
  readonly prefix: string;
  readonly transport: () => Transport | Promise<Transport>;
  readonly protocolVersions: readonly string[] | undefined;
  readonly required: boolean;
  readonly separator: string;
  readonly restart: ProxyRestartOptions | undefined;
  readonly requestTimeoutMs: number | undefined;
  readonly onError: (error: Error) => void;
  readonly onState: (upstream: Upstream) => void;
  /** The gateway's task router: a task made on this upstream gets a gateway id (gateway-tasks.ts). */
  readonly tasks: GatewayTasks;
  /** Each upstream client before it connects (see `ProxyOptions.onClient`). */
  readonly onClient?: ((client: Client) => void) | undefined;
}

/** One upstream (see the module note). */
export class Upstream implements TaskUpstream {
  readonly #server: McpServer;
  readonly #settings: UpstreamSettings;
  #state: UpstreamState = 'connecting';
  #since = new Date();
  #failures = 0;
  #proxy: McpProxy | undefined;
  #mount: Mount | undefined;
  /** Bumped at every state change: a mount that finishes after the upstream went down again is undone. */
  #generation = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #checking = false;
  /** The log level the gateway's callers last set: given to the upstream now and after each reconnection. */
  #logLevel: LoggingLevel | undefined;
  /** The capabilities it had when last up (undefined until it first was). */
  #lastCapabilities: ServerCapabilities | undefined;

  constructor(server: McpServer, settings: UpstreamSettings) {
    this.#server = server;
    this.#settings = settings;
  }

  get name(): string {
    return this.#settings.name;
  }

  get state(): UpstreamState {
    return this.#state;
  }

  status(): UpstreamStatus {
    return {
      name: this.name,
      state: this.#state,
      required: this.#settings.required,
      tools: this.#state === 'up' ? this.#toolCount() : 0,
      since: this.#since.toISOString(),
      failures: this.#failures,
    };
  }

  /** The capabilities it declared when it was last up; undefined if it never was. */
  get lastCapabilities(): ServerCapabilities | undefined {
    return this.#lastCapabilities;
  }

  /** Whether it offered the 2026-07-28 tasks extension (spoken in that era) when it was last up; undefined if it never was. */
  get lastOffersTaskExtension(): boolean | undefined {
    return this.#lastOffersTaskExtension;
  }

  #lastOffersTaskExtension: boolean | undefined;

  /** Its capabilities while it is up, else undefined. */
  capabilities(): ServerCapabilities | undefined {
    return this.#state === 'up' ? this.#proxy?.upstream?.serverCapabilities : undefined;
  }

  /** Forwards a caller's request to it (through its proxy); -32603 naming it while it is not up. */
  request(method: string, params: JSONObject, ctx: ServerRequestContext): Promise<JSONObject> {
    const proxy = this.#proxy;
    if (this.#state !== 'up' || proxy === undefined)
      return Promise.reject(
        new McpError(
          ErrorCode.InternalError,
          `Upstream "${this.name}" is ${this.#state === 'connecting' ? 'connecting' : 'down'}, so ${method} cannot be served now; the gateway reconnects it, retry shortly.`,
        ),
      );
    return proxy.source(this.#server).request(method, params, ctx);
  }

  /** Starts connecting (in the background; failures are retried with backoff and reported). */
  start(): void {
    void this.#open();
  }

  /**
   * Pings the upstream when it is up (`ping`; `server/discover` in the 2026-07-28 era, which
   * has no ping); one that does not answer within `timeoutMs` (or whose connection fails) is
   * dropped and reconnected. An answer of any kind, an error included, shows it alive.
   * Never rejects.
   */
  async check(timeoutMs: number): Promise<void> {
    const client = this.#proxy?.upstream;
    // one check at a time: a short interval with a long timeout does not pile pings up
    if (this.#state !== 'up' || client === undefined || this.#checking) return;
    this.#checking = true;
    try {
      // the 2026-07-28 era has no ping: its cheapest request is server/discover
      if (client.era === 'stateless') await client.request('server/discover', undefined, { timeoutMs });
      else await client.ping({ timeoutMs });
    } catch (error) {
      if (!isDead(error) || this.#proxy?.upstream !== client) return;
      const reason = new Error(`it did not answer a ping within ${timeoutMs} ms (${(error as Error).message ?? String(error)}); restarting it`);
      await this.#proxy?.restart(reason);
    } finally {
      this.#checking = false;
    }
  }

  /**
   * Sets the upstream's log level (remembered: set again after a reconnection). Resolves
   * without doing anything for an upstream that is down or has no logging; rejects with the
   * upstream's error otherwise.
   */
  async setLogLevel(level: LoggingLevel): Promise<void> {
    this.#logLevel = level;
    const client = this.#proxy?.upstream;
    if (this.#state !== 'up' || client?.serverCapabilities?.logging === undefined) return;
    await client.setLoggingLevel(level);
  }

  async close(): Promise<void> {
    this.#set('closed');
    clearTimeout(this.#timer);
    await this.#unmount();
    await this.#proxy?.close();
  }

  async #open(): Promise<void> {
    if (this.#isClosed()) return;
    let proxy: McpProxy;
    try {
      proxy = await McpProxy.open({
        upstream: this.#settings.transport,
        name: this.name,
        ...(this.#settings.protocolVersions === undefined ? {} : { protocolVersions: this.#settings.protocolVersions }),
        ...(this.#settings.restart === undefined ? {} : { restart: this.#settings.restart }),
        ...(this.#settings.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: this.#settings.requestTimeoutMs }),
        onError: (error) => this.#settings.onError(error),
        onStatus: (status, reason) => void (status === 'up' ? this.#mountNow() : this.#lost(reason)),
        ...(this.#settings.onClient === undefined ? {} : { onClient: this.#settings.onClient }),
      });
    } catch (error) {
      this.#failures++;
      this.#settings.onError(new Error(`upstream "${this.name}": cannot connect (attempt ${this.#failures}): ${(error as Error).message ?? String(error)}`));
      if (this.#isClosed()) return;
      this.#set('down');
      this.#timer = setTimeout(() => void this.#open(), restartDelay(this.#settings.restart, this.#failures - 1));
      return;
    }
    if (this.#isClosed()) {
      await proxy.close();
      return;
    }
    this.#proxy = proxy;
    await this.#mountNow();
  }

  /** Mounts the (re)connected upstream under its name; its catalogue is read first. */
  async #mountNow(): Promise<void> {
    const proxy = this.#proxy;
    if (proxy === undefined || this.#isClosed()) return;
    await this.#unmount();
    const generation = this.#set('connecting');
    let mounted: Mount;
    try {
      mounted = await mount(this.#server, this.#settings.prefix, this.#source(proxy), {
        separator: this.#settings.separator,
        onError: (error) => this.#settings.onError(new Error(`upstream "${this.name}": ${error.message}`)),
      });
    } catch (error) {
      this.#failures++;
      const reason = new Error(`reading its catalogue failed: ${(error as Error).message ?? String(error)}`);
      this.#settings.onError(new Error(`upstream "${this.name}": ${reason.message}; reconnecting`));
      // a new connection gets a new chance (the proxy reconnects with backoff)
      if (generation === this.#generation) await proxy.restart(reason);
      return;
    }
    if (generation !== this.#generation || this.#isClosed()) {
      await mounted.unmount();
      return;
    }
    this.#mount = mounted;
    this.#failures = 0;
    this.#lastCapabilities = proxy.upstream?.serverCapabilities ?? {};
    this.#lastOffersTaskExtension = proxy.upstream?.era === 'stateless' && upstreamOffersTaskExtension(this.#lastCapabilities);
    const client = proxy.upstream;
    if (client !== undefined && client !== this.#statusClient) {
      this.#statusClient = client;
      client.on(TaskNotification.Status, (params) => this.#settings.tasks.status(this.name, params));
    }
    this.#set('up');
    if (this.#logLevel !== undefined)
      this.setLogLevel(this.#logLevel).catch((error: unknown) =>
        this.#settings.onError(new Error(`upstream "${this.name}": setting its log level failed: ${(error as Error).message}`)),
      );
    // mount() itself announces nothing: the callers learn that this upstream's items are (back) in the lists
    const caps = proxy.upstream?.serverCapabilities ?? {};
    for (const kind of ['tools', 'prompts', 'resources'] as const) if (caps[kind] !== undefined) this.#server.announceListChanged(kind);
  }

  /** The client whose task status notifications are followed (once per connection). */
  #statusClient: unknown;

  /**
   * The proxy as the mount's source, with tasks: a task-augmented `tools/call` reaches an
   * upstream that runs tool tasks (else -32601, as a tool that forbids tasks), and its task id
   * comes back as a gateway id (gateway-tasks.ts).
   */
  #source(proxy: McpProxy): MountSource {
    const source = proxy.source(this.#server);
    return {
      ...source,
      request: async (method, params, ctx) => {
        if (method !== 'tools/call' || ctx === undefined) return source.request(method, params, ctx);
        // a call without the 2025 `task` param, or any 2026-07-28 call (a legacy `task` there is no task request: it passes,
        // and the upstream ignores it): sent with the tasks extension when the caller declared it; a task it became gets a gateway id
        if (params?.task === undefined || ctx.era.stateless !== undefined) {
          const result = await source.request(method, params, ctx);
          if (!callerDeclaresTaskExtension(ctx)) return result;
          return this.#settings.tasks.createdFlat(this.name, namespaceName(this.#settings.prefix, String(params?.name), this.#settings.separator), result, ctx);
        }
        const name = String(params.name);
        if (!runsToolTasks(proxy.upstream?.serverCapabilities))
          throw new McpError(
            ErrorCode.MethodNotFound,
            `Tool ${JSON.stringify(namespaceName(this.#settings.prefix, name, this.#settings.separator))} cannot run as a task: upstream "${this.name}" offers no task-augmented tools/call. Call it without "task".`,
          );
        const result = await source.request(method, params, ctx);
        return this.#settings.tasks.created(this.name, namespaceName(this.#settings.prefix, name, this.#settings.separator), result, ctx);
      },
    };
  }

  /** The upstream went down: its tools leave (list_changed); the proxy reconnects by itself. */
  #lost(reason: Error | undefined): void {
    if (this.#isClosed()) return;
    this.#failures++;
    this.#set('down');
    void this.#unmount().catch((error: unknown) => this.#settings.onError(error as Error));
    if (reason !== undefined)
      this.#settings.onError(new Error(`upstream "${this.name}" is down (${reason.message}); its tools are withdrawn until it is back`));
  }

  async #unmount(): Promise<void> {
    const mounted = this.#mount;
    this.#mount = undefined;
    await mounted?.unmount();
  }

  #isClosed(): boolean {
    return this.#state === 'closed';
  }

  #set(state: UpstreamState): number {
    if (this.#state !== state) {
      this.#state = state;
      this.#since = new Date();
      this.#settings.onState(this);
    }
    return ++this.#generation;
  }

  #toolCount(): number {
    return this.#mount?.tools().length ?? 0;
  }
}

/** Whether a failed health request shows the upstream gone or hung (an answer of any kind, an error included, shows it alive). */
function isDead(error: unknown): boolean {
  if (error instanceof McpError) return false;
  if (error instanceof LocalError) return ['timeout', 'connection_closed', 'not_connected', 'session_expired'].includes(error.code);
  return true;
}
