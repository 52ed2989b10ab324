/**
 * Tasks through a proxy: which of the spec's task forms pass, and the one bridge the proxy
 * makes. Runtime-neutral.
 *
 * Matrix (downstream caller era × upstream era; "2025" is the 2025-11-25 task form):
 * - 2025 caller, 2025 upstream with `tasks`: the proxy declares the upstream's `tasks`
 *   capability; a task-augmented `tools/call` (`params.task`) and `tasks/get`, `tasks/result`,
 *   `tasks/list`, `tasks/cancel` pass through unchanged (the upstream owns the tasks).
 * - A caller that does not ask for a task (any 2026-07-28 caller: the stateless era's
 *   capabilities carry no 2025 `tasks`; or a 2025 caller that omits `task`) calling a tool
 *   whose `execution.taskSupport` is `required` on a 2025 upstream with task-augmented
 *   `tools/call`: the proxy bridges — it creates the task upstream, waits with `tasks/result`
 *   (which blocks until the task ends) and answers with the tool's result; the caller's
 *   cancel becomes `tasks/cancel` upstream.
 * - 2026-07-28 upstream: the proxy does not declare the `io.modelcontextprotocol/tasks`
 *   extension to it, so the upstream answers synchronously (or refuses a call that needs a
 *   task with -32021, which reaches the caller as it is); callers see no task capability.
 * - 2025 caller, upstream without `tasks`: the proxy declares none; a `task` param a caller
 *   sends anyway is forwarded and the upstream answers as its revision says.
 * The draft (SEP-1686 seed) form is not spoken by either side of mcpkit's roles: not bridged.
 */
import type { Client } from '../client/client.js';
import type { JSONObject } from '../jsonrpc/types.js';
import type { RequestOptions } from '../session/session.js';
import type { ServerCapabilities, Tool } from '../types.js';

/** True when the upstream takes task-augmented `tools/call` (2025-11-25 `tasks.requests.tools.call`). */
export function upstreamRunsToolTasks(capabilities: ServerCapabilities): boolean {
  const tasks = (capabilities as { tasks?: { requests?: { tools?: { call?: unknown } } } }).tasks;
  return tasks?.requests?.tools?.call !== undefined;
}

/** The names of the tools whose `execution.taskSupport` is `required`, from a `tools/list` page. */
export function requiredTaskTools(tools: readonly Tool[]): string[] {
  return tools.filter((t) => (t as { execution?: { taskSupport?: unknown } }).execution?.taskSupport === 'required').map((t) => t.name);
}

/**
 * Runs `tools/call` as a 2025-11-25 task upstream and resolves with the tool's result: creates
 * the task, then `tasks/result` (blocks until it is terminal). An abort of `options.signal`
 * sends `tasks/cancel` for the task (best effort) and rejects as the request does.
 */
export async function callThroughTask(client: Client, params: JSONObject, options: RequestOptions): Promise<unknown> {
  const created = await client.request<{ task?: { taskId?: unknown } }>('tools/call', { ...params, task: {} }, options);
  const taskId = created.task?.taskId;
  if (typeof taskId !== 'string') return created;
  const signal = options.signal;
  const cancel = () => void client.request('tasks/cancel', { taskId }).catch(() => {});
  signal?.addEventListener('abort', cancel, { once: true });
  try {
    const { onProgress: _progress, ...rest } = options;
    return await client.request('tasks/result', { taskId }, rest);
  } finally {
    signal?.removeEventListener('abort', cancel);
  }
}
