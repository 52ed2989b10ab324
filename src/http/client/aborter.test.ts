/**
 * Aborter (common.ts): the transports' light abort controller. It must behave as an
 * AbortController and its signal do for everything the transports, pump() and the Node
 * requester use: once only, listeners called once in order and removable, a reason, and a
 * real AbortSignal for a fetch that follows it whenever it is asked for.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Aborter, AborterSet, toAbortSignal } from './common.js';

test('abort calls each listener once, in order, with the reason set; later aborts change nothing', () => {
  const aborter = new Aborter();
  const calls: string[] = [];
  aborter.addEventListener('abort', () => calls.push(`a:${String(aborter.reason)}`));
  aborter.addEventListener('abort', () => calls.push('b'));
  assert.equal(aborter.aborted, false);
  aborter.abort('why');
  aborter.abort('again');
  assert.deepEqual(calls, ['a:why', 'b']);
  assert.equal(aborter.aborted, true);
  assert.equal(aborter.reason, 'why');
});

test('a removed listener is not called; a listener added after the abort never is', () => {
  const aborter = new Aborter();
  let called = 0;
  const listener = (): void => {
    called++;
  };
  aborter.addEventListener('abort', listener);
  aborter.removeEventListener('abort', listener);
  aborter.removeEventListener('abort', listener);
  aborter.abort();
  aborter.addEventListener('abort', listener);
  assert.equal(called, 0);
});

test('without a reason the reason is an AbortError, as AbortController gives', () => {
  const aborter = new Aborter();
  aborter.abort();
  assert.ok(aborter.reason instanceof DOMException);
  assert.equal((aborter.reason as DOMException).name, 'AbortError');
});

test('a listener that throws does not stop the others; its error is rethrown in a later microtask', () => {
  const aborter = new Aborter();
  let second = false;
  aborter.addEventListener('abort', () => {
    throw new Error('listener broke');
  });
  aborter.addEventListener('abort', () => {
    second = true;
  });
  const queued: (() => void)[] = [];
  const original = globalThis.queueMicrotask;
  globalThis.queueMicrotask = (task) => void queued.push(task);
  try {
    aborter.abort();
  } finally {
    globalThis.queueMicrotask = original;
  }
  assert.equal(second, true);
  assert.equal(queued.length, 1);
  assert.throws(queued[0]!, /listener broke/);
});

test('signal: a real AbortSignal, aborted with the same reason whether asked for before or after', () => {
  const before = new Aborter();
  const early = before.signal;
  assert.ok(early instanceof AbortSignal);
  assert.equal(before.signal, early, 'one signal per aborter');
  assert.equal(early.aborted, false);
  before.abort('late');
  assert.equal(early.aborted, true);
  assert.equal(early.reason, 'late');

  const after = new Aborter();
  after.abort('early');
  assert.equal(after.signal.aborted, true);
  assert.equal(after.signal.reason, 'early');
});

test('toAbortSignal: an AbortSignal as is, an Aborter through its signal, anything else followed', () => {
  const controller = new AbortController();
  assert.equal(toAbortSignal(controller.signal), controller.signal);
  const aborter = new Aborter();
  assert.equal(toAbortSignal(aborter), aborter.signal);

  let listener: (() => void) | undefined;
  const watch = {
    aborted: false,
    reason: undefined as unknown,
    addEventListener: (_type: 'abort', l: () => void) => {
      listener = l;
    },
    removeEventListener: () => {},
  };
  const followed = toAbortSignal(watch);
  assert.equal(followed.aborted, false);
  watch.aborted = true;
  watch.reason = 'gone';
  listener!();
  assert.equal(followed.aborted, true);
  assert.equal(followed.reason, 'gone');
});

test('AborterSet holds aborters by slot: delete from anywhere, abortAll empties then aborts each once', () => {
  const set = new AborterSet();
  const a = new Aborter();
  const b = new Aborter();
  const c = new Aborter();
  set.add(a);
  set.add(b);
  set.add(c);
  set.add(b); // already in: no second entry
  assert.equal(set.size, 3);
  set.delete(a); // the last one moves into a's slot
  assert.equal(set.size, 2);
  assert.equal(a.slot, -1);
  set.delete(a); // not in the set any more: nothing
  assert.equal(set.size, 2);
  const other = new AborterSet();
  other.delete(c); // c belongs to another set: untouched
  assert.equal(set.size, 2);
  let seen = 0;
  b.addEventListener('abort', () => {
    seen++;
    assert.equal(set.size, 0); // emptied before any listener runs
  });
  set.abortAll('closing');
  assert.equal(seen, 1);
  assert.equal(b.aborted && c.aborted, true);
  assert.equal(c.reason, 'closing');
  assert.equal(a.aborted, false);
  set.add(a);
  assert.equal(set.size, 1);
});
