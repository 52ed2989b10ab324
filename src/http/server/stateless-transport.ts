/**
 * The Streamable HTTP server's transport for stateless-era (2026-07-28) requests: one
 * {@link Transport}, connected once to the server, that carries the requests of every
 * client. Each POST holds one request; its reply is a JSON object or an SSE stream scoped
 * to that request (2026-07-28 › Transports › Streamable HTTP).
 *
 * Design notes:
 * - One session serves all clients, so request ids would collide: each request gets an
 *   internal id (a counter) on its way in, and its response gets the wire id back on its
 *   way out. The wire id reaches handlers as `ctx.info.wireId` (see `wireRequestId`).
 *   Nothing else carries ids: progress tokens and subscription ids are echoed from the
 *   client's own values.
 * - Request-scoped notifications (progress, logs, a subscription's notifications) go to the
 *   stream of their `relatedRequestId`; anything else has no client to go to and is
 *   dropped. A JSON-mode request has no stream: its notifications are dropped too (the
 *   handler picks SSE for requests that asked for progress or logs).
 * - A client closing an SSE stream cancels its request: the transport feeds the session a
 *   `notifications/cancelled` for the internal id, so the handler's signal fires and no
 *   response is written. Streams are never resumed (the revision removed resumability).
 * - Open `subscriptions/listen` streams get an SSE comment every `keepAliveMs` so that
 *   intermediaries keep quiet connections open; one shared, unref'd timer, running only
 *   while such streams exist.
 */
import { encodeSseEvent } from '../../framing/sse.js';
import { LocalError, toError } from '../../jsonrpc/errors.js';
import { stringifyResponse } from '../../jsonrpc/preset-json.js';
import type { JSONObject, JSONRPCMessage, RequestId } from '../../jsonrpc/types.js';
import type { MessageInfo, SendOptions, Transport, TransportReceiver } from '../../transport/types.js';
import { IdTable } from '../../session/id-table.js';
import { errorReply, jsonReply, TRANSPORT_ERROR } from './replies.js';
import { SseConnection, type SseConnectionOwner } from './sse-connection.js';
import type { HttpReply } from './types.js';

/** What the transport needs from the handler that owns it. */
export interface StatelessTransportHost {
  /** Reports a problem nobody else hears about. Must not throw. */
  reportError(error: Error): void;
}

/**
 * The {@link MessageInfo} of a stateless-era HTTP request: auth info, the HTTP headers
 * (`info.request.headers`) and the request's id as the client sent it (`wireId`).
 */
export class StatelessMessageInfo implements MessageInfo {
  readonly authInfo: unknown;
  readonly headers: Headers | Record<string, string | string[] | undefined> | undefined;
  /** The JSON-RPC id of the request on the wire. */
  readonly wireId: RequestId;

  /** @internal created by the HTTP handler per request */
  constructor(authInfo: unknown, headers: Headers | Record<string, string | string[] | undefined> | undefined, wireId: RequestId) {
    this.authInfo = authInfo;
    this.headers = headers;
    this.wireId = wireId;
  }

  /** The request details: `request.headers` holds the HTTP request headers. */
  get request(): { readonly headers?: Headers | Record<string, string | string[] | undefined> } {
    return this;
  }
}

/** The HTTP status of a stateless-era error response (2026-07-28 › Streamable HTTP). */
export function statusOfError(code: unknown): number {
  switch (code) {
    case -32601:
      return 404;
    case -32020:
    case -32021:
    case -32022:
      return 400;
    default:
      return 200;
  }
}

