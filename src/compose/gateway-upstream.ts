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
import type { McpServer } from '../server/index.js';
import type { Transport } from '../transport/types.js';
import { type Mount, mount } from './mount.js';
import { McpProxy, type ProxyRestartOptions, restartDelay } from './proxy.js';

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
  readonly transport: () => Transport | Promise<Transport>;
  readonly required: boolean;
  readonly separator: string;
  readonly restart: ProxyRestartOptions | undefined;
  readonly requestTimeoutMs: number | undefined;
  readonly onError: (error: Error) => void;
  readonly onState: (upstream: Upstream) => void;
  /** Each upstream client before it connects (see `ProxyOptions.onClient`). */
  readonly onClient?: ((client: Client) => void) | undefined;
}

/** One upstream (see the module note). */
export class Upstream {
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
    if (this.#state !== 'up' || client === undefined) return;
    try {
      // the 2026-07-28 era has no ping: its cheapest request is server/discover
      if (client.era === 'stateless') await client.request('server/discover', undefined, { timeoutMs });
      else await client.ping({ timeoutMs });
    } catch (error) {
      if (!isDead(error) || this.#proxy?.upstream !== client) return;
      const reason = new Error(`it did not answer a ping within ${timeoutMs} ms (${(error as Error).message ?? String(error)}); restarting it`);
      await this.#proxy?.restart(reason);
    }
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
      mounted = await mount(this.#server, this.name, proxy.source(this.#server), {
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
    this.#set('up');
    // mount() itself announces nothing: the callers learn that this upstream's items are (back) in the lists
    const caps = proxy.upstream?.serverCapabilities ?? {};
    for (const kind of ['tools', 'prompts', 'resources'] as const) if (caps[kind] !== undefined) this.#server.announceListChanged(kind);
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
