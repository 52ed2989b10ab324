/**
 * The client's stateless era (2026-07-28): choosing the era, the per-request `_meta`, and
 * multi round-trip requests.
 *
 * Design notes:
 * - Version selection (2026-07-28 › Basic › Versioning): a client that accepts a stateless
 *   revision probes with `server/discover` at its preferred one. A `DiscoverResult` means a
 *   modern server: the client picks the first of its revisions the server lists. A
 *   recognized modern error (-32022 with `data.supported`) means a modern server that wants
 *   another version: the probe is repeated with one from that list. Anything else — another
 *   JSON-RPC error, an HTTP error without a modern error body, no answer within the probe
 *   timeout — means a 2025-era server, and the client falls back to `initialize` when it
 *   accepts a stateful revision. The same logic serves stdio and HTTP.
 * - Every request of a stateless connection goes through {@link StatelessClient.middleware},
 *   installed as outgoing middleware: it adds the `_meta` fields (version, capabilities,
 *   identity, log level), retries once with another version on -32022, re-lists tools and
 *   retries once when a `tools/call` is refused with -32020 (its `Mcp-Param-*` headers were
 *   stale), and runs the multi round-trip loop: an `InputRequiredResult` is answered through
 *   the very handlers the client registered for the 2025 era's server → client requests
 *   (roots, sampling, elicitation), and the request is sent again — a new JSON-RPC id — with
 *   the `inputResponses` and the server's `requestState` echoed verbatim (none when it sent
 *   none). The loop is bounded.
 * - Tasks (the `io.modelcontextprotocol/tasks` extension, opt-in with `tasks: true`): the
 *   extension is declared in every request's capabilities, and a `tools/call` the server
 *   turns into a task (`resultType: "task"`) is waited for transparently — `tasks/get` at
 *   the server's `pollIntervalMs`, its `inputRequests` answered once each through the same
 *   handlers and delivered with `tasks/update` — so the caller still gets the tool's result
 *   (or its error). Aborting the call sends `tasks/cancel`; so does reaching the call's
 *   `timeoutMs` (or `maxTotalTimeoutMs`), which bounds the whole call, the wait included.
 * - A result without `resultType` is complete; an unknown `resultType` (or `task` where
 *   the client did not declare the extension) is invalid.
 */
import { LocalError, McpError } from '../../jsonrpc/errors.js';
import type { JSONObject } from '../../jsonrpc/types.js';
import { isObject } from '../../jsonrpc/values.js';
import { Method } from '../../protocol/methods.js';
import type { CallContext, MethodHandler, Middleware } from '../../protocol/middleware.js';
import {
  type DiscoverResult,
  INPUT_REQUIRED_METHODS,
  type InputRequest,
  isStatelessError,
  MetaKey,
  ResultType,
  StatelessErrorCode,
  TASKS_EXTENSION,
} from '../../protocol/stateless/wire.js';
import type { RequestOptions } from '../../session/session.js';
import type { ClientCapabilities, Implementation, LoggingLevel } from '../../types.js';
import { RequestMetadata } from './headers.js';

/** What the stateless machinery needs from its client. */
export interface StatelessClientHost {
  readonly info: Implementation;
  /** The capabilities the client declares (sent in every request's `_meta`). */
  readonly capabilities: ClientCapabilities;
  /** Answers one input request through the client's handler of `method`. */
  answerInput(key: string, method: string, params: JSONObject | undefined, signal: AbortSignal | undefined): Promise<unknown>;
  /** Lists every tool again (refreshes the remembered `x-mcp-header` annotations). */
  relistTools(options: RequestOptions | undefined): Promise<unknown>;
  /** Reports a warning nobody else hears about (a tool left out of `tools/list`). Must not throw. */
  warn(error: Error): void;
}

/** Options of the stateless era on the client. */
export interface StatelessClientOptions {
  /** Most input rounds of one request before it fails with LocalError `invalid_result`. Default 8. */
  maxInputRounds?: number;
  /** The log level asked for on every request (`_meta` logLevel); default none (no logs). */
  logLevel?: LoggingLevel;
  /**
   * Declare the tasks extension (`io.modelcontextprotocol/tasks`) and wait for tasks the
   * server creates (see the module note). Default false: the server answers every call
   * itself.
   */
  tasks?: boolean;
  /** Bounds of the polling interval of a task, in ms (the server suggests one). Default 10 … 10 000. */
  taskPollBoundsMs?: readonly [min: number, max: number];
}

