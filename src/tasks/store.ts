/**
 * The task store contract, and the rules every implementation shares.
 *
 * Design note: a store is the single source of truth for a task's state; the engine never
 * keeps status elsewhere. The rules that make a store trustworthy live here as plain
 * functions ({@link checkPatch}, {@link applyPatch}, {@link expiryOf}) so that the in-memory
 * and the SQLite store cannot drift apart, and one contract suite
 * (test/helpers/task-store-contract.ts) checks both:
 * - terminal statuses never change: any update of a terminal task is refused;
 * - nothing goes back to `submitted`; a result or an error only comes with a terminal status;
 * - expiry is enforced on every read (an expired task is invisible) and cleaned up by a
 *   bounded {@link TaskStore.sweep};
 * - owner binding: a lookup with an owner only finds tasks of exactly that owner.
 * Stores are asynchronous so that a networked store fits the same interface.
 */
import type { JSONObject, JSONRPCErrorObject, RequestId } from '../jsonrpc/types.js';
import { isTerminal, type TaskForm, type TaskOwner, type TaskRecord, type TaskStatus, type TtlAnchor } from './types.js';

/** Stable codes of {@link TaskStoreError}. */
export type TaskStoreErrorCode = 'not_found' | 'duplicate' | 'terminal' | 'invalid_transition' | 'invalid_cursor' | 'closed';

/** A refusal by a task store. Compare `code`, never `message`. */
export class TaskStoreError extends Error {
  readonly code: TaskStoreErrorCode;
  constructor(code: TaskStoreErrorCode, message: string) {
    super(message);
    this.name = 'TaskStoreError';
    this.code = code;
  }
}

/** What {@link TaskStore.create} needs. */
export interface NewTask {
  readonly taskId: string;
  /** `submitted` (draft) or `working` (2025-11-25); anything else is refused. */
  readonly status: 'submitted' | 'working';
  readonly statusMessage?: string;
  readonly ttlMs: number | null;
  readonly ttlAnchor: TtlAnchor;
  readonly pollIntervalMs?: number;
  readonly owner: TaskOwner;
  readonly method: string;
  readonly form: TaskForm;
  readonly requestId?: RequestId;
  readonly params?: JSONObject;
}

/** A change to a task. Absent members stay as they are. */
export interface TaskPatch {
  readonly status?: TaskStatus;
  /** `null` removes the message. */
  readonly statusMessage?: string | null;
  readonly pollIntervalMs?: number;
  /** Only together with a terminal `status`. */
  readonly result?: JSONObject;
  /** Only together with a terminal `status`. */
  readonly error?: JSONRPCErrorObject;
}

/**
 * Caps on retained finished tasks, shared by every store implementation: once a task ends
 * (completed, failed, cancelled, unknown) it counts against both caps until it expires or is
 * deleted; when a cap is crossed the store deletes the finished tasks that finished first
 * (of that owner, or of the whole store). Unfinished tasks are never evicted.
 */
export interface FinishedTaskLimits {
  /** Most finished tasks the store keeps. Default 10 000. */
  maxFinishedTasks?: number;
  /**
   * Most finished tasks the store keeps per owner (unbound tasks count as one owner). Default
   * 1000, so one requestor's flood evicts only its own results until the store as a whole is
   * at `maxFinishedTasks`.
   */
  maxFinishedTasksPerOwner?: number;
}

/** {@link FinishedTaskLimits} with the defaults applied; throws RangeError for a limit that is not a positive integer. */
export function finishedTaskLimits(limits: FinishedTaskLimits = {}): Required<FinishedTaskLimits> {
  const resolved = { maxFinishedTasks: limits.maxFinishedTasks ?? 10_000, maxFinishedTasksPerOwner: limits.maxFinishedTasksPerOwner ?? 1000 };
  for (const [name, v] of Object.entries(resolved)) if (!(Number.isInteger(v) && v >= 1)) throw new RangeError(`${name} must be a positive integer`);
  return resolved;
}

/** A change of a task, as a store shared between processes announces it ({@link TaskStore.watch}). */
export interface TaskChange {
  readonly taskId: string;
  /** The status after the change. */
  readonly status: TaskStatus;
}

/** One page of {@link TaskStore.list}. */
export interface TaskPage {
  readonly tasks: TaskRecord[];
  /** Present when more tasks follow; opaque. */
  readonly nextCursor?: string;
}

