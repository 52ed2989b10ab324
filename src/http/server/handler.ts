/**
 * The Streamable HTTP server (2025-03-26 › Transports › Streamable HTTP, with the
 * `MCP-Protocol-Version` header of 2025-06-18 and SSE polling of SEP-1699), plus the
 * legacy HTTP+SSE endpoints of 2024-11-05 on request: the entry points, the checks every
 * request shares, and the choice of the path that serves it.
 *
 * Design notes:
 * - The handler works on {@link HttpRequest} / {@link HttpReply} descriptions; `fetch()` is
 *   the web-standard adapter (`Request` → `Response`, SSE through a `ReadableStream`) and
 *   `mcpkit/node`'s `toNodeListener()` is a direct Node adapter. Runtime-neutral.
 * - Shared checks, cheapest first, before any body is read: closed (503); Host and an
 *   absolute-form target's authority (400 malformed, 403 foreign; request-guard.ts); the
 *   authorizer's own routes (protected resource metadata, before the Origin check: public
 *   documents fetched cross-origin); Origin (403); authentication of every request to an
 *   MCP endpoint (401, the authorizer's; its auth info is the request's); path and method
 *   (404/405). A POST to the endpoint then passes post-checks.ts: Accept (406), media types
 *   and content coding (415), the session it names (404, before the body), the body under
 *   its limit (413), JSON (-32700), classification, the authorizer's refusal of any message
 *   (403). The body is parsed once, here: every path receives parsed values.
 * - Then one path serves it, each in its own file:
 *   - the stateless era (2026-07-28), chosen per POST: a body whose `_meta` names a
 *     protocol version, or an `MCP-Protocol-Version` header naming a stateless revision,
 *     goes to {@link StatelessPostHandler} (stateless/post.ts: each request by itself, no
 *     sessions), whichever 2025 mode the handler has;
 *   - otherwise the handler's 2025-era mode ({@link EndpointMode}), fixed by the
 *     `sessionless` option: `Mcp-Session-Id` sessions (session-path.ts; GET and DELETE
 *     too) or the sessionless mode (sessionless-post.ts: a throwaway session per POST);
 *   - `GET /sse` and `POST /messages` (legacy-endpoints.ts), when `legacySse` is on.
 * - Sessions of both kinds live in one {@link SessionRegistry} (session-registry.ts: caps,
 *   binding to principals, idle sweep). With authorization, every session is bound to the
 *   principal key of the request that created it (`sessionOwner`, by default the
 *   authorizer's): another principal's requests for it are answered like an unknown
 *   session (404), so a leaked id neither serves nor reveals it.
 */

import { toError } from '../../jsonrpc/errors.js';
import type { JSONObject } from '../../jsonrpc/types.js';
import { defaultErrorReporter } from '../../protocol/error-report.js';
import type { McpServer } from '../../server/server.js';
import { type CloseOptions, drainingReply, drainMsOf, drainSessions, readinessReply } from './drain.js';
import type { EndpointMode } from './endpoint-mode.js';
import { type EventStore, InMemoryEventStore } from './event-store.js';
import { LegacyEndpoints } from './legacy-endpoints.js';
import type { LegacyHost, LegacySseTransport } from './legacy-sse.js';
import { classifyPost, endpointPostRefusal, NOT_JSON, notJson, PostBody, parseJsonValue, readBody, refuseMessages } from './post-checks.js';
import { RefusalReport, type RequestRefusedError } from './refusal-report.js';
import { errorReply, internalErrorReply, TRANSPORT_ERROR } from './replies.js';
import { HOST_MALFORMED, HOST_OK, RequestGuard, targetAuthority, targetPath } from './request-guard.js';
import type { SessionDirectory } from './session-directory.js';
import { SessionPath } from './session-path.js';
import { SessionRegistry } from './session-registry.js';
import { type OutboundSeam, StreamableSessionTransport, type TransportHost } from './session-transport.js';
import { SessionlessPost } from './sessionless-post.js';
import { StatelessPostHandler, type StatelessPostOptions } from './stateless/post.js';
import type { HttpAuthorizer, HttpReply, HttpRequest, HttpRequestInfo } from './types.js';
import { describeReadRequest, toWebResponse } from './web.js';

