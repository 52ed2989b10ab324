/**
 * The receiver side of tasks, shared by servers (task-augmented `tools/call`) and clients
 * (task-augmented `sampling/createMessage` and `elicitation/create`).
 *
 * Design notes:
 * - It plugs in through public seams only: it wraps the role's handler of each task-capable
 *   method (`Endpoint.getRequestHandler` / `setRequestHandler`, after the table checked the
 *   request), registers the `tasks/*` handlers, and the method-table entries come from the
 *   tasks extension (`wire.ts`). Capabilities are declared by the role's extension.
 * - The form is chosen per connection from the negotiated revision: 2025-11-25 answers a
 *   `params.task` request with `CreateTaskResult` at once and runs the work in the background;
 *   the draft (older revisions) keeps the original request open, sends
 *   `notifications/tasks/created`, and answers it normally when the work ends.
 * - The work runs with its own context ({@link TaskWork} + the role's context subclass): its
 *   own AbortSignal (fired by `tasks/cancel`, a draft `notifications/cancelled`, expiry or
 *   shutdown — not by the end of the request or of the connection), progress that stays valid
 *   for the task's life, and related-task metadata on everything it sends. While it waits on
 *   a request it sent (elicitation, sampling) the task is `input_required`.
 * - The store is the holder of task state. Running work is tracked in memory only to abort
 *   it and to count active tasks per owner (the concurrency cap) — with one exception, the
 *   held outcome below.
 * - Held outcomes (the final write retry). When the work ends but the store fails the write
 *   of its outcome (unreachable, timed out — not a refusal such as "already terminal"), the
 *   engine keeps the outcome in memory and retries the write with capped backoff (100 ms,
 *   doubling, at most 5 s apart) until the store accepts it. Contract:
 *   - Meanwhile `tasks/get`, `tasks/result` and `tasks/list` through this engine answer from
 *     the held outcome (the owner check still applies), and a draft creating request is
 *     answered with it; such an answer acknowledges the outcome.
 *   - The retry ends when the store accepts the write (then `notifications/tasks/status`
 *     goes out, as for any final write), when the store refuses it because the task ended or
 *     vanished meanwhile (cancelled or failed elsewhere, expired; the held outcome is dropped
 *     and reported to `onError` if it had been acknowledged), when the task's ttl is over
 *     (it is gone everywhere then), or at {@link TaskEngine.close} (one last attempt).
 *   - An outcome nobody was told about yet is retried for at most `outcomeRetryMs`; then it
 *     is replaced by `failed` (-32603, a message saying the outcome could not be stored),
 *     which is answered here and retried the same way, so that other instances learn the
 *     task ended once the store is back. An acknowledged outcome is never replaced (terminal
 *     states never change for the requestor); it is retried until the ttl or close.
 *   - This instance keeps renewing its liveness (a shared store's heartbeat) while an
 *     outcome is held: the task is not lost, only late, so other instances report `working`
 *     — truthfully: the outcome exists and reaches the store within one backoff step (≤ 5 s)
 *     of the store answering again. Were the process to die first, its heartbeat lapses and
 *     other instances end the task as "the instance stopped; outcome unknown", which is what
 *     is then true. Stopping the heartbeat per task would not help: while the store is
 *     unreachable no instance can read the task at all, and once it is reachable the held
 *     write lands.
 * - `tasks/result` waits on in-process change events, with a periodic re-read as a backstop,
 *   and all timers are unref'd so they never keep a process alive.
 */
import { invalidParams, McpError, methodNotFound, toError } from '../jsonrpc/errors.js';
import { ErrorCode, type JSONObject, type JSONRPCErrorObject, type RequestId } from '../jsonrpc/types.js';
import { isObject } from '../jsonrpc/values.js';
import type { Endpoint, RequestHandler } from '../protocol/endpoint.js';
import { hasCapability } from '../protocol/table.js';
import type { RequestContext } from '../session/context.js';
import type { RequestOptions } from '../session/session.js';
import { InMemoryTaskStore } from './memory-store.js';
import { type OwnerPolicy, ownerBySessionAndAuth } from './owner.js';
import { applyPatch, isExpired, ownerKey, ownerMatches, type TaskChange, type TaskPatch, type TaskStore, TaskStoreError } from './store.js';
import {
  DRAFT_RELATED_TASK_META,
  DRAFT_TASK_META,
  isTerminal,
  TASK_CANCELLED_CODE,
  type TaskForm,
  TaskMethod,
  TaskNotification,
  type TaskOwner,
  type TaskRecord,
  type TaskStatus,
} from './types.js';
import { errorObject, formOf, paramsWithRelatedMeta, relatedKey, toDraftTask, toMcpError, toTask, withRelatedMeta } from './wire.js';

/** An endpoint whatever the context type of its handlers (inside the engine: the public members spell it out). */
// biome-ignore lint/suspicious/noExplicitAny: Endpoint<C> takes C in and out (invariant), so no one context type covers every endpoint
type AnyEndpoint = Endpoint<any>;

