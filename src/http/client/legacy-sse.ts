/**
 * The client side of the deprecated HTTP+SSE transport (protocol revision 2024-11-05 ›
 * Transports › HTTP with SSE), kept for servers that predate Streamable HTTP.
 *
 * Design note:
 * - `start()` GETs the SSE URL and resolves when the server's first `endpoint` event names
 *   the URL to POST messages to (bounded by `endpointTimeoutMs`). The endpoint is resolved
 *   against the SSE URL and must have the same origin: messages and custom headers (which
 *   may hold credentials) are never sent to another origin; the same holds for redirects of
 *   the GET and of every POST (see redirects.ts).
 * - Server messages arrive as `message` events on that one stream; each `send()` is a POST
 *   to the endpoint whose answer (202 or 200) carries no message. Sends are dispatched in
 *   call order and settle with the POST's status.
 * - A POST's answer is only an acknowledgement. A POST carrying notifications or responses
 *   is bounded by `acceptTimeoutMs`. A POST carrying requests is awaited while one of them
 *   is pending; once each is answered (on the stream) or cancelled (the session POSTs
 *   `notifications/cancelled` when a request times out or its signal aborts), the POST is
 *   no longer needed: when they were all cancelled it is aborted at once, otherwise it gets
 *   `acceptTimeoutMs` more, so a server that never acknowledges holds no connection for long.
 * - The stream cannot be resumed (a new GET would be a new session), so when it ends the
 *   transport closes: `receiver.closed` gets a LocalError `connection_closed`.
 */

import { SseParser } from '../../framing/sse.js';
import { LocalError, toError } from '../../jsonrpc/errors.js';
import { serializeMessage } from '../../jsonrpc/preset-json.js';
import { isRequestId, type JSONRPCMessage, type RequestId } from '../../jsonrpc/types.js';
import { Notification } from '../../protocol/methods.js';
import { discardedResponse } from '../../session/discarded-response.js';
import type { SendOptions, Transport, TransportReceiver } from '../../transport/types.js';
import {
  AcceptDeadline,
  acceptTimeout,
  baseHeaders,
  type ChunkSource,
  type ClientResponse,
  closedError,
  DEFAULT_MAX_ERROR_BODY_CHARS,
  DEFAULT_MAX_MESSAGE_CHARS,
  discardBody,
  excerpt,
  type HttpClientCommonOptions,
  mediaType,
  pump,
  readText,
} from './common.js';
import { connectionFailureReason } from './connection-failure.js';
import { HttpStatusError, type RedirectRefusedError } from './errors.js';
import { type TransportFetch, transportFetch } from './redirects.js';

/** Options of {@link SseClientTransport}. */
export interface SseClientTransportOptions extends HttpClientCommonOptions {
  /** The server's SSE URL (GET). */
  url: string | URL;
  /** How long `start()` waits for the `endpoint` event. Default 30000 ms. */
  endpointTimeoutMs?: number;
}

/** A POST carrying requests, while some of them await their answers. */
interface RequestPost {
  readonly controller: AbortController;
  /** Requests of the POST still pending (neither answered nor cancelled). */
  readonly ids: Set<RequestId>;
  /** Whether one of them was answered (then the POST gets `acceptTimeoutMs` more once all are settled). */
  answered: boolean;
  deadline: AcceptDeadline | undefined;
}

/** A client transport for 2024-11-05 HTTP+SSE servers. One instance serves one connection. */
export class SseClientTransport implements Transport {
  readonly #url: URL;
  readonly #fetch: TransportFetch;
  readonly #options: SseClientTransportOptions;
  readonly #maxChars: number;
  readonly #acceptTimeoutMs: number;
  readonly #maxErrorChars: number;
  /** The POST of each pending request, by request id. */
  readonly #requestPosts = new Map<RequestId, RequestPost>();
  #receiver: TransportReceiver | undefined;
  #endpoint: URL | undefined;
  #protocolVersion: string | undefined;
  #closed = false;
  #closedNotified = false;
  #tail: Promise<void> = Promise.resolve();
  readonly #controllers = new Set<AbortController>();
  /** Settles the wait of `start()` for the endpoint event. */
  #endpointWaiter: { resolve: (url: URL) => void; reject: (err: Error) => void } | undefined;

