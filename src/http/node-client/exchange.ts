/**
 * One request of the Node requester, from its dispatch to the end of its response body.
 *
 * Design note: an {@link Exchange} is the parser's sink (it turns the head into a
 * {@link NodeResponse} and resolves the request's promise with it, then feeds the body)
 * and the body's control (pause, resume, cancel act on the connection carrying it). It
 * settles exactly once: the promise resolves with the response or rejects; once resolved,
 * a failure goes to the body's reader instead. The abort listener, when there is a
 * signal, is added at dispatch and removed as soon as the exchange is over (body ended,
 * failed or cancelled), so a long-lived signal gathers nothing.
 */
import type { AbortWatch, ChunkSource, ClientResponse, HeaderList } from '../client/common.js';
import { type BodyControl, ResponseBody } from './body.js';
import type { ResponseSink } from './response-parser.js';

/** The connection side an exchange talks to (see pool.ts). */
export interface ExchangeCarrier {
  readonly socket: { pause(): void; resume(): void };
  /** Drops the connection; the exchange, if still running, fails with `reason`. */
  destroy(reason?: unknown): void;
}

/** What an exchange asks of the pool while it waits for a connection. */
export interface ExchangeQueue {
  /** Removes a queued exchange (it was aborted before it got a connection). */
  dequeue(exchange: Exchange): void;
}

/**
 * The header fields of a response as the parser found them (names lower case, in order):
 * read where they are, without building a `Headers`. `get` joins repeated fields with
 * `, ` (as `Headers.get` does); `forEach` gives each field once, repeated ones joined.
 */
export class ResponseHeaders implements HeaderList {
  /** Names and values, alternating. */
  readonly #list: readonly string[];

  constructor(list: readonly string[]) {
    this.#list = list;
  }

  get(name: string): string | null {
    // the stored names are lower case: a name that is too finds its fields as given
    const found = this.#find(name);
    if (found !== null) return found;
    const key = name.toLowerCase();
    return key === name ? null : this.#find(key);
  }

  #find(key: string): string | null {
    const list = this.#list;
    let found: string | null = null;
    for (let i = 0; i < list.length; i += 2) {
      if (list[i] === key) found = found === null ? list[i + 1]! : found + ', ' + list[i + 1]!;
    }
    return found;
  }

  forEach(callback: (value: string, name: string) => void): void {
    const list = this.#list;
    const seen = new Set<string>();
    for (let i = 0; i < list.length; i += 2) {
      const name = list[i]!;
      if (seen.has(name)) continue;
      seen.add(name);
      callback(this.get(name)!, name);
    }
  }
}

/** A response of the Node requester: see `ClientResponse`. */
export class NodeResponse implements ClientResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: ResponseHeaders;
  readonly #body: ResponseBody;
  readonly #url: URL;
  readonly type = 'default';
  readonly redirected = false;

  constructor(status: number, statusText: string, headers: ResponseHeaders, body: ResponseBody, url: URL) {
    this.status = status;
    this.statusText = statusText;
    this.headers = headers;
    this.#body = body;
    this.#url = url;
  }

  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }

  get body(): ChunkSource {
    return this.#body;
  }

  get bodyUsed(): boolean {
    return this.#body.used;
  }

  get url(): string {
    return this.#url.href;
  }
}

/** One request in progress; see the module's design note. */
export class Exchange implements ResponseSink, BodyControl {
  readonly url: URL;
  readonly method: string;
  /** The whole request (head and body), written in one go. */
  readonly payload: string | Buffer;
  readonly signal: AbortWatch | undefined;
  readonly #resolve: (response: ClientResponse) => void;
  readonly #reject: (reason: unknown) => void;
  /** The connection carrying it, once it has one. */
  carrier: ExchangeCarrier | undefined;
  /** The pool holding it while it waits for a connection. */
  queue: ExchangeQueue | undefined;
  #body: ResponseBody | undefined;
  /** The parser reported the end of the response. */
  finished = false;
  /** Failed, aborted or cancelled: over without a complete response. */
  broken = false;
  /** Whether the connection may carry another request (valid once finished). */
  reuse = false;
  keepAliveMs: number | undefined;
  /** Already re-sent once on a fresh connection (see pool.ts: stale keep-alive sockets). */
  retried = false;
  #onAbort: (() => void) | undefined;

  constructor(
    url: URL,
    method: string,
    payload: string | Buffer,
    signal: AbortWatch | undefined,
    resolve: (response: ClientResponse) => void,
    reject: (reason: unknown) => void,
  ) {
    this.url = url;
    this.method = method;
    this.payload = payload;
    this.signal = signal;
    this.#resolve = resolve;
    this.#reject = reject;
    if (signal !== undefined) {
      this.#onAbort = () => this.#aborted();
      signal.addEventListener('abort', this.#onAbort, { once: true });
    }
  }

  head(status: number, statusText: string, list: readonly string[]): void {
    const body = new ResponseBody(this);
    this.#body = body;
    this.#resolve(new NodeResponse(status, statusText, new ResponseHeaders(list), body, this.url));
  }

  chunk(data: Buffer): void {
    this.#body!.push(data);
  }

  end(reuse: boolean, keepAliveMs: number | undefined): void {
    this.finished = true;
    this.reuse = reuse;
    this.keepAliveMs = keepAliveMs;
    this.#release();
    this.#body!.end();
  }

  /** The exchange cannot complete: rejects the request, or errors the body's reader. */
  fail(error: unknown): void {
    if (this.finished || this.broken) return;
    this.broken = true;
    this.#release();
    if (this.#body === undefined) this.#reject(error);
    else this.#body.fail(error);
  }

  pause(): void {
    this.carrier?.socket.pause();
  }

  resume(): void {
    this.carrier?.socket.resume();
  }

  /** The reader gave up on the body before its end: the connection cannot be reused. */
  cancel(_reason: unknown): void {
    if (this.finished || this.broken) return;
    this.broken = true;
    this.#release();
    this.carrier?.destroy();
  }

  #aborted(): void {
    this.#onAbort = undefined;
    if (this.finished || this.broken) return;
    const reason: unknown = this.signal!.reason;
    if (this.carrier !== undefined) this.carrier.destroy(reason);
    else {
      this.queue?.dequeue(this);
      this.fail(reason);
    }
  }

  #release(): void {
    if (this.#onAbort !== undefined) {
      this.signal!.removeEventListener('abort', this.#onAbort);
      this.#onAbort = undefined;
    }
  }
}
