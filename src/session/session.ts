/**
 * The JSON-RPC channel ({@link RpcChannel}, formerly `Session`): ids, correlation of
 * responses, timeouts, cancellation both ways, progress, batches and decode limits. It knows nothing about MCP features: the layer
 * above supplies {@link RpcChannelHooks} and decides what each method means.
 *
 * Design notes:
 * - Outgoing request ids are integers counting up from 1 per session: never null, never
 *   reused. The progress token of an outgoing request is its id, so progress lookups use
 *   the same map as responses.
 * - `notifications/cancelled` and `notifications/progress` are handled here, before any
 *   handler queue, so a busy handler cannot delay them.
 * - Timers use a shared callback with the entry as argument (no closure per request), and
 *   `refresh()` to reset on progress where the runtime has it.
 * - Memory of an idle session (docs/memory.md): the map of outgoing requests is created by
 *   the first one, the decode limits are the shared defaults unless overridden, and the
 *   transport receives one receiver object (no closures), which is also its read-only view
 *   of the channel (`ChannelView`: negotiated revision, awaited and handled ids).
 * - Facts, not re-parsing: every message handed to the transport comes with what this
 *   channel knows of it (`SendOptions`: kind, id, method, related request, the request a
 *   cancellation concerns), in one options object reused for every send; and a peer's
 *   cancellation of a request in progress is told to the transport (`peerCancelled`).
 */

import { EnvelopeScanner } from '../framing/envelope-scan.js';
import {
  classify,
  DEFAULT_DECODE_LIMITS,
  type DecodeLimits,
  describeInvalid,
  exceedsDepth,
  KIND_ERROR,
  KIND_NOTIFICATION,
  KIND_REQUEST,
  KIND_RESULT,
} from '../jsonrpc/decode.js';
import { LocalError, McpError, toError } from '../jsonrpc/errors.js';
import { ErrorCode, type JSONObject, type JSONRPCErrorObject, type JSONRPCMessage, type RequestId } from '../jsonrpc/types.js';
import { counterText, isThenable } from '../jsonrpc/values.js';
import type { ChannelView, MessageInfo, MessageKind, SendOptions, Transport, TransportReceiver } from '../transport/types.js';
import { BatchCollector, RequestContext } from './context.js';
import { DiscardedResponseError } from './discarded-response.js';
import { IdTable, OUTGOING_SLOTS } from './id-table.js';

/** What the layer above the session supplies. */
export interface RpcChannelHooks {
  /**
   * Handles an incoming request. Returns (or resolves to) the result object, or throws an
   * {@link McpError} to answer with that error; any other throw answers -32603 without
   * details (the error goes to `error`).
   */
  request(ctx: RequestContext): Promise<unknown> | unknown;
  /** Handles an incoming notification other than cancelled/progress (those are handled here). Must not throw. */
  notification(method: string, params: JSONObject | undefined, info: MessageInfo | undefined): void;
  /** Whether a batch received now is acceptable (the negotiated revision allows batches). */
  batchesAllowed(): boolean;
  /** Builds the context of an incoming request; lets a role use a subclass of {@link RequestContext}. */
  /**
   * Makes the context of an incoming request. May instead return an {@link McpError}: the
   * request is then answered with that error at once and no handler runs (a request whose
   * protocol metadata cannot be served, say).
   */
  createContext?(session: RpcChannel, id: RequestId, method: string, params: JSONObject | undefined, info: MessageInfo | undefined): RequestContext | McpError;
  /** Something went wrong that the peer is not told about in detail (handler crash, garbage). */
  error?(error: Error): void;
  /** The connection closed; pending requests have already been failed. */
  closed?(reason: Error | undefined): void;
  /** The negotiated protocol revision, once known (the transport's {@link ChannelView} reads it). */
  protocolVersion?(): string | undefined;
}

/** Options of a session. */
export interface RpcChannelOptions {
  /** Decode limits (message size, nesting, batch length). */
  limits?: Partial<DecodeLimits>;
  /** Default timeout of outgoing requests in ms. Default 60 000. */
  requestTimeoutMs?: number;
  /** Hard maximum of an outgoing request's life in ms, progress or not. Default: none. */
  maxTotalTimeoutMs?: number;
  /** Most incoming requests handled at once; more are refused with -32600. Default 1024. */
  maxInFlight?: number;
}

