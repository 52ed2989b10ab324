/**
 * Tasks through a gateway (2025-11-25 form): the task ids of several upstreams in one
 * namespace. Runtime-neutral (WebCrypto only).
 *
 * Design notes:
 * - A task-augmented `tools/call` (`params.task`) is routed to the tool's upstream like any
 *   call; the upstream's `CreateTaskResult` reaches the caller with a GATEWAY task id:
 *   `base64url(upstream).base64url(tool).base64url(upstream task id).mac`, where `mac` is an
 *   HMAC-SHA-256 (128 bits) over the caller's owner key (its transport session or connection,
 *   and its auth context: `ownerByConnection`), the upstream, the tool and the upstream's id.
 *   So the id says where the task lives (reversible, no table needed to route it), and a
 *   caller cannot forge one, edit one to point at another upstream, or use another caller's:
 *   each of those fails the MAC and gets exactly what an unknown task gets (-32602).
 * - `tasks/get`, `tasks/result`, `tasks/cancel`: the id is checked (MAC, known upstream, and
 *   the gateway's visibility policy still lets the caller see the tool that made the task;
 *   -32602 otherwise), then the request goes to that upstream with the upstream's id (through
 *   the upstream's proxy: the caller's cancel, progress and the upstream's requests while
 *   `tasks/result` waits route as for a call), and the answer comes back with the gateway id
 *   (`tasks/result` without the output fields the policy drops from the tool's results).
 *   An upstream that is down answers -32603 naming it (the task may come back with it).
 * - `tasks/list`: the upstreams that list tasks, in configuration order, each paged through;
 *   only the tasks THIS caller made through this gateway instance are shown (the upstreams
 *   see one session for every caller: the gateway remembers, per upstream task, who made it,
 *   at most `maxRecords`, oldest forgotten first). The cursor is `payload.mac` (MAC over the
 *   caller's owner key too): a cursor edited, or replayed by another caller, is -32602.
 * - `notifications/tasks/status` of an upstream go to the connection that made the task,
 *   with the gateway id.
 * - The 2026-07-28 tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) when an
 *   upstream offers it: a caller's `tools/call` declaring it reaches the upstream declaring
 *   it (the mounted proxy: proxy-tasks.ts), and a flat `CreateTaskResult` the upstream
 *   answers reaches the caller with a gateway id of the same encoding, its MAC bound to the
 *   caller's principal (the verified auth, else none: the id is then a bearer token, as the
 *   extension allows; the stateless era has no session to bind). `tasks/get`, `tasks/update`
 *   and `tasks/cancel` are checked and routed as above; a request not declaring the
 *   extension gets -32021 naming it, an unknown, edited or foreign id -32602. Those tasks are
 *   not listed (the extension has no `tasks/list`). The draft form is not spoken.
 * - Several gateway instances (`--redis`): give them one `secret` (the gateway derives it
 *   from `server.stateless.requestState.secret`) so each accepts the others' ids; `tasks/list`
 *   and status notifications know only the tasks made through the instance itself.
 */
import { base64url, fromBase64url } from '../jsonrpc/base64url.js';
import { invalidParams, type McpError } from '../jsonrpc/errors.js';
import { hmacKey, secretBytes } from '../jsonrpc/hmac-secret.js';
import type { JSONObject } from '../jsonrpc/types.js';
import { isObject } from '../jsonrpc/values.js';
import { V2025_11_25 } from '../protocol/versions.js';
import type { ServerConnection, ServerRequestContext } from '../server/connection.js';
import type { InterceptContext, Interceptor } from '../server/interceptors.js';
import { authKey, ownerByConnection } from '../tasks/owner.js';
import { RELATED_TASK_META, TaskMethod, TaskNotification } from '../tasks/types.js';
import type { ServerCapabilities } from '../types.js';
import { callerDeclaresTaskExtension, createdTaskId, EXTENSION_TASK_METHODS, taskExtensionRequired } from './proxy-tasks.js';
import { toolResultView, toolView, type VisibilityPolicy } from './visibility.js';