/** Options of {@link createStreamableHttpHandler}. */
export interface StreamableHttpOptions {
  /** The server every session is connected to (`server.connect()` once per session). */
  server: McpServer;
  /** Path of the MCP endpoint. Default `/mcp`. */
  endpoint?: string;
  /**
   * How POSTs carrying requests are answered: `sse` (default) streams related messages and
   * then the response; `json` answers with the response alone, and messages related to the
   * request go to the session's GET stream instead (stored for it while none is open).
   */
  responseMode?: 'sse' | 'json';
  /**
   * The sessionless mode of the 2025 era (sessionless-post.ts): no `Mcp-Session-Id` is
   * issued, and each POST is served by a throwaway server connection put straight into the
   * initialized state at the revision of its `MCP-Protocol-Version` header (2025-03-26 when
   * absent). GET and DELETE get 405, nothing can be resumed, server → client requests cannot
   * work, and the legacy HTTP+SSE endpoints are off. Default false: `Mcp-Session-Id` sessions.
   *
   * Not the stateless era: that is the 2026-07-28 protocol revision (see `statelessEra`),
   * served beside either 2025 mode whenever the server serves it.
   */
  sessionless?: boolean;
  /**
   * @deprecated Renamed {@link StreamableHttpOptions.sessionless} (same meaning), so that
   * "stateless" names only the 2026-07-28 era. Setting both to different values throws
   * `TypeError`.
   */
  stateless?: boolean;
  /**
   * A session with no open stream and no request in flight (in either response mode) is
   * closed once this long has passed since its last request arrived or finished or its last
   * stream closed; later requests for it get 404. Default 30 min.
   */
  sessionIdleTimeoutMs?: number;
  /**
   * Most concurrent sessions (legacy ones included) this handler holds; beyond it initialize
   * gets 503 with `Retry-After`. Default 10 000. With `sessions` it bounds this instance's
   * cache of shared sessions instead: at the cap the least recently active idle session is
   * dropped from memory (it lives on in the directory), and 503 comes only when none is idle;
   * the directory has its own cap across instances.
   */
  maxSessions?: number;
  /**
   * Shares `Mcp-Session-Id` sessions between instances: each session is recorded there when
   * it is created (its id is handed out only once recorded), an instance serves requests of
   * sessions it does not hold by restoring them from their record (one directory read, then
   * held), writes `logging/setLevel` and `resources/(un)subscribe` through, and DELETE ends a
   * session everywhere (see session-directory.ts). The idle timeout is then the directory's
   * expiry, across instances. `mcpkit/redis`'s `RedisSessionDirectory` is one. Default: none
   * (sessions live only in this handler).
   */
  sessions?: SessionDirectory;
  /**
   * Most concurrent sessions (legacy ones included) one principal may hold when sessions are
   * bound to principals (under `authorize`, or with `sessionOwner`), so that one principal
   * cannot hold the whole `maxSessions` cap. At the limit, a new session of that principal
   * first closes its least recently active session that has no request in flight and no open
   * stream (later requests for it get 404); when every one is busy, initialize (or
   * `GET /sse`) gets 429 with `Retry-After`. Default 100.
   */
  maxSessionsPerPrincipal?: number;
  /**
   * Keeps SSE events for resumption with `Last-Event-ID`. Default: an {@link InMemoryEventStore}
   * shared by all sessions of this handler. `false`: no event ids, no priming event, no
   * resumption; messages for the GET stream are dropped while none is open.
   */
  eventStore?: EventStore | false;
  /** The `retry` field of priming events: how long a client waits before reconnecting, in ms. Default 1000. */
  retryMs?: number;
  /**
   * Allowed `Host` values, also checked against the authority of an absolute-form request
   * target (a malformed value gets 400, a foreign one 403); see {@link RequestGuard}.
   * Default: `localhost`, `127.0.0.1`, `[::1]`, any port.
   */
  allowedHosts?: readonly string[] | '*';
  /** Allowed `Origin` values; see {@link RequestGuard}. Default: those loopback names, http/https, any port. */
  allowedOrigins?: readonly string[] | '*';
  /** Largest accepted POST body in bytes; larger ones get 413. Default 4 MiB. */
  maxBodyBytes?: number;
  /**
   * A path answering GET with 200 while the handler takes work and 503 once it drains or is
   * closed (see `close({ drainMs })`), for a load balancer's readiness check. Default: none.
   */
  readinessPath?: string;
  /** Serve the GET stream (default true); false answers GET with 405. */
  enableGetStream?: boolean;
  /** Also serve the 2024-11-05 HTTP+SSE transport (`GET /sse`, `POST /messages`). Default false; ignored when `sessionless`. */
  legacySse?: boolean;
  /** Path of the legacy SSE endpoint. Default `/sse`. */
  legacySsePath?: string;
  /** Path of the legacy message endpoint (announced in the `endpoint` event). Default `/messages`. */
  legacyMessagesPath?: string;
  /**
   * The principal key sessions are bound to: called with the request's auth info when a
   * session is created and on every later request to it; a request whose key differs gets
   * the same 404 as an unknown session (2025-11-25 › Security Best Practices › Session
   * Hijacking: bind session ids to user-specific information). Default: with `authorize`,
   * the authorizer's own `sessionOwner` (`requireBearerAuth()`: issuer, subject and client
   * of the token); without `authorize`, sessions are not bound.
   *
   * With `authorize` set, a session is created only for a request whose key is defined:
   * when none can be derived (an authorizer without `sessionOwner` and no option here, or a
   * function returning `undefined`), initialize and `GET /sse` get 500 and the reason goes
   * to `onError` — a session nobody owns would be open to every principal.
   */
  sessionOwner?: (authInfo: unknown) => string | undefined;
  /**
   * Turns off the binding of sessions to principals under `authorize`: any authenticated
   * principal presenting a session id is served inside that session, may take its GET
   * stream, DELETE it, or POST to a legacy session (whose id travels in URLs). Only for a
   * deployment where every principal may act for every other. Cannot be combined with
   * `sessionOwner` (TypeError). Default false.
   */
  dangerouslyShareSessionsAcrossPrincipals?: boolean;
  /**
   * Authorization (`mcpkit/auth`'s `requireBearerAuth()` builds it): authenticates every
   * request to the MCP endpoints before anything else (401 replies come from it), may refuse
   * parsed messages (403), and serves its own routes (protected resource metadata). Its auth
   * info replaces the adapter's `authInfo`. Default: none (requests are not authenticated here).
   */
  authorize?: HttpAuthorizer;
  /**
   * The stateless era (2026-07-28) on this endpoint, beside the 2025 era: POSTs whose body
   * claims it (or whose `MCP-Protocol-Version` names it) are served per request, without
   * sessions (see stateless/post.ts), whether the 2025 era has sessions or is `sessionless`.
   * On by default when the server serves that era (`ServerOptions.stateless`); `false` leaves
   * such POSTs to the 2025-era path. Its limits: `maxInFlight` (default 100 000 requests in
   * progress; more get 503) and `keepAliveMs` (default 15 000).
   */
  statelessEra?: StatelessPostOptions | false;
  /**
   * Receives transport problems no client is told about (store failures, unroutable
   * messages), and a {@link RequestRefusedError} for the first request refused with each
   * distinct foreign `Host` or `Origin` (at most 64 values of each, then one note), naming
   * the value and the option that admits it. Default: one line per error on stderr
   * (`MCPKIT_DEBUG` adds the stack); pass `() => {}` to drop them.
   */
  onError?: (error: Error) => void;
}

