/**
 * The server's stateless era (2026-07-28), beside the 2025 era on the same server.
 *
 * Design note: one {@link StatelessLayer} per {@link McpServer}. It contributes
 * - the era strategy of each 2026-07-28 request ({@link StatelessLayer.requestEra}: a
 *   `StatelessRequest` made from the request's era reading, when its context is made), and
 *   what that strategy's `serve` does: opens the multi round-trip inputs of `tools/call`,
 *   `prompts/get` and `resources/read` (the answers of a verified `requestState` and the
 *   `inputResponses` of a retry), lets the request run, then shapes the result:
 *   `resultType`, `_meta.io.modelcontextprotocol/serverInfo`, `ttlMs`/`cacheScope` on
 *   cacheable results, -32602 (with `data.uri`) instead of -32002 for an unknown resource,
 *   and an `InputRequiredResult` when the handler asked for input it did not get;
 * - the `server/discover` and `subscriptions/listen` handlers, and the live subscriptions
 *   the server's change notifications are fanned out to. A subscription lives as long as its
 *   request: the client ends it by cancelling (closing the HTTP stream), the server by
 *   answering it (graceful closure, on `close()`).
 * The protocol layer picks the 2026-07-28 method table for these requests (removed methods
 * answer -32601), so nothing here branches on methods the revision lacks.
 */
import { McpError } from '../../jsonrpc/errors.js';
import { presetJson } from '../../jsonrpc/preset-json.js';
import { ErrorCode, type JSONObject, type RequestId } from '../../jsonrpc/types.js';
import { isObject, isThenable } from '../../jsonrpc/values.js';
import { Method, Notification } from '../../protocol/methods.js';
import type { InnerHandler } from '../../protocol/middleware.js';
import {
  CACHEABLE_METHODS,
  type CacheHints,
  INPUT_REQUIRED_METHODS,
  type InputRequiredResult,
  MetaKey,
  type RequestMeta,
  ResultType,
  type SubscriptionFilter,
} from '../../protocol/stateless/wire.js';
import type { RevisionTable } from '../../protocol/table.js';
import type { RequestChannel } from '../../session/context.js';
import type { Implementation, ServerCapabilities } from '../../types.js';
import type { ServerRequestContext } from '../context.js';
import { checkListenSubscriptions, type SubscriptionLimits } from '../subscription-limits.js';
import type { EraRequest } from '../types.js';
import { checkInputResponses, InputRound, RequestStateCodec, type RequestStateOptions } from './mrtr.js';
import { StatelessRequest, type StatelessShaper } from './request.js';

/** Options of the stateless era, `ServerOptions.stateless`. */
export interface StatelessServerOptions {
  /**
   * Revisions of the stateless era this server serves, newest first (default: every one
   * mcpkit speaks; `[]` turns the era off: such requests are then treated as 2025-era ones).
   */
  revisions?: readonly string[];
  /** How `requestState` is protected (see mrtr.ts). */
  requestState?: RequestStateOptions;
  /**
   * Caching hints of cacheable results that carry none of their own: fixed, or per method
   * and params (return undefined for the default). Default `{ttlMs: 0, cacheScope: "private"}`:
   * stale at once, never shared across authorization contexts.
   */
  cacheHints?: CacheHints | ((method: string, params: JSONObject | undefined) => CacheHints | undefined);
  /** Put `io.modelcontextprotocol/serverInfo` into every result's `_meta`. Default true. */
  serverInfoInResults?: boolean;
}

/** What the layer reads from its server. */
export interface StatelessHost {
  readonly info: Implementation;
  readonly instructions: string | undefined;
  /** The capabilities of this era (see `McpServer.statelessCapabilities`). */
  statelessCapabilities(): ServerCapabilities;
  /** Bounds on `resourceSubscriptions`. */
  readonly subscriptionLimits: SubscriptionLimits;
}

const DEFAULT_HINTS: CacheHints = Object.freeze({ ttlMs: 0, cacheScope: 'private' });

/** One live `subscriptions/listen` request. */
class Subscription {
  constructor(
    readonly session: RequestChannel,
    /** The request's id in its session (routing of notifications to its stream). */
    readonly requestId: RequestId,
    readonly filter: SubscriptionFilter,
    readonly meta: JSONObject,
    readonly end: () => void,
  ) {}

  send(method: string, params?: JSONObject): void {
    this.session.notify(method, { ...params, _meta: this.meta }, { relatedRequestId: this.requestId }).catch(() => {});
  }
}

/** The stateless era of one server. Created by `McpServer`; see the module note. */
export class StatelessLayer implements StatelessShaper {
  /** The revisions served; empty when the era is off. */
  readonly revisions: readonly string[];
  readonly #host: StatelessHost;
  readonly #options: StatelessServerOptions;
  #codec: RequestStateCodec | undefined;
  readonly #subscriptions = new Set<Subscription>();
  /** The `_meta` of results that bring none: the server's identity (shared, frozen). */
  #identity: JSONObject | undefined;

