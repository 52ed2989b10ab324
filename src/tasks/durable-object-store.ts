/**
 * Tasks on Cloudflare Workers: the store lives in one Durable Object, which every isolate of
 * the Worker reaches, so a `tasks/get` served by any isolate finds a task created by
 * another, and tasks outlive isolates (Durable Object storage is durable).
 *
 * - {@link TaskStoreDurableObject} is the Durable Object class: export it from the Worker's
 *   module and bind it (`[[durable_objects.bindings]]` with a `new_sqlite_classes`
 *   migration in wrangler.toml). It keeps the tasks in its own storage through
 *   {@link KeyValueTaskStore} and answers the store's calls one at a time.
 * - {@link DurableObjectTaskStore} is the {@link TaskStore} the Worker hands to its
 *   `TaskServer`: each call is one `fetch` to the object's stub (a JSON request), so it
 *   needs no `cloudflare:workers` import and no RPC compatibility flag.
 *
 * Runtime-neutral: no `node:*` imports; the Workers types are described structurally.
 */
import type { JSONObject } from '../jsonrpc/types.js';
import { KeyValueTaskStore, type KeyValueTaskStoreOptions, type TaskKeyValue } from './kv-store.js';
import { type NewTask, type TaskPage, type TaskPatch, type TaskStore, TaskStoreError, type TaskStoreErrorCode } from './store.js';
import { isTerminal, type TaskOwner, type TaskRecord } from './types.js';

/** What {@link TaskStoreDurableObject} needs of a Durable Object's state: its `storage`. */
export interface DurableObjectStateLike {
  readonly storage: TaskKeyValue;
}

/** What {@link DurableObjectTaskStore} needs of a Durable Object stub: its `fetch`. */
export interface DurableObjectStubLike {
  fetch(request: Request): Promise<Response>;
}

/** The calls of the store, as they cross to the Durable Object. */
type Call =
  | { op: 'create'; task: NewTask }
  | { op: 'get'; taskId: string; owner?: TaskOwner }
  | { op: 'update'; taskId: string; patch: TaskPatch }
  | { op: 'addInputRequest'; taskId: string; key: string; request: JSONObject }
  | { op: 'resolveInputRequest'; taskId: string; key: string }
  | { op: 'list'; owner: TaskOwner; page: { cursor?: string; limit: number } }
  | { op: 'delete'; taskId: string; owner?: TaskOwner }
  | { op: 'sweep'; limit: number };

/** The largest call body the object accepts (a task's params and results are bounded by the server's own body limits). */
const MAX_CALL_BYTES = 8 * 1024 * 1024;

const STORE_ERROR_CODES: ReadonlySet<string> = new Set<TaskStoreErrorCode>([
  'not_found',
  'duplicate',
  'terminal',
  'invalid_transition',
  'invalid_cursor',
  'closed',
]);

/**
 * The Durable Object holding a Worker's tasks. Export it from the Worker module under the
 * `class_name` wrangler.toml binds, e.g. `export { TaskStoreDurableObject } from 'mcpkit/tasks'`,
 * or subclass it to pass {@link KeyValueTaskStoreOptions} (retention caps). Its `fetch`
 * answers the calls of {@link DurableObjectTaskStore} only: a POST with a JSON call,
 * answered `{ "value": … }` or `{ "error": { "code", "message" } }`; anything else 400.
 */
export class TaskStoreDurableObject {
  readonly #store: KeyValueTaskStore;

  constructor(state: DurableObjectStateLike, _env?: unknown, options: KeyValueTaskStoreOptions = {}) {
    this.#store = new KeyValueTaskStore(state.storage, options);
  }

