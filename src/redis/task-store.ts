/**
 * {@link RedisTaskStore}: tasks shared by every instance on one Redis, for all three wire
 * forms (the store is form-neutral), so `tasks/get|result|list|cancel` work from any
 * instance.
 *
 * Design notes:
 * - Atomic transitions by compare-and-set: a write reads the task with its version, applies
 *   the shared rules of `src/tasks/store.ts` (`checkPatch`, `applyPatch`) in JavaScript and
 *   writes back through a Lua script that refuses when the version moved on; the loser
 *   re-reads and re-checks, so a terminal status never changes even with instances racing.
 * - Expiry follows the store's `now` (so the contract suite's fake clock works): `expiresAt`
 *   is checked on every read, and `sweep` deletes by an expiry index. A Redis PEXPIRE of
 *   `expiresAt + expiryBackstopMs` is only a backstop for a deployment that never sweeps.
 * - Instance liveness: each store has an instance id and renews a heartbeat key with a TTL;
 *   a task records the instance that created (and runs) it. Reading an unfinished task whose
 *   instance's heartbeat is gone ends it atomically (default: `failed`, draft `unknown`, with
 *   a message saying the instance stopped) and returns that, instead of "working" forever.
 * - Every change is published on the store's channel (`<prefix>tasks`, message
 *   `{taskId, status}`); {@link RedisTaskStore.watch} hands them to the engine, which aborts
 *   work cancelled through another instance and wakes its waiting `tasks/result` calls.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { JSONObject } from '../jsonrpc/types.js';
import {
  applyPatch,
  checkNewTask,
  checkPatch,
  copyJson,
  decodeCursor,
  encodeCursor,
  type FinishedTaskLimits,
  finishedTaskLimits,
  isExpired,
  type NewTask,
  ownerKey,
  ownerMatches,
  recordOf,
  type TaskChange,
  type TaskPage,
  type TaskPatch,
  type TaskStore,
  TaskStoreError,
} from '../tasks/store.js';
import { isTerminal, type TaskOwner, type TaskRecord, type TaskStatus } from '../tasks/types.js';
import type { RedisConnection } from './connection.js';
import { positiveInteger as positive } from './options.js';
import { TASK_SCRIPTS, type TaskScript } from './task-scripts.js';

/** Options of a {@link RedisTaskStore} (with the caps on finished tasks, {@link FinishedTaskLimits}). */
export interface RedisTaskStoreOptions extends FinishedTaskLimits {
  /** The clock (epoch ms). Default `Date.now`. */
  now?: () => number;
  /**
   * A name for this instance (a plain word: `A-Z a-z 0-9 . _ -`, up to 64), e.g. the host
   * name. Default a random UUID. Each open store adds a random run id to it, so a process
   * restarted under the same name never vouches for the tasks of the one that died.
   */
  instanceId?: string;
  /** How long this instance counts as alive after its last heartbeat, in ms. Default 15 000. */
  heartbeatTtlMs?: number;
  /** How often the heartbeat is renewed, in ms; must be below `heartbeatTtlMs`. Default 5000. */
  heartbeatIntervalMs?: number;
  /** The patch that ends an unfinished task whose instance stopped. Default {@link stoppedInstanceOutcome}; it must carry a terminal status. */
  recover?: (record: TaskRecord) => TaskPatch;
  /** Extra time past `expiresAt` before Redis deletes a task by itself (PEXPIRE backstop), in ms. Default 600 000. */
  expiryBackstopMs?: number;
  /** Most compare-and-set attempts of one write under contention before it rejects. Default 32. */
  maxWriteAttempts?: number;
  /** Receives failures nobody else is told about (a change that could not be published, a malformed announcement). */
  onError?: (error: Error) => void;
}

/**
 * The default outcome of an unfinished task whose instance stopped (its heartbeat expired):
 * the work is gone and whether its side effects happened is unknown, so the draft form ends
 * it `unknown` and the others `failed`; `tasks/result` answers the stored -32603 error.
 */
export function stoppedInstanceOutcome(record: TaskRecord): TaskPatch {
  const message = 'The instance running this task stopped; its outcome is unknown';
  return { status: record.form === 'draft' ? 'unknown' : 'failed', statusMessage: message, error: { code: -32603, message } };
}

const CHANNEL = 'tasks';
const INSTANCE_ID = /^[A-Za-z0-9._-]{1,64}$/;
const STATUSES = new Set<string>(['submitted', 'working', 'input_required', 'completed', 'failed', 'cancelled', 'unknown']);

interface Loaded {
  record: TaskRecord;
  version: string;
}

type ScriptCall = (...args: Array<string | number>) => Promise<unknown>;

/** ioredis clients the task scripts are defined on. */
const defined = new WeakSet<object>();

