/**
 * One connection to Redis (or Valkey) for the shared stores: a command client and, made on
 * first use, a subscriber client, both through ioredis (an optional peer dependency; only
 * `mcpkit/redis` loads it).
 *
 * Design notes:
 * - No offline queue: while Redis is unreachable every command rejects at once with a
 *   {@link RedisUnavailableError}, and a command in flight when the link drops rejects too
 *   (it is not re-sent, so nothing is applied twice). A queue would hold callers past their
 *   request timeout and grow without bound during an outage; failing fast lets the MCP layer
 *   answer a clear error while the client library reconnects in the background.
 * - Every command has a timeout ({@link RedisConnectionOptions.commandTimeoutMs}), so a
 *   server that accepts the socket but never answers cannot hang a request either.
 * - Both clients always have an 'error' listener (forwarded to `onError`), so a dropped link
 *   never crashes the process with an unhandled 'error' event.
 * - Subscriptions are tracked here, not by ioredis: after every reconnect the subscriber
 *   subscribes to every wanted channel again and only then counts as subscribed
 *   ({@link RedisConnection.whenSubscribed}), so a caller can tell when messages flow again.
 * - Keys are `<prefix><kind>:<id>`; ids that are not plain ASCII words are hashed
 *   ({@link RedisConnection.key}), so nothing a client sends becomes a key part unchecked.
 */
import { createHash } from 'node:crypto';
import { Redis, type RedisOptions } from 'ioredis';
import { positiveInteger as positive } from './options.js';

/** Options of a {@link RedisConnection}. */
export interface RedisConnectionOptions {
  /** `redis://[user:password@]host:port[/db]` or `rediss://…` (TLS). Default `redis://127.0.0.1:6379`. */
  url?: string;
  /**
   * Prepended to every key and channel, so several deployments can share one Redis. 1 to 64
   * characters of `A-Z a-z 0-9 : _ . - { }` (a `{tag}` keeps every key in one cluster slot).
   * Default `mcpkit:`. Anything else makes the constructor throw RangeError.
   */
  prefix?: string;
  /** How long one command may take before it rejects with {@link RedisUnavailableError} (`timeout`), in ms. Default 2000. */
  commandTimeoutMs?: number;
  /** How long opening the socket may take, in ms; {@link RedisConnection.connect} rejects after it. Default 5000. */
  connectTimeoutMs?: number;
  /**
   * Longest pause between reconnect attempts, in ms: the pause doubles from 50 ms up to this
   * cap and stays there; attempts go on until {@link RedisConnection.close}. Default 2000.
   */
  reconnectMaxDelayMs?: number;
  /** Receives connection errors (every failed reconnect attempt, too). Default: ignored. */
  onError?: (error: Error) => void;
  /** Further ioredis options (TLS, username, password, db…). The options above win over these. */
  redisOptions?: RedisOptions;
}

/** Why a command could not reach Redis. */
export type RedisUnavailableReason = 'disconnected' | 'timeout' | 'closed';

/**
 * Redis could not be reached (not connected, the command timed out, or the connection was
 * closed). Nothing of the failed command can be assumed to have happened or not; stored
 * state is unchanged by the failure itself. The message says what to check; it never holds
 * credentials.
 */
export class RedisUnavailableError extends Error {
  readonly reason: RedisUnavailableReason;
  constructor(reason: RedisUnavailableReason, where: string, cause?: unknown) {
    const what = reason === 'timeout' ? 'did not answer in time' : reason === 'closed' ? 'connection is closed' : 'is unreachable';
    super(
      `Redis at ${where} ${what}; check that the server runs and the url option is right (commands fail until it is back)`,
      cause === undefined ? undefined : { cause },
    );
    this.name = 'RedisUnavailableError';
    this.reason = reason;
  }
}

const PREFIX = /^[A-Za-z0-9:_.{}-]{1,64}$/;
/** Ids used verbatim as key parts: short words of URL-safe characters (UUIDs among them). */
const PLAIN_ID = /^[A-Za-z0-9._/-]{1,128}$/;

/** Handles a message of one channel (the channel name without the prefix). */
export type ChannelHandler = (message: string, channel: string) => void;