/** Options of the receiver side (shared by `TaskServer` and `TaskClient`). */
export interface TaskReceiverOptions {
  /** Where tasks live. Default: a new {@link InMemoryTaskStore}. */
  store?: TaskStore;
  /** Retention when the requestor asks for none (2025-11-25 `ttl`, draft `keepAlive`), in ms; `null` = unlimited. Default 3 600 000 (1 h). */
  defaultTtlMs?: number | null;
  /** Longest retention granted; longer requests are shortened (the spec lets receivers override). `null` = unlimited. Default 86 400 000 (24 h). */
  maxTtlMs?: number | null;
  /** Shortest retention granted, so a task does not vanish before it can be polled. Default 1000. */
  minTtlMs?: number;
  /** Polling interval suggested to requestors, in ms. Default 1000. */
  pollIntervalMs?: number;
  /** Most unfinished tasks one owner may have at once; more are refused with -32600. Default 16. */
  maxActiveTasksPerOwner?: number;
  /** Tasks per `tasks/list` page. Default 50. */
  pageSize?: number;
  /** Send `notifications/tasks/status` on every status change (2025-11-25). Default true. */
  statusNotifications?: boolean;
  /** Accept the draft form on connections that negotiated a revision before 2025-11-25. Default true. */
  draft?: boolean;
  /** Who owns a request's tasks. Default {@link ownerBySessionAndAuth}. */
  ownerOf?: OwnerPolicy;
  /** How often expired tasks are swept, in ms (0: never). Default 60 000. */
  sweepIntervalMs?: number;
  /** Most tasks deleted per sweep. Default 100. */
  sweepBatch?: number;
  /**
   * How long the outcome of a task whose final write the store failed is retried before it
   * is replaced by `failed` (unless it was already acknowledged; see the engine's design
   * notes), in ms. Default 300 000 (5 min).
   */
  outcomeRetryMs?: number;
  /** Receives failures nobody else is told about (store errors, crashed handlers). */
  onError?: (error: Error) => void;
}

/** How one request method takes part in tasks on a receiver. */
export interface TaskableMethod<C extends RequestContext = RequestContext> {
  /** Path below `tasks.requests` declaring 2025-11-25 support, e.g. `['tools', 'call']`. */
  readonly capability: readonly string[];
  /**
   * Whether a request runs as a task (`requested`: the requestor asked for one). Throws an
   * McpError to refuse the request. Default: exactly when requested.
   */
  decide?(params: JSONObject | undefined, requested: boolean, form: TaskForm): boolean;
  /** The context the handler runs with when the request runs as a task. */
  context(ctx: C, params: JSONObject | undefined, work: TaskWork): C;
}

/**
 * Where {@link TaskEngine} installs its handlers: one connection's endpoint, or a table
 * every connection of a role shares.
 */
export interface TaskHandlerTable<C extends RequestContext = RequestContext> {
  /** Replaces the handler of `method` by `wrap(current)` (nothing when there is none) — also when it is replaced later, where the table can. */
  wrap(method: string, wrap: (inner: RequestHandler<C>) => RequestHandler<C>): void;
  /** Sets the handler of `method`. */
  set(method: string, handler: RequestHandler<C>): void;
}

const RECHECK_MS = 1000;
/** First and longest wait between attempts to store a held outcome. */
const OUTCOME_RETRY_FIRST_MS = 100;
const OUTCOME_RETRY_MAX_MS = 5000;

/** An outcome the store failed to take: answered from memory and retried (see the engine's design notes). */
interface HeldOutcome {
  readonly work: TaskWork;
  /** The task as this engine answers it meanwhile (the patch applied to the created record). */
  record: TaskRecord;
  patch: TaskPatch;
  /** When an unacknowledged outcome is replaced by `failed`. */
  readonly failAt: number;
  /** Told to someone (a tasks/* answer, the draft creating request): never replaced. */
  acknowledged: boolean;
  delay: number;
  timer: ReturnType<typeof setTimeout> | undefined;
}

function unref(timer: ReturnType<typeof setTimeout>): void {
  (timer as { unref?: () => void }).unref?.();
}

function withoutTask(params: JSONObject): JSONObject {
  const { task: _task, ...rest } = params;
  return rest;
}

function withoutDraftMeta(params: JSONObject): JSONObject {
  const meta = params._meta as JSONObject;
  const { [DRAFT_TASK_META]: _task, ...restMeta } = meta;
  const { _meta: _old, ...rest } = params;
  return Object.keys(restMeta).length === 0 ? rest : { ...rest, _meta: restMeta };
}

/** True for the forms this engine serves (a store may also hold the stateless era's tasks). */
function isEngineForm(form: TaskForm): boolean {
  return form === 'draft' || form === '2025-11-25';
}

function notFound(): McpError {
  return invalidParams('Failed to retrieve task: Task not found');
}

function firstText(result: JSONObject | undefined): string | undefined {
  const content = result?.content;
  if (!Array.isArray(content)) return undefined;
  for (const c of content) if (isObject(c) && c.type === 'text' && typeof c.text === 'string') return c.text;
  return undefined;
}

/**
 * One running task: what its work needs to talk to the requestor. Made by the engine; the
 * role's task context delegates to it. Methods reject as the endpoint's `notify`/`request` do.
 */
export class TaskWork {
  readonly taskId: string;
  readonly form: TaskForm;
  /** The method of the task-augmented request. */
  readonly method: string;
  /** The connection the task was created on (its messages go there). */
  // biome-ignore lint/suspicious/noExplicitAny: either role's endpoint, whatever its context type (Endpoint<C> is invariant in C)
  readonly endpoint: Endpoint<any>;
  /** The id of the request that created the task. */
  readonly requestId: RequestId;
  /** The progress token of that request, if any. */
  readonly progressToken: string | number | undefined;
  /** @internal */
  readonly ownerKey: string;
  /** @internal */
  readonly expiresAt: number | null;
  /** @internal last status written by the engine */
  status: TaskStatus;
  readonly #engine: TaskEngine;
  readonly #controller = new AbortController();
  #requestOpen: boolean;
  #finished = false;
  #lastProgress = -Infinity;