/** The outcome of a `server/discover` probe. */
export type ProbeOutcome = { era: 'stateless'; revision: string; discover: DiscoverResult } | { era: 'stateful'; cause: unknown };

/** The per-request `_meta` fields for `revision`. */
export function requestMeta(revision: string, capabilities: ClientCapabilities, info: Implementation, logLevel: LoggingLevel | undefined): JSONObject {
  const meta: JSONObject = {
    [MetaKey.ProtocolVersion]: revision,
    [MetaKey.ClientCapabilities]: capabilities,
    [MetaKey.ClientInfo]: info,
  };
  if (logLevel !== undefined) meta[MetaKey.LogLevel] = logLevel;
  return meta;
}

/** The first of `ours` (in order) that `theirs` lists. */
function pick(ours: readonly string[], theirs: unknown): string | undefined {
  return Array.isArray(theirs) ? ours.find((v) => theirs.includes(v)) : undefined;
}

/**
 * Probes the server with `server/discover` (see the module note), sent with `send`: the
 * endpoint's outgoing middleware without its method table (no table applies before the era
 * is known), so middleware such as telemetry sees the probe. `versions` are the client's
 * stateless revisions, preferred first. Rejects only when the server is modern but refuses
 * (a modern error other than -32022, or no common version and `canFallBack` false), or the
 * probe was aborted.
 */
export async function probeServer(
  send: (method: string, params: JSONObject, options: RequestOptions) => Promise<unknown>,
  versions: readonly string[],
  meta: (revision: string) => JSONObject,
  canFallBack: boolean,
  options: RequestOptions,
): Promise<ProbeOutcome> {
  let version = versions[0]!;
  const tried = new Set<string>();
  for (let attempt = 0; attempt < versions.length + 1; attempt++) {
    tried.add(version);
    let result: unknown;
    try {
      const metadata = { 'mcp-protocol-version': version, 'mcp-method': Method.ServerDiscover };
      result = await send(Method.ServerDiscover, { _meta: meta(version) }, { ...options, metadata });
    } catch (err) {
      if (options.signal?.aborted) throw err;
      if (err instanceof McpError && err.code === StatelessErrorCode.UnsupportedProtocolVersion) {
        const supported = (err.data as { supported?: unknown } | undefined)?.supported;
        const next = pick(versions, supported);
        // -32022 naming the version just tried again: retry it once (some servers reject a first request)
        if (next !== undefined && (!tried.has(next) || attempt === 0)) {
          version = next;
          continue;
        }
        if (canFallBack) return { era: 'stateful', cause: err };
        throw new LocalError(
          'unsupported_protocol_version',
          `The server supports none of this client's protocol versions (it offers ${JSON.stringify(supported)})`,
          { cause: err },
        );
      }
      if (err instanceof McpError && isStatelessError(err.code)) throw err;
      if (!canFallBack) throw err;
      return { era: 'stateful', cause: err };
    }
    if (!isObject(result) || !Array.isArray(result.supportedVersions) || !isObject(result.capabilities)) {
      if (canFallBack) return { era: 'stateful', cause: new LocalError('invalid_result', 'server/discover answered with a malformed result') };
      throw new LocalError('invalid_result', 'server/discover answered with a malformed result');
    }
    const discover = result as unknown as DiscoverResult;
    const chosen = discover.supportedVersions.includes(version) ? version : pick(versions, discover.supportedVersions);
    if (chosen !== undefined) return { era: 'stateless', revision: chosen, discover };
    if (canFallBack)
      return { era: 'stateful', cause: new LocalError('unsupported_protocol_version', 'The server offers no stateless revision this client speaks') };
    throw new LocalError('unsupported_protocol_version', `The server offers ${JSON.stringify(discover.supportedVersions)}, none of which this client speaks`);
  }
  if (canFallBack) return { era: 'stateful', cause: new LocalError('unsupported_protocol_version', 'No protocol version was agreed') };
  throw new LocalError('unsupported_protocol_version', 'No protocol version was agreed with the server');
}

