/**
 * The default task store: a `Map` in this process. Tasks vanish with the process; use
 * `SqliteTaskStore` (`mcpkit/tasks/sqlite`) for tasks that must survive a restart.
 *
 * Design note: records are kept frozen-by-convention and copied on the way in and out
 * (JSON deep copies), so no caller can change stored state behind the store's back.
 * Iteration order of the map is creation order, which `list` pages through with a
 * sequence-number cursor. Finished tasks are also indexed in finishing order, for the whole
 * store and per owner (insertion-ordered sets), so evicting the oldest finished is O(1).
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

/** Options of {@link InMemoryTaskStore} (with the caps on finished tasks, {@link FinishedTaskLimits}). */
export interface InMemoryTaskStoreOptions extends FinishedTaskLimits {
  /** The clock (epoch ms). Default `Date.now`. */
  now?: () => number;
}

interface Slot {
  seq: number;
  record: TaskRecord;
}

/** A {@link TaskStore} in memory. Safe for concurrent use within one process (every call is synchronous inside). */
export class InMemoryTaskStore implements TaskStore {
  readonly #tasks = new Map<string, Slot>();
  readonly #now: () => number;
  readonly #maxFinished: number;
  readonly #maxFinishedPerOwner: number;
  /** Ids of finished tasks, in finishing order. */
  readonly #finished = new Set<string>();
  /** The same, per owner key. */
  readonly #finishedByOwner = new Map<string, Set<string>>();
  #seq = 0;
  #closed = false;

  /** Throws RangeError for a limit that is not a positive integer. */
  constructor(options: InMemoryTaskStoreOptions = {}) {
    this.#now = options.now ?? Date.now;
    const limits = finishedTaskLimits(options);
    this.#maxFinished = limits.maxFinishedTasks;
    this.#maxFinishedPerOwner = limits.maxFinishedTasksPerOwner;
  }

  /** Number of stored tasks, expired ones not yet swept included (for tests and metrics). */
  get size(): number {
    return this.#tasks.size;
  }

  async create(task: NewTask): Promise<TaskRecord> {
    this.#open();
    checkNewTask(task);
    const now = this.#now();
    const existing = this.#tasks.get(task.taskId);
    if (existing !== undefined) {
      if (!isExpired(existing.record.expiresAt, now)) throw new TaskStoreError('duplicate', `Task ID already exists: ${task.taskId}`);
      this.#remove(task.taskId);
    }
    const record = recordOf(copyJson(task), now);
    this.#tasks.set(task.taskId, { seq: ++this.#seq, record });
    return copyJson(record);
  }

  async get(taskId: string, owner?: TaskOwner): Promise<TaskRecord | undefined> {
    this.#open();
    const record = this.#live(taskId);
    if (record === undefined || (owner !== undefined && !ownerMatches(record.owner, owner))) return undefined;
    return copyJson(record);
  }

  async update(taskId: string, patch: TaskPatch): Promise<TaskRecord> {
    this.#open();
    const slot = this.#slot(taskId);
    checkPatch(slot.record, patch);
    slot.record = applyPatch(slot.record, copyJson(patch), this.#now());
    const out = copyJson(slot.record);
    if (isTerminal(slot.record.status)) this.#finishedNow(slot.record);
    return out;
  }

  async addInputRequest(taskId: string, key: string, request: JSONObject): Promise<TaskRecord> {
    this.#open();
    const slot = this.#slot(taskId);
    checkPatch(slot.record, {});
    if (Object.hasOwn(slot.record.inputRequests, key)) throw new TaskStoreError('duplicate', `Input request ${key} is already pending`);
    const next = applyPatch(slot.record, { status: 'input_required' }, this.#now());
    slot.record = { ...next, inputRequests: { ...slot.record.inputRequests, [key]: copyJson(request) } };
    return copyJson(slot.record);
  }

  async resolveInputRequest(taskId: string, key: string): Promise<TaskRecord> {
    this.#open();
    const slot = this.#slot(taskId);
    checkPatch(slot.record, {});
    if (!Object.hasOwn(slot.record.inputRequests, key)) return copyJson(slot.record);
    const rest: Record<string, JSONObject> = { ...slot.record.inputRequests };
    delete rest[key];
    const back = Object.keys(rest).length === 0 && slot.record.status === 'input_required';
    const next = applyPatch(slot.record, back ? { status: 'working' } : {}, this.#now());
    slot.record = { ...next, inputRequests: rest };
    return copyJson(slot.record);
  }

  async list(owner: TaskOwner, page: { cursor?: string; limit: number }): Promise<TaskPage> {
    this.#open();
    const after = page.cursor === undefined ? 0 : decodeCursor(page.cursor);
    const limit = Math.max(1, Math.floor(page.limit));
    const now = this.#now();
    const tasks: TaskRecord[] = [];
    let last = 0;
    for (const slot of this.#tasks.values()) {
      if (slot.seq <= after || isExpired(slot.record.expiresAt, now) || !ownerMatches(slot.record.owner, owner)) continue;
      if (tasks.length === limit) return { tasks, nextCursor: encodeCursor(last) };
      tasks.push(copyJson(slot.record));
      last = slot.seq;
    }
    return { tasks };
  }

  async delete(taskId: string, owner?: TaskOwner): Promise<boolean> {
    this.#open();
    const record = this.#live(taskId);
    if (record === undefined || (owner !== undefined && !ownerMatches(record.owner, owner))) return false;
    return this.#remove(taskId);
  }

  async sweep(limit: number): Promise<number> {
    this.#open();
    const now = this.#now();
    let removed = 0;
    for (const [id, slot] of this.#tasks) {
      if (removed >= limit) break;
      if (isExpired(slot.record.expiresAt, now)) {
        this.#remove(id);
        removed++;
      }
    }
    return removed;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#tasks.clear();
    this.#finished.clear();
    this.#finishedByOwner.clear();
  }

  /** Indexes a task that just finished and evicts the oldest finished past the caps. */
  #finishedNow(record: TaskRecord): void {
    const key = ownerKey(record.owner);
    let mine = this.#finishedByOwner.get(key);
    if (mine === undefined) this.#finishedByOwner.set(key, (mine = new Set()));
    mine.add(record.taskId);
    this.#finished.add(record.taskId);
    while (mine.size > this.#maxFinishedPerOwner) this.#remove(mine.values().next().value!);
    while (this.#finished.size > this.#maxFinished) this.#remove(this.#finished.values().next().value!);
  }

  /** Deletes a task and its index entries; false when there was none. */
  #remove(taskId: string): boolean {
    const slot = this.#tasks.get(taskId);
    if (slot === undefined) return false;
    this.#tasks.delete(taskId);
    if (this.#finished.delete(taskId)) {
      const key = ownerKey(slot.record.owner);
      const mine = this.#finishedByOwner.get(key);
      if (mine?.delete(taskId) && mine.size === 0) this.#finishedByOwner.delete(key);
    }
    return true;
  }

  #open(): void {
    if (this.#closed) throw new TaskStoreError('closed', 'The task store is closed');
  }

  #live(taskId: string): TaskRecord | undefined {
    const slot = this.#tasks.get(taskId);
    if (slot === undefined || isExpired(slot.record.expiresAt, this.#now())) return undefined;
    return slot.record;
  }

  #slot(taskId: string): Slot {
    const slot = this.#tasks.get(taskId);
    if (slot === undefined || isExpired(slot.record.expiresAt, this.#now())) throw new TaskStoreError('not_found', `Task not found: ${taskId}`);
    return slot;
  }
}