/**
 * A {@link TaskStore} on Redis, shared by every instance using the same Redis and prefix.
 * Open it with {@link RedisTaskStore.open}; {@link RedisTaskStore.close} stops its heartbeat
 * (the connection stays open: its owner closes it). Methods reject with
 * {@link TaskStoreError} as the contract says and with `RedisUnavailableError` while Redis
 * is unreachable; a rejected write changed nothing unless it was already applied when the
 * link dropped (then a re-read shows it).
 */
export class RedisTaskStore implements TaskStore {
  /** This store's run id (`<instanceId>.<random>`), recorded on the tasks it creates and named by its heartbeat. */
  readonly instanceId: string;
  readonly #redis: RedisConnection;
  readonly #now: () => number;
  readonly #recover: (record: TaskRecord) => TaskPatch;
  readonly #maxFinished: number;
  readonly #maxFinishedPerOwner: number;
  readonly #heartbeatTtl: number;
  readonly #heartbeatInterval: number;
  readonly #backstop: number;
  readonly #attempts: number;
  readonly #onError: (error: Error) => void;
  readonly #listeners = new Set<(change: TaskChange) => void>();
  readonly #prefixes: string[];
  readonly #seqKey: string;
  readonly #heartbeatKey: string;
  #timer: ReturnType<typeof setInterval> | undefined;
  #stopReady: (() => void) | undefined;
  #unsubscribe: (() => Promise<void>) | undefined;
  #closed = false;

  /**
   * Makes a store on `redis`, writes the first heartbeat and subscribes to the store's
   * channel. Rejects with `RedisUnavailableError` when Redis is unreachable, RangeError for a
   * bad option.
   */
  static async open(redis: RedisConnection, options: RedisTaskStoreOptions = {}): Promise<RedisTaskStore> {
    const store = new RedisTaskStore(redis, options);
    try {
      await store.#start();
    } catch (err) {
      await store.close();
      throw err;
    }
    return store;
  }

  private constructor(redis: RedisConnection, options: RedisTaskStoreOptions) {
    this.#redis = redis;
    this.#now = options.now ?? Date.now;
    this.#recover = options.recover ?? stoppedInstanceOutcome;
    const limits = finishedTaskLimits(options);
    this.#maxFinished = limits.maxFinishedTasks;
    this.#maxFinishedPerOwner = limits.maxFinishedTasksPerOwner;
    const name = options.instanceId ?? randomUUID();
    if (!INSTANCE_ID.test(name)) throw new RangeError('instanceId must be 1 to 64 characters of A-Z a-z 0-9 . _ -');
    this.instanceId = `${name}.${randomUUID().slice(0, 8)}`;
    this.#heartbeatTtl = positive('heartbeatTtlMs', options.heartbeatTtlMs ?? 15_000);
    this.#heartbeatInterval = positive('heartbeatIntervalMs', options.heartbeatIntervalMs ?? 5000);
    if (this.#heartbeatInterval >= this.#heartbeatTtl) throw new RangeError('heartbeatIntervalMs must be below heartbeatTtlMs');
    this.#backstop = positive('expiryBackstopMs', options.expiryBackstopMs ?? 600_000);
    this.#attempts = positive('maxWriteAttempts', options.maxWriteAttempts ?? 32);
    this.#onError = options.onError ?? (() => {});
    const p = redis.prefix;
    this.#prefixes = [`${p}task:`, `${p}task-owner:`, `${p}task-finished:`, `${p}tasks:expiry`, `${p}tasks:finished`];
    this.#seqKey = `${p}tasks:seq`;
    this.#heartbeatKey = redis.key('instance', this.instanceId);
  }

  async #start(): Promise<void> {
    await this.#beat();
    this.#timer = setInterval(() => void this.#beat().catch((err) => this.#onError(err)), this.#heartbeatInterval);
    this.#timer.unref?.();
    // After a reconnect (Redis restarted, or the link was down past the TTL) beat at once.
    this.#stopReady = this.#redis.onReady(() => void this.#beat().catch((err) => this.#onError(err)));
    this.#unsubscribe = await this.#redis.subscribe(CHANNEL, (message) => this.#announced(message));
  }