/** The server identity a discover result carries (`_meta`, or an older draft's body field). */
export function serverInfoOf(discover: DiscoverResult): Implementation {
  const meta = discover._meta?.[MetaKey.ServerInfo];
  if (isObject(meta) && typeof meta.name === 'string' && typeof meta.version === 'string') return meta as unknown as Implementation;
  const body = (discover as unknown as { serverInfo?: unknown }).serverInfo;
  if (isObject(body) && typeof body.name === 'string' && typeof body.version === 'string') return body as unknown as Implementation;
  return { name: 'unknown', version: 'unknown' };
}

/** The client side of a connection in the stateless era (see the module note). */
export class StatelessClient {
  /** The revision in use; set once the probe chose it. */
  revision: string | undefined = undefined;
  /** The log level asked for on every request; undefined: none. */
  logLevel: LoggingLevel | undefined;
  /** The last `server/discover` result. */
  discover: DiscoverResult | undefined = undefined;
  readonly versions: readonly string[];
  readonly #host: StatelessClientHost;
  readonly #maxRounds: number;
  readonly #tasks: boolean;
  readonly #pollBounds: readonly [number, number];
  /** What each request carries beside its body (request headers over HTTP), and the tool annotations it comes from. */
  readonly #metadata = new RequestMetadata();

  constructor(host: StatelessClientHost, versions: readonly string[], options: StatelessClientOptions = {}) {
    this.#host = host;
    this.versions = versions;
    this.logLevel = options.logLevel;
    this.#maxRounds = options.maxInputRounds ?? 8;
    this.#tasks = options.tasks === true;
    this.#pollBounds = options.taskPollBoundsMs ?? [10, 10_000];
  }

  /** True once the connection settled on the stateless era. */
  get active(): boolean {
    return this.revision !== undefined;
  }

  /** The cached `_meta` without (index 0) and with (index 1) the tasks extension declared. */
  readonly #cached: ({ revision: string; logLevel: LoggingLevel | undefined; meta: JSONObject } | undefined)[] = [undefined, undefined];

