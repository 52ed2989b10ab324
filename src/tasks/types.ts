/**
 * Names, statuses and wire shapes of tasks (SEP-1686), in the two 2025-era forms this
 * module speaks:
 *
 * - **2025-11-25** (released, experimental): `params.task = {ttl?}`, receiver-chosen ids,
 *   `CreateTaskResult` at once, `tasks/get|result|list|cancel`, `notifications/tasks/status`,
 *   metadata key `io.modelcontextprotocol/related-task`.
 * - **draft** (`seps/sep-1686-tasks.md`, used when a revision before 2025-11-25 was
 *   negotiated): `_meta["modelcontextprotocol.io/task"] = {taskId, keepAlive}`, requestor-
 *   chosen ids, the normal response plus `notifications/tasks/created`,
 *   `tasks/get|result|list|delete`, metadata key `modelcontextprotocol.io/related-task`.
 *
 * The stored {@link TaskRecord} is form-neutral: epoch-millisecond timestamps, `ttlMs`,
 * `pollIntervalMs`, the result or error inline and pending input requests by key, so the
 * 2026-07-28 extension form (`ttlMs`, `pollIntervalMs`, inline results and input requests,
 * server-chosen ids) reads the same records.
 */
import type { JSONObject, JSONRPCErrorObject, RequestId } from '../jsonrpc/types.js';

/** Task management methods (both forms; which exist depends on the negotiated revision). */
export const TaskMethod = {
  Get: 'tasks/get',
  Result: 'tasks/result',
  List: 'tasks/list',
  /** 2025-11-25 only. */
  Cancel: 'tasks/cancel',
  /** Draft only. */
  Delete: 'tasks/delete',
  /** 2026-07-28 extension only: answers to a task's input requests. */
  Update: 'tasks/update',
} as const;

/** Task notifications. */
export const TaskNotification = {
  /** 2025-11-25: the full task after a status change (optional for receivers). */
  Status: 'notifications/tasks/status',
  /** Draft: the task exists and may be polled (required for receivers). */
  Created: 'notifications/tasks/created',
} as const;

/** 2025-11-25 `_meta` key associating a message with a task. */
export const RELATED_TASK_META = 'io.modelcontextprotocol/related-task';
/** Draft `_meta` key carrying `{taskId, keepAlive}` on a task-augmented request. */
export const DRAFT_TASK_META = 'modelcontextprotocol.io/task';
/** Draft `_meta` key associating a message with a task. */
export const DRAFT_RELATED_TASK_META = 'modelcontextprotocol.io/related-task';

/**
 * The JSON-RPC error code `tasks/result` (2025-11-25) answers for a cancelled task: a
 * cancelled request has no result of its own, so this implementation-defined code (outside
 * the range JSON-RPC reserves) stands for "the request was cancelled".
 */
export const TASK_CANCELLED_CODE = -32800;

/** Every status of either form. */
export type TaskStatus = 'submitted' | 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled' | 'unknown';
/** The statuses a task never leaves. */
export type TerminalStatus = 'completed' | 'failed' | 'cancelled' | 'unknown';

/** True for `completed`, `failed`, `cancelled` and `unknown`. Pure. */
export function isTerminal(status: string): status is TerminalStatus {
  return status === 'completed' || status === 'failed' || status === 'cancelled' || status === 'unknown';
}

/** Which wire form created a task: `draft`, `2025-11-25`, or another form's name. */
export type TaskForm = 'draft' | '2025-11-25' | (string & {});

/**
 * Whom a task belongs to: the transport session and the authentication context that created
 * it. Both absent means unbound (reachable by anyone who knows its unguessable id).
 */
export interface TaskOwner {
  readonly session?: string;
  readonly auth?: string;
}

/** How retention is measured: from creation (2025-11-25 `ttl`) or from reaching a terminal status (draft `keepAlive`). */
export type TtlAnchor = 'created' | 'terminal';

/** One stored task, independent of the wire form. Records handed out by stores are copies. */
export interface TaskRecord {
  readonly taskId: string;
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  /** Epoch milliseconds of the last change. */
  readonly lastUpdatedAt: number;
  /** Retention in ms from {@link ttlAnchor}; `null` = unlimited. */
  readonly ttlMs: number | null;
  readonly ttlAnchor: TtlAnchor;
  /** When the store may delete the task (epoch ms); `null` = not (yet) scheduled. */
  readonly expiresAt: number | null;
  /** Suggested polling interval in ms. */
  readonly pollIntervalMs?: number;
  readonly owner: TaskOwner;
  /** The method of the task-augmented request (`tools/call`, `sampling/createMessage`…). */
  readonly method: string;
  readonly form: TaskForm;
  /** The JSON-RPC id of the request that created the task. */
  readonly requestId?: RequestId;
  /** The request's params, when the creator chose to keep them. */
  readonly params?: JSONObject;
  /** The result of the underlying request (terminal tasks only). */
  readonly result?: JSONObject;
  /** The JSON-RPC error of the underlying request (terminal tasks only). */
  readonly error?: JSONRPCErrorObject;
  /** Requests the receiver sent for this task and still waits on, by a key of its choice. */
  readonly inputRequests: Readonly<Record<string, JSONObject>>;
}

/** 2025-11-25 `TaskStatus`. */
export type WireTaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** 2025-11-25 `Task`. */
export interface Task {
  taskId: string;
  status: WireTaskStatus;
  statusMessage?: string;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601. */
  lastUpdatedAt: string;
  /** Retention from creation in ms; `null` = unlimited. */
  ttl: number | null;
  pollInterval?: number;
}

/** 2025-11-25 `CreateTaskResult`: the immediate answer to a task-augmented request. */
export interface CreateTaskResult {
  task: Task;
  _meta?: JSONObject;
}

/** 2025-11-25 `TaskMetadata` (`params.task`). */
export interface TaskMetadata {
  ttl?: number;
}

/** The draft form's task, as `tasks/get` and `tasks/list` return it. */
export interface DraftTask {
  taskId: string;
  status: TaskStatus;
  /** Retention after completion in ms; `null` = unlimited. */
  keepAlive: number | null;
  pollFrequency?: number;
  /** Why the task failed (or why its state is unknown). */
  error?: string;
}

/**
 * A task as a requestor sees it, whatever the form: the receiver's answer normalized
 * (`ttlMs` is the 2025-11-25 `ttl` or the draft `keepAlive`).
 */
export interface TaskInfo {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  pollIntervalMs?: number;
  ttlMs?: number | null;
  createdAt?: string;
  lastUpdatedAt?: string;
  /** The wire object as received. */
  raw: JSONObject;
}
