/**
 * Pieces shared by the HTTP client transports: option types, header assembly, bounded body
 * reading, cancellable waits and the reconnection backoff. Runtime-neutral (web `fetch`,
 * `Headers`, `ReadableStream`); no `node:*` imports.
 */

import { Utf8Chunks } from '../../framing/utf8-chunks.js';
import { LocalError } from '../../jsonrpc/errors.js';

/**
 * Extra headers for every HTTP request a transport makes: a fixed record, or a function
 * called before each request (for example to attach a fresh bearer token). A function that
 * throws (or rejects) fails the request it was called for with that error.
 */
export type HeadersInput = Record<string, string> | (() => Record<string, string> | Promise<Record<string, string>>);

/**
 * Authorization of a transport's HTTP requests: mcpkit's `OAuthClient` (`mcpkit/auth`)
 * implements it, and so can anything else that needs to sign or authorize requests. The
 * transport hands its `fetch` to {@link HttpAuthorization.wrapFetch} once, at construction,
 * and makes every request (POST, GET, DELETE) through the returned function; that function
 * adds the credentials and answers authorization challenges (401, 403), retrying the request
 * itself, and returns the final response. When it rejects (the user declined, discovery
 * failed), the request fails with a LocalError whose `cause` is that rejection.
 */
export interface HttpAuthorization {
  /** Returns a fetch that authorizes every request made through it. Called once per transport. */
  wrapFetch(fetch: typeof globalThis.fetch): typeof globalThis.fetch;
}

/** One request as a {@link HttpRequester} receives it. */
export interface RequesterInit {
  /** The method, upper case (`GET`, `POST`, `DELETE`). */
  readonly method: string;
  /**
   * Every header to send (the requester adds `Host`, and `Content-Length` for a body): a
   * `Headers`, or a lighter {@link HeaderList} the transport built for a requester.
   */
  readonly headers: HeaderList;
  /** The body: the transports send JSON text only. Sent as UTF-8. */
  readonly body?: string | undefined;
  /** Aborts the request, or the reading of its body. */
  readonly signal?: AbortWatch | undefined;
}

/**
 * Makes HTTP requests for a transport without `fetch`: `nodeHttpRequester()` from
 * `mcpkit/node` is one. Contract:
 * - resolves once the status line and headers of the final response arrived (interim 1xx
 *   responses are skipped), with a {@link ClientResponse} whose body delivers the bytes in
 *   order and ends when the response does; rejects (or errors the body's reader) with an
 *   Error saying what went wrong when the server cannot be reached or answers something
 *   that is not HTTP;
 * - never follows redirects: a 3xx is the response (the transport decides, see
 *   `maxRedirects`), and `redirected` is false;
 * - when `signal` aborts before the response arrived it rejects with `signal.reason`;
 *   when it aborts while the body is read, the reader's pending and later reads reject;
 *   either way the connection is dropped, and the listener is removed once the response
 *   is over;
 * - `body.cancel()` (or the reader's) stops reading and releases the connection: it is
 *   destroyed unless the body had already ended.
 */
export type HttpRequester = (url: URL, init: RequesterInit) => Promise<ClientResponse>;

/**
 * What a reader or a requester watches to learn that its request was aborted: an
 * `AbortSignal` is one, and so is the transports' lighter {@link Aborter}. A requester that
 * needs a real `AbortSignal` (to hand to a `fetch`) makes one with {@link toAbortSignal}.
 */
export interface AbortWatch {
  readonly aborted: boolean;
  /** Why it was aborted (meaningful once `aborted`). */
  readonly reason: unknown;
  /** Calls `listener` once, when aborted; never when already aborted. */
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * An abort controller and its signal in one small object, for the transports' requests:
 * an {@link AbortWatch} without `EventTarget`'s machinery (creating an `AbortSignal` and
 * adding and removing its listeners was a sixth of an HTTP client's time per call). A real
 * `AbortSignal` that follows it is made only when something asks for {@link Aborter.signal}
 * (a `fetch`). Listeners run in the order they were added; one that throws does not stop
 * the others, and its error is rethrown in a later microtask, as an event listener's is
 * reported.
 */
export class Aborter implements AbortWatch {
  aborted = false;
  reason: unknown = undefined;
  /** @internal Position in the {@link AborterSet} holding it; -1 when in none. */
  slot = -1;
  #listeners: (() => void)[] | undefined = undefined;
  #controller: AbortController | undefined = undefined;

