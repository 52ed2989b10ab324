/**
 * {@link RedisEventStore}: the SSE event log of the Streamable HTTP transport on Redis
 * Streams, so a broken stream resumes with `Last-Event-ID` on any instance — also after the
 * instance that opened it died (2025-03-26 › Streamable HTTP › Resumability and Redelivery).
 *
 * Design notes:
 * - One Redis Stream per SSE stream: key `<prefix>events:<session id>/<stream number>`.
 *   The entry id is `<seq>-0`, so replay is one XREVRANGE from the newest entry down to just
 *   above `Last-Event-ID`'s sequence number, and Redis itself refuses an out-of-order append.
 * - Bounded: `XADD … MAXLEN ~ maxEventsPerStream` trims old entries (approximately, in whole
 *   internal nodes, which is cheap); replay never returns more than `maxEventsPerStream`.
 *   Every append renews the stream's expiry (PEXPIRE `streamTtlMs`), so an abandoned stream
 *   disappears by itself. Append and expiry go in one MULTI.
 * - One transaction per turn: the appends made in one turn of the event loop (a tool's
 *   progress, log messages and server requests between two awaits of real I/O) are sent at
 *   its end (`setImmediate`) as one MULTI — an XADD each, one PEXPIRE per stream — in call
 *   order; each append's promise settles with its own command's reply.
 * - The stream key comes from the transport (`<session id>/<n>`); it is checked before it
 *   becomes a key part: a session id of visible ASCII without `/` (the spec's character range
 *   for session ids), a decimal stream number.
 */
import type { EventStore, StoredEvent } from '../http/server/event-store.js';
import type { RedisConnection } from './connection.js';
import { positiveInteger as positive } from './options.js';

/** Options of a {@link RedisEventStore}. */
export interface RedisEventStoreOptions {
  /** Events kept per stream; older ones are trimmed (approximately: a few more may stay, replay returns at most this many). Default 1024. */
  maxEventsPerStream?: number;
  /** How long a stream lives after its last append, in ms; then Redis deletes it and it cannot be resumed. Default 3 600 000 (1 h). */
  streamTtlMs?: number;
  /** Longest event data, in characters; a longer event is not stored (append rejects with RangeError, the live stream is unaffected). Default 4 194 304 (4 Mi). */
  maxEventChars?: number;
}

/** An append waiting for the end of its turn. */
interface PendingAppend {
  readonly key: string;
  readonly seq: number;
  readonly data: string;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

const STREAM_KEY = /^[\x21-\x2e\x30-\x7e]{1,256}\/[0-9]{1,15}$/;
const KIND = 'events';

/**
 * An {@link EventStore} on Redis Streams, shared by every instance using the same Redis and
 * prefix. Methods reject with `RedisUnavailableError` while Redis is unreachable (the
 * transport reports it through `onError`; only resumption is affected). The constructor
 * throws RangeError for a bound that is not a positive integer.
 */
export class RedisEventStore implements EventStore {
  /** Every instance on the same Redis and prefix reads the same events. */
  readonly shared = true;
  readonly #redis: RedisConnection;
  readonly #max: number;
  readonly #ttl: number;
  readonly #maxChars: number;
  /** The appends of this turn, not sent yet. */
  #batch: PendingAppend[] = [];

  constructor(redis: RedisConnection, options: RedisEventStoreOptions = {}) {
    this.#redis = redis;
    this.#max = positive('maxEventsPerStream', options.maxEventsPerStream ?? 1024);
    this.#ttl = positive('streamTtlMs', options.streamTtlMs ?? 3_600_000);
    this.#maxChars = positive('maxEventChars', options.maxEventChars ?? 4 * 1024 * 1024);
  }

  /**
   * Appends event `seq` (sent with the other appends of this turn, see the module note).
   * Rejects with RangeError for a malformed stream key, a sequence number below 1 or an
   * oversized event, with `RedisUnavailableError` when Redis cannot be reached.
   */
  append(streamKey: string, seq: number, data: string): Promise<void> {
    if (!STREAM_KEY.test(streamKey)) return Promise.reject(new RangeError('Invalid SSE stream key'));
    if (!(Number.isSafeInteger(seq) && seq >= 1)) return Promise.reject(new RangeError('An event sequence number is a positive integer'));
    if (data.length > this.#maxChars)
      return Promise.reject(new RangeError(`Event of ${data.length} characters exceeds maxEventChars (${this.#maxChars}); it is not stored`));
    return new Promise((resolve, reject) => {
      if (this.#batch.length === 0) setImmediate(this.#flush);
      this.#batch.push({ key: this.#redis.key(KIND, streamKey), seq, data, resolve, reject });
    });
  }

  /** Sends the appends of the turn as one MULTI. */
  readonly #flush = (): void => {
    const batch = this.#batch;
    this.#batch = [];
    const keys = new Set<string>();
    this.#redis
      .run(async (c) => {
        const multi = c.multi();
        for (const a of batch) {
          multi.xadd(a.key, 'MAXLEN', '~', this.#max, `${a.seq}-0`, 'd', a.data);
          keys.add(a.key);
        }
        for (const key of keys) multi.pexpire(key, this.#ttl);
        return (await multi.exec()) ?? [];
      })
      .then(
        (replies) => {
          for (let i = 0; i < batch.length; i++) {
            const error = replies[i]?.[0];
            if (error) batch[i]!.reject(error);
            else batch[i]!.resolve();
          }
        },
        (error: unknown) => {
          for (const a of batch) a.reject(error);
        },
      );
  };

  /** The stored events above `afterSeq`, oldest first, at most `maxEventsPerStream` (the newest); [] for an unknown or malformed key. */
  async replay(streamKey: string, afterSeq: number): Promise<StoredEvent[]> {
    if (!STREAM_KEY.test(streamKey)) return [];
    const after = Number.isSafeInteger(afterSeq) && afterSeq >= 0 ? afterSeq : 0;
    const key = this.#redis.key(KIND, streamKey);
    const entries = await this.#redis.run((c) => c.xrevrange(key, '+', `${after + 1}-0`, 'COUNT', this.#max));
    const out: StoredEvent[] = [];
    for (let i = entries.length - 1; i >= 0; i--) {
      const [id, fields] = entries[i]!;
      const at = fields.indexOf('d');
      if (at < 0 || at + 1 >= fields.length) continue;
      out.push({ seq: Number(id.slice(0, id.indexOf('-'))), data: fields[at + 1]! });
    }
    return out;
  }

  /** Deletes the stream. Unknown or malformed keys are ignored. */
  async delete(streamKey: string): Promise<void> {
    if (!STREAM_KEY.test(streamKey)) return;
    const key = this.#redis.key(KIND, streamKey);
    await this.#redis.run((c) => c.del(key));
  }
}
