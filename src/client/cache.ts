/**
 * The client's result cache (SEP-2549, 2026-07-28 › Server › Utilities › Caching): list and
 * read results are served from a store while the server's `ttlMs` hint says they are fresh.
 *
 * Design notes:
 * - It is an outgoing middleware of the connection, inside the stateless era's (so it sees
 *   each request as it goes on the wire, with the multi round-trip fields, and a cached
 *   `tools/list` still feeds the era's tool metadata) and outside user middleware (which sees
 *   only what really goes to the server). It stays in the chain only where it can act: a
 *   2025-era connection without `legacyTtlMs` has it taken out after the handshake, so its
 *   requests cost nothing here.
 * - Cached: complete results of `tools/list`, `prompts/list`, `resources/list`,
 *   `resources/templates/list` and `resources/read`. Not cached: `server/discover` (it is the
 *   connection's probe), errors, `input_required` results, requests carrying
 *   `inputResponses` or `requestState` (spec: they depend on inputs outside the key), results
 *   whose `ttlMs` is 0, absent or not a positive number.
 * - Hints are untrusted: `ttlMs` is floored and clamped to `maxTtlMs`; a `cacheScope` other
 *   than `"public"` is taken as `"private"`. 2025-era results carry no hints and are cached
 *   only when `legacyTtlMs` is set, as private entries.
 * - Key: `<server>:<scope>:<method>:<params>`. `<server>` hashes `serverId` (or this client's
 *   own random id when none is given) with the server's `serverInfo` name and version;
 *   `<scope>` is `pub`, or `u` + the hash of the principal (or of this client's random id when
 *   no principal is known: such entries are never shared); `<params>` hashes the canonical
 *   JSON of the params without `_meta`.
 * - Invalidation: `notifications/tools/list_changed` drops `tools/list`, prompts likewise;
 *   `notifications/resources/list_changed` drops resource lists, templates and reads;
 *   `notifications/resources/updated` drops the reads of its `uri`. A result received after an
 *   invalidation of its method began is not stored (it may predate the change). A new
 *   principal drops the previous principal's private entries.
 */
import type { JSONObject } from '../jsonrpc/types.js';
import { isObject } from '../jsonrpc/values.js';
import { Method, Notification } from '../protocol/methods.js';
import type { Middleware } from '../protocol/middleware.js';
import type { Implementation } from '../types.js';
import { MemoryResultCacheStore, type ResultCacheStore } from './cache-store.js';

/** `ClientOptions.cache` when an object. */
export interface ClientCacheOptions {
  /**
   * Where entries live. Default: one bounded {@link MemoryResultCacheStore} per process
   * (2,000 entries, 16 Mi characters), in which clients never see each other's entries unless
   * they share a `serverId`. A store passed here is taken as shared (e.g. Redis), so
   * `serverId` is then required.
   */
  store?: ResultCacheStore;
  /**
   * Who the server is, for keys shared between clients and processes: its URL, or its command
   * line. Clients with the same `serverId` (and the same `serverInfo`) share public entries.
   */
  serverId?: string;
  /**
   * The authorization context of this client (a token's subject, a user id; not the token
   * itself — it is hashed, but keep secrets out of keys anyway). Read before each cacheable
   * request; when it changes, the previous principal's private entries are dropped. Without
   * one, private entries belong to this client alone.
   */
  principal?: string | (() => string | undefined);
  /** Longest time an entry is kept, whatever the server says, in ms. Default 3,600,000 (1 h). */
  maxTtlMs?: number;
  /** Largest result stored, in characters of JSON. Default 1,048,576. */
  maxEntryChars?: number;
  /** 2025-era servers send no hints: cache their results this long (private), in ms. Default 0 (not cached). */
  legacyTtlMs?: number;
}