  /** Aborts (once): records `reason` (an `AbortError` DOMException when none), calls the listeners, aborts {@link signal} if made. */
  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason === undefined ? new DOMException('This operation was aborted', 'AbortError') : reason;
    const listeners = this.#listeners;
    this.#listeners = undefined;
    if (listeners !== undefined) {
      for (const listener of listeners) {
        try {
          listener();
        } catch (error) {
          queueMicrotask(() => {
            throw error;
          });
        }
      }
    }
    this.#controller?.abort(this.reason);
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    if (!this.aborted) (this.#listeners ??= []).push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const listeners = this.#listeners;
    if (listeners === undefined) return;
    const at = listeners.lastIndexOf(listener);
    if (at >= 0) listeners.splice(at, 1);
  }

  /** A real `AbortSignal` aborted with this one (made on first use). */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.aborted) this.#controller.abort(this.reason);
    }
    return this.#controller.signal;
  }
}

/**
 * One request as a transport makes it: a `RequestInit` whose headers are a `Headers` when a
 * fetch makes the request, or `PlainHeaders` when a requester is called directly (see
 * `baseHeaders`).
 */
export interface TransportInit extends Omit<RequestInit, 'headers' | 'signal'> {
  headers: HeaderBag;
  /** An `AbortSignal`, or an {@link Aborter} (a fetch then gets its `signal`). */
  signal?: AbortWatch | null | undefined;
}

/**
 * The {@link Aborter}s of a transport's requests in progress, so that closing the transport
 * aborts them all. An array with swap-removal, each aborter knowing its slot: unlike a
 * `Set`, adding and removing one per request never rebuilds a hash table, whose discarded
 * tables (held by the long-lived transport) were promoted to the old generation at several
 * requests in flight. An aborter belongs to at most one set.
 */
export class AborterSet {
  #list: Aborter[] = [];

  /** Requests in progress. */
  get size(): number {
    return this.#list.length;
  }

  /** Adds `aborter`; nothing when it is in a set already. */
  add(aborter: Aborter): void {
    if (aborter.slot >= 0) return;
    aborter.slot = this.#list.length;
    this.#list.push(aborter);
  }

  /** Removes `aborter`; nothing when it is not in this set. */
  delete(aborter: Aborter): void {
    const list = this.#list;
    const at = aborter.slot;
    if (at < 0 || list[at] !== aborter) return;
    const last = list.pop()!;
    if (last !== aborter) {
      list[at] = last;
      last.slot = at;
    }
    aborter.slot = -1;
  }

  /** Empties the set, then aborts every aborter it held with `reason`. */
  abortAll(reason: unknown): void {
    const list = this.#list;
    this.#list = [];
    for (const aborter of list) aborter.slot = -1;
    for (const aborter of list) aborter.abort(reason);
  }
}

/**
 * `watch` as an `AbortSignal`: itself when it is one, an {@link Aborter}'s own signal, else a
 * new signal that follows it (through one listener added to `watch`, left until it aborts).
 */
export function toAbortSignal(watch: AbortWatch): AbortSignal {
  if (watch instanceof AbortSignal) return watch;
  if (watch instanceof Aborter) return watch.signal;
  const controller = new AbortController();
  if (watch.aborted) controller.abort(watch.reason);
  else watch.addEventListener('abort', () => controller.abort(watch.reason), { once: true });
  return controller.signal;
}

