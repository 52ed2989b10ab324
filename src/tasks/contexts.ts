/**
 * The contexts a task's work runs with. They are the role's own context classes (tool
 * handlers still receive a `ServerRequestContext`, client handlers a `RequestContext`), with
 * what the request-bound versions cannot do for work that outlives its request:
 *
 * - `signal` is the task's (cancellation, expiry, shutdown), not the request's;
 * - progress keeps flowing after the `CreateTaskResult` went out (the request's progress token
 *   stays valid for the task's life) and stops when the task ends;
 * - logs, sampling, elicitation and roots requests carry the related-task metadata, and
 *   sampling and elicitation mark the task `input_required` until answered.
 */
import { LocalError } from '../jsonrpc/errors.js';
import type { JSONObject } from '../jsonrpc/types.js';
import { Method, Notification } from '../protocol/methods.js';
import { type ServerConnection, ServerRequestContext } from '../server/connection.js';
import { levelPasses } from '../server/logging.js';
import { RequestContext } from '../session/context.js';
import type { RequestOptions } from '../session/session.js';
import type { CreateMessageRequestParams, CreateMessageResult, ElicitFormParams, ElicitResult, LoggingLevel, Root } from '../types.js';
import type { TaskWork } from './engine.js';

/**
 * The context of a tool handler running as a task. Made by `TaskServer`; handlers use it
 * exactly like a `ServerRequestContext`. Its methods reject as the `ServerConnection` methods
 * they wrap do, and with the task's abort reason once the task is cancelled.
 */
export class TaskServerRequestContext extends ServerRequestContext {
  /** The task this work belongs to. */
  readonly task: TaskWork;
  readonly #defaultLogLevel: LoggingLevel | undefined;
  /** The connection the task's work talks to (tasks of this form exist only on connections). */
  readonly #connection: ServerConnection;

  /** @internal Throws LocalError `method_unsupported` for a request that came without a connection. */
  constructor(base: ServerRequestContext, params: JSONObject | undefined, work: TaskWork, defaultLogLevel: LoggingLevel | undefined) {
    super(base.connection, base.session, base.id, base.method, params, base.info, base.era);
    if (base.connection === undefined) throw new LocalError('method_unsupported', 'Task-augmented requests of this form need a connection');
    this.#connection = base.connection;
    this.task = work;
    this.#defaultLogLevel = defaultLogLevel;
  }

  /** The task's id. */
  get taskId(): string {
    return this.task.taskId;
  }

  /** Fires when the task is cancelled (`tasks/cancel`, draft `notifications/cancelled`), expires, or the server shuts down. */
  override get signal(): AbortSignal {
    return this.task.signal;
  }

  /** True once the task was cancelled or ended. */
  override get cancelled(): boolean {
    return this.task.signal.aborted;
  }

  /** True once the task's work ended. */
  override get done(): boolean {
    return this.task.finished;
  }

  /** Progress for the creating request's token, valid for the task's whole life (see {@link TaskWork.sendProgress}). */
  override sendProgress(progress: number, total?: number, message?: string): Promise<void> {
    return this.task.sendProgress(progress, total, message);
  }

  /** `notifications/message` with the related-task metadata, subject to the client's log level. */
  override async log(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    const session = this.#connection;
    // The work outlives its connection: once the requestor is gone, logs have no reader.
    if (session.endpoint.session.closed || !session.endpoint.initialized || !levelPasses(level, session.logLevel ?? this.#defaultLogLevel)) return;
    const params: JSONObject = { level, data: data as JSONObject, _meta: this.task.relatedMeta() };
    if (logger !== undefined) params.logger = logger;
    const route = this.task.route();
    await session.endpoint.notify(Notification.Message, params, route === undefined ? undefined : { relatedRequestId: route });
  }

  /** Sampling for the task: `input_required` until the client answers. */
  override createMessage(params: CreateMessageRequestParams, options?: RequestOptions): Promise<CreateMessageResult> {
    return this.task.input(Method.SamplingCreateMessage, params, (p, o) => this.#connection.createMessage(p, o), options);
  }

  /** Form elicitation for the task: `input_required` until the client answers. */
  override elicitForm(params: Omit<ElicitFormParams, 'mode'>, options?: RequestOptions): Promise<ElicitResult> {
    return this.task.input(Method.ElicitationCreate, params, (p, o) => this.#connection.elicitForm(p, o), options);
  }

  /** URL elicitation for the task: `input_required` until the client answers. */
  override elicitUrl(
    params: { message: string; url: string; elicitationId?: string; _meta?: JSONObject },
    options?: RequestOptions,
  ): Promise<ElicitResult & { elicitationId: string }> {
    return this.task.input(Method.ElicitationCreate, params, (p, o) => this.#connection.elicitUrl(p, o), options);
  }

  /** `roots/list` with the related-task metadata (not an input the task waits on a user for). */
  override async listRoots(options?: RequestOptions): Promise<Root[]> {
    const result = (await this.#connection.endpoint.request(Method.RootsList, { _meta: this.task.relatedMeta() }, this.task.requestOptions(options))) as {
      roots?: unknown;
    };
    if (!Array.isArray(result?.roots)) throw new LocalError('invalid_result', 'The client answered roots/list with a malformed result');
    return result.roots as Root[];
  }
}

/**
 * The context of a client handler (sampling, elicitation) running as a task. Made by
 * `TaskClient`; handlers use it like the `RequestContext` they normally get.
 */
export class TaskRequestContext extends RequestContext {
  /** The task this work belongs to. */
  readonly task: TaskWork;

  /** @internal */
  constructor(base: RequestContext, params: JSONObject | undefined, work: TaskWork) {
    super(base.session, base.id, base.method, params, base.info);
    this.task = work;
  }

  /** The task's id. */
  get taskId(): string {
    return this.task.taskId;
  }

  /** Fires when the task is cancelled or expires. */
  override get signal(): AbortSignal {
    return this.task.signal;
  }

  override get cancelled(): boolean {
    return this.task.signal.aborted;
  }

  override get done(): boolean {
    return this.task.finished;
  }

  /** Progress for the creating request's token, valid for the task's whole life. */
  override sendProgress(progress: number, total?: number, message?: string): Promise<void> {
    return this.task.sendProgress(progress, total, message);
  }
}
