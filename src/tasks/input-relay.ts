/**
 * {@link TaskInputRelay}: the seam that carries a 2026-07-28 `tasks/update`'s
 * `inputResponses` to the instance whose process runs the task's work, when the update
 * reached another instance of the same deployment (the store is shared, the work's waiting
 * promises are not). The core defines it; `mcpkit/redis` implements it
 * (`RedisTaskInputRelay`, over the `RedisBus`). Without one, answers reach only work running
 * in the process that received the update.
 */
import type { JSONObject, JSONRPCErrorObject } from '../jsonrpc/types.js';

/**
 * What became of answers handed to an instance:
 * - `delivered`: that instance runs the task and took them (keys not outstanding are ignored
 *   there, as in one process);
 * - `not_running`: no instance asked runs the task's work;
 * - `rejected`: the running instance refused them (a malformed answer), with the JSON-RPC
 *   error to answer the `tasks/update` with; nothing was delivered.
 */
export type TaskInputDelivery =
  | { readonly status: 'delivered' }
  | { readonly status: 'not_running' }
  | { readonly status: 'rejected'; readonly error: JSONRPCErrorObject };

/**
 * Takes answers for task `taskId` in this instance: resolves `delivered` or `rejected` when
 * its work runs here, `not_running` otherwise. Installed by the tasks layer; must not throw.
 */
export type TaskInputReceiver = (taskId: string, responses: JSONObject) => Promise<TaskInputDelivery>;

/**
 * Carries answers between the instances of one deployment. One relay per instance (per
 * server's task layer).
 */
export interface TaskInputRelay {
  /**
   * Hands `responses` (already shape-checked `inputResponses`) for task `taskId` to the other
   * instances and resolves with the running one's outcome, or `not_running` when every
   * instance answered that it does not run it (or none answered in the relay's bound).
   * Rejects when the relay cannot reach the others (the update then answers -32603).
   */
  deliver(taskId: string, responses: JSONObject): Promise<TaskInputDelivery>;
  /**
   * Installs this instance's receiver for answers relayed by the others; returns the
   * function that removes it. At most one receiver per relay.
   */
  listen(receiver: TaskInputReceiver): () => void;
}