/** Options every HTTP client transport understands. */
export interface HttpClientCommonOptions {
  /**
   * The `fetch` to use (injectable for tests, proxies, instrumentation). Default:
   * `globalThis.fetch`, unless `requester` is given (the two exclude each other).
   */
  fetch?: typeof fetch;
  /**
   * Makes the requests instead of `fetch` (see {@link HttpRequester}): for example
   * `nodeHttpRequester()` from `mcpkit/node`, HTTP/1.1 on keep-alive sockets, several
   * times cheaper per request than `fetch` in Node. Passing `fetch` too is a TypeError.
   * `requestInit` fields other than `headers` mean nothing to a requester and are ignored.
   * With `auth`, the requester is adapted to a `fetch` for the authorization to wrap (each
   * response is then built as a `Response` around a web stream of the body: the cost of
   * `fetch`'s objects, though not of its connection handling).
   */
  requester?: HttpRequester;
  /**
   * Authorization of every request (for example an `OAuthClient` from `mcpkit/auth`): it
   * wraps `fetch`, adds `Authorization` (only ever as a header), handles 401 and 403
   * `insufficient_scope` challenges and retries. See {@link HttpAuthorization}.
   */
  auth?: HttpAuthorization;
  /**
   * Extra headers on every request. They override `requestInit.headers`; the transport's own
   * headers (`Content-Type`, `Accept`, `Mcp-Session-Id`, `MCP-Protocol-Version`,
   * `Last-Event-ID`) override both.
   */
  headers?: HeadersInput;
  /**
   * Base `RequestInit` for every request (credentials, mode, a custom dispatcher, ...).
   * `method`, `body`, `signal` and `redirect` (always `'manual'`: the transport follows
   * redirects itself, see `maxRedirects`) are set by the transport.
   */
  requestInit?: RequestInit;
  /**
   * Same-origin redirects followed per request (307 and 308 for any method, 301 and 302 for
   * methods other than POST, 303 for GET). One more fails the request with a
   * `RedirectRefusedError` (`too_many_redirects`) and sends nothing to the target; 0 refuses
   * every redirect. Whatever this says, a redirect to another origin, or one that would turn
   * a POST into a GET, is never followed (also a `RedirectRefusedError`). Default 5.
   */
  maxRedirects?: number;
  /**
   * Largest accepted message, in characters: one SSE event's data, or one JSON response
   * body. Larger ones are dropped and reported. Default 4 Mi.
   */
  maxEventChars?: number;
  /**
   * Largest body of an HTTP error answer (a non-success status) that is read, in characters:
   * the transport reads that much for a JSON-RPC error or an explanation to quote, then stops
   * reading and fails the request with `HttpStatusError`; a longer body is not parsed.
   * Default 64 Ki.
   */
  maxErrorBodyChars?: number;
  /**
   * How long the server may take to finish an HTTP answer that carries nothing the client
   * still waits for. Requests are bounded by their own timeout (the session's); this bounds
   * the rest:
   * - a POST that carries no request (only notifications or responses), from handing it to
   *   `fetch` (the time `auth` takes to authorize it counts too) to the end of the server's
   *   answer (202 Accepted): past it the POST is aborted and its send rejects with
   *   LocalError `timeout`;
   * - a response stream whose requests are all answered, which the server should end: past
   *   it the client stops reading it (quietly: every answer has arrived);
   * - in the legacy transport, whose request POSTs are only acknowledgements, a request's
   *   POST once the request's answer arrived on the SSE stream (quietly too).
   * 0 or `Infinity` turns the bound off. Default 30000 ms.
   */
  acceptTimeoutMs?: number;
}

/** The longest delay a timer holds (2^31 - 1 ms); a longer one would fire at once. */
const MAX_TIMER_MS = 0x7fffffff;

/** Default of {@link HttpClientCommonOptions.acceptTimeoutMs}. */
export const DEFAULT_ACCEPT_TIMEOUT_MS = 30_000;

