/**
 * The shapes that pass between the Streamable HTTP core and its runtime adapters.
 *
 * Design note: the core neither sees a web `Request` nor a Node `IncomingMessage`. An
 * adapter describes the request with {@link HttpRequest} (a header lookup function and a
 * body the core reads only once the cheap checks — Host, Origin, method, media types,
 * session — have passed) and turns the {@link HttpReply} back into its own response type.
 * Plain replies carry their whole body as text; streaming replies carry an
 * {@link SseReplyStream} the adapter connects to its output with `attach()`.
 * Runtime-neutral: no `node:*` imports.
 */

/**
 * Reads a request body of at most `maxBytes` bytes as UTF-8 text. Supplied by adapters.
 * Rejects with `LocalError('message_too_large')` as soon as the limit is crossed (an adapter
 * stops reading at that point), or with any other error when the body cannot be read.
 * Called at most once per request.
 */
export type BodyReader = (maxBytes: number) => Promise<string>;

/** One HTTP request, as an adapter describes it to the core. */
export interface HttpRequest {
  /** The HTTP method, upper case (`POST`, `GET`, `DELETE`, …). */
  readonly method: string;
  /** Path and query of the request target (`/mcp?x=1`); an absolute URL is accepted too. */
  readonly url: string;
  /** Header lookup by lower-case name; `null` when absent. Repeated headers joined with `, `. */
  readonly headers: (name: string) => string | null;
  /**
   * The body: text already read (and size-checked by the adapter), a {@link BodyReader} the
   * core calls once its header checks have passed, or `undefined` for no body.
   */
  readonly body?: string | BodyReader | undefined;
  /**
   * The runtime's own header object, passed through to handlers as `ctx.info.request.headers`.
   * Optional; never read by the core.
   */
  readonly rawHeaders?: Headers | Record<string, string | string[] | undefined>;
}

/** What an adapter knows about the sender beyond the request itself. */
export interface HttpRequestInfo {
  /**
   * Verified authorization information (from an auth middleware in front of the handler).
   * Handed to handlers as `ctx.authInfo`; its principal key is compared with the session's
   * owner when sessions are bound (`sessionOwner`, or by default under `authorize`).
   */
  authInfo?: unknown;
}

/** Response headers: lower-case names, one value each. */
export type HttpHeaders = Readonly<Record<string, string>>;

/** A reply whose body is complete (or absent). */
export interface HttpPlainReply {
  readonly status: number;
  readonly headers: HttpHeaders;
  /** The body text (UTF-8 on the wire); absent for 202, 204 and similar. */
  readonly body?: string;
  readonly stream?: undefined;
}

/** A Server-Sent Events reply: the adapter writes the head, then pipes `stream`. */
export interface HttpStreamReply {
  readonly status: number;
  readonly headers: HttpHeaders;
  readonly body?: undefined;
  readonly stream: SseReplyStream;
}

/** The core's answer to one request. */
export type HttpReply = HttpPlainReply | HttpStreamReply;

/**
 * The output an adapter supplies for a streaming reply. Both methods must not throw; once
 * the client is gone an adapter may ignore writes (it reports the loss through
 * {@link SseReplyStream.disconnected}).
 */
export interface SseSink {
  /** Writes encoded SSE text (one or more complete events). */
  write(text: string): void;
  /** Ends the response. Called once; no write follows. */
  end(): void;
}

/**
 * The core's side of a streaming reply, handed to the adapter inside an {@link HttpStreamReply}.
 * Text written before `attach()` is buffered and flushed by it.
 */
export interface SseReplyStream {
  /**
   * Connects the adapter's output: buffered text is written at once, then every later
   * event as it is produced; `sink.end()` is called when the core ends the stream (perhaps
   * at once, when it ended before the attach). Call once.
   */
  attach(sink: SseSink): void;
  /**
   * The adapter reports that the client went away (connection closed, stream cancelled,
   * consumer too slow). `reason` is set when the adapter itself cut the client — a
   * `SlowReaderError` (code `slow_reader`) for one that did not read — and absent when the
   * client left. Idempotent; does not throw. A disconnect is not a cancellation:
   * the requests of the stream keep running and their messages stay available for
   * resumption with `Last-Event-ID`.
   */
  disconnected(reason?: Error): void;
}

/**
 * The authorization hook of the Streamable HTTP handler (its `authorize` option). `mcpkit/auth`
 * builds one with `requireBearerAuth()`; any object of this shape works. The handler calls it;
 * its methods must not throw (a throw becomes a 500 reply reported to `onError`).
 */
export interface HttpAuthorizer {
  /**
   * Serves a request for a path that is not an MCP endpoint (e.g. the protected resource
   * metadata under `/.well-known/`). Called after the `Host` check and before the `Origin`
   * check (metadata is public and fetched cross-origin by browser clients). `undefined` lets
   * the handler answer (404).
   */
  route?(req: HttpRequest): HttpReply | undefined | Promise<HttpReply | undefined>;
  /**
   * Authenticates a request to an MCP endpoint (Streamable HTTP and legacy HTTP+SSE; not
   * `OPTIONS`, which carries no credentials), after the `Host` and `Origin` checks and before
   * any other check or the body is read. Resolves with
   * the verified auth info — it replaces any `authInfo` the adapter supplied, reaches handlers
   * as `ctx.authInfo`, and is what `sessionOwner` sees — or with a reply to send instead (401).
   */
  authenticate(req: HttpRequest): Promise<HttpAuthResult>;
  /**
   * Checks one parsed JSON-RPC message of an authenticated POST (each element of a batch)
   * before anything of the POST is delivered; a reply (403 `insufficient_scope`) refuses the
   * whole POST. Optional.
   */
  authorizeMessage?(message: unknown, authInfo: unknown): HttpReply | undefined;
  /**
   * The principal key of verified auth info (the same key for every token of one principal,
   * different keys for different principals), or `undefined` when none can be derived. The
   * handler binds every session to the key of the request that created it and answers 404
   * to requests with another key. Optional: an authorizer without it leaves the handler
   * unable to bind sessions, so it refuses to create them unless the handler is given its
   * own `sessionOwner` (or is told to share sessions across principals). Must not throw.
   */
  sessionOwner?(authInfo: unknown): string | undefined;
}

/** What {@link HttpAuthorizer.authenticate} resolves with: auth info, or the refusal to send. */
export type HttpAuthResult = { readonly authInfo: unknown; readonly reply?: undefined } | { readonly reply: HttpReply; readonly authInfo?: undefined };