/** The `sessionless` option, or its deprecated alias `stateless`; `TypeError` when they contradict each other. */
function sessionlessOf(options: StreamableHttpOptions): boolean {
  const { sessionless, stateless } = options;
  if (sessionless !== undefined && stateless !== undefined && sessionless !== stateless) {
    throw new TypeError('sessionless and its deprecated alias stateless contradict each other');
  }
  return sessionless ?? stateless ?? false;
}

/** The authorizer's principal key function, bound to it; undefined without one. */
function ownerKeyOf(authorizer: HttpAuthorizer | undefined): ((authInfo: unknown) => string | undefined) | undefined {
  const key = authorizer?.sessionOwner;
  return key === undefined ? undefined : (authInfo) => key.call(authorizer, authInfo);
}

/** The reply to a request whose Host or target is malformed (RFC 9112 § 3.2). */
const HOST_MALFORMED_REPLY_TEXT = 'Bad Request: malformed Host header or request target';

// The entries of a handler for mcpkit's own Node adapter (node-server.ts), which writes a
// reply as soon as there is one; not exported by the package. Set by the class's static block.

/**
 * {@link StreamableHttpHandler.handle} without its promise: a reply ready at once is returned
 * as it is, else a promise of it (kept: instructions rows `json mcpkit` +2.6 % and `json mcpkit-2026` +2.7 % without it; see `#route`). Never throws; a promise it returns may reject, with a
 * failure of mcpkit's own: answer it with {@link internalError}, as `handle` does.
 */