/** The cache of one client: `client.cache`. */
export interface ResultCacheControl {
  /** False when the client was made with `cache: false`. */
  readonly enabled: boolean;
  /** Requests answered from the store, and sent to the server while caching was on. */
  readonly stats: { readonly hits: number; readonly misses: number };
  /**
   * Whether the requests of the current connection pass through the cache: true on a
   * 2026-07-28 connection, and on a 2025 one only with `legacyTtlMs` (its results carry no
   * hints); false without a connection or with `cache: false`. When false, the client's
   * requests go to the server without touching it (no cost per request).
   */
  readonly active: boolean;
  /** Drops every entry of this server this client can reach (public ones, and its principal's). */
  clear(): Promise<void>;
  /** Drops the entries of `method` (for `resources/read`, optionally only those of `uri`). */
  invalidate(method: string, uri?: string): Promise<void>;
}

/** What the cache reads from its client. */
export interface ResultCacheHost {
  /** The connection's era, once known. */
  era(): 'stateless' | 'stateful' | undefined;
  serverInfo(): Implementation | undefined;
  /** Reports a store failure (the request then goes to the server). */
  warn(error: Error): void;
}

/** Methods whose results the cache keeps. */
export const CACHED_METHODS: ReadonlySet<string> = new Set([
  Method.ToolsList,
  Method.PromptsList,
  Method.ResourcesList,
  Method.ResourcesTemplatesList,
  Method.ResourcesRead,
]);

/** What each list-changed notification makes stale. */
const STALE_ON: ReadonlyMap<string, readonly string[]> = new Map([
  [Notification.ToolsListChanged, [Method.ToolsList]],
  [Notification.PromptsListChanged, [Method.PromptsList]],
  [Notification.ResourcesListChanged, [Method.ResourcesList, Method.ResourcesTemplatesList, Method.ResourcesRead]],
]);

const DEFAULT_MAX_TTL_MS = 3_600_000;
const DEFAULT_MAX_ENTRY_CHARS = 1024 * 1024;

let processStore: MemoryResultCacheStore | undefined;

/** How long and for whom a result may be kept. */
export interface CachePolicy {
  ttlMs: number;
  scope: 'public' | 'private';
}

/**
 * The policy for `result` received in `era`, or undefined when it must not be cached. Hostile
 * hints are made safe: `ttlMs` that is not a positive finite number means "not cached", a
 * fractional one is floored, a huge one clamped to `maxTtlMs`; a scope other than `"public"`
 * is `"private"`.
 */
export function cachePolicyOf(
  result: unknown,
  era: 'stateless' | 'stateful' | undefined,
  limits: { maxTtlMs: number; legacyTtlMs: number },
): CachePolicy | undefined {
  if (!isObject(result)) return undefined;
  if (result.resultType !== undefined && result.resultType !== 'complete') return undefined;
  if (era === 'stateful') return limits.legacyTtlMs >= 1 ? { ttlMs: Math.min(Math.floor(limits.legacyTtlMs), limits.maxTtlMs), scope: 'private' } : undefined;
  if (era !== 'stateless') return undefined;
  const ttl = result.ttlMs;
  if (typeof ttl !== 'number' || !Number.isFinite(ttl) || ttl < 1) return undefined;
  return { ttlMs: Math.min(Math.floor(ttl), limits.maxTtlMs), scope: result.cacheScope === 'public' ? 'public' : 'private' };
}

