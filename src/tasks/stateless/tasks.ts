/**
 * Tasks in the stateless era (2026-07-28): the `io.modelcontextprotocol/tasks` extension
 * (SEP-2663), on the same {@link TaskStore} as the 2025-era forms.
 *
 * What the wire looks like:
 * - The client declares the extension per request
 *   (`_meta["io.modelcontextprotocol/clientCapabilities"].extensions`); the server declares
 *   it under `capabilities.extensions` in `server/discover` (never the 2025 `tasks` member).
 * - The server alone decides whether a `tools/call` becomes a task, and answers a flat
 *   `CreateTaskResult` (`resultType: "task"`, the task's fields at the top, no `result`,
 *   `error`, `inputRequests` or `requestState`). A client that did not declare the
 *   extension never gets one: a tool whose `execution.taskSupport` is `required` answers
 *   -32021 naming the extension, an `optional` one runs synchronously.
 * - `tasks/get` answers the task with its `result` (completed; tool errors included, as
 *   `isError`), `error` (failed: a JSON-RPC error) or `inputRequests` (input_required)
 *   inline; `tasks/update` delivers `inputResponses` (partial sets allowed, unknown keys
 *   ignored) and `tasks/cancel` asks for cancellation — both answer an empty result. Unknown
 *   task ids answer -32602; `tasks/result` and `tasks/list` do not exist (-32601). Every one
 *   of them answers -32021 to a request that did not declare the extension.
 *
 * Design notes:
 * - When to make a task: the handler starts as an ordinary request. If it settles within
 *   `immediateResultMs` (default 100 ms), or asks the client for input in that time (a
 *   multi round-trip `InputRequiredResult`: MRTR rounds are resolved synchronously before a
 *   task exists), the request is answered normally. Otherwise the task is created durably in
 *   the store (a `tasks/get` for its id resolves before the `CreateTaskResult` is sent) and
 *   the handler runs on as the task's work. A `required` tool waits no time: it becomes a
 *   task unless it settles or asks for input within its first turn of the event loop.
 * - The handler does not notice the switch: its context ({@link StatelessTaskContext}) is
 *   the request's until then and the task's afterwards — `signal` fires on `tasks/cancel`
 *   (and shutdown), not when the request's response is sent; elicitation, sampling and
 *   roots become the task's `inputRequests` (keys unique over the task's life) and resolve
 *   when `tasks/update` answers them; logs and progress stop (there is no stream left).
 * - The store holds all task state; this process only remembers which work runs here (to
 *   abort it and to hand it answers) and how many unfinished tasks each owner has.
 * - A `tasks/update` whose task's work runs in another instance (a shared store) reaches it
 *   through the configured {@link TaskInputRelay} (`inputRelay`), which validates and hands
 *   the answers there exactly as here. The update is acknowledged only once some instance
 *   took them (or the task ended meanwhile): a task unfinished in the store whose work runs
 *   nowhere answers -32603 saying so, instead of pretending the answers arrived.
 * - Task ids are random UUIDs (`crypto.randomUUID`: 122 bits from a CSPRNG), bound to the
 *   owner the configured policy computes (the auth context by default, as in the 2025
 *   forms); lookups by another owner find nothing. Without authentication a task is
 *   unbound and its id is a bearer token, as the extension allows: there is no `tasks/list`,
 *   so only a holder of the id reaches it.
 * - The concurrency cap counts per requestor (`requestorOf`), not per owner: unbound tasks
 *   belong to nobody, but each in-process connection is its own requestor, and where no
 *   client can be told apart (unauthenticated stateless HTTP) a full cap makes `optional`
 *   calls answer inline instead of refusing them, so nobody is locked out by another.
 */
