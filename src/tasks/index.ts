/**
 * `mcpkit/tasks`: durable, pollable requests (SEP-1686) in the 2025-11-25 form and the
 * draft form, for servers ({@link TaskServer}) and clients ({@link TaskClient}), with a
 * store interface ({@link TaskStore}), the in-memory default and a shared contract suite.
 * The SQLite store is `mcpkit/tasks/sqlite`; on Cloudflare Workers, `DurableObjectTaskStore`
 * keeps tasks in a Durable Object ({@link TaskStoreDurableObject}). Runtime-neutral: no `node:*` imports.
 */

export { TaskClient, type TaskClientOptions, type TaskList } from './client.js';
export { TaskRequestContext, TaskServerRequestContext } from './contexts.js';
export { type DurableObjectStateLike, type DurableObjectStubLike, DurableObjectTaskStore, TaskStoreDurableObject } from './durable-object-store.js';
export { type TaskableMethod, TaskEngine, type TaskHandlerTable, type TaskReceiverOptions, TaskWork } from './engine.js';
export type { TaskInputDelivery, TaskInputReceiver, TaskInputRelay } from './input-relay.js';
export { KeyValueTaskStore, type KeyValueTaskStoreOptions, MapKeyValue, type TaskKeyValue } from './kv-store.js';
export { InMemoryTaskStore, type InMemoryTaskStoreOptions } from './memory-store.js';
export { authKey, type OwnerPolicy, ownerByConnection, ownerBySessionAndAuth, type RequestorPolicy, requestorByAuthOrConnection } from './owner.js';
export { PendingTaskRequest, resultTaskId, type TaskRequestOptions, TaskRequestor } from './requestor.js';
export { TaskServer, type TaskServerOptions, taskSupportOf } from './server.js';
export {
  declaresTasksExtension,
  STATELESS_TASK_FORM,
  StatelessTaskContext,
  type StatelessTaskOptions,
  StatelessTasks,
  TASKS_EXTENSION_ID,
  tasksExtensionRequired,
  toDetailedTask,
  toStatelessTask,
} from './stateless/tasks.js';
export {
  applyPatch,
  checkNewTask,
  checkPatch,
  decodeCursor,
  encodeCursor,
  expiryOf,
  isExpired,
  type NewTask,
  orphanOutcome,
  // The shared rules, for implementers of other stores (run test/helpers/task-store-contract.ts against them).
  ownerKey,
  ownerMatches,
  recordOf,
  type TaskChange,
  type TaskPage,
  type TaskPatch,
  type TaskStore,
  TaskStoreError,
  type TaskStoreErrorCode,
} from './store.js';
export {
  type CreateTaskResult,
  DRAFT_RELATED_TASK_META,
  DRAFT_TASK_META,
  type DraftTask,
  isTerminal,
  RELATED_TASK_META,
  TASK_CANCELLED_CODE,
  type Task,
  type TaskForm,
  type TaskInfo,
  type TaskMetadata,
  TaskMethod,
  TaskNotification,
  type TaskOwner,
  type TaskRecord,
  type TaskStatus,
  type TerminalStatus,
  type TtlAnchor,
  type WireTaskStatus,
} from './types.js';
export { TASKS_EXTENSION_NAME, tasksExtension, toDraftTask, toTask, toTaskInfo } from './wire.js';
