/**
 * The one contract every {@link TaskStore} implementation must meet, as a `node:test` suite.
 * A store's test file calls {@link describeTaskStoreContract} with a factory; the suite
 * drives the store through a fake clock, so expiry is tested without waiting.
 *
 * What it pins down: creation and lookup, duplicate ids, owner isolation (a foreign owner
 * sees nothing), every allowed status transition and the refused ones (terminal states
 * never change, nothing returns to `submitted`, results only with a terminal status),
 * input requests and `input_required`, expiry by ttl from creation and after completion
 * (invisible on read, removed by a bounded sweep), listing with opaque cursors, deletion,
 * the cap on retained finished tasks (per store and per owner, oldest finished evicted
 * first, unfinished tasks never), and that records handed out are copies.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type FinishedTaskLimits, type NewTask, type TaskStore, TaskStoreError } from '../../src/tasks/store.js';
import type { TaskOwner } from '../../src/tasks/types.js';

/** A settable clock for the contract suite. */
export class FakeClock {
  #now: number;
  constructor(start = Date.UTC(2025, 10, 25, 10, 30)) {
    this.#now = start;
  }
  /** The current time (epoch ms); pass `clock.now` as a store's `now` option. */
  readonly now = (): number => this.#now;
  /** Moves the clock forward by `ms`. */
  advance(ms: number): void {
    this.#now += ms;
  }
}

/**
 * Makes a fresh, empty store reading time from `clock`, with the retention limits of
 * `limits` (absent members: the store's defaults).
 */
export type TaskStoreFactory = (clock: FakeClock, limits?: FinishedTaskLimits) => TaskStore | Promise<TaskStore>;

const ALICE: TaskOwner = { session: 's-1', auth: 'alice' };
const BOB: TaskOwner = { session: 's-1', auth: 'bob' };
const UNBOUND: TaskOwner = {};

function task(taskId: string, more: Partial<NewTask> = {}): NewTask {
  return { taskId, status: 'working', ttlMs: 60_000, ttlAnchor: 'created', owner: ALICE, method: 'tools/call', form: '2025-11-25', ...more };
}