import { invalidParams, McpError, toError } from '../../jsonrpc/errors.js';
import { ErrorCode, type JSONObject, type JSONRPCErrorObject } from '../../jsonrpc/types.js';
import { isObject } from '../../jsonrpc/values.js';
import type { RequestHandler } from '../../protocol/endpoint.js';
import { Method } from '../../protocol/methods.js';
import { type InputRequest, missingClientCapability, ResultType, TASKS_EXTENSION } from '../../protocol/stateless/wire.js';
import { ServerRequestContext } from '../../server/connection.js';
import type { McpServer } from '../../server/server.js';
import { checkInputResponses } from '../../server/stateless/mrtr.js';
import type { InputSink, StatelessRequest } from '../../server/stateless/request.js';
import type { ClientCapabilities } from '../../types.js';
import type { TaskInputDelivery, TaskInputRelay } from '../input-relay.js';
import { type OwnerPolicy, ownerBySessionAndAuth, type RequestorPolicy, requestorByAuthOrConnection } from '../owner.js';
import { type TaskStore, TaskStoreError } from '../store.js';
import { isTerminal, TaskMethod, type TaskOwner, type TaskRecord, type TaskStatus } from '../types.js';
import { errorObject } from '../wire.js';

/** The extension's identifier. */
export const TASKS_EXTENSION_ID = TASKS_EXTENSION;

/** The slot key of anonymous requests (the NUL keeps it apart from every requestor key). */
const ANONYMOUS = '\u0000anonymous';

/** The `TaskForm` of tasks created on the stateless wire. */
export const STATELESS_TASK_FORM = '2026-07-28';

/** Options of the stateless-era tasks (part of `TaskServerOptions`). */
export interface StatelessTaskOptions {
  /**
   * How long a `tools/call` of an `optional` tool may take before it becomes a task, in ms.
   * Default 100. (`required` tools become tasks at once.)
   */
  immediateResultMs?: number;
  /** Retention of a task from its creation, in ms; `null` = unlimited. Default 3 600 000. */
  defaultTtlMs?: number | null;
  /** Longest retention granted. Default 86 400 000. */
  maxTtlMs?: number | null;
  /** Shortest retention granted. Default 1000. */
  minTtlMs?: number;
  /** Polling interval suggested to clients, in ms. Default 1000. */
  pollIntervalMs?: number;
  /**
   * Most unfinished tasks one requestor (see `requestorOf`) may have at once. Default 16.
   * Past it a call of an `optional` tool is answered inline, as if it had settled in time
   * (the server alone decides whether a call becomes a task), and a call of a `required`
   * tool is refused with -32600 before its handler runs. Anonymous requests have their own
   * limit, `maxActiveAnonymousTasks`.
   */
  maxActiveTasksPerOwner?: number;
  /**
   * Most unfinished tasks of anonymous requests (nothing identifies their client, see
   * `requestorOf`) together. Default 64. Past it they are treated as above: `optional` tools
   * answer inline, `required` ones -32600; so one client holding the whole pool blocks
   * nobody else's `optional` calls.
   */
  maxActiveAnonymousTasks?: number;
  /** Who owns a request's tasks (who may reach them). Default `ownerBySessionAndAuth`. */
  ownerOf?: OwnerPolicy;
  /**
   * Who counts against `maxActiveTasksPerOwner`. Default `requestorByAuthOrConnection`: the
   * principal, else the connection when it carries one client, else anonymous.
   */
  requestorOf?: RequestorPolicy;
  /** Receives failures nobody else is told about (store errors, crashed handlers). */
  onError?: (error: Error) => void;
  /**
   * Carries `tasks/update` answers to the instance running the task when several instances
   * share the store (e.g. `RedisTaskInputRelay` of `mcpkit/redis`). Default none: answers
   * reach only work running in this process.
   */
  inputRelay?: TaskInputRelay;
}

const DELIVERED: TaskInputDelivery = { status: 'delivered' };
const NOT_RUNNING: TaskInputDelivery = { status: 'not_running' };

/** True when `capabilities` (a request's) declare the tasks extension. Pure. */
export function declaresTasksExtension(capabilities: ClientCapabilities | undefined): boolean {
  const extensions = (capabilities as { extensions?: unknown } | undefined)?.extensions;
  return isObject(extensions) && isObject(extensions[TASKS_EXTENSION_ID]);
}

/** The -32021 error of a request that needs the extension but did not declare it. */
export function tasksExtensionRequired(): McpError {
  return missingClientCapability({ extensions: { [TASKS_EXTENSION_ID]: {} } } as ClientCapabilities, `the tasks extension (${TASKS_EXTENSION_ID})`);
}

function wireStatus(status: TaskStatus): string {
  return status === 'submitted' ? 'working' : status === 'unknown' ? 'failed' : status;
}