/**
 * Where tasks live. Implementations: `InMemoryTaskStore` (default), `SqliteTaskStore`
 * (`mcpkit/tasks/sqlite`). Every method may be called concurrently; each call is atomic.
 * A store bounds the finished tasks it keeps ({@link FinishedTaskLimits}): an `update` that
 * ends a task may delete the oldest finished ones.
 * Methods reject with {@link TaskStoreError} as documented, and with `closed` after
 * {@link TaskStore.close}.
 */
export interface TaskStore {
  /** Stores a new task. Rejects `duplicate` when a live task has this id, `invalid_transition` for another initial status. */
  create(task: NewTask): Promise<TaskRecord>;
  /**
   * The task, or undefined when unknown, expired, or (when `owner` is given) owned by
   * someone else — the three cases are indistinguishable on purpose.
   */
  get(taskId: string, owner?: TaskOwner): Promise<TaskRecord | undefined>;
  /**
   * Applies `patch`. Rejects `not_found` (unknown or expired), `terminal` (the task already
   * ended: terminal states never change), `invalid_transition` (back to `submitted`, or a
   * result/error without a terminal status).
   */
  update(taskId: string, patch: TaskPatch): Promise<TaskRecord>;
  /**
   * Records a request the receiver sent for the task and waits on; the task becomes
   * `input_required`. Rejects `not_found`, `terminal`, `duplicate` (key in use).
   */
  addInputRequest(taskId: string, key: string, request: JSONObject): Promise<TaskRecord>;
  /**
   * Forgets an answered input request; when none is left an `input_required` task returns to
   * `working`. Unknown keys are ignored. Rejects `not_found`, `terminal`.
   */
  resolveInputRequest(taskId: string, key: string): Promise<TaskRecord>;
  /** Live tasks of exactly `owner`, oldest first. Rejects `invalid_cursor` for a cursor it did not issue. */
  list(owner: TaskOwner, page: { cursor?: string; limit: number }): Promise<TaskPage>;
  /** Deletes a task (of `owner`, when given). Resolves false when there was none. */
  delete(taskId: string, owner?: TaskOwner): Promise<boolean>;
  /** Deletes up to `limit` expired tasks; resolves with how many. */
  sweep(limit: number): Promise<number>;
  /** Releases resources; later calls reject `closed`. Idempotent. */
  close(): Promise<void>;
  /**
   * Optional, for stores shared between processes: calls `listener` after every change of a
   * task made through any process sharing the store (this one included), so an engine aborts
   * work that was cancelled (or ended) elsewhere and wakes its waiting `tasks/result` calls.
   * Delivery is best effort; the store stays the source of truth. Returns the function that
   * stops the listener.
   */
  watch?(listener: (change: TaskChange) => void): () => void;
}

/** True when `record` belongs to exactly `owner` (both unbound counts). Pure. */
export function ownerMatches(record: TaskOwner, owner: TaskOwner): boolean {
  return (record.session ?? null) === (owner.session ?? null) && (record.auth ?? null) === (owner.auth ?? null);
}

/** A string identifying `owner`, for indexes and counters. Pure. */
export function ownerKey(owner: TaskOwner): string {
  return owner.session === undefined && owner.auth === undefined ? '' : JSON.stringify([owner.session ?? null, owner.auth ?? null]);
}

/** When a task with these properties expires (`null`: not scheduled). Pure. */
export function expiryOf(ttlMs: number | null, anchor: TtlAnchor, createdAt: number, status: TaskStatus, now: number, previous: number | null): number | null {
  if (ttlMs === null) return null;
  if (anchor === 'created') return createdAt + ttlMs;
  if (!isTerminal(status)) return null;
  return previous ?? now + ttlMs;
}

/** True when a task expiring at `expiresAt` is gone at `now`. Pure. */
export function isExpired(expiresAt: number | null, now: number): boolean {
  return expiresAt !== null && expiresAt <= now;
}

/** Throws the {@link TaskStoreError} a `create` of `task` deserves (initial status, ttl). */
export function checkNewTask(task: NewTask): void {
  if (task.status !== 'submitted' && task.status !== 'working')
    throw new TaskStoreError('invalid_transition', `A task starts as "submitted" or "working", not "${String(task.status)}"`);
  if (typeof task.taskId !== 'string' || task.taskId.length === 0) throw new TaskStoreError('invalid_transition', 'A task id is a non-empty string');
  if (task.ttlMs !== null && !(Number.isInteger(task.ttlMs) && task.ttlMs >= 0))
    throw new TaskStoreError('invalid_transition', 'ttlMs is a non-negative integer or null');
}