/** Options of one outgoing request. */
export interface RequestOptions {
  /** Aborting sends `notifications/cancelled` and rejects with LocalError `cancelled`. */
  signal?: AbortSignal;
  /** Timeout in ms (default: the session's). On expiry the request is cancelled and rejects with LocalError `timeout`. */
  timeoutMs?: number;
  /** Progress notifications reset the timeout (default true). */
  resetTimeoutOnProgress?: boolean;
  /** Hard maximum in ms, regardless of progress. */
  maxTotalTimeoutMs?: number;
  /** Receives progress; setting it attaches a progress token to the request. */
  onProgress?: (progress: Progress) => void;
  /** The incoming request this one is made on behalf of (routing hint for HTTP). */
  relatedRequestId?: RequestId;
  /**
   * Called synchronously with the id assigned to the request, before it is sent (lets a
   * caller correlate messages that echo the id, such as a subscription's notifications).
   * Must not throw.
   */
  onRequestId?: (id: RequestId) => void;
  /** Request metadata for the transport (see {@link SendOptions.metadata}); set by the client role in the stateless era. */
  metadata?: Readonly<Record<string, string>>;
  /**
   * Stateless era (2026-07-28) only: declare the tasks extension (`io.modelcontextprotocol/tasks`)
   * on this request, and resolve a `tools/call` the server turned into a task with its
   * `CreateTaskResult` (`resultType: "task"`) as sent, for the caller to follow with
   * `tasks/get`, `tasks/update` and `tasks/cancel` (sent with this option too). Default false:
   * the client's own `stateless.tasks` option decides (declared and waited for, or neither).
   */
  returnTasks?: boolean;
}

/**
 * @internal Telemetry's view of the two notifications an {@link RpcChannel} sends and consumes
 * itself, beneath every middleware and interceptor: `notifications/cancelled` and
 * `notifications/progress` (see {@link RpcChannel.observeControl}).
 */
export interface ControlObserver {
  /**
   * Runs `send` with the params to send (`params` itself, or a copy with trace context in its
   * `_meta`) and returns what it returns. Called by `notify` for these two methods.
   */
  sent(method: string, params: JSONObject | undefined, send: (params: JSONObject | undefined) => Promise<void>): Promise<void>;
  /**
   * Runs `handle` (the channel's own handling of the received notification). Must call it
   * once, and not throw. `request`: the incoming request a `notifications/cancelled` names,
   * while it is in progress.
   */
  received(method: string, params: JSONObject | undefined, info: MessageInfo | undefined, handle: () => void, request: RequestContext | undefined): void;
}

/** A progress update received for an outgoing request. */
export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

class PendingRequest {
  /** When the request times out (`Date.now()` ms); Infinity without a timeout. */
  deadline = Infinity;
  abortListener: (() => void) | undefined = undefined;
  constructor(
    readonly session: RpcChannel,
    readonly id: RequestId,
    readonly method: string,
    readonly resolve: (value: unknown) => void,
    readonly reject: (reason: unknown) => void,
    readonly options: RequestOptions | undefined,
    readonly startedAt: number,
    readonly timeoutMs: number,
    readonly maxTotalMs: number | undefined,
  ) {}
}

/** The longest delay a timer holds (2^31 - 1 ms); a longer one would fire at once. */
const MAX_TIMER_MS = 0x7fffffff;

/** A timer as `setTimeout` returns it: Node's can be unref'd and ref'd, a browser's is a number. */
type SessionTimer = ReturnType<typeof setTimeout> & { ref?: () => unknown; unref?: () => unknown };

/**
 * The session timer's callback (one function for every session: no closure per session);
 * it reaches the session's private `#timerFired`, assigned where the class is defined.
 */
let onSessionTimer: (session: RpcChannel) => void;

/**
 * One timer for every outgoing request's timeout of a session (not one per request: setting
 * and clearing a timer per call was a tenth of a client's time over stdio). It is armed for
 * `at`, at or before the earliest deadline; when it fires, the session expires the requests
 * past their deadline and arms it again for the earliest left. While no request is pending
 * it stays armed but unref'd (`held` false: it keeps no process alive), so a client making
 * one call after another keeps one timer; where timers cannot be unref'd it is cleared.
 */
class RequestClock {
  timer: SessionTimer | undefined = undefined;
  at = Infinity;
  /** The timer keeps the process alive (a request waits). */
  held = false;

  /**
   * Makes sure the timer fires by `deadline` (arming it earlier when needed) and holds the
   * process, since a request waits; `session` is handed to the timer's callback.
   */
  watch(deadline: number, session: RpcChannel): void {
    if (deadline < this.at) {
      if (this.timer !== undefined) clearTimeout(this.timer);
      this.at = deadline;
      this.timer = setTimeout(onSessionTimer, Math.min(Math.max(deadline - Date.now(), 0), MAX_TIMER_MS), session) as SessionTimer;
      this.held = true;
    } else if (!this.held) {
      this.timer!.ref!();
      this.held = true;
    }
  }

  /** The timer fired: nothing is armed. */
  reset(): void {
    this.timer = undefined;
    this.at = Infinity;
    this.held = false;
  }