/** The extension's `Task` of `record` (the fields of a `CreateTaskResult`). Pure. */
export function toStatelessTask(record: TaskRecord): JSONObject {
  const t: JSONObject = {
    taskId: record.taskId,
    status: wireStatus(record.status),
    createdAt: new Date(record.createdAt).toISOString(),
    lastUpdatedAt: new Date(record.lastUpdatedAt).toISOString(),
    ttlMs: record.ttlMs,
  };
  if (record.statusMessage !== undefined) t.statusMessage = record.statusMessage;
  if (record.pollIntervalMs !== undefined) t.pollIntervalMs = record.pollIntervalMs;
  return t;
}

/** The extension's `DetailedTask` of `record`: the task with its result, error or input requests inline. Pure. */
export function toDetailedTask(record: TaskRecord): JSONObject {
  const t = toStatelessTask(record);
  if (t.status === 'input_required') t.inputRequests = { ...record.inputRequests };
  else if (t.status === 'completed') t.result = record.result ?? { resultType: ResultType.Complete, content: [] };
  else if (t.status === 'failed')
    t.error = (record.error ?? { code: ErrorCode.InternalError, message: record.statusMessage ?? 'Internal error' }) as unknown as JSONObject;
  return t;
}

interface Waiter {
  readonly resolve: (answer: unknown) => void;
  readonly reject: (reason: unknown) => void;
  readonly validate: (answer: unknown, key: string) => unknown;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * One `tools/call` that may become a task: its abort controller, its mode, and once it is a
 * task the inputs it waits on. Created per call by {@link StatelessTasks}.
 */
class TaskRun implements InputSink {
  readonly controller = new AbortController();
  /** Set once the call became a task. */
  taskId: string | undefined = undefined;
  /** The requestor slot the task holds (see `StatelessTasks.#reserve`). */
  slot = '';
  #created: Promise<void> | undefined;
  readonly pending = new Map<string, Waiter>();
  readonly #used = new Set<string>();
  readonly #counters: Record<string, number> = {};
  finished = false;
  readonly #store: TaskStore;

  constructor(store: TaskStore) {
    this.#store = store;
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get isTask(): boolean {
    return this.#created !== undefined;
  }

  /** Switches to task mode; inputs wait for `created` (the durable record). */
  becomeTask(created: Promise<void>): void {
    this.#created = created;
    this.#created.catch(() => {});
  }

  key(method: string, explicitKey: string | undefined): string {
    const prefix =
      explicitKey ??
      (method === 'sampling/createMessage' ? 'sampling' : method === 'roots/list' ? 'roots' : method === 'elicitation/create' ? 'elicitation' : 'input');
    let key = explicitKey ?? '';
    if (explicitKey === undefined || this.#used.has(explicitKey)) {
      do {
        const n = (this.#counters[prefix] ?? 0) + 1;
        this.#counters[prefix] = n;
        key = explicitKey === undefined ? `${prefix}-${n}` : `${prefix}#${n + 1}`;
      } while (this.#used.has(key));
    }
    this.#used.add(key);
    return key;
  }

  async ask(key: string, request: InputRequest, validate: (answer: unknown, key: string) => unknown): Promise<unknown> {
    if (this.signal.aborted) throw this.signal.reason;
    await this.#created;
    if (this.signal.aborted) throw this.signal.reason;
    const taskId = this.taskId!;
    return new Promise((resolve, reject) => {
      this.pending.set(key, { resolve, reject, validate });
      this.#store.addInputRequest(taskId, key, request as unknown as JSONObject).catch((err) => {
        if (this.pending.delete(key)) reject(err);
      });
    });
  }

  abort(reason: string): void {
    if (!this.controller.signal.aborted) this.controller.abort(new Error(reason));
    for (const w of this.pending.values()) w.reject(this.controller.signal.reason);
    this.pending.clear();
  }
}

/**
 * The context of a `tools/call` handler that may become a task: the request's context until
 * then, the task's afterwards (see the module note). Handlers use it like any
 * `ServerRequestContext`.
 */
export class StatelessTaskContext extends ServerRequestContext {
  readonly #base: ServerRequestContext;
  readonly #run: TaskRun;