/** What the task router needs of one upstream. */
export interface TaskUpstream {
  readonly name: string;
  /** The upstream's capabilities while it is up; undefined while it is down. */
  capabilities(): ServerCapabilities | undefined;
  /** Forwards a request to it on behalf of the caller of `ctx` (rejects with -32603 naming it while it is down). */
  request(method: string, params: JSONObject, ctx: ServerRequestContext): Promise<JSONObject>;
}

/** Options of {@link GatewayTasks}. */
export interface GatewayTasksOptions {
  /** Key of the id and cursor MACs (at least 16 bytes; default: random per instance). */
  secret?: string | Uint8Array | undefined;
  /** Most upstream tasks remembered for `tasks/list` and status notifications (default 10 000). */
  maxRecords?: number | undefined;
  /** The gateway's visibility policy: a task of a tool the caller may no longer see is unknown to it. */
  policy?: VisibilityPolicy | undefined;
}

/** Default {@link GatewayTasksOptions.maxRecords}. */
export const DEFAULT_GATEWAY_TASK_RECORDS = 10_000;

/** Longest task id or cursor a caller may send (longer: unknown / invalid at once). */
const MAX_TOKEN_LENGTH = 4096;
/** Upstream `tasks/list` pages read at most per caller request (pages of other callers' tasks are skipped). */
const MAX_PAGES_PER_LIST = 10;

const encoder = new TextEncoder();

/** Where a gateway task lives. */
interface Route {
  readonly upstream: string;
  readonly tool: string;
  readonly taskId: string;
}

/** A task made through this instance: who made it, its gateway id, where to send its status. */
interface TaskRecord {
  readonly owner: string;
  readonly id: string;
  readonly connection: ServerConnection | undefined;
}

/** The task router of one gateway (see the module note). */
export class GatewayTasks {
  readonly #upstreams: ReadonlyMap<string, TaskUpstream>;
  readonly #key: Promise<CryptoKey>;
  readonly #maxRecords: number;
  readonly #view: ((call: InterceptContext, tools: readonly JSONObject[]) => Promise<Map<string, JSONObject>>) | undefined;
  readonly #resultView: ((call: InterceptContext, name: string, result: JSONObject) => Promise<JSONObject>) | undefined;
  /** By `upstream \0 upstream task id`, oldest first. */
  readonly #records = new Map<string, TaskRecord>();