  /** No request waits: the timer may stay armed, but must not hold the process. */
  release(): void {
    const timer = this.timer;
    if (timer === undefined || !this.held) return;
    if (typeof timer.unref === 'function' && typeof timer.ref === 'function') {
      timer.unref();
      this.held = false;
    } else this.stop();
  }

  /** Clears the timer (the session closed). */
  stop(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.reset();
  }
}

const noop = () => {};

/**
 * The facts of the message a session sends (see {@link SendOptions}): one object per
 * session, overwritten for every message (the transport reads it during `send`).
 */
class OutgoingFacts implements SendOptions {
  kind: MessageKind | undefined = undefined;
  id: RequestId | null | undefined = undefined;
  method: string | undefined = undefined;
  relatedRequestId: RequestId | undefined = undefined;
  cancels: RequestId | undefined = undefined;
  metadata: Readonly<Record<string, string>> | undefined = undefined;
}

/**
 * The JSON-RPC channel over one transport: ids, correlation, timeouts, cancellation,
 * progress, batches (see the module note). Not shareable between transports. It is neither
 * the HTTP session of an `Mcp-Session-Id` nor the role's connection to its peer; it was
 * called `Session` before (still exported under that name, deprecated).
 */
export class RpcChannel {
  readonly #transport: Transport;
  readonly #hooks: RpcChannelHooks;
  readonly #limits: Readonly<DecodeLimits>;
  readonly #timeoutMs: number;
  readonly #maxTotalMs: number | undefined;
  readonly #maxInFlight: number;
  /**
   * Outgoing requests awaiting their response; created by the first one (a server rarely
   * sends any). An IdTable, not a `Map`: with several calls in flight a `Map` that gains and
   * loses an entry per call kept rebuilding its backing table, and the tables (and the
   * entries they held) were promoted to the old generation (see id-table.ts).
   */
  #pending: IdTable<PendingRequest> | undefined = undefined;
  /** The timer of the outgoing requests' timeouts; made by the first (a server rarely sends any). */
  #clock: RequestClock | undefined = undefined;
  /** In-flight incoming requests by id (an IdTable: no Map churn per request, see id-table.ts). */
  readonly #incoming = new IdTable<RequestContext>();
  #nextId = 0;
  /** The transport's `requestIdPrefix`: outgoing ids are `<prefix><n>` strings when set. */
  #idPrefix: string | undefined;
  #closed = false;
  #closeReason: Error | undefined;
  #started = false;
  /** The facts of the message being sent (see {@link OutgoingFacts}); made by the first send. */
  #facts: OutgoingFacts | undefined = undefined;
  /** See {@link observeControl}. */
  #control: ControlObserver | undefined = undefined;

  static {
    onSessionTimer = (session) => session.#timerFired();
  }

