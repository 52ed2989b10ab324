/**
 * The requests in progress of the Streamable HTTP server's 2026-07-28 path. Each POST holds
 * one request, served by the server's connectionless dispatch (`McpServer.dispatchStateless`)
 * with an {@link Exchange} as its reply channel: a JSON reply, or an SSE stream scoped to
 * that request (2026-07-28 › Transports › Streamable HTTP).
 *
 * Design notes:
 * - Nothing is shared between requests but the bookkeeping here (a count for the in-flight
 *   cap, the set that shutdown ends, one keep-alive timer): no session, no id table, no id
 *   remapping. The request keeps the id the client sent.
 * - Request-scoped notifications (progress, logs, a subscription's notifications) are written
 *   to the request's SSE stream; a JSON-mode request has no stream, so they are dropped (the
 *   POST path picks SSE for requests that asked for progress or logs).
 * - The response is serialized once, by `stringifyResponse` (the preset server identity is
 *   spliced in as text), and written as the JSON body or the stream's last event.
 * - A client closing an SSE stream cancels its request: the dispatch handle's `cancel` fires
 *   the handler's signal and no response is written. Streams are never resumed (the revision
 *   removed resumability).
 * - Open `subscriptions/listen` streams get an SSE comment every `keepAliveMs` so that
 *   intermediaries keep quiet connections open; one shared, unref'd timer, running only
 *   while such streams exist.
 */
import { encodeSseEvent } from '../../../framing/sse.js';
import { stringifyResponse } from '../../../jsonrpc/preset-json.js';
import type { JSONObject, JSONRPCErrorObject, RequestId } from '../../../jsonrpc/types.js';
import type { StatelessDispatch, StatelessReplyChannel } from '../../../server/stateless/dispatch.js';
import type { MessageInfo, SendOptions } from '../../../transport/types.js';
import { errorReply, jsonReply, TRANSPORT_ERROR } from '../replies.js';
import { SseConnection, type SseConnectionOwner } from '../sse-connection.js';
import type { HttpReply } from '../types.js';

/** The {@link MessageInfo} of a 2026-07-28 HTTP request: auth info and the HTTP headers (`info.request.headers`). */
export class StatelessMessageInfo implements MessageInfo {
  readonly authInfo: unknown;
  readonly headers: Headers | Record<string, string | string[] | undefined> | undefined;

  /** @internal created by the HTTP handler per request */
  constructor(authInfo: unknown, headers: Headers | Record<string, string | string[] | undefined> | undefined) {
    this.authInfo = authInfo;
    this.headers = headers;
  }

  /** The request details: `request.headers` holds the HTTP request headers. */
  get request(): { readonly headers?: Headers | Record<string, string | string[] | undefined> } {
    return this;
  }
}

/** The HTTP status of a 2026-07-28 error response (2026-07-28 › Streamable HTTP). */
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

/** The 503 of a request that arrives at, or is still open on, a closed path. */
export function shuttingDown(id: RequestId): HttpReply {
  return errorReply(503, TRANSPORT_ERROR, 'Service Unavailable: the server is shutting down', undefined, id);
}

/** One request in progress: its reply channel (see the module note). */
export class Exchange implements StatelessReplyChannel, SseConnectionOwner {
  readonly #owner: StatelessExchanges;
  readonly id: RequestId;
  /** SSE mode: the response stream. */
  readonly conn: SseConnection | undefined;
  readonly keepAlive: boolean;
  /** JSON mode: resolves the POST's reply. */
  #reply: ((reply: HttpReply) => void) | undefined = undefined;
  /** JSON mode: the reply, when the outcome came before {@link reply} was called (a request answered at once). */
  #settled: HttpReply | undefined = undefined;
  /** The dispatch's handle, once dispatched. */
  dispatch: StatelessDispatch | undefined = undefined;
  #done = false;

  constructor(owner: StatelessExchanges, id: RequestId, conn: SseConnection | undefined, keepAlive: boolean) {
    this.#owner = owner;
    this.id = id;
    this.conn = conn;
    this.keepAlive = keepAlive;
  }

