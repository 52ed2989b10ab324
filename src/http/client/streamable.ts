/**
 * The client side of the Streamable HTTP transport (spec 2025-03-26 › Transports ›
 * Streamable HTTP; SEP-1699 for server-side disconnects).
 *
 * Design note:
 * - Every `send()` is one POST. Sends are dispatched in call order (each waits only until
 *   the previous one has been handed to `fetch`, never for its answer), so any number of
 *   requests run concurrently.
 * - `send()` settles when the HTTP exchange it started is over, not when the bytes left:
 *   it resolves once the server accepted the message and (for a POST that carries
 *   requests) every request in it got its response; it rejects with a {@link LocalError}
 *   when that cannot happen — an HTTP error status without a JSON-RPC answer
 *   ({@link HttpStatusError}, with the status), an unreachable server, a response stream
 *   that ended early and could not be resumed. The session turns a rejected send into the
 *   rejection of the request, so a request fails at once instead of waiting for its
 *   timeout, and the caller sees a local error (not a fabricated wire error: the server
 *   never sent one). A JSON-RPC error the server did send, even on an HTTP error status,
 *   is delivered as a message.
 * - Responses are parsed here (JSON bodies and SSE `data`) so the transport knows which
 *   requests were answered, whatever stream the answer came on; the parsed value is
 *   delivered to the receiver (which still applies its depth limits). Text that is not
 *   JSON is reported through `receiver.error` and skipped. Messages larger than
 *   `maxEventChars` are dropped and reported. A POST without requests expects 202; a JSON
 *   body on it is discarded (only an SSE body is read), so a non-conforming server's
 *   acknowledgement never reaches the session as a stray message.
 * - Resumption: while reading an SSE response the transport tracks the last event id and
 *   the server's `retry`. When the stream ends before every request in the POST was
 *   answered, it waits `retry` ms (else the backoff delay) and GETs the endpoint with
 *   `Last-Event-ID`, repeating while the resumed streams bring something new and giving up
 *   after `reconnect.maxRetries` attempts in a row that bring nothing. A stream without any
 *   event id cannot be resumed, and a 405 to the GET means the server does not resume:
 *   both fail the requests at once. A disconnect is never treated as a cancellation; an
 *   outgoing `notifications/cancelled` stops the resumption for that request.
 * - The standalone GET stream opens after `notifications/initialized` was accepted (or at
 *   `start()` when resuming a known session). A 405 means the server offers none. When it
 *   drops it is reopened with `Last-Event-ID`, honouring `retry`, with bounded backoff.
 * - Stateless era (2026-07-28): a message sent with request metadata (`SendOptions.metadata`,
 *   which the client role computes: `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`,
 *   `Mcp-Param-*`; see client/stateless/headers.ts) is POSTed without a session id, with
 *   that metadata as its headers. The transport never reads a message's `_meta` nor
 *   rewrites what it delivers. Cancelling such a request aborts its POST instead of
 *   POSTing `notifications/cancelled`.
 * - Facts, not parsing: what a message is (request, its id and method, the request a
 *   cancellation concerns) comes from the session that built it (`SendOptions`); only text
 *   or a message sent without those facts is read for them (transport/facts.ts).
 * - A response is read only while someone waits for it. When a request times out or its
 *   signal aborts, the session POSTs `notifications/cancelled`; the transport then stops
 *   reading the response (JSON body or SSE stream, the POST or a resuming GET) that would
 *   carry it, by aborting that HTTP request — unless another request of the same POST is
 *   still pending, in which case the stream is kept until that one is answered. A stream
 *   whose requests have all been answered should end; it gets `acceptTimeoutMs` to do so
 *   (so a connection the server ends properly goes back to the pool), then it is no longer
 *   read either. A request cancelled before its POST went out is not sent at all. A POST
 *   without requests is bounded by `acceptTimeoutMs` (nothing else would bound it).
 * - Redirects: see redirects.ts (never across origins, never turning a POST into a GET,
 *   at most `maxRedirects` hops). A refused redirect of the GET stream is final.
 * - HTTP 404 to a request that carried `Mcp-Session-Id` means the session is gone: the
 *   transport forgets the id, calls `onSessionExpired`, reports a {@link SessionExpiredError}
 *   through `receiver.error` and closes (`receiver.closed` with that error). The owner then
 *   connects a new client with a new transport, which sends a fresh `initialize`.
 * - Resources: one abort controller (an `Aborter`, common.ts) per HTTP request in
 *   progress, dropped when it ends; the only listener ever added to a signal is on that
 *   request's own controller and is removed
 *   when its body is done. The exchange of a POST points at the controller of the HTTP
 *   request reading its responses, so a cancellation (or the drain deadline) can abort it.
 *   `close()` refuses new sends, waits (bounded by `closeTimeoutMs`) for the POSTs without
 *   requests already in flight — notifications and responses, so a `notifications/cancelled`
 *   sent just before closing still reaches the server — then aborts everything else,
 *   cancels every wait, sends `DELETE` with the session id (405 and failures ignored,
 *   bounded by `closeTimeoutMs`) and calls `receiver.closed()`.
 */

