/**
 * The MCP client: the handshake, a typed method per request, auto-paginating list helpers,
 * handlers for the server's requests (roots, sampling, elicitation) and notification
 * listeners.
 *
 * URL-mode elicitation (2025-11-25): the client never fetches or opens the URL. It hands
 * the full URL and its domain to the application's consent callback and answers with the
 * callback's decision; only `https:` URLs reach the callback (others are declined).
 *
 * Both eras: a client whose `protocolVersions` include the stateless revision (2026-07-28,
 * see `ALL_REVISIONS`) probes with `server/discover` and speaks that era to modern servers,
 * falling back to `initialize` for 2025-era ones (stateless/client.ts); the same handlers answer
 * the 2025 era's server → client requests and the stateless era's input requests. The
 * default stays the 2025 era.
 */
import { LocalError, McpError, toError } from '../jsonrpc/errors.js';
import { ErrorCode, type JSONObject, type RequestId } from '../jsonrpc/types.js';
import { isObject } from '../jsonrpc/values.js';
import { Endpoint, type EndpointOptions } from '../protocol/endpoint.js';
import { defaultErrorReporter } from '../protocol/error-report.js';
import { Method, Notification } from '../protocol/methods.js';
import type { Middleware, MiddlewareDirection } from '../protocol/middleware.js';
import * as P from '../protocol/params.js';
import { type DiscoverResult, isStatelessRevision, STATELESS_REVISIONS, type SubscriptionFilter, subscriptionIdOf } from '../protocol/stateless/wire.js';
import type { ProtocolExtension } from '../protocol/table.js';
import { atLeast, LATEST_REVISION, STATEFUL_REVISIONS, V2025_11_25 } from '../protocol/versions.js';
import { formatIssues } from '../schema/issues.js';
import type { ValidationResult } from '../schema/types.js';
import { RequestContext } from '../session/context.js';
import type { RequestOptions } from '../session/session.js';
import type { Transport } from '../transport/types.js';
import type {
  CallToolResult,
  ClientCapabilities,
  CompleteResult,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitFormParams,
  ElicitResult,
  GetPromptResult,
  Implementation,
  InitializeResult,
  LoggingLevel,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  Root,
  ServerCapabilities,
  Tool,
} from '../types.js';
import { type ClientCacheOptions, ResultCache, type ResultCacheControl } from './cache.js';
import { setInputOrigin } from './input-origin.js';
import { type ProbeOutcome, probeServer, StatelessClient, type StatelessClientHost, type StatelessClientOptions, serverInfoOf } from './stateless/client.js';

/** A URL-mode elicitation as shown to the user for consent. */
export interface UrlElicitationRequest {
  /** The full URL, exactly as the server sent it. */
  url: string;
  /** The URL's host name, to show prominently. */
  domain: string;
  message: string;
  elicitationId: string;
}

/** Options of a client. */
export interface ClientOptions extends EndpointOptions {
  /** Capabilities declared in addition to those derived from the handlers below. */
  capabilities?: ClientCapabilities;
  /** Revision proposed in `initialize`. Default: the newest. */
  protocolVersion?: string;
  /** Revisions accepted in the server's answer. Default: every stateful revision. */
  protocolVersions?: readonly string[];
  /** Serves `roots/list`; declares the `roots` capability. */
  roots?: { list: (ctx: RequestContext) => Root[] | Promise<Root[]>; listChanged?: boolean };
  /** Serves `sampling/createMessage`; declares `sampling` (and `sampling.tools` when `tools` is true). */
  sampling?: {
    createMessage: (params: CreateMessageRequestParams, ctx: RequestContext) => CreateMessageResult | Promise<CreateMessageResult>;
    tools?: boolean;
    context?: boolean;
  };
  /** Serves `elicitation/create`; declares `elicitation.form` and/or `elicitation.url`. */
  elicitation?: {
    /** Form mode. Accepted content gets the schema's defaults for omitted fields (SEP-1034) and is validated. */
    form?: (params: ElicitFormParams, ctx: RequestContext) => ElicitResult | Promise<ElicitResult>;
    /**
     * URL mode: ask the user; resolve with their decision. Opening the URL is the application's
     * job, after consent. A promise only (write an `async` function): TypeScript widens the
     * literal an `async () => 'accept'` returns when a plain value is also allowed.
     */
    url?: (request: UrlElicitationRequest, ctx: RequestContext) => Promise<ElicitResult['action']>;
    /** Fill omitted fields with schema defaults (default true). */
    applyDefaults?: boolean;
  };
  /** Most pages an auto-paginating helper fetches before giving up. Default 1000. */
  maxPages?: number;
  /**
   * A tool's `outputSchema` comes from the server and is untrusted: its patterns run on a
   * linear-time engine, and a schema under which one place of a value could be checked
   * against more than this many subschemas (`$ref` chains under `anyOf` and the like) is
   * refused, failing `callTool` with LocalError `invalid_result`. Default 10,000. A schema of
   * more than 2,000 subschemas is refused the same way (its compile time would block the
   * process for seconds).
   */
  maxOutputSchemaWork?: number;
  /**
   * The stateless era (2026-07-28), used when `protocolVersions` includes a stateless
   * revision (see {@link ALL_REVISIONS}) and `protocolVersion` does not pin a stateful one:
   * how long the `server/discover` probe may take before the server is taken for a 2025-era
   * one (default: the connect timeout, else 10 s), the per-request log level, and the bound
   * on multi round-trip rounds.
   */
  stateless?: StatelessClientOptions & { discoverTimeoutMs?: number };
  /**
   * When the server no longer knows the session (HTTP 404, LocalError `session_expired`) and
   * the transport can open a fresh one (`Transport.fresh()`: the HTTP client transports), start
   * a new session at once, as the spec requires (2025-11-25 › Transports › Session Management:
   * the client MUST start a new session with a fresh initialize): `initialize` with the same
   * parameters, then `resources/subscribe` again for every resource subscribed through
   * {@link Client.subscribeResource}. Requests made meanwhile wait for it. A request the
   * server refused with the 404 never ran and is sent again in the new session; a request that
   * was running when the session ended is sent again only when it reads (lists, reads, gets,
   * completions, ping, subscriptions, log level) and otherwise fails with LocalError
   * `session_expired` saying it was not repeated. Default true; false leaves the client closed
   * with the expiry as the reason.
   */
  reinitialize?: boolean;
  /**
   * The result cache (SEP-2549; see cache.ts and docs/clients.md "Caching list and read
   * results"): list and read results of 2026-07-28 servers are reused while their `ttlMs`
   * says they are fresh. Default true (a bounded in-process store); false turns it off; an
   * object picks the store (e.g. Redis, shared between processes), the principal and bounds.
   */
  cache?: boolean | ClientCacheOptions;
}

