/**
 * Where the client's result cache (cache.ts) keeps its entries: the {@link ResultCacheStore}
 * contract and the bounded in-process {@link MemoryResultCacheStore}. A shared store (Redis:
 * `RedisResultCacheStore` in `mcpkit/redis`) lets several host processes reuse one another's
 * results.
 *
 * Keys are opaque strings built by the cache (`<server>:<scope>:<method>:<params>`, hashed
 * parts); values are the result's JSON text. Stores never interpret either.
 */

/**
 * A store of cached results. Every method returns a promise and never throws synchronously;
 * a store that fails (Redis unreachable) rejects, and the cache then goes to the server as if
 * the entry were absent.
 */
export interface ResultCacheStore {
  /** The value stored under `key`, or undefined when there is none or it expired. */
  get(key: string): Promise<string | undefined>;
  /** Stores `value` under `key` for `ttlMs` milliseconds (an integer ≥ 1), replacing any previous value. */
  set(key: string, value: string, ttlMs: number): Promise<void>;
  /** Deletes every entry whose key starts with `prefix` (`''` deletes everything the store holds for this cache). */
  deletePrefix(prefix: string): Promise<void>;
}

/** Bounds of a {@link MemoryResultCacheStore}. */
export interface MemoryResultCacheStoreOptions {
  /** Most entries kept; the least recently used go first. Default 2,000. */
  maxEntries?: number;
  /** Most characters of values (plus keys) kept in all; the least recently used go first. Default 16,777,216 (about 32 MB of UTF-16). */
  maxChars?: number;
  /** The clock, in ms (tests). Default `Date.now`. */
  now?: () => number;
}

interface Entry {
  readonly value: string;
  readonly expiresAt: number;
  readonly chars: number;
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, not ${String(value)}`);
  return value;
}

/**
 * A bounded in-process store: least recently used entries are evicted first once
 * `maxEntries` or `maxChars` is reached, expired entries are dropped when met. A value larger
 * than `maxChars` on its own is not stored. The constructor throws RangeError for a bound that
 * is not a positive integer.
 */
export class MemoryResultCacheStore implements ResultCacheStore {
  readonly #entries = new Map<string, Entry>();
  readonly #maxEntries: number;
  readonly #maxChars: number;
  readonly #now: () => number;
  #chars = 0;

  constructor(options: MemoryResultCacheStoreOptions = {}) {
    this.#maxEntries = positiveInteger('maxEntries', options.maxEntries ?? 2_000);
    this.#maxChars = positiveInteger('maxChars', options.maxChars ?? 16 * 1024 * 1024);
    this.#now = options.now ?? Date.now;
  }

  /** Entries held now (expired ones not yet met included). */
  get size(): number {
    return this.#entries.size;
  }

  /** Characters held now (keys and values). */
  get chars(): number {
    return this.#chars;
  }

  get(key: string): Promise<string | undefined> {
    const entry = this.#entries.get(key);
    if (entry === undefined) return Promise.resolve(undefined);
    this.#remove(key, entry);
    if (entry.expiresAt <= this.#now()) return Promise.resolve(undefined);
    // most recently used last
    this.#entries.set(key, entry);
    this.#chars += entry.chars;
    return Promise.resolve(entry.value);
  }

  set(key: string, value: string, ttlMs: number): Promise<void> {
    const old = this.#entries.get(key);
    if (old !== undefined) this.#remove(key, old);
    const chars = key.length + value.length;
    if (!(ttlMs >= 1) || chars > this.#maxChars) return Promise.resolve();
    this.#entries.set(key, { value, expiresAt: this.#now() + ttlMs, chars });
    this.#chars += chars;
    this.#evict();
    return Promise.resolve();
  }

  deletePrefix(prefix: string): Promise<void> {
    for (const [key, entry] of this.#entries) if (key.startsWith(prefix)) this.#remove(key, entry);
    return Promise.resolve();
  }

  #remove(key: string, entry: Entry): void {
    this.#entries.delete(key);
    this.#chars -= entry.chars;
  }

  /** Drops expired entries, then the least recently used, until within bounds. */
  #evict(): void {
    if (this.#entries.size <= this.#maxEntries && this.#chars <= this.#maxChars) return;
    const now = this.#now();
    for (const [key, entry] of this.#entries) if (entry.expiresAt <= now) this.#remove(key, entry);
    for (const [key, entry] of this.#entries) {
      if (this.#entries.size <= this.#maxEntries && this.#chars <= this.#maxChars) return;
      this.#remove(key, entry);
    }
  }
}
