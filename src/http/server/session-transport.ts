/**
 * The server side of one Streamable HTTP session: the {@link Transport} handed to
 * `McpServer.connect()`, and the routing of every outgoing message to exactly one SSE
 * stream (2025-03-26 › Streamable HTTP › Multiple Connections, Resumability).
 *
 * Design notes:
 * - Streams are logical and outlive HTTP connections. A POST that carries requests opens
 *   stream `n` (numbered 1, 2, … per session); the standalone stream of GET is number 0.
 *   A stream has at most one attached {@link SseConnection} at a time. Event ids are
 *   `<stream>:<seq>`, so a `Last-Event-ID` names its stream and only that stream's events are
 *   ever replayed, only within the session it arrived on. A transport of a shared session
 *   (a `storeTag`) makes them `<tag>.<stream>:<seq>`: the id then also names the instance
 *   that opened the stream, and another instance resumes it from the shared store and the
 *   owner's feed (session-crossing.ts, stream-follow.ts); a stream this transport opened may
 *   be handed over so ({@link StreamableSessionTransport.followStream}), one attached
 *   connection or feed at a time.
 * - Facts, not parsing: what it routes comes from the session (`SendOptions`: a response's
 *   id, a notification's related request); a client's cancellation of a request in progress
 *   is told by the session (`peerCancelled`). Only text handed to `send` directly is read
 *   (transport/facts.ts). It never holds its server role: what the handler asks of the
 *   connection (negotiated revision, awaited ids) goes through the view given at start.
 * - Routing: a response goes to the stream of the POST that carried its request (looked up
 *   by id; an error with id null, sent while a POST is being delivered, to that POST);
 *   other messages go to the stream of their `relatedRequestId` while that request is open,
 *   else to the standalone stream. A response is never sent on the standalone stream.
 * - While a stream is open every event is appended to the event store, attached or not: a
 *   client that vanishes mid-stream (or a stream the server closed, SEP-1699) loses
 *   nothing, and a request keeps running — a disconnect is not a cancellation. A stream
 *   whose last response is written to an attached connection is forgotten at once (store
 *   included; that last event is not even stored), which keeps the store flat under load
 *   and a plain request free of store traffic; one that completed while detached is
 *   retained (a few per session) until a `Last-Event-ID` resumption replays it, or the
 *   session ends. The price: a connection that breaks after the server wrote the final
 *   response but before the client read it cannot be resumed (the GET gets 400).
 * - A POST stream completes with its response (for a batch: the response array), or when
 *   every request it carried was cancelled by the client (no response will follow).
 * - Cost: an idle session is this object plus, once used, two small maps; streams and
 *   connections exist only while requests run.
 */

import { encodeUncheckedSseEvent, oneLineJson } from '../../framing/sse.js';
import { LocalError, toError } from '../../jsonrpc/errors.js';
import { serializeMessage } from '../../jsonrpc/preset-json.js';
import type { JSONRPCMessage, RequestId } from '../../jsonrpc/types.js';
import { counterText } from '../../jsonrpc/values.js';
import { Notification } from '../../protocol/methods.js';
import { IdTable } from '../../session/id-table.js';
import { factsOf } from '../../transport/facts.js';
import type { ChannelView, MessageInfo, SendOptions, Transport, TransportReceiver } from '../../transport/types.js';
import type { EventStore } from './event-store.js';
import { budgetRefusal, type OutboundBudget } from './outbound.js';
import { errorReply, primingEvent, SESSION_NOT_FOUND, sseHeaders, sseReply, TRANSPORT_ERROR } from './replies.js';
import { badLastEventId, CrossInstance } from './session-crossing.js';
import type { FollowedStream, StreamFeed, StreamFollower } from './session-directory.js';
import type { RequestStreamCloser } from './session-disconnect.js';
import { appendEvent, forgetEvents, replayEvents } from './session-events.js';
import { SseConnection, type SseConnectionOwner } from './sse-connection.js';
import type { HttpHeaders, HttpReply } from './types.js';