  /** @internal */
  constructor(base: ServerRequestContext, run: TaskRun) {
    super(base.connection, base.session, base.id, base.method, base.params, base.info, base.era);
    this.#base = base;
    this.#run = run;
  }

  /** The task's id once the call became a task; undefined while it is an ordinary request. */
  get taskId(): string | undefined {
    return this.#run.taskId;
  }

  /** Fires when the request is cancelled before it became a task, on `tasks/cancel`, or at shutdown. */
  override get signal(): AbortSignal {
    return this.#run.signal;
  }

  override get cancelled(): boolean {
    return this.#run.signal.aborted;
  }

  override get done(): boolean {
    return this.#run.finished || (!this.#run.isTask && this.#base.done);
  }

  /** Progress for the request's token while it is a request; nothing once it is a task (no stream is left). */
  override sendProgress(progress: number, total?: number, message?: string): Promise<void> {
    return this.#run.isTask ? Promise.resolve() : this.#base.sendProgress(progress, total, message);
  }
}

/**
 * The stateless-era tasks of one server. Created by `TaskServer`, which installs it on every
 * connection after its 2025-era engine; see the module note.
 */
export class StatelessTasks {
  readonly #server: McpServer;
  readonly #store: TaskStore;
  readonly #immediateMs: number;
  readonly #ttlMs: number | null;
  readonly #pollIntervalMs: number;
  readonly #maxActive: number;
  readonly #maxAnonymous: number;
  readonly #ownerOf: OwnerPolicy;
  readonly #requestorOf: RequestorPolicy;
  readonly #onError: ((error: Error) => void) | undefined;
  readonly #running = new Map<string, TaskRun>();
  readonly #active = new Map<string, number>();
  readonly #unwatch: (() => void) | undefined;
  readonly #relay: TaskInputRelay | undefined;
  readonly #unlisten: (() => void) | undefined;
  #closed = false;