import { SseParser } from '../../framing/sse.js';
import { LocalError, toError } from '../../jsonrpc/errors.js';
import { serializeMessage } from '../../jsonrpc/preset-json.js';
import { isRequestId, type JSONRPCMessage, type RequestId } from '../../jsonrpc/types.js';
import { Method, Notification } from '../../protocol/methods.js';
import { discardedResponse } from '../../session/discarded-response.js';
import { IdTable, OUTGOING_SLOTS } from '../../session/id-table.js';
import { factsOf } from '../../transport/facts.js';
import type { SendOptions, Transport, TransportReceiver } from '../../transport/types.js';
import {
  Aborter,
  AborterSet,
  type AbortWatch,
  AcceptDeadline,
  acceptTimeout,
  backoffDelay,
  baseHeaders,
  type ChunkSource,
  type ClientResponse,
  closedError,
  DEFAULT_MAX_ERROR_BODY_CHARS,
  DEFAULT_MAX_MESSAGE_CHARS,
  discardBody,
  excerpt,
  type HeaderBag,
  type HttpClientCommonOptions,
  isValidSessionId,
  mediaType,
  pump,
  type ReconnectOptions,
  type ReconnectPolicy,
  readText,
  reconnectPolicy,
  Waits,
  wholeText,
} from './common.js';
import { connectionFailureReason } from './connection-failure.js';
import { HttpStatusError, RedirectRefusedError, SessionExpiredError } from './errors.js';
import { type SplitFetch, splitFetch, type TransportFetch, wholeFetch } from './redirects.js';

/** Options of {@link StreamableHttpClientTransport}. */
export interface StreamableHttpClientTransportOptions extends HttpClientCommonOptions {
  /** The MCP endpoint. */
  url: string | URL;
  /**
   * A session id to continue (a session this client initialized earlier): sent on every
   * request, and the GET stream opens at `start()`. An `initialize` sent through the
   * transport starts a new session regardless (it never carries a session id).
   */
  sessionId?: string;
  /** Reconnection of dropped SSE streams (response streams and the GET stream). */
  reconnect?: ReconnectOptions;
  /** Open the standalone GET stream for server-initiated messages. Default true. */
  openGetStream?: boolean;
  /**
   * Called (once) when the server answers 404 to a request carrying the session id, just
   * before the transport closes. Must not throw; an exception is reported through
   * `receiver.error`.
   */
  onSessionExpired?: (sessionId: string) => void;
  /**
   * Bound on each of the two waits of `close()`, in milliseconds: for the POSTs without
   * requests still on their way (a `notifications/cancelled` sent just before closing, a
   * response), then for the `DELETE` of the session. Default 3000.
   */
  closeTimeoutMs?: number;
}

const ACCEPT_BOTH = 'application/json, text/event-stream';
const ACCEPT_SSE = 'text/event-stream';

/** Where a stream (or a chain of resumed streams) stands. */
interface StreamCursor {
  lastEventId: string;
  retryMs: number | undefined;
}

/**
 * The ids of one POST's requests that still await their responses: the usual single one
 * held in a field, a `Set` only for a batch.
 */
class PendingIds {
  size: number;
  #one: RequestId | undefined;
  readonly #many: Set<RequestId> | undefined;

  constructor(ids: RequestId[]) {
    if (ids.length === 1) {
      this.#one = ids[0];
      this.#many = undefined;
    } else this.#many = new Set(ids);
    this.size = this.#many === undefined ? 1 : this.#many.size;
  }

  has(id: RequestId): boolean {
    return this.#many === undefined ? this.size === 1 && this.#one === id : this.#many.has(id);
  }

