/**
 * {@link RedisResultCacheStore}: the client result cache's store (SEP-2549, see
 * src/client/cache.ts) on Redis, so every host process using the same Redis and prefix reuses
 * the list and read results another one fetched.
 *
 * Design notes:
 * - One string per entry: key `<prefix>rc:<cache key>`, value the result's JSON, expiry set
 *   with the write (`SET … PX ttl`), so Redis drops stale entries by itself.
 * - `deletePrefix` walks the matching keys with `SCAN … MATCH` (glob characters of the prefix
 *   escaped) and `UNLINK`s them in batches: its cost grows with the keyspace, which is why the
 *   cache only calls it on invalidations, never per request. On Redis Cluster SCAN sees one
 *   node: use a standalone Redis (or Valkey) for the cache.
 * - Keys come from the cache, but the store is public: a key that is not 1 to 512 visible
 *   ASCII characters is refused (RangeError), a value longer than `maxValueChars` is not stored.
 */
import type { ResultCacheStore } from '../client/cache-store.js';
import type { RedisConnection } from './connection.js';
import { positiveInteger } from './options.js';

/** Options of a {@link RedisResultCacheStore}. */
export interface RedisResultCacheStoreOptions {
  /** Longest value stored, in characters; a longer one is skipped (not an error). Default 1,048,576. */
  maxValueChars?: number;
  /** Keys asked per SCAN step of `deletePrefix`. Default 500. */
  scanCount?: number;
}

const KEY = /^[\x21-\x7e]{1,512}$/;
const KIND = 'rc:';

/** `text` as a literal in a Redis glob pattern. */
function globLiteral(text: string): string {
  return text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}

/**
 * A {@link ResultCacheStore} on Redis, shared by every process using the same Redis and
 * prefix. Methods reject with `RedisUnavailableError` while Redis is unreachable (the cache
 * then asks the server). The constructor throws RangeError for a bound that is not a positive
 * integer.
 */
export class RedisResultCacheStore implements ResultCacheStore {
  /** Every process on the same Redis and prefix sees the same entries. */
  readonly shared = true;
  readonly #redis: RedisConnection;
  readonly #maxValueChars: number;
  readonly #scanCount: number;

  constructor(redis: RedisConnection, options: RedisResultCacheStoreOptions = {}) {
    this.#redis = redis;
    this.#maxValueChars = positiveInteger('maxValueChars', options.maxValueChars ?? 1024 * 1024);
    this.#scanCount = positiveInteger('scanCount', options.scanCount ?? 500);
  }

  #key(key: string): string {
    if (!KEY.test(key)) throw new RangeError('A result cache key is 1 to 512 visible ASCII characters');
    return `${this.#redis.prefix}${KIND}${key}`;
  }

  async get(key: string): Promise<string | undefined> {
    const k = this.#key(key);
    const value = await this.#redis.run((c) => c.get(k));
    return value ?? undefined;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    const k = this.#key(key);
    if (!(Number.isSafeInteger(ttlMs) && ttlMs >= 1) || value.length > this.#maxValueChars) return;
    await this.#redis.run((c) => c.set(k, value, 'PX', ttlMs));
  }

  async deletePrefix(prefix: string): Promise<void> {
    if (prefix !== '' && !KEY.test(prefix)) throw new RangeError('A result cache key prefix is up to 512 visible ASCII characters');
    const pattern = `${globLiteral(`${this.#redis.prefix}${KIND}${prefix}`)}*`;
    let cursor = '0';
    do {
      const [next, keys] = await this.#redis.run((c) => c.scan(cursor, 'MATCH', pattern, 'COUNT', this.#scanCount));
      if (keys.length > 0) await this.#redis.run((c) => c.unlink(...keys));
      cursor = next;
    } while (cursor !== '0');
  }
}