export let handleNow: (handler: StreamableHttpHandler, request: HttpRequest, info?: HttpRequestInfo) => HttpReply | Promise<HttpReply>;

/**
 * {@link handleNow} for an adapter that can pass a request on (a framework's middleware
 * chain): a request for none of the handler's paths — not the MCP endpoint or a legacy
 * endpoint, and not answered by the authorizer's routes (which are asked only for an allowed
 * Host while the handler is open) — gets `undefined` instead of 404 (or the 403 of a foreign
 * Host): it is the application's. Nothing of such a request's body is read. Never rejects.
 */
export let handleOwn: (handler: StreamableHttpHandler, request: HttpRequest, info?: HttpRequestInfo) => Promise<HttpReply | undefined>;

/** True when `path` is the handler's MCP endpoint or, with `legacySse`, a legacy endpoint. */
export let ownsPath: (handler: StreamableHttpHandler, path: string) => boolean;

/** The 500 for a failure of mcpkit's own; the error goes to the handler's `onError`. */
export function internalError(handler: StreamableHttpHandler, error: unknown): HttpReply {
  handler.reportError(toError(error));
  return internalErrorReply();
}

/**
 * A Streamable HTTP handler: the web-standard entry point {@link fetch}, the
 * adapter-neutral {@link handle}, and {@link close}. Create it with
 * {@link createStreamableHttpHandler}. Safe for any number of concurrent requests.
 */
export class StreamableHttpHandler implements TransportHost, LegacyHost {
  /** Path of the MCP endpoint. */
  readonly endpoint: string;
  /** Largest accepted POST body in bytes (adapters may pre-check `Content-Length` with it). */
  readonly maxBodyBytes: number;
  /** @internal */
  readonly store: EventStore | undefined;
  /** @internal */
  readonly retryMs: number;
  readonly #guard: RequestGuard;
  readonly #authorizer: HttpAuthorizer | undefined;
  readonly #registry: SessionRegistry;
  /** The 2025-era mode of the endpoint: sessions, or sessionless. */
  readonly #mode2025: EndpointMode;
  /** The stateless era's POSTs; undefined when the server does not serve that era. */
  readonly #era2026: StatelessPostHandler | undefined = undefined;
  /** The legacy HTTP+SSE endpoints; undefined unless `legacySse` (never in the sessionless mode). */
  readonly #legacy: LegacyEndpoints | undefined = undefined;
  readonly #onError: ((error: Error) => void) | undefined;
  /** Reports the first refusal of each foreign Host and Origin (refusal-report.ts). */
  readonly #refusals = new RefusalReport((error) => this.reportError(error));
  readonly #readinessPath: string | undefined;
  #closed = false;
  /** `close({ drainMs })` runs: no new work is taken (drain.ts). */
  #draining = false;
  #closing: Promise<void> | undefined = undefined;

