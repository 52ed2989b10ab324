/**
 * Conversions between stored task records and the two wire forms, the method-table entries
 * of both forms, and the small helpers that read task fields out of received messages.
 *
 * The method names of the forms overlap (`tasks/get`, `tasks/result`, `tasks/list`), so the
 * table entries are chosen per negotiated revision: 2025-11-25 gets its own entries (gated by
 * the receiver's `tasks` capabilities), every earlier revision the draft's (no capability).
 */
import { McpError } from '../jsonrpc/errors.js';
import type { JSONObject, JSONRPCErrorObject } from '../jsonrpc/types.js';
import { isObject } from '../jsonrpc/values.js';
import { checkCursor, type ParamsCheck } from '../protocol/params.js';
import { STATELESS_REVISIONS } from '../protocol/stateless/wire.js';
import type { MethodSpec, ProtocolExtension } from '../protocol/table.js';
import { STATEFUL_REVISIONS, V2025_11_25 } from '../protocol/versions.js';
import {
  DRAFT_RELATED_TASK_META,
  type DraftTask,
  RELATED_TASK_META,
  type Task,
  type TaskForm,
  type TaskInfo,
  TaskMethod,
  TaskNotification,
  type TaskRecord,
  type TaskStatus,
  type WireTaskStatus,
} from './types.js';

/** The 2025-11-25 `Task` of `record` (`submitted` reads as `working`, `unknown` as `failed`). Pure. */
export function toTask(record: TaskRecord): Task {
  const status: WireTaskStatus = record.status === 'submitted' ? 'working' : record.status === 'unknown' ? 'failed' : record.status;
  const t: Task = {
    taskId: record.taskId,
    status,
    createdAt: new Date(record.createdAt).toISOString(),
    lastUpdatedAt: new Date(record.lastUpdatedAt).toISOString(),
    ttl: record.ttlMs,
  };
  if (record.statusMessage !== undefined) t.statusMessage = record.statusMessage;
  if (record.pollIntervalMs !== undefined) t.pollInterval = record.pollIntervalMs;
  return t;
}

/** The draft form's task of `record`; `error` carries the message of a failed or unknown task. Pure. */
export function toDraftTask(record: TaskRecord): DraftTask {
  const t: DraftTask = { taskId: record.taskId, status: record.status, keepAlive: record.ttlMs };
  if (record.pollIntervalMs !== undefined) t.pollFrequency = record.pollIntervalMs;
  if (record.status === 'failed' || record.status === 'unknown') {
    const message = record.error?.message ?? record.statusMessage;
    if (message !== undefined) t.error = message;
  }
  return t;
}

/** The related-task `_meta` key of `form`. */
export function relatedKey(form: TaskForm): string {
  return form === 'draft' ? DRAFT_RELATED_TASK_META : RELATED_TASK_META;
}

/** `result` with the related-task metadata of `form` added to its `_meta` (a new object). Pure. */
export function withRelatedMeta(result: JSONObject | undefined, form: TaskForm, taskId: string): JSONObject {
  const base = result ?? {};
  const meta = isObject(base._meta) ? base._meta : {};
  return { ...base, _meta: { ...meta, [relatedKey(form)]: { taskId } } };
}

/** `params` with the related-task metadata of `form` added to `_meta` (a new object). Pure. */
export function paramsWithRelatedMeta<P extends object>(params: P, form: TaskForm, taskId: string): P & { _meta: JSONObject } {
  const meta = isObject((params as { _meta?: unknown })._meta) ? (params as { _meta: JSONObject })._meta : {};
  return { ...params, _meta: { ...meta, [relatedKey(form)]: { taskId } } };
}

/** The related task id in a message's `_meta` under `key`, if any. Pure. */
export function relatedTaskId(params: JSONObject | undefined, key: string): string | undefined {
  const meta = params?._meta;
  if (!isObject(meta)) return undefined;
  const related = meta[key];
  return isObject(related) && typeof related.taskId === 'string' ? related.taskId : undefined;
}

/** A requestor's view of a received 2025-11-25 `Task` or draft task; undefined when malformed. Pure. */
export function toTaskInfo(raw: unknown): TaskInfo | undefined {
  if (!isObject(raw) || typeof raw.taskId !== 'string' || typeof raw.status !== 'string') return undefined;
  const info: TaskInfo = { taskId: raw.taskId, status: raw.status as TaskStatus, raw };
  if (typeof raw.statusMessage === 'string') info.statusMessage = raw.statusMessage;
  else if (typeof raw.error === 'string') info.statusMessage = raw.error;
  const poll = raw.pollInterval ?? raw.pollFrequency;
  if (typeof poll === 'number' && poll >= 0) info.pollIntervalMs = poll;
  const ttl = 'ttl' in raw ? raw.ttl : raw.keepAlive;
  if (typeof ttl === 'number' || ttl === null) info.ttlMs = ttl;
  if (typeof raw.createdAt === 'string') info.createdAt = raw.createdAt;
  if (typeof raw.lastUpdatedAt === 'string') info.lastUpdatedAt = raw.lastUpdatedAt;
  return info;
}

