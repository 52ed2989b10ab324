/**
 * Where a Streamable HTTP server keeps the messages of its SSE streams so a client can
 * resume a broken stream with `Last-Event-ID` (2025-03-26 › Streamable HTTP › Resumability
 * and Redelivery; SEP-1699).
 *
 * Design note: the store is a per-stream append log and nothing more. The transport owns
 * the event ids (`<stream>:<seq>`, sequence numbers counting up from 1 per stream), decides
 * which stream a `Last-Event-ID` names — only streams of the requesting session exist for
 * it — and asks the store for that stream's events only, so a store cannot replay another
 * stream's (or another session's) events by construction. Stream keys are
 * `<session id>/<stream number>`: unique across sessions and unguessable.
 */

/** One stored event. */
export interface StoredEvent {
  /** Sequence number within its stream (1, 2, 3, …). */
  readonly seq: number;
  /** The JSON text of the message (the SSE `data`). */
  readonly data: string;
}

/**
 * A per-stream event log. Implementations may be synchronous or return promises. The
 * transport calls `append` in sequence order per stream and awaits a pending `append` of a
 * stream before calling `replay` on it; an implementation must apply appends of one stream
 * in call order. Errors are reported through the handler's `onError` and otherwise ignored
 * (the live stream is unaffected; only resumption loses events).
 */
export interface EventStore {
  /**
   * True when every instance of a deployment reads the same events (a store in a shared
   * database, such as `RedisEventStore`). Only then does an instance sharing sessions resume
   * a stream another instance opened; otherwise such a `Last-Event-ID` gets 400. Optional
   * (default false).
   */
  readonly shared?: boolean;
  /** Records event `seq` of stream `streamKey`. */
  append(streamKey: string, seq: number, data: string): void | Promise<void>;
  /**
   * The stored events of `streamKey` with a sequence number above `afterSeq`, oldest first
   * (empty for an unknown stream). Events the store dropped under its bounds are missing.
   */
  replay(streamKey: string, afterSeq: number): readonly StoredEvent[] | Promise<readonly StoredEvent[]>;
  /** Forgets stream `streamKey` (delivered, or its session ended). Unknown keys are ignored. */
  delete(streamKey: string): void | Promise<void>;
}

/** Bounds of an {@link InMemoryEventStore}. */
export interface InMemoryEventStoreOptions {
  /** Events kept per stream; older ones are dropped first. Default 1024. */
  maxEventsPerStream?: number;
  /** Total characters of event data kept across all streams; whole oldest streams are evicted beyond it. Default 32 Mi. */
  maxTotalChars?: number;
  /** Streams kept; the oldest are evicted beyond it. Default 100 000. */
  maxStreams?: number;
}

class StreamLog {
  readonly seqs: number[] = [];
  readonly data: string[] = [];
  chars = 0;
}

/**
 * The default {@link EventStore}: bounded, in process memory. Streams are evicted oldest
 * first (by creation) when the character or stream bound is crossed, and each stream keeps
 * at most `maxEventsPerStream` events. Synchronous; not shared between processes.
 * The constructor throws `RangeError` for a bound below 1.
 */
export class InMemoryEventStore implements EventStore {
  readonly #streams = new Map<string, StreamLog>();
  readonly #maxPerStream: number;
  readonly #maxChars: number;
  readonly #maxStreams: number;
  #chars = 0;

  constructor(options: InMemoryEventStoreOptions = {}) {
    this.#maxPerStream = options.maxEventsPerStream ?? 1024;
    this.#maxChars = options.maxTotalChars ?? 32 * 1024 * 1024;
    this.#maxStreams = options.maxStreams ?? 100_000;
    if (!(this.#maxPerStream >= 1) || !(this.#maxChars >= 1) || !(this.#maxStreams >= 1)) throw new RangeError('InMemoryEventStore bounds must be at least 1');
  }

  /** Streams currently held. */
  get streamCount(): number {
    return this.#streams.size;
  }

  /** Characters of event data currently held. */
  get totalChars(): number {
    return this.#chars;
  }

  append(streamKey: string, seq: number, data: string): void {
    let log = this.#streams.get(streamKey);
    if (log === undefined) {
      log = new StreamLog();
      this.#streams.set(streamKey, log);
    }
    log.seqs.push(seq);
    log.data.push(data);
    log.chars += data.length;
    this.#chars += data.length;
    if (log.seqs.length > this.#maxPerStream) {
      log.seqs.shift();
      const dropped = log.data.shift()!;
      log.chars -= dropped.length;
      this.#chars -= dropped.length;
    }
    if (this.#chars > this.#maxChars || this.#streams.size > this.#maxStreams) this.#evict(log);
  }

  replay(streamKey: string, afterSeq: number): StoredEvent[] {
    const log = this.#streams.get(streamKey);
    if (log === undefined) return [];
    const out: StoredEvent[] = [];
    const { seqs, data } = log;
    // sequence numbers are ascending: skip to the first one above afterSeq
    let i = seqs.length;
    while (i > 0 && seqs[i - 1]! > afterSeq) i--;
    for (; i < seqs.length; i++) out.push({ seq: seqs[i]!, data: data[i]! });
    return out;
  }

  delete(streamKey: string): void {
    const log = this.#streams.get(streamKey);
    if (log === undefined) return;
    this.#streams.delete(streamKey);
    this.#chars -= log.chars;
  }

  /** Evicts the oldest streams until within bounds; `keep` (just appended to) goes last. */
  #evict(keep: StreamLog): void {
    for (const [key, log] of this.#streams) {
      if (this.#chars <= this.#maxChars && this.#streams.size <= this.#maxStreams) return;
      if (log === keep) continue;
      this.#streams.delete(key);
      this.#chars -= log.chars;
    }
    // only the newest stream is left and it alone is over the character bound: trim it
    while (this.#chars > this.#maxChars && keep.seqs.length > 1) {
      keep.seqs.shift();
      const dropped = keep.data.shift()!;
      keep.chars -= dropped.length;
      this.#chars -= dropped.length;
    }
  }
}
