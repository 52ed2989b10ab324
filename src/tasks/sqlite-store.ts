/**
 * `mcpkit/tasks/sqlite`: a durable task store in one SQLite file (better-sqlite3, an
 * optional peer dependency; this is the only module that imports it).
 *
 * Design notes:
 * - WAL journal with `synchronous = NORMAL`: a commit survives a crash of the process (it is
 *   in the WAL, handed to the OS) at a fraction of the cost of a full sync per write.
 * - One process per file: the store opens the database in exclusive locking mode, so a second
 *   process cannot write behind its back; that is what makes the recovery below truthful.
 *   The operating system releases the lock when the process dies, even by SIGKILL.
 * - Recovery on open: tasks still `submitted`, `working` or `input_required` belonged to a
 *   process that is gone, so their work is gone too. They are ended with
 *   {@link orphanOutcome} (or the `recover` option): `failed` (2025-11-25) or `unknown`
 *   (draft) with a message saying the server restarted, and a stored -32603 error for
 *   `tasks/result`. Completed tasks keep their results.
 * - Every operation is one synchronous statement or transaction, hence atomic; the rules
 *   (terminal states never change, expiry on read) are the shared ones of `store.ts`.
 * - Rows hold JSON text for params, result, error and input requests; a `seq` column orders
 *   tasks by creation for `list` cursors.
 * - Finished tasks are capped (`maxFinishedTasks`, `maxFinishedTasksPerOwner`): the update
 *   that ends a task deletes, in the same transaction, the tasks that finished first (by
 *   `updated_at`, which never changes once a task ended, then `seq`), found through partial
 *   indexes over finished rows. The store-wide count is kept in memory (one process per
 *   file) and recounted on open and after each sweep; the per-owner count is read per update.
 */
import Database from 'better-sqlite3';
import type { JSONObject, JSONRPCErrorObject, RequestId } from '../jsonrpc/types.js';
import {
  applyPatch,
  checkNewTask,
  checkPatch,
  decodeCursor,
  encodeCursor,
  type FinishedTaskLimits,
  finishedTaskLimits,
  isExpired,
  type NewTask,
  orphanOutcome,
  ownerKey,
  ownerMatches,
  recordOf,
  type TaskPage,
  type TaskPatch,
  type TaskStore,
  TaskStoreError,
} from './store.js';
import { isTerminal, type TaskOwner, type TaskRecord, type TaskStatus, type TtlAnchor } from './types.js';

/** Options of {@link SqliteTaskStore} (with the caps on finished tasks, {@link FinishedTaskLimits}). */
export interface SqliteTaskStoreOptions extends FinishedTaskLimits {
  /** The clock (epoch ms). Default `Date.now`. */
  now?: () => number;
  /**
   * What to do with a task found unfinished on open (its process died): the patch that ends
   * it. Default {@link orphanOutcome}. The patch must carry a terminal status.
   */
  recover?: (record: TaskRecord) => TaskPatch;
  /** Exclusive locking (one process per file). Default true; turn off only for read-only inspection tools. */
  exclusive?: boolean;
  /** How long {@link SqliteTaskStore.open} waits for a lock held elsewhere before failing, in ms. Default 2000. */
  busyTimeoutMs?: number;
}

interface Row {
  seq: number;
  task_id: string;
  status: string;
  status_message: string | null;
  created_at: number;
  updated_at: number;
  ttl_ms: number | null;
  ttl_anchor: string;
  expires_at: number | null;
  poll_interval_ms: number | null;
  owner_key: string;
  owner_session: string | null;
  owner_auth: string | null;
  method: string;
  form: string;
  request_id: string | null;
  params: string | null;
  result: string | null;
  error: string | null;
  input_requests: string;
}

const SCHEMA_VERSION = 1;
const ACTIVE = "('submitted','working','input_required')";
const FINISHED = "('completed','failed','cancelled','unknown')";