/** `host:port` of `url` (no credentials), for error messages. */
function where(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || '6379'}`;
  } catch {
    return 'the configured address';
  }
}

/**
 * A connection to Redis shared by the stores and the bus of one process. Make one with
 * {@link RedisConnection.connect}; close it once at shutdown. Safe for concurrent use.
 */
export class RedisConnection {
  /** The key prefix (see {@link RedisConnectionOptions.prefix}). */
  readonly prefix: string;
  readonly #where: string;
  readonly #client: Redis;
  readonly #options: RedisOptions;
  readonly #onError: (error: Error) => void;
  readonly #connectTimeout: number;
  #subscriber: Redis | undefined;
  readonly #handlers = new Map<string, Set<ChannelHandler>>();
  #subscribed = false;
  #subscribedWaiters: Array<{ resolve: () => void; reject: (error: Error) => void }> = [];
  #readyListeners = new Set<() => void>();
  #closed = false;

  /** Opens a connection and waits until Redis answers; rejects with {@link RedisUnavailableError} when it does not within `connectTimeoutMs`. */
  static async connect(options: RedisConnectionOptions = {}): Promise<RedisConnection> {
    const connection = new RedisConnection(options);
    try {
      await connection.#waitReady(connection.#client, connection.#connectTimeout);
    } catch (err) {
      await connection.close();
      throw err;
    }
    return connection;
  }

  /** Starts connecting in the background (see {@link RedisConnection.connect} to wait). Throws RangeError for a bad option. */
  constructor(options: RedisConnectionOptions = {}) {
    const prefix = options.prefix ?? 'mcpkit:';
    if (!PREFIX.test(prefix)) throw new RangeError('prefix must be 1 to 64 characters of A-Z a-z 0-9 : _ . - { }');
    this.prefix = prefix;
    const url = options.url ?? 'redis://127.0.0.1:6379';
    this.#where = where(url);
    const maxDelay = positive('reconnectMaxDelayMs', options.reconnectMaxDelayMs ?? 2000);
    this.#onError = options.onError ?? (() => {});
    this.#options = {
      ...options.redisOptions,
      commandTimeout: positive('commandTimeoutMs', options.commandTimeoutMs ?? 2000),
      connectTimeout: (this.#connectTimeout = positive('connectTimeoutMs', options.connectTimeoutMs ?? 5000)),
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      autoResubscribe: false,
      lazyConnect: false,
      retryStrategy: (attempt: number) => (this.#closed ? null : Math.min(maxDelay, 50 * 2 ** Math.min(attempt, 16))),
    };
    this.#client = this.#make(url);
    this.#client.on('ready', () => {
      for (const listener of this.#readyListeners) listener();
    });
  }

  /** True while the command client is connected and ready. */
  get ready(): boolean {
    return this.#client.status === 'ready';
  }

  /** Resolves when the command client is ready; rejects with {@link RedisUnavailableError} after `timeoutMs`. */
  whenReady(timeoutMs = 10_000): Promise<void> {
    if (this.#closed) return Promise.reject(new RedisUnavailableError('closed', this.#where));
    return this.#waitReady(this.#client, timeoutMs);
  }

  /**
   * `id` as a key part: itself when it is a plain word (`A-Z a-z 0-9 . _ / -`, up to 128
   * characters, UUIDs among them), otherwise `~<sha256 hex>` (`~` never starts a plain word,
   * so the two never collide). Pure.
   */
  id(id: string): string {
    return PLAIN_ID.test(id) ? id : `~${createHash('sha256').update(id).digest('hex')}`;
  }

  /** The key of `id` of `kind`: `<prefix><kind>:<id as a key part>` ({@link id}). Pure. */
  key(kind: string, id: string): string {
    return `${this.prefix}${kind}:${this.id(id)}`;
  }

  /** The ioredis command client. Errors of its commands are raw; wrap them with {@link RedisConnection.run}. */
  get client(): Redis {
    return this.#client;
  }

  /**
   * Runs `command` against the command client, turning connection failures into
   * {@link RedisUnavailableError}; other errors (Redis replies) pass through.
   */
  async run<T>(command: (client: Redis) => Promise<T>): Promise<T> {
    if (this.#closed) throw new RedisUnavailableError('closed', this.#where);
    try {
      return await command(this.#client);
    } catch (err) {
      throw this.#translate(err);
    }
  }

  /** Calls `listener` whenever the command client becomes ready again after a reconnect. Returns the unsubscribe function. */
  onReady(listener: () => void): () => void {
    this.#readyListeners.add(listener);
    return () => this.#readyListeners.delete(listener);
  }

  /**
   * Adds `handler` for messages of `channel` (prefixed on the wire). Resolves once Redis
   * confirmed the subscription, or after `connectTimeoutMs` while Redis is unreachable (the
   * subscription is then made on reconnect). Returns the function that removes the handler.
   */
  async subscribe(channel: string, handler: ChannelHandler): Promise<() => Promise<void>> {
    if (this.#closed) throw new RedisUnavailableError('closed', this.#where);
    let set = this.#handlers.get(channel);
    const fresh = set === undefined;
    if (set === undefined) this.#handlers.set(channel, (set = new Set()));
    set.add(handler);
    const sub = this.#subscriberClient();
    if (fresh && sub.status === 'ready') await sub.subscribe(this.prefix + channel).catch((err) => this.#onError(this.#translate(err)));
    // Still connecting: the subscription is made once the subscriber is ready; wait for that (bounded).
    else if (!this.#subscribed) await this.whenSubscribed(this.#connectTimeout).catch(() => {});
    return async () => {
      const current = this.#handlers.get(channel);
      if (current === undefined || !current.delete(handler) || current.size > 0) return;
      this.#handlers.delete(channel);
      if (sub.status === 'ready') await sub.unsubscribe(this.prefix + channel).catch(() => {});
    };
  }

  /** Publishes `message` on `channel`; resolves with the number of subscribers Redis reached. Rejects with {@link RedisUnavailableError}. */
  async publish(channel: string, message: string): Promise<number> {
    return this.run((c) => c.publish(this.prefix + channel, message));
  }

  /** True while the subscriber is connected and subscribed to every wanted channel. */
  get subscribed(): boolean {
    return this.#subscribed;
  }

  /** Resolves when {@link subscribed} is true; rejects with {@link RedisUnavailableError} (`timeout`) after `timeoutMs`, (`closed`) on close. */
  whenSubscribed(timeoutMs = 10_000): Promise<void> {
    if (this.#closed) return Promise.reject(new RedisUnavailableError('closed', this.#where));
    this.#subscriberClient();
    if (this.#subscribed) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter = {
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
        reject: (error: Error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      const timer = setTimeout(() => {
        this.#subscribedWaiters = this.#subscribedWaiters.filter((w) => w !== waiter);
        reject(new RedisUnavailableError('timeout', this.#where));
      }, timeoutMs);
      this.#subscribedWaiters.push(waiter);
    });
  }

  /** Closes both clients (pending commands reject). Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#handlers.clear();
    this.#readyListeners.clear();
    const waiters = this.#subscribedWaiters;
    this.#subscribedWaiters = [];
    for (const w of waiters) w.reject(new RedisUnavailableError('closed', this.#where));
    for (const c of [this.#client, this.#subscriber]) {
      if (c === undefined) continue;
      await c.quit().catch(() => c.disconnect());
    }
  }

  #make(url: string): Redis {
    const client = new Redis(url, this.#options);
    client.on('error', (err: Error) => this.#onError(this.#translate(err)));
    return client;
  }

  #subscriberClient(): Redis {
    if (this.#subscriber !== undefined) return this.#subscriber;
    const sub = this.#client.duplicate(this.#options);
    sub.on('error', (err: Error) => this.#onError(this.#translate(err)));
    sub.on('message', (wire: string, message: string) => {
      if (!wire.startsWith(this.prefix)) return;
      const channel = wire.slice(this.prefix.length);
      for (const handler of this.#handlers.get(channel) ?? []) {
        try {
          handler(message, channel);
        } catch (err) {
          this.#onError(err instanceof Error ? err : new Error(String(err)));
        }
      }
    });
    sub.on('close', () => (this.#subscribed = false));
    sub.on('ready', () => void this.#resubscribe(sub));
    this.#subscriber = sub;
    return sub;
  }

  async #resubscribe(sub: Redis): Promise<void> {
    const channels = [...this.#handlers.keys()].map((c) => this.prefix + c);
    try {
      if (channels.length > 0) await sub.subscribe(...channels);
    } catch (err) {
      this.#onError(this.#translate(err));
      return;
    }
    if (sub.status !== 'ready') return;
    this.#subscribed = true;
    const waiters = this.#subscribedWaiters;
    this.#subscribedWaiters = [];
    for (const w of waiters) w.resolve();
  }

  #waitReady(client: Redis, timeoutMs: number): Promise<void> {
    if (client.status === 'ready') return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        client.off('ready', ready);
        reject(new RedisUnavailableError('disconnected', this.#where));
      }, timeoutMs);
      const ready = () => {
        clearTimeout(timer);
        resolve();
      };
      client.once('ready', ready);
    });
  }

  /** Connection-level failures become {@link RedisUnavailableError}; replies of Redis (ReplyError) and anything else pass through. */
  #translate(err: unknown): Error {
    if (err instanceof RedisUnavailableError) return err;
    const e = err instanceof Error ? err : new Error(String(err));
    if (e.name === 'ReplyError') return e;
    if (/Command timed out/i.test(e.message)) return new RedisUnavailableError('timeout', this.#where, e);
    if (
      e.name === 'MaxRetriesPerRequestError' ||
      /enableOfflineQueue|Connection is closed|Stream isn't writeable|ECONNREFUSED|ECONNRESET|ECONNABORTED|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|connect ETIMEDOUT/.test(
        e.message,
      )
    ) {
      return new RedisUnavailableError(this.#closed ? 'closed' : 'disconnected', this.#where, e);
    }
    return e;
  }
}