/** What a session transport needs from the handler that owns it (one object per handler). */
export interface TransportHost {
  /** Where stream events are kept for resumption; `undefined`: no resumability. */
  readonly store: EventStore | undefined;
  /** The `retry` field of priming events, in ms. */
  readonly retryMs: number;
  /** Reports a problem nobody else hears about. Must not throw. */
  reportError(error: Error): void;
  /**
   * The outbound budget of the adapter serving these transports (see outbound.ts), and where
   * its refusals are reported: a response that would not fit is refused before it is
   * serialized. Undefined when no adapter with a budget serves the host.
   */
  readonly _outbound?: OutboundSeam | undefined;
  /** The transport closed (DELETE, reaping, server-side close, shutdown). Must not throw. */
  released(transport: StreamableSessionTransport): void;
  /**
   * A message for the session's GET stream found no GET attached here (it is queued for one
   * all the same): a host sharing sessions between instances hands it to the instance
   * holding the GET. `origin` is its event id on this instance's GET stream (undefined
   * without an event store), by which the receiving instance drops a message it already
   * replayed from the store. Optional. Must not throw.
   */
  unattached?(transport: StreamableSessionTransport, text: string, origin: string | undefined): void;
  /**
   * Follows stream `stream` of `transport`'s session, opened by the instance tagged `owner`
   * (see `SessionDirectory.follow`); returns the function that stops. Optional: without it
   * such a stream is replayed from the store and ended. Must not throw.
   */
  follow?(transport: StreamableSessionTransport, owner: string, stream: number, follower: StreamFollower): () => void;
  /**
   * POST stream `stream` of a shared session's transport carries requests `ids` (see
   * `SessionDirectory.streamOpened`); {@link streamEnded} follows when it got its
   * responses. Optional. Must not throw.
   */
  streamOpened?(transport: StreamableSessionTransport, stream: number, ids: readonly RequestId[]): void;
  /** See {@link streamOpened}. Optional. Must not throw. */
  streamEnded?(transport: StreamableSessionTransport, stream: number): void;
  /**
   * The requests of stream `stream` of the instance tagged `owner` that it opened and did
   * not answer (see `SessionDirectory.openRequests`). Optional; rejects when unknown.
   */
  openRequests?(transport: StreamableSessionTransport, owner: string, stream: number): Promise<RequestId[]>;
}

/** What an adapter with an outbound budget tells the transports' host (see {@link TransportHost._outbound}). */
export interface OutboundSeam {
  readonly budget: OutboundBudget;
  /** Reports a refusal. Must not throw. */
  report(error: Error): void;
}

const MODE_SSE = 0;
const MODE_JSON = 1;
const MODE_STANDALONE = 2;

/** Retained (completed while detached) POST streams per session, oldest dropped first. */
const MAX_RETAINED_STREAMS = 32;
/** The most ring slots of a session's table of streams (`IdTable`): the retained ones and a few open. */
const STREAM_SLOTS = 64;

/** A `Last-Event-ID`: optional instance tag, stream number, sequence number. */
const EVENT_ID = /^(?:([A-Za-z0-9_-]{1,32})\.)?(\d{1,9}):(\d{1,15})$/;

const RESOLVED: Promise<void> = Promise.resolve();

/** Message info of the cancellations this transport issues for a cut reader (no client sent them). */
const CUT_INFO: MessageInfo = {};

/**
 * A stream's connection went away: reaches the transport's private `#lost` (assigned where
 * the class is defined), so that neither a closure per stream nor a public method is needed.
 */
let connectionLost: (transport: StreamableSessionTransport, stream: OutStream, conn: SseConnection, reason: Error | undefined) => void;

/** @internal one logical stream of a session */
class OutStream implements SseConnectionOwner {
  readonly transport: StreamableSessionTransport;
  readonly id: number;
  readonly mode: number;
  /** Store key, built on first append. */
  key: string | undefined = undefined;
  /** Event id prefix (`<n>:` or `<tag>.<n>:`), built on first use. */
  label: string | undefined = undefined;
  /** Another instance resuming this stream (see {@link StreamableSessionTransport.followStream}); exclusive with `conn`. */
  feed: StreamFeed | undefined = undefined;
  /** Last event sequence number assigned. */
  seq = 0;
  /** Last sequence number written to an attached connection. */
  delivered = 0;
  /** Requests of the POST not yet answered or cancelled. */
  pending = 0;
  /** The POST held invalid batch elements: a response array will come even if all requests are cancelled. */
  awaitsArray = false;
  /** Request id(s) of the POST. */
  ids: RequestId | RequestId[] | undefined = undefined;
  conn: SseConnection | undefined = undefined;
  done = false;
  /** Completed while detached and kept for a resumption. */
  retained = false;
  /** Its open requests are recorded in the directory (see `TransportHost.streamOpened`). */
  tracked = false;
  lastAppend: Promise<void> | undefined = undefined;
  /**
   * Settles once every event handed to a feed so far was handed over, each after its append
   * (and every earlier one) settled; undefined while nothing is waiting on an append.
   */
  fed: Promise<void> | undefined = undefined;
  /** JSON mode: the response text, once sent. */
  body: string | undefined = undefined;
  /** JSON mode: the response is an error response. */
  isError = false;
  /** JSON mode: the response is the refusal of a reply the outbound budget had no room for. */
  refused = false;
  /**
   * JSON mode: the resolver of {@link StreamableSessionTransport.whenAnswered}'s promise,
   * called with this stream. Kept as the bare resolver, not a closure over the stream: a
   * per-request closure holding the stream (and so its response text) was kept alive by
   * V8's young-generation collections until the next full one, promoting every JSON
   * response to the old generation (measured: 24 replies of 64 KiB per scavenge, a
   * mark-compact every ~20 MB).
   */
  waiter: ((outcome: JsonOutcome) => void) | undefined = undefined;

  constructor(transport: StreamableSessionTransport, id: number, mode: number) {
    this.transport = transport;
    this.id = id;
    this.mode = mode;
  }

  /** JSON mode: settles {@link waiter} (once) with this stream. */
  answered(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.(this);
  }

  connectionLost(conn: SseConnection, reason?: Error): void {
    connectionLost(this.transport, this, conn, reason);
  }
}