  /** @internal */
  constructor(
    engine: TaskEngine,
    // biome-ignore lint/suspicious/noExplicitAny: as for `endpoint` above
    endpoint: Endpoint<any>,
    record: TaskRecord,
    key: string,
    requestId: RequestId,
    progressToken: string | number | undefined,
    requestOpen: boolean,
  ) {
    this.#engine = engine;
    this.endpoint = endpoint;
    this.taskId = record.taskId;
    this.form = record.form;
    this.method = record.method;
    this.status = record.status;
    this.expiresAt = record.expiresAt;
    this.ownerKey = key;
    this.requestId = requestId;
    this.progressToken = progressToken;
    this.#requestOpen = requestOpen;
  }

  /** Fires when the task is cancelled, expires or the receiver shuts down. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** True once the work ended (or was aborted): nothing more is sent for it. */
  get finished(): boolean {
    return this.#finished || this.#controller.signal.aborted;
  }

  /** The related-task `_meta` member of this task's form. */
  relatedMeta(): JSONObject {
    return { [relatedKey(this.form)]: { taskId: this.taskId } };
  }

  /**
   * The request id messages of this task are sent "on behalf of" (a routing hint for HTTP):
   * the creating request while it is open (draft), else a `tasks/result` waiting for this
   * task on the same connection, else none.
   */
  route(): RequestId | undefined {
    return this.#requestOpen ? this.requestId : this.#engine.waitingResult(this);
  }