/** Requests that only read state: safe to send again in a new session when the old one ended under them. */
const REPEATABLE: ReadonlySet<string> = new Set([
  Method.Ping,
  Method.ToolsList,
  Method.ResourcesList,
  Method.ResourcesTemplatesList,
  Method.ResourcesRead,
  Method.ResourcesSubscribe,
  Method.ResourcesUnsubscribe,
  Method.PromptsList,
  Method.PromptsGet,
  Method.CompletionComplete,
  Method.LoggingSetLevel,
]);

/**
 * The error says the session expired (LocalError `session_expired`, or a close it caused);
 * `refused` when the expiry names request `id` among those whose own POST the 404 answered
 * (the transport's `refused` set): the server never ran it.
 */
function expiryOf(error: unknown, id?: RequestId): { refused: boolean } | undefined {
  if (!(error instanceof LocalError)) return undefined;
  const expiry = error.code === 'session_expired' ? error : (error as { cause?: unknown }).cause;
  if (!(expiry instanceof LocalError) || expiry.code !== 'session_expired') return undefined;
  const refused = (expiry as { refused?: unknown }).refused;
  return { refused: id !== undefined && refused instanceof Set && refused.has(id) };
}

/**
 * Every revision mcpkit speaks, both eras, newest first: pass it as
 * `ClientOptions.protocolVersions` for a client that probes for the stateless era and falls
 * back to `initialize` for 2025-era servers.
 */
export const ALL_REVISIONS: readonly string[] = [...STATELESS_REVISIONS, ...[...STATEFUL_REVISIONS].reverse()];

/** A live `subscriptions/listen` request (stateless era); see {@link Client.listen}. */
export interface Subscription {
  /** The request's id: the `subscriptionId` its notifications carry. */
  readonly id: RequestId;
  /** The notification types the server agreed to send (its acknowledgement). */
  readonly notifications: SubscriptionFilter;
  /** Settles when the subscription ends: resolves when the server ended it, rejects otherwise (cancelled, connection lost). */
  readonly ended: Promise<void>;
  /** Ends the subscription (cancels its request). Idempotent. */
  close(): void;
}

/** An MCP client for one connection. */
export class Client {
  readonly info: Implementation;
  readonly #options: ClientOptions;
  #endpoint: Endpoint | undefined;
  #init: InitializeResult | undefined;
  /** The stateless era's state; undefined when this client does not accept a stateless revision. */
  #stateless: StatelessClient | undefined;
  #outputSchemas: Map<string, OutputCheck | null> | undefined;
  readonly #middleware: Array<[Middleware, MiddlewareDirection]> = [];
  readonly #extensions: ProtocolExtension[] = [];
  readonly #connectListeners: Array<(endpoint: Endpoint) => void> = [];
  /** Listeners added before connecting; `off` detaches one from the endpoint once connected. */
  readonly #listeners: Array<{ method: string; listener: (params: JSONObject | undefined) => void; off?: () => void }> = [];
  /** The transport passed to {@link connect} (or its latest fresh copy after a new session). */
  #transport: Transport | undefined;
  /** Settles when the new session after an expiry is ready (rejects when it could not be made). */
  #renewal: Promise<void> | undefined;
  /** Resources subscribed through {@link subscribeResource}, subscribed again in a new session. */
  readonly #subscribed = new Set<string>();
  #closing = false;
  readonly #cache: ResultCache;