/** Result of a JSON-mode POST, read by the handler once {@link StreamableSessionTransport.whenAnswered} resolves. */
export interface JsonOutcome {
  /** The response (or response array) text; undefined when none came (cancelled, session closed). */
  readonly body: string | undefined;
  /** The single response is an error response. */
  readonly isError: boolean;
  /** The response is the JSON-RPC error sent in place of a reply the outbound budget refused (the HTTP reply is then 503). */
  readonly refused: boolean;
}

/**
 * One session's transport. Created and driven by the Streamable HTTP handler; user code
 * only sees it as the `Transport` of a `ServerConnection`. Methods other than the
 * {@link Transport} ones are for the handler.
 */
export class StreamableSessionTransport implements Transport, RequestStreamCloser {
  /** The `Mcp-Session-Id`; undefined for a sessionless (per-request) transport. */
  readonly sessionId: string | undefined;
  /** HTTP runs over TCP (OpenTelemetry's `network.transport`). */
  readonly network = 'tcp' as const;
  readonly #owner: string | undefined;

  /** A sessionless transport cannot get the answer of a request it sends (see {@link Transport.answersRequests}). */
  get answersRequests(): boolean {
    return this.sessionId !== undefined;
  }
  #lastActivity: number;
  #connections = 0;
  readonly #host: TransportHost;
  readonly #resumable: boolean;
  #receiver: TransportReceiver | undefined = undefined;
  /** What this transport may ask of its channel (handed over at start). */
  #view: ChannelView | undefined = undefined;
  #closed = false;
  /**
   * The POST streams open or retained, by stream number. An IdTable, not a `Map`: a stream
   * comes and goes per POST, and a `Map` that loses its last entry allocates a new backing
   * table that the long-lived session promotes before it dies (measured: 150 bytes per call
   * into the old generation, a mark-compact every ~25k calls; see `IdTable`).
   */
  #streams: IdTable<OutStream> | undefined = undefined;
  /** The stream of each request in progress (an IdTable: no Map churn per request, see id-table.ts). */
  #byRequest: IdTable<OutStream> | undefined = undefined;
  #standalone: OutStream | undefined = undefined;
  #nextStream = 1;
  #retained = 0;
  #delivering: OutStream | undefined = undefined;
  /** The start of every event store key: `<session id>/`, or `<session id>.<storeTag>/`; built on the first stored event. */
  #keyBase: string | undefined = undefined;
  /** The headers of this session's SSE replies, built on the first. */
  #sseHeaderSet: HttpHeaders | undefined = undefined;
  /** The instance tag of a shared session's transport (`storeTag`). */
  readonly #tag: string | undefined;
  /** The start of every event id: empty, or `<storeTag>.`. */
  readonly #idBase: string;
  /** See `Transport.requestIdPrefix`: `<storeTag>-` for a shared session's transport, so its server → client request ids are unique across the instances. */
  readonly requestIdPrefix: string | undefined;
  /** The cross-instance resumptions of a shared session (session-crossing.ts); made by the first. */
  #crossed: CrossInstance | undefined = undefined;

  /**
   * `sessionId` undefined makes a sessionless transport: no event ids, no resumption, and the
   * transport closes itself once its one POST is answered or its client disconnects.
   * `storeTag` (a plain word: 1 to 32 of `A-Z a-z 0-9 - _`) goes into this transport's event store keys and
   * event ids, so that several transports of one session (on instances sharing a store) never write the
   * same stream, and a `Last-Event-ID` names the instance that opened its stream. `owner` is
   * the principal key of the session's creator when sessions are bound.
   */
  constructor(host: TransportHost, sessionId: string | undefined, storeTag?: string, owner?: string) {
    this.#host = host;
    this.sessionId = sessionId;
    this.#owner = owner;
    this.#tag = storeTag;
    this.#idBase = storeTag === undefined ? '' : `${storeTag}.`;
    this.requestIdPrefix = storeTag === undefined ? undefined : `${storeTag}-`;
    // a shared session's GET stream exists from the start: what other instances relay for it is stored at once
    if (storeTag !== undefined && sessionId !== undefined) this.#standalone = new OutStream(this, 0, MODE_STANDALONE);
    this.#resumable = sessionId !== undefined && host.store !== undefined;
    this.#lastActivity = Date.now();
  }

  /** The principal key of the session's creator when sessions are bound (see the handler's `sessionOwner`); undefined when not. */
  get owner(): string | undefined {
    return this.#owner;
  }

  /** Time of the last request delivered or finished, or the last stream closed, for idle reaping (ms since epoch). */
  get lastActivity(): number {
    return this.#lastActivity;
  }

  /** SSE connections currently attached to streams of this session. */
  get connections(): number {
    return this.#connections;
  }

  /** The protocol revision the session negotiated; undefined before (or before the transport started). */
  get protocolVersion(): string | undefined {
    return this.#view?.protocolVersion;
  }

  /** True while the server's request `id` (to the client) awaits its answer on this instance. */
  awaits(id: RequestId): boolean {
    return this.#view !== undefined && this.#view.awaits(id);
  }