  /**
   * The `_meta` fields of a request at `revision` (default: the one in use); `tasks` declares
   * the tasks extension whatever the client's option (a request's `returnTasks`). Do not mutate.
   */
  meta(revision = this.revision!, tasks = false): JSONObject {
    const declare = tasks || this.#tasks;
    const c = this.#cached[declare ? 1 : 0];
    if (c !== undefined && c.revision === revision && c.logLevel === this.logLevel) return c.meta;
    let capabilities = this.#host.capabilities;
    if (declare) {
      const extensions = (capabilities as { extensions?: JSONObject }).extensions;
      capabilities = { ...capabilities, extensions: { ...extensions, [TASKS_EXTENSION]: {} } };
    }
    const meta = requestMeta(revision, capabilities, this.#host.info, this.logLevel);
    this.#cached[declare ? 1 : 0] = { revision, logLevel: this.logLevel, meta };
    return meta;
  }

  /** Outgoing middleware: passes everything through until {@link active}; see the module note. */
  readonly middleware: Middleware = (next) => (method, params, ctx) => {
    if (!this.active || ctx.kind !== 'request') return next(method, params, ctx);
    return this.#request(next, method, params, ctx);
  };

  async #request(next: MethodHandler, method: string, params: JSONObject | undefined, ctx: CallContext): Promise<unknown> {
    const started = Date.now();
    const base: JSONObject = params === undefined ? {} : { ...params };
    // a caller's stray multi round-trip fields go (this loop sets its own); tasks/update carries its answers in inputResponses
    if (method !== 'tasks/update') delete base.inputResponses;
    delete base.requestState;
    let inputResponses: JSONObject | undefined;
    let requestState: string | undefined;
    let versionRetried = false;
    let headersRetried = false;
    const returnTasks = ctx.options?.returnTasks === true;
    for (let round = 0; ; ) {
      const wire: JSONObject = { ...base, _meta: { ...(isObject(base._meta) ? base._meta : undefined), ...this.meta(this.revision, returnTasks) } };
      if (inputResponses !== undefined) wire.inputResponses = inputResponses;
      if (requestState !== undefined) wire.requestState = requestState;
      let result: unknown;
      try {
        result = await next(method, wire, this.#withMetadata(ctx, method, wire));
      } catch (err) {
        if (err instanceof McpError && err.code === StatelessErrorCode.UnsupportedProtocolVersion && !versionRetried) {
          const next = pick(this.versions, (err.data as { supported?: unknown } | undefined)?.supported);
          if (next !== undefined) {
            versionRetried = true;
            this.revision = next;
            continue;
          }
        }
        if (err instanceof McpError && err.code === StatelessErrorCode.HeaderMismatch && method === Method.ToolsCall && !headersRetried) {
          headersRetried = true;
          await this.#host.relistTools(ctx.options);
          continue;
        }
        throw err;
      }
      const type = isObject(result) ? result.resultType : undefined;
      if (type === undefined || type === ResultType.Complete) {
        if (method === Method.ToolsList) this.#metadata.absorbTools(result, (error) => this.#host.warn(error));
        return result;
      }
      if (type === ResultType.Task && method === Method.ToolsCall) {
        if (returnTasks) return result;
        if (this.#tasks) return this.#awaitTask(next, result as JSONObject, ctx, started);
      }
      if (type !== ResultType.InputRequired) throw new LocalError('invalid_result', `${method} answered with an unknown resultType ${JSON.stringify(type)}`);
      if (!INPUT_REQUIRED_METHODS.has(method)) throw new LocalError('invalid_result', `${method} cannot answer with an InputRequiredResult`);
      if (++round > this.#maxRounds) throw new LocalError('invalid_result', `${method} still required input after ${this.#maxRounds} rounds`);
      const r = result as JSONObject;
      inputResponses = isObject(r.inputRequests) ? await this.#answerAll(r.inputRequests, ctx.options?.signal) : undefined;
      requestState = typeof r.requestState === 'string' ? r.requestState : undefined;
      if (inputResponses === undefined && requestState === undefined)
        throw new LocalError('invalid_result', `${method} answered with an InputRequiredResult that has neither inputRequests nor requestState`);
    }
  }

  /**
   * `ctx` with the request metadata of `method` / `params` at the revision in use in its
   * options (the transport carries it beside the body: request headers over HTTP).
   */
  #withMetadata(ctx: CallContext, method: string, params: JSONObject): CallContext {
    return { ...ctx, options: { ...ctx.options, metadata: this.#metadata.of(this.revision!, method, params) } } as CallContext;
  }

  /** A request of the tasks extension, with this connection's `_meta`. */
  #taskRequest(next: MethodHandler, method: string, params: JSONObject, ctx: CallContext): Promise<JSONObject> {
    const wire = { ...params, _meta: this.meta() };
    return next(method, wire, this.#withMetadata(ctx, method, wire)).then((r) => {
      if (!isObject(r)) throw new LocalError('invalid_result', `${method} answered with a malformed result`);
      return r;
    });
  }

  /**
   * Waits for the task a `tools/call` became (see the module note); resolves with the tool's
   * result. The caller's `timeoutMs` and `maxTotalTimeoutMs`, when given, bound the whole call
   * from `started` (the first `tools/call` sent), the wait included: at the deadline the
   * call rejects with LocalError `timeout` and `tasks/cancel` is sent, as when the caller
   * aborts. Without them only the caller's signal ends the wait (each request of it still has
   * the connection's timeout).
   */
  async #awaitTask(next: MethodHandler, created: JSONObject, ctx: CallContext, started: number): Promise<unknown> {
    const taskId = created.taskId;
    if (typeof taskId !== 'string' || taskId === '') throw new LocalError('invalid_result', 'tools/call answered with a CreateTaskResult without a taskId');
    const bound = callBound(ctx.options);
    const outer = ctx.options?.signal;
    // the caller's signal, or one that also fires at the deadline (and then carries the timeout error)
    let signal = outer;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let timedOut: LocalError | undefined;
    let onOuter: (() => void) | undefined;
    if (bound !== undefined) {
      const controller = new AbortController();
      signal = controller.signal;
      onOuter = () => controller.abort(outer!.reason);
      if (outer?.aborted) onOuter();
      else outer?.addEventListener('abort', onOuter, { once: true });
      timer = setTimeout(
        () => {
          timedOut = new LocalError('timeout', `Request tools/call timed out after ${bound} ms: its task ${taskId} had not ended (tasks/cancel sent)`);
          controller.abort(timedOut);
        },
        Math.max(0, started + bound - Date.now()),
      );
      ctx = { ...ctx, options: { ...ctx.options, signal } } as CallContext;
    }
    const [min, max] = this.#pollBounds;
    const interval = (t: JSONObject, previous: number) => {
      const ms = typeof t.pollIntervalMs === 'number' && t.pollIntervalMs >= 0 ? t.pollIntervalMs : previous;
      return Math.min(Math.max(ms, min), max);
    };
    let wait = interval(created, 1000);
    const answered = new Set<string>();
    let task: JSONObject = created;
    try {
      for (;;) {
        if (task.status === 'completed') {
          if (!isObject(task.result)) throw new LocalError('invalid_result', `Task ${taskId} completed without a result`);
          return task.result;
        }
        if (task.status === 'failed') {
          const e = isObject(task.error) ? task.error : {};
          throw new McpError(
            typeof e.code === 'number' ? e.code : -32603,
            typeof e.message === 'string' ? e.message : String(task.statusMessage ?? 'The task failed'),
            e.data,
          );
        }
        if (task.status === 'cancelled')
          throw new LocalError('cancelled', `Task ${taskId} was cancelled${typeof task.statusMessage === 'string' ? `: ${task.statusMessage}` : ''}`);
        if (task.status === 'input_required' && isObject(task.inputRequests)) {
          const open: JSONObject = {};
          for (const key of Object.keys(task.inputRequests)) if (!answered.has(key)) open[key] = task.inputRequests[key]!;
          if (Object.keys(open).length > 0) {
            const inputResponses = await this.#answerAll(open, signal);
            for (const key of Object.keys(open)) answered.add(key);
            await this.#taskRequest(next, 'tasks/update', { taskId, inputResponses }, ctx);
            task = await this.#taskRequest(next, 'tasks/get', { taskId }, ctx);
            continue;
          }
        }
        await delay(wait, signal);
        task = await this.#taskRequest(next, 'tasks/get', { taskId }, ctx);
        wait = interval(task, wait);
      }
    } catch (err) {
      if (signal?.aborted) {
        // the caller gave up (or its time ran out): ask the server to stop the work (best effort, not awaited)
        const wire = { taskId, _meta: this.meta() };
        next('tasks/cancel', wire, {
          ...ctx,
          options: { ...ctx.options, signal: undefined, metadata: this.#metadata.of(this.revision!, 'tasks/cancel', wire) },
        } as CallContext).catch(() => {});
      }
      throw timedOut ?? err;
    } finally {
      clearTimeout(timer);
      if (onOuter !== undefined) outer?.removeEventListener('abort', onOuter);
    }
  }

  async #answerAll(requests: JSONObject, signal: AbortSignal | undefined): Promise<JSONObject> {
    const keys = Object.keys(requests);
    const answers = await Promise.all(
      keys.map((key) => {
        const request = requests[key] as InputRequest;
        if (!isObject(request) || typeof request.method !== 'string')
          return Promise.reject(new LocalError('invalid_result', `inputRequests.${key} is not a request`));
        return this.#host.answerInput(key, request.method, isObject(request.params) ? request.params : undefined, signal);
      }),
    );
    const out: JSONObject = {};
    for (let i = 0; i < keys.length; i++) out[keys[i]!] = answers[i];
    return out;
  }
}

/** The caller's bound on a whole call in ms (the smaller of `timeoutMs` and `maxTotalTimeoutMs` given), or undefined. */
function callBound(options: RequestOptions | undefined): number | undefined {
  let bound = Infinity;
  for (const ms of [options?.timeoutMs, options?.maxTotalTimeoutMs]) if (typeof ms === 'number' && ms > 0 && ms < bound) bound = ms;
  return Number.isFinite(bound) ? bound : undefined;
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
function delay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