  /** Throws RangeError for invalid `requestState` options. */
  constructor(host: StatelessHost, revisions: readonly string[], options: StatelessServerOptions = {}) {
    this.#host = host;
    this.revisions = options.revisions ?? revisions;
    this.#options = options;
    if (options.requestState !== undefined) this.#codec = new RequestStateCodec(options.requestState);
  }

  /** True when the era is on. */
  get enabled(): boolean {
    return this.revisions.length > 0;
  }

  get #stateCodec(): RequestStateCodec {
    return (this.#codec ??= new RequestStateCodec());
  }

  /** Live subscriptions (for tests and metrics). */
  get subscriptionCount(): number {
    return this.#subscriptions.size;
  }

  // ───────────── one request ─────────────

  /** The era strategy of one 2026-07-28 request, from its era reading. */
  requestEra(meta: RequestMeta, table: RevisionTable): StatelessRequest {
    return new StatelessRequest(meta, table, this);
  }

  /** What a request's strategy runs (see the module note): inputs, the request, the shaping. */
  serve(state: StatelessRequest, next: InnerHandler, method: string, params: JSONObject | undefined, request: EraRequest): unknown {
    if (INPUT_REQUIRED_METHODS.has(method)) {
      state.inputAllowed = true;
      // a retry opens its round first (the answers); a first request gets one only if it asks
      if (params !== undefined && ('inputResponses' in params || params.requestState !== undefined)) return this.#retry(next, method, params, request, state);
    }
    return this.#run(next, method, params, request, state);
  }

