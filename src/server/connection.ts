/**
 * One client connection of a server ({@link ServerConnection}): the handshake, the
 * per-connection state (negotiated revision, client capabilities, log level, subscriptions,
 * URL elicitations it started) and the server → client requests; and the context of every
 * request a server serves ({@link ServerRequestContext}), which names its connection when it
 * has one. Both live here because each names the other. Registries are shared through the
 * `McpServer`; a connection itself is a small record.
 *
 * "Connection", not "session": an HTTP `Mcp-Session-Id` session and the JSON-RPC session
 * below are other things; one ServerConnection is one transport connected with
 * `McpServer.connect`.
 */
import { LocalError, McpError } from '../jsonrpc/errors.js';
import { ErrorCode, type JSONObject, type RequestId } from '../jsonrpc/types.js';
import { Endpoint, type EndpointOptions } from '../protocol/endpoint.js';
import type { HandlerTableRef, RequestHandler } from '../protocol/handler-table.js';
import type { StatelessClaim } from '../protocol/incoming.js';
import { Method, Notification } from '../protocol/methods.js';
import { hasCapability } from '../protocol/table.js';
import { atLeast, negotiateRevision, V2025_11_25 } from '../protocol/versions.js';
import { type RequestChannel, RequestContext } from '../session/context.js';
import type { RequestOptions } from '../session/session.js';
import type { MessageInfo, Transport } from '../transport/types.js';
import type {
  ClientCapabilities,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitFormParams,
  ElicitResult,
  Implementation,
  LoggingLevel,
  Root,
  SamplingMessage,
  ServerCapabilities,
} from '../types.js';
import { checkElicitationUrl, checkRequestedSchema, elicitAnswerProblem, rootsAnswerProblem, samplingAnswerProblem } from './client-answers.js';
import { type ServerEra, SessionEra } from './era.js';
import { levelPasses } from './logging.js';
import { addSubscription, checkSubscriptionUri, type SubscriptionLimits } from './subscription-limits.js';
import type { ElicitUrlParams, EraConnection, InputOptions } from './types.js';

/** @internal what connections read from their server (`McpServer` implements it) */
export interface ServerCore {
  readonly info: Implementation;
  readonly instructions: string | undefined;
  readonly revisions: readonly string[];
  readonly defaultLogLevel: LoggingLevel | undefined;
  /** Bounds on resource subscriptions, defaults applied. */
  readonly subscriptionLimits: SubscriptionLimits;
  capabilities(): ServerCapabilities;
  /** The era strategy of a 2026-07-28 request, from its era reading. */
  statelessEra(claim: StatelessClaim): ServerEra;
}

/** A server's view of one connected client (one transport given to `McpServer.connect`). */
export class ServerConnection implements EraConnection {
  readonly endpoint: Endpoint<ServerRequestContext>;
  readonly #core: ServerCore;
  readonly #transport: Transport;
  #clientInfo: Implementation | undefined;
  /** Initialized without a handshake ({@link initializeSessionless}); else readiness is the endpoint's `peerInitialized`. */
  #ready = false;
  #logLevel: LoggingLevel | undefined;
  /** URIs this client subscribed to (at most `subscriptions.maxPerSession`). */
  readonly subscriptions = new Set<string>();
  /** Ids of the URL elicitations this session started and that are not complete; created by the first. */
  #elicitations: Set<string> | undefined = undefined;

  /** @internal created by McpServer.connect; `handlers` is where the server's handler table is read */
  constructor(core: ServerCore, transport: Transport, options: EndpointOptions, handlers: HandlerTableRef<ServerRequestContext>) {
    this.#core = core;
    this.#transport = transport;
    const era = new SessionEra(this);
    this.endpoint = new Endpoint<ServerRequestContext>('server', transport, {
      ...options,
      handlers,
      // the era is read once, by the endpoint, and fixed on the context here
      createContext: (session, id, method, params, info, claim) =>
        new ServerRequestContext(this, session, id, method, params, info, claim === undefined ? era : core.statelessEra(claim)),
      claimOf: claimOfContext,
    });
  }

