/**
 * {@link KeyValueTaskStore}: a {@link TaskStore} over an ordered, asynchronous key-value
 * storage ({@link TaskKeyValue}) — the shape of a Cloudflare Durable Object's
 * `ctx.storage`, so the tasks of a Worker live in one Durable Object
 * (durable-object-store.ts). Runtime-neutral: no `node:*` imports.
 *
 * Design note: the rules are the shared ones (store.ts) applied to one record per key; the
 * store adds three orders as key ranges: creation (`s:` + sequence, for `list` and
 * `sweep`), finishing (`f:` + finishing sequence) and finishing per owner (`o:` + owner +
 * sequence), with counters, so evicting the oldest finished task reads one key range of one
 * entry. Sequences are fixed-width base-36 so key order is numeric order. Every call runs
 * alone (a promise chain): each is atomic even over a storage whose calls interleave.
 */
import type { JSONObject } from '../jsonrpc/types.js';
import {
  applyPatch,
  checkNewTask,
  checkPatch,
  copyJson,
  decodeCursor,
  encodeCursor,
  type FinishedTaskLimits,
  finishedTaskLimits,
  isExpired,
  type NewTask,
  ownerKey,
  ownerMatches,
  recordOf,
  type TaskPage,
  type TaskPatch,
  type TaskStore,
  TaskStoreError,
} from './store.js';
import { isTerminal, type TaskOwner, type TaskRecord } from './types.js';

/**
 * The storage {@link KeyValueTaskStore} needs: string keys kept in lexicographic order,
 * values stored by copy (structured clone or JSON). A Durable Object's `ctx.storage` is one
 * as it is.
 */
export interface TaskKeyValue {
  get(key: string): Promise<unknown>;
  put(entries: Record<string, unknown>): Promise<void>;
  delete(keys: string[]): Promise<number>;
  /** Entries whose keys start with `prefix`, at or after `start` (when given), in key order, at most `limit`. */
  list(options: { prefix: string; start?: string; limit: number }): Promise<Map<string, unknown>>;
}

/** Options of {@link KeyValueTaskStore} (with the caps on finished tasks, {@link FinishedTaskLimits}). */
export interface KeyValueTaskStoreOptions extends FinishedTaskLimits {
  /** The clock (epoch ms). Default `Date.now`. */
  now?: () => number;
}

interface Slot {
  seq: number;
  /** Finishing sequence, once the task ended. */
  fin?: number;
  record: TaskRecord;
}

/** Entries read per storage call while scanning (a Durable Object's `get` takes 128 keys). */
const PAGE = 128;
const SEQ = 'meta:seq';
const FIN_SEQ = 'meta:fin';
const FIN_COUNT = 'meta:finished';

/** A sequence number as a key part whose order is numeric order (11 base-36 digits hold every safe integer). */
function seqKey(seq: number): string {
  return seq.toString(36).padStart(11, '0');
}

const taskKey = (taskId: string): string => `t:${taskId}`;
const ownerPart = (key: string): string => encodeURIComponent(key);

/** A {@link TaskStore} over a {@link TaskKeyValue}. Every call is atomic (they run one at a time). */
export class KeyValueTaskStore implements TaskStore {
  readonly #kv: TaskKeyValue;
  readonly #now: () => number;
  readonly #maxFinished: number;
  readonly #maxFinishedPerOwner: number;
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;

  /** Throws RangeError for a limit that is not a positive integer. */
  constructor(storage: TaskKeyValue, options: KeyValueTaskStoreOptions = {}) {
    this.#kv = storage;
    this.#now = options.now ?? Date.now;
    const limits = finishedTaskLimits(options);
    this.#maxFinished = limits.maxFinishedTasks;
    this.#maxFinishedPerOwner = limits.maxFinishedTasksPerOwner;
  }