async function rejects(promise: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof TaskStoreError, `expected a TaskStoreError, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    return true;
  });
}

/**
 * Declares the contract suite for the store made by `factory`, under `describe(name)`.
 * Each test gets a fresh store and closes it. Called at the top level of a test file.
 */
export function describeTaskStoreContract(name: string, factory: TaskStoreFactory): void {
  describe(`TaskStore contract: ${name}`, () => {
    const withStore = (title: string, body: (store: TaskStore, clock: FakeClock) => Promise<void>, limits?: FinishedTaskLimits) =>
      it(title, async () => {
        const clock = new FakeClock();
        const store = await factory(clock, limits);
        try {
          await body(store, clock);
        } finally {
          await store.close();
        }
      });

    withStore('creates a task and reads it back with every field', async (store, clock) => {
      const created = await store.create(
        task('t1', { requestId: 7, pollIntervalMs: 250, statusMessage: 'started', params: { name: 'x', arguments: { ü: '✓' } } }),
      );
      assert.deepEqual(created, {
        taskId: 't1',
        status: 'working',
        statusMessage: 'started',
        createdAt: clock.now(),
        lastUpdatedAt: clock.now(),
        ttlMs: 60_000,
        ttlAnchor: 'created',
        expiresAt: clock.now() + 60_000,
        pollIntervalMs: 250,
        owner: ALICE,
        method: 'tools/call',
        form: '2025-11-25',
        requestId: 7,
        params: { name: 'x', arguments: { ü: '✓' } },
        inputRequests: {},
      });
      assert.deepEqual(await store.get('t1'), created);
      assert.equal(await store.get('missing'), undefined);
    });

    withStore('refuses a duplicate id, and an initial status other than submitted or working', async (store) => {
      await store.create(task('dup'));
      await rejects(store.create(task('dup', { owner: BOB })), 'duplicate');
      await rejects(store.create(task('x', { status: 'completed' as never })), 'invalid_transition');
      await rejects(store.create(task('')), 'invalid_transition');
    });

    withStore('binds tasks to their owner: a foreign owner finds nothing', async (store) => {
      await store.create(task('a'));
      await store.create(task('u', { owner: UNBOUND }));
      assert.equal((await store.get('a', ALICE))?.taskId, 'a');
      assert.equal(await store.get('a', BOB), undefined);
      assert.equal(await store.get('a', { auth: 'alice' }), undefined, 'the session is part of the binding');
      assert.equal(await store.get('a', UNBOUND), undefined);
      assert.equal((await store.get('u', UNBOUND))?.taskId, 'u');
      assert.equal(await store.get('u', ALICE), undefined);
      assert.equal(await store.delete('a', BOB), false);
      assert.ok(await store.get('a'));
    });

    withStore('walks submitted → working → input_required → working → completed', async (store, clock) => {
      await store.create(task('t', { status: 'submitted', form: 'draft', ttlAnchor: 'terminal' }));
      clock.advance(10);
      let r = await store.update('t', { status: 'working' });
      assert.equal(r.status, 'working');
      assert.equal(r.lastUpdatedAt, clock.now());
      clock.advance(10);
      r = await store.update('t', { status: 'input_required', statusMessage: 'waiting' });
      assert.equal(r.status, 'input_required');
      assert.equal(r.statusMessage, 'waiting');
      r = await store.update('t', { status: 'working', statusMessage: null });
      assert.equal(r.statusMessage, undefined);
      r = await store.update('t', { status: 'completed', result: { content: [{ type: 'text', text: 'done' }] } });
      assert.equal(r.status, 'completed');
      assert.deepEqual(r.result, { content: [{ type: 'text', text: 'done' }] });
      assert.deepEqual((await store.get('t'))?.result, r.result);
    });

    withStore('allows submitted to go straight to any terminal status', async (store) => {
      for (const status of ['completed', 'failed', 'cancelled', 'unknown'] as const) {
        await store.create(task(status, { status: 'submitted', form: 'draft' }));
        assert.equal((await store.update(status, { status })).status, status);
      }
    });

    withStore('never changes a terminal task', async (store) => {
      for (const status of ['completed', 'failed', 'cancelled', 'unknown'] as const) {
        await store.create(task(`t-${status}`));
        await store.update(`t-${status}`, status === 'failed' ? { status, error: { code: -32603, message: 'boom' } } : { status });
        await rejects(store.update(`t-${status}`, { status: 'working' }), 'terminal');
        await rejects(store.update(`t-${status}`, { status: 'cancelled' }), 'terminal');
        await rejects(store.update(`t-${status}`, { statusMessage: 'changed' }), 'terminal');
        await rejects(store.addInputRequest(`t-${status}`, 'k', { method: 'elicitation/create' }), 'terminal');
        await rejects(store.resolveInputRequest(`t-${status}`, 'k'), 'terminal');
        assert.equal((await store.get(`t-${status}`))?.status, status);
      }
      assert.deepEqual((await store.get('t-failed'))?.error, { code: -32603, message: 'boom' });
    });

    withStore('refuses going back to submitted, and a result or error without a terminal status', async (store) => {
      await store.create(task('t'));
      await rejects(store.update('t', { status: 'submitted' }), 'invalid_transition');
      await rejects(store.update('t', { result: {} }), 'invalid_transition');
      await rejects(store.update('t', { status: 'working', error: { code: 1, message: 'x' } }), 'invalid_transition');
      await rejects(store.update('nope', { status: 'completed' }), 'not_found');
      assert.equal((await store.get('t'))?.status, 'working');
    });

    withStore('tracks input requests: input_required until all are answered', async (store) => {
      await store.create(task('t'));
      let r = await store.addInputRequest('t', 'e1', { method: 'elicitation/create', params: { message: 'name?' } });
      assert.equal(r.status, 'input_required');
      r = await store.addInputRequest('t', 's1', { method: 'sampling/createMessage', params: { maxTokens: 5 } });
      assert.deepEqual(Object.keys(r.inputRequests).sort(), ['e1', 's1']);
      await rejects(store.addInputRequest('t', 'e1', { method: 'elicitation/create' }), 'duplicate');
      r = await store.resolveInputRequest('t', 'e1');
      assert.equal(r.status, 'input_required', 'one request is still pending');
      r = await store.resolveInputRequest('t', 'unknown-key');
      assert.equal(r.status, 'input_required');
      r = await store.resolveInputRequest('t', 's1');
      assert.equal(r.status, 'working');
      assert.deepEqual(r.inputRequests, {});
      await store.addInputRequest('t', 'e2', { method: 'elicitation/create' });
      r = await store.update('t', { status: 'cancelled' });
      assert.deepEqual(r.inputRequests, {}, 'a terminal task waits on nothing');
      await rejects(store.addInputRequest('gone', 'k', {}), 'not_found');
    });

    withStore('expires a task ttl ms after creation, whatever its status', async (store, clock) => {
      await store.create(task('t', { ttlMs: 1000 }));
      clock.advance(999);
      assert.ok(await store.get('t'));
      clock.advance(1);
      assert.equal(await store.get('t'), undefined);
      assert.deepEqual((await store.list(ALICE, { limit: 10 })).tasks, []);
      await rejects(store.update('t', { status: 'completed' }), 'not_found');
      assert.equal(await store.delete('t'), false);
      // The id of an expired task may be used again.
      assert.equal((await store.create(task('t'))).taskId, 't');
    });

    withStore('expires a keepAlive task only after it ends, and never with a null ttl', async (store, clock) => {
      await store.create(task('k', { status: 'submitted', ttlMs: 500, ttlAnchor: 'terminal', form: 'draft' }));
      await store.create(task('forever', { ttlMs: null }));
      clock.advance(10_000);
      assert.equal((await store.get('k'))?.expiresAt, null, 'a running keepAlive task does not expire');
      const done = await store.update('k', { status: 'completed', result: {} });
      assert.equal(done.expiresAt, clock.now() + 500);
      clock.advance(500);
      assert.equal(await store.get('k'), undefined);
      clock.advance(365 * 24 * 3600_000);
      assert.equal((await store.get('forever'))?.expiresAt, null);
    });

    withStore('sweeps expired tasks in bounded batches', async (store, clock) => {
      for (let i = 0; i < 5; i++) await store.create(task(`old-${i}`, { ttlMs: 100 }));
      await store.create(task('young', { ttlMs: 10_000 }));
      clock.advance(100);
      assert.equal(await store.sweep(2), 2);
      assert.equal(await store.sweep(10), 3);
      assert.equal(await store.sweep(10), 0);
      assert.ok(await store.get('young'));
    });

    withStore('lists the owner’s live tasks oldest first, page by page, with opaque cursors', async (store, clock) => {
      for (let i = 0; i < 5; i++) {
        await store.create(task(`a${i}`));
        await store.create(task(`b${i}`, { owner: BOB }));
        clock.advance(1);
      }
      await store.create(task('a-expiring', { ttlMs: 1 }));
      clock.advance(1);
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 10; page++) {
        const r = await store.list(ALICE, cursor === undefined ? { limit: 2 } : { cursor, limit: 2 });
        seen.push(...r.tasks.map((t) => t.taskId));
        assert.ok(r.tasks.length <= 2);
        if (r.nextCursor === undefined) break;
        assert.equal(typeof r.nextCursor, 'string');
        cursor = r.nextCursor;
      }
      assert.deepEqual(seen, ['a0', 'a1', 'a2', 'a3', 'a4']);
      assert.deepEqual(
        (await store.list(BOB, { limit: 100 })).tasks.map((t) => t.taskId),
        ['b0', 'b1', 'b2', 'b3', 'b4'],
      );
      assert.deepEqual((await store.list(UNBOUND, { limit: 100 })).tasks, []);
      const exact = await store.list(ALICE, { limit: 5 });
      assert.equal(exact.tasks.length, 5);
      assert.equal(exact.nextCursor, undefined, 'no cursor when nothing follows');
      await rejects(store.list(ALICE, { cursor: 'not-a-cursor', limit: 2 }), 'invalid_cursor');
    });

    withStore('deletes a task', async (store) => {
      await store.create(task('t'));
      assert.equal(await store.delete('t', ALICE), true);
      assert.equal(await store.get('t'), undefined);
      assert.equal(await store.delete('t'), false);
    });

    withStore('hands out copies: changing a returned record changes nothing stored', async (store) => {
      const r = await store.create(task('t', { params: { a: 1 } }));
      (r.params as { a: number }).a = 2;
      (r as { status: string }).status = 'completed';
      const again = await store.get('t');
      assert.equal(again?.status, 'working');
      assert.deepEqual(again?.params, { a: 1 });
      const done = await store.update('t', { status: 'completed', result: { nested: { list: [1, 2] } } });
      (done.result as { nested: { list: number[] } }).nested.list.push(3);
      assert.deepEqual((await store.get('t'))?.result, { nested: { list: [1, 2] } });
    });

    withStore('keeps error objects and string request ids intact', async (store) => {
      await store.create(task('t', { requestId: 'req-1' }));
      const error = { code: -32602, message: 'Invalid params: "x"', data: { field: 'x', nested: [null, true] } };
      await store.update('t', { status: 'failed', statusMessage: 'bad', error });
      const r = await store.get('t');
      assert.equal(r?.requestId, 'req-1');
      assert.deepEqual(r?.error, error);
      assert.equal(r?.result, undefined);
    });

    const ids = async (store: TaskStore, owner: TaskOwner) => (await store.list(owner, { limit: 100 })).tasks.map((t) => t.taskId);
    const finish = async (store: TaskStore, clock: FakeClock, taskId: string) => {
      clock.advance(1);
      await store.update(taskId, { status: 'completed', result: { content: [] } });
    };

    withStore(
      'keeps at most maxFinishedTasks finished tasks: the oldest finished go first, unfinished ones never',
      async (store, clock) => {
        for (const id of ['a1', 'a2', 'a3']) await store.create(task(id));
        for (const id of ['b1', 'b2']) await store.create(task(id, { owner: BOB }));
        for (const id of ['u1', 'u2']) await store.create(task(id, { owner: UNBOUND }));
        // Finished in another order than created: eviction follows the finishing order.
        for (const id of ['b2', 'a3', 'u1', 'a1']) await finish(store, clock, id);
        assert.equal(await store.get('b2'), undefined, 'the first to finish is evicted');
        for (const id of ['a3', 'u1', 'a1']) assert.equal((await store.get(id))?.status, 'completed', id);
        await store.update('a2', { status: 'failed', error: { code: -32603, message: 'x' } });
        assert.equal(await store.get('a3'), undefined);
        assert.deepEqual(await ids(store, ALICE), ['a1', 'a2']);
        assert.deepEqual(await ids(store, BOB), ['b1'], 'an unfinished task is never evicted');
        assert.deepEqual(await ids(store, UNBOUND), ['u1', 'u2']);
        // Many unfinished tasks over the cap stay; cancelling counts as finishing.
        for (let i = 0; i < 6; i++) await store.create(task(`w${i}`, { owner: UNBOUND }));
        assert.equal((await ids(store, UNBOUND)).length, 8);
        clock.advance(1);
        await store.update('w0', { status: 'cancelled' });
        assert.equal(await store.get('u1'), undefined);
        assert.deepEqual(await ids(store, UNBOUND), ['u2', 'w0', 'w1', 'w2', 'w3', 'w4', 'w5']);
      },
      { maxFinishedTasks: 3, maxFinishedTasksPerOwner: 100 },
    );

    withStore(
      'keeps at most maxFinishedTasksPerOwner finished tasks per owner, without touching other owners',
      async (store, clock) => {
        for (let i = 0; i < 5; i++) await store.create(task(`a${i}`));
        await store.create(task('b0', { owner: BOB }));
        await finish(store, clock, 'b0');
        for (let i = 0; i < 5; i++) await finish(store, clock, `a${i}`);
        assert.deepEqual(await ids(store, ALICE), ['a3', 'a4']);
        assert.deepEqual(await ids(store, BOB), ['b0'], 'another owner keeps its older result');
      },
      { maxFinishedTasks: 100, maxFinishedTasksPerOwner: 2 },
    );

    withStore(
      'a deleted or expired finished task frees its place',
      async (store, clock) => {
        await store.create(task('short', { ttlMs: 5 }));
        for (const id of ['a', 'b', 'c']) await store.create(task(id));
        await finish(store, clock, 'short');
        await finish(store, clock, 'a');
        assert.equal(await store.delete('a'), true);
        clock.advance(10);
        assert.equal(await store.sweep(10), 1);
        await finish(store, clock, 'b');
        await finish(store, clock, 'c');
        assert.deepEqual(await ids(store, ALICE), ['b', 'c']);
        assert.equal(await store.get('short'), undefined);
      },
      { maxFinishedTasks: 2, maxFinishedTasksPerOwner: 2 },
    );

    withStore('refuses every call once closed', async (store) => {
      await store.create(task('t'));
      await store.close();
      await rejects(store.get('t'), 'closed');
      await rejects(store.create(task('u')), 'closed');
      await store.close();
    });
  });
}