  /** Throws RangeError for invalid `cache` options. */
  constructor(info: Implementation, options: ClientOptions = {}) {
    this.info = info;
    this.#options = options;
    this.#cache = new ResultCache(
      { era: () => this.era, serverInfo: () => this.serverInfo, warn: (error) => (this.#options.onError ?? defaultErrorReporter('client'))(error) },
      options.cache,
    );
  }

  /** The result cache of this client (see `ClientOptions.cache`). */
  get cache(): ResultCacheControl {
    return this.#cache;
  }

  /** The capabilities this client declares. */
  get capabilities(): ClientCapabilities {
    const o = this.#options;
    const caps: ClientCapabilities = {};
    if (o.roots) caps.roots = o.roots.listChanged ? { listChanged: true } : {};
    if (o.sampling) {
      const s: JSONObject = {};
      if (o.sampling.tools) s.tools = {};
      if (o.sampling.context) s.context = {};
      caps.sampling = s;
    }
    if (o.elicitation && (o.elicitation.form || o.elicitation.url)) {
      const e: JSONObject = {};
      if (o.elicitation.form) e.form = {};
      if (o.elicitation.url) e.url = {};
      caps.elicitation = e;
    }
    for (const ext of this.#extensions) Object.assign(caps, ext.capabilities?.('client', caps));
    return { ...caps, ...o.capabilities };
  }

  /** The server's initialize result, once connected. */
  get serverInfo(): Implementation | undefined {
    return this.#init?.serverInfo;
  }
  get serverCapabilities(): ServerCapabilities | undefined {
    return this.#init?.capabilities;
  }
  get instructions(): string | undefined {
    return this.#init?.instructions;
  }
  /** The transport this client is connected over (after a new session: its fresh copy); undefined before {@link connect}. Read it, do not send through it. */
  get transport(): Transport | undefined {
    return this.#transport;
  }

  /** The negotiated revision. */
  get protocolVersion(): string | undefined {
    return this.#init?.protocolVersion;
  }

  #ep(): Endpoint {
    if (!this.#endpoint || !this.#init) throw new LocalError('not_connected', 'The client is not connected');
    return this.#endpoint;
  }

  /**
   * Connects over `transport` and performs the handshake. Rejects with LocalError
   * `unsupported_protocol_version` (after closing) when the server answers with a revision
   * this client does not accept, `already_connected` on a second call.
   */
  async connect(transport: Transport, options?: RequestOptions): Promise<InitializeResult> {
    if (this.#endpoint || this.#transport)
      throw new LocalError('already_connected', 'This client is already connected; create another client for another connection');
    this.#transport = transport;
    const result = await this.#open(transport, options);
    return result;
  }

  /** Connects one endpoint over `transport` and performs the handshake (see {@link connect}). */
  async #open(transport: Transport, options?: RequestOptions): Promise<InitializeResult> {
    const ep = new Endpoint('client', transport, this.#options);
    this.#endpoint = ep;
    ep.setOwnCapabilities(this.capabilities as JSONObject);
    for (const ext of this.#extensions) ep.extend(ext);
    const statelessVersions = this.#statelessVersions();
    if (statelessVersions.length > 0) {
      // outermost: user middleware sees each request as it goes on the wire
      this.#stateless = new StatelessClient(this.#statelessHost(ep), statelessVersions, this.#options.stateless);
      ep.use(this.#stateless.middleware, 'outgoing');
    }
    if (this.#cache.enabled) {
      ep.use(this.#cache.middleware, 'outgoing');
      for (const method of [Notification.ToolsListChanged, Notification.PromptsListChanged, Notification.ResourcesListChanged, Notification.ResourcesUpdated]) {
        ep.on(method, (p) => void this.#cache.notified(method, p).catch((error: unknown) => this.#options.onError?.(toError(error))));
      }
    }
    for (const [mw, dir] of this.#middleware) ep.use(mw, dir);
    for (const entry of this.#listeners) entry.off = ep.on(entry.method, entry.listener);
    this.#installHandlers(ep);
    for (const listener of this.#connectListeners) listener(ep);
    await ep.session.start();
    if (this.#stateless !== undefined) {
      const modern = await this.#connectStateless(ep, this.#stateless, options);
      if (modern !== undefined) return modern;
    }
    // a 2025-era connection: the cache acts only with legacyTtlMs (no hints); else its requests skip it
    if (this.#cache.enabled && !this.#cache.actsOn('stateful')) ep.removeOutgoing(this.#cache.middleware);
    const accepted = (this.#options.protocolVersions ?? STATEFUL_REVISIONS).filter((v) => !isStatelessRevision(v));
    const pinned = this.#options.protocolVersion;
    const params: JSONObject = {
      protocolVersion: pinned !== undefined && !isStatelessRevision(pinned) ? pinned : LATEST_REVISION,
      capabilities: this.capabilities as JSONObject,
      clientInfo: this.info as unknown as JSONObject,
    };
    let result: InitializeResult;
    try {
      result = (await ep.request(Method.Initialize, params, options)) as InitializeResult;
    } catch (err) {
      await ep.session.close().catch(() => {});
      throw err;
    }
    if (typeof result?.protocolVersion !== 'string' || !accepted.includes(result.protocolVersion)) {
      await ep.session.close().catch(() => {});
      throw new LocalError(
        'unsupported_protocol_version',
        `The server answered with protocol version ${JSON.stringify(result?.protocolVersion)}, which this client does not support`,
      );
    }
    if (typeof result.capabilities !== 'object' || result.capabilities === null || typeof result.serverInfo !== 'object' || result.serverInfo === null) {
      await ep.session.close().catch(() => {});
      throw new LocalError('invalid_result', 'The server answered initialize with a malformed result');
    }
    ep.negotiated(result.protocolVersion, result.capabilities as JSONObject);
    ep.markInitialized();
    this.#init = result;
    transport.setProtocolVersion?.(result.protocolVersion);
    await ep.notify(Notification.Initialized);
    ep.onClose((reason) => {
      if (reason !== undefined && this.#endpoint === ep) this.#expired(reason);
    });
    return result;
  }

  /** The session ended under the client: start a new one when that is what ended it (see `reinitialize`). */
  #expired(reason: Error): Promise<void> | undefined {
    if (this.#renewal !== undefined) return this.#renewal;
    const fresh = this.#transport?.fresh;
    if (this.#closing || this.#options.reinitialize === false || fresh === undefined || expiryOf(reason) === undefined) return undefined;
    const renewal = this.#renew(fresh.call(this.#transport));
    this.#renewal = renewal;
    renewal.then(
      () => (this.#renewal = undefined),
      (error: unknown) => this.#options.onError?.(toError(error)),
    );
    return renewal;
  }

  async #renew(transport: Transport): Promise<void> {
    const old = this.#endpoint;
    this.#endpoint = undefined;
    this.#init = undefined;
    this.#outputSchemas = undefined;
    for (const entry of this.#listeners) entry.off?.();
    await old?.session.close().catch(() => {});
    this.#transport = transport;
    try {
      await this.#open(transport);
    } catch (error) {
      throw new LocalError(
        'session_expired',
        `The server ended the session and a new one could not be started: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
    for (const uri of this.#subscribed) await this.#ep().request(Method.ResourcesSubscribe, { uri });
  }

  // ───────────── the stateless era ─────────────

  /** The stateless revisions to probe with, preferred first; none when a stateful revision is pinned. */
  #statelessVersions(): string[] {
    const pinned = this.#options.protocolVersion;
    if (pinned !== undefined && !isStatelessRevision(pinned)) return [];
    const accepted = (this.#options.protocolVersions ?? STATEFUL_REVISIONS).filter(isStatelessRevision);
    if (pinned !== undefined && !accepted.includes(pinned)) accepted.unshift(pinned);
    return pinned === undefined ? accepted : [pinned, ...accepted.filter((v) => v !== pinned)];
  }

  #statelessHost(ep: Endpoint): StatelessClientHost {
    const client = this;
    return {
      info: this.info,
      get capabilities() {
        return client.capabilities;
      },
      answerInput: (key, method, params, signal) => this.#answerInput(ep, key, method, params, signal),
      relistTools: async (options) => {
        await this.#cache.invalidate(Method.ToolsList).catch(() => {});
        return this.listAllTools(options);
      },
      warn: (error) => (this.#options.onError ?? defaultErrorReporter('client'))(error),
    };
  }

  /**
   * Probes for the stateless era (see stateless/client.ts). Resolves with the connection's
   * "initialize result" (built from `server/discover`) when the server is modern, undefined
   * when the client should fall back to `initialize`. Rejects (after closing) when the
   * server is modern but refuses, or no era can be agreed.
   */
  async #connectStateless(ep: Endpoint, stateless: StatelessClient, options: RequestOptions | undefined): Promise<InitializeResult | undefined> {
    const canFallBack =
      (this.#options.protocolVersions ?? STATEFUL_REVISIONS).some((v) => !isStatelessRevision(v)) && !isStatelessRevision(this.#options.protocolVersion);
    const probeOptions: RequestOptions = { ...options, timeoutMs: this.#options.stateless?.discoverTimeoutMs ?? options?.timeoutMs ?? 10_000 };
    let outcome: ProbeOutcome;
    try {
      outcome = await probeServer(
        (m, p, o) => ep.requestUnchecked(m, p, o),
        stateless.versions,
        (v) => stateless.meta(v),
        canFallBack,
        probeOptions,
      );
    } catch (err) {
      await ep.session.close().catch(() => {});
      throw err;
    }
    if (outcome.era === 'stateful') return undefined;
    stateless.revision = outcome.revision;
    stateless.discover = outcome.discover;
    const discover = outcome.discover;
    ep.negotiated(outcome.revision, discover.capabilities as JSONObject);
    ep.markInitialized();
    const result: InitializeResult = { protocolVersion: outcome.revision, capabilities: discover.capabilities, serverInfo: serverInfoOf(discover) };
    if (typeof discover.instructions === 'string') result.instructions = discover.instructions;
    this.#init = result;
    return result;
  }

  /**
   * Answers one input request of an `InputRequiredResult` with the handler registered for
   * `method` (the same one that serves the 2025 era's server → client request). Rejects with
   * LocalError `capability_missing` when this client has none, McpError -32602 for params
   * its checks refuse.
   */
  async #answerInput(ep: Endpoint, key: string, method: string, params: JSONObject | undefined, signal: AbortSignal | undefined): Promise<unknown> {
    const handler =
      method === Method.RootsList || method === Method.SamplingCreateMessage || method === Method.ElicitationCreate ? ep.getRequestHandler(method) : undefined;
    if (handler === undefined) throw new LocalError('capability_missing', `The server asked for ${method} (input "${key}"), which this client does not serve`);
    let p = params;
    // a URL elicitation of this era has no elicitationId: the input's key stands in for it
    if (method === Method.ElicitationCreate && p?.mode === 'url' && p.elicitationId === undefined) p = { ...p, elicitationId: key };
    const problem = method === Method.SamplingCreateMessage ? P.checkCreateMessage(p) : method === Method.ElicitationCreate ? P.checkElicit(p) : undefined;
    if (problem !== undefined) throw new LocalError('invalid_result', `Input "${key}" of the server's InputRequiredResult is malformed: ${problem}`);
    const ctx = new RequestContext(ep.session, `input:${key}`, method, p, undefined);
    setInputOrigin(ctx, { signal, key });
    const onAbort = () => ctx.cancel(signal!.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return await handler(p, ctx);
    } finally {
      signal?.removeEventListener('abort', onAbort);
      ctx.finish();
    }
  }

  /** The era of the connection: `stateless` (2026-07-28), `stateful` (initialize), or undefined before connecting. */
  get era(): 'stateless' | 'stateful' | undefined {
    if (this.#init === undefined) return undefined;
    return this.#stateless?.active ? 'stateless' : 'stateful';
  }

  /** The server's `server/discover` result (stateless era), as received at connect or by {@link discover}. */
  get discoverResult(): DiscoverResult | undefined {
    return this.#stateless?.discover;
  }

  /**
   * Sends `server/discover` again (stateless era) and keeps the result. Rejects with
   * LocalError `method_unsupported` on a 2025-era connection.
   */
  async discover(options?: RequestOptions): Promise<DiscoverResult> {
    const result = await this.request<DiscoverResult>(Method.ServerDiscover, undefined, options);
    if (this.#stateless !== undefined) this.#stateless.discover = result;
    return result;
  }

  /**
   * Opens a `subscriptions/listen` stream (stateless era) and resolves once the server
   * acknowledged it, with the types it agreed to. Its notifications reach `onNotification`
   * (and the client's `on()` listeners) until the subscription ends. Rejects with LocalError
   * `method_unsupported` on a 2025-era connection (use `subscribeResource` and the
   * list-changed notifications there), or with the server's error.
   */
  async listen(
    filter: SubscriptionFilter,
    options: { onNotification?: (method: string, params: JSONObject | undefined) => void; signal?: AbortSignal } = {},
  ): Promise<Subscription> {
    const ep = this.#ep();
    if (!this.#stateless?.active) throw new LocalError('method_unsupported', 'subscriptions/listen needs a stateless-era (2026-07-28) connection');
    const controller = new AbortController();
    const outer = options.signal;
    const onOuterAbort = () => controller.abort(outer!.reason);
    if (outer !== undefined) {
      if (outer.aborted) controller.abort(outer.reason);
      else outer.addEventListener('abort', onOuterAbort, { once: true });
    }
    let id: RequestId | undefined;
    let acknowledge!: (filter: SubscriptionFilter) => void;
    const acknowledged = new Promise<SubscriptionFilter>((resolve) => (acknowledge = resolve));
    const offs: Array<() => void> = [];
    offs.push(
      ep.on(Notification.SubscriptionsAcknowledged, (p) => {
        if (id !== undefined && subscriptionIdOf(p) === id) acknowledge((p?.notifications ?? {}) as SubscriptionFilter);
      }),
    );
    if (options.onNotification !== undefined) {
      const deliver = options.onNotification;
      for (const method of [Notification.ToolsListChanged, Notification.PromptsListChanged, Notification.ResourcesListChanged, Notification.ResourcesUpdated]) {
        offs.push(
          ep.on(method, (p) => {
            if (id !== undefined && subscriptionIdOf(p) === id) deliver(method, p);
          }),
        );
      }
    }
    const cleanup = () => {
      for (const off of offs) off();
      outer?.removeEventListener('abort', onOuterAbort);
    };
    const ended = this.request(
      Method.SubscriptionsListen,
      { notifications: filter as JSONObject },
      { signal: controller.signal, timeoutMs: Infinity, onRequestId: (i) => (id = i) },
    ).then(
      () => cleanup(),
      (err: unknown) => {
        cleanup();
        throw err;
      },
    );
    const notifications = await Promise.race([
      acknowledged,
      ended.then(() => Promise.reject(new LocalError('connection_closed', 'The subscription ended before it was acknowledged'))),
    ]);
    ended.catch(() => {});
    return { id: id!, notifications, ended, close: () => controller.abort(new LocalError('cancelled', 'The subscription was closed')) };
  }

  #installHandlers(ep: Endpoint): void {
    const o = this.#options;
    ep.setRequestHandler(Method.Ping, () => ({}));
    if (o.roots) {
      const roots = o.roots;
      ep.setRequestHandler(Method.RootsList, async (_p, ctx) => ({ roots: await roots.list(ctx) }));
    }
    if (o.sampling) {
      const sampling = o.sampling;
      ep.setRequestHandler(Method.SamplingCreateMessage, (p, ctx) => {
        if ((p!.tools !== undefined || p!.toolChoice !== undefined) && !sampling.tools) {
          throw new McpError(ErrorCode.InvalidParams, 'Invalid params: this client did not declare the "sampling.tools" capability');
        }
        return sampling.createMessage(p as unknown as CreateMessageRequestParams, ctx);
      });
    }
    if (o.elicitation) ep.setRequestHandler(Method.ElicitationCreate, (p, ctx) => this.#elicit(p!, ctx));
    ep.on(Notification.ToolsListChanged, () => {
      this.#outputSchemas = undefined;
    });
  }

  async #elicit(params: JSONObject, ctx: RequestContext): Promise<ElicitResult> {
    const e = this.#options.elicitation!;
    if (params.mode === 'url') {
      if (!e.url) throw new McpError(ErrorCode.InvalidParams, 'Invalid params: this client does not support URL-mode elicitation');
      let url: URL;
      try {
        url = new URL(params.url as string);
      } catch {
        throw new McpError(ErrorCode.InvalidParams, 'Invalid params: "url" is not a valid URL');
      }
      if (url.protocol !== 'https:') return { action: 'decline' };
      const action = await e.url(
        { url: params.url as string, domain: url.hostname, message: params.message as string, elicitationId: params.elicitationId as string },
        ctx,
      );
      return { action };
    }
    if (!e.form) throw new McpError(ErrorCode.InvalidParams, 'Invalid params: this client does not support form-mode elicitation');
    const form = params as unknown as ElicitFormParams;
    const answer = await e.form(form, ctx);
    if (answer.action !== 'accept') return { action: answer.action };
    // the form checks are loaded on the first form answer (see lazy-imports.test.ts)
    const { applyElicitationDefaults, validateElicitationContent } = await import('../schema/elicitation.js');
    const content = e.applyDefaults === false ? (answer.content ?? {}) : applyElicitationDefaults(form.requestedSchema, answer.content ?? {});
    const issues = validateElicitationContent(form.requestedSchema, content);
    // The server is told why (a wire error with the reason, never a stack); the answer is not sent.
    if (issues.length > 0)
      throw new McpError(ErrorCode.InternalError, `The client's elicitation answer does not match the requested schema: ${formatIssues(issues)}`);
    return { ...answer, content: content as ElicitResult['content'] };
  }

  // ───────────── extensions, middleware and notifications ─────────────

  /** Adds a protocol extension's method-table entries (before connecting). */
  extend(extension: ProtocolExtension): this {
    if (this.#endpoint) throw new LocalError('already_connected', 'Extensions must be added before connecting');
    this.#extensions.push(extension);
    return this;
  }

  /** Calls `listener` with the endpoint when connecting, before the handshake (to install handlers). */
  onConnect(listener: (endpoint: Endpoint) => void): this {
    this.#connectListeners.push(listener);
    return this;
  }

  /** Adds middleware (before or after connecting); the first added runs outermost. */
  use(middleware: Middleware, direction: MiddlewareDirection = 'incoming'): this {
    this.#middleware.push([middleware, direction]);
    this.#endpoint?.use(middleware, direction);
    return this;
  }

  /** Listens for a server notification (e.g. `notifications/message`); returns an unsubscribe function. */
  on(method: string, listener: (params: JSONObject | undefined) => void): () => void {
    const entry: { method: string; listener: (params: JSONObject | undefined) => void; off?: () => void } = { method, listener };
    // kept for every endpoint: a new session after an expiry gets the same listeners
    this.#listeners.push(entry);
    if (this.#endpoint) entry.off = this.#endpoint.on(method, listener);
    return () => {
      const i = this.#listeners.indexOf(entry);
      if (i >= 0) this.#listeners.splice(i, 1);
      entry.off?.();
    };
  }

  // ───────────── requests ─────────────

  /**
   * Sends any request of the negotiated revision (gated by the server's capabilities).
   * Rejects with McpError for an error answer, LocalError otherwise.
   */
  request<T = JSONObject>(method: string, params?: JSONObject, options?: RequestOptions): Promise<T> {
    try {
      return this.#request<T>(method, params, options);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #request<T>(method: string, params: JSONObject | undefined, options: RequestOptions | undefined): Promise<T> {
    if (this.#renewal !== undefined) return this.#renewal.then(() => this.request<T>(method, params, options));
    if (this.#transport?.fresh === undefined || this.#options.reinitialize === false) return this.#ep().request(method, params, options) as Promise<T>;
    // the id tells whether the 404 refused this very request (then it never ran)
    let id: RequestId | undefined;
    const watched: RequestOptions = { ...options, onRequestId: (sent) => ((id = sent), options?.onRequestId?.(sent)) };
    const sent = this.#ep().request(method, params, watched) as Promise<T>;
    return sent.catch((error: unknown) => this.#afterExpiry<T>(error, id, method, params, options));
  }

  /** A request failed: when the session expired under it, wait for the new one and send it again if that is safe. */
  async #afterExpiry<T>(
    error: unknown,
    id: RequestId | undefined,
    method: string,
    params: JSONObject | undefined,
    options: RequestOptions | undefined,
  ): Promise<T> {
    const expiry = expiryOf(error, id);
    const renewal = expiry === undefined ? undefined : (this.#renewal ?? this.#expired(error as Error));
    if (expiry === undefined || renewal === undefined) throw error;
    await renewal;
    if (expiry.refused || REPEATABLE.has(method)) return this.#ep().request(method, params, options) as Promise<T>;
    throw new LocalError(
      'session_expired',
      `The server ended the session while ${method} was running; a new session was started, but ${method} was not sent again because it may already have had effects. Send it again if that is safe.`,
      { cause: error },
    );
  }

  /** Sends a notification of the negotiated revision. */
  notify(method: string, params?: JSONObject): Promise<void> {
    try {
      return this.#ep().notify(method, params);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  ping(options?: RequestOptions): Promise<JSONObject> {
    return this.request(Method.Ping, undefined, options);
  }

  async listTools(cursor?: string, options?: RequestOptions): Promise<{ tools: Tool[]; nextCursor?: string }> {
    const r = await this.request<{ tools: Tool[]; nextCursor?: string }>(Method.ToolsList, cursor === undefined ? undefined : { cursor }, options);
    expectArray(r, 'tools', Method.ToolsList);
    this.#rememberSchemas(r.tools, false);
    return r;
  }

  /** Every tool, following cursors. */
  async listAllTools(options?: RequestOptions): Promise<Tool[]> {
    const tools = await this.#all<Tool>(Method.ToolsList, 'tools', options);
    this.#rememberSchemas(tools, true);
    return tools;
  }

  #rememberSchemas(tools: Tool[], complete: boolean): void {
    if (complete || !this.#outputSchemas) this.#outputSchemas = new Map();
    for (const t of tools) this.#outputSchemas.set(t.name, null);
    for (const t of tools)
      if (t.outputSchema && typeof t.outputSchema === 'object')
        this.#outputSchemas.set(t.name, lazyAdapter(t.name, t.outputSchema, this.#options.maxOutputSchemaWork));
  }

  /**
   * `tools/call`. When the tool declares an `outputSchema`, a successful result must carry
   * `structuredContent` that matches it, else LocalError `invalid_result`. A -32042 error
   * rejects with {@link UrlElicitationRequiredError}. In the 2026-07-28 era with
   * `stateless: { tasks: true }`, a call the server turns into a task is waited for, and
   * `options.timeoutMs` (or `maxTotalTimeoutMs`) bounds the whole call: at the deadline it
   * rejects with LocalError `timeout` and the task is cancelled (`tasks/cancel`).
   */
  callTool(params: CallToolParams, options?: RequestOptions): Promise<CallToolResult> {
    const args: unknown = params?.arguments;
    if (args !== undefined && !isObject(args)) {
      return Promise.reject(
        new LocalError(
          'validation_failed',
          `callTool: "arguments" must be an object of argument values, not ${Array.isArray(args) ? 'an array' : String(args)}`,
        ),
      );
    }
    // one reaction on the request, not an async function's promise and await: a result with
    // no output schema to check is returned from it as it is
    return this.request<CallToolResult>(Method.ToolsCall, params as unknown as JSONObject, options).then((result) =>
      this.#checkToolResult(params.name, result, options),
    );
  }

  /**
   * The checks of {@link callTool} on `result`; synchronous unless the output schemas must be
   * listed first or a schema check is asynchronous. The `T | Promise<T>` return (here and in
   * {@link #checkOutput}) is kept on purpose: a `then` callback that returns a promise costs
   * the call two more turns of the microtask queue and a promise (instructions: client stdio
   * mcpkit callTool, 1 and 32 in flight).
   */
  #checkToolResult(name: string, result: CallToolResult, options: RequestOptions | undefined): CallToolResult | Promise<CallToolResult> {
    if (typeof result !== 'object' || result === null) throw new LocalError('invalid_result', 'tools/call returned a malformed result');
    if (!('task' in result)) expectArray(result, 'content', Method.ToolsCall);
    if (result.isError) return result;
    if (this.#outputSchemas?.has(name)) return this.#checkOutput(name, result);
    const check = (): CallToolResult | Promise<CallToolResult> => this.#checkOutput(name, result);
    return this.listAllTools(options).then(check, check);
  }

  /** The output schema check of `name`'s result; a tool the list (read, or failed to read) does not show has none. */
  #checkOutput(name: string, result: CallToolResult): CallToolResult | Promise<CallToolResult> {
    const schemas = this.#outputSchemas;
    // A tool the list does not show has no schema to check: remember that, so further calls
    // do not list again (a tools/list_changed notification clears the cache).
    if (schemas !== undefined && !schemas.has(name)) schemas.set(name, null);
    const adapter = schemas?.get(name);
    return adapter ? this.#checkStructured(name, adapter, result) : result;
  }

  async #checkStructured(name: string, adapter: OutputCheck, result: CallToolResult): Promise<CallToolResult> {
    if (result.structuredContent === undefined)
      throw new LocalError('invalid_result', `Tool ${name} declares an output schema but returned no structuredContent`);
    const checked = await adapter(result.structuredContent);
    if (!checked.valid)
      throw new LocalError('invalid_result', `Tool ${name} returned structuredContent that does not match its output schema: ${formatIssues(checked.errors)}`);
    return result;
  }

  async listResources(cursor?: string, options?: RequestOptions): Promise<{ resources: Resource[]; nextCursor?: string }> {
    const r = await this.request<{ resources: Resource[]; nextCursor?: string }>(Method.ResourcesList, cursor === undefined ? undefined : { cursor }, options);
    expectArray(r, 'resources', Method.ResourcesList);
    return r;
  }
  listAllResources(options?: RequestOptions): Promise<Resource[]> {
    return this.#all<Resource>(Method.ResourcesList, 'resources', options);
  }
  async listResourceTemplates(cursor?: string, options?: RequestOptions): Promise<{ resourceTemplates: ResourceTemplate[]; nextCursor?: string }> {
    const r = await this.request<{ resourceTemplates: ResourceTemplate[]; nextCursor?: string }>(
      Method.ResourcesTemplatesList,
      cursor === undefined ? undefined : { cursor },
      options,
    );
    expectArray(r, 'resourceTemplates', Method.ResourcesTemplatesList);
    return r;
  }
  listAllResourceTemplates(options?: RequestOptions): Promise<ResourceTemplate[]> {
    return this.#all<ResourceTemplate>(Method.ResourcesTemplatesList, 'resourceTemplates', options);
  }
  async readResource(uri: string, options?: RequestOptions): Promise<ReadResourceResult> {
    const r = await this.request<ReadResourceResult>(Method.ResourcesRead, { uri }, options);
    expectArray(r, 'contents', Method.ResourcesRead);
    return r;
  }
  /** `resources/subscribe`; remembered, so a new session after an expiry subscribes again. */
  async subscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    await this.request(Method.ResourcesSubscribe, { uri }, options);
    this.#subscribed.add(uri);
  }
  async unsubscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    this.#subscribed.delete(uri);
    await this.request(Method.ResourcesUnsubscribe, { uri }, options);
  }

  async listPrompts(cursor?: string, options?: RequestOptions): Promise<{ prompts: Prompt[]; nextCursor?: string }> {
    const r = await this.request<{ prompts: Prompt[]; nextCursor?: string }>(Method.PromptsList, cursor === undefined ? undefined : { cursor }, options);
    expectArray(r, 'prompts', Method.PromptsList);
    return r;
  }
  listAllPrompts(options?: RequestOptions): Promise<Prompt[]> {
    return this.#all<Prompt>(Method.PromptsList, 'prompts', options);
  }
  async getPrompt(name: string, args?: Record<string, string>, options?: RequestOptions): Promise<GetPromptResult> {
    const r = await this.request<GetPromptResult>(Method.PromptsGet, args === undefined ? { name } : { name, arguments: args }, options);
    expectArray(r, 'messages', Method.PromptsGet);
    return r;
  }

  /** `completion/complete`; `contextArguments` become `context.arguments` (2025-06-18 and later). */
  async complete(
    ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string },
    argument: { name: string; value: string },
    contextArguments?: Record<string, string>,
    options?: RequestOptions,
  ): Promise<CompleteResult> {
    const params: JSONObject = { ref, argument };
    if (contextArguments !== undefined) params.context = { arguments: contextArguments };
    const r = await this.request<CompleteResult>(Method.CompletionComplete, params, options);
    if (!Array.isArray(r?.completion?.values)) throw new LocalError('invalid_result', 'completion/complete returned a malformed result');
    return r;
  }

  /**
   * Sets the minimum level of the server's log messages. 2025 era: `logging/setLevel`.
   * Stateless era: nothing is sent; every later request carries the level in its `_meta`.
   */
  async setLoggingLevel(level: LoggingLevel, options?: RequestOptions): Promise<void> {
    if (this.#stateless?.active) {
      this.#ep();
      this.#stateless.logLevel = level;
      return;
    }
    await this.request(Method.LoggingSetLevel, { level }, options);
  }

  /** Tells the server the roots changed (needs `roots.listChanged`). */
  sendRootsListChanged(): Promise<void> {
    return this.notify(Notification.RootsListChanged);
  }

  /** True when the negotiated revision is at least `revision`. */
  supports(revision: string): boolean {
    return atLeast(this.protocolVersion, revision);
  }

  async #all<T>(method: string, key: string, options?: RequestOptions): Promise<T[]> {
    const out: T[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    const maxPages = this.#options.maxPages ?? 1000;
    for (let page = 0; page < maxPages; page++) {
      const r = await this.request<JSONObject>(method, cursor === undefined ? undefined : { cursor }, options);
      expectArray(r, key, method);
      out.push(...(r[key] as T[]));
      const next = r.nextCursor;
      if (typeof next !== 'string') return out;
      if (seen.has(next)) throw new LocalError('invalid_result', `${method} returned a cursor it had returned before`);
      seen.add(next);
      cursor = next;
    }
    throw new LocalError('invalid_result', `${method} returned more than ${maxPages} pages`);
  }

  /** Closes the connection. */
  async close(): Promise<void> {
    this.#closing = true;
    await this.#renewal?.catch(() => {});
    await this.#endpoint?.session.close();
    await this.#cache.forget().catch((error: unknown) => this.#options.onError?.(toError(error)));
  }

  /** The protocol endpoint (for extensions and tests). */
  get endpoint(): Endpoint | undefined {
    return this.#endpoint;
  }
}

function expectArray(result: unknown, key: string, method: string): void {
  if (typeof result !== 'object' || result === null || !Array.isArray((result as JSONObject)[key])) {
    throw new LocalError('invalid_result', `${method} returned a result without a "${key}" array`);
  }
}

/** What {@link Client.callTool} sends. */
export interface CallToolParams {
  /** The tool's name, as `tools/list` shows it. */
  name: string;
  /**
   * The arguments: a JSON object (any object type, interface-typed values included; arrays
   * and non-objects are refused with LocalError `validation_failed` before anything is sent).
   */
  arguments?: object | undefined;
  /** Request metadata (`_meta`), e.g. a progress token. */
  _meta?: JSONObject | undefined;
}

/** Checks a tool's `structuredContent` against its declared output schema. */
type OutputCheck = (value: unknown) => Promise<ValidationResult>;

/**
 * The check of one output schema, compiled on the first call: the schema layer (and Ajv
 * with it) is imported then, not when the client is loaded, so a client whose tools declare
 * no output schema never loads it. The schema is the server's, so it is untrusted: it is
 * compiled by the peer-schema validator (patterns on a linear-time engine, work per value
 * bounded; see schema/peer-schema.ts). A schema it refuses fails the call with LocalError
 * `invalid_result` naming the tool.
 */
function lazyAdapter(name: string, schema: JSONObject, maxSchemaWork: number | undefined): OutputCheck {
  let adapter: Promise<{ validate(value: unknown): ValidationResult | Promise<ValidationResult> }> | undefined;
  return async (value) => {
    adapter ??= import('../schema/peer-schema.js').then(({ peerSchemaAdapter }) =>
      peerSchemaAdapter(schema, maxSchemaWork === undefined ? {} : { maxSchemaWork }),
    );
    let ready: { validate(value: unknown): ValidationResult | Promise<ValidationResult> };
    try {
      ready = await adapter;
    } catch (error) {
      throw new LocalError(
        'invalid_result',
        `Tool ${name} declares an output schema this client refuses: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
    return ready.validate(value);
  };
}

export { V2025_11_25 };