const CREATE_SQL = `
CREATE TABLE IF NOT EXISTS mcp_tasks (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  task_id TEXT NOT NULL UNIQUE,
  status TEXT NOT NULL,
  status_message TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  ttl_ms INTEGER,
  ttl_anchor TEXT NOT NULL,
  expires_at INTEGER,
  poll_interval_ms INTEGER,
  owner_key TEXT NOT NULL,
  owner_session TEXT,
  owner_auth TEXT,
  method TEXT NOT NULL,
  form TEXT NOT NULL,
  request_id TEXT,
  params TEXT,
  result TEXT,
  error TEXT,
  input_requests TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS mcp_tasks_owner ON mcp_tasks (owner_key, seq);
CREATE INDEX IF NOT EXISTS mcp_tasks_expiry ON mcp_tasks (expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS mcp_tasks_active ON mcp_tasks (status) WHERE status IN ${ACTIVE};
CREATE INDEX IF NOT EXISTS mcp_tasks_finished ON mcp_tasks (updated_at, seq) WHERE status IN ${FINISHED};
CREATE INDEX IF NOT EXISTS mcp_tasks_owner_finished ON mcp_tasks (owner_key, updated_at, seq) WHERE status IN ${FINISHED};
`;

const COLUMNS =
  'seq, task_id, status, status_message, created_at, updated_at, ttl_ms, ttl_anchor, expires_at, poll_interval_ms, owner_key, owner_session, owner_auth, method, form, request_id, params, result, error, input_requests';

function toRecord(row: Row): TaskRecord {
  const owner: { session?: string; auth?: string } = {};
  if (row.owner_session !== null) owner.session = row.owner_session;
  if (row.owner_auth !== null) owner.auth = row.owner_auth;
  const r: { -readonly [K in keyof TaskRecord]: TaskRecord[K] } = {
    taskId: row.task_id,
    status: row.status as TaskStatus,
    createdAt: row.created_at,
    lastUpdatedAt: row.updated_at,
    ttlMs: row.ttl_ms,
    ttlAnchor: row.ttl_anchor as TtlAnchor,
    expiresAt: row.expires_at,
    owner,
    method: row.method,
    form: row.form,
    inputRequests: JSON.parse(row.input_requests) as Record<string, JSONObject>,
  };
  if (row.status_message !== null) r.statusMessage = row.status_message;
  if (row.poll_interval_ms !== null) r.pollIntervalMs = row.poll_interval_ms;
  if (row.request_id !== null) r.requestId = JSON.parse(row.request_id) as RequestId;
  if (row.params !== null) r.params = JSON.parse(row.params) as JSONObject;
  if (row.result !== null) r.result = JSON.parse(row.result) as JSONObject;
  if (row.error !== null) r.error = JSON.parse(row.error) as JSONRPCErrorObject;
  return r;
}

const json = (v: unknown): string | null => (v === undefined ? null : JSON.stringify(v));

/**
 * A {@link TaskStore} in one SQLite file. Open it with {@link SqliteTaskStore.open}; close it
 * with {@link SqliteTaskStore.close} at shutdown. All methods run synchronously inside (one
 * statement or transaction each) and are safe to call concurrently from one process.
 */
