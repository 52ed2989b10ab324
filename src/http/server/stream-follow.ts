/**
 * A `Last-Event-ID` resumption of an SSE stream that another instance of the deployment
 * opened (its event id names that instance's tag): replay from the shared event store, then
 * — while the owner still holds the stream open — the owner's further events, handed over
 * through the session directory ({@link SessionDirectory.follow}).
 *
 * Design notes:
 * - Order of work: ask the owner first, replay second. The owner answers at once with the
 *   last sequence number it assigned (`opened(seq)`); appends of events up to it may still be
 *   on their way to the store, but the owner feeds an event only after it and every earlier
 *   one are stored (`followStream`). So the replay reads what the store has of
 *   `(Last-Event-ID, seq]`, re-reading while it makes progress, and a fed event that arrives
 *   after a gap makes one more read, which finds the rest. No gap, and duplicates (an event
 *   both replayed and fed) are dropped by sequence number — each event is written at most
 *   once, in order.
 * - The stream must belong to the requesting session: its store key is built from the
 *   session the request named (`<session>.<owner tag>/<n>`) and the owner looks it up under
 *   that session, so an id of another session's stream finds nothing and gets 400.
 * - The owner does not hold it open (complete, or the owner stopped: `not-open`, `gone`):
 *   what the store kept after `Last-Event-ID` is replayed and the response ends. When a
 *   follow ends (the owner completed the stream, or stopped mid-follow), one more read of
 *   the store picks up what it stored but did not hand over (an event too long to route,
 *   one it could not publish before it died), then the response ends.
 * - A stream that ended here (its rest, the response if there was one, written to the live
 *   connection) is deleted from the store, as the owner forgets a stream whose last event it
 *   wrote to a live connection: a later `Last-Event-ID` for it gets 400, so a client that
 *   reconnects after every end (the official SDK does, when no response came) stops.
 * - A fed event arriving after a gap (one lost in transit) makes one store read for the
 *   missing ones; what the store no longer has is skipped.
 * Runtime-neutral.
 */
import { encodeSseEvent } from '../../framing/sse.js';
import { toError } from '../../jsonrpc/errors.js';
import { ErrorCode, type RequestId } from '../../jsonrpc/types.js';
import type { EventStore, StoredEvent } from './event-store.js';
import type { FollowEnd, StreamFollower } from './session-directory.js';
import { SseConnection, type SseConnectionOwner } from './sse-connection.js';

/** What a {@link RemoteFollow} needs from the transport that made it. */
export interface FollowHost {
  readonly store: EventStore;
  /** Reports a store failure. Must not throw. */
  reportError(error: Error): void;
  /** The follow ended (response ended, client gone, or closed). Called once. Must not throw. */
  finished(follow: RemoteFollow): void;
  /**
   * The requests of the followed stream that its owner recorded as open and never ended
   * (see `SessionDirectory.openRequests`); rejects when they cannot be read. Optional.
   */
  readonly openRequests?: (() => Promise<RequestId[]>) | undefined;
}

/** The error message of a request whose instance stopped before answering it. */
export const ORPHAN_MESSAGE =
  'The server instance running this request stopped before answering it (killed, or cut off from the shared store); send the request again';

/** Store reads of the initial replay against a store still catching up. */
const MAX_REPLAY_ROUNDS = 16;

interface Fed {
  readonly seq: number;
  readonly text: string;
}

/** One resumption of another instance's stream; see the module note. */
export class RemoteFollow implements StreamFollower, SseConnectionOwner {
  /** The response's SSE connection. */
  readonly conn: SseConnection;
  /** Stops following at the directory; set by the transport right after construction. */
  cancel: () => void = () => {};
  readonly #host: FollowHost;
  readonly #key: string;
  readonly #label: string;
  #last: number;
  /** The owner's last sequence number when it answered `opened`; -1 before (or without) that. */
  #opened = -1;
  #ended: FollowEnd | undefined = undefined;
  #answered: (() => void) | undefined = undefined;
  #fed: Fed[] = [];
  /** The initial replay is done: fed events are written as they come. */
  #live = false;
  /** A store read is in flight. */
  #busy = false;
  /** The position (last written) from which a gap was already looked up in the store. */
  #gapChecked = -1;
  #finalRead = false;
  #done = false;
  /** The owner's requests it never answered (read once the follow ended other than `completed`); undefined before. */
  #orphans: RequestId[] | undefined = undefined;
  /** The orphans were looked up and answered. */
  #orphansAnswered = false;

