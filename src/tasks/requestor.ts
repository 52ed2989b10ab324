/**
 * The requestor side of tasks: send a request as a task and get a {@link PendingTaskRequest}
 * that resolves to the request's result, however the receiver chose to deliver it.
 *
 * Design notes:
 * - 2025-11-25: the request carries `params.task`; a `CreateTaskResult` answer starts polling
 *   (`tasks/get` at the receiver's `pollInterval`, woken early by `notifications/tasks/status`);
 *   on `input_required` the requestor calls `tasks/result` at once (the receiver's questions
 *   arrive meanwhile and are answered by this side's handlers); on a terminal status
 *   `tasks/result` returns the original result or error. A plain result means the receiver
 *   ran the request directly: the handle settles with it (graceful degradation).
 * - Draft: the requestor picks the id and races the direct response against
 *   `notifications/tasks/created` followed by polling; whichever delivers first wins. No
 *   notification, no task: the direct response is used. Cancelling aborts the original
 *   request (`notifications/cancelled`), which is how the draft cancels a task.
 * - Progress uses a token of this module's own (never a request id), so notifications that
 *   arrive after the creating request was answered still reach `onProgress`.
 * - Polling intervals are clamped to `[minPollIntervalMs, maxPollIntervalMs]` so a receiver
 *   can neither make the requestor spin nor stall it.
 */
import { LocalError, McpError, toError } from '../jsonrpc/errors.js';
import type { JSONObject } from '../jsonrpc/types.js';
import { isObject } from '../jsonrpc/values.js';
import type { Endpoint } from '../protocol/endpoint.js';
import type { Progress } from '../session/session.js';
import {
  DRAFT_RELATED_TASK_META,
  DRAFT_TASK_META,
  isTerminal,
  RELATED_TASK_META,
  TASK_CANCELLED_CODE,
  type TaskForm,
  type TaskInfo,
  TaskMethod,
  TaskNotification,
} from './types.js';
import { formOf, relatedTaskId, toTaskInfo } from './wire.js';

/** Options of one task-augmented request. */
export interface TaskRequestOptions {
  /** 2025-11-25: requested retention from creation, in ms (the receiver may shorten it). */
  ttl?: number;
  /** Draft: requested retention after completion, in ms; `null` = unlimited. */
  keepAlive?: number | null;
  /** Draft: the task id to use (default: a random UUID). */
  taskId?: string;
  /** Called with the task on creation and on every change of its status or status message. */
  onStatus?: (task: TaskInfo) => void;
  /** Receives progress of the request for the task's whole life. */
  onProgress?: (progress: Progress) => void;
  /** Aborting cancels: the task (`tasks/cancel` or, draft, `notifications/cancelled`), or the request before a task exists. */
  signal?: AbortSignal;
  /** Until the request is answered (2025-11-25) or the task exists (draft), in ms. Default: the session's (60 000). */
  timeoutMs?: number;
  /** Polling interval when the receiver suggests none, in ms. Default 1000. */
  pollIntervalMs?: number;
  /** Floor applied to the receiver's suggestion, in ms. Default 25. */
  minPollIntervalMs?: number;
  /** Ceiling applied to the receiver's suggestion, in ms. Default 30 000. */
  maxPollIntervalMs?: number;
}

interface State {
  taskId: string | undefined;
  task: TaskInfo | undefined;
  readonly form: TaskForm;
  readonly options: TaskRequestOptions;
  /** Stops polling (never cancels the task itself). */
  readonly poll: AbortController;
  /** Draft: the direct request's controller; aborting it cancels the task. */
  request?: AbortController;
  /** Wakes a polling sleep early (a status notification arrived). */
  wake?: () => void;
  /** Draft: resolves when `notifications/tasks/created` arrives. */
  created?: () => void;
  stopped: boolean;
}

/**
 * A request that resolves to its result, directly or through a task. Made by
 * {@link TaskRequestor.request}.
 */
export class PendingTaskRequest<T = JSONObject> {
  readonly #state: State | undefined;
  readonly #result: Promise<T>;
  readonly #cancel: (reason?: string) => Promise<void>;

  /** @internal */
  constructor(state: State | undefined, result: Promise<T>, cancel: (reason?: string) => Promise<void>) {
    this.#state = state;
    this.#result = result;
    this.#cancel = cancel;
    result.catch(() => {}); // a handle whose result is never awaited must not crash the process
  }

  /** The task's id; undefined when the receiver ran the request directly (no task). */
  get taskId(): string | undefined {
    return this.#state?.taskId;
  }

