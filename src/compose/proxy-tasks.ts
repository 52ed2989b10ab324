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
 * - 2026-07-28 upstream offering the `io.modelcontextprotocol/tasks` extension (SEP-2663),
 *   2026-07-28 caller: the proxy declares the extension in its own `server/discover`. A
 *   caller's request that declares it is sent upstream declaring it too (per request, as the
 *   extension asks), and the answers pass as they are: a `tools/call` the upstream turned
 *   into a task answers the caller with the upstream's `CreateTaskResult`, and the caller's
 *   `tasks/get`, `tasks/update` (its answers to the task's `inputRequests`) and `tasks/cancel`
 *   are forwarded with the upstream's task id (one hop: the ids need no renaming). A request
 *   that does not declare it is sent without it (the upstream answers synchronously, or
 *   refuses a `required` tool with -32021, which reaches the caller as it is); the proxy
 *   answers such a `tasks/*` request -32021 itself.
 *   Every upstream task the proxy creates belongs to the proxy's own principal there, so the
 *   proxy keeps who created each ({@link TaskOwners}): a `tasks/*` request reaches a task only
 *   when it comes from the caller's principal (the verified auth of the proxy's transport;
 *   unauthenticated callers hold the task id as a bearer token, as the extension allows), and
 *   otherwise answers -32602 as for an unknown task. Through a mount (`source(outer)`), a
 *   caller's `tools/call` and `tasks/*` are sent with the extension only when `outer` declares
 *   it itself (the gateway does, and renames the task ids: gateway-tasks.ts); otherwise without.
 * - 2026-07-28 upstream without the extension: calls run synchronously; callers see no task
 *   capability.
 * - 2025 caller, upstream without `tasks`: the proxy declares none; a `task` param a caller
 *   sends anyway is forwarded and the upstream answers as its revision says.
 * The draft (SEP-1686 seed) form is not spoken by either side of mcpkit's roles: not bridged.
 */
import type { Client } from '../client/client.js';
import { McpError } from '../jsonrpc/errors.js';
import { ErrorCode, type JSONObject } from '../jsonrpc/types.js';
import { isObject } from '../jsonrpc/values.js';
import type { ServerRequestContext } from '../server/connection.js';
import type { McpServer } from '../server/server.js';
import type { RequestOptions } from '../session/session.js';
import { authKey } from '../tasks/owner.js';
import type { ClientCapabilities, ServerCapabilities, Tool } from '../types.js';

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

/** The 2026-07-28 tasks extension's identifier (spelled out: this module stays era-neutral, see the layering test). */
const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** The 2026-07-28 error of a request missing a client capability the method needs (spelled out as above). */
const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;

/** The methods of the 2026-07-28 tasks extension a caller sends about a task. */
export const EXTENSION_TASK_METHODS: readonly string[] = ['tasks/get', 'tasks/update', 'tasks/cancel'];

/** Default {@link TaskOwners} bound: the most task ids a proxy remembers the creator of. */
export const DEFAULT_MAX_PROXIED_TASKS = 10_000;

/** True when a 2026-07-28 upstream's capabilities offer the tasks extension. Pure. */
export function upstreamOffersTaskExtension(capabilities: ServerCapabilities): boolean {
  const extensions = (capabilities as { extensions?: unknown }).extensions;
  return isObject(extensions) && isObject(extensions[TASKS_EXTENSION]);
}

/** True when `server` declares the tasks extension in its `server/discover` (e.g. a gateway over an upstream that offers it). */
export function offersTaskExtension(server: McpServer): boolean {
  const extensions = (server.statelessCapabilities() as { extensions?: unknown }).extensions;
  return isObject(extensions) && isObject(extensions[TASKS_EXTENSION]);
}

/** True when the request's client capabilities (2026-07-28 `_meta`) declare the tasks extension. */
export function callerDeclaresTaskExtension(ctx: ServerRequestContext): boolean {
  if (ctx.era.stateless === undefined) return false;
  const extensions = (ctx.clientCapabilities as { extensions?: unknown } | undefined)?.extensions;
  return isObject(extensions) && isObject(extensions[TASKS_EXTENSION]);
}

/** The -32021 a `tasks/*` request gets from the proxy when it did not declare the extension. */
export function taskExtensionRequired(): McpError {
  const requiredCapabilities: ClientCapabilities = { extensions: { [TASKS_EXTENSION]: {} } } as ClientCapabilities;
  return new McpError(MISSING_REQUIRED_CLIENT_CAPABILITY, `Missing required client capability: the tasks extension (${TASKS_EXTENSION})`, {
    requiredCapabilities,
  });
}

/** The `io.modelcontextprotocol/tasks` entry of the proxy's own `server/discover` capabilities. */
export function taskExtensionDeclaration(): Record<string, Record<string, unknown>> {
  return { [TASKS_EXTENSION]: {} };
}

/**
 * Who created each upstream task through the proxy (see the module note): the task id and
 * the creator's principal key (`null`: unauthenticated). Bounded: past `max` ids the oldest
 * is forgotten, and its task answers -32602 through the proxy from then on.
 */
export class TaskOwners {
  readonly #owners = new Map<string, string | null>();
  readonly #max: number;

  constructor(max = DEFAULT_MAX_PROXIED_TASKS) {
    this.#max = Math.max(1, max);
  }

  /** Records that `ctx`'s caller created task `taskId` (from the upstream's `CreateTaskResult`). */
  async created(taskId: string, ctx: ServerRequestContext): Promise<void> {
    const owner = (await authKey(ctx.authInfo)) ?? null;
    this.#owners.delete(taskId);
    this.#owners.set(taskId, owner);
    if (this.#owners.size > this.#max) this.#owners.delete(this.#owners.keys().next().value as string);
  }

  /**
   * Resolves when `ctx`'s caller may reach task `taskId`; rejects with -32602 (as an unknown
   * task) when the proxy did not create it or created it for another principal.
   */
  async check(taskId: unknown, ctx: ServerRequestContext): Promise<void> {
    const owner = typeof taskId === 'string' ? this.#owners.get(taskId) : undefined;
    if (owner !== undefined && owner === ((await authKey(ctx.authInfo)) ?? null)) return;
    throw new McpError(
      ErrorCode.InvalidParams,
      `Unknown task ${JSON.stringify(taskId)}: no task of this caller has that id through this proxy. Use the taskId of a task your tools/call created.`,
    );
  }
}

/** The task id of an upstream `CreateTaskResult` (`resultType: "task"`), else undefined. Pure. */
export function createdTaskId(result: unknown): string | undefined {
  return isObject(result) && result.resultType === 'task' && typeof result.taskId === 'string' ? result.taskId : undefined;
}