/** The `acceptTimeoutMs` in force; throws RangeError for a negative value or NaN. */
export function acceptTimeout(options: HttpClientCommonOptions): number {
  const ms = options.acceptTimeoutMs ?? DEFAULT_ACCEPT_TIMEOUT_MS;
  if (!(ms >= 0)) throw new RangeError('acceptTimeoutMs must be a non-negative number');
  return ms;
}

/**
 * The deadline of one POST's acceptance (see {@link HttpClientCommonOptions.acceptTimeoutMs}):
 * when `ms` passes before {@link AcceptDeadline.stop}, `error` is set and `controller` is
 * aborted with it. `ms` of 0 or `Infinity`: never. Holds one timer until stopped or expired.
 */
export class AcceptDeadline {
  /** Set when the deadline passed (the abort reason). */
  error: LocalError | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(controller: { abort(reason?: unknown): void }, ms: number, what: string) {
    if (ms > 0 && Number.isFinite(ms)) {
      this.#timer = setTimeout(
        () => {
          this.#timer = undefined;
          this.error = new LocalError('timeout', `${what} was not answered within ${ms} ms (acceptTimeoutMs)`);
          controller.abort(this.error);
        },
        Math.min(ms, MAX_TIMER_MS),
      );
    }
  }

  /** Cancels the deadline (idempotent). */
  stop(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

/** Reconnection policy of a dropped SSE stream. */
export interface ReconnectOptions {
  /** Wait before the first reconnection, when the server sent no `retry`. Default 1000 ms. */
  initialDelayMs?: number;
  /**
   * Largest wait between attempts, also the cap on a server's SSE `retry` (a larger `retry`
   * waits this long instead). Default 30000 ms.
   */
  maxDelayMs?: number;
  /** Factor the wait grows by after each failed attempt. Default 1.5. */
  growFactor?: number;
  /** Reconnection attempts in a row that may fail (or bring nothing new) before giving up. Default 2. */
  maxRetries?: number;
}

/** {@link ReconnectOptions} with every default applied. */
export type ReconnectPolicy = Required<ReconnectOptions>;

/** Applies the defaults of {@link ReconnectOptions}; throws RangeError for negative or non-finite values. */
export function reconnectPolicy(options: ReconnectOptions | undefined): ReconnectPolicy {
  const policy: ReconnectPolicy = {
    initialDelayMs: options?.initialDelayMs ?? 1000,
    maxDelayMs: options?.maxDelayMs ?? 30_000,
    growFactor: options?.growFactor ?? 1.5,
    maxRetries: options?.maxRetries ?? 2,
  };
  for (const [key, value] of Object.entries(policy)) {
    if (!Number.isFinite(value) || value < 0) throw new RangeError(`reconnect.${key} must be a non-negative finite number`);
  }
  return policy;
}

/** The wait before reconnection attempt number `failures` (0-based) when the server gave no `retry`. */
export function backoffDelay(policy: ReconnectPolicy, failures: number): number {
  return Math.min(policy.initialDelayMs * policy.growFactor ** failures, policy.maxDelayMs);
}

/** Default of {@link HttpClientCommonOptions.maxErrorBodyChars}. */
export const DEFAULT_MAX_ERROR_BODY_CHARS = 64 * 1024;

/** Default of {@link HttpClientCommonOptions.maxEventChars}. */
export const DEFAULT_MAX_MESSAGE_CHARS = 4 * 1024 * 1024;

/**
 * The fetch to use: the injected one, else the global one (throws TypeError when there is
 * none), wrapped by `auth` when given (see {@link HttpAuthorization}).
 */
export function resolveFetch(injected: typeof fetch | undefined, auth?: HttpAuthorization): typeof fetch {
  return auth ? auth.wrapFetch(baseFetch(injected)) : baseFetch(injected);
}

function baseFetch(injected: typeof fetch | undefined): typeof fetch {
  let base: typeof fetch;
  if (injected) base = injected;
  else if (typeof globalThis.fetch === 'function') base = globalThis.fetch.bind(globalThis);
  else throw new TypeError('No global fetch is available; pass options.fetch or options.requester');
  return base;
}

/**
 * Builds the headers of one request: `requestInit.headers`, then the custom headers on top.
 * Synchronous when the custom headers are a record; awaits the function otherwise. They are
 * a `Headers` when a fetch makes the request, and {@link PlainHeaders} when the transport
 * calls `options.requester` directly (no `auth` to wrap a fetch around it).
 */
export function baseHeaders(options: HttpClientCommonOptions): HeaderBag | Promise<HeaderBag> {
  const init = options.requestInit;
  const custom = options.headers;
  const plain = options.requester !== undefined && options.auth === undefined;
  if (typeof custom === 'function') {
    return Promise.resolve(custom()).then((extra) => applyHeaders(emptyHeaders(init, plain), extra));
  }
  return applyHeaders(emptyHeaders(init, plain), custom);
}

function emptyHeaders(init: RequestInit | undefined, plain: boolean): HeaderBag {
  if (!plain) return new Headers(init?.headers);
  const headers = new PlainHeaders();
  if (init?.headers !== undefined)
    new Headers(init.headers).forEach((value, name) => {
      headers.set(name, value);
    });
  return headers;
}

function applyHeaders(headers: HeaderBag, extra: Record<string, string> | undefined): HeaderBag {
  if (extra) for (const key of Object.keys(extra)) headers.set(key, extra[key]!);
  return headers;
}

/**
 * Headers as the transports and requesters read them: a `Headers` is one. `get` matches
 * names without regard to case and joins repeated fields with `, `; `forEach` hands out
 * lower-case names.
 */
export interface HeaderList {
  get(name: string): string | null;
  forEach(callback: (value: string, name: string) => void): void;
}

/** The headers of a request being built: a `Headers`, or {@link PlainHeaders} for a requester. */
export interface HeaderBag extends HeaderList {
  set(name: string, value: string): void;
}

/**
 * Request headers kept as plain strings, for a transport that hands them straight to an
 * {@link HttpRequester} (no `auth` in between): no `Headers` object, whose every call goes
 * through WebIDL conversion and validation, on a request's path. Names are stored lower
 * case; `set` replaces. Nothing is validated here: the requester checks names and values
 * before it sends (`nodeHttpRequester` refuses what is not a token, or holds CR, LF or NUL).
 */
export class PlainHeaders implements HeaderBag {
  /** Names (lower case) and values, alternating, in the order first set: a request has a handful, so no `Map`. */
  readonly #list: string[] = [];
  /**
   * What a requester worked out from these headers (the Node requester: their checked,
   * serialized lines), kept for the next request that carries the same object; `set`
   * clears it. The transports reuse one object while nothing changes (see streamable.ts).
   */
  memo: unknown = undefined;

  set(name: string, value: string): void {
    this.memo = undefined;
    const key = lowerCase(name);
    const list = this.#list;
    for (let i = 0; i < list.length; i += 2) {
      if (list[i] === key) {
        list[i + 1] = value;
        return;
      }
    }
    list.push(key, value);
  }

  get(name: string): string | null {
    const key = lowerCase(name);
    const list = this.#list;
    for (let i = 0; i < list.length; i += 2) if (list[i] === key) return list[i + 1]!;
    return null;
  }

  forEach(callback: (value: string, name: string) => void): void {
    const list = this.#list;
    for (let i = 0; i < list.length; i += 2) callback(list[i + 1]!, list[i]!);
  }
}

/** `name` lower-cased; itself (no new string) when it is lower-case ASCII already, as the transports' own names are. */
function lowerCase(name: string): string {
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if ((c >= 0x41 && c <= 0x5a) || c >= 0x80) return name.toLowerCase();
  }
  return name;
}