  /** The client's `clientInfo`, once initialized. */
  get clientInfo(): Implementation | undefined {
    return this.#clientInfo;
  }

  /** The client's declared capabilities, once initialized. */
  get clientCapabilities(): ClientCapabilities | undefined {
    return this.endpoint.peerCapabilities as ClientCapabilities | undefined;
  }

  /** The negotiated protocol revision, once initialized. */
  get protocolVersion(): string | undefined {
    return this.endpoint.revision;
  }

  /** True once the client sent `notifications/initialized`. */
  get ready(): boolean {
    return this.#ready || this.endpoint.peerInitialized;
  }

  /** The minimum log level the client asked for (`logging/setLevel`), if any. */
  get logLevel(): LoggingLevel | undefined {
    return this.#logLevel;
  }

  /** The transport this connection runs over (read its `network`, `peer`, `sessionId`; send through the connection, not through it). */
  get transport(): Transport {
    return this.#transport;
  }

  /** The transport's session id, when it has one. */
  get sessionId(): string | undefined {
    return this.endpoint.session.transportSessionId;
  }

  /**
   * Restores per-connection state recorded elsewhere (a shared Streamable HTTP session
   * restored on another instance): the log level when given, and the subscriptions when
   * given (replacing the current ones; those past this server's subscription limits are
   * left out, the rest kept in order).
   */
  restoreState(state: { logLevel?: LoggingLevel; subscriptions?: Iterable<string> }): void {
    if (state.logLevel !== undefined) this.#logLevel = state.logLevel;
    if (state.subscriptions === undefined) return;
    this.subscriptions.clear();
    for (const uri of state.subscriptions) {
      try {
        this.#subscribe(uri);
      } catch {
        break; // past this instance's subscription limits: the rest is not applied here
      }
    }
  }

  /** `resources/subscribe`: throws -32602 / SUBSCRIPTION_LIMIT_CODE past the limits. */
  #subscribe(uri: string): void {
    addSubscription(this.subscriptions, uri, this.#core.subscriptionLimits);
  }

  /** `resources/unsubscribe`: throws -32602 for a URI past the length limit. */
  #unsubscribe(uri: string): void {
    checkSubscriptionUri(uri, this.#core.subscriptionLimits);
    this.subscriptions.delete(uri);
  }