  /** True once closed. */
  get closed(): boolean {
    return this.#closed;
  }

  // ───────────── Transport ─────────────

  /** Throws LocalError `already_connected` when called twice, `connection_closed` after close. */
  start(receiver: TransportReceiver, view?: ChannelView): void {
    if (this.#closed) throw new LocalError('connection_closed', 'The HTTP session is closed');
    if (this.#receiver !== undefined) throw new LocalError('already_connected', 'Transport already started');
    this.#receiver = receiver;
    this.#view = view;
  }

  /**
   * Routes one message to its stream (see the module note). Resolves at once: delivery to a
   * slow or vanished client never blocks the session. Rejects with LocalError
   * `connection_closed` once closed; never throws.
   */
  send(message: JSONRPCMessage | JSONRPCMessage[] | string, options?: SendOptions): Promise<void> {
    if (this.#closed) return Promise.reject(new LocalError('connection_closed', 'The HTTP session is closed'));
    // a session says what it sends; only a message that came from elsewhere is read for it
    let facts: SendOptions | undefined = options;
    let text: string;
    /** The refusal sent in place of a reply the outbound budget has no room for. */
    let refused: string | undefined;
    try {
      if (typeof message === 'string') {
        facts = factsOf(JSON.parse(message), options);
        // one line, like serialized text, so every event below is written unchecked
        text = oneLineJson(message);
      } else {
        if (facts?.kind === undefined) facts = factsOf(message, options);
        refused = facts.kind === 'response' ? this.#refusal(message as { result?: unknown }, facts.id!) : undefined;
        text = refused ?? serializeMessage(message);
      }
    } catch (error) {
      return Promise.reject(new LocalError('invalid_message', 'The message cannot be encoded as JSON', { cause: error }));
    }
    const kind = facts.kind;
    if (kind === 'response' || kind === 'error' || kind === 'batch') {
      this.#routeResponse(refused === undefined ? kind : 'error', facts.id, text, refused !== undefined);
    } else {
      const related = facts.relatedRequestId;
      const stream = related === undefined ? undefined : this.#byRequest?.get(related);
      if (stream !== undefined && stream.mode === MODE_SSE) this.#emit(stream, text);
      else this.#toStandalone(text);
    }
    return RESOLVED;
  }

  /**
   * Writes a notification the server produced for the client's GET stream when that stream
   * is attached here (or, resumable, stores it there for a GET here); false when neither
   * (see `Transport.deliverHere`).
   */
  deliverHere(text: string): boolean {
    return this.relayToStandalone(text);
  }

  /**
   * The client cancelled its request `id` (the session read the `notifications/cancelled`):
   * no response will come for it, so its POST's stream completes once no request of the
   * POST is left open (see `Transport.peerCancelled`).
   */
  peerCancelled(id: RequestId): void {
    const byRequest = this.#byRequest;
    const stream = byRequest?.get(id);
    if (stream === undefined) return;
    byRequest!.delete(id);
    if (--stream.pending <= 0 && !stream.awaitsArray) this.#complete(stream);
  }

  /** Ends every stream and connection, forgets stored events, fires `receiver.closed()`. Idempotent. */
  close(): Promise<void> {
    return this.#close(false);
  }

  /**
   * Closes like {@link close}, but leaves the stored events of a shared store (`shared`)
   * alone: this instance stops (drained), and a client resuming one of its streams on
   * another instance replays them there (the store's own expiry removes them).
   */
  closeForHandover(): Promise<void> {
    return this.#close(this.#host.store?.shared === true);
  }

  /** True while a request of the client is in progress here. */
  get busy(): boolean {
    return this.#byRequest !== undefined && this.#byRequest.size > 0;
  }

  /**
   * Ends the GET stream's connection, if one is attached (the client reconnects, with
   * `Last-Event-ID`, to whichever instance it reaches next); the stream itself stays.
   */
  endStandalone(): void {
    const stream = this.#standalone;
    if (stream !== undefined && stream.conn !== undefined) this.#detach(stream);
  }

  /**
   * Answers every request of the client still in progress here with JSON-RPC error
   * `code` / `message` (on its POST's stream: written when attached, stored for a
   * resumption when not), so that no client waits for a response that will not come.
   */
  failOpenRequests(code: number, message: string): void {
    const byRequest = this.#byRequest;
    if (byRequest === undefined || byRequest.size === 0 || this.#closed) return;
    const ids: RequestId[] = [];
    for (const stream of new Set(byRequest.values())) {
      const own = stream.ids === undefined ? [] : Array.isArray(stream.ids) ? stream.ids : [stream.ids];
      for (const id of own) if (byRequest.get(id) === stream) ids.push(id);
    }
    for (const id of ids) this.#routeResponse('error', id, serializeMessage({ jsonrpc: '2.0', id, error: { code, message } }), false);
  }

  /**
   * The refusal text for `message` when it is a response whose result the adapter's outbound
   * budget has no room for (reported), else undefined: one comparison while no reply waits
   * for a slow reader (see OutboundBudget.refusesUnserialized), and the reply's text is never
   * made when refused.
   */
  #refusal(message: { result?: unknown }, id: RequestId): string | undefined {
    const outbound = this.#host._outbound;
    if (outbound === undefined || outbound.budget.total === 0) return undefined;
    const size = outbound.budget.refusesUnserialized(message.result);
    if (size === 0) return undefined;
    const refusal = budgetRefusal(outbound.budget, JSON.stringify(id), size);
    outbound.report(refusal.error);
    return refusal.body;
  }

  #close(keepEvents: boolean): Promise<void> {
    if (this.#closed) return RESOLVED;
    this.#closed = true;
    const store = keepEvents ? undefined : this.#host.store;
    const streams = this.#streams;
    if (streams !== undefined) {
      for (const stream of streams.values()) this.#shut(stream, store);
      streams.clear();
    }
    if (this.#standalone !== undefined) this.#shut(this.#standalone, store);
    this.#crossed?.close();
    this.#byRequest?.clear();
    this.#connections = 0;
    this.#host.released(this);
    this.#receiver?.closed();
    return RESOLVED;
  }

  /** Ends the record of `stream`'s open requests (see `TransportHost.streamOpened`). */
  #untrack(stream: OutStream): void {
    if (!stream.tracked) return;
    stream.tracked = false;
    this.#host.streamEnded?.(this, stream.id);
  }

  #shut(stream: OutStream, store: EventStore | undefined): void {
    // closed for handover (store undefined): the record stays for a resumption elsewhere
    if (store !== undefined || this.#host.store === undefined) this.#untrack(stream);
    stream.done = true;
    if (stream.conn !== undefined) {
      stream.conn.owner = undefined;
      stream.conn.end();
      stream.conn = undefined;
    }
    stream.answered();
    this.#endFeed(stream);
    if (stream.key !== undefined && store !== undefined) forgetEvents(store, stream.key, this.#host);
  }

  // ───────────── for the handler ─────────────

  /** True while request `id` is in progress on one of this session's POSTs. */
  isOpenRequest(id: RequestId): boolean {
    return this.#byRequest?.has(id) === true;
  }

  /**
   * Opens the stream of a POST carrying requests `ids` (`batch`: the body was an array;
   * `hasInvalid`: it held elements that are not valid messages). In `sse` mode the returned
   * stream has a connection whose priming event is already written; see {@link replyFor}.
   */
  openPost(ids: RequestId[], batch: boolean, hasInvalid: boolean, mode: 'sse' | 'json'): OutStream {
    const stream = new OutStream(this, this.#nextStream++, mode === 'sse' ? MODE_SSE : MODE_JSON);
    stream.pending = ids.length;
    stream.awaitsArray = batch && hasInvalid;
    stream.ids = batch ? ids : ids[0];
    const byRequest = (this.#byRequest ??= new IdTable());
    for (let i = 0; i < ids.length; i++) byRequest.set(ids[i]!, stream);
    (this.#streams ??= new IdTable(STREAM_SLOTS)).set(stream.id, stream);
    if (stream.mode === MODE_SSE) {
      const conn = new SseConnection(stream);
      stream.conn = conn;
      this.#connections++;
      if (this.#resumable) {
        conn.write(primingEvent(this.#label(stream) + '0', this.#host.retryMs));
        if (this.#tag !== undefined && this.#host.streamOpened !== undefined) {
          stream.tracked = true;
          this.#host.streamOpened(this, stream.id, ids);
        }
      }
    }
    return stream;
  }

  /**
   * The HTTP reply of an `sse`-mode POST stream from {@link openPost}. Take it before
   * {@link deliver}: the stream may complete (and let go of its connection) during delivery.
   */
  replyFor(stream: OutStream): HttpReply {
    return sseReply(stream.conn ?? closedConnection(), this.#sseHeaders());
  }

  /**
   * Hands one parsed POST body to the session, synchronously. `stream` is the POST's stream
   * (undefined for notifications and responses only). Client cancellations in the body
   * complete the streams of the requests they cancel (the session tells, {@link peerCancelled}).
   */
  deliver(value: unknown, info: MessageInfo, stream: OutStream | undefined): void {
    if (this.#closed || this.#receiver === undefined) return;
    this.#lastActivity = Date.now();
    const previous = this.#delivering;
    this.#delivering = stream;
    try {
      this.#receiver.message(value, info);
    } catch (error) {
      this.#host.reportError(toError(error));
    } finally {
      this.#delivering = previous;
    }
  }

  /** The outcome of the JSON-mode POST stream `stream` when it is answered already (its requests answered at once), else undefined. */
  answeredNow(stream: OutStream): JsonOutcome | undefined {
    return stream.done ? stream : undefined;
  }

  /** Resolves once the JSON-mode POST stream `stream` is answered (or the session closed). */
  whenAnswered(stream: OutStream): Promise<JsonOutcome> {
    if (stream.done) return Promise.resolve(stream);
    return new Promise((resolve) => {
      stream.waiter = resolve;
    });
  }

  /**
   * GET without `Last-Event-ID`: opens the standalone stream, first replaying what was
   * queued for it while no GET was open. 409 while another GET holds it.
   */
  openStandalone(): Promise<HttpReply> | HttpReply {
    if (this.#closed) return errorReply(404, SESSION_NOT_FOUND, 'Session not found');
    const stream = (this.#standalone ??= new OutStream(this, 0, MODE_STANDALONE));
    if (stream.conn !== undefined) return errorReply(409, TRANSPORT_ERROR, 'Conflict: an SSE stream is already open for this session');
    this.#lastActivity = Date.now();
    return this.#attachResumed(stream, stream.delivered);
  }

  /**
   * GET with `Last-Event-ID`: replays the named stream's events after that id and, when the
   * stream is still open, continues it on this connection (replacing an older one). 400 for
   * an id that names no stream of this session. An id naming another instance's stream (a
   * shared session with a shared store) is resumed from the store and that instance's feed
   * (stream-follow.ts; 503 with `Retry-After` when the store cannot be read), or, for its GET
   * stream, replayed and continued as this instance's GET stream.
   */
  resume(lastEventId: string): Promise<HttpReply> | HttpReply {
    if (this.#closed) return errorReply(404, SESSION_NOT_FOUND, 'Session not found');
    const match = EVENT_ID.exec(lastEventId.trim());
    const tag = match?.[1];
    if (match !== null && tag !== undefined && tag !== this.#tag && this.#resumable && this.#tag !== undefined && this.#host.store!.shared === true) {
      return this.#crossing().resume(tag, Number(match[2]), Number(match[3]));
    }
    const streamId = match === null || (tag !== undefined && tag !== this.#tag) ? -1 : Number(match[2]);
    const stream = streamId === 0 ? (this.#standalone ??= new OutStream(this, 0, MODE_STANDALONE)) : this.#streams?.get(streamId);
    if (!this.#resumable || stream === undefined || stream.mode === MODE_JSON) return badLastEventId();
    this.#lastActivity = Date.now();
    return this.#attachResumed(stream, Number(match![3]));
  }

  /**
   * Hands the open POST stream `streamNo` to another instance resuming it (see the module
   * note): its attached connection, if any, is ended (a resumption replaces it), an earlier
   * feed is ended, and every further event goes to the store and then — once its append,
   * and every earlier one, settled — to `feed` (so a follower's store reads find every
   * event before the one it was fed, and the end comes after the last append).
   * Undefined, doing nothing, when the stream is not open here (complete, unknown, JSON
   * mode, no event store).
   */
  followStream(streamNo: number, feed: StreamFeed): FollowedStream | undefined {
    const stream = this.#streams?.get(streamNo);
    if (this.#closed || !this.#resumable || stream === undefined || stream.mode !== MODE_SSE || stream.done) return undefined;
    if (stream.conn !== undefined) this.#detach(stream);
    this.#endFeed(stream);
    stream.feed = feed;
    // the feed starts after the events appended so far are in the store
    const appended = stream.lastAppend;
    if (appended !== undefined) stream.fed = stream.fed === undefined ? appended : stream.fed.then(() => appended);
    this.#lastActivity = Date.now();
    return {
      seq: stream.seq,
      stop: () => {
        if (stream.feed === feed) stream.feed = undefined;
      },
    };
  }

  /** Closes the SSE connection of the stream carrying request `requestId` (SEP-1699); see {@link closeSseStream}. */
  closeRequestStream(requestId: RequestId): boolean {
    const stream = this.#byRequest?.get(requestId);
    if (stream === undefined || stream.mode !== MODE_SSE || stream.conn === undefined || !this.#resumable) return false;
    this.#detach(stream);
    return true;
  }

  /**
   * True when no connection is attached, no request of the client is in flight (in any
   * response mode, attached or not), and nothing happened for `idleMs` since the last
   * request arrived or finished or the last stream closed.
   */
  isIdle(now: number, idleMs: number): boolean {
    return this.#connections === 0 && (this.#byRequest === undefined || this.#byRequest.size === 0) && now - this.#lastActivity >= idleMs;
  }

  static {
    connectionLost = (transport, stream, conn, reason) => transport.#lost(stream, conn, reason);
  }

  /** The client of `conn` went away. */
  #lost(stream: OutStream, conn: SseConnection, reason: Error | undefined): void {
    if (stream.conn !== conn) return;
    stream.conn = undefined;
    this.#connections--;
    this.#lastActivity = Date.now();
    // A reader the adapter cut for not reading (the reason went to onError there) gets its
    // requests cancelled: work for a client that does not take the results is not kept going.
    if ((reason as { code?: unknown } | undefined)?.code === 'slow_reader') this.#cancelStream(stream, reason!.message);
    // A sessionless request cannot be resumed: nobody is left to receive its result.
    if (this.sessionId === undefined) void this.close();
  }

  // ───────────── routing ─────────────

  /**
   * Routes a response (`kind` `response` or `error`) or a batch's response array to the
   * stream of the POST that carried request `id` (for a batch: one of its requests); an
   * error answering no request (`id` null), or one sent while a POST is delivered, to that POST.
   */
  #routeResponse(kind: 'response' | 'error' | 'batch', id: RequestId | null | undefined, text: string, refused: boolean): void {
    let stream = id === undefined || id === null ? undefined : this.#byRequest?.get(id);
    stream ??= this.#delivering;
    if (stream === undefined || stream.done) {
      this.#host.reportError(new LocalError('invalid_message', `No open HTTP request for the response ${text.length > 200 ? text.slice(0, 200) + '…' : text}`));
      return;
    }
    if (stream.mode === MODE_JSON) {
      stream.body = text;
      stream.isError = kind === 'error';
      stream.refused = refused;
    } else if (stream.conn !== undefined) {
      // the last event, written to a live connection: the stream is forgotten right after,
      // so it is not stored (it gets its sequence number all the same)
      stream.conn.write(encodeUncheckedSseEvent(this.#resumable ? this.#label(stream) + ++stream.seq : undefined, text));
    } else this.#emit(stream, text);
    this.#complete(stream);
  }

  /** Cancels the open requests of `stream` as if the client had sent `notifications/cancelled` for each. */
  #cancelStream(stream: OutStream, why: string): void {
    const ids = stream.ids === undefined ? [] : Array.isArray(stream.ids) ? stream.ids : [stream.ids];
    for (const requestId of ids) {
      if (this.#byRequest?.get(requestId) !== stream) continue;
      this.deliver(
        { jsonrpc: '2.0', method: Notification.Cancelled, params: { requestId, reason: `The client stopped reading its responses (${why})` } },
        CUT_INFO,
        undefined,
      );
    }
  }

  #toStandalone(text: string): void {
    if (this.sessionId === undefined) return; // sessionless: no GET stream exists
    const stream = (this.#standalone ??= new OutStream(this, 0, MODE_STANDALONE));
    this.#emit(stream, text);
    if (stream.conn === undefined) this.#host.unattached?.(this, text, this.#resumable ? this.#label(stream) + stream.seq : undefined);
  }

  /**
   * Writes `text` (a message another instance produced for this session's GET stream) to
   * the GET stream when one is attached here, or (resumable) stores it on the GET stream
   * for a later GET here; false, doing nothing, when neither. `origin`,
   * the message's event id on the producing instance's GET stream: a message the resumption
   * of that stream here replayed from the store is dropped (true), and while that resumption
   * runs every relayed message is held and written after the replay (true).
   */
  relayToStandalone(text: string, origin?: string): boolean {
    if (this.#closed) return false;
    if (this.#crossed !== undefined && this.#crossed.intercepts(text, origin)) return true;
    const stream = this.#standalone;
    if (stream === undefined) return false;
    // not attached here: kept in the store all the same (a shared session's GET stream
    // exists from the start), so the client's resumption of this instance's GET stream,
    // or its first GET here, gets it
    if (stream.conn === undefined && !this.#resumable) return false;
    this.#emit(stream, oneLineJson(text));
    return true;
  }

  /** Stores (when resumable) and writes one event; `text` is one line (see {@link send}). */
  #emit(stream: OutStream, text: string): void {
    if (this.#resumable) {
      const seq = ++stream.seq;
      const store = this.#host.store!;
      const key = (stream.key ??= (this.#keyBase ??= this.#tag === undefined ? `${this.sessionId}/` : `${this.sessionId}.${this.#tag}/`) + stream.id);
      const pending = appendEvent(store, key, seq, text, this.#host);
      if (pending !== undefined) stream.lastAppend = pending;
      if (stream.conn !== undefined) {
        stream.conn.write(encodeUncheckedSseEvent(this.#label(stream) + seq, text));
        stream.delivered = seq;
      } else if (stream.feed !== undefined) this.#feedEvent(stream, stream.feed, seq, text, pending);
    } else if (stream.conn !== undefined) stream.conn.write(encodeUncheckedSseEvent(undefined, text));
  }

  /** The POST stream got its response(s), or all its requests were cancelled. */
  #complete(stream: OutStream): void {
    if (stream.done) return;
    stream.done = true;
    this.#untrack(stream);
    this.#lastActivity = Date.now();
    const byRequest = this.#byRequest!;
    const ids = stream.ids;
    if (Array.isArray(ids)) {
      for (let i = 0; i < ids.length; i++) if (byRequest.get(ids[i]!) === stream) byRequest.delete(ids[i]!);
    } else if (ids !== undefined && byRequest.get(ids) === stream) byRequest.delete(ids);
    if (stream.mode === MODE_JSON) {
      this.#streams!.delete(stream.id);
      stream.answered();
    } else if (stream.conn !== undefined) {
      // written to a live connection: nothing left to resume
      stream.conn.owner = undefined;
      stream.conn.end();
      stream.conn = undefined;
      this.#connections--;
      this.#drop(stream);
    } else if (!this.#resumable) {
      this.#streams!.delete(stream.id);
    } else {
      // kept for a resumption (also when fed: the follower's client may break too)
      this.#endFeed(stream);
      this.#retain(stream);
    }
    if (this.sessionId === undefined) queueMicrotask(() => void this.close());
  }

  #retain(stream: OutStream): void {
    stream.retained = true;
    if (++this.#retained <= MAX_RETAINED_STREAMS) return;
    // the oldest completed one (the lowest number) goes
    let oldest: OutStream | undefined;
    for (const old of this.#streams!.values()) if (old.done && old !== stream && (oldest === undefined || old.id < oldest.id)) oldest = old;
    if (oldest !== undefined) this.#drop(oldest);
  }

  /** Forgets a completed POST stream and its stored events. */
  #drop(stream: OutStream): void {
    this.#streams!.delete(stream.id);
    if (stream.retained) {
      stream.retained = false;
      this.#retained--;
    }
    if (stream.key !== undefined) forgetEvents(this.#host.store!, stream.key, this.#host);
  }

  /** The headers of this session's SSE replies (one frozen object, not one per reply). */
  #sseHeaders(): HttpHeaders {
    return (this.#sseHeaderSet ??= sseHeaders(this.sessionId));
  }

  /** The cross-instance part of this (shared) session's transport, made on first use. */
  #crossing(): CrossInstance {
    if (this.#crossed !== undefined) return this.#crossed;
    const transport = this;
    const host = this.#host;
    return (this.#crossed = new CrossInstance({
      store: host.store!,
      retryMs: host.retryMs,
      sessionId: this.sessionId!,
      get closed() {
        return transport.#closed;
      },
      reportError: (error) => host.reportError(error),
      follow: host.follow === undefined ? undefined : (owner, stream, follower) => host.follow!(transport, owner, stream, follower),
      openRequests: host.openRequests === undefined ? undefined : (owner, stream) => host.openRequests!(transport, owner, stream),
      attachStandalone: (conn) => {
        const stream = (transport.#standalone ??= new OutStream(transport, 0, MODE_STANDALONE));
        return transport.#attachResumed(stream, stream.seq, conn);
      },
      reply: (conn) => sseReply(conn, transport.#sseHeaders()),
      counted: (delta) => {
        transport.#connections += delta;
        transport.#lastActivity = Date.now();
      },
      relay: (text, origin) => transport.relayToStandalone(text, origin),
    }));
  }

  /** The event id prefix of `stream`. */
  #label(stream: OutStream): string {
    return (stream.label ??= this.#idBase + counterText(stream.id) + ':');
  }

  /**
   * Hands event `seq` of `stream` to `feed` once `appended` (its append) and every earlier
   * append settled, in order: the follower never holds an event the store may not have yet,
   * so its store reads (a gap, the final read at the end) find every event before the one
   * it was fed, and an owner killed in between never delivered an event it did not store.
   */
  #feedEvent(stream: OutStream, feed: StreamFeed, seq: number, text: string, appended: Promise<void> | undefined): void {
    const prior = stream.fed;
    const ready = prior === undefined ? appended : appended === undefined ? prior : prior.then(() => appended);
    if (ready === undefined) return feed.event(seq, text);
    stream.fed = ready.then(() => feed.event(seq, text)).then(undefined, (error) => this.#host.reportError(toError(error)));
  }

  /** Ends the feed of `stream`, if another instance follows it: after the events handed to it (see {@link #feedEvent}). */
  #endFeed(stream: OutStream): void {
    const feed = stream.feed;
    if (feed === undefined) return;
    stream.feed = undefined;
    const prior = stream.fed;
    if (prior === undefined) feed.end();
    else void prior.then(() => feed.end()).then(undefined, (error) => this.#host.reportError(toError(error)));
  }

  #detach(stream: OutStream): void {
    const conn = stream.conn!;
    stream.conn = undefined;
    conn.owner = undefined;
    conn.end();
    this.#connections--;
    this.#lastActivity = Date.now();
  }

  /** Replays `stream` after `afterSeq` onto a new connection, then attaches it (or ends it when the stream is complete). */
  async #attachResumed(stream: OutStream, afterSeq: number, conn = new SseConnection()): Promise<HttpReply> {
    const store = this.#host.store;
    let last = afterSeq;
    if (this.#resumable) {
      const label = this.#label(stream);
      conn.write(primingEvent(label + afterSeq, this.#host.retryMs));
      if (last < stream.seq) last = await replayEvents(store!, stream, afterSeq, conn, label, this.#host);
    }
    if (this.#closed || stream.done) {
      conn.end();
      if (!this.#closed && stream.mode === MODE_SSE) this.#drop(stream);
      return sseReply(conn, this.#sseHeaders());
    }
    if (stream.conn !== undefined) this.#detach(stream);
    this.#endFeed(stream);
    stream.conn = conn;
    conn.owner = stream;
    stream.delivered = last;
    this.#connections++;
    return sseReply(conn, this.#sseHeaders());
  }
}

function closedConnection(): SseConnection {
  const conn = new SseConnection();
  conn.end();
  return conn;
}

export { closeSseStream, disconnectAfterPriming, HttpMessageInfo, type RequestStreamCloser } from './session-disconnect.js';

/** A session's logical SSE stream, as the handler holds it between `openPost` and its reply. Opaque outside this module. */
export type { OutStream };