/** Throws the {@link TaskStoreError} `patch` deserves against `current`. */
export function checkPatch(current: TaskRecord, patch: TaskPatch): void {
  if (isTerminal(current.status)) throw new TaskStoreError('terminal', `Task ${current.taskId} is already ${current.status}; terminal states never change`);
  const next = patch.status;
  if (next === 'submitted' && current.status !== 'submitted')
    throw new TaskStoreError('invalid_transition', `Task ${current.taskId} cannot go back from ${current.status} to submitted`);
  if ((patch.result !== undefined || patch.error !== undefined) && (next === undefined || !isTerminal(next))) {
    throw new TaskStoreError('invalid_transition', 'A result or an error is stored only together with a terminal status');
  }
}

/** The record `patch` makes of `current` at `now` (call {@link checkPatch} first). Pure. */
export function applyPatch(current: TaskRecord, patch: TaskPatch, now: number): TaskRecord {
  const status = patch.status ?? current.status;
  const next: { -readonly [K in keyof TaskRecord]: TaskRecord[K] } = { ...current, status, lastUpdatedAt: Math.max(now, current.lastUpdatedAt) };
  if (patch.statusMessage === null) delete next.statusMessage;
  else if (patch.statusMessage !== undefined) next.statusMessage = patch.statusMessage;
  if (patch.pollIntervalMs !== undefined) next.pollIntervalMs = patch.pollIntervalMs;
  if (patch.result !== undefined) next.result = patch.result;
  if (patch.error !== undefined) next.error = patch.error;
  if (isTerminal(status)) next.inputRequests = {};
  next.expiresAt = expiryOf(current.ttlMs, current.ttlAnchor, current.createdAt, status, now, isTerminal(current.status) ? current.expiresAt : null);
  return next;
}

/** The record a valid `task` makes at `now`. Pure. */
export function recordOf(task: NewTask, now: number): TaskRecord {
  const r: { -readonly [K in keyof TaskRecord]: TaskRecord[K] } = {
    taskId: task.taskId,
    status: task.status,
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs: task.ttlMs,
    ttlAnchor: task.ttlAnchor,
    expiresAt: expiryOf(task.ttlMs, task.ttlAnchor, now, task.status, now, null),
    owner: ownerCopy(task.owner),
    method: task.method,
    form: task.form,
    inputRequests: {},
  };
  if (task.statusMessage !== undefined) r.statusMessage = task.statusMessage;
  if (task.pollIntervalMs !== undefined) r.pollIntervalMs = task.pollIntervalMs;
  if (task.requestId !== undefined) r.requestId = task.requestId;
  if (task.params !== undefined) r.params = task.params;
  return r;
}

function ownerCopy(owner: TaskOwner): TaskOwner {
  const o: { session?: string; auth?: string } = {};
  if (owner.session !== undefined) o.session = owner.session;
  if (owner.auth !== undefined) o.auth = owner.auth;
  return o;
}

const CURSOR_PREFIX = 't1.';

/** The opaque cursor standing for "after creation sequence `seq`". Pure. */
export function encodeCursor(seq: number): string {
  return CURSOR_PREFIX + seq.toString(36);
}

/** The sequence number a cursor from {@link encodeCursor} stands for; throws `invalid_cursor` otherwise. */
export function decodeCursor(cursor: string): number {
  if (typeof cursor === 'string' && cursor.startsWith(CURSOR_PREFIX)) {
    const body = cursor.slice(CURSOR_PREFIX.length);
    if (/^[0-9a-z]{1,11}$/.test(body)) {
      const seq = parseInt(body, 36);
      if (Number.isSafeInteger(seq)) return seq;
    }
  }
  throw new TaskStoreError('invalid_cursor', 'Invalid cursor');
}

/**
 * The default outcome for a task found unfinished when a durable store opens: its work died
 * with the process that ran it, and whether its side effects happened is not known. The
 * draft form has a status for exactly that (`unknown`); the 2025-11-25 form ends it as
 * `failed`. Either way `tasks/result` answers the stored -32603 error, and the message says
 * what happened.
 */
export function orphanOutcome(record: TaskRecord): TaskPatch {
  const message = 'The server restarted while this task was running; its outcome is unknown';
  return { status: record.form === 'draft' ? 'unknown' : 'failed', statusMessage: message, error: { code: -32603, message } };
}

/** A deep copy of JSON data (stores hand out copies, never their own objects). */
export function copyJson<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}
