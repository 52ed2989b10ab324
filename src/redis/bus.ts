/**
 * {@link RedisBus}: messages between the instances of one deployment over Redis pub/sub,
 * with handlers per channel. The piece later phases build on (subscription fan-out now;
 * routing between instances later).
 *
 * Design notes:
 * - Delivery is Redis pub/sub: at most once, to the instances subscribed at that moment. A
 *   message published while an instance is disconnected is not delivered to it; after a
 *   reconnect the bus subscribes again and {@link RedisBus.whenReady} says when messages
 *   flow again. Whoever needs more than that keeps state in a store and uses the bus only
 *   as a wake-up (the task store does exactly this).
 * - Messages are JSON `{o: origin instance id, d: data}`; channel names are checked before
 *   they become Redis channel names, and oversized or malformed messages are dropped (and
 *   reported), never handed to a handler.
 */
import { randomUUID } from 'node:crypto';
import type { RedisConnection } from './connection.js';
import { positiveInteger } from './options.js';

/** What a bus message carries: any JSON value. */
export type BusData = null | boolean | number | string | BusData[] | { [key: string]: BusData };

/** Options of a {@link RedisBus}. */
export interface RedisBusOptions {
  /** This instance's id, sent with every message (`A-Z a-z 0-9 . _ -`, up to 64). Default a random UUID. */
  instanceId?: string;
  /** Longest message on the wire, in characters; larger ones are refused on publish (RangeError) and dropped on receipt. Default 1 048 576 (1 Mi). */
  maxMessageChars?: number;
  /** Receives dropped messages and handler failures. Default: ignored. */
  onError?: (error: Error) => void;
}

/** Where a message came from. */
export interface BusMessageInfo {
  /** The channel (as given to {@link RedisBus.subscribe}). */
  readonly channel: string;
  /** The instance id of the publisher. */
  readonly origin: string;
}

/** Handles the data of one message. Exceptions are reported to `onError` and go no further. */
export type BusHandler = (data: BusData, info: BusMessageInfo) => void;

const CHANNEL = /^[A-Za-z0-9._:/-]{1,128}$/;
const INSTANCE_ID = /^[A-Za-z0-9._-]{1,64}$/;

function checkChannel(channel: string): string {
  if (typeof channel !== 'string' || !CHANNEL.test(channel)) throw new RangeError('A bus channel is 1 to 128 characters of A-Z a-z 0-9 . _ : / -');
  return `bus:${channel}`;
}

/**
 * A message bus between instances on one Redis and prefix. Any number of buses may share a
 * {@link RedisConnection}; {@link RedisBus.close} removes this bus's handlers (the connection
 * stays open: its owner closes it).
 */
export class RedisBus {
  /** This instance's id. */
  readonly instanceId: string;
  readonly #redis: RedisConnection;
  readonly #maxChars: number;
  readonly #onError: (error: Error) => void;
  readonly #unsubscribes = new Set<() => Promise<void>>();
  #closed = false;

  /** Throws RangeError for a bad option. */
  constructor(redis: RedisConnection, options: RedisBusOptions = {}) {
    this.#redis = redis;
    this.instanceId = options.instanceId ?? randomUUID();
    if (!INSTANCE_ID.test(this.instanceId)) throw new RangeError('instanceId must be 1 to 64 characters of A-Z a-z 0-9 . _ -');
    this.#maxChars = positiveInteger('maxMessageChars', options.maxMessageChars ?? 1024 * 1024);
    this.#onError = options.onError ?? (() => {});
  }

  /**
   * Calls `handler` for every message of `channel` from any instance (this one included;
   * compare `info.origin` with {@link instanceId} to skip your own). Resolves once Redis
   * confirmed the subscription (or after `connectTimeoutMs` while Redis is unreachable: it
   * is made on reconnect).
   * Returns the function that removes the handler. Throws RangeError for a bad channel name.
   */
  async subscribe(channel: string, handler: BusHandler): Promise<() => Promise<void>> {
    if (this.#closed) throw new Error('The bus is closed');
    const wire = checkChannel(channel);
    const off = await this.#redis.subscribe(wire, (message) => this.#deliver(channel, message, handler));
    const remove = async () => {
      this.#unsubscribes.delete(remove);
      await off();
    };
    this.#unsubscribes.add(remove);
    return remove;
  }

  /**
   * Publishes `data` on `channel`; resolves with the number of instances Redis handed it to.
   * Rejects with RangeError (bad channel, oversized message) or `RedisUnavailableError`.
   */
  async publish(channel: string, data: BusData): Promise<number> {
    if (this.#closed) throw new Error('The bus is closed');
    const wire = checkChannel(channel);
    const message = JSON.stringify({ o: this.instanceId, d: data });
    if (message.length > this.#maxChars) throw new RangeError(`A bus message of ${message.length} characters exceeds maxMessageChars (${this.#maxChars})`);
    return this.#redis.publish(wire, message);
  }

  /** Resolves when the connection is up and every channel is subscribed again (after a reconnect too); rejects with `RedisUnavailableError` after `timeoutMs`. */
  async whenReady(timeoutMs = 10_000): Promise<void> {
    await this.#redis.whenReady(timeoutMs);
    await this.#redis.whenSubscribed(timeoutMs);
  }

  /** Removes every handler of this bus. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const off of [...this.#unsubscribes]) await off().catch(() => {});
  }

  #deliver(channel: string, message: string, handler: BusHandler): void {
    if (message.length > this.#maxChars)
      return this.#onError(new Error(`Dropped a bus message of ${message.length} characters on ${channel} (maxMessageChars ${this.#maxChars})`));
    let parsed: { o?: unknown; d?: unknown };
    try {
      parsed = JSON.parse(message) as { o?: unknown; d?: unknown };
    } catch {
      return this.#onError(new Error(`Dropped a malformed bus message on ${channel}`));
    }
    if (typeof parsed !== 'object' || parsed === null || typeof parsed.o !== 'string' || !('d' in parsed))
      return this.#onError(new Error(`Dropped a malformed bus message on ${channel}`));
    try {
      handler(parsed.d as BusData, { channel, origin: parsed.o });
    } catch (err) {
      this.#onError(err instanceof Error ? err : new Error(String(err)));
    }
  }
}