  delete(id: RequestId): boolean {
    if (this.#many !== undefined) {
      const deleted = this.#many.delete(id);
      this.size = this.#many.size;
      return deleted;
    }
    if (this.size === 0 || this.#one !== id) return false;
    this.size = 0;
    this.#one = undefined;
    return true;
  }

  /** The ids still pending, in the order they were sent. */
  list(): RequestId[] {
    if (this.#many !== undefined) return [...this.#many];
    return this.size === 1 ? [this.#one!] : [];
  }

  clear(): void {
    this.#many?.clear();
    this.#one = undefined;
    this.size = 0;
  }
}

/** The requests of one POST that still await their responses. */
class Exchange implements StreamCursor {
  readonly ids: PendingIds;
  lastEventId = '';
  retryMs: number | undefined = undefined;
  /** The HTTP request reading this exchange's responses right now (the POST, then each resuming GET). */
  controller: Aborter | undefined = undefined;
  /** Once every request is answered: how long the stream still has to end before it is dropped. */
  drain: AcceptDeadline | undefined = undefined;
  /**
   * True while its responses come on an SSE stream, which the server still has to end. A
   * JSON body is read whole before its answers are delivered: nothing is left to drain.
   */
  streaming = false;
  constructor(ids: RequestId[]) {
    this.ids = new PendingIds(ids);
  }
}

/**
 * The moment a send is handed to fetch, for the send after it to wait for (sends go out in
 * call order). The promise is made only when some send has to wait.
 */
class Handoff {
  done = false;
  #promise: Promise<void> | undefined = undefined;
  #resolve: (() => void) | undefined = undefined;

  /** Resolves once {@link finish} was called (call it only while not `done`). */
  wait(): Promise<void> {
    return (this.#promise ??= new Promise<void>((resolve) => (this.#resolve = resolve)));
  }

  /** The send went out (or failed before it could); idempotent. */
  finish(): void {
    if (this.done) return;
    this.done = true;
    this.#resolve?.();
  }
}

/** What the transport needs to know about an outgoing message (from its {@link SendOptions} facts). */
interface Outgoing {
  readonly ids: RequestId[] | undefined;
  readonly initialize: boolean;
  readonly initialized: boolean;
  /** A stateless-era (2026-07-28) message: its request headers (`SendOptions.metadata`, from the client role). */
  readonly stateless?: Readonly<Record<string, string>> | undefined;
}

/**
 * A session's POST without requests that is neither `notifications/initialized` nor of the
 * stateless era (its headers are the session's): one frozen object for all of them.
 */
const SESSION_POST: Outgoing = Object.freeze({ ids: undefined, initialize: false, initialized: false });

/**
 * A Streamable HTTP client transport. Hand it to `Client.connect()`; one instance serves
 * one connection. See the module's design note for how sends settle and streams resume.
 */
export class StreamableHttpClientTransport implements Transport {
  readonly #url: URL;
  /** The POSTs' requests, whose redirects `#post` handles after awaiting the request. */
  readonly #split: SplitFetch;
  readonly #fetch: TransportFetch;
  readonly #options: StreamableHttpClientTransportOptions;
  readonly #policy: ReconnectPolicy;
  readonly #maxChars: number;
  readonly #acceptTimeoutMs: number;
  readonly #maxErrorChars: number;
  #receiver: TransportReceiver | undefined;
  #sessionId: string | undefined;
  #protocolVersion: string | undefined;
  #closed = false;
  #closedNotified = false;
  #closing: Promise<void> | undefined;
  /** POSTs without requests (notifications, responses) not settled yet: `close()` lets them finish. */
  #quietPosts = 0;
  /** Called when {@link #quietPosts} drops to 0 while `close()` waits for it. */
  #quietDone: (() => void) | undefined = undefined;
  /** The latest send, until it has been handed to fetch (then undefined: nothing to wait for). */
  #tail: Handoff | undefined = undefined;
  readonly #controllers = new AborterSet();
  /** The exchange of each request in progress (an IdTable, not a `Map`: no backing-table churn per call, see id-table.ts). */
  readonly #outstanding = new IdTable<Exchange>(OUTGOING_SLOTS);
  readonly #waits = new Waits();
  /** The POST of each stateless-era request in flight: cancelling it means aborting that POST. */
  readonly #statelessPosts = new Map<RequestId, Aborter>();
  #getStream: 'idle' | 'open' | 'unsupported' | 'failed' = 'idle';
  /**
   * True when a session's POSTs all carry the same headers, built once ({@link #sessionPostHeaders}):
   * a requester is called directly (no `auth` adds anything) and no custom headers are
   * given, which could be a function or a record changed in place.
   */
  readonly #fixedHeaders: boolean;
  #sessionHeaders: HeaderBag | undefined = undefined;
  #postSession: string | undefined = undefined;
  #postVersion: string | undefined = undefined;

  /** Throws TypeError for an unparsable URL, RangeError for bad reconnect values, `maxRedirects` or `acceptTimeoutMs`. */
  constructor(options: StreamableHttpClientTransportOptions) {
    this.#url = new URL(options.url);
    this.#split = splitFetch(options);
    this.#fetch = wholeFetch(this.#split);
    this.#options = options;
    this.#policy = reconnectPolicy(options.reconnect);
    this.#maxChars = options.maxEventChars ?? DEFAULT_MAX_MESSAGE_CHARS;
    this.#acceptTimeoutMs = acceptTimeout(options);
    this.#maxErrorChars = options.maxErrorBodyChars ?? DEFAULT_MAX_ERROR_BODY_CHARS;
    this.#fixedHeaders =
      options.requester !== undefined && options.auth === undefined && options.headers === undefined && options.requestInit?.headers === undefined;
    if (options.sessionId !== undefined) {
      if (!isValidSessionId(options.sessionId)) throw new TypeError('sessionId must be visible ASCII characters only');
      this.#sessionId = options.sessionId;
    }
  }

  /** The URL this transport sends to (see `Transport.peer`). */
  get peer(): string {
    return this.#url.href;
  }

  /** The session id the server assigned (or the one given in the options); undefined after expiry or close. */
  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  /**
   * A new, unstarted transport to the same URL with the same options and no session (a
   * client starting a new session after a 404 uses it; see `ClientOptions.reinitialize`).
   */
  fresh(): StreamableHttpClientTransport {
    const { sessionId: _old, ...options } = this.#options;
    return new StreamableHttpClientTransport(options);
  }

  /** The revision sent as `MCP-Protocol-Version`, once set. */
  get protocolVersion(): string | undefined {
    return this.#protocolVersion;
  }

  /** State of the standalone GET stream: not opened yet, open (or reconnecting), refused with 405, given up. */
  get getStreamState(): 'idle' | 'open' | 'unsupported' | 'failed' {
    return this.#getStream;
  }

  /** Begins delivery. Throws LocalError `already_connected` on a second call, `connection_closed` after close. */
  start(receiver: TransportReceiver): void {
    if (this.#receiver) throw new LocalError('already_connected', 'The transport was already started');
    if (this.#closed) throw closedError();
    this.#receiver = receiver;
    if (this.#sessionId !== undefined) this.#openGetStream();
  }

  /** Called by the client after the handshake: later requests carry `MCP-Protocol-Version`. */
  setProtocolVersion(version: string): void {
    this.#protocolVersion = version;
  }

  /**
   * POSTs one message (or batch, or JSON text). Settles when the exchange is over (see the
   * design note); rejects with LocalError `connection_closed` once closed, `not_connected`
   * before `start()`, `invalid_message` for text that is not JSON, `timeout` when a POST
   * without requests is not answered within `acceptTimeoutMs`, {@link HttpStatusError} for
   * an HTTP failure, {@link RedirectRefusedError} for a redirect the transport does not
   * follow, {@link SessionExpiredError} for a 404 on the session. Resolves without error
   * when every request it carried was cancelled.
   */
  send(message: JSONRPCMessage | JSONRPCMessage[] | string, options?: SendOptions): Promise<void> {
    if (this.#closed || this.#closing !== undefined) return Promise.reject(closedError());
    if (!this.#receiver) return Promise.reject(new LocalError('not_connected', 'start() must be called before send()'));
    let body: string;
    let value: unknown = message;
    // a session says what it sends (see SendOptions); only a message from elsewhere is read for it
    let facts: SendOptions;
    if (typeof message === 'string') {
      body = message;
      try {
        value = JSON.parse(message);
      } catch (err) {
        return Promise.reject(new LocalError('invalid_message', 'The message to send is not valid JSON', { cause: err }));
      }
      facts = factsOf(value, options);
    } else {
      body = serializeMessage(message);
      facts = options?.kind === undefined ? factsOf(message, options) : options;
    }
    const kind = facts.kind;
    const cancels = facts.cancels;
    if (cancels !== undefined) {
      // Stateless era: closing a request's stream is its cancellation (no notification is POSTed).
      const post = this.#statelessPosts.get(cancels);
      if (post !== undefined) {
        this.#answered(cancels);
        post.abort(new LocalError('cancelled', 'The request was cancelled'));
        return Promise.resolve();
      }
      this.#cancelled(cancels);
    }
    let out: Outgoing = SESSION_POST;
    const metadata = kind === 'request' || kind === 'notification' ? facts.metadata : undefined;
    if (kind === 'request') {
      out = {
        ids: facts.id === undefined || facts.id === null ? undefined : [facts.id],
        initialize: facts.method === Method.Initialize,
        initialized: false,
        stateless: metadata,
      };
    } else if (kind === 'notification' && (facts.method === Notification.Initialized || metadata !== undefined)) {
      out = { ids: undefined, initialize: false, initialized: facts.method === Notification.Initialized, stateless: metadata };
    } else if (kind === 'batch' && facts !== options) {
      // a batch no session built (a session sends batches of responses only): read for its requests
      out = this.#batchOutgoing(value as unknown[]);
    }
    let exchange: Exchange | undefined;
    if (out.ids !== undefined) {
      exchange = new Exchange(out.ids);
      for (const id of out.ids) this.#outstanding.set(id, exchange);
    }
    const previous = this.#tail;
    const handoff = new Handoff();
    this.#tail = handoff;
    return this.#post(previous, handoff, body, out, exchange);
  }

  /** What a batch no session built carries: its requests' ids; its cancellations are applied. */
  #batchOutgoing(items: unknown[]): Outgoing {
    let ids: RequestId[] | undefined;
    let initialize = false;
    let initialized = false;
    for (const item of items) {
      const f = factsOf(item, undefined);
      if (f.kind === 'request' && f.id !== undefined && f.id !== null) {
        (ids ??= []).push(f.id);
        if (f.method === Method.Initialize) initialize = true;
      } else if (f.method === Notification.Initialized) initialized = true;
      else if (f.cancels !== undefined) this.#cancelled(f.cancels);
    }
    return { ids, initialize, initialized };
  }

  async #post(previous: Handoff | undefined, handoff: Handoff, body: string, out: Outgoing, exchange: Exchange | undefined): Promise<void> {
    let controller: Aborter | undefined;
    /** Bounds a POST without requests (nothing else would). */
    let deadline: AcceptDeadline | undefined;
    if (exchange === undefined) this.#quietPosts++;
    try {
      let response: ClientResponse;
      let sentSession: string | undefined;
      try {
        // no wait (not even a turn of the microtask queue) when the previous send went out already
        if (previous !== undefined && !previous.done) await previous.wait();
        if (this.#closed) throw closedError();
        let headers: HeaderBag;
        if (this.#fixedHeaders && out.stateless === undefined && !out.initialize) {
          sentSession = this.#sessionId;
          headers = this.#sessionPostHeaders();
        } else {
          const made = baseHeaders(this.#options);
          headers = made instanceof Promise ? await made : made;
          if (this.#closed) throw closedError();
          sentSession = this.#addPostHeaders(headers, out);
        }
        // every request of this POST was cancelled before it went out: nothing to send or read
        if (exchange !== undefined && exchange.ids.size === 0) return;
        controller = new Aborter();
        this.#controllers.add(controller);
        if (exchange !== undefined) exchange.controller = controller;
        else deadline = new AcceptDeadline(controller, this.#acceptTimeoutMs, `POST ${this.#url.href}`);
        if (out.stateless !== undefined && out.ids !== undefined) for (const id of out.ids) this.#statelessPosts.set(id, controller);
        const init = { ...this.#options.requestInit, method: 'POST', headers, body, signal: controller };
        const pending = this.#split.send(this.#url, init);
        this.#handedOff(handoff);
        response = await pending;
        const redirect = this.#split.redirected(response, this.#url, init);
        if (redirect !== undefined) response = await redirect;
      } catch (err) {
        if (this.#settledByCancel(exchange)) return;
        throw this.#failure(err, 'POST');
      } finally {
        this.#handedOff(handoff);
      }
      if (response.status === 404 && sentSession !== undefined) {
        discardBody(response);
        throw this.#expire(sentSession, out.ids);
      }
      if (!response.ok) {
        await this.#httpFailure(response, 'POST', controller, exchange);
        return;
      }
      if (out.initialize) this.#captureSession(response);
      if (response.status === 202 || response.status === 204) {
        // Accepted. For requests (which should get JSON or SSE) the answers can only come on
        // another stream; the session's timeout covers them.
        discardBody(response);
      } else {
        const type = mediaType(response);
        if (type === 'text/event-stream') await this.#readPostStream(response, controller, exchange);
        else if (type === 'application/json' && exchange !== undefined) {
          // an answer that already arrived whole is handled now, without a reader
          const text = controller.aborted || this.#closed ? undefined : wholeText(response.body, this.#maxChars);
          if (text !== undefined) this.#answerJson(text, exchange);
          else await this.#readJson(response, controller, exchange);
        } else {
          discardBody(response);
          if (exchange !== undefined && exchange.ids.size > 0) {
            throw new LocalError(
              'invalid_message',
              `The server answered POST ${this.#url.href} with content type ${JSON.stringify(type)}, neither JSON nor SSE`,
            );
          }
        }
      }
      if (deadline?.error) throw deadline.error;
      if (out.initialized) this.#openGetStream();
    } catch (err) {
      throw deadline?.error ?? err;
    } finally {
      deadline?.stop();
      if (controller !== undefined) this.#controllers.delete(controller);
      if (out.stateless !== undefined && out.ids !== undefined) {
        for (const id of out.ids) if (this.#statelessPosts.get(id) === controller) this.#statelessPosts.delete(id);
      }
      if (exchange !== undefined) this.#release(exchange);
      else if (--this.#quietPosts === 0) this.#quietDone?.();
    }
  }

  /** Adds a POST's own headers to `headers`; returns the session id it carries, if any. */
  #addPostHeaders(headers: HeaderBag, out: Outgoing): string | undefined {
    headers.set('content-type', 'application/json');
    headers.set('accept', ACCEPT_BOTH);
    if (out.stateless !== undefined) {
      // stateless era: no session; the version, method and name travel as headers too
      for (const name of Object.keys(out.stateless)) headers.set(name, out.stateless[name]!);
      return undefined;
    }
    // initialize starts a session: it never carries an old session id (spec: Session Management 4)
    if (out.initialize) return undefined;
    const session = this.#sessionId;
    if (session !== undefined) headers.set('mcp-session-id', session);
    if (this.#protocolVersion !== undefined) headers.set('mcp-protocol-version', this.#protocolVersion);
    return session;
  }

  /**
   * The headers of a session's POST when they are fixed (`#fixedHeaders`): one object, built
   * again only when the session id or the protocol version changed. The requester reads it
   * and never changes it, so POSTs in flight can share it.
   */
  #sessionPostHeaders(): HeaderBag {
    const session = this.#sessionId;
    const version = this.#protocolVersion;
    let headers = this.#sessionHeaders;
    if (headers === undefined || session !== this.#postSession || version !== this.#postVersion) {
      // synchronous: fixed headers mean no header function
      headers = baseHeaders(this.#options) as HeaderBag;
      this.#addPostHeaders(headers, SESSION_POST);
      this.#sessionHeaders = headers;
      this.#postSession = session;
      this.#postVersion = version;
    }
    return headers;
  }

  /** `handoff`'s send went to fetch (or failed before): the next send need not wait for it. */
  #handedOff(handoff: Handoff): void {
    handoff.finish();
    if (this.#tail === handoff) this.#tail = undefined;
  }

  /** Stops tracking an exchange's unanswered requests. */
  #release(exchange: Exchange): void {
    if (exchange.ids.size > 0) {
      for (const id of exchange.ids.list()) if (this.#outstanding.get(id) === exchange) this.#outstanding.delete(id);
      exchange.ids.clear();
    }
    exchange.drain?.stop();
  }

  /** A request was answered (or cancelled): its exchange stops waiting for it. */
  #answered(id: RequestId): void {
    const exchange = this.#outstanding.get(id);
    if (exchange === undefined) return;
    this.#outstanding.delete(id);
    exchange.ids.delete(id);
  }

  /**
   * A response arrived. When it was the last one its exchange awaited, the stream carrying
   * the exchange has `acceptTimeoutMs` to end (as the server should end it) before the
   * client stops reading it.
   */
  #responded(id: RequestId): void {
    const exchange = this.#outstanding.get(id);
    this.#answered(id);
    if (exchange !== undefined && exchange.ids.size === 0 && exchange.streaming && exchange.controller !== undefined) {
      exchange.drain = new AcceptDeadline(exchange.controller, this.#acceptTimeoutMs, 'The end of an answered response stream');
    }
  }

  /**
   * A request was cancelled (it timed out, or its signal aborted): no response will be read
   * for it. When no other request of its POST is pending, the response carrying them is no
   * longer read: its HTTP request (POST or resuming GET) is aborted.
   */
  #cancelled(id: RequestId): void {
    const exchange = this.#outstanding.get(id);
    this.#answered(id);
    if (exchange !== undefined && exchange.ids.size === 0)
      exchange.controller?.abort(new LocalError('cancelled', 'Every request this response carries was cancelled; it is no longer read'));
  }

  /** True when `exchange` ended because every request in it was cancelled (not because of close). */
  #settledByCancel(exchange: Exchange | undefined): boolean {
    return exchange !== undefined && exchange.ids.size === 0 && !this.#closed;
  }

  /** Maps an exception of fetch (or of the header function) to what a send rejects with. */
  #failure(err: unknown, method: string): Error {
    if (this.#closed) return closedError();
    if (err instanceof LocalError) return err;
    return new LocalError('connection_closed', `${method} ${this.#url.href} failed: ${connectionFailureReason(err, this.#url)}`, { cause: err });
  }

  #captureSession(response: ClientResponse): void {
    const id = response.headers.get('mcp-session-id');
    if (id === null) return;
    if (!isValidSessionId(id)) {
      discardBody(response);
      throw new LocalError('invalid_message', 'The server assigned a session id with characters outside visible ASCII');
    }
    this.#sessionId = id;
  }

  /**
   * A non-success status. JSON-RPC responses in the body that answer requests of this POST
   * are delivered; when some request stays unanswered (or the POST held none), throws an
   * {@link HttpStatusError} naming the status and the server's explanation.
   */
  async #httpFailure(response: ClientResponse, method: string, signal: AbortWatch, exchange: Exchange | undefined): Promise<void> {
    const { text, end } = await readText(response.body, this.#maxErrorChars, signal);
    if (end === 'aborted' && this.#settledByCancel(exchange)) return;
    if (this.#closed) throw closedError();
    let detail = '';
    let parsed: unknown;
    try {
      parsed = text.length > 0 ? JSON.parse(text) : undefined;
    } catch {
      detail = excerpt(text);
    }
    const items = Array.isArray(parsed) ? parsed : parsed === undefined ? [] : [parsed];
    const answers: unknown[] = [];
    for (const item of items) {
      if (typeof item !== 'object' || item === null) continue;
      const m = item as { id?: unknown; error?: { message?: unknown }; result?: unknown };
      if (isRequestId(m.id) && exchange?.ids.has(m.id) && (m.error !== undefined || m.result !== undefined)) answers.push(item);
      else if (detail === '' && typeof m.error?.message === 'string') detail = excerpt(m.error.message);
    }
    for (const answer of answers) this.#deliver(answer);
    if (exchange !== undefined && exchange.ids.size === 0 && answers.length > 0) return;
    const status = response.statusText ? `${response.status} ${response.statusText}` : String(response.status);
    throw new HttpStatusError(response.status, method, `${method} ${this.#url.href} failed with HTTP ${status}${detail ? `: ${detail}` : ''}`);
  }

  /** Reads the JSON answer of a POST that carried requests; fails the ones it does not answer. */
  async #readJson(response: ClientResponse, signal: AbortWatch, exchange: Exchange): Promise<void> {
    const { text, truncated, end } = await readText(response.body, this.#maxChars, signal);
    if (end === 'aborted' && this.#settledByCancel(exchange)) return;
    if (this.#closed || end === 'aborted') throw closedError();
    if (truncated) {
      const err = new LocalError('message_too_large', `A JSON response exceeded ${this.#maxChars} characters and was dropped`);
      this.#receiver?.error(err);
      throw err;
    }
    if (end === 'error') throw new LocalError('connection_closed', `The connection broke while reading the JSON response to POST ${this.#url.href}`);
    this.#answerJson(text, exchange);
  }

  /** Delivers the whole JSON answer of a POST; throws when it leaves requests of the POST unanswered. */
  #answerJson(text: string, exchange: Exchange): void {
    if (text.trim().length > 0) this.#deliverText(text);
    if (exchange.ids.size > 0) {
      throw new LocalError('invalid_message', `The server's JSON response did not answer ${describeIds(exchange.ids)}`);
    }
  }

  async #readPostStream(response: ClientResponse, controller: Aborter, exchange: Exchange | undefined): Promise<void> {
    const cursor: StreamCursor = exchange ?? { lastEventId: '', retryMs: undefined };
    if (exchange !== undefined) exchange.streaming = true;
    await this.#readSse(response.body, controller, cursor);
    this.#controllers.delete(controller);
    if (exchange === undefined || exchange.ids.size === 0) return;
    if (this.#closed) throw closedError();
    await this.#resume(exchange);
  }

  /** Resumes the stream of `exchange` with GET + `Last-Event-ID` until every request is answered. */
  async #resume(exchange: Exchange): Promise<void> {
    let failures = 0;
    while (exchange.ids.size > 0) {
      if (this.#closed) throw closedError();
      if (exchange.lastEventId === '') {
        throw new LocalError(
          'connection_closed',
          `The server ended the response stream before answering ${describeIds(exchange.ids)} and sent no event id to resume from`,
        );
      }
      if (failures >= this.#policy.maxRetries) {
        throw new LocalError(
          'connection_closed',
          `The response stream for ${describeIds(exchange.ids)} ended and could not be resumed (${failures} attempt${failures === 1 ? '' : 's'})`,
        );
      }
      const delay = exchange.retryMs ?? backoffDelay(this.#policy, failures);
      if (!(await this.#waits.sleep(delay))) throw closedError();
      if (exchange.ids.size === 0) return;
      const outcome = await this.#resumeOnce(exchange);
      if (outcome === 'unsupported') {
        throw new LocalError(
          'connection_closed',
          `The response stream for ${describeIds(exchange.ids)} ended and the server does not resume streams (HTTP 405 to GET)`,
        );
      }
      failures = outcome === 'progress' ? 0 : failures + 1;
    }
  }

  async #resumeOnce(exchange: Exchange): Promise<'progress' | 'none' | 'unsupported'> {
    const controller = new Aborter();
    this.#controllers.add(controller);
    exchange.controller = controller;
    exchange.streaming = true;
    try {
      const sentSession = this.#sessionId;
      let response: ClientResponse;
      try {
        const headers = await this.#getHeaders(exchange.lastEventId);
        if (this.#closed) throw closedError();
        response = await this.#fetch(this.#url, { ...this.#options.requestInit, method: 'GET', headers, signal: controller });
      } catch (err) {
        if (this.#closed) throw closedError();
        if (this.#settledByCancel(exchange)) return 'none';
        if (err instanceof LocalError) throw err;
        return 'none';
      }
      if (response.status === 404 && sentSession !== undefined) {
        discardBody(response);
        throw this.#expire(sentSession);
      }
      if (response.status === 405) {
        discardBody(response);
        return 'unsupported';
      }
      if (!response.ok || mediaType(response) !== 'text/event-stream') {
        discardBody(response);
        return 'none';
      }
      return (await this.#readSse(response.body, controller, exchange)) ? 'progress' : 'none';
    } finally {
      this.#controllers.delete(controller);
      if (exchange.controller === controller) exchange.controller = undefined;
      exchange.drain?.stop();
    }
  }

  /** Headers of a GET: custom headers, Accept, session, version and `Last-Event-ID`. */
  async #getHeaders(lastEventId: string): Promise<HeaderBag> {
    const headers = await baseHeaders(this.#options);
    headers.set('accept', ACCEPT_SSE);
    if (this.#sessionId !== undefined) headers.set('mcp-session-id', this.#sessionId);
    if (this.#protocolVersion !== undefined) headers.set('mcp-protocol-version', this.#protocolVersion);
    if (lastEventId !== '') headers.set('last-event-id', lastEventId);
    return headers;
  }

  /**
   * Reads one SSE body, delivering `message` events and tracking the event id and `retry`
   * in `cursor`. True when the stream brought something new (a message or a new event id).
   */
  async #readSse(body: ChunkSource | null, signal: AbortWatch, cursor: StreamCursor): Promise<boolean> {
    if (!body) return false;
    let progress = false;
    const parser = new SseParser(
      {
        event: (event) => {
          if (event.id !== '' && event.id !== cursor.lastEventId) {
            cursor.lastEventId = event.id;
            progress = true;
          }
          // the priming event (an id and empty data) only records the id
          if (event.event !== 'message' || event.data === '') return;
          progress = true;
          this.#deliverText(event.data);
        },
        retry: (ms) => {
          // the server's choice, within the client's bound
          cursor.retryMs = Math.min(ms, this.#policy.maxDelayMs);
        },
        oversized: (err, envelope) => {
          if (this.#closed) return;
          this.#receiver?.error(err);
          // a dropped response whose id the scan recovered fails its request at once
          const discarded = discardedResponse(envelope, `exceeds ${this.#maxChars} characters (maxEventChars)`);
          if (discarded !== undefined) this.#receiver?.error(discarded);
        },
      },
      { maxEventChars: this.#maxChars },
    );
    const end = await pump(body, signal, (chunk) => {
      parser.push(chunk);
      return !this.#closed;
    });
    if (end !== 'aborted') parser.end();
    const id = parser.lastEventId;
    if (id !== '' && id !== cursor.lastEventId) {
      cursor.lastEventId = id;
      progress = true;
    }
    return progress;
  }

  /** Parses a message's text and delivers it; text that is not JSON is reported and skipped. */
  #deliverText(text: string): void {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      if (!this.#closed)
        this.#receiver?.error(new LocalError('invalid_message', 'The server sent a message that is not valid JSON; it was skipped', { cause: err }));
      return;
    }
    this.#deliver(value);
  }

  #deliver(value: unknown): void {
    if (this.#closed) return;
    if (Array.isArray(value)) for (const item of value) this.#noteAnswer(item);
    else this.#noteAnswer(value);
    this.#receiver!.message(value);
  }

  #noteAnswer(item: unknown): void {
    if (typeof item !== 'object' || item === null) return;
    const m = item as { id?: unknown; method?: unknown };
    if (m.method === undefined && isRequestId(m.id)) this.#responded(m.id);
  }

  #openGetStream(): void {
    if (this.#options.openGetStream === false || this.#getStream !== 'idle' || this.#closed) return;
    this.#getStream = 'open';
    this.#runGetStream().catch((err) => {
      if (!this.#closed) this.#receiver?.error(toError(err));
    });
  }

  /** The standalone GET stream: opened, read, reopened with `Last-Event-ID` when it drops. */
  async #runGetStream(): Promise<void> {
    const cursor: StreamCursor = { lastEventId: '', retryMs: undefined };
    let failures = 0;
    let problem = '';
    while (!this.#closed) {
      const controller = new Aborter();
      this.#controllers.add(controller);
      let progress = false;
      try {
        const sentSession = this.#sessionId;
        const headers = await this.#getHeaders(cursor.lastEventId);
        if (this.#closed) return;
        const response = await this.#fetch(this.#url, { ...this.#options.requestInit, method: 'GET', headers, signal: controller });
        if (response.status === 405) {
          discardBody(response);
          this.#getStream = 'unsupported';
          return;
        }
        if (response.status === 404 && sentSession !== undefined) {
          discardBody(response);
          this.#expire(sentSession);
          return;
        }
        if (response.ok && mediaType(response) === 'text/event-stream') {
          progress = await this.#readSse(response.body, controller, cursor);
          problem = 'the stream ended without new events';
        } else {
          discardBody(response);
          problem = `HTTP ${response.status}`;
        }
      } catch (err) {
        if (this.#closed) return;
        if (err instanceof RedirectRefusedError) {
          // retrying cannot help: the server sends this stream elsewhere
          this.#getStream = 'failed';
          this.#receiver?.error(err);
          return;
        }
        problem = err instanceof LocalError ? err.message : connectionFailureReason(err, this.#url);
      } finally {
        this.#controllers.delete(controller);
      }
      if (this.#closed) return;
      failures = progress ? 0 : failures + 1;
      if (failures > this.#policy.maxRetries) {
        this.#getStream = 'failed';
        this.#receiver?.error(
          new LocalError(
            'connection_closed',
            `The server-to-client stream (GET ${this.#url.href}) could not be reopened after ${failures} attempts: ${problem}`,
          ),
        );
        return;
      }
      const delay = cursor.retryMs ?? backoffDelay(this.#policy, failures > 0 ? failures - 1 : 0);
      if (!(await this.#waits.sleep(delay))) return;
    }
  }

  /** The session is gone: forget it, tell the owner, close. Returns the error to reject with. */
  #expire(sessionId: string, refused?: readonly RequestId[]): SessionExpiredError {
    const error = new SessionExpiredError(sessionId, refused);
    if (this.#sessionId === sessionId) this.#sessionId = undefined;
    if (this.#closed) return error;
    this.#shutdown();
    try {
      this.#options.onSessionExpired?.(sessionId);
    } catch (err) {
      this.#receiver?.error(toError(err));
    }
    this.#receiver?.error(error);
    this.#notifyClosed(error);
    return error;
  }

  #shutdown(): void {
    this.#closed = true;
    const reason = closedError();
    this.#controllers.abortAll(reason);
    this.#waits.cancelAll();
    this.#outstanding.clear();
  }

  #notifyClosed(reason: Error | undefined): void {
    if (this.#closedNotified) return;
    this.#closedNotified = true;
    this.#receiver?.closed(reason);
  }

  /**
   * Refuses new sends; waits at most `closeTimeoutMs` for the POSTs without requests already
   * in flight (a `notifications/cancelled` sent just before, a response) to be accepted;
   * aborts every other request and stream; sends `DELETE` with the session id (a 405, an
   * error or no answer within `closeTimeoutMs` is ignored); then calls `receiver.closed()`.
   * Idempotent; never rejects.
   */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    if (!this.#closed && this.#quietPosts > 0) await this.#quiet();
    const wasOpen = !this.#closed;
    this.#shutdown();
    const sessionId = this.#sessionId;
    if (wasOpen && sessionId !== undefined && this.#receiver !== undefined) {
      await this.#deleteSession(sessionId);
      this.#sessionId = undefined;
    }
    this.#notifyClosed(undefined);
  }

  /** Resolves when every POST without requests settled, or after `closeTimeoutMs`. */
  async #quiet(): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await new Promise<void>((resolve) => {
      this.#quietDone = resolve;
      timer = setTimeout(resolve, this.#options.closeTimeoutMs ?? 3000);
    });
    clearTimeout(timer);
    this.#quietDone = undefined;
  }

  async #deleteSession(sessionId: string): Promise<void> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(closedError('The DELETE of the session timed out')), this.#options.closeTimeoutMs ?? 3000);
    try {
      const headers = await baseHeaders(this.#options);
      headers.set('mcp-session-id', sessionId);
      if (this.#protocolVersion !== undefined) headers.set('mcp-protocol-version', this.#protocolVersion);
      const response = await this.#fetch(this.#url, { ...this.#options.requestInit, method: 'DELETE', headers, signal: controller.signal });
      discardBody(response);
    } catch {
      // the session ends with us either way; the server expires it eventually
    } finally {
      clearTimeout(timer);
    }
  }
}

function describeIds(ids: PendingIds): string {
  const list = ids
    .list()
    .slice(0, 5)
    .map((id) => JSON.stringify(id));
  const more = ids.size > 5 ? ` and ${ids.size - 5} more` : '';
  return `request${ids.size === 1 ? '' : 's'} ${list.join(', ')}${more}`;
}