  /** Throws TypeError for an unparsable URL, RangeError for a bad `maxRedirects` or `acceptTimeoutMs`. */
  constructor(options: SseClientTransportOptions) {
    this.#url = new URL(options.url);
    this.#fetch = transportFetch(options);
    this.#options = options;
    this.#maxChars = options.maxEventChars ?? DEFAULT_MAX_MESSAGE_CHARS;
    this.#acceptTimeoutMs = acceptTimeout(options);
    this.#maxErrorChars = options.maxErrorBodyChars ?? DEFAULT_MAX_ERROR_BODY_CHARS;
  }

  /** The URL messages are POSTed to, once the server named it. */
  get endpoint(): URL | undefined {
    return this.#endpoint;
  }

  /** The URL this transport sends to (see `Transport.peer`). */
  get peer(): string {
    return this.#url.href;
  }

  /** This transport has no transport-level session id (the server may encode one in the endpoint). */
  get sessionId(): string | undefined {
    return undefined;
  }

  /** Later requests carry `MCP-Protocol-Version` (harmless to 2024-11-05 servers). */
  setProtocolVersion(version: string): void {
    this.#protocolVersion = version;
  }

  /**
   * Opens the SSE stream and waits for the `endpoint` event. Rejects with
   * {@link HttpStatusError} for a non-success status, LocalError `invalid_message` for a
   * response that is not SSE or an endpoint on another origin, `timeout` when no endpoint
   * arrives in time, `connection_closed` when the server is unreachable or the stream ends
   * first, `already_connected` on a second call. After a rejection the transport is closed
   * (without calling `receiver.closed`).
   */
  async start(receiver: TransportReceiver): Promise<void> {
    if (this.#receiver) throw new LocalError('already_connected', 'The transport was already started');
    if (this.#closed) throw closedError();
    this.#receiver = receiver;
    const controller = new AbortController();
    this.#controllers.add(controller);
    try {
      let response: ClientResponse;
      try {
        const headers = await baseHeaders(this.#options);
        headers.set('accept', 'text/event-stream');
        if (this.#protocolVersion !== undefined) headers.set('mcp-protocol-version', this.#protocolVersion);
        if (this.#closed) throw closedError();
        response = await this.#fetch(this.#url, { ...this.#options.requestInit, method: 'GET', headers, signal: controller.signal });
      } catch (err) {
        if (this.#closed || err instanceof LocalError) throw this.#closed ? closedError() : err;
        throw new LocalError('connection_closed', `GET ${this.#url.href} failed: ${connectionFailureReason(err, this.#url)}`, { cause: err });
      }
      if (!response.ok) {
        const { text } = await readText(response.body, this.#maxErrorChars, controller.signal);
        throw new HttpStatusError(response.status, 'GET', `GET ${this.#url.href} failed with HTTP ${response.status}${text ? `: ${excerpt(text)}` : ''}`);
      }
      if (mediaType(response) !== 'text/event-stream' || !response.body) {
        discardBody(response);
        throw new LocalError('invalid_message', `GET ${this.#url.href} did not open an SSE stream (content type ${JSON.stringify(mediaType(response))})`);
      }
      const endpoint = new Promise<URL>((resolve, reject) => {
        this.#endpointWaiter = { resolve, reject };
      });
      const timeoutMs = this.#options.endpointTimeoutMs ?? 30_000;
      const timer = setTimeout(() => this.#endpointFailed(new LocalError('timeout', `The server sent no endpoint event within ${timeoutMs} ms`)), timeoutMs);
      this.#read(response.body, controller).catch((err) => {
        if (!this.#closed) this.#receiver?.error(toError(err));
      });
      try {
        this.#endpoint = await endpoint;
      } finally {
        clearTimeout(timer);
      }
    } catch (err) {
      this.#shutdown();
      throw err;
    }
  }

  #endpointFailed(error: Error): void {
    const waiter = this.#endpointWaiter;
    this.#endpointWaiter = undefined;
    waiter?.reject(error);
  }

  /** Reads the SSE stream until it ends; the transport closes with it. */
  async #read(body: ChunkSource, controller: AbortController): Promise<void> {
    const parser = new SseParser(
      {
        event: (event) => {
          if (event.event === 'endpoint') this.#onEndpoint(event.data);
          else if (event.event === 'message' && event.data !== '') this.#deliverText(event.data);
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
    const end = await pump(body, controller.signal, (chunk) => {
      parser.push(chunk);
      return !this.#closed;
    });
    this.#controllers.delete(controller);
    if (end !== 'aborted') parser.end();
    if (this.#endpointWaiter) {
      this.#endpointFailed(this.#closed ? closedError() : new LocalError('connection_closed', 'The SSE stream ended before the server sent its endpoint'));
      return;
    }
    if (this.#closed) return;
    this.#shutdown();
    this.#notifyClosed(new LocalError('connection_closed', end === 'error' ? 'The SSE stream broke' : 'The server closed the SSE stream'));
  }

  #onEndpoint(data: string): void {
    const waiter = this.#endpointWaiter;
    if (!waiter) {
      // a later endpoint event cannot move an established connection
      if (this.#endpoint !== undefined && !this.#closed)
        this.#receiver?.error(new LocalError('invalid_message', 'The server sent a second endpoint event; it was ignored'));
      return;
    }
    let url: URL;
    try {
      url = new URL(data.trim(), this.#url);
    } catch {
      this.#endpointFailed(new LocalError('invalid_message', 'The server sent an endpoint event that is not a valid URL'));
      return;
    }
    if (url.origin !== this.#url.origin) {
      this.#endpointFailed(
        new LocalError('invalid_message', `The server named an endpoint on another origin (${url.origin}); refusing to send messages there`),
      );
      return;
    }
    this.#endpointWaiter = undefined;
    waiter.resolve(url);
  }

  #deliverText(text: string): void {
    if (this.#closed) return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      this.#receiver?.error(new LocalError('invalid_message', 'The server sent a message that is not valid JSON; it was skipped', { cause: err }));
      return;
    }
    if (this.#requestPosts.size > 0) for (const item of Array.isArray(value) ? value : [value]) this.#noteAnswer(item);
    this.#receiver!.message(value);
  }

  #noteAnswer(item: unknown): void {
    if (typeof item !== 'object' || item === null) return;
    const m = item as { id?: unknown; method?: unknown };
    if (m.method === undefined && isRequestId(m.id)) this.#settled(m.id, true);
  }

  /**
   * A request was answered, or cancelled: its POST no longer waits for it. Once none of the
   * POST's requests is pending, the POST is aborted (all cancelled) or bounded by
   * `acceptTimeoutMs` (some answered).
   */
  #settled(id: RequestId, answered: boolean): void {
    const post = this.#requestPosts.get(id);
    if (post === undefined) return;
    this.#requestPosts.delete(id);
    post.ids.delete(id);
    if (answered) post.answered = true;
    if (post.ids.size > 0) return;
    if (post.answered) post.deadline = new AcceptDeadline(post.controller, this.#acceptTimeoutMs, 'The acknowledgement of an answered request');
    else post.controller.abort(new LocalError('cancelled', 'Every request of this POST was cancelled; its answer is no longer awaited'));
  }

  /**
   * The ids of the requests in an outgoing message; notes the cancellation it carries. The
   * facts its session stated (`options`) say it; only a message without them is read.
   */
  #requestsOf(message: JSONRPCMessage | JSONRPCMessage[] | string, options: SendOptions | undefined): RequestId[] {
    if (typeof message !== 'string' && options?.kind !== undefined) {
      if (options.cancels !== undefined) this.#settled(options.cancels, false);
      return options.kind === 'request' && options.id !== undefined && options.id !== null ? [options.id] : [];
    }
    let value: unknown = message;
    if (typeof message === 'string') {
      try {
        value = JSON.parse(message);
      } catch {
        return [];
      }
    }
    const ids: RequestId[] = [];
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item !== 'object' || item === null) continue;
      const m = item as { id?: unknown; method?: unknown; params?: { requestId?: unknown } };
      if (typeof m.method !== 'string') continue;
      if (isRequestId(m.id)) ids.push(m.id);
      else if (m.method === Notification.Cancelled && isRequestId(m.params?.requestId)) this.#settled(m.params.requestId, false);
    }
    return ids;
  }

  /**
   * POSTs one message to the endpoint; resolves on a success status, or once every request
   * in it was answered or cancelled (see the design note). Rejects with LocalError
   * `not_connected` before the endpoint is known, `connection_closed` once closed or when
   * the server is unreachable, `timeout` when a POST without requests is not answered
   * within `acceptTimeoutMs`, {@link HttpStatusError} for an error status,
   * {@link RedirectRefusedError} for a redirect the transport does not follow.
   */
  send(message: JSONRPCMessage | JSONRPCMessage[] | string, options?: SendOptions): Promise<void> {
    if (this.#closed) return Promise.reject(closedError());
    const endpoint = this.#endpoint;
    if (endpoint === undefined) return Promise.reject(new LocalError('not_connected', 'The transport has no endpoint yet; await start() first'));
    const body = typeof message === 'string' ? message : serializeMessage(message);
    const controller = new AbortController();
    const ids = this.#requestsOf(message, options);
    let post: RequestPost | undefined;
    if (ids.length > 0) {
      post = { controller, ids: new Set(ids), answered: false, deadline: undefined };
      for (const id of ids) this.#requestPosts.set(id, post);
    }
    const previous = this.#tail;
    let dispatched!: () => void;
    this.#tail = new Promise<void>((resolve) => (dispatched = resolve));
    return this.#post(previous, dispatched, endpoint, body, controller, post);
  }

  async #post(
    previous: Promise<void>,
    dispatched: () => void,
    endpoint: URL,
    body: string,
    controller: AbortController,
    post: RequestPost | undefined,
  ): Promise<void> {
    this.#controllers.add(controller);
    let deadline: AcceptDeadline | undefined;
    try {
      let response: ClientResponse;
      try {
        await previous;
        if (this.#closed) throw closedError();
        const headers = await baseHeaders(this.#options);
        if (this.#closed) throw closedError();
        headers.set('content-type', 'application/json');
        if (this.#protocolVersion !== undefined) headers.set('mcp-protocol-version', this.#protocolVersion);
        if (post === undefined) deadline = new AcceptDeadline(controller, this.#acceptTimeoutMs, `POST ${endpoint.href}`);
        const pending = this.#fetch(endpoint, { ...this.#options.requestInit, method: 'POST', headers, body, signal: controller.signal });
        dispatched();
        response = await pending;
      } catch (err) {
        if (this.#closed) throw closedError();
        if (err instanceof LocalError) throw err;
        throw new LocalError('connection_closed', `POST ${endpoint.href} failed: ${connectionFailureReason(err, endpoint)}`, { cause: err });
      } finally {
        dispatched();
      }
      if (!response.ok) {
        const { text } = await readText(response.body, this.#maxErrorChars, controller.signal);
        throw new HttpStatusError(response.status, 'POST', `POST ${endpoint.href} failed with HTTP ${response.status}${text ? `: ${excerpt(text)}` : ''}`);
      }
      discardBody(response);
    } catch (err) {
      // a POST whose requests are all settled is not awaited any more: its failure is moot
      if (post !== undefined && post.ids.size === 0 && !this.#closed) return;
      throw deadline?.error ?? err;
    } finally {
      deadline?.stop();
      post?.deadline?.stop();
      if (post !== undefined) for (const id of post.ids) if (this.#requestPosts.get(id) === post) this.#requestPosts.delete(id);
      this.#controllers.delete(controller);
    }
  }

  #shutdown(): void {
    this.#closed = true;
    const reason = closedError();
    for (const controller of this.#controllers) controller.abort(reason);
    this.#controllers.clear();
    this.#requestPosts.clear();
  }

  #notifyClosed(reason: Error | undefined): void {
    if (this.#closedNotified) return;
    this.#closedNotified = true;
    this.#receiver?.closed(reason);
  }

  /** Aborts the stream and every POST, then calls `receiver.closed()`. Idempotent; never rejects. */
  async close(): Promise<void> {
    this.#shutdown();
    this.#endpointFailed(closedError());
    this.#notifyClosed(undefined);
  }
}
