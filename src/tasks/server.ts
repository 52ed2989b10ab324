/**
 * Tasks on an {@link McpServer}: task-augmented `tools/call` as the receiver, and
 * task-augmented sampling and elicitation sent to clients as the requestor.
 *
 * A tool opts in with `execution: { taskSupport: 'optional' | 'required' }` in its config
 * (absent means `forbidden`). On a 2025-11-25 connection the tool-level rules apply: a task
 * requested for a `forbidden` tool, or a `required` tool called without one, is refused with
 * -32601. On older connections (the draft form) a tool that supports tasks runs as one when
 * the request carries the draft metadata, and every other call is processed normally.
 */
import { LocalError, McpError } from '../jsonrpc/errors.js';
import { ErrorCode, type JSONObject } from '../jsonrpc/types.js';
import { Method } from '../protocol/methods.js';
import { hasCapability } from '../protocol/table.js';
import { atLeast, V2025_11_25 } from '../protocol/versions.js';
import { isValidRequestedSchema } from '../schema/elicitation.js';
import type { ServerConnection } from '../server/connection.js';
import type { ServerRequestContext } from '../server/context.js';
import type { McpServer } from '../server/server.js';
import type { CreateMessageRequestParams, CreateMessageResult, ElicitFormParams, ElicitResult, Tool } from '../types.js';
import { TaskServerRequestContext } from './contexts.js';
import { type TaskableMethod, TaskEngine, type TaskHandlerTable, type TaskReceiverOptions } from './engine.js';
import type { TaskInputRelay } from './input-relay.js';
import type { RequestorPolicy } from './owner.js';
import { type PendingTaskRequest, type TaskRequestOptions, TaskRequestor } from './requestor.js';
import { StatelessTasks, TASKS_EXTENSION_ID } from './stateless/tasks.js';
import type { TaskStore } from './store.js';
import type { TaskForm } from './types.js';
import { formOf, tasksExtension } from './wire.js';

/** Options of {@link TaskServer}. */
export interface TaskServerOptions extends TaskReceiverOptions {
  /** Declare (and serve) `tasks/list`. Default true. */
  list?: boolean;
  /** Declare (and serve) `tasks/cancel`. Default true. */
  cancel?: boolean;
  /**
   * Stateless era: how long a `tools/call` of an `optional` tool may run before it becomes a
   * task, in ms (see `stateless/tasks.ts`). Default 100.
   */
  immediateResultMs?: number;
  /**
   * Stateless era: who counts against `maxActiveTasksPerOwner` (see `stateless/tasks.ts`). Default
   * `requestorByAuthOrConnection`: the principal, else the connection when it carries one
   * client, else anonymous (one shared pool of `maxActiveAnonymousTasks`; a full pool makes
   * `optional` tools answer inline).
   */
  requestorOf?: RequestorPolicy;
  /** Stateless era: most unfinished tasks of anonymous requests together (see `stateless/tasks.ts`). Default 64. */
  maxActiveAnonymousTasks?: number;
  /**
   * Stateless era: carries `tasks/update` answers to the instance running the task when
   * several instances share the store (`RedisTaskInputRelay` of `mcpkit/redis`; see
   * `input-relay.ts`). Default none: answers reach only work running in this process.
   */
  inputRelay?: TaskInputRelay;
}

/** A tool's declared task support (`execution.taskSupport`; absent or unknown = `forbidden`). Pure. */
export function taskSupportOf(tool: Tool | undefined): 'forbidden' | 'optional' | 'required' {
  const v = (tool?.execution as { taskSupport?: unknown } | undefined)?.taskSupport;
  return v === 'optional' || v === 'required' ? v : 'forbidden';
}

/**
 * Enables tasks on `server`. Construct it before the server's first connection (which fixes
 * the declared capabilities; nothing may read `server.capabilities()` earlier): it adds the
 * task methods, declares `tasks: {list, cancel, requests: {tools: {call}}}`, and wraps every
 * connection's `tools/call`. One per server. Throws LocalError `already_connected` when the
 * server has connections, RangeError for invalid limits.
 *
 * Isolation: tasks belong to the transport session and auth context of the request that
 * made them (see `ownerBySessionAndAuth`); over stdio and in-memory transports without auth
 * they are unbound and protected by their random ids only — use `ownerOf: ownerByConnection`
 * when one process serves several unauthenticated clients.
 */
export class TaskServer {
  /** The receiver engine (its `store` holds every task). */
  readonly engine: TaskEngine;
  readonly #server: McpServer;
  readonly #requestors = new WeakMap<ServerConnection, TaskRequestor>();
  readonly #onError: ((error: Error) => void) | undefined;