  /** Follows store stream `key` (event ids `label` + seq) after sequence number `afterSeq`. */
  constructor(host: FollowHost, key: string, label: string, afterSeq: number) {
    this.#host = host;
    this.#key = key;
    this.#label = label;
    this.#last = afterSeq;
    this.conn = new SseConnection(this);
  }

  /** True until the response ended. */
  get active(): boolean {
    return !this.#done;
  }

  opened(seq: number): void {
    if (this.#opened >= 0 || this.#ended !== undefined) return;
    this.#opened = seq;
    this.#answer();
  }

  event(seq: number, text: string): void {
    if (this.#done) return;
    this.#fed.push({ seq, text });
    if (this.#live) this.#drain();
  }

  ended(why: FollowEnd): void {
    if (this.#ended !== undefined) return;
    this.#ended = why;
    this.#answer();
    if (this.#live) this.#drain();
  }

  /**
   * Waits for the owner's answer and replays the store. Resolves `unknown` (nothing written,
   * following stopped) when the stream is unknown: the store has nothing of it from
   * `Last-Event-ID` on and the owner does not hold it open; `unavailable` (the same, but
   * the store could not be read: reported, worth a retry). Else `ok`: the connection then
   * carries the replay, and the fed events follow or the response ends.
   */
  async start(): Promise<'ok' | 'unknown' | 'unavailable'> {
    if (this.#opened < 0 && this.#ended === undefined) await new Promise<void>((resolve) => (this.#answered = resolve));
    this.#answered = undefined;
    if (this.#ended !== undefined) this.#finalRead = true; // this read is the final one
    let found = false;
    let failed = false;
    // from one before Last-Event-ID: that event itself, when kept, proves the stream exists
    let from = this.#last > 0 ? this.#last - 1 : 0;
    for (let round = 0; round < MAX_REPLAY_ROUNDS && !this.#done; round++) {
      const events = await this.#read(from);
      if (events === undefined) {
        failed = true;
        break;
      }
      if (events.length > 0) found = true;
      const before = this.#last;
      this.#write(events);
      if (this.#opened < 0 || this.#last >= this.#opened || this.#last === before) break;
      from = this.#last;
    }
    if (!found && this.#opened < 0 && !failed && this.#ended !== undefined && this.#ended !== 'completed') {
      // nothing stored after Last-Event-ID (perhaps only the priming event was sent) and the owner is not running it
      this.#orphans = await this.#readOrphans();
      if (this.#orphans !== undefined && this.#orphans.length > 0) found = true;
    }
    if (!found && this.#opened < 0) {
      this.#done = true;
      this.cancel();
      return failed ? 'unavailable' : 'unknown';
    }
    this.#live = true;
    this.#drain();
    return 'ok';
  }

  /** The client went away: stop following. */
  connectionLost(): void {
    this.#stop();
  }

  /** Ends the response and stops following (the session closed). Idempotent. */
  close(): void {
    if (this.#done) return;
    this.conn.owner = undefined;
    this.conn.end();
    this.#stop();
  }

  #answer(): void {
    const answered = this.#answered;
    this.#answered = undefined;
    answered?.();
  }

  #stop(): void {
    if (this.#done) return;
    this.#done = true;
    this.#fed = [];
    this.cancel();
    this.#host.finished(this);
  }

  /** Writes the fed events in order; on a gap, one store read first; at the end, ends the response. */
  #drain(): void {
    if (this.#busy || this.#done) return;
    const fed = this.#fed;
    let i = 0;
    for (; i < fed.length; i++) {
      const e = fed[i]!;
      if (e.seq <= this.#last) continue;
      if (e.seq !== this.#last + 1 && this.#gapChecked !== this.#last) break;
      this.conn.write(encodeSseEvent({ id: this.#label + e.seq, data: e.text }));
      this.#last = e.seq;
    }
    fed.splice(0, i);
    if (fed.length > 0) return this.#catchUp();
    if (this.#ended === undefined) return;
    if (!this.#finalRead) {
      this.#finalRead = true;
      return this.#catchUp();
    }
    if (!this.#orphansAnswered && this.#ended !== 'completed' && this.#host.openRequests !== undefined) return this.#answerOrphans();
    this.conn.owner = undefined;
    this.conn.end();
    this.#stop();
    this.#forget();
  }

  /**
   * The owner does not run the stream any more and did not complete it: each request it
   * recorded as open and whose response is not among the stored events gets a JSON-RPC
   * error (-32603), so the client is not left waiting; then the response ends.
   */
  #answerOrphans(): void {
    this.#busy = true;
    void (async () => {
      const orphans = this.#orphans ?? (await this.#readOrphans()) ?? [];
      const answered = orphans.length === 0 ? new Set<RequestId>() : await this.#answeredIds();
      this.#busy = false;
      this.#orphansAnswered = true;
      if (this.#done) return;
      for (const id of orphans) {
        if (answered.has(id)) continue;
        this.conn.write(
          encodeSseEvent({
            id: this.#label + ++this.#last,
            data: JSON.stringify({ jsonrpc: '2.0', id, error: { code: ErrorCode.InternalError, message: ORPHAN_MESSAGE } }),
          }),
        );
      }
      this.#drain();
    })();
  }

  async #readOrphans(): Promise<RequestId[] | undefined> {
    try {
      return (await this.#host.openRequests?.()) ?? [];
    } catch (error) {
      this.#host.reportError(toError(error));
      return undefined;
    }
  }

  /** The ids of the responses among the stream's stored events. */
  async #answeredIds(): Promise<Set<RequestId>> {
    const ids = new Set<RequestId>();
    for (const event of (await this.#read(0)) ?? []) {
      let value: unknown;
      try {
        value = JSON.parse(event.data);
      } catch {
        continue;
      }
      for (const m of Array.isArray(value) ? value : [value]) {
        const { id, method } = (m ?? {}) as { id?: unknown; method?: unknown };
        if (method === undefined && (typeof id === 'string' || typeof id === 'number')) ids.add(id);
      }
    }
    return ids;
  }

  /** Deletes the stream's events: it ended, and its rest was written to a live connection. */
  #forget(): void {
    try {
      const pending = this.#host.store.delete(this.#key);
      if (typeof (pending as Promise<void> | undefined)?.then === 'function')
        (pending as Promise<void>).then(undefined, (error: unknown) => this.#host.reportError(toError(error)));
    } catch (error) {
      this.#host.reportError(toError(error));
    }
  }

  /** Reads the store after the last written event, writes what it has, then drains on. */
  #catchUp(): void {
    this.#busy = true;
    void this.#read(this.#last).then((events) => {
      this.#busy = false;
      if (this.#done) return;
      if (events !== undefined) this.#write(events);
      this.#gapChecked = this.#last;
      this.#drain();
    });
  }

  #write(events: readonly StoredEvent[]): void {
    for (let i = 0; i < events.length; i++) {
      const event = events[i]!;
      if (event.seq <= this.#last) continue;
      this.conn.write(encodeSseEvent({ id: this.#label + event.seq, data: event.data }));
      this.#last = event.seq;
    }
  }

  /** The store's events after `afterSeq`; undefined (reported) when it failed. */
  async #read(afterSeq: number): Promise<readonly StoredEvent[] | undefined> {
    try {
      return await this.#host.store.replay(this.#key, afterSeq);
    } catch (error) {
      this.#host.reportError(toError(error));
      return undefined;
    }
  }
}