  /** Throws RangeError for invalid limits. */
  constructor(server: McpServer, store: TaskStore, options: StatelessTaskOptions = {}) {
    this.#server = server;
    this.#store = store;
    this.#immediateMs = options.immediateResultMs ?? 100;
    if (!(this.#immediateMs >= 0)) throw new RangeError('immediateResultMs must be a non-negative number');
    const max = options.maxTtlMs === undefined ? 86_400_000 : options.maxTtlMs;
    const wanted = options.defaultTtlMs === undefined ? 3_600_000 : options.defaultTtlMs;
    let ttl = wanted === null ? max : max === null ? wanted : Math.min(wanted, max);
    if (ttl !== null) ttl = Math.max(ttl, options.minTtlMs ?? 1000);
    this.#ttlMs = ttl;
    this.#pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.#maxActive = options.maxActiveTasksPerOwner ?? 16;
    this.#ownerOf = options.ownerOf ?? ownerBySessionAndAuth;
    this.#requestorOf = options.requestorOf ?? requestorByAuthOrConnection;
    this.#onError = options.onError;
    this.#maxAnonymous = options.maxActiveAnonymousTasks ?? 64;
    for (const [name, v] of [
      ['maxActiveTasksPerOwner', this.#maxActive],
      ['maxActiveAnonymousTasks', this.#maxAnonymous],
    ] as const) {
      if (!(Number.isInteger(v) && v >= 1)) throw new RangeError(`${name} must be a positive integer`);
    }
    // A shared store announces tasks ended elsewhere (cancelled through another instance): stop their work here.
    this.#unwatch = store.watch?.((change) => {
      if (isTerminal(change.status))
        this.#running.get(change.taskId)?.abort(change.status === 'cancelled' ? 'The task was cancelled by request.' : `The task ended as ${change.status}`);
    });
    this.#relay = options.inputRelay;
    this.#unlisten = this.#relay?.listen((taskId, responses) => this.#receive(taskId, responses));
  }

  /** Number of stateless-era tasks whose work runs in this process now. */
  get running(): number {
    return this.#running.size;
  }

  /**
   * Installs on the server, once: a 2026-07-28 wrapper of `tools/call` (around whatever
   * handler serves it, now or later) and the 2026-07-28 handlers of `tasks/get|update|cancel`. Requests of the 2025 era never
   * reach them: the server keeps a handler table per era.
   */
  install(server: McpServer): void {
    const era = { era: '2026-07-28' } as const;
    server.wrap(Method.ToolsCall, (inner) => (p, ctx) => this.#call(inner, p, ctx, ctx.era.stateless!), era);
    const route = (method: string, handler: (p: JSONObject, ctx: ServerRequestContext, st: StatelessRequest) => Promise<JSONObject>) => {
      server.handle(
        method,
        (p, ctx) => {
          const st = ctx.era.stateless!;
          if (!declaresTasksExtension(st.meta.clientCapabilities)) throw tasksExtensionRequired();
          return handler(p!, ctx, st);
        },
        era,
      );
    };
    route(TaskMethod.Get, (p, ctx) => this.#get(p.taskId as string, ctx));
    route(TaskMethod.Update, (p, ctx) => this.#update(p.taskId as string, p.inputResponses, ctx));
    route(TaskMethod.Cancel, (p, ctx) => this.#cancel(p.taskId as string, ctx));
  }

  // ───────────── tools/call ─────────────

  #call(original: RequestHandler<ServerRequestContext>, params: JSONObject | undefined, ctx: ServerRequestContext, st: StatelessRequest): unknown {
    const name = params?.name;
    const tool = typeof name === 'string' ? this.#server.tools.get(name) : undefined;
    const support = (tool?.execution as { taskSupport?: unknown } | undefined)?.taskSupport;
    if (support !== 'optional' && support !== 'required') return original(params, ctx);
    if (!declaresTasksExtension(st.meta.clientCapabilities)) {
      if (support === 'required') throw tasksExtensionRequired();
      return original(params, ctx);
    }
    if (this.#closed) return original(params, ctx);
    return this.#race(original, params, ctx, st, support === 'required');
  }

  async #race(
    original: RequestHandler<ServerRequestContext>,
    params: JSONObject | undefined,
    ctx: ServerRequestContext,
    st: StatelessRequest,
    required: boolean,
  ): Promise<unknown> {
    const waitMs = required ? 0 : this.#immediateMs;
    // A required tool becomes a task: it needs a free slot before its handler runs.
    let slot: string | undefined;
    if (required) {
      const requestor = await this.#requestorOf(ctx);
      slot = this.#reserve(requestor);
      if (slot === undefined) throw this.#tooMany(requestor === undefined);
    }
    const run = new TaskRun(this.#store);
    const requestSignal = ctx.signal;
    const onRequestAbort = () => {
      if (!run.isTask) run.abort('Request cancelled');
    };
    requestSignal.addEventListener('abort', onRequestAbort, { once: true });
    const work = new StatelessTaskContext(ctx, run);
    let outcome: Promise<Outcome>;
    try {
      outcome = Promise.resolve(original(params, work)).then(
        (value) => ({ ok: true as const, value }),
        (error: unknown) => ({ ok: false as const, error }),
      );
    } catch (error) {
      outcome = Promise.resolve({ ok: false as const, error });
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), waitMs);
    });
    let first = await Promise.race([outcome, deadline]);
    clearTimeout(timer);
    // The handler asked for input before the deadline: the multi round-trip exchange runs
    // synchronously, before any task exists.
    if (first === undefined && (st.round?.hasPending || ctx.cancelled)) first = await outcome;
    if (first !== undefined && (waitMs > 0 || !first.ok || st.round?.hasPending || ctx.cancelled)) {
      if (slot !== undefined) this.#release(slot);
      return this.#answer(run, requestSignal, onRequestAbort, first);
    }
    // An optional tool past its deadline becomes a task if its requestor has a slot free,
    // else it is answered inline.
    slot ??= this.#reserve(await this.#requestorOf(ctx));
    if (slot === undefined) return this.#answer(run, requestSignal, onRequestAbort, await outcome);
    // It becomes a task (a `required` tool's immediate result is the task's result).
    let created!: () => void;
    let failed!: (err: unknown) => void;
    run.becomeTask(new Promise<void>((resolve, reject) => ((created = resolve), (failed = reject))));
    st.inputSink = run;
    requestSignal.removeEventListener('abort', onRequestAbort);
    let record: TaskRecord;
    try {
      record = await this.#create(ctx, run, slot);
    } catch (err) {
      failed(err);
      run.abort('The task could not be created');
      run.finished = true;
      throw err;
    }
    created();
    void outcome.then((o) => this.#settle(run, o));
    return { resultType: ResultType.Task, ...toStatelessTask(record) };
  }

  /** Ends a call that did not become a task with its own outcome. */
  #answer(run: TaskRun, requestSignal: AbortSignal, onRequestAbort: () => void, o: Outcome): unknown {
    requestSignal.removeEventListener('abort', onRequestAbort);
    run.finished = true;
    if (o.ok) return o.value;
    throw o.error;
  }

  /** Takes a task slot of `requestor` (undefined: anonymous): its key, or undefined when none is free. */
  #reserve(requestor: string | undefined): string | undefined {
    const key = requestor === undefined ? ANONYMOUS : `r:${requestor}`;
    const n = this.#active.get(key) ?? 0;
    if (n >= (key === ANONYMOUS ? this.#maxAnonymous : this.#maxActive)) return undefined;
    this.#active.set(key, n + 1);
    return key;
  }

  #tooMany(anonymous: boolean): McpError {
    const who = anonymous ? `unauthenticated requests (limit ${this.#maxAnonymous})` : `this requestor (limit ${this.#maxActive})`;
    return new McpError(ErrorCode.InvalidRequest, `Too many unfinished tasks for ${who}; wait for one to finish or cancel one`);
  }

  /** Creates the task's record, holding `slot` (released on failure). */
  async #create(ctx: ServerRequestContext, run: TaskRun, slot: string): Promise<TaskRecord> {
    let record: TaskRecord;
    try {
      if (this.#closed) throw new McpError(ErrorCode.InternalError, 'The task receiver is shut down');
      const owner = await this.#ownerOf(ctx);
      record = await this.#store.create({
        taskId: crypto.randomUUID(),
        status: 'working',
        ttlMs: this.#ttlMs,
        ttlAnchor: 'created',
        pollIntervalMs: this.#pollIntervalMs,
        owner,
        method: Method.ToolsCall,
        form: STATELESS_TASK_FORM,
        requestId: ctx.id,
      });
    } catch (err) {
      this.#release(slot);
      throw this.#storeFailure(err);
    }
    run.taskId = record.taskId;
    run.slot = slot;
    this.#running.set(record.taskId, run);
    return record;
  }

  async #settle(run: TaskRun, o: Outcome): Promise<void> {
    const taskId = run.taskId!;
    try {
      if (run.signal.aborted) return; // cancelled (the store says so already) or shut down
      let patch;
      if (o.ok) {
        const result = isObject(o.value) ? o.value : {};
        patch = { status: 'completed' as const, result: { resultType: ResultType.Complete, ...result } };
      } else {
        const error: JSONRPCErrorObject = errorObject(o.error);
        if (!(o.error instanceof McpError)) this.#report(o.error);
        patch = { status: 'failed' as const, statusMessage: error.message, error };
      }
      await this.#store.update(taskId, patch);
    } catch (err) {
      if (!(err instanceof TaskStoreError && (err.code === 'terminal' || err.code === 'not_found'))) this.#report(err);
    } finally {
      run.finished = true;
      run.abort('The task ended');
      this.#running.delete(taskId);
      this.#release(run.slot);
    }
  }