  /** Throws RangeError for a secret shorter than 16 bytes or a bad maxRecords. */
  constructor(upstreams: ReadonlyMap<string, TaskUpstream>, options: GatewayTasksOptions = {}) {
    this.#upstreams = upstreams;
    this.#maxRecords = options.maxRecords ?? DEFAULT_GATEWAY_TASK_RECORDS;
    if (!Number.isInteger(this.#maxRecords) || this.#maxRecords < 0) throw new RangeError('tasks.maxRecords must be a whole number, 0 or more');
    const secret = secretBytes(options.secret, 'The gateway task id secret');
    // a key of its own, derived from the secret (which may serve another purpose too, e.g. requestState)
    this.#key = hmacKey(secret, ['sign'])
      .then((root) => crypto.subtle.sign('HMAC', root, encoder.encode('mcpkit gateway task ids')))
      .then((derived) => hmacKey(new Uint8Array(derived), ['sign']));
    this.#view = options.policy === undefined ? undefined : toolView(options.policy);
    this.#resultView = options.policy === undefined ? undefined : toolResultView(options.policy);
  }

  /**
   * The caller's form of an upstream's `tools/call` result: a `CreateTaskResult` gets the
   * gateway id (and is remembered for `tasks/list`), anything else is returned as it is.
   */
  async created(upstream: string, tool: string, result: JSONObject, ctx: ServerRequestContext): Promise<JSONObject> {
    const task = result.task;
    if (!isObject(task) || typeof task.taskId !== 'string') return result;
    const owner = await ownerKey(ctx);
    const id = await this.#seal(owner, { upstream, tool, taskId: task.taskId });
    const key = `${upstream}\u0000${task.taskId}`;
    this.#records.delete(key);
    if (this.#maxRecords > 0) {
      this.#records.set(key, { owner, id, connection: ctx.connection });
      if (this.#records.size > this.#maxRecords) this.#records.delete(this.#records.keys().next().value as string);
    }
    return withId(result, 'task', id);
  }

  /**
   * The caller's form of an upstream's 2026-07-28 `tools/call` result: a flat
   * `CreateTaskResult` (`resultType: "task"`) gets the gateway id; anything else is returned as it is.
   */
  async createdFlat(upstream: string, tool: string, result: JSONObject, ctx: ServerRequestContext): Promise<JSONObject> {
    const taskId = createdTaskId(result);
    if (taskId === undefined) return result;
    return { ...result, taskId: await this.#seal(await principalKey(ctx), { upstream, tool, taskId }) };
  }

  /** An upstream's `notifications/tasks/status`: sent with the gateway id to the connection that made the task, if still connected. */
  status(upstream: string, params: JSONObject | undefined): void {
    if (typeof params?.taskId !== 'string') return;
    const record = this.#records.get(`${upstream}\u0000${params.taskId}`);
    const connection = record?.connection;
    if (record === undefined || connection === undefined || !connection.ready || connection.protocolVersion !== V2025_11_25) return;
    connection.notify(TaskNotification.Status, { ...params, taskId: record.id }).catch(() => {});
  }

  /**
   * The interceptor that answers the 2025-11-25 task requests of the gateway's callers while
   * `declared()`, and the 2026-07-28 extension's while `declaredFlat()`.
   */
  interceptor(declared: () => boolean, declaredFlat: () => boolean = () => false): Interceptor {
    return {
      name: 'gateway-tasks',
      intercept: (call, next) => {
        if (call.direction !== 'incoming' || call.kind !== 'request' || call.request === undefined) return next();
        const method = call.method;
        if (call.request.era.stateless !== undefined) {
          if (!EXTENSION_TASK_METHODS.includes(method) || !declaredFlat()) return next();
          if (!callerDeclaresTaskExtension(call.request)) return Promise.reject(taskExtensionRequired());
          return this.#routedFlat(method, call, call.request);
        }
        if (method !== TaskMethod.Get && method !== TaskMethod.Result && method !== TaskMethod.Cancel && method !== TaskMethod.List) return next();
        // other revisions and eras: the method table answers (-32601: the gateway offers tasks in the 2025-11-25 form only)
        if (call.revision !== V2025_11_25 || !declared()) return next();
        return method === TaskMethod.List ? this.#list(call, call.request) : this.#routed(method, call, call.request);
      },
    };
  }

  async #routed(method: string, call: InterceptContext, ctx: ServerRequestContext): Promise<JSONObject> {
    const params = call.params ?? {};
    if (typeof params.taskId !== 'string') throw invalidParams('Invalid params: "taskId" must be a string');
    const owner = await ownerKey(ctx);
    const route = await this.#open(owner, params.taskId);
    const upstream = route === undefined ? undefined : this.#upstreams.get(route.upstream);
    if (route === undefined || upstream === undefined || !(await this.#sees(call, route.tool))) throw unknownTask();
    const { _meta, ...rest } = params;
    const result = await upstream.request(method, { ...rest, taskId: route.taskId, ...(_meta === undefined ? {} : { _meta }) }, ctx);
    // tasks/get and tasks/cancel answer the task; tasks/result the tool's result, with the related-task _meta
    if (method === TaskMethod.Result) {
      // the output fields the policy drops from this tool's results are dropped here too
      const shown = this.#resultView === undefined ? result : await this.#resultView(call, route.tool, result);
      return withRelated(shown, route.taskId, params.taskId);
    }
    return typeof result.taskId === 'string' ? { ...result, taskId: params.taskId } : result;
  }

  async #routedFlat(method: string, call: InterceptContext, ctx: ServerRequestContext): Promise<JSONObject> {
    const params = call.params ?? {};
    if (typeof params.taskId !== 'string') throw invalidParams('Invalid params: "taskId" must be a string');
    const route = await this.#open(await principalKey(ctx), params.taskId);
    const upstream = route === undefined ? undefined : this.#upstreams.get(route.upstream);
    if (route === undefined || upstream === undefined || !(await this.#sees(call, route.tool))) throw unknownTask();
    const result = await upstream.request(method, { ...params, taskId: route.taskId }, ctx);
    // tasks/get answers the task (its `result` is the tool's: the output fields the policy drops are dropped here too)
    let shown = result;
    if (this.#resultView !== undefined && isObject(result.result)) shown = { ...result, result: await this.#resultView(call, route.tool, result.result) };
    return typeof shown.taskId === 'string' ? { ...shown, taskId: params.taskId } : shown;
  }

  async #list(call: InterceptContext, ctx: ServerRequestContext): Promise<JSONObject> {
    const owner = await ownerKey(ctx);
    const order = [...this.#upstreams.values()].filter((u) => listsTasks(u.capabilities()));
    let at: { u: string; c: string | null } | undefined = { u: order[0]?.name ?? '', c: null };
    const cursor = call.params?.cursor;
    if (cursor !== undefined) {
      at = typeof cursor === 'string' ? await this.#openCursor(owner, cursor) : undefined;
      if (at === undefined) throw invalidParams('Invalid params: "cursor" is not a cursor of this gateway (list again from the start)');
    }
    const tasks: JSONObject[] = [];
    for (let page = 0; at !== undefined && page < MAX_PAGES_PER_LIST && tasks.length === 0; page++) {
      const index = order.findIndex((u) => u.name === at!.u);
      const upstream = order[index];
      // an upstream gone from the order (down, or it stopped listing): its remaining pages are skipped
      if (upstream === undefined) {
        at = undefined;
        break;
      }
      const result = await upstream.request(TaskMethod.List, at.c === null ? {} : { cursor: at.c }, ctx);
      for (const task of Array.isArray(result.tasks) ? (result.tasks as unknown[]) : []) {
        if (!isObject(task) || typeof task.taskId !== 'string') continue;
        const record = this.#records.get(`${upstream.name}\u0000${task.taskId}`);
        if (record?.owner === owner) tasks.push({ ...task, taskId: record.id });
      }
      const next = typeof result.nextCursor === 'string' && result.nextCursor !== '' ? result.nextCursor : undefined;
      at = next !== undefined ? { u: upstream.name, c: next } : index + 1 < order.length ? { u: order[index + 1]!.name, c: null } : undefined;
    }
    return at === undefined ? { tasks } : { tasks, nextCursor: await this.#sealCursor(owner, at) };
  }

  /** Whether the gateway's policy lets the caller see `tool` (always, without a policy). */
  async #sees(call: InterceptContext, tool: string): Promise<boolean> {
    if (this.#view === undefined) return true;
    return (await this.#view(call, [{ name: tool }])).has(tool);
  }

  async #mac(parts: readonly string[]): Promise<string> {
    const signature = await crypto.subtle.sign('HMAC', await this.#key, encoder.encode(JSON.stringify(parts)));
    return base64url(new Uint8Array(signature, 0, 16));
  }

  async #seal(owner: string, route: Route): Promise<string> {
    const mac = await this.#mac(['task', owner, route.upstream, route.tool, route.taskId]);
    return [route.upstream, route.tool, route.taskId].map((part) => base64url(encoder.encode(part))).join('.') + `.${mac}`;
  }

  /** The route of a gateway task id made for `owner`; undefined when it is not one (malformed, edited, or another caller's). */
  async #open(owner: string, id: string): Promise<Route | undefined> {
    if (id.length > MAX_TOKEN_LENGTH) return undefined;
    const parts = id.split('.');
    if (parts.length !== 4) return undefined;
    const [upstream, tool, taskId] = parts.slice(0, 3).map(text);
    if (upstream === undefined || tool === undefined || taskId === undefined) return undefined;
    const expected = await this.#mac(['task', owner, upstream, tool, taskId]);
    return same(expected, parts[3]!) ? { upstream, tool, taskId } : undefined;
  }

  async #sealCursor(owner: string, at: { u: string; c: string | null }): Promise<string> {
    const payload = JSON.stringify([at.u, at.c]);
    return `${base64url(encoder.encode(payload))}.${await this.#mac(['cursor', owner, payload])}`;
  }

  async #openCursor(owner: string, cursor: string): Promise<{ u: string; c: string | null } | undefined> {
    if (cursor.length > MAX_TOKEN_LENGTH) return undefined;
    const [body, mac, extra] = cursor.split('.');
    const payload = body === undefined ? undefined : text(body);
    if (payload === undefined || mac === undefined || extra !== undefined) return undefined;
    if (!same(await this.#mac(['cursor', owner, payload]), mac)) return undefined;
    const [u, c] = JSON.parse(payload) as [string, string | null];
    return { u, c };
  }
}

/** True when the upstream capabilities include 2025-11-25 task-augmented `tools/call`. */
export function runsToolTasks(capabilities: ServerCapabilities | undefined): boolean {
  const tasks = (capabilities as { tasks?: { requests?: { tools?: { call?: unknown } } } } | undefined)?.tasks;
  return tasks?.requests?.tools?.call !== undefined;
}

function listsTasks(capabilities: ServerCapabilities | undefined): boolean {
  return (capabilities as { tasks?: { list?: unknown } } | undefined)?.tasks?.list !== undefined;
}

/** The caller's owner key: its transport session (or connection) and auth context. */
async function ownerKey(ctx: ServerRequestContext): Promise<string> {
  const owner = await ownerByConnection(ctx);
  return JSON.stringify([owner.session ?? null, owner.auth ?? null]);
}

/** The caller's owner key in the stateless era: its principal only (no session to bind to). */
async function principalKey(ctx: ServerRequestContext): Promise<string> {
  return JSON.stringify(['principal', (await authKey(ctx.authInfo)) ?? null]);
}

/** The text of a base64url part; undefined when it is not base64url of UTF-8. */
function text(part: string): string | undefined {
  const bytes = fromBase64url(part);
  if (bytes === undefined) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** Constant-time comparison of two MACs. */
function same(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** `result` with `result[key].taskId` set to `id` (and a related-task `_meta` naming it, if any). */
function withId(result: JSONObject, key: string, id: string): JSONObject {
  const out = { ...result, [key]: { ...(result[key] as JSONObject), taskId: id } };
  return withRelated(out, undefined, id);
}

/** `result` with its related-task `_meta` (when present and naming `upstreamId`, or any when undefined) naming `id` instead. */
function withRelated(result: JSONObject, upstreamId: string | undefined, id: string): JSONObject {
  const meta = result._meta;
  if (!isObject(meta) || !isObject(meta[RELATED_TASK_META])) return result;
  const related = meta[RELATED_TASK_META] as JSONObject;
  if (upstreamId !== undefined && related.taskId !== upstreamId) return result;
  return { ...result, _meta: { ...meta, [RELATED_TASK_META]: { ...related, taskId: id } } };
}

/** The error of an unknown task (2025-11-25: -32602), worded as mcpkit's own task server words it, the same for every reason. */
function unknownTask(): McpError {
  return invalidParams('Failed to retrieve task: Task not found');
}
