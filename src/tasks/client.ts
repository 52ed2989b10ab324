/**
 * Tasks on a {@link Client}: task-augmented `tools/call` as the requestor
 * ({@link TaskClient.callToolAsTask} and the `tasks/*` calls), and task-augmented
 * `sampling/createMessage` and `elicitation/create` as the receiver (for the handlers the
 * client has).
 */

import type { Client } from '../client/client.js';
import { LocalError } from '../jsonrpc/errors.js';
import type { JSONObject } from '../jsonrpc/types.js';
import type { Endpoint } from '../protocol/endpoint.js';
import { Method, Notification } from '../protocol/methods.js';
import { hasCapability } from '../protocol/table.js';
import type { RequestContext } from '../session/context.js';
import type { RequestOptions } from '../session/session.js';
import type { CallToolResult } from '../types.js';
import { TaskRequestContext } from './contexts.js';
import { type TaskableMethod, TaskEngine, type TaskReceiverOptions, type TaskWork } from './engine.js';
import { type PendingTaskRequest, type TaskRequestOptions, TaskRequestor } from './requestor.js';
import { taskSupportOf } from './server.js';
import type { TaskStore } from './store.js';
import { type TaskInfo, TaskMethod } from './types.js';
import { formOf, tasksExtension, toTaskInfo } from './wire.js';

/** Options of {@link TaskClient}. */
export interface TaskClientOptions extends TaskReceiverOptions {
  /**
   * Run task-augmented `sampling/createMessage` and `elicitation/create` from the server as
   * tasks (declared per request type, for the handlers the client has). Default true.
   */
  receive?: boolean;
}

/** A page of `tasks/list`. */
export interface TaskList {
  tasks: TaskInfo[];
  nextCursor?: string;
}

/**
 * Tasks for one {@link Client}. Construct it before `client.connect` (it adds the task
 * methods, declares the client's `tasks` capability and installs its handlers on connect).
 * Methods that talk to the server throw LocalError `not_connected` before the handshake.
 */
export class TaskClient {
  /** The receiver engine for the server's task-augmented requests. */
  readonly engine: TaskEngine;
  readonly client: Client;
  readonly #onError: ((error: Error) => void) | undefined;
  #requestor: TaskRequestor | undefined;
  #support: Promise<Map<string, string>> | undefined;

  constructor(client: Client, options: TaskClientOptions = {}) {
    if (client.endpoint !== undefined) throw new LocalError('already_connected', 'Enable tasks before the client connects');
    this.client = client;
    this.#onError = options.onError;
    this.engine = new TaskEngine(options);
    const receive = options.receive !== false;
    client.extend(
      tasksExtension((role, declared) => {
        if (role !== 'client' || !receive) return undefined;
        const requests: JSONObject = {};
        if (declared.sampling !== undefined) requests.sampling = { createMessage: {} };
        if (declared.elicitation !== undefined) requests.elicitation = { create: {} };
        return Object.keys(requests).length === 0 ? undefined : { tasks: { list: {}, cancel: {}, requests } };
      }),
    );
    const context = (ctx: RequestContext, params: JSONObject | undefined, work: TaskWork) => new TaskRequestContext(ctx, params, work);
    const methods = new Map<string, TaskableMethod>([
      [Method.SamplingCreateMessage, { capability: ['sampling', 'createMessage'], context }],
      [Method.ElicitationCreate, { capability: ['elicitation', 'create'], context }],
    ]);
    client.onConnect((endpoint: Endpoint) => {
      this.#requestor = new TaskRequestor(endpoint, this.#onError);
      this.#support = undefined;
      if (receive) this.engine.install(endpoint, methods);
    });
    client.on(Notification.ToolsListChanged, () => {
      this.#support = undefined;
    });
  }

  /** Where the tasks this client runs for the server live. */
  get store(): TaskStore {
    return this.engine.store;
  }