  /** `logging/setLevel` */
  #setLogLevel(level: LoggingLevel): void {
    this.#logLevel = level;
  }

  /** `initialize` */
  #initialize(params: JSONObject): JSONObject {
    if (this.endpoint.revision !== undefined) throw new McpError(ErrorCode.InvalidRequest, 'Invalid request: the session is already initialized');
    const version = negotiateRevision(params.protocolVersion, this.#core.revisions);
    this.endpoint.negotiated(version, params.capabilities as JSONObject);
    this.endpoint.markInitialized();
    this.#clientInfo = params.clientInfo as Implementation;
    const result: JSONObject = { protocolVersion: version, capabilities: this.#core.capabilities(), serverInfo: this.#core.info };
    if (this.#core.instructions !== undefined) result.instructions = this.#core.instructions;
    return result;
  }

  /**
   * Puts a session that will never see `initialize` (sessionless Streamable HTTP: one POST,
   * one throwaway session; or a shared session restored from its record on another
   * instance) straight into the initialized state at `revision`, with the client
   * capabilities unknown (empty) unless given, and `clientInfo` when known. Throws LocalError
   * `unsupported_protocol_version` for a revision this server does not speak.
   */
  initializeSessionless(revision: string, clientCapabilities: JSONObject = {}, clientInfo?: Implementation): void {
    if (!this.#core.revisions.includes(revision)) throw new LocalError('unsupported_protocol_version', `Protocol version ${revision} is not supported`);
    if (clientInfo !== undefined) this.#clientInfo = clientInfo;
    this.endpoint.negotiated(revision, clientCapabilities);
    this.endpoint.markInitialized();
    this.#ready = true;
  }
  /** @deprecated the 2025-era sessionless mode's name for {@link initializeSessionless} ("stateless" now names the 2026-07-28 era only). */
  initializeStateless(revision: string, clientCapabilities: JSONObject = {}): void {
    this.initializeSessionless(revision, clientCapabilities);
  }

  /**
   * Sends `notifications/message` when `level` passes the client's minimum. Resolves
   * without sending when it does not, or before initialization.
   */
  async sendLog(level: LoggingLevel, data: unknown, logger?: string, relatedRequestId?: RequestId): Promise<void> {
    if (!this.endpoint.initialized || !levelPasses(level, this.#logLevel ?? this.#core.defaultLogLevel)) return;
    const params: JSONObject = { level, data };
    if (logger !== undefined) params.logger = logger;
    await this.endpoint.notify(Notification.Message, params, relatedRequestId === undefined ? undefined : { relatedRequestId });
  }

  /**
   * `sampling/createMessage`. Throws LocalError `capability_missing` when the client did not
   * declare `sampling` (or `sampling.tools` for a request with `tools`/`toolChoice`),
   * `validation_failed` for array content before 2025-11-25, `invalid_result` for a malformed
   * answer; McpError when the client answers with an error.
   */
  async createMessage(params: CreateMessageRequestParams, options?: RequestOptions): Promise<CreateMessageResult> {
    const revision = this.endpoint.revision;
    if (params.tools !== undefined || params.toolChoice !== undefined) {
      if (!atLeast(revision, V2025_11_25))
        throw new LocalError('method_unsupported', `Sampling with tools needs protocol revision ${V2025_11_25} (negotiated: ${revision})`);
      if (!hasCapability(this.clientCapabilities, ['sampling', 'tools']))
        throw new LocalError('capability_missing', 'Sampling with tools needs the client capability "sampling.tools"');
    }
    if (!atLeast(revision, V2025_11_25) && params.messages.some((m: SamplingMessage) => Array.isArray(m.content))) {
      throw new LocalError('validation_failed', `Array content in sampling messages needs protocol revision ${V2025_11_25} (negotiated: ${revision})`);
    }
    const result = (await this.endpoint.request(Method.SamplingCreateMessage, params as unknown as JSONObject, options)) as CreateMessageResult;
    if (samplingAnswerProblem(result) !== undefined)
      throw new LocalError('invalid_result', 'The client answered sampling/createMessage with a malformed result');
    return result;
  }

  /**
   * Form-mode `elicitation/create`. The requested schema must be the flat, primitive-only
   * subset (throws LocalError `validation_failed` otherwise). An accepted answer is validated
   * against the schema; a non-conforming one throws LocalError `invalid_result`.
   */
  async elicitForm(params: Omit<ElicitFormParams, 'mode'>, options?: RequestOptions): Promise<ElicitResult> {
    checkRequestedSchema(params.requestedSchema);
    const caps = this.clientCapabilities?.elicitation as JSONObject | undefined;
    if (caps !== undefined && atLeast(this.endpoint.revision, V2025_11_25) && caps.url !== undefined && caps.form === undefined) {
      throw new LocalError('capability_missing', 'The client declared only URL-mode elicitation');
    }
    const wire: JSONObject = atLeast(this.endpoint.revision, V2025_11_25) ? { mode: 'form', ...params } : { ...params };
    const result = (await this.endpoint.request(Method.ElicitationCreate, wire, options)) as ElicitResult;
    if (elicitAnswerProblem(result, undefined) !== undefined)
      throw new LocalError('invalid_result', 'The client answered elicitation/create with a malformed result');
    const problem = elicitAnswerProblem(result, params.requestedSchema);
    if (problem !== undefined) throw new LocalError('invalid_result', `The elicitation answer ${problem}`);
    return result;
  }

  /**
   * URL-mode `elicitation/create` (2025-11-25). Generates an unguessable `elicitationId`
   * unless given; only this session may later receive its completion notification.
   * Throws LocalError `capability_missing` unless the client declared `elicitation.url`.
   */
  async elicitUrl(
    params: { message: string; url: string; elicitationId?: string; _meta?: JSONObject },
    options?: RequestOptions,
  ): Promise<ElicitResult & { elicitationId: string }> {
    if (!atLeast(this.endpoint.revision, V2025_11_25))
      throw new LocalError('method_unsupported', `URL-mode elicitation needs protocol revision ${V2025_11_25}`);
    if (!hasCapability(this.clientCapabilities, ['elicitation', 'url']))
      throw new LocalError('capability_missing', 'URL-mode elicitation needs the client capability "elicitation.url"');
    checkElicitationUrl(params.url);
    const elicitationId = params.elicitationId ?? crypto.randomUUID();
    (this.#elicitations ??= new Set()).add(elicitationId);
    const wire: JSONObject = { mode: 'url', message: params.message, url: params.url, elicitationId };
    if (params._meta !== undefined) wire._meta = params._meta;
    const result = (await this.endpoint.request(Method.ElicitationCreate, wire, options)) as ElicitResult;
    if (result?.action !== 'accept') this.#elicitations?.delete(elicitationId);
    return { ...result, elicitationId };
  }

  /** Registers an elicitation id as started by this session (for ids sent inside a -32042 error). */
  trackElicitation(elicitationId: string): void {
    (this.#elicitations ??= new Set()).add(elicitationId);
  }

  /** True when this session started `elicitationId` and it has not completed yet. */
  ownsElicitation(elicitationId: string): boolean {
    return this.#elicitations?.has(elicitationId) === true;
  }

  /**
   * Sends `notifications/elicitation/complete` for an elicitation this session started.
   * Throws LocalError `validation_failed` for an id it did not start (never another client's).
   */
  async notifyElicitationComplete(elicitationId: string): Promise<void> {
    if (this.#elicitations?.delete(elicitationId) !== true)
      throw new LocalError('validation_failed', `Elicitation ${elicitationId} was not started by this session`);
    await this.endpoint.notify(Notification.ElicitationComplete, { elicitationId });
  }

  /** `roots/list`. Throws LocalError `capability_missing` unless the client declared `roots`. */
  async listRoots(options?: RequestOptions): Promise<Root[]> {
    const result = (await this.endpoint.request(Method.RootsList, undefined, options)) as { roots: Root[] };
    if (rootsAnswerProblem(result) !== undefined) throw new LocalError('invalid_result', 'The client answered roots/list with a malformed result');
    return result.roots;
  }

  /** Sends `ping` and resolves when answered. */
  async ping(options?: RequestOptions): Promise<void> {
    await this.endpoint.request(Method.Ping, undefined, options);
  }

  /** Sends a notification of the negotiated revision (gated by the table). */
  notify(method: string, params?: JSONObject): Promise<void> {
    return this.endpoint.notify(method, params);
  }

  /** Adds a listener for a client notification (for example `notifications/roots/list_changed`). */
  on(method: string, listener: (params: JSONObject | undefined) => void): () => void {
    return this.endpoint.on(method, listener);
  }

  /** Closes the connection. */
  close(): Promise<void> {
    return this.endpoint.session.close();
  }

  /**
   * The handlers every connection answers the same way (`initialize`, `ping`,
   * `logging/setLevel`, `resources/(un)subscribe`): the base of the server's handler table,
   * each reaching its connection through `ctx.connection`. Defined in the class so they
   * reach its private methods.
   */
  static readonly #handlers: ReadonlyMap<string, RequestHandler<ServerRequestContext>> = new Map<string, RequestHandler<ServerRequestContext>>([
    [Method.Initialize, (params, ctx) => connectionOf(ctx).#initialize(params!)],
    [Method.Ping, () => ({})],
    [
      Method.LoggingSetLevel,
      (params, ctx) => {
        connectionOf(ctx).#setLogLevel(params!.level as LoggingLevel);
        return {};
      },
    ],
    [
      Method.ResourcesSubscribe,
      (params, ctx) => {
        connectionOf(ctx).#subscribe(params!.uri as string);
        return {};
      },
    ],
    [
      Method.ResourcesUnsubscribe,
      (params, ctx) => {
        connectionOf(ctx).#unsubscribe(params!.uri as string);
        return {};
      },
    ],
  ]);

  /** @internal the handlers of {@link #handlers}, for the server's handler table */
  static connectionHandlers(): ReadonlyMap<string, RequestHandler<ServerRequestContext>> {
    return ServerConnection.#handlers;
  }
}

/**
 * @deprecated renamed {@link ServerConnection} (it is one connection; "session" also names
 * the HTTP `Mcp-Session-Id` session and the JSON-RPC session below it).
 */
export const ServerSession = ServerConnection;
/** @deprecated renamed {@link ServerConnection}. */
export type ServerSession = ServerConnection;

/** The era reading of a context (one function for every session). */
function claimOfContext(ctx: ServerRequestContext): StatelessClaim | undefined {
  return ctx.era.claim;
}

/** The connection of a 2025-era request (these methods exist only in 2025-era tables, which only connections serve). */
function connectionOf(ctx: ServerRequestContext): ServerConnection {
  const connection = ctx.connection;
  if (connection === undefined) throw new LocalError('method_unsupported', `${ctx.method} needs a connection`);
  return connection;
}

/** Context of an incoming request on the server. */
export class ServerRequestContext extends RequestContext {
  /**
   * The connection (client) this request came from. Undefined for a 2026-07-28 request served
   * without a connection (Streamable HTTP: each such POST stands alone).
   */
  readonly connection: ServerConnection | undefined;
  /** The request's protocol era: where its client's capabilities come from and how it asks the client. */
  readonly era: ServerEra;

  constructor(
    connection: ServerConnection | undefined,
    session: RequestChannel,
    id: RequestId,
    method: string,
    params: JSONObject | undefined,
    info: MessageInfo | undefined,
    era: ServerEra,
  ) {
    super(session, id, method, params, info);
    this.connection = connection;
    this.era = era;
  }

  /** @deprecated renamed {@link connection} (it is the connection, not the server). */
  get server(): ServerConnection | undefined {
    return this.connection;
  }

  /** Verified auth information from the transport, when present. */
  get authInfo(): unknown {
    return this.info?.authInfo;
  }

  /** The revision this request is served at: the one it names (2026-07-28), else the connection's. */
  get protocolVersion(): string | undefined {
    return this.era.protocolVersion;
  }

  /** The client's capabilities for this request: those in its `_meta` (2026-07-28), else the connection's. */
  get clientCapabilities(): ClientCapabilities | undefined {
    return this.era.clientCapabilities;
  }

  /** The client's self-reported identity: from the request's `_meta` (2026-07-28), else the connection's. */
  get clientInfo(): Implementation | undefined {
    return this.era.clientInfo;
  }

  /**
   * Sends `notifications/message` to this client, subject to its log level (2025 era: the
   * connection's `logging/setLevel`; 2026-07-28: the request's `_meta` log level — none
   * set, nothing is sent).
   */
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    return this.era.log(this, level, data, logger);
  }

  /**
   * Asks the client's LLM (`sampling/createMessage`); see {@link ServerConnection.createMessage}.
   * 2026-07-28: a multi round-trip input (see `InputOptions`); rejects with -32021 when
   * the request did not declare `sampling`.
   */
  createMessage(params: CreateMessageRequestParams, options?: RequestOptions & InputOptions): Promise<CreateMessageResult> {
    return this.era.createMessage(this, params, options);
  }

  /**
   * Form-mode elicitation; see {@link ServerConnection.elicitForm}. 2026-07-28: a multi
   * round-trip input; rejects with -32021 when the request did not declare form elicitation.
   */
  elicitForm(params: Omit<ElicitFormParams, 'mode'>, options?: RequestOptions & InputOptions): Promise<ElicitResult> {
    return this.era.elicitForm(this, params, options);
  }

  /**
   * URL-mode elicitation; see {@link ServerConnection.elicitUrl}. 2026-07-28: a multi
   * round-trip input (no `elicitationId` on the wire; the returned one is the input's key).
   */
  elicitUrl(params: ElicitUrlParams, options?: RequestOptions & InputOptions): Promise<ElicitResult & { elicitationId: string }> {
    return this.era.elicitUrl(this, params, options);
  }

  /** Asks the client for its roots (`roots/list`). 2026-07-28: a multi round-trip input. */
  listRoots(options?: RequestOptions & InputOptions): Promise<Root[]> {
    return this.era.listRoots(this, options);
  }
}
