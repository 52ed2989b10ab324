/**
 * SqliteTaskStore: the shared contract (in a temporary file, the way it is used), plus what
 * only a durable store has — reopening, recovery of a dead process's tasks, WAL mode and the
 * one-process-per-file lock.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { describeTaskStoreContract, FakeClock } from '../../test/helpers/task-store-contract.js';
import { SqliteTaskStore } from './sqlite-store.js';
import type { NewTask } from './store.js';

const dir = mkdtempSync(join(tmpdir(), 'mcpkit-sqlite-store-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const freshFile = () => join(dir, `tasks-${++files}.db`);

describeTaskStoreContract('SqliteTaskStore', (clock, limits) => SqliteTaskStore.open(freshFile(), { now: clock.now, ...limits }));

const task = (taskId: string, more: Partial<NewTask> = {}): NewTask => ({
  taskId,
  status: 'working',
  ttlMs: 60_000,
  ttlAnchor: 'created',
  owner: {},
  method: 'tools/call',
  form: '2025-11-25',
  ...more,
});

describe('SqliteTaskStore durability', () => {
  it('keeps tasks and results across close and reopen, in WAL mode', async () => {
    const file = freshFile();
    const clock = new FakeClock();
    const a = SqliteTaskStore.open(file, { now: clock.now });
    await a.create(task('done'));
    await a.update('done', { status: 'completed', result: { content: [{ type: 'text', text: 'kept' }] } });
    await a.close();
    const b = SqliteTaskStore.open(file, { now: clock.now });
    try {
      assert.equal(b.recovered, 0);
      const r = await b.get('done');
      assert.equal(r?.status, 'completed');
      assert.deepEqual(r?.result, { content: [{ type: 'text', text: 'kept' }] });
    } finally {
      await b.close();
    }
    const raw = new Database(file, { readonly: true });
    try {
      assert.equal(raw.pragma('journal_mode', { simple: true }), 'wal');
    } finally {
      raw.close();
    }
  });

  it('ends the tasks a dead process left unfinished, truthfully, on open', async () => {
    const file = freshFile();
    const clock = new FakeClock();
    // A process that never closed its store: simulated by abandoning the first handle's
    // rows (the connection is closed without any status change, as after SIGKILL).
    const a = SqliteTaskStore.open(file, { now: clock.now });
    await a.create(task('running'));
    await a.create(task('asking'));
    await a.addInputRequest('asking', 'e1', { method: 'elicitation/create' });
    await a.create(task('draft-running', { status: 'submitted', form: 'draft', ttlAnchor: 'terminal', ttlMs: 1000 }));
    await a.create(task('finished'));
    await a.update('finished', { status: 'completed', result: { ok: true } });
    await a.close();
    clock.advance(5);
    const b = SqliteTaskStore.open(file, { now: clock.now });
    try {
      assert.equal(b.recovered, 3);
      const running = await b.get('running');
      assert.equal(running?.status, 'failed');
      assert.match(running?.statusMessage ?? '', /restarted/);
      assert.deepEqual(running?.error, { code: -32603, message: running?.statusMessage });
      assert.equal(running?.lastUpdatedAt, clock.now());
      const asking = await b.get('asking');
      assert.equal(asking?.status, 'failed');
      assert.deepEqual(asking?.inputRequests, {});
      const draft = await b.get('draft-running');
      assert.equal(draft?.status, 'unknown', 'the draft form has a status for an undeterminable state');
      assert.equal(draft?.expiresAt, clock.now() + 1000, 'keepAlive starts when the task ends');
      assert.deepEqual((await b.get('finished'))?.result, { ok: true });
    } finally {
      await b.close();
    }
  });

  it('is one process per file: a second open is refused while the first holds it', async () => {
    const file = freshFile();
    const a = SqliteTaskStore.open(file);
    try {
      await a.create(task('t'));
      assert.throws(() => SqliteTaskStore.open(file, { busyTimeoutMs: 50 }), /locked|busy/i);
    } finally {
      await a.close();
    }
    const b = SqliteTaskStore.open(file);
    await b.close();
  });

  it('applies the finished-task caps on open: recovered tasks count, a lowered cap evicts the oldest finished', async () => {
    const file = freshFile();
    const clock = new FakeClock();
    const a = SqliteTaskStore.open(file, { now: clock.now });
    for (let i = 0; i < 4; i++) {
      await a.create(task(`done-${i}`));
      clock.advance(1);
      await a.update(`done-${i}`, { status: 'completed', result: {} });
    }
    await a.create(task('orphan'));
    await a.close();
    clock.advance(1);
    const b = SqliteTaskStore.open(file, { now: clock.now, maxFinishedTasks: 2 });
    try {
      assert.equal(b.recovered, 1);
      const left = (await b.list({}, { limit: 10 })).tasks.map((t) => t.taskId);
      assert.deepEqual(left, ['done-3', 'orphan'], 'the orphan ended last, so it is the newest finished');
      await b.create(task('next'));
      await b.update('next', { status: 'completed', result: {} });
      assert.deepEqual(
        (await b.list({}, { limit: 10 })).tasks.map((t) => t.taskId),
        ['orphan', 'next'],
      );
    } finally {
      await b.close();
    }
  });

  it('accepts a custom recovery policy', async () => {
    const file = freshFile();
    const a = SqliteTaskStore.open(file);
    await a.create(task('t'));
    await a.close();
    const b = SqliteTaskStore.open(file, { recover: () => ({ status: 'cancelled', statusMessage: 'shut down' }) });
    try {
      const r = await b.get('t');
      assert.equal(r?.status, 'cancelled');
      assert.equal(r?.statusMessage, 'shut down');
    } finally {
      await b.close();
    }
  });
});