export class SqliteTaskStore implements TaskStore {
  readonly #db: Database.Database;
  readonly #now: () => number;
  readonly #recovered: number;
  readonly #maxFinished: number;
  readonly #maxFinishedPerOwner: number;
  /** Finished rows in the file (see the module note). */
  #finishedCount = 0;
  #closed = false;
  readonly #stmt: {
    insert: Database.Statement;
    byId: Database.Statement;
    deleteById: Database.Statement;
    write: Database.Statement;
    page: Database.Statement;
    sweep: Database.Statement;
    active: Database.Statement;
    countFinished: Database.Statement;
    countOwnerFinished: Database.Statement;
    evictOldest: Database.Statement;
    evictOwnerOldest: Database.Statement;
    evictEveryOwner: Database.Statement;
  };

  /**
   * Opens (creating if needed) the database at `path` (a file, or `:memory:` for tests) and
   * recovers the tasks a dead process left unfinished. Throws when the file cannot be opened
   * or another process holds it (SQLITE_BUSY), or when the schema is of a newer version.
   */
  static open(path: string, options: SqliteTaskStoreOptions = {}): SqliteTaskStore {
    const db = new Database(path, { timeout: options.busyTimeoutMs ?? 2000 });
    try {
      return new SqliteTaskStore(db, options);
    } catch (err) {
      db.close();
      throw err;
    }
  }

  /** Wraps an open better-sqlite3 database (see {@link SqliteTaskStore.open}); the store closes it on close. */
  constructor(db: Database.Database, options: SqliteTaskStoreOptions = {}) {
    this.#db = db;
    this.#now = options.now ?? Date.now;
    if (options.exclusive !== false) db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > SCHEMA_VERSION) throw new Error(`The task database has schema version ${version}; this store knows up to ${SCHEMA_VERSION}`);
    db.exec(CREATE_SQL);
    if (version < SCHEMA_VERSION) db.pragma(`user_version = ${SCHEMA_VERSION}`);
    this.#stmt = {
      insert: db.prepare(
        `INSERT INTO mcp_tasks (task_id, status, status_message, created_at, updated_at, ttl_ms, ttl_anchor, expires_at, poll_interval_ms, owner_key, owner_session, owner_auth, method, form, request_id, params, result, error, input_requests)
         VALUES (@task_id, @status, @status_message, @created_at, @updated_at, @ttl_ms, @ttl_anchor, @expires_at, @poll_interval_ms, @owner_key, @owner_session, @owner_auth, @method, @form, @request_id, @params, @result, @error, @input_requests)`,
      ),
      byId: db.prepare(`SELECT ${COLUMNS} FROM mcp_tasks WHERE task_id = ?`),
      deleteById: db.prepare('DELETE FROM mcp_tasks WHERE task_id = ?'),
      write: db.prepare(
        `UPDATE mcp_tasks SET status = @status, status_message = @status_message, updated_at = @updated_at, expires_at = @expires_at, poll_interval_ms = @poll_interval_ms,
           result = @result, error = @error, input_requests = @input_requests WHERE task_id = @task_id`,
      ),
      page: db.prepare(`SELECT ${COLUMNS} FROM mcp_tasks WHERE owner_key = ? AND seq > ? AND (expires_at IS NULL OR expires_at > ?) ORDER BY seq LIMIT ?`),
      sweep: db.prepare(
        'DELETE FROM mcp_tasks WHERE seq IN (SELECT seq FROM mcp_tasks WHERE expires_at IS NOT NULL AND expires_at <= ? ORDER BY expires_at LIMIT ?)',
      ),
      active: db.prepare(`SELECT ${COLUMNS} FROM mcp_tasks WHERE status IN ${ACTIVE}`),
      countFinished: db.prepare(`SELECT COUNT(*) FROM mcp_tasks WHERE status IN ${FINISHED}`).pluck(),
      countOwnerFinished: db.prepare(`SELECT COUNT(*) FROM mcp_tasks WHERE owner_key = ? AND status IN ${FINISHED}`).pluck(),
      evictOldest: db.prepare(`DELETE FROM mcp_tasks WHERE seq IN (SELECT seq FROM mcp_tasks WHERE status IN ${FINISHED} ORDER BY updated_at, seq LIMIT ?)`),
      evictOwnerOldest: db.prepare(
        `DELETE FROM mcp_tasks WHERE seq IN (SELECT seq FROM mcp_tasks WHERE owner_key = ? AND status IN ${FINISHED} ORDER BY updated_at, seq LIMIT ?)`,
      ),
      evictEveryOwner: db.prepare(
        `DELETE FROM mcp_tasks WHERE seq IN (SELECT seq FROM (SELECT seq, ROW_NUMBER() OVER (PARTITION BY owner_key ORDER BY updated_at DESC, seq DESC) AS n FROM mcp_tasks WHERE status IN ${FINISHED}) WHERE n > ?)`,
      ),
    };
    const limits = finishedTaskLimits(options);
    this.#maxFinished = limits.maxFinishedTasks;
    this.#maxFinishedPerOwner = limits.maxFinishedTasksPerOwner;
    this.#recovered = this.#recover(options.recover ?? orphanOutcome);
    // Recovery ends tasks, and the caps may be lower than when the file was written.
    this.#db.transaction(() => {
      this.#stmt.evictEveryOwner.run(this.#maxFinishedPerOwner);
      this.#finishedCount = this.#stmt.countFinished.get() as number;
      this.#evictPastStoreCap();
    })();
  }

  /** How many unfinished tasks of a dead process were ended when this store opened. */
  get recovered(): number {
    return this.#recovered;
  }

  #recover(recover: (record: TaskRecord) => TaskPatch): number {
    const rows = this.#stmt.active.all() as Row[];
    if (rows.length === 0) return 0;
    const now = this.#now();
    this.#db.transaction(() => {
      for (const row of rows) {
        const record = toRecord(row);
        const patch = recover(record);
        checkPatch(record, patch);
        this.#write(applyPatch(record, patch, now));
      }
    })();
    return rows.length;
  }

  async create(task: NewTask): Promise<TaskRecord> {
    this.#open();
    checkNewTask(task);
    const now = this.#now();
    const record = recordOf(task, now);
    this.#db.transaction(() => {
      const existing = this.#stmt.byId.get(task.taskId) as Row | undefined;
      if (existing !== undefined) {
        if (!isExpired(existing.expires_at, now)) throw new TaskStoreError('duplicate', `Task ID already exists: ${task.taskId}`);
        this.#deleteRow(existing.task_id, existing.status);
      }
      this.#stmt.insert.run({
        task_id: record.taskId,
        status: record.status,
        status_message: record.statusMessage ?? null,
        created_at: record.createdAt,
        updated_at: record.lastUpdatedAt,
        ttl_ms: record.ttlMs,
        ttl_anchor: record.ttlAnchor,
        expires_at: record.expiresAt,
        poll_interval_ms: record.pollIntervalMs ?? null,
        owner_key: ownerKey(record.owner),
        owner_session: record.owner.session ?? null,
        owner_auth: record.owner.auth ?? null,
        method: record.method,
        form: record.form,
        request_id: json(record.requestId),
        params: json(record.params),
        result: null,
        error: null,
        input_requests: '{}',
      });
    })();
    return toRecord(this.#stmt.byId.get(task.taskId) as Row);
  }

  async get(taskId: string, owner?: TaskOwner): Promise<TaskRecord | undefined> {
    this.#open();
    const record = this.#read(taskId);
    if (record === undefined || (owner !== undefined && !ownerMatches(record.owner, owner))) return undefined;
    return record;
  }

  async update(taskId: string, patch: TaskPatch): Promise<TaskRecord> {
    this.#open();
    return this.#db.transaction(() => {
      const current = this.#must(taskId);
      checkPatch(current, patch);
      const next = applyPatch(current, patch, this.#now());
      this.#write(next);
      if (isTerminal(next.status)) this.#finished(ownerKey(next.owner));
      return next;
    })();
  }

  async addInputRequest(taskId: string, key: string, request: JSONObject): Promise<TaskRecord> {
    this.#open();
    return this.#db.transaction(() => {
      const current = this.#must(taskId);
      checkPatch(current, {});
      if (Object.hasOwn(current.inputRequests, key)) throw new TaskStoreError('duplicate', `Input request ${key} is already pending`);
      const next = { ...applyPatch(current, { status: 'input_required' }, this.#now()), inputRequests: { ...current.inputRequests, [key]: request } };
      this.#write(next);
      return next;
    })();
  }

  async resolveInputRequest(taskId: string, key: string): Promise<TaskRecord> {
    this.#open();
    return this.#db.transaction(() => {
      const current = this.#must(taskId);
      checkPatch(current, {});
      if (!Object.hasOwn(current.inputRequests, key)) return current;
      const rest: Record<string, JSONObject> = { ...current.inputRequests };
      delete rest[key];
      const back = Object.keys(rest).length === 0 && current.status === 'input_required';
      const next = { ...applyPatch(current, back ? { status: 'working' } : {}, this.#now()), inputRequests: rest };
      this.#write(next);
      return next;
    })();
  }

  async list(owner: TaskOwner, page: { cursor?: string; limit: number }): Promise<TaskPage> {
    this.#open();
    const after = page.cursor === undefined ? 0 : decodeCursor(page.cursor);
    const limit = Math.max(1, Math.floor(page.limit));
    const rows = this.#stmt.page.all(ownerKey(owner), after, this.#now(), limit + 1) as Row[];
    const more = rows.length > limit;
    if (more) rows.length = limit;
    const tasks = rows.map(toRecord);
    return more ? { tasks, nextCursor: encodeCursor(rows[rows.length - 1]!.seq) } : { tasks };
  }

  async delete(taskId: string, owner?: TaskOwner): Promise<boolean> {
    this.#open();
    return this.#db.transaction(() => {
      const record = this.#read(taskId);
      if (record === undefined || (owner !== undefined && !ownerMatches(record.owner, owner))) return false;
      return this.#deleteRow(taskId, record.status);
    })();
  }

  async sweep(limit: number): Promise<number> {
    this.#open();
    return this.#db.transaction(() => {
      const removed = this.#stmt.sweep.run(this.#now(), Math.max(0, Math.floor(limit))).changes;
      if (removed > 0) this.#finishedCount = this.#stmt.countFinished.get() as number;
      return removed;
    })();
  }

  /** A task of `key` just finished: counts it and evicts the oldest finished past the caps (inside the caller's transaction). */
  #finished(key: string): void {
    this.#finishedCount++;
    const mine = this.#stmt.countOwnerFinished.get(key) as number;
    if (mine > this.#maxFinishedPerOwner) this.#finishedCount -= this.#stmt.evictOwnerOldest.run(key, mine - this.#maxFinishedPerOwner).changes;
    this.#evictPastStoreCap();
  }

  #evictPastStoreCap(): void {
    if (this.#finishedCount > this.#maxFinished) this.#finishedCount -= this.#stmt.evictOldest.run(this.#finishedCount - this.#maxFinished).changes;
  }

  /** Deletes one row whose status is `status`, keeping the finished count. */
  #deleteRow(taskId: string, status: string): boolean {
    const deleted = this.#stmt.deleteById.run(taskId).changes > 0;
    if (deleted && isTerminal(status)) this.#finishedCount--;
    return deleted;
  }

  /** Closes the database (checkpointing the WAL). Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#db.close();
  }

  #open(): void {
    if (this.#closed) throw new TaskStoreError('closed', 'The task store is closed');
  }

  #read(taskId: string): TaskRecord | undefined {
    const row = this.#stmt.byId.get(taskId) as Row | undefined;
    if (row === undefined || isExpired(row.expires_at, this.#now())) return undefined;
    return toRecord(row);
  }

  #must(taskId: string): TaskRecord {
    const record = this.#read(taskId);
    if (record === undefined) throw new TaskStoreError('not_found', `Task not found: ${taskId}`);
    return record;
  }

  #write(r: TaskRecord): void {
    this.#stmt.write.run({
      task_id: r.taskId,
      status: r.status,
      status_message: r.statusMessage ?? null,
      updated_at: r.lastUpdatedAt,
      expires_at: r.expiresAt,
      poll_interval_ms: r.pollIntervalMs ?? null,
      result: json(r.result),
      error: json(r.error),
      input_requests: JSON.stringify(r.inputRequests),
    });
  }
}
