/**
 * `mcpkit/tasks`: durable, pollable requests (SEP-1686) in the 2025-11-25 form and the
 * draft form, for servers ({@link TaskServer}) and clients ({@link TaskClient}), with a
 * store interface ({@link TaskStore}), the in-memory default and a shared contract suite.
 * The SQLite store is `mcpkit/tasks/sqlite`; on Cloudflare Workers, `DurableObjectTaskStore`
 * keeps tasks in a Durable Object ({@link TaskStoreDurableObject}). Runtime-neutral: no `node:*` imports.
 */
export { TaskServer, taskSupportOf, type TaskServerOptions } from './server.js';
export {
  StatelessTasks,
  StatelessTaskContext,
  TASKS_EXTENSION_ID,
  STATELESS_TASK_FORM,
  declaresTasksExtension,
  tasksExtensionRequired,
  toStatelessTask,
  toDetailedTask,
  type StatelessTaskOptions,
} from './stateless/tasks.js';
export type { TaskInputRelay, TaskInputReceiver, TaskInputDelivery } from './input-relay.js';
export { TaskClient, type TaskClientOptions, type TaskList } from './client.js';
export { TaskEngine, TaskWork, type TaskHandlerTable, type TaskReceiverOptions, type TaskableMethod } from './engine.js';
export { TaskServerRequestContext, TaskRequestContext } from './contexts.js';
export { TaskRequestor, PendingTaskRequest, resultTaskId, type TaskRequestOptions } from './requestor.js';
export { InMemoryTaskStore, type InMemoryTaskStoreOptions } from './memory-store.js';
export { KeyValueTaskStore, MapKeyValue, type KeyValueTaskStoreOptions, type TaskKeyValue } from './kv-store.js';
export { DurableObjectTaskStore, TaskStoreDurableObject, type DurableObjectStateLike, type DurableObjectStubLike } from './durable-object-store.js';
export {
  TaskStoreError,
  orphanOutcome,
  ownerMatches,
  // The shared rules, for implementers of other stores (run test/helpers/task-store-contract.ts against them).
  ownerKey,
  checkNewTask,
  checkPatch,
  applyPatch,
  recordOf,
  expiryOf,
  isExpired,
  encodeCursor,
  decodeCursor,
  type NewTask,
  type TaskChange,
  type TaskPage,
  type TaskPatch,
  type TaskStore,
  type TaskStoreErrorCode,
} from './store.js';
export { ownerBySessionAndAuth, ownerByConnection, requestorByAuthOrConnection, authKey, type OwnerPolicy, type RequestorPolicy } from './owner.js';
export { tasksExtension, toTask, toDraftTask, toTaskInfo, TASKS_EXTENSION_NAME } from './wire.js';
export {
  TaskMethod,
  TaskNotification,
  RELATED_TASK_META,
  DRAFT_TASK_META,
  DRAFT_RELATED_TASK_META,
  TASK_CANCELLED_CODE,
  isTerminal,
  type CreateTaskResult,
  type DraftTask,
  type Task,
  type TaskForm,
  type TaskInfo,
  type TaskMetadata,
  type TaskOwner,
  type TaskRecord,
  type TaskStatus,
  type TerminalStatus,
  type TtlAnchor,
  type WireTaskStatus,
} from './types.js';