  #release(key: string): void {
    const n = (this.#active.get(key) ?? 1) - 1;
    if (n <= 0) this.#active.delete(key);
    else this.#active.set(key, n);
  }

  // ───────────── tasks/* ─────────────

  async #lookup(taskId: string, ctx: ServerRequestContext): Promise<TaskRecord> {
    let owner: TaskOwner;
    let record: TaskRecord | undefined;
    try {
      owner = await this.#ownerOf(ctx);
      record = await this.#store.get(taskId, owner);
    } catch (err) {
      throw this.#storeFailure(err);
    }
    // Tasks of the 2025-era forms are not reachable from this wire (and vice versa).
    if (record === undefined || record.form !== STATELESS_TASK_FORM) throw invalidParams('Failed to retrieve task: Task not found');
    return record;
  }

  async #get(taskId: string, ctx: ServerRequestContext): Promise<JSONObject> {
    return toDetailedTask(await this.#lookup(taskId, ctx));
  }

  async #update(taskId: string, inputResponses: unknown, ctx: ServerRequestContext): Promise<JSONObject> {
    const responses = checkInputResponses(inputResponses) ?? {};
    const record = await this.#lookup(taskId, ctx);
    if (isTerminal(record.status)) return {};
    if ((await this.#deliverHere(taskId, responses, record)).status === 'delivered') return {};
    if (this.#relay !== undefined) {
      let outcome: TaskInputDelivery;
      try {
        outcome = await this.#relay.deliver(taskId, responses);
      } catch (err) {
        throw this.#storeFailure(err);
      }
      if (outcome.status === 'delivered') return {};
      if (outcome.status === 'rejected') throw new McpError(outcome.error.code, outcome.error.message, outcome.error.data);
    }
    // Its work runs nowhere reachable: acknowledge only a task that ended meanwhile.
    let now: TaskRecord | undefined;
    try {
      now = await this.#store.get(taskId);
    } catch (err) {
      throw this.#storeFailure(err);
    }
    if (now === undefined || isTerminal(now.status)) return {};
    throw new McpError(
      ErrorCode.InternalError,
      `Task ${taskId} is ${wireStatus(now.status)} but its work runs on no reachable instance, so the input responses were not delivered; poll tasks/get for its outcome or cancel it with tasks/cancel`,
    );
  }

  /**
   * Hands `responses` to the task's work when it runs in this process: `not_running`
   * otherwise. `record` is the task as just read (re-read from the store when absent).
   * Throws McpError -32602 (from the waiters' validation) when an answer is malformed;
   * then nothing is delivered.
   */
  async #deliverHere(taskId: string, responses: JSONObject, record: TaskRecord | undefined): Promise<TaskInputDelivery> {
    const run = this.#running.get(taskId);
    if (run === undefined) return NOT_RUNNING;
    record ??= await this.#store.get(taskId);
    if (record === undefined || isTerminal(record.status)) return DELIVERED; // it ended: nothing waits for answers any more
    // Validate every answer first, so a malformed one changes nothing.
    const answers: Array<[string, Waiter, unknown]> = [];
    for (const key of Object.keys(responses)) {
      const waiter = run.pending.get(key);
      // Keys that are not outstanding (never issued, answered already) are ignored.
      if (waiter === undefined || !Object.hasOwn(record.inputRequests, key)) continue;
      answers.push([key, waiter, waiter.validate(responses[key], key)]);
    }
    for (const [key, waiter, answer] of answers) {
      if (!run.pending.delete(key)) continue;
      try {
        await this.#store.resolveInputRequest(taskId, key);
      } catch (err) {
        if (!(err instanceof TaskStoreError && (err.code === 'terminal' || err.code === 'not_found'))) this.#report(err);
      }
      waiter.resolve(answer);
    }
    return DELIVERED;
  }