  #beat(): Promise<unknown> {
    return this.#redis.run((c) => c.set(this.#heartbeatKey, '1', 'PX', this.#heartbeatTtl));
  }

  /** Calls `listener` after every change of a task made through any instance on this Redis and prefix (see {@link TaskStore.watch}). */
  watch(listener: (change: TaskChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async create(task: NewTask): Promise<TaskRecord> {
    this.#open();
    checkNewTask(task);
    const now = this.#now();
    const record = recordOf(copyJson(task), now);
    const slot = this.#redis.id(task.taskId);
    const seq = await this.#eval(
      TASK_SCRIPTS.create,
      [this.#taskKey(slot), this.#seqKey],
      [slot, now, JSON.stringify(record), this.instanceId, this.#ownerHash(record.owner), ...this.#expiry(record, now)],
    );
    if (seq === -1) throw new TaskStoreError('duplicate', `Task ID already exists: ${task.taskId}`);
    this.#announce(record);
    return record;
  }

  async get(taskId: string, owner?: TaskOwner): Promise<TaskRecord | undefined> {
    this.#open();
    const loaded = await this.#load(taskId);
    if (loaded === undefined || (owner !== undefined && !ownerMatches(loaded.record.owner, owner))) return undefined;
    return loaded.record;
  }

  async update(taskId: string, patch: TaskPatch): Promise<TaskRecord> {
    this.#open();
    const safe = copyJson(patch);
    return this.#mutate(taskId, (current, now) => {
      checkPatch(current, safe);
      return applyPatch(current, safe, now);
    });
  }

  async addInputRequest(taskId: string, key: string, request: JSONObject): Promise<TaskRecord> {
    this.#open();
    const safe = copyJson(request);
    return this.#mutate(taskId, (current, now) => {
      checkPatch(current, {});
      if (Object.hasOwn(current.inputRequests, key)) throw new TaskStoreError('duplicate', `Input request ${key} is already pending`);
      return { ...applyPatch(current, { status: 'input_required' }, now), inputRequests: { ...current.inputRequests, [key]: safe } };
    });
  }

  async resolveInputRequest(taskId: string, key: string): Promise<TaskRecord> {
    this.#open();
    return this.#mutate(taskId, (current, now) => {
      checkPatch(current, {});
      if (!Object.hasOwn(current.inputRequests, key)) return current;
      const rest: Record<string, JSONObject> = { ...current.inputRequests };
      delete rest[key];
      const back = Object.keys(rest).length === 0 && current.status === 'input_required';
      return { ...applyPatch(current, back ? { status: 'working' } : {}, now), inputRequests: rest };
    });
  }

  async list(owner: TaskOwner, page: { cursor?: string; limit: number }): Promise<TaskPage> {
    this.#open();
    let after = page.cursor === undefined ? 0 : decodeCursor(page.cursor);
    const limit = Math.max(1, Math.floor(page.limit));
    const index = this.#prefixes[1] + this.#ownerHash(owner);
    const tasks: TaskRecord[] = [];
    let last = 0;
    // Expired tasks not yet swept are skipped, so read batches until the page is full.
    for (;;) {
      const batch = await this.#redis.run((c) => c.zrangebyscore(index, `(${after}`, '+inf', 'WITHSCORES', 'LIMIT', 0, limit + 1));
      if (batch.length === 0) return { tasks };
      const slots: Array<[string, number]> = [];
      for (let i = 0; i < batch.length; i += 2) slots.push([batch[i]!, Number(batch[i + 1])]);
      const loaded = await Promise.all(slots.map(([slot]) => this.#loadSlot(slot)));
      for (let i = 0; i < slots.length; i++) {
        const [slot, seq] = slots[i]!;
        after = seq;
        const l = loaded[i];
        if (l === undefined) {
          // Gone by the backstop expiry: drop the stale index entry.
          if (!(await this.#redis.run((c) => c.exists(this.#taskKey(slot))))) await this.#redis.run((c) => c.zrem(index, slot));
          continue;
        }
        if (!ownerMatches(l.record.owner, owner)) continue;
        if (tasks.length === limit) return { tasks, nextCursor: encodeCursor(last) };
        tasks.push(l.record);
        last = seq;
      }
      if (batch.length < (limit + 1) * 2) return { tasks };
    }
  }

  async delete(taskId: string, owner?: TaskOwner): Promise<boolean> {
    this.#open();
    const slot = this.#redis.id(taskId);
    for (let attempt = 0; attempt < this.#attempts; attempt++) {
      const loaded = await this.#loadSlot(slot);
      if (loaded === undefined || loaded.record.taskId !== taskId || (owner !== undefined && !ownerMatches(loaded.record.owner, owner))) return false;
      if ((await this.#eval(TASK_SCRIPTS.delete, [this.#taskKey(slot)], [slot, loaded.version])) === 1) return true;
    }
    throw this.#contention(taskId);
  }

  async sweep(limit: number): Promise<number> {
    this.#open();
    const n = Math.max(0, Math.floor(limit));
    if (n === 0) return 0;
    return (await this.#eval(TASK_SCRIPTS.sweep, [], [this.#now(), n])) as number;
  }

  /** Stops the heartbeat (deleting it, so other instances end this one's leftover tasks at once) and the channel subscription. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#stopReady?.();
    this.#listeners.clear();
    await this.#unsubscribe?.().catch(() => {});
    await this.#redis.run((c) => c.del(this.#heartbeatKey)).catch(() => {});
  }

  // ───────────── inside ─────────────

  #open(): void {
    if (this.#closed) throw new TaskStoreError('closed', 'The task store is closed');
  }

  #taskKey(slot: string): string {
    return this.#prefixes[0] + slot;
  }

  #ownerHash(owner: TaskOwner): string {
    return createHash('sha256').update(ownerKey(owner)).digest('hex').slice(0, 32);
  }

  /** ARGV tail of a write: expiresAt ('' none) and the backstop PEXPIRE ('' none). */
  #expiry(record: TaskRecord, now: number): [string, string] {
    if (record.expiresAt === null) return ['', ''];
    return [String(record.expiresAt), String(Math.max(1, record.expiresAt - now) + this.#backstop)];
  }

  async #eval(script: TaskScript, keys: string[], args: Array<string | number>): Promise<unknown> {
    return this.#redis.run((c) => {
      if (!defined.has(c)) {
        for (const s of Object.values(TASK_SCRIPTS)) c.defineCommand(s.name, { numberOfKeys: s.keys, lua: s.lua });
        defined.add(c);
      }
      return (c as unknown as Record<string, ScriptCall>)[script.name]!(...keys, ...this.#prefixes, ...args);
    });
  }

  /** The live task of `taskId` with its version; ends it first when its instance stopped. */
  async #load(taskId: string): Promise<Loaded | undefined> {
    const loaded = await this.#loadSlot(this.#redis.id(taskId));
    return loaded?.record.taskId === taskId ? loaded : undefined;
  }

  async #loadSlot(slot: string): Promise<Loaded | undefined> {
    for (let attempt = 0; attempt < this.#attempts; attempt++) {
      const raw = (await this.#eval(TASK_SCRIPTS.read, [this.#taskKey(slot)], [this.instanceId, this.#redis.prefix + 'instance:'])) as
        | [string, string, number]
        | null;
      if (raw === null) return undefined;
      const now = this.#now();
      const record = JSON.parse(raw[0]) as TaskRecord;
      if (isExpired(record.expiresAt, now)) return undefined;
      if (raw[2] === 1 || isTerminal(record.status)) return { record, version: raw[1] };
      // The instance running it stopped: end the task truthfully, once, whoever reads first.
      const patch = this.#recover(record);
      checkPatch(record, patch);
      const next = applyPatch(record, patch, now);
      if (await this.#write(slot, raw[1], next, now)) return { record: next, version: String(Number(raw[1]) + 1) };
    }
    throw this.#contention(slot);
  }

  /** Reads, applies `change`, writes back by compare-and-set; retries while other writers win. */
  async #mutate(taskId: string, change: (current: TaskRecord, now: number) => TaskRecord): Promise<TaskRecord> {
    const slot = this.#redis.id(taskId);
    for (let attempt = 0; attempt < this.#attempts; attempt++) {
      const loaded = await this.#load(taskId);
      if (loaded === undefined) throw new TaskStoreError('not_found', `Task not found: ${taskId}`);
      const now = this.#now();
      const next = change(loaded.record, now);
      if (next === loaded.record) return next;
      if (await this.#write(slot, loaded.version, next, now, isTerminal(next.status) && !isTerminal(loaded.record.status))) return next;
    }
    throw this.#contention(taskId);
  }

  /** One compare-and-set; true when it won. Announces the change. */
  async #write(slot: string, version: string, next: TaskRecord, now: number, finished = isTerminal(next.status)): Promise<boolean> {
    const won =
      (await this.#eval(
        TASK_SCRIPTS.write,
        [this.#taskKey(slot), this.#seqKey],
        [slot, version, JSON.stringify(next), ...this.#expiry(next, now), finished ? '1' : '0', this.#maxFinishedPerOwner, this.#maxFinished],
      )) === 1;
    if (won) this.#announce(next);
    return won;
  }

  #contention(what: string): Error {
    return new Error(`Task ${what}: too many concurrent writers (gave up after ${this.#attempts} attempts)`);
  }

  #announce(record: TaskRecord): void {
    const change: TaskChange = { taskId: record.taskId, status: record.status };
    this.#redis.publish(CHANNEL, JSON.stringify(change)).catch((err) => this.#onError(err));
  }

  #announced(message: string): void {
    let change: unknown;
    try {
      change = JSON.parse(message);
    } catch {
      change = undefined;
    }
    const c = change as Partial<TaskChange> | undefined;
    if (typeof c !== 'object' || c === null || typeof c.taskId !== 'string' || typeof c.status !== 'string' || !STATUSES.has(c.status)) {
      this.#onError(new Error('Ignored a malformed task announcement'));
      return;
    }
    const clean: TaskChange = { taskId: c.taskId, status: c.status as TaskStatus };
    for (const listener of this.#listeners) {
      try {
        listener(clean);
      } catch (err) {
        this.#onError(err instanceof Error ? err : new Error(String(err)));
      }
    }
  }
}