  /**
   * The POST's reply: the SSE stream at once; the JSON reply itself when the outcome is known
   * already, else a promise of it. Called once. (A reply or a promise, kept for the
   * instructions row `json mcpkit-2026`: +2.7 % with the chain async; see
   * `StreamableHttpHandler#route`.)
   */
  reply(): HttpReply | Promise<HttpReply> {
    // still running once its dispatch returned: it joins the open ones (shutdown ends it)
    if (!this.#done) this.#owner.hold(this);
    if (this.conn !== undefined) return { status: 200, headers: SSE_HEADERS, stream: this.conn };
    const settled = this.#settled;
    if (settled !== undefined) {
      this.#settled = undefined;
      return settled;
    }
    return new Promise<HttpReply>((resolve) => {
      this.#reply = resolve;
    });
  }

  /** JSON mode: hands `reply` to the waiting {@link reply} promise, or keeps it for {@link reply}. */
  #settle(reply: HttpReply): void {
    if (this.#reply !== undefined) this.#reply(reply);
    else this.#settled = reply;
  }

  /** True once the outcome was written or the client went away. */
  get closed(): boolean {
    return this.#done;
  }

  /** Always undefined: this era has no sessions. */
  get transportSessionId(): undefined {
    return undefined;
  }

  /** Writes a notification related to this request to its stream (dropped in JSON mode). */
  notify(method: string, params?: JSONObject, _options?: SendOptions): Promise<void> {
    if (!this.#done && this.conn !== undefined) {
      const message = params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
      this.conn.write(encodeSseEvent({ data: JSON.stringify(message) }));
    }
    return RESOLVED;
  }

  result(id: RequestId, result: unknown): void {
    this.#finish(stringifyResponse(id, result), 200);
  }

  error(id: RequestId, error: JSONRPCErrorObject): void {
    this.#finish(JSON.stringify({ jsonrpc: '2.0', id, error }), statusOfError(error.code));
  }

  #finish(text: string, status: number): void {
    if (this.#done) return;
    this.#done = true;
    this.#owner.forget(this);
    if (this.conn !== undefined) {
      this.conn.write(encodeSseEvent({ data: text }));
      this.conn.end();
    } else {
      this.#settle(jsonReply(status, text));
    }
  }

  /** Shutdown: the stream ends, a pending JSON reply becomes a 503. */
  shutDown(): void {
    if (this.#done) return;
    this.#done = true;
    this.dispatch?.cancel(new Error('The server is shutting down'));
    if (this.conn !== undefined) this.conn.end();
    else this.#settle(shuttingDown(this.id));
  }

  /** The client of this request's stream went away: that cancels the request. */
  connectionLost(): void {
    if (this.#done) return;
    this.#done = true;
    this.#owner.forget(this);
    this.dispatch?.cancel(new Error('The client closed the response stream'));
  }
}

/** The 2026-07-28 requests in progress of one handler; see the module note. */
export class StatelessExchanges {
  readonly #keepAliveMs: number;
  /** The open exchanges. */
  readonly #open = new Set<Exchange>();
  #closed = false;
  #listening = 0;
  #timer: ReturnType<typeof setInterval> | undefined = undefined;

  constructor(keepAliveMs = 15_000) {
    this.#keepAliveMs = keepAliveMs;
  }

  /** Requests in progress. */
  get size(): number {
    return this.#open.size;
  }

  /** True once closed. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * A new exchange for request `id`: `sse` mode streams (`keepAlive`: a long-lived stream,
   * `subscriptions/listen`), `json` mode answers once. It joins the open ones only if it is
   * still running when its POST is answered ({@link hold}, from `Exchange.reply`): a request
   * answered within its dispatch is never in progress between two requests, so it is neither
   * counted nor ended by shutdown, and costs the set nothing.
   */
  open(id: RequestId, mode: 'sse' | 'json', keepAlive: boolean): Exchange {
    const conn = mode === 'sse' ? new SseConnection() : undefined;
    const exchange = new Exchange(this, id, conn, keepAlive && conn !== undefined);
    if (conn !== undefined) conn.owner = exchange;
    return exchange;
  }

  /** `exchange` outlives its dispatch: it is counted and shutdown ends it (at once when closed already). */
  hold(exchange: Exchange): void {
    if (this.#closed) {
      exchange.shutDown();
      return;
    }
    this.#open.add(exchange);
    if (exchange.keepAlive) this.#listen();
  }

  /** Ends every stream (requests in progress are cancelled; pending JSON replies get 503). Idempotent. */
  close(): Promise<void> {
    if (this.#closed) return RESOLVED;
    this.#closed = true;
    this.#stopTimer();
    const open = [...this.#open];
    this.#open.clear();
    this.#listening = 0;
    for (const exchange of open) exchange.shutDown();
    return RESOLVED;
  }

  /** An exchange finished or lost its client: it leaves the open ones. */
  forget(exchange: Exchange): void {
    if (!this.#open.delete(exchange)) return;
    if (exchange.keepAlive && --this.#listening === 0) this.#stopTimer();
  }

  #listen(): void {
    if (++this.#listening === 1 && this.#keepAliveMs > 0) {
      this.#timer = setInterval(this.#ping, this.#keepAliveMs);
      (this.#timer as { unref?: () => void }).unref?.();
    }
  }

  #stopTimer(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  readonly #ping = (): void => {
    for (const e of this.#open) if (e.keepAlive) e.conn?.write(':\n\n');
  };
}
