/**
 * The owner side of a cross-instance follow (session-transport.ts `followStream`): an event
 * goes to the feed only once its append to the event store settled, in order, and the
 * feed's end only after its last event. A follower reads the store at the end of a follow
 * (stream-follow.ts) and on a gap, so an event or end that overtook an append would lose
 * that event there; and an owner killed between feeding and storing would have delivered
 * an event no later resumption can replay.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EventStore } from './event-store.js';
import { StreamableSessionTransport } from './session-transport.js';

/** An event store whose appends settle only when the test says so. */
function heldStore(): { store: EventStore; appended: number[]; settleOne(): void } {
  const held: Array<{ seq: number; resolve: () => void }> = [];
  const appended: number[] = [];
  const store: EventStore = {
    shared: true,
    append: (_key, seq) => new Promise<void>((resolve) => held.push({ seq, resolve })),
    replay: () => [],
    delete: () => {},
  };
  const settleOne = () => {
    const next = held.shift()!;
    appended.push(next.seq);
    next.resolve();
  };
  return { store, appended, settleOne };
}

const receiver = { message: () => {}, error: () => {}, closed: () => {} };
const tick = () => new Promise((resolve) => setImmediate(resolve));

test('the owner feeds an event, and ends the feed, only after the store has it and every earlier one', async () => {
  const { store, appended, settleOne } = heldStore();
  const transport = new StreamableSessionTransport(
    { store, retryMs: 1000, reportError: (e: Error) => assert.fail(e), released: () => {} },
    'session-1',
    'tagA',
  );
  transport.start(receiver);
  const stream = transport.openPost([1], false, false, 'sse');
  const progress = (n: number) =>
    transport.send(
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 't', progress: n } },
      { kind: 'notification', relatedRequestId: 1, method: 'notifications/progress' },
    );
  await progress(1); // stored before the follow: the follower replays it
  const seen: Array<number | 'end'> = [];
  // seen when fed: what the store had then
  const storedWhenFed: number[][] = [];
  const followed = transport.followStream(stream.id, {
    event: (seq) => {
      seen.push(seq);
      storedWhenFed.push([...appended]);
    },
    end: () => {
      seen.push('end');
      storedWhenFed.push([...appended]);
    },
  });
  assert.ok(followed !== undefined, 'the open stream is handed over');
  assert.equal(followed.seq, 1);
  await progress(2);
  await progress(3);
  await transport.send({ jsonrpc: '2.0', id: 1, result: {} }, { kind: 'response', id: 1 });
  await tick();
  assert.deepEqual(seen, [], 'nothing fed while no append settled');
  settleOne(); // event 1 (appended before the follow)
  await tick();
  assert.deepEqual(seen, [], 'event 2 is not in the store yet');
  settleOne(); // event 2
  await tick();
  assert.deepEqual(seen, [2]);
  settleOne(); // 3
  await tick();
  assert.deepEqual(seen, [2, 3], 'the end waits for the last append');
  settleOne(); // the response (4)
  await tick();
  assert.deepEqual(seen, [2, 3, 4, 'end'], 'every event once, in order, then the end');
  assert.deepEqual(storedWhenFed, [
    [1, 2],
    [1, 2, 3],
    [1, 2, 3, 4],
    [1, 2, 3, 4],
  ]);
  await transport.close();
});