/**
 * The wire form of a value a handler threw: an {@link McpError} as itself, anything else as
 * a bare -32603 (exactly what the session would have answered). Pure.
 */
export function errorObject(err: unknown): JSONRPCErrorObject {
  return err instanceof McpError ? err.toJSON() : { code: -32603, message: 'Internal error' };
}

/** The McpError that answers with `error`. Pure. */
export function toMcpError(error: JSONRPCErrorObject): McpError {
  return new McpError(error.code, error.message, error.data);
}

const checkTaskId: ParamsCheck = (p) => (p !== undefined && typeof p.taskId === 'string' ? undefined : 'Invalid params: "taskId" must be a string');

const checkStatusNotification: ParamsCheck = (p) =>
  p !== undefined && typeof p.taskId === 'string' && typeof p.status === 'string' ? undefined : 'Invalid params: "taskId" and "status" must be strings';

const checkCreatedNotification: ParamsCheck = (p) =>
  relatedTaskId(p, DRAFT_RELATED_TASK_META) !== undefined ? undefined : `Invalid params: "_meta.${DRAFT_RELATED_TASK_META}.taskId" must be a string`;

function req(method: string, params: ParamsCheck, gate?: readonly string[]): MethodSpec {
  const spec: MethodSpec =
    gate === undefined
      ? { method, kind: 'request', direction: 'both', params }
      : { method, kind: 'request', direction: 'both', params, gate: { holder: 'receiver', path: gate } };
  return spec;
}

/** The 2025-11-25 entries: each request gated by the receiver's declared `tasks` capability. */
const CURRENT: readonly MethodSpec[] = [
  req(TaskMethod.Get, checkTaskId, ['tasks']),
  req(TaskMethod.Result, checkTaskId, ['tasks']),
  req(TaskMethod.List, checkCursor, ['tasks', 'list']),
  req(TaskMethod.Cancel, checkTaskId, ['tasks', 'cancel']),
  { method: TaskNotification.Status, kind: 'notification', direction: 'both', params: checkStatusNotification },
];

/** The draft entries: no capability (the draft negotiates nothing); unsupported requests answer -32601. */
const DRAFT: readonly MethodSpec[] = [
  req(TaskMethod.Get, checkTaskId),
  req(TaskMethod.Result, checkTaskId),
  req(TaskMethod.List, checkCursor),
  req(TaskMethod.Delete, checkTaskId),
  { method: TaskNotification.Created, kind: 'notification', direction: 'both', params: checkCreatedNotification },
];

const checkUpdate: ParamsCheck = (p) => checkTaskId(p) ?? (isObject(p!.inputResponses) ? undefined : 'Invalid params: "inputResponses" must be an object');

/**
 * The stateless era's entries (the `io.modelcontextprotocol/tasks` extension, SEP-2663):
 * `tasks/get`, `tasks/update`, `tasks/cancel`; no `tasks/result` or `tasks/list` (-32601).
 * Gated per request by the client's declared extension (-32021, in the handlers).
 */
const STATELESS: readonly MethodSpec[] = [
  { method: TaskMethod.Get, kind: 'request', direction: 'client-to-server', params: checkTaskId, beforeInit: true },
  { method: TaskMethod.Update, kind: 'request', direction: 'client-to-server', params: checkUpdate, beforeInit: true },
  { method: TaskMethod.Cancel, kind: 'request', direction: 'client-to-server', params: checkTaskId, beforeInit: true },
];

/** The form spoken at `revision`: 2025-11-25, the draft before it, none for other revisions. Pure. */
export function formOf(revision: string | undefined): TaskForm | undefined {
  if (revision === V2025_11_25) return '2025-11-25';
  if (revision !== undefined && (STATEFUL_REVISIONS as readonly string[]).includes(revision)) return 'draft';
  return undefined;
}

/** The name every tasks extension shares (one table per revision, whatever the capabilities). */
export const TASKS_EXTENSION_NAME = 'mcpkit/tasks';

/**
 * A protocol extension adding the task methods of each revision and declaring `capabilities`
 * (computed from what the side declares without tasks). Used by `TaskServer` and `TaskClient`;
 * exported for custom roles. Pure.
 */
export function tasksExtension(
  capabilities?: (role: 'client' | 'server', declared: Readonly<Record<string, unknown>>) => Record<string, unknown> | undefined,
): ProtocolExtension {
  const ext: ProtocolExtension = {
    name: TASKS_EXTENSION_NAME,
    methods: (revision) => {
      const form = formOf(revision);
      return form === '2025-11-25' ? CURRENT : form === 'draft' ? DRAFT : (STATELESS_REVISIONS as readonly string[]).includes(revision) ? STATELESS : [];
    },
  };
  if (capabilities !== undefined) ext.capabilities = capabilities;
  return ext;
}