/**
 * One HTTP response as the client transports read it: the part of a fetch `Response` they
 * use, so a `Response` is one. It comes from `fetch` or from an {@link HttpRequester}
 * (which builds no `Response` and no web stream): a `body` that delivers the bytes in
 * order, and a `cancel` that stops reading and releases the connection.
 */
export interface ClientResponse {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  /** A fetch `Response`'s `Headers`, or a requester's own {@link HeaderList}. */
  readonly headers: HeaderList;
  readonly body: ChunkSource | null;
  readonly bodyUsed: boolean;
  /** `'opaqueredirect'` when a fetch hid a redirect; anything else is read as a plain response. */
  readonly type: string;
  /** True when the requester followed a redirect itself (the transports asked it not to). */
  readonly redirected: boolean;
  /** The URL the response came from ('' when unknown). */
  readonly url: string;
}

/** A response body: one reader, or a cancel without reading. A `ReadableStream<Uint8Array>` is one. */
export interface ChunkSource {
  getReader(): ChunkReader;
  cancel(reason?: unknown): Promise<void>;
}

/** One read of a {@link ChunkReader}: a chunk, or the end of the body. */
export type ChunkRead = { done: false; value: Uint8Array } | { done: true; value?: Uint8Array | undefined };

/** Reads a body chunk by chunk; `cancel` stops reading it. */
export interface ChunkReader {
  read(): Promise<ChunkRead>;
  cancel(reason?: unknown): Promise<void>;
}

