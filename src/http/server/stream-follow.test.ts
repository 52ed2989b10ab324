/**
 * RemoteFollow (stream-follow.ts) on a real InMemoryEventStore, driven the way a session
 * directory drives it: the owner's answer, fed events (duplicates of replayed ones, a gap,
 * an event before the answer's number arriving late), the end. What reaches the client is
 * parsed back with the package's own SSE parser: every event once, in order, ids unchanged;
 * an unknown stream resolves `unknown` and writes nothing.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SseParser } from '../../framing/sse.js';
import { InMemoryEventStore } from './event-store.js';
import { RemoteFollow } from './stream-follow.js';

/** The client end of a follow: the parsed events and whether the response ended. */
function client(follow: RemoteFollow): { events: Array<{ id: string; data: string }>; ended: () => boolean } {
  const events: Array<{ id: string; data: string }> = [];
  let ended = false;
  const parser = new SseParser({ event: (e) => void events.push({ id: e.id, data: e.data }) });
  const encoder = new TextEncoder();
  follow.conn.attach({ write: (text) => parser.push(encoder.encode(text)), end: () => void (ended = true) });
  return { events, ended: () => ended };
}

function host(store: InMemoryEventStore, finished: RemoteFollow[] = [], errors: Error[] = []) {
  return { store, reportError: (e: Error) => void errors.push(e), finished: (f: RemoteFollow) => void finished.push(f) };
}

const tick = () => new Promise<void>((r) => setImmediate(r));

describe('RemoteFollow', () => {
  it("replays up to the owner's number, then writes fed events once each, fills a gap from the store, and ends after a final read", async () => {
    const store = new InMemoryEventStore();
    for (let seq = 1; seq <= 3; seq++) store.append('s.T/4', seq, `m${seq}`);
    const finished: RemoteFollow[] = [];
    const follow = new RemoteFollow(host(store, finished), 's.T/4', 'T.4:', 1);
    const seen = client(follow);
    const started = follow.start();
    follow.opened(3);
    assert.equal(await started, 'ok');
    assert.deepEqual(
      seen.events.map((e) => e.id),
      ['T.4:2', 'T.4:3'],
      'the replay: after Last-Event-ID up to the answer',
    );

    follow.event(3, 'm3'); // already replayed: dropped
    store.append('s.T/4', 4, 'm4');
    follow.event(4, 'm4');
    store.append('s.T/4', 5, 'm5'); // stored, but lost on its way
    store.append('s.T/4', 6, 'm6');
    follow.event(6, 'm6'); // after a gap: 5 is read from the store
    await tick();
    store.append('s.T/4', 7, 'm7'); // stored but never handed over (too long to route, say)
    follow.ended('completed');
    await tick();
    assert.deepEqual(
      seen.events.map((e) => `${e.id}=${e.data}`),
      ['T.4:2=m2', 'T.4:3=m3', 'T.4:4=m4', 'T.4:5=m5', 'T.4:6=m6', 'T.4:7=m7'],
    );
    assert.equal(seen.ended(), true);
    assert.deepEqual(finished, [follow]);
    assert.equal(follow.active, false);
  });

  it('skips what the store no longer has after one look', async () => {
    const store = new InMemoryEventStore();
    store.append('s.T/1', 1, 'm1');
    const follow = new RemoteFollow(host(store), 's.T/1', 'T.1:', 1);
    const seen = client(follow);
    const started = follow.start();
    follow.opened(1);
    assert.equal(await started, 'ok');
    follow.event(3, 'm3'); // 2 is in neither place
    await tick();
    assert.deepEqual(
      seen.events.map((e) => e.id),
      ['T.1:3'],
    );
    follow.ended('gone');
    await tick();
    assert.equal(seen.ended(), true);
  });

  it('replays and ends a stream the owner does not hold open', async () => {
    const store = new InMemoryEventStore();
    for (let seq = 1; seq <= 3; seq++) store.append('s.T/2', seq, `m${seq}`);
    const follow = new RemoteFollow(host(store), 's.T/2', 'T.2:', 2);
    const seen = client(follow);
    follow.ended('not-open');
    assert.equal(await follow.start(), 'ok');
    await tick();
    assert.deepEqual(
      seen.events.map((e) => e.id),
      ['T.2:3'],
    );
    assert.equal(seen.ended(), true);
  });

  it('resolves unknown, writing nothing, for a stream neither the store nor the owner has', async () => {
    const store = new InMemoryEventStore();
    store.append('other.T/2', 1, 'not yours');
    let cancelled = 0;
    const follow = new RemoteFollow(host(store), 's.T/2', 'T.2:', 1);
    follow.cancel = () => void cancelled++;
    const seen = client(follow);
    follow.ended('gone');
    assert.equal(await follow.start(), 'unknown');
    assert.deepEqual(seen.events, []);
    assert.equal(cancelled, 1);
  });

  it('stops following when the client goes away, and ignores later events', async () => {
    const store = new InMemoryEventStore();
    store.append('s.T/3', 1, 'm1');
    let cancelled = 0;
    const finished: RemoteFollow[] = [];
    const follow = new RemoteFollow(host(store, finished), 's.T/3', 'T.3:', 0);
    follow.cancel = () => void cancelled++;
    const seen = client(follow);
    const started = follow.start();
    follow.opened(1);
    assert.equal(await started, 'ok');
    follow.conn.disconnected();
    follow.event(2, 'm2');
    await tick();
    assert.deepEqual(
      seen.events.map((e) => e.id),
      ['T.3:1'],
    );
    assert.equal(cancelled, 1);
    assert.deepEqual(finished, [follow]);
  });
});