  /** The task as last seen (from the receiver's answers and notifications). */
  get task(): TaskInfo | undefined {
    return this.#state?.task;
  }

  /** The task's last known status; undefined without a task. */
  get status(): TaskInfo['status'] | undefined {
    return this.#state?.task?.status;
  }

  /**
   * The request's result. Rejects with the request's McpError, with LocalError `cancelled`
   * when the task was cancelled, `invalid_result` when the receiver's answers are malformed or
   * the task ended in an unknown state, or as the underlying requests reject.
   */
  result(): Promise<T> {
    return this.#result;
  }

  /**
   * Cancels the task (2025-11-25 `tasks/cancel`; draft: `notifications/cancelled` for the
   * original request) or, before a task exists, the request. A no-op once settled. Rejects
   * as `tasks/cancel` does (-32602 when the task already ended; LocalError
   * `capability_missing` when the receiver does not support cancelling).
   */
  cancel(reason?: string): Promise<void> {
    return this.#cancel(reason);
  }
}

function sleepFor(state: State, ms: number): Promise<void> {
  return new Promise((resolve) => {
    if (state.stopped) return resolve();
    const done = () => {
      clearTimeout(timer);
      state.wake = undefined;
      state.poll.signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    state.wake = done;
    state.poll.signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * Sends task-augmented requests on one connection and routes the task notifications back
 * to their handles. One per endpoint (`TaskClient` and `TaskServer` make them); listeners
 * are installed on construction.
 */
export class TaskRequestor {
  // biome-ignore lint/suspicious/noExplicitAny: either role's endpoint, whatever its context type (Endpoint<C> is invariant in C)
  readonly endpoint: Endpoint<any>;
  readonly #byTask = new Map<string, State>();
  readonly #byToken = new Map<string | number, (progress: Progress) => void>();
  readonly #onError: ((error: Error) => void) | undefined;

  constructor(
    // biome-ignore lint/suspicious/noExplicitAny: as for `endpoint` above
    endpoint: Endpoint<any>,
    onError?: (error: Error) => void,
  ) {
    this.endpoint = endpoint;
    this.#onError = onError;
    // A closed connection ends every poll at once (its next request fails fast).
    endpoint.onClose(() => {
      for (const state of this.#byTask.values()) state.poll.abort();
    });
    endpoint.on(TaskNotification.Status, (params) => {
      const info = toTaskInfo(params);
      const state = info && this.#byTask.get(info.taskId);
      if (state && state.form === '2025-11-25') {
        this.#report(state, info);
        state.wake?.();
      }
    });
    endpoint.on(TaskNotification.Created, (params) => {
      const taskId = relatedTaskId(params, DRAFT_RELATED_TASK_META);
      const state = taskId === undefined ? undefined : this.#byTask.get(taskId);
      if (state && state.form === 'draft') state.created?.();
    });
    endpoint.on('notifications/progress', (params) => {
      const listener = this.#byToken.get(params!.progressToken as string | number);
      if (listener === undefined) return;
      const p: Progress = { progress: params!.progress as number };
      if (typeof params!.total === 'number') p.total = params!.total;
      if (typeof params!.message === 'string') p.message = params!.message;
      this.#call(() => listener(p));
    });
  }

  /**
   * Sends `method` with `params` as a task when `asTask` (the caller checked the receiver
   * supports it; the draft form needs no check and degrades by itself), else as a plain
   * request. Resolves once the receiver answered (2025-11-25) or the task exists (draft),
   * with a handle; rejects as the initial request does.
   */
  async request<T = JSONObject>(method: string, params: JSONObject, options: TaskRequestOptions = {}, asTask = true): Promise<PendingTaskRequest<T>> {
    const form = formOf(this.endpoint.revision);
    let token: string | undefined;
    if (options.onProgress) {
      token = `mcpkit-task-progress-${crypto.randomUUID()}`;
      this.#byToken.set(token, options.onProgress);
    }
    const meta: JSONObject = isObject(params._meta) ? { ...params._meta } : {};
    if (token !== undefined) meta.progressToken = token;
    const forget = () => {
      if (token !== undefined) this.#byToken.delete(token);
    };
    try {
      if (asTask && form === 'draft') return await this.#draft<T>(method, params, meta, options, forget);
      return await this.#current<T>(method, params, meta, options, asTask && form === '2025-11-25', forget);
    } catch (err) {
      forget();
      throw err;
    }
  }

  async #current<T>(
    method: string,
    params: JSONObject,
    meta: JSONObject,
    options: TaskRequestOptions,
    asTask: boolean,
    forget: () => void,
  ): Promise<PendingTaskRequest<T>> {
    const wire: JSONObject = { ...params };
    if (Object.keys(meta).length > 0) wire._meta = meta;
    if (asTask) wire.task = options.ttl === undefined ? {} : { ttl: options.ttl };
    const first = await this.endpoint.request(method, wire, { signal: options.signal, timeoutMs: options.timeoutMs });
    const task = asTask && isObject(first) && isObject(first.task) ? toTaskInfo(first.task) : undefined;
    if (asTask && isObject(first) && 'task' in first && task === undefined)
      throw new LocalError('invalid_result', `${method} answered with a malformed CreateTaskResult`);
    if (task === undefined) {
      // The receiver ran the request directly.
      forget();
      return new PendingTaskRequest<T>(undefined, Promise.resolve(first as T), async () => {});
    }
    const state: State = { taskId: task.taskId, task: undefined, form: '2025-11-25', options, poll: new AbortController(), stopped: false };
    this.#byTask.set(task.taskId, state);
    this.#report(state, task);
    // tasks/cancel carries no reason; the receiver states its own in statusMessage.
    const cancel = async () => {
      if (state.stopped || isTerminal(state.task!.status)) return;
      const answer = toTaskInfo(await this.endpoint.request(TaskMethod.Cancel, { taskId: task.taskId }));
      if (answer) this.#report(state, answer);
      state.wake?.();
    };
    const onAbort = () => void cancel().catch((err) => this.#onError?.(err));
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const result = this.#poll2025<T>(state).finally(() => {
      state.stopped = true;
      this.#byTask.delete(task.taskId);
      options.signal?.removeEventListener('abort', onAbort);
      forget();
    });
    return new PendingTaskRequest<T>(state, result, cancel);
  }

  async #poll2025<T>(state: State): Promise<T> {
    const taskId = state.taskId!;
    for (;;) {
      const status = state.task!.status;
      if (isTerminal(status)) break;
      if (status === 'input_required') {
        // The receiver waits on us: its questions come while tasks/result is open.
        try {
          return await this.#payload<T>(state);
        } catch (err) {
          if (!(err instanceof LocalError && err.code === 'timeout')) throw err;
        }
      } else {
        await sleepFor(state, this.#interval(state));
      }
      if (isTerminal(state.task!.status)) continue;
      const next = toTaskInfo(await this.endpoint.request(TaskMethod.Get, { taskId }, { signal: state.poll.signal }));
      if (next === undefined) throw new LocalError('invalid_result', 'tasks/get answered with a malformed task');
      this.#report(state, next);
    }
    if (state.task!.status === 'cancelled') throw this.#cancelled(state);
    return this.#payload<T>(state);
  }

  async #payload<T>(state: State): Promise<T> {
    try {
      return (await this.endpoint.request(TaskMethod.Result, { taskId: state.taskId! }, { signal: state.poll.signal })) as T;
    } catch (err) {
      if (err instanceof McpError && err.code === TASK_CANCELLED_CODE) throw this.#cancelled(state);
      throw err;
    }
  }

  #cancelled(state: State): LocalError {
    const why = state.task?.statusMessage;
    return new LocalError('cancelled', `Task ${state.taskId} was cancelled${why ? `: ${why}` : ''}`);
  }

  async #draft<T>(method: string, params: JSONObject, meta: JSONObject, options: TaskRequestOptions, forget: () => void): Promise<PendingTaskRequest<T>> {
    const taskId = options.taskId ?? crypto.randomUUID();
    if (this.#byTask.has(taskId)) throw new LocalError('validation_failed', `Task id ${taskId} is already in use by a pending request`);
    const state: State = { taskId, task: undefined, form: 'draft', options, poll: new AbortController(), request: new AbortController(), stopped: false };
    const created = new Promise<'created'>((resolve) => (state.created = () => resolve('created')));
    this.#byTask.set(taskId, state);
    const onAbort = () => state.request!.abort(options.signal!.reason);
    const finish = () => {
      state.stopped = true;
      state.poll.abort();
      this.#byTask.delete(taskId);
      options.signal?.removeEventListener('abort', onAbort);
      forget();
    };
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
    meta[DRAFT_TASK_META] = options.keepAlive === undefined ? { taskId } : { taskId, keepAlive: options.keepAlive };
    // No session timeout on the original request: once the task exists, polling shows it is
    // alive; until then the timer below applies.
    const direct = this.endpoint.request(method, { ...params, _meta: meta }, { signal: state.request!.signal, timeoutMs: 0 });
    direct.catch(() => {});
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      state.request!.abort(new Error('timeout'));
    }, options.timeoutMs ?? 60_000);
    const first = await Promise.race([
      direct.then(
        (r) => ({ r }),
        (e: unknown) => ({ e }),
      ),
      created,
    ]);
    clearTimeout(timer);
    if (first !== 'created') {
      finish();
      if ('e' in first)
        throw timedOut ? new LocalError('timeout', `${method} got neither an answer nor a task within ${options.timeoutMs ?? 60_000} ms`) : first.e;
      // Answered directly: the receiver ignored the task, or (related metadata) finished it first.
      const related = relatedTaskId(first.r as JSONObject, DRAFT_RELATED_TASK_META);
      const done: State | undefined =
        related === undefined ? undefined : { ...state, task: { taskId, status: 'completed', raw: { taskId, status: 'completed' } } };
      return new PendingTaskRequest<T>(done, Promise.resolve(first.r as T), async () => {});
    }
    this.#report(state, { taskId, status: 'submitted', raw: { taskId, status: 'submitted' } });
    const result = new Promise<T>((resolve, reject) => {
      let settled = false;
      const settle = (f: () => void) => {
        if (settled) return;
        settled = true;
        f();
      };
      direct.then(
        (r) => settle(() => resolve(r as T)),
        (e: unknown) => settle(() => reject(e)),
      );
      this.#pollDraft<T>(state).then(
        (r) => {
          if (r !== undefined) settle(() => resolve(r.value));
        },
        (e: unknown) => settle(() => reject(e)),
      );
    }).finally(finish);
    const cancel = async (reason?: string) => {
      if (!state.stopped) state.request!.abort(new Error(reason ?? 'Cancelled by the requestor'));
    };
    return new PendingTaskRequest<T>(state, result, cancel);
  }

  /**
   * Polls a draft task until it completes (resolves `{value}` from `tasks/result`), or until
   * polling cannot tell more than the direct response will (resolves undefined).
   */
  async #pollDraft<T>(state: State): Promise<{ value: T } | undefined> {
    const taskId = state.taskId!;
    for (let polls = 0; !state.stopped; polls++) {
      if (polls > 0) await sleepFor(state, this.#interval(state));
      if (state.stopped) return undefined;
      let info: TaskInfo | undefined;
      try {
        info = toTaskInfo(await this.endpoint.request(TaskMethod.Get, { taskId }, { signal: state.poll.signal }));
      } catch (err) {
        // tasks/get unsupported, the task gone, polling stopped: the direct response decides.
        if (err instanceof McpError || (err instanceof LocalError && (err.code === 'cancelled' || err.code === 'method_unsupported'))) return undefined;
        throw err;
      }
      if (info === undefined) throw new LocalError('invalid_result', 'tasks/get answered with a malformed task');
      this.#report(state, info);
      switch (info.status) {
        case 'completed':
          try {
            return { value: (await this.endpoint.request(TaskMethod.Result, { taskId }, { signal: state.poll.signal })) as T };
          } catch {
            return undefined;
          }
        case 'cancelled':
          throw this.#cancelled(state);
        case 'unknown':
          throw new LocalError('invalid_result', `The receiver cannot tell the state of task ${taskId}${info.statusMessage ? `: ${info.statusMessage}` : ''}`);
        case 'failed':
          return undefined; // the direct response carries the error
        default:
      }
    }
    return undefined;
  }

  #interval(state: State): number {
    const o = state.options;
    const suggested = state.task?.pollIntervalMs ?? o.pollIntervalMs ?? 1000;
    return Math.min(Math.max(suggested, o.minPollIntervalMs ?? 25), o.maxPollIntervalMs ?? 30_000);
  }

  /** Records `info` as the task's state; reports a change of status or message to `onStatus`. */
  #report(state: State, info: TaskInfo): void {
    const prev = state.task;
    if (prev !== undefined && isTerminal(prev.status) && !isTerminal(info.status)) return; // a late, stale answer
    state.task = info;
    if (prev === undefined || prev.status !== info.status || prev.statusMessage !== info.statusMessage) {
      const listener = state.options.onStatus;
      if (listener) this.#call(() => listener(info));
    }
  }

  #call(f: () => void): void {
    try {
      f();
    } catch (err) {
      this.#onError?.(toError(err));
    }
  }
}

/** The related task id (either form's key) in a result's `_meta`, if any. Pure. */
export function resultTaskId(result: unknown): string | undefined {
  if (!isObject(result)) return undefined;
  return relatedTaskId(result, RELATED_TASK_META) ?? relatedTaskId(result, DRAFT_RELATED_TASK_META);
}