/** The media type of a response (`text/event-stream`), lower-cased, without parameters; '' when absent. */
export function mediaType(response: ClientResponse): string {
  const value = response.headers.get('content-type');
  if (value === null) return '';
  if (value === 'application/json' || value === 'text/event-stream') return value;
  const semi = value.indexOf(';');
  return (semi < 0 ? value : value.slice(0, semi)).trim().toLowerCase();
}

/** Discards a response body without reading it. Never throws. */
export function discardBody(response: ClientResponse): void {
  if (response.body && !response.bodyUsed) response.body.cancel().catch(noop);
}

/** How {@link pump} ended. */
export type PumpEnd = 'end' | 'stopped' | 'aborted' | 'error';

/**
 * Reads `body` to its end, handing each chunk to `onChunk` (which returns false to stop
 * reading). Aborting `signal` cancels the read even when the `fetch` in use ignores signals
 * for bodies. Adds one listener to `signal` and removes it before returning. Never throws.
 */
export async function pump(body: ChunkSource, signal: AbortWatch, onChunk: (chunk: Uint8Array) => boolean): Promise<PumpEnd> {
  let reader: ChunkReader;
  try {
    reader = body.getReader();
  } catch {
    return 'error';
  }
  if (signal.aborted) {
    reader.cancel(signal.reason).catch(noop);
    return 'aborted';
  }
  const onAbort = () => {
    reader.cancel(signal.reason).catch(noop);
  };
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) return signal.aborted ? 'aborted' : 'end';
      if (!onChunk(next.value)) {
        reader.cancel().catch(noop);
        return 'stopped';
      }
    }
  } catch {
    return signal.aborted ? 'aborted' : 'error';
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** The outcome of {@link readText}. */
export interface TextBody {
  text: string;
  /** True when the body was longer than the bound: `text` holds only its beginning. */
  truncated: boolean;
  /** How reading ended. */
  end: PumpEnd;
}

/** Reads a whole body as UTF-8 text, stopping (and cancelling the body) past `maxChars`. Never throws. */
export async function readText(body: ChunkSource | null, maxChars: number, signal: AbortWatch): Promise<TextBody> {
  if (!body) return { text: '', truncated: false, end: 'end' };
  // A body that comes as one chunk (most JSON answers) is decoded once, by the shared
  // decoder, which keeps no stream state; a chunk decoder is made only when a second
  // chunk arrives (a character may be split between chunks) or the first is too long.
  let first: Uint8Array | undefined;
  let decoder: Utf8Chunks | undefined;
  let text = '';
  let truncated = false;
  const end = await pump(body, signal, (chunk) => {
    if (decoder !== undefined) text += decoder.decode(chunk);
    else if (first === undefined && chunk.length <= maxChars) {
      // no more characters than bytes: within the bound, whatever it decodes to
      first = chunk;
      return true;
    } else {
      decoder = new Utf8Chunks();
      text = first === undefined ? decoder.decode(chunk) : decoder.decode(first) + decoder.decode(chunk);
      first = undefined;
    }
    if (text.length > maxChars) {
      truncated = true;
      text = text.slice(0, maxChars);
      return false;
    }
    return true;
  });
  if (!truncated) {
    if (first !== undefined) text = WHOLE.decode(first);
    else if (decoder !== undefined) text += decoder.flush();
  }
  return { text, truncated, end };
}

/**
 * The key of an optional method of a {@link ChunkSource} (internal; the Node requester's
 * bodies have it): called before anything was read, with a bound in bytes, it returns the
 * whole body and marks it used when the body has ended, arrived unread and is no longer
 * than the bound; otherwise it returns undefined and the body is untouched. It lets a
 * transport read a complete answer without a reader, a promise per read or an abort listener.
 */
export const TAKE_WHOLE: unique symbol = Symbol('mcpkit.takeWhole');

/** A {@link ChunkSource} that may hand over its bytes at once (see {@link TAKE_WHOLE}). */
export interface WholeBody {
  [TAKE_WHOLE](maxBytes: number): Uint8Array | undefined;
}

/**
 * The text of `body` when it already arrived whole, unread and at most `maxChars` bytes long
 * (so within `maxChars` characters), decoded as {@link readText} decodes; undefined (and
 * nothing read) otherwise: then read it with {@link readText}. Never throws.
 */
export function wholeText(body: ChunkSource | null, maxChars: number): string | undefined {
  const take = (body as Partial<WholeBody> | null)?.[TAKE_WHOLE];
  if (take === undefined) return undefined;
  const bytes = take.call(body, maxChars);
  return bytes === undefined ? undefined : WHOLE.decode(bytes);
}

/** Decodes bodies that came whole (it keeps no stream state, so one serves every response). */
const WHOLE = new TextDecoder('utf-8');

/**
 * Cancellable waits. `sleep` resolves true after the delay (at most about 24.8 days, the
 * longest a timer holds), or false at once when `cancelAll` runs (on close). Holds nothing
 * once a wait is over.
 */
export class Waits {
  readonly #pending = new Set<{ timer: ReturnType<typeof setTimeout> | undefined; resolve: (elapsed: boolean) => void }>();
  #cancelled = false;

  /** Waits `ms` milliseconds; false when cancelled (also when already cancelled). */
  sleep(ms: number): Promise<boolean> {
    if (this.#cancelled) return Promise.resolve(false);
    return new Promise((resolve) => {
      const entry: { timer: ReturnType<typeof setTimeout> | undefined; resolve: (elapsed: boolean) => void } = { timer: undefined, resolve };
      entry.timer = setTimeout(
        () => {
          this.#pending.delete(entry);
          resolve(true);
        },
        Math.min(ms, MAX_TIMER_MS),
      );
      this.#pending.add(entry);
    });
  }

  /** Ends every wait (with false) and every later one. */
  cancelAll(): void {
    this.#cancelled = true;
    for (const entry of this.#pending) {
      clearTimeout(entry.timer);
      entry.resolve(false);
    }
    this.#pending.clear();
  }

  /** Number of waits in progress (for tests). */
  get size(): number {
    return this.#pending.size;
  }
}

/** The error of an operation cut short because the transport was closed. */
export function closedError(what = 'The HTTP transport is closed'): LocalError {
  return new LocalError('connection_closed', what);
}

/** A short, single-line excerpt of a response body for an error message. */
export function excerpt(text: string, max = 200): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? line.slice(0, max) + '…' : line;
}

/** True when `value` is a session id the spec allows: visible ASCII (0x21–0x7E) only. */
export function isValidSessionId(value: string): boolean {
  return /^[\x21-\x7e]+$/.test(value);
}

/** Does nothing (a shared callback for ignored promise rejections). */
export function noop(): void {}