  constructor(server: McpServer, options: TaskServerOptions = {}) {
    if (server.connections.size > 0) throw new LocalError('already_connected', 'Enable tasks before the server accepts connections');
    this.#server = server;
    this.#onError = options.onError;
    this.engine = new TaskEngine(options);
    const tasks: JSONObject = {};
    if (options.list !== false) tasks.list = {};
    if (options.cancel !== false) tasks.cancel = {};
    tasks.requests = { tools: { call: {} } };
    const extension = tasksExtension((role) => (role === 'server' ? { tasks } : undefined));
    // Stateless era: the io.modelcontextprotocol/tasks extension instead of `tasks` (see stateless/tasks.ts).
    extension.statelessExtensions = (role) => (role === 'server' ? { [TASKS_EXTENSION_ID]: {} } : undefined);
    server.extend(extension);
    this.stateless = new StatelessTasks(server, this.engine.store, options);
    const methods = new Map<string, TaskableMethod<ServerRequestContext>>([
      [
        Method.ToolsCall,
        {
          capability: ['tools', 'call'],
          decide: (params, requested, form) => this.#decide(params, requested, form),
          context: (ctx, params, work) => new TaskServerRequestContext(ctx, params, work, server.defaultLogLevel),
        },
      ],
    ]);
    this.stateless.install(server);
    // one table for every connection (no handlers per connection); a 2026-07-28 request has no connection here
    const table: TaskHandlerTable<ServerRequestContext> = {
      wrap: (method, wrap) => server.wrap(method, wrap, { era: '2025' }),
      set: (method, handler) => server.handle(method, handler, { era: '2025' }),
    };
    this.engine.installShared(table, methods, (ctx) => (ctx.era.claim === undefined ? ctx.connection?.endpoint : undefined));
  }

  /** The stateless era's tasks (the `io.modelcontextprotocol/tasks` extension, on the same store). */
  readonly stateless: StatelessTasks;

  /** Where the tasks live. */
  get store(): TaskStore {
    return this.engine.store;
  }

  #decide(params: JSONObject | undefined, requested: boolean, form: TaskForm): boolean {
    const name = params?.name as string;
    const tool = this.#server.tools.get(name);
    if (tool === undefined) return false; // the handler answers -32602 for an unknown tool
    const support = taskSupportOf(tool);
    if (form === 'draft') return support !== 'forbidden';
    if (requested && support === 'forbidden') {
      throw new McpError(ErrorCode.MethodNotFound, `Tool ${name} does not support task-augmented execution (execution.taskSupport is "forbidden")`);
    }
    if (!requested && support === 'required') {
      throw new McpError(
        ErrorCode.MethodNotFound,
        `Tool ${name} requires task-augmented execution (execution.taskSupport is "required"): call it with params.task`,
      );
    }
    return requested;
  }

  #requestor(connection: ServerConnection): TaskRequestor {
    let r = this.#requestors.get(connection);
    if (r === undefined) this.#requestors.set(connection, (r = new TaskRequestor(connection.endpoint, this.#onError)));
    return r;
  }

  /**
   * Sends `sampling/createMessage` to `connection`'s client as a task when the client supports
   * it (2025-11-25: declared `tasks.requests.sampling.createMessage`; older revisions: the
   * draft, which degrades by itself), else as a plain request. The handle's result is the
   * client's `CreateMessageResult`. Rejects as the request does (LocalError
   * `capability_missing` without the client's `sampling` capability).
   */
  createMessageAsTask(
    connection: ServerConnection,
    params: CreateMessageRequestParams,
    options?: TaskRequestOptions,
  ): Promise<PendingTaskRequest<CreateMessageResult>> {
    const asTask = this.#clientSupports(connection, ['sampling', 'createMessage']);
    return this.#requestor(connection).request<CreateMessageResult>(Method.SamplingCreateMessage, params as unknown as JSONObject, options, asTask);
  }

  /**
   * Form-mode `elicitation/create` to `connection`'s client as a task when it supports it (as
   * for {@link createMessageAsTask}). Throws LocalError `validation_failed` for a requested
   * schema outside the flat, primitive-only subset.
   */
  elicitAsTask(connection: ServerConnection, params: Omit<ElicitFormParams, 'mode'>, options?: TaskRequestOptions): Promise<PendingTaskRequest<ElicitResult>> {
    const problem = isValidRequestedSchema(params.requestedSchema);
    if (problem !== undefined) return Promise.reject(new LocalError('validation_failed', `Invalid requestedSchema: ${problem}`));
    const wire = atLeast(connection.protocolVersion, V2025_11_25) ? { mode: 'form', ...params } : { ...params };
    return this.#requestor(connection).request<ElicitResult>(
      Method.ElicitationCreate,
      wire as unknown as JSONObject,
      options,
      this.#clientSupports(connection, ['elicitation', 'create']),
    );
  }

  #clientSupports(connection: ServerConnection, path: string[]): boolean {
    const form = formOf(connection.protocolVersion);
    return form === 'draft' || (form === '2025-11-25' && hasCapability(connection.clientCapabilities, ['tasks', 'requests', ...path]));
  }

  /**
   * Stops the sweeper and ends running tasks (of every era) as failed (see
   * {@link TaskEngine.close}); does not close the store.
   */
  async close(): Promise<void> {
    await this.stateless.close();
    return this.engine.close();
  }
}