  /**
   * Sends `notifications/progress` for the creating request's token, with the related-task
   * metadata. A no-op without a token, once finished, or when `progress` does not increase.
   */
  async sendProgress(progress: number, total?: number, message?: string): Promise<void> {
    const token = this.progressToken;
    // The work outlives its connection: once the requestor is gone, progress has no reader.
    if (token === undefined || this.finished || this.endpoint.session.closed || !(progress > this.#lastProgress)) return;
    this.#lastProgress = progress;
    const params: JSONObject = { progressToken: token, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    params._meta = this.relatedMeta();
    const route = this.route();
    await this.endpoint.notify('notifications/progress', params, route === undefined ? undefined : { relatedRequestId: route });
  }

  /**
   * Sends a request the task needs an answer to (elicitation, sampling) through `send`, with
   * the related-task metadata added to `params`, the task's signal and routing; the task is
   * `input_required` until every such request is answered.
   */
  async input<P extends object, T>(
    method: string,
    params: P,
    send: (params: P & { _meta: JSONObject }, options: RequestOptions) => Promise<T>,
    options?: RequestOptions,
  ): Promise<T> {
    const wire = paramsWithRelatedMeta(params, this.form, this.taskId);
    const key = crypto.randomUUID();
    await this.#engine.inputStarted(this, key, { method, params: wire as unknown as JSONObject });
    try {
      return await send(wire, this.requestOptions(options));
    } finally {
      await this.#engine.inputEnded(this, key);
    }
  }

  /** `options` with the task's signal (combined with the caller's) and routing. */
  requestOptions(options?: RequestOptions): RequestOptions {
    const signal = options?.signal === undefined ? this.signal : anySignal(this.signal, options.signal);
    const route = this.route();
    return route === undefined ? { ...options, signal } : { ...options, signal, relatedRequestId: route };
  }

  /** @internal */
  abort(reason: string): void {
    this.#controller.abort(new Error(reason));
  }

  /** @internal */
  finish(): void {
    this.#finished = true;
  }

  /** @internal the creating request was answered */
  requestAnswered(): void {
    this.#requestOpen = false;
  }
}

function anySignal(a: AbortSignal, b: AbortSignal): AbortSignal {
  const any = (AbortSignal as { any?: (signals: AbortSignal[]) => AbortSignal }).any;
  if (any) return any([a, b]);
  const c = new AbortController();
  const abort = (s: AbortSignal) => () => c.abort(s.reason);
  if (a.aborted || b.aborted) c.abort((a.aborted ? a : b).reason);
  else {
    a.addEventListener('abort', abort(a), { once: true });
    b.addEventListener('abort', abort(b), { once: true });
  }
  return c.signal;
}

interface ResultWaiter {
  endpoint: AnyEndpoint;
  id: RequestId;
}

/**
 * The receiver engine: creates and runs tasks, answers `tasks/*`. One per server or client
 * object, shared by all its connections; installed on each connection with {@link install}.
 */
export class TaskEngine {
  /** The store all tasks of this engine live in. */
  readonly store: TaskStore;
  readonly #defaultTtl: number | null;
  readonly #maxTtl: number | null;
  readonly #minTtl: number;
  readonly #pollInterval: number;
  readonly #maxActive: number;
  readonly #pageSize: number;
  readonly #statusNotifications: boolean;
  readonly #draft: boolean;
  readonly #ownerOf: OwnerPolicy;
  readonly #sweepBatch: number;
  readonly #onError: ((error: Error) => void) | undefined;
  readonly #running = new Map<string, TaskWork>();
  readonly #active = new Map<string, number>();
  readonly #waiters = new Map<string, Set<() => void>>();
  readonly #resultWaiters = new Map<string, ResultWaiter[]>();
  readonly #held = new Map<string, HeldOutcome>();
  readonly #outcomeRetry: number;
  readonly #timer: ReturnType<typeof setInterval> | undefined;
  readonly #unwatch: (() => void) | undefined;
  #closed = false;

  constructor(options: TaskReceiverOptions = {}) {
    this.store = options.store ?? new InMemoryTaskStore();
    this.#defaultTtl = options.defaultTtlMs === undefined ? 3_600_000 : options.defaultTtlMs;
    this.#maxTtl = options.maxTtlMs === undefined ? 86_400_000 : options.maxTtlMs;
    this.#minTtl = options.minTtlMs ?? 1000;
    this.#pollInterval = options.pollIntervalMs ?? 1000;
    this.#maxActive = options.maxActiveTasksPerOwner ?? 16;
    this.#pageSize = options.pageSize ?? 50;
    this.#statusNotifications = options.statusNotifications ?? true;
    this.#draft = options.draft ?? true;
    this.#ownerOf = options.ownerOf ?? ownerBySessionAndAuth;
    this.#sweepBatch = options.sweepBatch ?? 100;
    this.#onError = options.onError;
    this.#outcomeRetry = options.outcomeRetryMs ?? 300_000;
    if (!(Number.isInteger(this.#outcomeRetry) && this.#outcomeRetry >= 0)) throw new RangeError('outcomeRetryMs must be a non-negative integer');
    for (const [name, v] of [
      ['maxActiveTasksPerOwner', this.#maxActive],
      ['pageSize', this.#pageSize],
    ] as const) {
      if (!(Number.isInteger(v) && v >= 1)) throw new RangeError(`${name} must be a positive integer`);
    }
    this.#unwatch = this.store.watch?.((change) => this.#changedElsewhere(change));
    const interval = options.sweepIntervalMs ?? 60_000;
    if (interval > 0) {
      this.#timer = setInterval(() => void this.sweep().catch((err) => this.#report(err)), interval);
      unref(this.#timer);
    }
  }

  /** Number of tasks whose work runs in this process now. */
  get running(): number {
    return this.#running.size;
  }

  /** Number of task outcomes held in memory because the store failed to take them (retried; see the design notes). */
  get heldOutcomes(): number {
    return this.#held.size;
  }

  /**
   * Installs the engine on one connection: wraps the handlers of `methods` (which the role
   * must have registered already) and registers `tasks/get|result|list|cancel|delete`. Call
   * from the role's `onConnect`, before the connection starts. A role whose connections share
   * one handler table uses {@link installShared} instead (no handlers per connection).
   */
  install<C extends RequestContext>(endpoint: Endpoint<C>, methods: ReadonlyMap<string, TaskableMethod<C>>): void {
    const table: TaskHandlerTable<C> = {
      wrap: (method, wrap) => {
        const inner = endpoint.getRequestHandler(method);
        if (inner !== undefined) endpoint.setRequestHandler(method, wrap(inner));
      },
      set: (method, handler) => endpoint.setRequestHandler(method, handler),
    };
    this.installShared(table, methods, () => endpoint);
  }

  /**
   * Installs the engine once for every connection of a role whose connections share one
   * handler table (the server's): wraps `methods` in `table` and adds the `tasks/*`
   * handlers to it, each finding its connection with `endpointOf` — a request without one
   * (none of the engine's revisions) is served by the plain handler, and `tasks/*` get -32601.
   */
  installShared<C extends RequestContext>(
    table: TaskHandlerTable<C>,
    methods: ReadonlyMap<string, TaskableMethod<C>>,
    endpointOf: (ctx: C) => Endpoint<C> | undefined,
  ): void {
    for (const [method, spec] of methods) {
      const declared = ['tasks', 'requests', ...spec.capability];
      table.wrap(method, (inner) => (params, ctx) => {
        const endpoint = endpointOf(ctx);
        return endpoint === undefined ? inner(params, ctx) : this.#dispatch(endpoint, method, spec, declared, inner, params, ctx);
      });
    }
    // The table decides which of these exist in the negotiated revision; a form this engine
    // does not speak (the draft, when turned off) has none of them.
    const spoken = <R>(method: string, handler: (endpoint: Endpoint<C>, p: JSONObject | undefined, ctx: C) => Promise<R>) =>
      table.set(method, (p, ctx) => {
        const endpoint = endpointOf(ctx);
        if (endpoint === undefined || this.#form(endpoint) === undefined) throw methodNotFound(method);
        return handler(endpoint, p, ctx);
      });
    spoken(TaskMethod.Get, (endpoint, p, ctx) => this.#get(endpoint, p!.taskId as string, ctx));
    spoken(TaskMethod.Result, (endpoint, p, ctx) => this.#result(endpoint, p!.taskId as string, ctx));
    spoken(TaskMethod.List, (endpoint, p, ctx) => this.#list(endpoint, p?.cursor as string | undefined, ctx));
    spoken(TaskMethod.Cancel, (_endpoint, p, ctx) => this.#cancelRequest(p!.taskId as string, ctx));
    spoken(TaskMethod.Delete, (_endpoint, p, ctx) => this.#delete(p!.taskId as string, ctx));
  }

  #form(endpoint: AnyEndpoint): TaskForm | undefined {
    const form = formOf(endpoint.revision);
    return form === 'draft' && !this.#draft ? undefined : form;
  }

  /**
   * Runs one request of a taskable method: as a task when it asks for one (and `spec`
   * agrees), else the plain handler `inner` directly — no extra promise or frame on that
   * path, the common one. `declared` is the capability path of 2025-11-25 support. May throw
   * (the endpoint answers a throw like a rejection).
   */
  #dispatch<C extends RequestContext>(
    endpoint: Endpoint<C>,
    method: string,
    spec: TaskableMethod<C>,
    declared: readonly string[],
    inner: RequestHandler<C>,
    params: JSONObject | undefined,
    ctx: C,
  ): Promise<unknown> | unknown {
    const form = this.#form(endpoint);
    if (form === '2025-11-25') {
      // Receivers that did not declare task support for a request type process it normally.
      if (!hasCapability(endpoint.ownCapabilities, declared)) return inner(params, ctx);
      const requested = isObject(params?.task);
      const asTask = spec.decide ? spec.decide(params, requested, form) : requested;
      if (!asTask) return inner(requested ? withoutTask(params!) : params, ctx);
      return this.#start(endpoint, method, spec, inner, params!, ctx);
    }
    if (form === 'draft') {
      const meta = isObject(params?._meta) ? params._meta[DRAFT_TASK_META] : undefined;
      if (meta === undefined || !(spec.decide ? spec.decide(params, true, form) : true)) return inner(params, ctx);
      return this.#startDraft(endpoint, method, spec, inner, params!, meta, ctx);
    }
    return inner(params, ctx);
  }

  // ───────────── creation ─────────────

  #retention(value: unknown, field: string, allowNull: boolean): number | null {
    let ttl: number | null;
    if (value === undefined) ttl = this.#defaultTtl;
    else if (value === null && allowNull) ttl = null;
    else if (typeof value === 'number' && Number.isInteger(value) && value >= 0) ttl = value;
    else throw invalidParams(`Invalid params: "${field}" must be a non-negative integer${allowNull ? ' or null' : ''}`);
    if (ttl === null) return this.#maxTtl;
    if (this.#maxTtl !== null) ttl = Math.min(ttl, this.#maxTtl);
    return Math.max(ttl, this.#minTtl);
  }

  #reserve(key: string): void {
    const n = this.#active.get(key) ?? 0;
    if (n >= this.#maxActive) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        `Too many unfinished tasks for this requestor (limit ${this.#maxActive}); wait for one to finish or cancel one`,
      );
    }
    this.#active.set(key, n + 1);
  }

  #release(key: string): void {
    const n = (this.#active.get(key) ?? 1) - 1;
    if (n <= 0) this.#active.delete(key);
    else this.#active.set(key, n);
  }

  async #owner(ctx: RequestContext): Promise<TaskOwner> {
    return this.#ownerOf(ctx);
  }

  async #start<C extends RequestContext>(
    endpoint: Endpoint<C>,
    method: string,
    spec: TaskableMethod<C>,
    inner: RequestHandler<C>,
    params: JSONObject,
    ctx: C,
  ): Promise<JSONObject> {
    if (this.#closed) throw new McpError(ErrorCode.InternalError, 'The task receiver is shut down');
    const ttlMs = this.#retention((params.task as JSONObject).ttl, 'task.ttl', false);
    const owner = await this.#owner(ctx);
    const key = ownerKey(owner);
    this.#reserve(key);
    let record: TaskRecord;
    try {
      record = await this.store.create({
        taskId: crypto.randomUUID(),
        status: 'working',
        ttlMs,
        ttlAnchor: 'created',
        pollIntervalMs: this.#pollInterval,
        owner,
        method,
        form: '2025-11-25',
        requestId: ctx.id,
      });
    } catch (err) {
      this.#release(key);
      throw this.#storeFailure(err);
    }
    if (ctx.cancelled) {
      // The requestor cancelled the request before learning the task's id: nobody could
      // ever poll this task, so it ends before its work starts.
      this.#release(key);
      await this.store
        .update(record.taskId, {
          status: 'cancelled',
          statusMessage: 'The creating request was cancelled',
          error: { code: TASK_CANCELLED_CODE, message: 'Task cancelled: the creating request was cancelled' },
        })
        .catch((err) => this.#report(err));
      throw new McpError(ErrorCode.InternalError, 'Request cancelled');
    }
    const stripped = withoutTask(params);
    const work = new TaskWork(this, endpoint, record, key, ctx.id, progressTokenOf(stripped), false);
    this.#running.set(record.taskId, work);
    const workCtx = spec.context(ctx, stripped, work);
    // The work starts after the CreateTaskResult went out, so the requestor knows the task
    // before anything the work sends.
    setTimeout(() => void this.#execute(work, record, inner, stripped, workCtx), 0);
    return { task: toTask(record) as unknown as JSONObject };
  }

  async #startDraft<C extends RequestContext>(
    endpoint: Endpoint<C>,
    method: string,
    spec: TaskableMethod<C>,
    inner: RequestHandler<C>,
    params: JSONObject,
    meta: unknown,
    ctx: C,
  ): Promise<unknown> {
    if (this.#closed) throw new McpError(ErrorCode.InternalError, 'The task receiver is shut down');
    if (!isObject(meta) || typeof meta.taskId !== 'string' || meta.taskId.length === 0 || meta.taskId.length > 256) {
      throw invalidParams(`Invalid params: "_meta.${DRAFT_TASK_META}.taskId" must be a string of 1 to 256 characters`);
    }
    const taskId = meta.taskId;
    const ttlMs = this.#retention(meta.keepAlive, `_meta.${DRAFT_TASK_META}.keepAlive`, true);
    const owner = await this.#owner(ctx);
    const key = ownerKey(owner);
    this.#reserve(key);
    let record: TaskRecord;
    try {
      record = await this.store.create({
        taskId,
        status: 'submitted',
        ttlMs,
        ttlAnchor: 'terminal',
        pollIntervalMs: this.#pollInterval,
        owner,
        method,
        form: 'draft',
        requestId: ctx.id,
      });
    } catch (err) {
      this.#release(key);
      if (err instanceof TaskStoreError && err.code === 'duplicate') throw invalidParams(`Task ID already exists: ${taskId}`);
      throw this.#storeFailure(err);
    }
    const stripped = withoutDraftMeta(params);
    const work = new TaskWork(this, endpoint, record, key, ctx.id, progressTokenOf(stripped), true);
    this.#running.set(taskId, work);
    const workCtx = spec.context(ctx, stripped, work);
    // Draft cancellation: notifications/cancelled for the creating request. A closed
    // connection also aborts the request, but must not end a durable task.
    const onAbort = () => {
      if (!ctx.session.closed) void this.#cancel(taskId, 'The requestor cancelled the request').catch(() => {});
    };
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    try {
      await endpoint
        .notify(TaskNotification.Created, { _meta: { [DRAFT_RELATED_TASK_META]: { taskId } } }, { relatedRequestId: ctx.id })
        .catch((err) => this.#report(err));
      await this.#set(work, { status: 'working' });
      const final = await this.#execute(work, record, inner, stripped, workCtx);
      const held = this.#held.get(taskId);
      if (held !== undefined && final === held.record) held.acknowledged = true;
      if (final?.status === 'completed') return withRelatedMeta(final.result, 'draft', taskId);
      throw toMcpError(final?.error ?? { code: ErrorCode.InternalError, message: 'Internal error' });
    } finally {
      ctx.signal.removeEventListener('abort', onAbort);
      work.requestAnswered();
    }
  }

  async #execute<C extends RequestContext>(
    work: TaskWork,
    created: TaskRecord,
    inner: RequestHandler<C>,
    params: JSONObject,
    ctx: C,
  ): Promise<TaskRecord | undefined> {
    let result: JSONObject | undefined;
    let error: JSONRPCErrorObject | undefined;
    try {
      if (work.signal.aborted) throw work.signal.reason;
      const r = await inner(params, ctx);
      result = isObject(r) ? r : {};
    } catch (err) {
      error = errorObject(err);
      if (!(err instanceof McpError) && !work.signal.aborted) this.#report(err);
    }
    // isError tool results: 2025-11-25 calls the task failed; the draft calls it completed.
    const failed = error !== undefined || (work.form === '2025-11-25' && work.method === 'tools/call' && result?.isError === true);
    const statusMessage = error?.message ?? (failed ? firstText(result) : undefined);
    try {
      const patch: TaskPatch = {
        status: failed ? 'failed' : 'completed',
        ...(statusMessage === undefined ? {} : { statusMessage }),
        ...(error === undefined ? { result } : { error }),
      };
      let stored: TaskRecord | undefined;
      try {
        stored = await this.#set(work, patch);
      } catch (err) {
        // The store failed the final write (not a refusal): hold the outcome and retry.
        this.#report(err);
        return this.#hold(work, created, patch).record;
      }
      return stored ?? (await this.store.get(work.taskId));
    } catch (err) {
      this.#report(err);
      return undefined;
    } finally {
      this.#running.delete(work.taskId);
      this.#release(work.ownerKey);
      work.finish();
      this.#wake(work.taskId);
    }
  }

  /**
   * Applies `patch` to the task of `work` and announces a status change. Resolves undefined
   * when the store refuses because the task ended or vanished meanwhile (cancelled, expired).
   */
  async #set(work: TaskWork, patch: Parameters<TaskStore['update']>[1]): Promise<TaskRecord | undefined> {
    try {
      const record = await this.store.update(work.taskId, patch);
      this.#changed(work, record);
      return record;
    } catch (err) {
      if (err instanceof TaskStoreError && (err.code === 'terminal' || err.code === 'not_found')) return undefined;
      throw err;
    }
  }

  // ───────────── held outcomes (the final write retry) ─────────────

  #hold(work: TaskWork, created: TaskRecord, patch: TaskPatch): HeldOutcome {
    const now = Date.now();
    const held: HeldOutcome = {
      work,
      record: applyPatch(created, patch, now),
      patch,
      failAt: now + this.#outcomeRetry,
      acknowledged: false,
      delay: OUTCOME_RETRY_FIRST_MS,
      timer: undefined,
    };
    this.#held.set(work.taskId, held);
    this.#report(
      new Error(
        `Task ${work.taskId}: the task store failed to take its outcome (${patch.status}); it is held in memory and retried until the store accepts it`,
      ),
    );
    this.#scheduleRetry(held);
    return held;
  }

  #scheduleRetry(held: HeldOutcome): void {
    if (this.#closed) return;
    held.timer = setTimeout(() => void this.#retryOutcome(held), held.delay);
    unref(held.timer);
    held.delay = Math.min(held.delay * 2, OUTCOME_RETRY_MAX_MS);
  }

  #dropHeld(held: HeldOutcome): void {
    if (held.timer !== undefined) clearTimeout(held.timer);
    held.timer = undefined;
    if (this.#held.get(held.work.taskId) === held) this.#held.delete(held.work.taskId);
    this.#wake(held.work.taskId);
  }

  /** One attempt to store `held`; true when it is settled (stored, refused, expired). */
  async #storeHeld(held: HeldOutcome): Promise<boolean> {
    const taskId = held.work.taskId;
    const now = Date.now();
    if (isExpired(held.record.expiresAt, now)) {
      this.#dropHeld(held);
      return true;
    }
    if (!held.acknowledged && now >= held.failAt && held.patch.status !== 'failed') {
      const message = `The task finished, but its outcome could not be stored within ${this.#outcomeRetry} ms (the task store was unreachable); run the request again`;
      held.patch = { status: 'failed', statusMessage: message, error: { code: ErrorCode.InternalError, message } };
      held.record = applyPatch({ ...held.record, status: 'working' }, held.patch, now);
      delete (held.record as { result?: JSONObject }).result;
      this.#report(new Error(`Task ${taskId}: ${message}; it is now answered as failed`));
    }
    let record: TaskRecord;
    try {
      record = await this.store.update(taskId, held.patch);
    } catch (err) {
      if (err instanceof TaskStoreError && (err.code === 'terminal' || err.code === 'not_found')) {
        // Ended elsewhere (cancelled, failed by another instance), expired, or an earlier attempt landed after all.
        if (held.acknowledged) {
          const current = await this.store.get(taskId).catch(() => undefined);
          if (current?.status !== held.record.status)
            this.#report(
              new Error(
                `Task ${taskId}: its ${held.record.status} outcome, already answered from memory, could not be stored: the store holds ${current?.status ?? 'no such task'}`,
              ),
            );
        }
        this.#dropHeld(held);
        return true;
      }
      this.#report(err);
      return false;
    }
    this.#dropHeld(held);
    this.#changed(held.work, record);
    return true;
  }

  async #retryOutcome(held: HeldOutcome): Promise<void> {
    held.timer = undefined;
    if (this.#held.get(held.work.taskId) !== held || this.#closed) return;
    if (!(await this.#storeHeld(held))) this.#scheduleRetry(held);
  }

  /** The held outcome of `taskId` when `owner` may see it; marks it acknowledged. */
  #heldFor(taskId: string, owner: TaskOwner): TaskRecord | undefined {
    const held = this.#held.get(taskId);
    if (held === undefined || !ownerMatches(held.record.owner, owner) || isExpired(held.record.expiresAt, Date.now())) return undefined;
    held.acknowledged = true;
    return held.record;
  }

  /** @internal the work sent a request it waits on */
  async inputStarted(work: TaskWork, key: string, request: JSONObject): Promise<void> {
    await this.#tolerant(work, () => this.store.addInputRequest(work.taskId, key, request));
  }

  /** @internal that request was answered (or failed) */
  async inputEnded(work: TaskWork, key: string): Promise<void> {
    await this.#tolerant(work, () => this.store.resolveInputRequest(work.taskId, key));
  }

  async #tolerant(work: TaskWork, op: () => Promise<TaskRecord>): Promise<void> {
    try {
      this.#changed(work, await op());
    } catch (err) {
      if (!(err instanceof TaskStoreError && (err.code === 'terminal' || err.code === 'not_found'))) this.#report(err);
    }
  }

  /** @internal a pending `tasks/result` for `work`'s task on its connection, for routing */
  waitingResult(work: TaskWork): RequestId | undefined {
    const list = this.#resultWaiters.get(work.taskId);
    if (list) for (const w of list) if (w.endpoint === work.endpoint) return w.id;
    return undefined;
  }

  #changed(work: TaskWork | undefined, record: TaskRecord): void {
    this.#wake(record.taskId);
    if (work === undefined || work.status === record.status) return;
    work.status = record.status;
    const ep = work.endpoint;
    if (!this.#statusNotifications || record.form !== '2025-11-25' || this.#form(ep) !== '2025-11-25' || ep.session.closed) return;
    ep.notify(TaskNotification.Status, toTask(record) as unknown as JSONObject).catch((err) => this.#report(err));
  }

  #wake(taskId: string): void {
    const set = this.#waiters.get(taskId);
    if (set === undefined) return;
    this.#waiters.delete(taskId);
    for (const wake of set) wake();
  }

  /** Resolves on the next change of `taskId`, after `ms`, or when `signal` aborts. */
  #nextChange(taskId: string, signal: AbortSignal, ms: number): Promise<void> {
    return new Promise((resolve) => {
      let set = this.#waiters.get(taskId);
      if (set === undefined) this.#waiters.set(taskId, (set = new Set()));
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        const current = this.#waiters.get(taskId);
        if (current?.delete(done) && current.size === 0) this.#waiters.delete(taskId);
        resolve();
      };
      const timer = setTimeout(done, ms);
      unref(timer);
      set.add(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  // ───────────── cancellation, expiry, shutdown ─────────────

  /** A shared store saw a change (maybe made by another process): stop work whose task ended, wake waiters. */
  #changedElsewhere(change: TaskChange): void {
    if (isTerminal(change.status))
      this.#running.get(change.taskId)?.abort(change.status === 'cancelled' ? 'The task was cancelled' : `The task ended as ${change.status}`);
    this.#wake(change.taskId);
  }

  async #cancel(taskId: string, message: string): Promise<TaskRecord> {
    const record = await this.store.update(taskId, {
      status: 'cancelled',
      statusMessage: message,
      error: { code: TASK_CANCELLED_CODE, message: `Task cancelled: ${message}` },
    });
    const work = this.#running.get(taskId);
    work?.abort(message);
    this.#changed(work, record);
    if (work === undefined) this.#wake(taskId);
    return record;
  }

  /**
   * Deletes up to `sweepBatch` expired tasks and aborts running work whose task expired.
   * Runs on a timer (`sweepIntervalMs`); callable directly. Resolves with the number deleted.
   */
  async sweep(): Promise<number> {
    const now = Date.now();
    for (const work of this.#running.values()) if (work.expiresAt !== null && work.expiresAt <= now) work.abort('The task expired');
    return this.store.sweep(this.#sweepBatch);
  }

  /**
   * Stops the sweep timer and ends every task still running here as `failed` ("the receiver
   * shut down"), aborting its work. Does not close the store (its owner does). Idempotent.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#unwatch?.();
    const message = 'The receiver shut down while this task was running';
    for (const work of [...this.#running.values()]) {
      await this.#set(work, { status: 'failed', statusMessage: message, error: { code: ErrorCode.InternalError, message } }).catch((err) => this.#report(err));
      work.abort(message);
    }
    // Held outcomes: one last attempt each; what still fails is reported (the instance's
    // heartbeat then lapses and other instances report the task's outcome as unknown).
    for (const held of [...this.#held.values()]) {
      if (held.timer !== undefined) clearTimeout(held.timer);
      held.timer = undefined;
      if (!(await this.#storeHeld(held).catch(() => false))) {
        this.#report(new Error(`Task ${held.work.taskId}: the receiver shut down before the task store took its outcome; the outcome is lost`));
        this.#dropHeld(held);
      }
    }
  }

  // ───────────── tasks/* ─────────────

  async #lookup(ctx: RequestContext, taskId: string): Promise<{ record: TaskRecord; owner: TaskOwner }> {
    const owner = await this.#owner(ctx);
    const held = this.#heldFor(taskId, owner);
    if (held !== undefined) return { record: held, owner };
    const record = await this.store.get(taskId, owner).catch((err) => {
      throw this.#storeFailure(err);
    });
    // Tasks of other forms in the same store (the stateless era's) are not reachable here.
    if (record === undefined || !isEngineForm(record.form)) throw notFound();
    return { record, owner };
  }

  async #get(endpoint: AnyEndpoint, taskId: string, ctx: RequestContext): Promise<JSONObject> {
    const { record } = await this.#lookup(ctx, taskId);
    if (this.#form(endpoint) === 'draft') return { ...toDraftTask(record), _meta: { [DRAFT_RELATED_TASK_META]: { taskId } } } as unknown as JSONObject;
    return toTask(record) as unknown as JSONObject;
  }

  async #result(endpoint: AnyEndpoint, taskId: string, ctx: RequestContext): Promise<JSONObject> {
    let { record, owner } = await this.#lookup(ctx, taskId);
    if (this.#form(endpoint) === 'draft') {
      // Draft: a result only for a completed task; an error for every other status.
      if (record.status !== 'completed') throw invalidParams(`Cannot retrieve result: Task status is '${record.status}', not 'completed'`);
      return withRelatedMeta(record.result, 'draft', taskId);
    }
    // 2025-11-25: wait for a terminal status, then answer exactly what the request would have.
    const waiter: ResultWaiter = { endpoint, id: ctx.id };
    let list = this.#resultWaiters.get(taskId);
    if (list === undefined) this.#resultWaiters.set(taskId, (list = []));
    list.push(waiter);
    try {
      while (!isTerminal(record.status)) {
        await this.#nextChange(taskId, ctx.signal, RECHECK_MS);
        if (ctx.signal.aborted) throw new McpError(ErrorCode.InternalError, 'tasks/result was cancelled');
        const next =
          this.#heldFor(taskId, owner) ??
          (await this.store.get(taskId, owner).catch((err) => {
            throw this.#storeFailure(err);
          }));
        if (next === undefined) throw notFound();
        record = next;
      }
    } finally {
      const i = list.indexOf(waiter);
      if (i >= 0) list.splice(i, 1);
      if (list.length === 0 && this.#resultWaiters.get(taskId) === list) this.#resultWaiters.delete(taskId);
    }
    if (record.error !== undefined) throw toMcpError(record.error);
    if (record.result === undefined) throw new McpError(ErrorCode.InternalError, `Task ${taskId} ended without a result`);
    return withRelatedMeta(record.result, '2025-11-25', taskId);
  }

  async #list(endpoint: AnyEndpoint, cursor: string | undefined, ctx: RequestContext): Promise<JSONObject> {
    const owner = await this.#owner(ctx);
    let page;
    try {
      page = await this.store.list(owner, cursor === undefined ? { limit: this.#pageSize } : { cursor, limit: this.#pageSize });
    } catch (err) {
      if (err instanceof TaskStoreError && err.code === 'invalid_cursor') throw invalidParams('Invalid params: invalid cursor');
      throw this.#storeFailure(err);
    }
    const draft = this.#form(endpoint) === 'draft';
    const tasks = page.tasks
      .filter((r) => isEngineForm(r.form))
      .map((r) => this.#heldFor(r.taskId, owner) ?? r)
      .map((r) => (draft ? toDraftTask(r) : toTask(r))) as unknown as JSONObject[];
    return page.nextCursor === undefined ? { tasks } : { tasks, nextCursor: page.nextCursor };
  }

  async #cancelRequest(taskId: string, ctx: RequestContext): Promise<JSONObject> {
    const { record } = await this.#lookup(ctx, taskId);
    const refuse = (r: TaskRecord) => invalidParams(`Cannot cancel task: already in terminal status '${toTask(r).status}'`);
    if (isTerminal(record.status)) throw refuse(record);
    try {
      return toTask(await this.#cancel(taskId, 'The task was cancelled by request.')) as unknown as JSONObject;
    } catch (err) {
      if (err instanceof TaskStoreError && err.code === 'terminal') throw refuse((await this.store.get(taskId)) ?? record);
      if (err instanceof TaskStoreError && err.code === 'not_found') throw notFound();
      throw this.#storeFailure(err);
    }
  }

  async #delete(taskId: string, ctx: RequestContext): Promise<JSONObject> {
    const { record, owner } = await this.#lookup(ctx, taskId);
    if (!isTerminal(record.status))
      throw invalidParams(`Cannot delete task: its status is '${record.status}'; cancel the request first (notifications/cancelled)`);
    await this.store.delete(taskId, owner);
    const held = this.#held.get(taskId);
    if (held !== undefined) this.#dropHeld(held);
    return { _meta: { [DRAFT_RELATED_TASK_META]: { taskId } } };
  }

  #storeFailure(err: unknown): McpError {
    if (err instanceof McpError) return err;
    this.#report(err);
    return new McpError(ErrorCode.InternalError, 'Internal error');
  }

  #report(err: unknown): void {
    this.#onError?.(toError(err));
  }
}

function progressTokenOf(params: JSONObject): string | number | undefined {
  const t = isObject(params._meta) ? params._meta.progressToken : undefined;
  return typeof t === 'string' || typeof t === 'number' ? t : undefined;
}