  /** Answers relayed by another instance (see {@link TaskInputRelay}). Never throws. */
  async #receive(taskId: string, responses: JSONObject): Promise<TaskInputDelivery> {
    try {
      return await this.#deliverHere(taskId, responses, undefined);
    } catch (err) {
      if (!(err instanceof McpError)) this.#report(err);
      return { status: 'rejected', error: errorObject(err) };
    }
  }

  async #cancel(taskId: string, ctx: ServerRequestContext): Promise<JSONObject> {
    const record = await this.#lookup(taskId, ctx);
    if (isTerminal(record.status)) return {}; // idempotent: the same empty acknowledgement
    try {
      await this.#store.update(taskId, { status: 'cancelled', statusMessage: 'The task was cancelled by request.' });
    } catch (err) {
      if (!(err instanceof TaskStoreError && (err.code === 'terminal' || err.code === 'not_found'))) throw this.#storeFailure(err);
    }
    this.#running.get(taskId)?.abort('The task was cancelled by request.');
    return {};
  }

  /** Ends every task still running here as `failed` ("the server shut down") and aborts its work. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#unwatch?.();
    this.#unlisten?.();
    const message = 'The server shut down while this task was running';
    for (const [taskId, run] of [...this.#running]) {
      await this.#store.update(taskId, { status: 'failed', statusMessage: message, error: { code: ErrorCode.InternalError, message } }).catch(() => {});
      run.abort(message);
    }
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
