/**
 * A shared session's transport resuming the GET stream another instance held
 * (`Last-Event-ID: <tag>.0:<n>`; 2025-03-26 › Streamable HTTP › Resumability and
 * Redelivery): the messages other instances relay for the GET stream while the store is
 * read are held and written after the replay; one the replay wrote (its origin event id on
 * the other instance's stream at or before what was replayed) is dropped, before and after
 * the GET is attached, so the client gets each message once, in order.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { SseParser } from '../../framing/sse.js';
import { type EventStore, InMemoryEventStore, type StoredEvent } from './event-store.js';
import { StreamableSessionTransport } from './session-transport.js';
import type { HttpStreamReply } from './types.js';

/** An in-memory store declared shared whose reads wait until `release` is called. */
class GatedStore implements EventStore {
  readonly shared = true;
  readonly #inner = new InMemoryEventStore();
  #gate: Promise<void> = Promise.resolve();
  release: () => void = () => {};
  append(key: string, seq: number, data: string): void {
    this.#inner.append(key, seq, data);
  }
  async replay(key: string, afterSeq: number): Promise<readonly StoredEvent[]> {
    await this.#gate;
    return this.#inner.replay(key, afterSeq);
  }
  delete(key: string): void {
    this.#inner.delete(key);
  }
  hold(): void {
    this.#gate = new Promise((resolve) => (this.release = resolve));
  }
}

function read(reply: HttpStreamReply): Array<{ id: string; data: string }> {
  const events: Array<{ id: string; data: string }> = [];
  const parser = new SseParser({ event: (e) => void events.push({ id: e.id, data: e.data }) });
  const encoder = new TextEncoder();
  reply.stream.attach({ write: (text) => parser.push(encoder.encode(text)), end: () => {} });
  return events;
}

const note = (n: string) => JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: n } });

it("holds relayed GET-stream messages during the replay of another instance's GET stream, and drops those the replay wrote", async () => {
  const store = new GatedStore();
  // what instance A stored on its GET stream (stream 0) of session s
  for (let seq = 1; seq <= 3; seq++) store.append('s.A/0', seq, note(`a${seq}`));
  const errors: Error[] = [];
  const b = new StreamableSessionTransport({ store, retryMs: 1000, reportError: (e) => void errors.push(e), released: () => {} }, 's', 'B');
  // no GET here yet: stored on B's GET stream for a first GET here (issue 36 item 5), not written
  // again when the client resumes A's stream here (it reached the client through A, or is in A's log)
  assert.equal(b.relayToStandalone(note('early'), 'A.0:3'), true, 'no GET here yet: stored');

  store.hold();
  const pending = b.resume('A.0:1');
  assert.equal(b.relayToStandalone(note('a2'), 'A.0:2'), true, 'the client has it by the time the replay ends: dropped');
  assert.equal(b.relayToStandalone(note('a4'), 'A.0:4'), true, 'produced on A after what the store holds: held');
  assert.equal(b.relayToStandalone(note('c1'), 'C.0:1'), true, "another instance's: held");
  assert.equal(b.relayToStandalone(note('plain'), undefined), true, 'no origin: held');
  store.release();
  const reply = (await pending) as HttpStreamReply;
  assert.equal(reply.status, 200);
  const events = read(reply);
  assert.equal(b.relayToStandalone(note('a3'), 'A.0:3'), true, 'replayed, arriving late: dropped');
  assert.equal(b.relayToStandalone(note('a5'), 'A.0:5'), true, 'attached: written');

  const data = events.map((e) => (e.data === '' ? `priming ${e.id}` : `${JSON.parse(e.data).params.data} ${e.id}`));
  assert.deepEqual(data, ['priming A.0:1', 'a2 A.0:2', 'a3 A.0:3', 'priming B.0:1', 'a4 B.0:2', 'c1 B.0:3', 'plain B.0:4', 'a5 B.0:5']);
  assert.deepEqual(errors, []);
  await b.close();
});