  #ready(): TaskRequestor {
    if (this.#requestor === undefined || this.client.protocolVersion === undefined) throw new LocalError('not_connected', 'The client is not connected');
    return this.#requestor;
  }

  /**
   * Calls a tool as a task when the server supports it for that tool (2025-11-25: the
   * `tasks.requests.tools.call` capability and the tool's `execution.taskSupport`; older
   * revisions: the draft, racing the direct answer), otherwise as a plain call. Resolves with
   * a handle once the server answered (or the draft task exists); its `result()` is the
   * tool's `CallToolResult`, exactly as the server's `tasks/result` (or direct answer)
   * returns it. Rejects as `tools/call` does.
   */
  async callToolAsTask(
    params: { name: string; arguments?: JSONObject; _meta?: JSONObject },
    options?: TaskRequestOptions,
  ): Promise<PendingTaskRequest<CallToolResult>> {
    const requestor = this.#ready();
    let asTask = true;
    if (formOf(this.client.protocolVersion) === '2025-11-25') {
      asTask = hasCapability(this.client.serverCapabilities, ['tasks', 'requests', 'tools', 'call']) && (await this.#taskSupport(params.name)) !== 'forbidden';
    }
    return requestor.request<CallToolResult>(Method.ToolsCall, params as JSONObject, options, asTask);
  }

  async #taskSupport(name: string): Promise<string> {
    this.#support ??= this.client.listAllTools().then(
      (tools) => new Map(tools.map((t) => [t.name, taskSupportOf(t)])),
      () => new Map(),
    );
    return (await this.#support).get(name) ?? 'forbidden';
  }

  /** `tasks/get`: the task as the server reports it. Rejects with -32602 for an unknown task. */
  async getTask(taskId: string, options?: RequestOptions): Promise<TaskInfo> {
    const info = toTaskInfo(await this.#ready().endpoint.request(TaskMethod.Get, { taskId }, options));
    if (info === undefined) throw new LocalError('invalid_result', 'tasks/get answered with a malformed task');
    return info;
  }

  /**
   * `tasks/result`: the original request's result (2025-11-25 waits for the task to end;
   * the draft answers -32602 unless it completed). Rejects with the original McpError.
   */
  getTaskResult<T = JSONObject>(taskId: string, options?: RequestOptions): Promise<T> {
    try {
      return this.#ready().endpoint.request(TaskMethod.Result, { taskId }, options) as Promise<T>;
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** One page of `tasks/list`. */
  async listTasks(cursor?: string, options?: RequestOptions): Promise<TaskList> {
    const r = (await this.#ready().endpoint.request(TaskMethod.List, cursor === undefined ? undefined : { cursor }, options)) as JSONObject;
    if (!Array.isArray(r?.tasks)) throw new LocalError('invalid_result', 'tasks/list answered without a "tasks" array');
    const tasks = r.tasks.map(toTaskInfo);
    if (tasks.some((t) => t === undefined)) throw new LocalError('invalid_result', 'tasks/list answered with a malformed task');
    return typeof r.nextCursor === 'string' ? { tasks: tasks as TaskInfo[], nextCursor: r.nextCursor } : { tasks: tasks as TaskInfo[] };
  }

  /** `tasks/cancel` (2025-11-25): the cancelled task. Rejects with -32602 when it already ended. */
  async cancelTask(taskId: string, options?: RequestOptions): Promise<TaskInfo> {
    const info = toTaskInfo(await this.#ready().endpoint.request(TaskMethod.Cancel, { taskId }, options));
    if (info === undefined) throw new LocalError('invalid_result', 'tasks/cancel answered with a malformed task');
    return info;
  }

  /** `tasks/delete` (draft): deletes a finished task. */
  async deleteTask(taskId: string, options?: RequestOptions): Promise<void> {
    await this.#ready().endpoint.request(TaskMethod.Delete, { taskId }, options);
  }

  /** Stops the sweeper and ends tasks still running here as failed; does not close the store. */
  close(): Promise<void> {
    return this.engine.close();
  }
}