/** JSON with object keys sorted, so equal params give equal keys. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`;
  }
  return value === undefined ? 'null' : JSON.stringify(value);
}

/** SHA-256 of `text`, the first 32 hex digits (Web Crypto: no runtime import). */
async function hash(text: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  let hex = '';
  for (const byte of new Uint8Array(digest).subarray(0, 16)) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

/** The params that make the key: everything but `_meta` and the multi round-trip fields. */
function keyParams(params: JSONObject | undefined): JSONObject {
  if (params === undefined) return {};
  const { _meta: _m, inputResponses: _i, requestState: _s, ...rest } = params;
  return rest;
}

function limit(name: string, value: number | undefined, fallback: number, min: number): number {
  const v = value ?? fallback;
  if (!Number.isSafeInteger(v) || v < min) throw new RangeError(`cache.${name} must be an integer ≥ ${min}, not ${String(value)}`);
  return v;
}

/** The cache of one client; see the module note. The constructor throws RangeError for invalid options. */
export class ResultCache implements ResultCacheControl {
  readonly enabled: boolean;
  readonly stats = { hits: 0, misses: 0 };
  readonly #host: ResultCacheHost;
  readonly #store: ResultCacheStore;
  readonly #serverId: string | undefined;
  readonly #principal: ClientCacheOptions['principal'];
  readonly #maxTtlMs: number;
  readonly #maxEntryChars: number;
  readonly #legacyTtlMs: number;
  /** This client's own id: stands in for `serverId` and the principal when they are not given. */
  readonly #self = globalThis.crypto.randomUUID();
  /** Bumped by each invalidation of a method: a result whose request began before is not stored. */
  readonly #generations = new Map<string, number>();
  /** The principal part of the last key made (to notice a change). */
  #lastPrincipal: string | undefined;
  /** Invalidations under way: reads wait for them, so a notified change is never answered from the store. */
  readonly #pending = new Set<Promise<void>>();

  constructor(host: ResultCacheHost, options: boolean | ClientCacheOptions | undefined) {
    this.#host = host;
    this.enabled = options !== false;
    const o = typeof options === 'object' ? options : {};
    if (o.store !== undefined && (typeof o.serverId !== 'string' || o.serverId === '')) {
      throw new RangeError('cache.store is shared between clients, so cache.serverId is required: pass the server URL or command line that names this server');
    }
    this.#store = o.store ?? (processStore ??= new MemoryResultCacheStore());
    this.#serverId = o.serverId;
    this.#principal = o.principal;
    this.#maxTtlMs = limit('maxTtlMs', o.maxTtlMs, DEFAULT_MAX_TTL_MS, 1);
    this.#maxEntryChars = limit('maxEntryChars', o.maxEntryChars, DEFAULT_MAX_ENTRY_CHARS, 1);
    this.#legacyTtlMs = limit('legacyTtlMs', o.legacyTtlMs, 0, 0);
  }

  get active(): boolean {
    const era = this.#host.era();
    return era !== undefined && this.actsOn(era);
  }

  /** Whether requests of a connection of `era` can be served from or stored in the cache. */
  actsOn(era: 'stateless' | 'stateful'): boolean {
    return this.enabled && (era === 'stateless' || this.#legacyTtlMs > 0);
  }

  /**
   * Outgoing middleware of the connection; see the module note. The client installs it
   * before the handshake (where it belongs in the chain) and takes it out after the handshake
   * when the connection's era gives it nothing to do ({@link actsOn}).
   */
  readonly middleware: Middleware = (next) => (method, params, ctx) => {
    if (!this.enabled || ctx.kind !== 'request' || !CACHED_METHODS.has(method)) return next(method, params, ctx);
    if (params !== undefined && (params.inputResponses !== undefined || params.requestState !== undefined)) return next(method, params, ctx);
    if (this.#host.era() === 'stateful' && this.#legacyTtlMs === 0) return next(method, params, ctx);
    return this.#through(method, params, () => next(method, params, ctx));
  };

  async #through(method: string, params: JSONObject | undefined, send: () => Promise<unknown>): Promise<unknown> {
    const generation = this.#generations.get(method) ?? 0;
    if (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
    const base = await this.#base();
    const paramsPart = await hash(canonical(keyParams(params)));
    const mine = await this.#scopePart();
    for (const scope of ['pub', mine]) {
      const cached = await this.#store.get(`${base}:${scope}:${method}:${paramsPart}`).catch((error: unknown) => this.#warn(error));
      if (cached === undefined) continue;
      try {
        const value: unknown = JSON.parse(cached);
        this.stats.hits++;
        return value;
      } catch {
        // a store holding something else than what was put: ignore it
      }
    }
    this.stats.misses++;
    const result = await send();
    const policy = cachePolicyOf(result, this.#host.era(), { maxTtlMs: this.#maxTtlMs, legacyTtlMs: this.#legacyTtlMs });
    if (policy === undefined || (this.#generations.get(method) ?? 0) !== generation) return result;
    const text = JSON.stringify(result);
    if (text.length > this.#maxEntryChars) return result;
    const key = `${base}:${policy.scope === 'public' ? 'pub' : mine}:${method}:${paramsPart}`;
    await this.#store.set(key, text, policy.ttlMs).catch((error: unknown) => this.#warn(error));
    return result;
  }

  #warn(error: unknown): undefined {
    this.#host.warn(
      new Error(`The result cache's store failed (the request went to the server): ${error instanceof Error ? error.message : String(error)}`, {
        cause: error,
      }),
    );
    return undefined;
  }

  /** `<server>` of the keys. */
  #base(): Promise<string> {
    const info = this.#host.serverInfo();
    return hash(`${this.#serverId ?? `client:${this.#self}`}\n${String(info?.name)}\n${String(info?.version)}`);
  }

  /** The private scope part of the keys; drops the previous principal's entries when it changed. */
  async #scopePart(): Promise<string> {
    let principal: string | undefined;
    try {
      principal = typeof this.#principal === 'function' ? this.#principal() : this.#principal;
    } catch (error) {
      this.#host.warn(new Error(`cache.principal threw; private entries of this request stay with this client alone: ${String(error)}`, { cause: error }));
    }
    const part = `u${await hash(typeof principal === 'string' && principal !== '' ? `principal:${principal}` : `client:${this.#self}`)}`;
    const previous = this.#lastPrincipal;
    this.#lastPrincipal = part;
    if (previous !== undefined && previous !== part) {
      await this.#store.deletePrefix(`${await this.#base()}:${previous}:`).catch((error: unknown) => this.#warn(error));
    }
    return part;
  }

  #bump(method: string): void {
    this.#generations.set(method, (this.#generations.get(method) ?? 0) + 1);
  }

  /** Reacts to a server notification (see the module note); resolves once the entries are gone. */
  async notified(method: string, params: JSONObject | undefined): Promise<void> {
    if (!this.enabled) return;
    const stale = STALE_ON.get(method);
    if (stale !== undefined) {
      await Promise.all(stale.map((m) => this.invalidate(m)));
    } else if (method === Notification.ResourcesUpdated && typeof params?.uri === 'string') {
      await this.invalidate(Method.ResourcesRead, params.uri);
    }
  }

  invalidate(method: string, uri?: string): Promise<void> {
    this.#bump(method);
    return this.#track(this.#drop(method, uri));
  }

  /** Keeps `work` in {@link #pending} until it settles. */
  #track(work: Promise<void>): Promise<void> {
    this.#pending.add(work);
    const done = () => void this.#pending.delete(work);
    work.then(done, done);
    return work;
  }

  async #drop(method: string, uri: string | undefined): Promise<void> {
    const base = await this.#base();
    const tail = uri === undefined ? '' : await hash(canonical({ uri }));
    const scopes = ['pub', await this.#scopePart()];
    for (const scope of scopes) await this.#store.deletePrefix(`${base}:${scope}:${method}:${tail}`);
  }

  /**
   * The client closed: drops the entries no other client can reach (all of them without a
   * `serverId`, else the private ones made while no principal was known).
   */
  async forget(): Promise<void> {
    if (!this.enabled) return;
    const base = await this.#base();
    if (this.#serverId === undefined) return this.#track(this.#store.deletePrefix(`${base}:`));
    // entries under a principal are shared with the principal's other clients; those under this client's own id are not
    return this.#track(this.#store.deletePrefix(`${base}:u${await hash(`client:${this.#self}`)}:`));
  }

  clear(): Promise<void> {
    for (const method of CACHED_METHODS) this.#bump(method);
    return this.#track(this.#dropAll());
  }

  async #dropAll(): Promise<void> {
    const base = await this.#base();
    for (const scope of ['pub', await this.#scopePart()]) await this.#store.deletePrefix(`${base}:${scope}:`);
  }
}