  /**
   * What the transport delivers to: one small object per session whose methods (on the
   * prototype) reach the session's private ones, instead of three closures and an object.
   */
  static readonly #Receiver = class SessionReceiver implements TransportReceiver, ChannelView {
    readonly #session: RpcChannel;
    constructor(session: RpcChannel) {
      this.#session = session;
    }
    message(data: unknown, info?: MessageInfo): void {
      this.#session.#receive(data, info);
    }
    error(error: Error): void {
      if (error instanceof DiscardedResponseError) this.#session.#failDiscarded(error);
      this.#session.#hooks.error?.(error);
    }
    closed(reason?: Error): void {
      this.#session.#onClosed(reason);
    }
    // the transport's view of its channel (the same object: nothing more per session)
    get protocolVersion(): string | undefined {
      const hooks = this.#session.#hooks;
      return hooks.protocolVersion === undefined ? undefined : hooks.protocolVersion();
    }
    awaits(id: RequestId): boolean {
      return this.#session.awaits(id);
    }
    handles(id: RequestId): boolean {
      return this.#session.#incoming.has(id);
    }
  };

  constructor(transport: Transport, hooks: RpcChannelHooks, options: RpcChannelOptions = {}) {
    this.#transport = transport;
    this.#hooks = hooks;
    // the shared defaults unless some are overridden (no copy per session)
    this.#limits = options.limits === undefined ? DEFAULT_DECODE_LIMITS : { ...DEFAULT_DECODE_LIMITS, ...options.limits };
    this.#timeoutMs = options.requestTimeoutMs ?? 60_000;
    this.#maxTotalMs = options.maxTotalTimeoutMs;
    this.#maxInFlight = options.maxInFlight ?? 1024;
  }

  /** The transport's session id, when it has one. */
  get transportSessionId(): string | undefined {
    return this.#transport.sessionId;
  }

  /** True once the connection closed. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Number of incoming requests being handled. */
  get inFlight(): number {
    return this.#incoming.size;
  }

  /** Number of outgoing requests awaiting a response. */
  get pendingCount(): number {
    return this.#pending?.size ?? 0;
  }

  /** True while the outgoing request `id` awaits its response (so a response with that id is this session's). */
  awaits(id: RequestId): boolean {
    return this.#pending?.has(id) === true;
  }

  /** Starts the transport; messages flow from now on. Call once. */
  async start(): Promise<void> {
    if (this.#started) throw new LocalError('already_connected', 'The JSON-RPC channel was already started (start() is called once)');
    this.#started = true;
    this.#idPrefix = this.#transport.requestIdPrefix;
    const receiver = new RpcChannel.#Receiver(this);
    await this.#transport.start(receiver, receiver);
  }

  /** Closes the transport; pending outgoing requests fail with `connection_closed`. */
  async close(): Promise<void> {
    if (this.#closed) return;
    await this.#transport.close();
    this.#onClosed(undefined);
  }

  // ───────────── outgoing ─────────────

  /**
   * Sends a request and resolves with its result object. Rejects with {@link McpError} for
   * an error response, or {@link LocalError} (`timeout`, `cancelled`, `connection_closed`).
   */
  request(method: string, params: JSONObject | undefined, options?: RequestOptions): Promise<unknown> {
    if (this.#closed) return Promise.reject(this.#closedError());
    const n = ++this.#nextId;
    const id: RequestId = this.#idPrefix === undefined ? n : this.#idPrefix + counterText(n);
    options?.onRequestId?.(id);
    if (options?.onProgress) {
      const meta = params?._meta as JSONObject | undefined;
      params = { ...params, _meta: { ...meta, progressToken: id } };
    }
    const message: JSONRPCMessage = params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
    return new Promise((resolve, reject) => {
      const timeoutMs = options?.timeoutMs ?? this.#timeoutMs;
      const entry = new PendingRequest(this, id, method, resolve, reject, options, Date.now(), timeoutMs, options?.maxTotalTimeoutMs ?? this.#maxTotalMs);
      const signal = options?.signal;
      if (signal) {
        if (signal.aborted) {
          reject(new LocalError('cancelled', `Request ${method} was cancelled before it was sent`, { cause: signal.reason }));
          return;
        }
        entry.abortListener = () =>
          this.#cancelOutgoing(entry, new LocalError('cancelled', `Request ${method} was cancelled`, { cause: signal.reason }), signal.reason);
        signal.addEventListener('abort', entry.abortListener, { once: true });
      }
      (this.#pending ??= new IdTable(OUTGOING_SLOTS)).set(id, entry);
      if (timeoutMs > 0 && Number.isFinite(timeoutMs)) this.#watch(entry, entry.startedAt + Math.min(timeoutMs, entry.maxTotalMs ?? Infinity));
      this.#send(message, 'request', id, method, options?.relatedRequestId, undefined, options?.metadata).catch((err) => {
        if (this.#pending?.get(id) === entry) {
          this.#settle(entry);
          reject(err instanceof LocalError ? err : new LocalError('connection_closed', `Could not send ${method}`, { cause: err }));
        }
      });
    });
  }

  /**
   * @internal Hands `notifications/cancelled` and `notifications/progress`, which this channel
   * sends and consumes itself (no middleware sees them), to `observer` (telemetry: their spans
   * and trace context); `undefined` removes it. One observer per channel.
   */
  observeControl(observer: ControlObserver | undefined): void {
    this.#control = observer;
  }

  /** Sends a notification. Rejects with LocalError `connection_closed` once closed. */
  async notify(method: string, params?: JSONObject, options?: SendOptions): Promise<void> {
    if (this.#closed) throw this.#closedError();
    const control = this.#control;
    if (control !== undefined && (method === 'notifications/cancelled' || method === 'notifications/progress'))
      return control.sent(method, params, (sent) => this.#notify(method, sent, options));
    return this.#notify(method, params, options);
  }

  #notify(method: string, params: JSONObject | undefined, options: SendOptions | undefined): Promise<void> {
    const target = method === 'notifications/cancelled' ? params?.requestId : undefined;
    const cancels = typeof target === 'string' || typeof target === 'number' ? target : undefined;
    return this.#send(
      params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params },
      'notification',
      undefined,
      method,
      options?.relatedRequestId,
      cancels,
      options?.metadata,
    );
  }

  /**
   * Hands `message` to the transport with the facts this session knows of it (see
   * {@link SendOptions}), in the one reused facts object.
   */
  #send(
    message: JSONRPCMessage | JSONRPCMessage[],
    kind: MessageKind,
    id: RequestId | null | undefined,
    method: string | undefined,
    relatedRequestId: RequestId | undefined,
    cancels: RequestId | undefined,
    metadata: Readonly<Record<string, string>> | undefined,
  ): Promise<void> {
    const facts = (this.#facts ??= new OutgoingFacts());
    facts.kind = kind;
    facts.id = id;
    facts.method = method;
    facts.relatedRequestId = relatedRequestId;
    facts.cancels = cancels;
    facts.metadata = metadata;
    try {
      return Promise.resolve(this.#transport.send(message, facts));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** Sends one response (kind `response` or `error`, answering request `id`). */
  #sendResponse(response: WireResponse): Promise<void> {
    return this.#send(response as JSONRPCMessage, response.error === undefined ? 'response' : 'error', response.id, undefined, undefined, undefined, undefined);
  }

  /** Gives `entry` its deadline and makes sure the timer fires by then (and holds the process while requests wait). */
  #watch(entry: PendingRequest, deadline: number): void {
    entry.deadline = deadline;
    (this.#clock ??= new RequestClock()).watch(deadline, this);
  }

  /** The timer fired: expires the requests past their deadline and arms the timer for the earliest left. */
  #timerFired(): void {
    this.#clock?.reset();
    const pending = this.#pending;
    if (pending === undefined || pending.size === 0) return;
    const now = Date.now();
    let due: PendingRequest[] | undefined;
    let next: PendingRequest | undefined;
    for (const entry of pending.values()) {
      if (entry.deadline <= now) (due ??= []).push(entry);
      else if (entry.deadline !== Infinity && (next === undefined || entry.deadline < next.deadline)) next = entry;
    }
    if (next !== undefined) this.#watch(next, next.deadline);
    if (due !== undefined) for (const entry of due) this.#expire(entry);
  }

  #expire(entry: PendingRequest): void {
    if (this.#pending?.get(entry.id) !== entry) return;
    const elapsed = Date.now() - entry.startedAt;
    const max = entry.maxTotalMs;
    const what = max !== undefined && elapsed >= max ? `the maximum total time of ${max} ms` : `${entry.timeoutMs} ms`;
    const peer = this.#transport.peer;
    this.#cancelOutgoing(
      entry,
      new LocalError('timeout', `Request ${entry.method}${peer === undefined ? '' : ` to ${peer}`} timed out after ${what}`),
      'timeout',
    );
  }

  #cancelOutgoing(entry: PendingRequest, error: LocalError, reason: unknown): void {
    if (this.#pending?.get(entry.id) !== entry) return;
    this.#settle(entry);
    entry.reject(error);
    // The initialize request is never cancelled on the wire (2025-03-26 › Cancellation).
    if (entry.method !== 'initialize' && !this.#closed) {
      const params: JSONObject = { requestId: entry.id };
      if (typeof reason === 'string') params.reason = reason;
      else if (reason instanceof Error) params.reason = reason.message;
      this.notify('notifications/cancelled', params).catch(noop);
    }
  }

  #settle(entry: PendingRequest): void {
    const pending = this.#pending;
    if (pending !== undefined && pending.delete(entry.id) && pending.size === 0) this.#clock?.release();
    if (entry.abortListener) entry.options!.signal!.removeEventListener('abort', entry.abortListener);
  }

  /** Delivers progress to the pending request owning its token; false when none does. */
  #onProgress(params: JSONObject): boolean {
    const entry = this.#pending?.get(params.progressToken as RequestId);
    if (entry === undefined) return false;
    if (!entry.options?.onProgress) return true;
    if (entry.deadline !== Infinity && entry.options.resetTimeoutOnProgress !== false) {
      const now = Date.now();
      const remainingTotal = entry.maxTotalMs === undefined ? Infinity : entry.maxTotalMs - (now - entry.startedAt);
      if (remainingTotal <= 0) {
        this.#expire(entry);
        return true;
      }
      // later than before (time only moves on), so the armed timer still fires in time
      this.#watch(entry, now + Math.min(entry.timeoutMs, remainingTotal));
    }
    const p: Progress = { progress: params.progress as number };
    if (typeof params.total === 'number') p.total = params.total;
    if (typeof params.message === 'string') p.message = params.message;
    try {
      entry.options.onProgress(p);
    } catch (err) {
      this.#hooks.error?.(err as Error);
    }
    return true;
  }

  // ───────────── incoming ─────────────

  #receive(data: unknown, info: MessageInfo | undefined): void {
    if (this.#closed) return;
    let value = data;
    if (typeof data === 'string') {
      if (data.length > this.#limits.maxMessageChars) {
        this.#refuseTooLarge(data);
        return;
      }
      try {
        value = JSON.parse(data);
      } catch {
        this.#sendError(null, ErrorCode.ParseError, 'Parse error: the message is not valid JSON');
        return;
      }
    }
    // a text of n characters nests at most n / 2 levels (each opens and closes a bracket), so
    // a short one needs no walk
    if ((typeof data !== 'string' || data.length > 2 * this.#limits.maxDepth) && exceedsDepth(value, this.#limits.maxDepth)) {
      this.#refuseTooDeep(value);
      return;
    }
    if (Array.isArray(value)) {
      this.#receiveBatch(value, info);
      return;
    }
    this.#dispatch(value, info, undefined);
  }

  /**
   * A message longer than `maxMessageChars`, unparsed: a response fails the request it
   * answers at once (a response is never answered, JSON-RPC 2.0 section 5); anything else
   * gets an Invalid Request error. Kept out of {@link #receive}, which every message runs: inside
   * it, #receive grew too large for V8 to inline (instructions json/mcpkit +3.5 %, bench-compare, 2026-12).
   */
  #refuseTooLarge(data: string): void {
    const envelope = scanEnvelope(data);
    if (envelope.kind === 'response') {
      if (envelope.id !== null)
        this.#failDiscarded(
          new DiscardedResponseError(
            envelope.id,
            'message_too_large',
            `The response to request ${JSON.stringify(envelope.id)} exceeds the limit of ${this.#limits.maxMessageChars} characters (maxMessageChars) and was discarded`,
          ),
        );
      return;
    }
    this.#sendError(null, ErrorCode.InvalidRequest, `Message exceeds the limit of ${this.#limits.maxMessageChars} characters`);
  }

  /** A message nested deeper than `maxDepth`: refused like {@link #refuseTooLarge}. */
  #refuseTooDeep(value: unknown): void {
    const id = (value as { id?: unknown } | null)?.id;
    const m = value as Record<string, unknown>;
    if (typeof m === 'object' && m !== null && !Array.isArray(m) && m.method === undefined && ('result' in m || 'error' in m)) {
      if (typeof id === 'string' || typeof id === 'number')
        this.#failDiscarded(
          new DiscardedResponseError(
            id,
            'invalid_message',
            `The response to request ${JSON.stringify(id)} nests deeper than ${this.#limits.maxDepth} levels and was discarded`,
          ),
        );
      return;
    }
    this.#sendError(
      typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)) ? id : null,
      ErrorCode.InvalidRequest,
      `Message nests deeper than ${this.#limits.maxDepth} levels`,
    );
  }

  #receiveBatch(items: unknown[], info: MessageInfo | undefined): void {
    if (items.length === 0) {
      this.#sendError(null, ErrorCode.InvalidRequest, 'An empty batch is not a valid request');
      return;
    }
    if (!this.#hooks.batchesAllowed()) {
      this.#sendError(null, ErrorCode.InvalidRequest, 'Batches are not supported in this protocol revision');
      return;
    }
    if (items.length > this.#limits.maxBatchLength) {
      this.#sendError(null, ErrorCode.InvalidRequest, `A batch may hold at most ${this.#limits.maxBatchLength} messages`);
      return;
    }
    const batch = new BatchCollector();
    batch.pending = 1; // held open until every element is dispatched
    for (let i = 0; i < items.length; i++) this.#dispatch(items[i], info, batch);
    this.#batchDone(batch);
  }

  #dispatch(value: unknown, info: MessageInfo | undefined, batch: BatchCollector | undefined): void {
    const kind = classify(value);
    const m = value as Record<string, unknown>;
    switch (kind) {
      case KIND_REQUEST:
        this.#onRequest(m.id as RequestId, m.method as string, m.params as JSONObject | undefined, info, batch);
        return;
      case KIND_NOTIFICATION:
        this.#onNotification(m.method as string, m.params as JSONObject | undefined, info);
        return;
      case KIND_RESULT:
      case KIND_ERROR:
        this.#onResponse(m, kind === KIND_ERROR);
        return;
      default: {
        const { id, reason } = describeInvalid(value);
        this.#respond(batch, { jsonrpc: '2.0', id, error: { code: ErrorCode.InvalidRequest, message: `Invalid request: ${reason}` } });
      }
    }
  }

  /** A response to a pending request was discarded unread: that request fails now (see discarded-response.ts). */
  #failDiscarded(error: DiscardedResponseError): void {
    const entry = this.#pending?.get(error.requestId);
    if (entry === undefined) return;
    this.#settle(entry);
    entry.reject(error);
  }

  #onResponse(m: Record<string, unknown>, isError: boolean): void {
    const id = m.id as RequestId | null;
    const entry = id === null ? undefined : this.#pending?.get(id);
    if (entry === undefined) {
      if (isError)
        this.#hooks.error?.(
          new LocalError('invalid_message', `Received an error for an unknown request id ${JSON.stringify(id)}: ${(m.error as JSONRPCErrorObject).message}`),
        );
      return; // a late response after timeout or cancellation is ignored
    }
    this.#settle(entry);
    if (isError) entry.reject(McpError.from(m.error as JSONRPCErrorObject));
    else entry.resolve(m.result);
  }

  #onNotification(method: string, params: JSONObject | undefined, info: MessageInfo | undefined): void {
    if (method === 'notifications/cancelled' || method === 'notifications/progress') {
      const control = this.#control;
      if (control === undefined) this.#onControl(method, params, info);
      else {
        const target = method === 'notifications/cancelled' ? params?.requestId : undefined;
        const request = typeof target === 'string' || typeof target === 'number' ? this.#incoming.get(target) : undefined;
        control.received(method, params, info, () => this.#onControl(method, params, info), request);
      }
      return;
    }
    try {
      this.#hooks.notification(method, params, info);
    } catch (err) {
      this.#hooks.error?.(err as Error);
    }
  }

  /** Handles `notifications/cancelled` and `notifications/progress` (see the design notes). */
  #onControl(method: string, params: JSONObject | undefined, info: MessageInfo | undefined): void {
    if (method === 'notifications/cancelled') {
      const target = params?.requestId;
      if (typeof target !== 'string' && typeof target !== 'number') return;
      const ctx = this.#incoming.get(target);
      if (ctx === undefined) return;
      ctx.cancel(params!.reason ?? 'Request cancelled by the peer');
      this.#transport.peerCancelled?.(target);
      return;
    }
    // notifications/progress. Progress for a token no pending request owns (for example a
    // task's, after its request was answered) goes to the layer above, which may have listeners for it.
    if (
      params &&
      (typeof params.progressToken === 'string' || typeof params.progressToken === 'number') &&
      typeof params.progress === 'number' &&
      !this.#onProgress(params)
    ) {
      try {
        this.#hooks.notification(method, params, info);
      } catch (err) {
        this.#hooks.error?.(err as Error);
      }
    }
  }

  #onRequest(id: RequestId, method: string, params: JSONObject | undefined, info: MessageInfo | undefined, batch: BatchCollector | undefined): void {
    if (this.#incoming.has(id)) {
      this.#respond(batch, {
        jsonrpc: '2.0',
        id,
        error: { code: ErrorCode.InvalidRequest, message: `Invalid request: id ${JSON.stringify(id)} is already in use by a request in progress` },
      });
      return;
    }
    if (this.#incoming.size >= this.#maxInFlight) {
      this.#respond(batch, {
        jsonrpc: '2.0',
        id,
        error: { code: ErrorCode.InvalidRequest, message: `Too many requests in progress (limit ${this.#maxInFlight})` },
      });
      return;
    }
    const ctx = this.#hooks.createContext ? this.#hooks.createContext(this, id, method, params, info) : new RequestContext(this, id, method, params, info);
    if (ctx instanceof McpError) {
      this.#respond(batch, { jsonrpc: '2.0', id, error: ctx.toJSON() });
      return;
    }
    if (batch !== undefined) {
      ctx.batch = batch;
      batch.pending++;
    }
    this.#incoming.set(id, ctx);
    this.#run(ctx);
  }

  /**
   * Runs one request's handler. An outcome that is not a promise is answered at once, inside
   * the call that delivered the request (no turn of the microtask queue); a promise when it
   * settles.
   */
  #run(ctx: RequestContext): void {
    let outcome: unknown;
    try {
      outcome = this.#hooks.request(ctx);
    } catch (err) {
      this.#failed(ctx, err);
      return;
    }
    if (!isThenable(outcome)) this.#succeeded(ctx, outcome);
    else
      Promise.resolve(outcome).then(
        (result) => this.#succeeded(ctx, result),
        (err: unknown) => this.#failed(ctx, err),
      );
  }

  #succeeded(ctx: RequestContext, result: unknown): void {
    this.#answer(ctx, { jsonrpc: '2.0', id: ctx.id, result: result ?? {} });
  }

  #failed(ctx: RequestContext, err: unknown): void {
    this.#answer(ctx, { jsonrpc: '2.0', id: ctx.id, error: this.#toWireError(err) });
  }

  /** Sends the response of the request of `ctx` (unless it was cancelled or the session closed) and forgets the request. */
  #answer(ctx: RequestContext, response: WireResponse): void {
    this.#incoming.delete(ctx.id);
    const cancelled = ctx.cancelled;
    ctx.finish();
    if (this.#closed) return;
    const batch = ctx.batch;
    if (batch !== undefined) {
      if (!cancelled) {
        batch.responses.push(response);
        batch.answered ??= ctx.id;
      }
      this.#batchDone(batch);
    } else if (!cancelled) {
      if (ctx.sentRecentProgress && this.#transport.answersRequests !== false) {
        this.#answerAfterProgress(ctx, response);
        return;
      }
      this.#sendResponse(response).catch((err) => this.#hooks.error?.(err));
    }
  }

  /**
   * Writes the response of a request that sent progress moments ago once the peer has read
   * that progress: a `ping` on the request's own channel (answered after the peer handled
   * everything it read before it) comes back first, or fails, or times out after
   * {@link PROGRESS_CONFIRM_TIMEOUT_MS}. A client that handles notifications a microtask after
   * responses (the official TypeScript SDKs) would otherwise drop a last progress it read in
   * the same chunk as the response. Only requests that reported progress pay the round trip.
   */
  #answerAfterProgress(ctx: RequestContext, response: WireResponse): void {
    const send = (): void => {
      if (!this.#closed) this.#sendResponse(response).catch((err) => this.#hooks.error?.(err));
    };
    this.request('ping', undefined, { relatedRequestId: ctx.id, timeoutMs: PROGRESS_CONFIRM_TIMEOUT_MS }).then(send, send);
  }

  #toWireError(err: unknown): JSONRPCErrorObject {
    // the hook is a method of the hooks object: call it on that object (error path only)
    const hooks = this.#hooks;
    return toWireError(err, hooks.error === undefined ? undefined : (error) => hooks.error!(error));
  }

  #respond(batch: BatchCollector | undefined, response: WireResponse): void {
    if (batch !== undefined) batch.responses.push(response);
    else this.#sendResponse(response).catch((err) => this.#hooks.error?.(err));
  }

  #batchDone(batch: BatchCollector): void {
    if (--batch.pending > 0 || batch.closed) return;
    batch.closed = true;
    const responses = batch.responses;
    if (responses.length === 0 || this.#closed) return;
    let first = batch.answered;
    for (let i = 0; i < responses.length && first === undefined; i++) first = responses[i]!.id ?? undefined;
    this.#send(responses as JSONRPCMessage[], 'batch', first, undefined, undefined, undefined, undefined).catch((err) => this.#hooks.error?.(err));
  }

  #sendError(id: RequestId | null, code: number, message: string): void {
    this.#sendResponse({ jsonrpc: '2.0', id, error: { code, message } }).catch((err) => this.#hooks.error?.(err));
  }

  // ───────────── closing ─────────────

  /**
   * The error pending and later requests fail with once closed: LocalError `connection_closed`
   * with the close reason as its cause, except that a reason that is itself the whole story —
   * a LocalError `process_exited` (the stdio server process exited: `ProcessExitedError`,
   * with its exit code, signal and stderr) — is the error, so `instanceof ProcessExitedError`
   * works on what `connect()` and requests reject with.
   */
  #closedError(): LocalError {
    const reason = this.#closeReason;
    if (reason instanceof LocalError && reason.code === 'process_exited') return reason;
    return new LocalError('connection_closed', this.#closeReason ? `Connection closed: ${this.#closeReason.message}` : 'Connection closed', {
      cause: this.#closeReason,
    });
  }

  #onClosed(reason: Error | undefined): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#closeReason = reason;
    const error = this.#closedError();
    if (this.#pending !== undefined)
      for (const entry of this.#pending.values()) {
        this.#settle(entry);
        entry.reject(error);
      }
    this.#clock?.stop();
    for (const ctx of this.#incoming.values()) ctx.cancel(error);
    this.#hooks.closed?.(reason);
  }
}