  /**
   * Runs the request and shapes its outcome (the common path: no await of its own). `next`
   * may answer at once or throw (the incoming chain, see `composeInner`); an outcome that
   * came at once is shaped at once.
   */
  #run(next: InnerHandler, method: string, params: JSONObject | undefined, request: EraRequest, state: StatelessRequest): unknown {
    let outcome: unknown;
    try {
      outcome = next(method, params, request as ServerRequestContext);
    } catch (err) {
      return this.#failed(err, method, params, request, state);
    }
    if (!isThenable(outcome)) return this.#succeeded(outcome, method, params, request, state);
    return Promise.resolve(outcome).then<unknown, unknown>(
      (result) => this.#succeeded(result, method, params, request, state),
      (err: unknown) => this.#failed(err, method, params, request, state),
    );
  }

  /** The result of a request that ran: shaped, or `InputRequiredResult` when it asked for input. */
  #succeeded(result: unknown, method: string, params: JSONObject | undefined, request: EraRequest, state: StatelessRequest): unknown {
    return state.round?.hasPending ? this.#inputRequired(method, params, request, state.round) : this.#complete(method, params, result);
  }

  /** A request that failed: `InputRequiredResult` when it asked for input first, else the failure (thrown) as the era words it. */
  #failed(err: unknown, method: string, params: JSONObject | undefined, request: EraRequest, state: StatelessRequest): unknown {
    if (state.round?.hasPending) return this.#inputRequired(method, params, request, state.round);
    if (err instanceof McpError && err.code === ErrorCode.ResourceNotFound && method === Method.ResourcesRead) {
      // 2026-07-28 › Resources › Error Handling: -32602, the URI in `data`.
      throw new McpError(ErrorCode.InvalidParams, err.message, isObject(err.data) ? err.data : { uri: params?.uri });
    }
    throw err;
  }

  /** A retry of a multi round-trip request: checks its answers and state, then runs it. */
  async #retry(next: InnerHandler, method: string, params: JSONObject, request: EraRequest, state: StatelessRequest): Promise<unknown> {
    const responses = 'inputResponses' in params ? checkInputResponses(params.inputResponses ?? null) : undefined;
    const requestState = params.requestState;
    if (requestState !== undefined && typeof requestState !== 'string')
      throw new McpError(ErrorCode.InvalidParams, 'Invalid params: "requestState" must be a string');
    const prior = requestState === undefined ? {} : await this.#stateCodec.open(requestState, method, params, request.authInfo);
    state.round = new InputRound(prior, responses);
    return this.#run(next, method, params, request, state);
  }

  async #inputRequired(method: string, params: JSONObject | undefined, ctx: EraRequest, round: InputRound): Promise<InputRequiredResult> {
    const result: InputRequiredResult = {
      resultType: ResultType.InputRequired,
      inputRequests: round.pendingRequests(),
      requestState: await this.#stateCodec.seal(round.carried(), method, params, ctx.authInfo),
    };
    if (this.#options.serverInfoInResults !== false) result._meta = this.#identityMeta();
    return result;
  }

  /**
   * `resultType`, server identity and caching hints on a complete result (the result's own
   * values win). Built as one object literal with the result spread last: V8 copies that in
   * a single step, where adding members to a copy afterwards costs several times more.
   */
  #complete(method: string, params: JSONObject | undefined, result: unknown): JSONObject {
    const r: JSONObject = isObject(result) ? result : {};
    const identity = this.#options.serverInfoInResults === false ? undefined : this.#identityMeta();
    let out: JSONObject;
    if (CACHEABLE_METHODS.has(method) && (r.resultType === undefined || r.resultType === ResultType.Complete)) {
      const configured = this.#options.cacheHints;
      const hints = (typeof configured === 'function' ? configured(method, params) : configured) ?? DEFAULT_HINTS;
      out = { resultType: ResultType.Complete, ttlMs: hints.ttlMs, cacheScope: hints.cacheScope, _meta: identity, ...r };
    } else {
      out = { resultType: ResultType.Complete, _meta: identity, ...r };
    }
    if (r._meta !== undefined && identity !== undefined) out._meta = isObject(r._meta) ? { ...identity, ...r._meta } : identity;
    return out;
  }

  /**
   * The `_meta` that identifies the server on results: its name and version only (the full
   * `Implementation`, with title, description and icons, is in `server/discover`): every
   * response carries it, so it is kept small. Shared, frozen, and preset: the HTTP
   * transport writes its text instead of serializing it per response (preset-json.ts).
   */
  #identityMeta(): JSONObject {
    if (this.#identity === undefined) {
      const { name, version } = this.#host.info;
      this.#identity = presetJson({ [MetaKey.ServerInfo]: { name, version } });
    }
    return this.#identity;
  }

  // ───────────── server/discover ─────────────

  /** The `server/discover` result (before the middleware adds `resultType` and caching hints). */
  discover(): JSONObject {
    const result: JSONObject = {
      supportedVersions: [...this.revisions],
      capabilities: this.#host.statelessCapabilities(),
      _meta: { [MetaKey.ServerInfo]: this.#host.info },
    };
    const instructions = this.#host.instructions;
    if (instructions !== undefined) result.instructions = instructions;
    return result;
  }

  // ───────────── subscriptions/listen ─────────────

  /**
   * Serves `subscriptions/listen`: acknowledges the subset of the filter this server honours
   * (the first message of the subscription), then keeps the request open until the client
   * cancels it or {@link closeSubscriptions} answers it.
   */
  async listen(params: JSONObject | undefined, ctx: ServerRequestContext): Promise<JSONObject> {
    const requested = (params?.notifications ?? {}) as SubscriptionFilter;
    const caps = this.#host.statelessCapabilities();
    const agreed: SubscriptionFilter = {};
    if (requested.toolsListChanged === true && caps.tools?.listChanged) agreed.toolsListChanged = true;
    if (requested.promptsListChanged === true && caps.prompts?.listChanged) agreed.promptsListChanged = true;
    if (requested.resourcesListChanged === true && caps.resources?.listChanged) agreed.resourcesListChanged = true;
    if (Array.isArray(requested.resourceSubscriptions)) {
      // Bounded before anything is held: -32602 past the count or URI length limit.
      checkListenSubscriptions(requested.resourceSubscriptions, this.#host.subscriptionLimits);
      if (caps.resources?.subscribe) agreed.resourceSubscriptions = [...new Set(requested.resourceSubscriptions)];
    }
    const meta: JSONObject = { [MetaKey.SubscriptionId]: ctx.id };
    const signal = ctx.signal;
    if (signal.aborted) return { _meta: meta };
    await ctx.session.notify(Notification.SubscriptionsAcknowledged, { _meta: meta, notifications: agreed as JSONObject }, { relatedRequestId: ctx.id });
    return new Promise<JSONObject>((resolve) => {
      const sub = new Subscription(ctx.session, ctx.id, agreed, meta, () => {
        this.#subscriptions.delete(sub);
        signal.removeEventListener('abort', onAbort);
        resolve({ _meta: meta });
      });
      // The client ended it: no response is sent for a cancelled request, so resolve quietly.
      const onAbort = () => {
        this.#subscriptions.delete(sub);
        resolve({ _meta: meta });
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.#subscriptions.add(sub);
    });
  }

  /** Sends a list-changed notification to every subscription that opted in to it. */
  listChanged(method: string): void {
    if (this.#subscriptions.size === 0) return;
    const key =
      method === Notification.ToolsListChanged
        ? 'toolsListChanged'
        : method === Notification.PromptsListChanged
          ? 'promptsListChanged'
          : method === Notification.ResourcesListChanged
            ? 'resourcesListChanged'
            : undefined;
    if (key === undefined) return;
    for (const sub of this.#subscriptions) if (sub.filter[key] === true) sub.send(method);
  }

  /** Sends `notifications/resources/updated` to every subscription that named `uri`. */
  resourceUpdated(uri: string): void {
    for (const sub of this.#subscriptions) if (sub.filter.resourceSubscriptions?.includes(uri)) sub.send(Notification.ResourcesUpdated, { uri });
  }

  /** Ends every subscription gracefully (answers its request). Called by `McpServer.close()`. */
  closeSubscriptions(): void {
    for (const sub of [...this.#subscriptions]) sub.end();
  }
}