const SSE_HEADERS = Object.freeze({ 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no' });
const RESOLVED: Promise<void> = Promise.resolve();

/** The 503 of a request that arrives at, or is still open on, a closed transport. */
function shuttingDown(id: RequestId): HttpReply {
  return errorReply(503, TRANSPORT_ERROR, 'Service Unavailable: the server is shutting down', undefined, id);
}

/** One request in progress: where its answer goes. */
class Exchange implements SseConnectionOwner {
  /** JSON mode: resolves the POST's reply. */
  reply: ((reply: HttpReply) => void) | undefined = undefined;
  constructor(
    readonly transport: StatelessHttpTransport,
    readonly internalId: number,
    readonly wireId: RequestId,
    /** SSE mode: the response stream. */
    readonly conn: SseConnection | undefined,
    readonly keepAlive: boolean,
  ) {}

  connectionLost(): void {
    this.transport._lost(this);
  }
}

/** The shared transport; see the module note. Created by the Streamable HTTP handler. */
export class StatelessHttpTransport implements Transport {
  readonly #host: StatelessTransportHost;
  readonly #keepAliveMs: number;
  #receiver: TransportReceiver | undefined = undefined;
  #closed = false;
  #nextId = 0;
  /** Open exchanges by internal id; one table for every client, so a larger ring. */
  readonly #open = new IdTable<Exchange>(256);
  #listening = 0;
  #timer: ReturnType<typeof setInterval> | undefined = undefined;

  constructor(host: StatelessTransportHost, keepAliveMs = 15_000) {
    this.#host = host;
    this.#keepAliveMs = keepAliveMs;
  }

  /** Requests in progress. */
  get openRequests(): number {
    return this.#open.size;
  }

  /** True once closed. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Throws LocalError `already_connected` on a second call, `connection_closed` after close. */
  start(receiver: TransportReceiver): void {
    if (this.#closed) throw new LocalError('connection_closed', 'The HTTP transport is closed');
    if (this.#receiver !== undefined) throw new LocalError('already_connected', 'Transport already started');
    this.#receiver = receiver;
  }

  /**
   * Routes one outgoing message (see the module note). Resolves at once; rejects with
   * LocalError `connection_closed` once closed.
   */
  send(message: JSONRPCMessage | JSONRPCMessage[] | string, options?: SendOptions): Promise<void> {
    if (this.#closed) return Promise.reject(new LocalError('connection_closed', 'The HTTP transport is closed'));
    const m = (typeof message === 'string' ? JSON.parse(message) : message) as { id?: unknown; method?: unknown; result?: unknown; error?: { code?: unknown } };
    if (Array.isArray(m)) return RESOLVED; // never produced: no batches in this era
    if (m.method === undefined) {
      const exchange = typeof m.id === 'number' ? this.#open.get(m.id) : undefined;
      if (exchange === undefined) return RESOLVED; // cancelled, or an error for an unreadable request
      this.#open.delete(exchange.internalId);
      // the response again, under the client's id (a preset server identity is spliced in as text)
      const isError = m.error !== undefined;
      const text = isError ? JSON.stringify({ jsonrpc: '2.0', id: exchange.wireId, error: m.error }) : stringifyResponse(exchange.wireId, m.result);
      if (exchange.conn !== undefined) {
        this.#unlisten(exchange);
        exchange.conn.write(encodeSseEvent({ data: text }));
        exchange.conn.end();
      } else {
        exchange.reply?.(jsonReply(isError ? statusOfError(m.error!.code) : 200, text));
      }
      return RESOLVED;
    }
    const related = options?.relatedRequestId;
    const exchange = typeof related === 'number' ? this.#open.get(related) : undefined;
    if (exchange?.conn !== undefined) exchange.conn.write(encodeSseEvent({ data: typeof message === 'string' ? message : JSON.stringify(message) }));
    return RESOLVED;
  }

  /** Ends every stream (requests in progress are cancelled) and fires `receiver.closed()`. Idempotent. */
  close(): Promise<void> {
    if (this.#closed) return RESOLVED;
    this.#closed = true;
    this.#stopTimer();
    for (const exchange of this.#open.values()) {
      exchange.conn?.end();
      exchange.reply?.(shuttingDown(exchange.wireId));
    }
    this.#open.clear();
    this.#receiver?.closed();
    return RESOLVED;
  }

  /**
   * Hands one request to the session and returns its reply: an SSE stream (`sse`: its
   * notifications, then the response) or, in `json` mode, a promise of the JSON reply.
   * `request` is the parsed request, owned by the transport from now on (its `id` is
   * replaced by the internal one). `keepAlive` marks a long-lived stream
   * (`subscriptions/listen`). Never throws and the promise never rejects: once closed, the
   * reply is a 503.
   */
  deliver(request: { id: RequestId; method: string; params?: JSONObject }, info: StatelessMessageInfo, mode: 'sse' | 'json', keepAlive = false): HttpReply | Promise<HttpReply> {
    if (this.#closed || this.#receiver === undefined) return shuttingDown(request.id);
    const internalId = ++this.#nextId;
    const conn = mode === 'sse' ? new SseConnection() : undefined;
    const exchange = new Exchange(this, internalId, request.id, conn, keepAlive);
    if (conn !== undefined) conn.owner = exchange;
    this.#open.set(internalId, exchange);
    const reply: HttpReply | Promise<HttpReply> =
      conn !== undefined
        ? { status: 200, headers: SSE_HEADERS, stream: conn }
        : new Promise<HttpReply>((resolve) => {
            exchange.reply = resolve;
          });
    if (keepAlive && conn !== undefined) this.#listen();
    request.id = internalId;
    try {
      this.#receiver.message(request, info);
    } catch (error) {
      this.#host.reportError(toError(error));
    }
    return reply;
  }

  /** @internal the client of an exchange's stream went away: that cancels the request */
  _lost(exchange: Exchange): void {
    if (this.#open.get(exchange.internalId) !== exchange) return;
    this.#open.delete(exchange.internalId);
    this.#unlisten(exchange);
    try {
      this.#receiver?.message({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: exchange.internalId, reason: 'The client closed the response stream' } });
    } catch (error) {
      this.#host.reportError(toError(error));
    }
  }

  #listen(): void {
    if (++this.#listening === 1 && this.#keepAliveMs > 0) {
      this.#timer = setInterval(this.#ping, this.#keepAliveMs);
      (this.#timer as { unref?: () => void }).unref?.();
    }
  }

  #unlisten(exchange: Exchange): void {
    if (!exchange.keepAlive) return;
    if (--this.#listening === 0) this.#stopTimer();
  }

  #stopTimer(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  readonly #ping = (): void => {
    for (const exchange of this.#open.values()) if (exchange.keepAlive) exchange.conn?.write(':\n\n');
  };
}
