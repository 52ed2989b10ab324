/**
 * The event store side of a Streamable HTTP session's streams (resumability, 2025-03-26 ›
 * Streamable HTTP › Resumability): appending an event, forgetting a stream's events, and
 * replaying a stream's stored events onto a resuming connection. The transport decides what
 * is stored and when (session-transport.ts); these helpers only talk to the store, and
 * report its failures instead of throwing. Runtime-neutral.
 */
import { encodeSseEvent } from '../../framing/sse.js';
import { toError } from '../../jsonrpc/errors.js';
import { isThenable } from '../../jsonrpc/values.js';
import type { EventStore } from './event-store.js';
import type { SseConnection } from './sse-connection.js';

/** Where store failures go (the transport's host). */
export interface ErrorReporter {
  /** Must not throw. */
  reportError(error: Error): void;
}

/** Replay rounds of a resumption against a store that keeps growing underneath it. */
const MAX_REPLAY_ROUNDS = 16;

/**
 * Appends event `seq` (`text`, one line) of store stream `key`; resolves when a store that
 * answers asynchronously has it (undefined for a synchronous one). Never rejects.
 */
export function appendEvent(store: EventStore, key: string, seq: number, text: string, host: ErrorReporter): Promise<void> | undefined {
  try {
    const pending = store.append(key, seq, text);
    return isThenable(pending) ? pending.then(undefined, (error) => host.reportError(toError(error))) : undefined;
  } catch (error) {
    host.reportError(toError(error));
    return undefined;
  }
}

/** Deletes the stored events of store stream `key`. Never throws. */
export function forgetEvents(store: EventStore, key: string, host: ErrorReporter): void {
  try {
    const pending = store.delete(key);
    if (isThenable(pending)) pending.then(undefined, (error) => host.reportError(toError(error)));
  } catch (error) {
    host.reportError(toError(error));
  }
}

/** A stream as {@link replayEvents} reads it: its store key, last sequence number and last append in flight. */
export interface StoredStream {
  readonly key: string | undefined;
  readonly seq: number;
  readonly lastAppend: Promise<void> | undefined;
}

/**
 * Writes the stored events of `stream` after `afterSeq` to `conn` (event ids `label` + seq),
 * in rounds while the store keeps up with a stream still growing (bounded); resolves with
 * the last sequence number written. Stops at a store failure (reported) or when the store no
 * longer has what is missing. Synchronous stores never reach an await, so nothing can
 * interleave with the replay.
 */
export async function replayEvents(
  store: EventStore,
  stream: StoredStream,
  afterSeq: number,
  conn: SseConnection,
  label: string,
  host: ErrorReporter,
): Promise<number> {
  let last = afterSeq;
  for (let round = 0; round < MAX_REPLAY_ROUNDS && last < stream.seq && stream.key !== undefined; round++) {
    if (stream.lastAppend !== undefined) await stream.lastAppend;
    let events;
    try {
      const replayed = store.replay(stream.key, last);
      events = isThenable(replayed) ? await replayed : replayed;
    } catch (error) {
      host.reportError(toError(error));
      break;
    }
    const before = last;
    for (let i = 0; i < events.length; i++) {
      const event = events[i]!;
      if (event.seq <= last) continue;
      conn.write(encodeSseEvent({ id: label + event.seq, data: event.data }));
      last = event.seq;
    }
    if (last === before) break; // the store no longer has them
  }
  return last;
}