  /** Throws `RangeError` for an invalid limit and `TypeError` for an invalid host or origin entry or contradictory options. */
  constructor(options: StreamableHttpOptions) {
    const server = options.server;
    this.endpoint = options.endpoint ?? '/mcp';
    const mode = options.responseMode ?? 'sse';
    const sessionless = sessionlessOf(options);
    const idleMs = options.sessionIdleTimeoutMs ?? 30 * 60_000;
    const maxSessions = options.maxSessions ?? 10_000;
    const maxPerPrincipal = options.maxSessionsPerPrincipal ?? 100;
    this.store = options.eventStore === false ? undefined : (options.eventStore ?? new InMemoryEventStore());
    this.retryMs = options.retryMs ?? 1000;
    this.maxBodyBytes = options.maxBodyBytes ?? 4 * 1024 * 1024;
    this.#guard = new RequestGuard(options.allowedHosts, options.allowedOrigins);
    this.#authorizer = options.authorize;
    const share = options.dangerouslyShareSessionsAcrossPrincipals === true;
    if (share && options.sessionOwner !== undefined) throw new TypeError('sessionOwner and dangerouslyShareSessionsAcrossPrincipals contradict each other');
    this.#onError = options.onError ?? defaultErrorReporter('http');
    this.#readinessPath = options.readinessPath;
    if (!(idleMs > 0)) throw new RangeError('sessionIdleTimeoutMs must be positive');
    if (!(maxSessions >= 1)) throw new RangeError('maxSessions must be at least 1');
    if (!(maxPerPrincipal >= 1)) throw new RangeError('maxSessionsPerPrincipal must be at least 1');
    if (!(this.maxBodyBytes >= 1)) throw new RangeError('maxBodyBytes must be at least 1');
    if (!Number.isInteger(this.retryMs) || this.retryMs < 0) throw new RangeError('retryMs must be a non-negative integer');
    if (mode !== 'sse' && mode !== 'json') throw new RangeError(`Unknown responseMode ${String(mode)}`);
    this.#registry = new SessionRegistry({
      idleMs,
      maxSessions,
      maxPerPrincipal,
      sessionOwner: share ? undefined : (options.sessionOwner ?? ownerKeyOf(this.#authorizer)),
      ownerRequired: this.#authorizer !== undefined && !share,
      reportError: (error) => this.reportError(error),
      directory: sessionless ? undefined : options.sessions,
    });
    this.#mode2025 = sessionless
      ? new SessionlessPost(server, this, mode)
      : new SessionPath(server, this, this.#registry, { mode, enableGet: options.enableGetStream ?? true, directory: options.sessions, idleMs });
    if (options.statelessEra !== false && server.statelessRevisions.length > 0) {
      this.#era2026 = new StatelessPostHandler(server, this, { responseMode: mode, ...options.statelessEra });
    }
    if (options.legacySse === true && !sessionless) {
      this.#legacy = new LegacyEndpoints(server, this, this.#registry, {
        ssePath: options.legacySsePath ?? '/sse',
        messagesPath: options.legacyMessagesPath ?? '/messages',
        maxBodyBytes: this.maxBodyBytes,
        authorizer: this.#authorizer,
        draining: () => this.#draining,
      });
    }
  }

  /** Open sessions (Streamable HTTP and legacy SSE). */
  get sessionCount(): number {
    return this.#registry.count;
  }

  /**
   * The web-standard entry point: answers one `Request`. Never rejects (internal failures
   * become 500 replies reported to `onError`). `info.authInfo` reaches handlers as `ctx.authInfo`.
   */
  fetch(request: Request, info?: HttpRequestInfo): Promise<Response> {
    try {
      // The Request URL is absolute: its authority is the target's (a runtime puts an
      // absolute-form target there, RFC 9112 § 3.2.2), so it is checked like Host. The
      // description handed on keeps the origin-form path, as routes and authorizers expect.
      const host = request.headers.get('host');
      const url = request.url;
      const verdict = this.#guard.check(host, url);
      if (verdict !== HOST_OK) return Promise.resolve(toWebResponse(this.#hostRefusal(verdict, host, url)));
      // not an async function: the reply's own promise (if it waited) is followed once
      const routed = this.#handleNow(describeReadRequest(request, host, url), info);
      if (!(routed instanceof Promise)) return Promise.resolve(toWebResponse(routed, this.#webOutbound));
      return routed.then(this.#respond, this.#respondFailed);
    } catch (error) {
      return Promise.resolve(toWebResponse(internalError(this, error)));
    }
  }

  /** A reply into a `Response` (bound once, not per request). */
  readonly #respond = (reply: HttpReply): Response => toWebResponse(reply, this.#webOutbound);
  readonly #respondFailed = (error: unknown): Response => toWebResponse(internalError(this, error));

  /**
   * The adapter-neutral entry point: answers one request description. Never rejects.
   * Called by runtime adapters (`fetch`, `mcpkit/node`).
   */
  handle(request: HttpRequest, info?: HttpRequestInfo): Promise<HttpReply> {
    // not an async function: a reply that waited already is a promise, followed once
    const routed = this.#handleNow(request, info);
    return routed instanceof Promise ? routed.then(undefined, (error: unknown) => internalError(this, error)) : Promise.resolve(routed);
  }

  static {
    handleNow = (handler, request, info) => handler.#handleNow(request, info);
    handleOwn = (handler, request, info) => handler.#handleOwn(request, info);
    ownsPath = (handler, path) => handler.#ownsPath(path);
  }

  /** See {@link handleNow}. */
  #handleNow(request: HttpRequest, info: HttpRequestInfo | undefined): HttpReply | Promise<HttpReply> {
    try {
      return this.#route(request, info);
    } catch (error) {
      return internalError(this, error);
    }
  }

  /** See {@link handleOwn}. */
  async #handleOwn(request: HttpRequest, info: HttpRequestInfo | undefined): Promise<HttpReply | undefined> {
    try {
      if (this.#ownsPath(targetPath(request.url))) return await this.#route(request, info);
      const route = this.#authorizer?.route;
      if (route === undefined || this.#closed || this.#guard.check(request.headers('host'), request.url) !== HOST_OK) return undefined;
      return await route.call(this.#authorizer, request);
    } catch (error) {
      return internalError(this, error);
    }
  }

  /** True when `path` is the MCP endpoint or, with `legacySse`, a legacy endpoint. */
  #ownsPath(path: string): boolean {
    return path === this.endpoint || this.#legacy?.serves(path) === true;
  }

  /**
   * Closes every session (their streams end) and refuses later requests with 503.
   * Idempotent (a second call resolves with the first). With `drainMs` (see drain.ts) it
   * first drains: no new sessions, requests or GET streams (503 with `Retry-After`, the
   * readiness route unready), GET streams ended so their clients resume elsewhere, running
   * requests given up to `drainMs` to finish and then answered with an error; stored events
   * of a shared event store are left for resumptions on other instances. Rejects with
   * RangeError for a negative or non-finite `drainMs`.
   */
  close(options?: CloseOptions): Promise<void> {
    let drainMs: number;
    try {
      drainMs = drainMsOf(options);
    } catch (error) {
      return Promise.reject(error);
    }
    return (this.#closing ??= this.#shutDown(drainMs));
  }

  /** True while the handler takes new work (not draining, not closed). */
  get ready(): boolean {
    return !this.#draining && !this.#closed;
  }

  async #shutDown(drainMs: number): Promise<void> {
    if (drainMs > 0) {
      this.#draining = true;
      await drainSessions(() => this.#registry.heldSessions(), drainMs);
    }
    this.#closed = true;
    this.#mode2025.close?.();
    await Promise.all([this.#registry.close(), this.#era2026?.close()]);
  }

  // ───────────── hosts of the transports ─────────────

  /**
   * @internal The outbound budget of the Node listener serving this handler (`toNodeListener`
   * sets it; the latest listener's when several serve it), and where its refusals go: a
   * response that would not fit is refused before it is serialized.
   */
  _outbound: OutboundSeam | undefined = undefined;

  /** The web path's outbound options: a reader cut for not reading is reported through `onError`. */
  readonly #webOutbound = { onError: (error: Error) => this.reportError(error) };

  /** Hands a problem no client is told about to `onError` (runtime adapters use it too). Never throws. */
  reportError(error: Error): void {
    try {
      this.#onError?.(error);
    } catch {
      // an error reporter that throws must not break the transport
    }
  }

  /** @internal */
  released(transport: StreamableSessionTransport): void {
    this.#registry.released(transport);
  }

  /** @internal */
  releasedLegacy(transport: LegacySseTransport): void {
    this.#registry.releasedLegacy(transport);
  }

  // ───────────── the shared checks and the choice of path ─────────────

  /**
   * The shared checks and the choice of path. Returns the reply itself when no step had to
   * wait (the common POST waits only for its body and its answer, inside the path), so a
   * request passes through no more promises than it needs (see `handle`).
   *
   * Kept for the instruction count (CONTRIBUTING.md, the rule for contortions): this chain,
   * `readBody`, `StatelessPostHandler.post`, `Exchange.reply` and the Node adapter's
   * `dispatch` answer with a reply or a promise of one. Made async all the way (the adapter
   * on `handle()`), instructions rows `json mcpkit` +2.6 % and `json mcpkit-2026` +2.7 % (scripts/bench-compare.mjs,
   * 3,000 warm-up and 3,000 counted calls, 2026-12-07).
   */
  #route(req: HttpRequest, info: HttpRequestInfo | undefined): HttpReply | Promise<HttpReply> {
    if (this.#closed) return errorReply(503, TRANSPORT_ERROR, 'Service Unavailable: the server is shutting down');
    const host = req.headers('host');
    const hostVerdict = this.#guard.check(host, req.url);
    if (hostVerdict !== HOST_OK) return this.#hostRefusal(hostVerdict, host, req.url);
    const path = targetPath(req.url);
    if (path === this.#readinessPath && req.method === 'GET') return readinessReply(this.ready);
    if (this.#draining && req.method === 'GET') return drainingReply();
    const mcp = path === this.endpoint;
    const legacy = !mcp && this.#legacy?.serves(path) === true;
    if (!mcp && !legacy && this.#authorizer?.route !== undefined) return this.#routeOwn(req, info, path);
    return this.#routeEndpoint(req, info, path, mcp, legacy);
  }

  /** A path outside the MCP endpoints that the authorizer may serve (its metadata routes); else on as any other path. */
  async #routeOwn(req: HttpRequest, info: HttpRequestInfo | undefined, path: string): Promise<HttpReply> {
    const routed = await this.#authorizer!.route!(req);
    return routed ?? this.#routeEndpoint(req, info, path, false, false);
  }

  /**
   * The reply to a request the guard refused: 400 for a malformed Host or target (RFC 9112
   * § 3.2), else 403, whose refused value (Host, or the absolute-form target's authority) is
   * reported once (refusal-report.ts).
   */
  #hostRefusal(verdict: number, host: string | null, target: string): HttpReply {
    if (verdict === HOST_MALFORMED) return errorReply(400, TRANSPORT_ERROR, HOST_MALFORMED_REPLY_TEXT);
    // the target's authority was refused when the Host beside it (if any) passes alone
    const fromTarget = host === null || this.#guard.check(host, '/') === HOST_OK;
    this.#refusals.refused('host', fromTarget ? targetAuthority(target) : host, fromTarget);
    return errorReply(403, TRANSPORT_ERROR, 'Forbidden: Host not allowed (the server operator can admit it in allowedHosts)');
  }

  #routeEndpoint(req: HttpRequest, info: HttpRequestInfo | undefined, path: string, mcp: boolean, legacy: boolean): HttpReply | Promise<HttpReply> {
    const origin = req.headers('origin');
    if (!this.#guard.originAllowed(origin)) {
      this.#refusals.refused('origin', origin!);
      return errorReply(403, TRANSPORT_ERROR, 'Forbidden: Origin not allowed (the server operator can admit it in allowedOrigins)');
    }
    if (this.#authorizer !== undefined && (mcp || legacy) && req.method !== 'OPTIONS') return this.#authenticated(req, info, path, mcp, legacy);
    return this.#serve(req, info, path, mcp, legacy);
  }

  /** Authenticates a request to an MCP endpoint, then serves it with the authorizer's auth info. */
  async #authenticated(req: HttpRequest, info: HttpRequestInfo | undefined, path: string, mcp: boolean, legacy: boolean): Promise<HttpReply> {
    const result = await this.#authorizer!.authenticate(req);
    if (result.reply !== undefined) return result.reply;
    return this.#serve(req, { ...info, authInfo: result.authInfo }, path, mcp, legacy);
  }

  #serve(req: HttpRequest, info: HttpRequestInfo | undefined, path: string, mcp: boolean, legacy: boolean): HttpReply | Promise<HttpReply> {
    if (legacy) return this.#legacy!.handle(req, path, info);
    if (!mcp) return errorReply(404, TRANSPORT_ERROR, 'Not Found');
    switch (req.method) {
      case 'POST':
        return this.#post(req, info);
      case 'GET':
        return this.#mode2025.get(req, info);
      case 'DELETE':
        return this.#mode2025.delete(req, info);
      default:
        return errorReply(405, TRANSPORT_ERROR, 'Method Not Allowed', { allow: this.#mode2025.allow });
    }
  }

  /** A POST to the MCP endpoint: the shared POST checks, then the stateless era or the 2025-era mode. */
  #post(req: HttpRequest, info: HttpRequestInfo | undefined): HttpReply | Promise<HttpReply> {
    const refusedHeaders = endpointPostRefusal(req);
    if (refusedHeaders !== undefined) return refusedHeaders;
    const versionHeader = req.headers('mcp-protocol-version');
    // a POST whose MCP-Protocol-Version names a stateless revision has no session (any id is ignored)
    const byHeader = this.#era2026?.claimedByHeader(versionHeader) === true;
    const named = byHeader ? undefined : this.#mode2025.sessionOf(req, info);
    if (named instanceof Promise) return named.then((session) => this.#postIn(req, info, versionHeader, byHeader, session));
    return this.#postIn(req, info, versionHeader, byHeader, named);
  }

  /** The POST once its named session (if any) is known: its body is read, then parsed at once. */
  #postIn(
    req: HttpRequest,
    info: HttpRequestInfo | undefined,
    versionHeader: string | null,
    byHeader: boolean,
    session: StreamableSessionTransport | HttpReply | undefined,
  ): HttpReply | Promise<HttpReply> {
    if (session !== undefined && !(session instanceof StreamableSessionTransport)) return session;
    // one wait for the body (none when the adapter holds it as text), then a synchronous parse
    return readBody(req, this.maxBodyBytes, (text) => this.#postBody(req, info, versionHeader, byHeader, session, text));
  }

  #postBody(
    req: HttpRequest,
    info: HttpRequestInfo | undefined,
    versionHeader: string | null,
    byHeader: boolean,
    session: StreamableSessionTransport | undefined,
    text: string,
  ): HttpReply | Promise<HttpReply> {
    const value = parseJsonValue(text);
    if (value === NOT_JSON) return notJson();
    const era2026 = this.#era2026;
    // one message the stateless era claims goes there as it is (no batch bookkeeping)
    if (era2026 !== undefined && !Array.isArray(value) && era2026.claims(value, byHeader)) {
      if (this.#draining) return drainingReply();
      return era2026.post(req, info, value as JSONObject, versionHeader, this.#authorizer);
    }
    const body = classifyPost(value);
    if (!(body instanceof PostBody)) return body;
    const refused = refuseMessages(this.#authorizer, body.value, info);
    if (refused !== undefined) return refused;
    // draining: answers and notifications for running work still pass, new work does not
    if (this.#draining && (body.ids.length > 0 || body.initialize)) return drainingReply();
    return this.#mode2025.post(req, info, body, versionHeader, session);
  }
}

/**
 * Creates a Streamable HTTP handler serving `options.server`. Throws `RangeError` for an
 * invalid limit, `TypeError` for an invalid `allowedHosts` or `allowedOrigins` entry or
 * contradictory options. See
 * {@link StreamableHttpHandler} for the entry points and {@link StreamableHttpOptions} for
 * the defaults.
 */
export function createStreamableHttpHandler(options: StreamableHttpOptions): StreamableHttpHandler {
  return new StreamableHttpHandler(options);
}