  create(task: NewTask): Promise<TaskRecord> {
    return this.#run(async () => {
      checkNewTask(task);
      const now = this.#now();
      const existing = await this.#slot(task.taskId);
      if (existing !== undefined) {
        if (!isExpired(existing.record.expiresAt, now)) throw new TaskStoreError('duplicate', `Task ID already exists: ${task.taskId}`);
        await this.#remove(existing);
      }
      const seq = (((await this.#kv.get(SEQ)) as number | undefined) ?? 0) + 1;
      const record = recordOf(copyJson(task), now);
      await this.#kv.put({ [SEQ]: seq, [taskKey(task.taskId)]: { seq, record } satisfies Slot, [`s:${seqKey(seq)}`]: task.taskId });
      return record;
    });
  }

  get(taskId: string, owner?: TaskOwner): Promise<TaskRecord | undefined> {
    return this.#run(async () => {
      const slot = await this.#live(taskId);
      if (slot === undefined || (owner !== undefined && !ownerMatches(slot.record.owner, owner))) return undefined;
      return slot.record;
    });
  }

  update(taskId: string, patch: TaskPatch): Promise<TaskRecord> {
    return this.#run(async () => {
      const slot = await this.#found(taskId);
      checkPatch(slot.record, patch);
      slot.record = applyPatch(slot.record, copyJson(patch), this.#now());
      if (isTerminal(slot.record.status)) await this.#finishedNow(slot);
      else await this.#kv.put({ [taskKey(taskId)]: slot });
      return slot.record;
    });
  }

  addInputRequest(taskId: string, key: string, request: JSONObject): Promise<TaskRecord> {
    return this.#run(async () => {
      const slot = await this.#found(taskId);
      checkPatch(slot.record, {});
      if (Object.hasOwn(slot.record.inputRequests, key)) throw new TaskStoreError('duplicate', `Input request ${key} is already pending`);
      const next = applyPatch(slot.record, { status: 'input_required' }, this.#now());
      slot.record = { ...next, inputRequests: { ...slot.record.inputRequests, [key]: copyJson(request) } };
      await this.#kv.put({ [taskKey(taskId)]: slot });
      return slot.record;
    });
  }

  resolveInputRequest(taskId: string, key: string): Promise<TaskRecord> {
    return this.#run(async () => {
      const slot = await this.#found(taskId);
      checkPatch(slot.record, {});
      if (!Object.hasOwn(slot.record.inputRequests, key)) return slot.record;
      const rest: Record<string, JSONObject> = { ...slot.record.inputRequests };
      delete rest[key];
      const back = Object.keys(rest).length === 0 && slot.record.status === 'input_required';
      const next = applyPatch(slot.record, back ? { status: 'working' } : {}, this.#now());
      slot.record = { ...next, inputRequests: rest };
      await this.#kv.put({ [taskKey(taskId)]: slot });
      return slot.record;
    });
  }

  list(owner: TaskOwner, page: { cursor?: string; limit: number }): Promise<TaskPage> {
    return this.#run(async () => {
      const after = page.cursor === undefined ? 0 : decodeCursor(page.cursor);
      const limit = Math.max(1, Math.floor(page.limit));
      const now = this.#now();
      const tasks: TaskRecord[] = [];
      let last = 0;
      let start = `s:${seqKey(after + 1)}`;
      for (;;) {
        const ids = await this.#kv.list({ prefix: 's:', start, limit: PAGE });
        for (const [key, taskId] of ids) {
          const slot = await this.#slot(taskId as string);
          if (slot === undefined || isExpired(slot.record.expiresAt, now) || !ownerMatches(slot.record.owner, owner)) continue;
          if (tasks.length === limit) return { tasks, nextCursor: encodeCursor(last) };
          tasks.push(slot.record);
          last = parseInt(key.slice(2), 36);
        }
        if (ids.size < PAGE) return { tasks };
        start = `${[...ids.keys()].at(-1)!}\u0000`;
      }
    });
  }

  delete(taskId: string, owner?: TaskOwner): Promise<boolean> {
    return this.#run(async () => {
      const slot = await this.#live(taskId);
      if (slot === undefined || (owner !== undefined && !ownerMatches(slot.record.owner, owner))) return false;
      await this.#remove(slot);
      return true;
    });
  }

  sweep(limit: number): Promise<number> {
    return this.#run(async () => {
      const now = this.#now();
      let removed = 0;
      let start: string | undefined;
      for (;;) {
        const ids = await this.#kv.list(start === undefined ? { prefix: 's:', limit: PAGE } : { prefix: 's:', start, limit: PAGE });
        for (const taskId of ids.values()) {
          if (removed >= limit) return removed;
          const slot = await this.#slot(taskId as string);
          if (slot !== undefined && isExpired(slot.record.expiresAt, now)) {
            await this.#remove(slot);
            removed++;
          }
        }
        if (ids.size < PAGE) return removed;
        start = `${[...ids.keys()].at(-1)!}\u0000`;
      }
    });
  }

  /** Stops this store object; the storage and its tasks stay. Idempotent. */
  close(): Promise<void> {
    this.#closed = true;
    return Promise.resolve();
  }

  /** Runs `op` after every call before it (so each is atomic); rejects `closed` once closed. */
  #run<T>(op: () => Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(new TaskStoreError('closed', 'The task store is closed'));
    const result = this.#queue.then(op);
    this.#queue = result.catch(() => undefined);
    return result;
  }

  /** Marks a task finished: indexes it, bumps the counters, evicts the oldest finished past the caps. */
  async #finishedNow(slot: Slot): Promise<void> {
    const fin = (((await this.#kv.get(FIN_SEQ)) as number | undefined) ?? 0) + 1;
    slot.fin = fin;
    const owner = ownerPart(ownerKey(slot.record.owner));
    const ownerCount = `meta:finished:${owner}`;
    const mine = (((await this.#kv.get(ownerCount)) as number | undefined) ?? 0) + 1;
    const all = (((await this.#kv.get(FIN_COUNT)) as number | undefined) ?? 0) + 1;
    await this.#kv.put({
      [taskKey(slot.record.taskId)]: slot,
      [FIN_SEQ]: fin,
      [FIN_COUNT]: all,
      [ownerCount]: mine,
      [`f:${seqKey(fin)}`]: slot.record.taskId,
      [`o:${owner}:${seqKey(fin)}`]: slot.record.taskId,
    });
    if (mine > this.#maxFinishedPerOwner) await this.#evictOldest(`o:${owner}:`);
    if (all > this.#maxFinished) await this.#evictOldest('f:');
  }

  async #evictOldest(prefix: string): Promise<void> {
    const oldest = await this.#kv.list({ prefix, limit: 1 });
    for (const taskId of oldest.values()) {
      const slot = await this.#slot(taskId as string);
      if (slot !== undefined) await this.#remove(slot);
    }
  }

  /** Deletes a task, its index entries and its part of the finished counters. */
  async #remove(slot: Slot): Promise<void> {
    const keys = [taskKey(slot.record.taskId), `s:${seqKey(slot.seq)}`];
    if (slot.fin !== undefined) {
      const owner = ownerPart(ownerKey(slot.record.owner));
      const ownerCount = `meta:finished:${owner}`;
      keys.push(`f:${seqKey(slot.fin)}`, `o:${owner}:${seqKey(slot.fin)}`);
      const mine = ((await this.#kv.get(ownerCount)) as number | undefined) ?? 1;
      const all = ((await this.#kv.get(FIN_COUNT)) as number | undefined) ?? 1;
      if (mine <= 1) keys.push(ownerCount);
      else await this.#kv.put({ [ownerCount]: mine - 1 });
      await this.#kv.put({ [FIN_COUNT]: Math.max(0, all - 1) });
    }
    await this.#kv.delete(keys);
  }

  async #slot(taskId: string): Promise<Slot | undefined> {
    return (await this.#kv.get(taskKey(taskId))) as Slot | undefined;
  }

  async #live(taskId: string): Promise<Slot | undefined> {
    const slot = await this.#slot(taskId);
    return slot === undefined || isExpired(slot.record.expiresAt, this.#now()) ? undefined : slot;
  }

  async #found(taskId: string): Promise<Slot> {
    const slot = await this.#live(taskId);
    if (slot === undefined) throw new TaskStoreError('not_found', `Task not found: ${taskId}`);
    return slot;
  }
}

/**
 * A {@link TaskKeyValue} in a `Map` (values stored as JSON copies), for tests and as a
 * reference of the contract. Keys are sorted on each `list`.
 */
export class MapKeyValue implements TaskKeyValue {
  readonly #map = new Map<string, string>();

  get(key: string): Promise<unknown> {
    const text = this.#map.get(key);
    return Promise.resolve(text === undefined ? undefined : JSON.parse(text));
  }

  put(entries: Record<string, unknown>): Promise<void> {
    for (const [key, value] of Object.entries(entries)) this.#map.set(key, JSON.stringify(value));
    return Promise.resolve();
  }

  delete(keys: string[]): Promise<number> {
    let n = 0;
    for (const key of keys) if (this.#map.delete(key)) n++;
    return Promise.resolve(n);
  }

  list(options: { prefix: string; start?: string; limit: number }): Promise<Map<string, unknown>> {
    const out = new Map<string, unknown>();
    const keys = [...this.#map.keys()].filter((k) => k.startsWith(options.prefix) && (options.start === undefined || k >= options.start)).sort();
    for (const key of keys.slice(0, options.limit)) out.set(key, JSON.parse(this.#map.get(key)!));
    return Promise.resolve(out);
  }
}