  async fetch(request: Request): Promise<Response> {
    const declared = Number(request.headers.get('content-length') ?? '0');
    if (request.method !== 'POST' || declared > MAX_CALL_BYTES)
      return Response.json(
        { error: { code: 'bad_call', message: 'The task store object answers POSTed calls of DurableObjectTaskStore only' } },
        { status: 400 },
      );
    let call: Call;
    try {
      call = (await request.json()) as Call;
    } catch {
      return Response.json({ error: { code: 'bad_call', message: 'The call is not JSON' } }, { status: 400 });
    }
    try {
      return Response.json({ value: (await this.#dispatch(call)) ?? null });
    } catch (error) {
      if (error instanceof TaskStoreError) return Response.json({ error: { code: error.code, message: error.message } });
      return Response.json({ error: { code: 'failed', message: error instanceof Error ? error.message : String(error) } }, { status: 500 });
    }
  }

  #dispatch(call: Call): Promise<unknown> {
    const s = this.#store;
    switch (call?.op) {
      case 'create':
        return s.create(call.task);
      case 'get':
        return s.get(call.taskId, call.owner);
      case 'update':
        return s.update(call.taskId, call.patch);
      case 'addInputRequest':
        return s.addInputRequest(call.taskId, call.key, call.request);
      case 'resolveInputRequest':
        return s.resolveInputRequest(call.taskId, call.key);
      case 'list':
        return s.list(call.owner, call.page);
      case 'delete':
        return s.delete(call.taskId, call.owner);
      case 'sweep':
        return s.sweep(call.limit);
      default:
        return Promise.reject(new Error(`Unknown task store call ${JSON.stringify((call as { op?: unknown })?.op)}`));
    }
  }
}

/**
 * A {@link TaskStore} kept in a {@link TaskStoreDurableObject}: pass a function giving the
 * stub of the one object holding the Worker's tasks, e.g.
 * `new DurableObjectTaskStore(() => env.TASKS.get(env.TASKS.idFromName('tasks')))`. It is
 * called for every store call: on Workers a stub is an I/O object of the request that made
 * it, which another request may not use ("Cannot perform I/O on behalf of a different
 * request"), and the store serves every request of the isolate. (A stub itself is accepted
 * for a store used within one request.)
 * Rejects with {@link TaskStoreError} as the contract says, and with an `Error` naming the
 * object's failure when the call could not be served.
 *
 * A Worker's isolate stops running work once its response is sent unless the work is
 * handed to `ctx.waitUntil`: {@link idle} is the promise to hand it, so a task's work
 * (running in the isolate that created it) goes on after the `CreateTaskResult` is sent.
 */
export class DurableObjectTaskStore implements TaskStore {
  readonly #stub: () => DurableObjectStubLike;
  /** Tasks created through this object whose end it has not seen. */
  readonly #running = new Set<string>();
  #idle: { promise: Promise<void>; resolve: () => void } | undefined;
  #closed = false;

  constructor(stub: DurableObjectStubLike | (() => DurableObjectStubLike)) {
    this.#stub = typeof stub === 'function' ? stub : () => stub;
  }

  /**
   * Resolves once every task created through this store object has ended (a terminal
   * status written through it, or deleted through it); at once when none runs. Hand it to
   * `ctx.waitUntil` in the Worker's `fetch`.
   */
  idle(): Promise<void> {
    if (this.#running.size === 0) return Promise.resolve();
    if (this.#idle === undefined) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.#idle = { promise, resolve };
    }
    return this.#idle.promise;
  }

  async create(task: NewTask): Promise<TaskRecord> {
    const record = (await this.#call({ op: 'create', task })) as TaskRecord;
    this.#running.add(record.taskId);
    return record;
  }

  async get(taskId: string, owner?: TaskOwner): Promise<TaskRecord | undefined> {
    return ((await this.#call(owner === undefined ? { op: 'get', taskId } : { op: 'get', taskId, owner })) as TaskRecord | null) ?? undefined;
  }

  async update(taskId: string, patch: TaskPatch): Promise<TaskRecord> {
    try {
      const record = (await this.#call({ op: 'update', taskId, patch })) as TaskRecord;
      if (isTerminal(record.status)) this.#ended(taskId);
      return record;
    } catch (error) {
      if (error instanceof TaskStoreError && (error.code === 'not_found' || error.code === 'terminal')) this.#ended(taskId);
      throw error;
    }
  }

  async addInputRequest(taskId: string, key: string, request: JSONObject): Promise<TaskRecord> {
    return (await this.#call({ op: 'addInputRequest', taskId, key, request })) as TaskRecord;
  }

  async resolveInputRequest(taskId: string, key: string): Promise<TaskRecord> {
    return (await this.#call({ op: 'resolveInputRequest', taskId, key })) as TaskRecord;
  }

  async list(owner: TaskOwner, page: { cursor?: string; limit: number }): Promise<TaskPage> {
    return (await this.#call({ op: 'list', owner, page })) as TaskPage;
  }

  async delete(taskId: string, owner?: TaskOwner): Promise<boolean> {
    const deleted = (await this.#call(owner === undefined ? { op: 'delete', taskId } : { op: 'delete', taskId, owner })) as boolean;
    if (deleted) this.#ended(taskId);
    return deleted;
  }

  async sweep(limit: number): Promise<number> {
    return (await this.#call({ op: 'sweep', limit })) as number;
  }

  /** Stops this store object (the tasks stay in the Durable Object); {@link idle} resolves. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#running.clear();
    this.#idle?.resolve();
    this.#idle = undefined;
  }

  #ended(taskId: string): void {
    if (!this.#running.delete(taskId) || this.#running.size > 0) return;
    this.#idle?.resolve();
    this.#idle = undefined;
  }

  async #call(call: Call): Promise<unknown> {
    if (this.#closed) throw new TaskStoreError('closed', 'The task store is closed');
    const response = await this.#stub().fetch(
      new Request('https://mcpkit-task-store/call', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(call) }),
    );
    let answer: { value?: unknown; error?: { code?: string; message?: string } };
    try {
      answer = (await response.json()) as typeof answer;
    } catch {
      throw new Error(`The task store Durable Object answered ${response.status} without JSON: check that its binding names TaskStoreDurableObject`);
    }
    const error = answer.error;
    if (error === undefined) return answer.value;
    if (typeof error.code === 'string' && STORE_ERROR_CODES.has(error.code)) throw new TaskStoreError(error.code as TaskStoreErrorCode, String(error.message));
    throw new Error(`The task store Durable Object failed the ${call.op} call: ${String(error.message)}`);
  }
}