/** What a scan of a message's top-level members finds (kind and id), in constant memory. */
function scanEnvelope(text: string): ReturnType<EnvelopeScanner['summary']> {
  const scanner = new EnvelopeScanner();
  scanner.pushText(text);
  return scanner.summary();
}

/** A response this session built: its id is the fact transports route it by. */
interface WireResponse {
  readonly jsonrpc: '2.0';
  readonly id: RequestId | null;
  readonly result?: unknown;
  readonly error?: JSONRPCErrorObject;
}

/** Longest wait for the peer's confirmation that it read a request's recent progress. */
const PROGRESS_CONFIRM_TIMEOUT_MS = 2000;

/**
 * The wire error of a request handler's failure: an {@link McpError} as it is; anything else
 * is reported through `report` and answered as -32603 "Internal error" (no message, stack or
 * path of the failure reaches the peer). Shared by every dispatch path.
 */
export function toWireError(err: unknown, report: ((error: Error) => void) | undefined): JSONRPCErrorObject {
  if (err instanceof McpError) return err.toJSON();
  report?.(toError(err));
  return { code: ErrorCode.InternalError, message: 'Internal error' };
}

/** @deprecated Renamed {@link RpcChannel}: the JSON-RPC channel (not an HTTP session, nor the role's connection). */
export const Session = RpcChannel;
/** @deprecated Renamed {@link RpcChannel}. */
export type Session = RpcChannel;
/** @deprecated Renamed {@link RpcChannelHooks}. */
export type SessionHooks = RpcChannelHooks;
/** @deprecated Renamed {@link RpcChannelOptions}. */
export type SessionOptions = RpcChannelOptions;
