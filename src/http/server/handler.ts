/**
 * The Streamable HTTP server (2025-03-26 › Transports › Streamable HTTP, with the
 * `MCP-Protocol-Version` header of 2025-06-18 and SSE polling of SEP-1699), plus the
 * legacy HTTP+SSE endpoints of 2024-11-05 on request.
 *
 * Design notes:
 * - The handler works on {@link HttpRequest} / {@link HttpReply} descriptions; `fetch()` is
 *   the web-standard adapter (`Request` → `Response`, SSE through a `ReadableStream`) and
 *   `mcpkit/node`'s `toNodeListener()` is a direct Node adapter. Runtime-neutral.
 * - Checks run cheapest first, before the body is read: Host and an absolute-form target's
 *   authority (400 malformed, 403 foreign), Origin (403), route and method (404/405), media
 *   types and content coding (406/415), session (404). The body is read only then,
 *   with the size limit (413), and parsed once here: the session receives parsed values.
 * - Authorization is a hook (`authorize`, an {@link HttpAuthorizer}; `mcpkit/auth` builds
 *   one): after the Host check it may serve paths outside the MCP endpoints (protected
 *   resource metadata, before the Origin check: public documents fetched cross-origin);
 *   after the Origin check it authenticates every request to an MCP endpoint before any
 *   other check (401), and its auth info is the request's; once a POST is parsed it may
 *   refuse any of its messages (403) before anything is delivered. With it, every session
 *   (legacy ones too) is bound to the principal key of the request that created it
 *   (`sessionOwner`, by default the authorizer's): another principal's requests for it are
 *   answered like an unknown session (404), so a leaked id neither serves nor reveals it.
 * - One {@link StreamableSessionTransport} per session, handed to `server.connect()`: the
 *   one McpServer serves every session. The initialize request is always answered as JSON
 *   (whatever `responseMode` says) so that a failed initialization creates no session.
 * - Session caps: `maxSessions` for the server (503), and under bound sessions
 *   `maxSessionsPerPrincipal` per principal (its oldest quiet session makes room, else 429),
 *   so one principal cannot hold the whole cap. Unbound sessions (no authorization) have
 *   only the global cap: any client can fill it.
 * - Idle sessions are reaped by one shared interval timer (unref'd, running only while
 *   sessions exist), not a timer per session. A session with a request in flight is never
 *   idle; its idle time counts from when the last request finished or stream closed.
 * - The stateless era (2026-07-28) shares the URL, chosen per POST: a body whose `_meta`
 *   names a protocol version, or an `MCP-Protocol-Version` header naming a stateless
 *   revision, goes to {@link StatelessPostHandler} (stateless-post.ts: header checks, one
 *   shared transport for every client, no sessions); everything else takes the paths below.
 * - Stateless mode: every POST gets a throwaway transport and server session, put straight
 *   into the initialized state at the revision of its `MCP-Protocol-Version` header (or
 *   2025-03-26 when absent). No session ids, no GET stream, no resumption; server → client
 *   requests cannot work there (their answers would reach another throwaway session).
 */
import { defaultErrorReporter } from '../../protocol/error-report.js';
import { classify, describeInvalid, KIND_INVALID, KIND_REQUEST } from '../../jsonrpc/decode.js';
import { LocalError, toError } from '../../jsonrpc/errors.js';
import { ErrorCode, type JSONObject, type RequestId } from '../../jsonrpc/types.js';
import { StatelessPostHandler, type StatelessPostOptions } from './stateless-post.js';
import { tableFor } from '../../protocol/table.js';
import { V2025_03_26 } from '../../protocol/versions.js';
import type { McpServer } from '../../server/server.js';
import type { ServerSession } from '../../server/server-session.js';
import { InMemoryEventStore, type EventStore } from './event-store.js';
import { LegacySseTransport, type LegacyHost } from './legacy-sse.js';
import { emptyReply, errorReply, jsonReply, sseReply, SESSION_NOT_FOUND, TRANSPORT_ERROR } from './replies.js';
import { hasContentCoding, HOST_MALFORMED, HOST_OK, RequestGuard, targetPath } from './request-guard.js';
import { HttpMessageInfo, StreamableSessionTransport, type TransportHost } from './session-transport.js';
import type { HttpAuthorizer, HttpReply, HttpRequest, HttpRequestInfo } from './types.js';
import { describeWebRequest, toWebResponse } from './web.js';

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
  /** No sessions: each POST is served by a fresh server session (see the module note). Default false. */
  stateless?: boolean;
  /**
   * A session with no open stream and no request in flight (in either response mode) is
   * closed once this long has passed since its last request arrived or finished or its last
   * stream closed; later requests for it get 404. Default 30 min.
   */
  sessionIdleTimeoutMs?: number;
  /** Most concurrent sessions (legacy ones included); beyond it initialize gets 503 with `Retry-After`. Default 10 000. */
  maxSessions?: number;
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
  /** Serve the GET stream (default true); false answers GET with 405. */
  enableGetStream?: boolean;
  /** Also serve the 2024-11-05 HTTP+SSE transport (`GET /sse`, `POST /messages`). Default false. */
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
   * sessions (see stateless-post.ts). On by default when the server serves that era;
   * `false` leaves such POSTs to the 2025-era path.
   */
  statelessEra?: StatelessPostOptions | false;
  /**
   * Receives transport problems no client is told about (store failures, unroutable
   * messages). Default: one line per error on stderr (`MCPKIT_DEBUG` adds the stack); pass
   * `() => {}` to drop them.
   */
  onError?: (error: Error) => void;
}

/** {@link StreamableHttpHandler}'s verdict on a session that must be bound to a principal but cannot be. */
const UNBINDABLE: unique symbol = Symbol('unbindable');

/** The authorizer's principal key function, bound to it; undefined without one. */
function ownerKeyOf(authorizer: HttpAuthorizer | undefined): ((authInfo: unknown) => string | undefined) | undefined {
  const key = authorizer?.sessionOwner;
  return key === undefined ? undefined : (authInfo) => key.call(authorizer, authInfo);
}

/** Seconds a client is told to wait (`Retry-After`) when the session limit is reached. */
const RETRY_AFTER_SECONDS = '10';

/** A session id: 32 random bytes, base64url (43 visible ASCII characters). */
function newSessionId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  let binary = '';
  for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]!);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** True when the Accept header value admits `type` (exact, `major/*` or `*\/*`). */
function accepts(accept: string | null, type: string): boolean {
  if (accept === null) return false;
  const major = type.slice(0, type.indexOf('/'));
  for (const part of accept.split(',')) {
    const range = mediaRange(part);
    if (range === type || range === '*/*' || range === `${major}/*`) return true;
  }
  return false;
}

/** The media range of one element of an Accept value, lower case, parameters dropped. */
function mediaRange(part: string): string {
  const semi = part.indexOf(';');
  return (semi < 0 ? part : part.slice(0, semi)).trim().toLowerCase();
}

/** True when `accept` admits both `application/json` and `text/event-stream` (a Streamable HTTP POST), in one pass. */
function acceptsJsonAndSse(accept: string | null): boolean {
  if (accept === null) return false;
  let json = false;
  let sse = false;
  for (const part of accept.split(',')) {
    const range = mediaRange(part);
    if (range === '*/*') return true;
    if (range === 'application/json' || range === 'application/*') json = true;
    else if (range === 'text/event-stream' || range === 'text/*') sse = true;
  }
  return json && sse;
}

function isJsonContent(contentType: string | null): boolean {
  if (contentType === null) return false;
  if (contentType === 'application/json') return true;
  const semi = contentType.indexOf(';');
  return (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase() === 'application/json';
}

/** The reply to a request the guard refused: 400 for a malformed Host or target (RFC 9112 § 3.2), else 403. */
function hostRefusal(verdict: number): HttpReply {
  return verdict === HOST_MALFORMED
    ? errorReply(400, TRANSPORT_ERROR, 'Bad Request: malformed Host header or request target')
    : errorReply(403, TRANSPORT_ERROR, 'Forbidden: Host not allowed');
}

/**
 * The 415 for a POST body this server cannot read: a Content-Type other than JSON, or a
 * content coding (which gets `Accept-Encoding: identity`, RFC 7694 § 3; only that 415 carries
 * it). Undefined when the body is acceptable.
 */
function mediaRefusal(req: HttpRequest): HttpReply | undefined {
  if (!isJsonContent(req.headers('content-type'))) return errorReply(415, TRANSPORT_ERROR, 'Unsupported Media Type: Content-Type must be application/json');
  if (hasContentCoding(req.headers('content-encoding'))) {
    return errorReply(415, TRANSPORT_ERROR, 'Unsupported Media Type: request bodies must not have a content coding (Content-Encoding)', { 'accept-encoding': 'identity' });
  }
  return undefined;
}

function queryParam(url: string, name: string): string | null {
  const q = url.indexOf('?');
  if (q < 0) return null;
  const hash = url.indexOf('#', q);
  return new URLSearchParams(hash < 0 ? url.slice(q + 1) : url.slice(q + 1, hash)).get(name);
}

function batchesAllowed(revision: string | undefined): boolean {
  return revision !== undefined && tableFor(revision)?.batches === true;
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
  readonly #server: McpServer;
  readonly #mode: 'sse' | 'json';
  readonly #stateless: boolean;
  readonly #idleMs: number;
  readonly #maxSessions: number;
  readonly #maxPerPrincipal: number;
  readonly #guard: RequestGuard;
  readonly #enableGet: boolean;
  readonly #legacy: boolean;
  readonly #ssePath: string;
  readonly #messagesPath: string;
  /** The principal key of a request's auth info, when sessions are bound. */
  readonly #sessionOwner: ((authInfo: unknown) => string | undefined) | undefined;
  /** Sessions must be bound (authorization on, sharing not allowed): no session without an owner. */
  readonly #ownerRequired: boolean;
  readonly #authorizer: HttpAuthorizer | undefined;
  /** The stateless era's POSTs; undefined when the server does not serve that era. */
  readonly #modern: StatelessPostHandler | undefined = undefined;
  readonly #onError: ((error: Error) => void) | undefined;
  readonly #sessions = new Map<string, StreamableSessionTransport>();
  readonly #legacySessions = new Map<string, LegacySseTransport>();
  /** The open sessions (both kinds) of each principal, when sessions are bound. */
  readonly #byOwner = new Map<string, Set<StreamableSessionTransport | LegacySseTransport>>();
  #timer: ReturnType<typeof setInterval> | undefined = undefined;
  #closed = false;

  /** Throws `RangeError` for an invalid limit and `TypeError` for an invalid host or origin entry or contradictory options. */
  constructor(options: StreamableHttpOptions) {
    this.#server = options.server;
    this.endpoint = options.endpoint ?? '/mcp';
    this.#mode = options.responseMode ?? 'sse';
    this.#stateless = options.stateless ?? false;
    this.#idleMs = options.sessionIdleTimeoutMs ?? 30 * 60_000;
    this.#maxSessions = options.maxSessions ?? 10_000;
    this.#maxPerPrincipal = options.maxSessionsPerPrincipal ?? 100;
    this.store = options.eventStore === false ? undefined : (options.eventStore ?? new InMemoryEventStore());
    this.retryMs = options.retryMs ?? 1000;
    this.maxBodyBytes = options.maxBodyBytes ?? 4 * 1024 * 1024;
    this.#guard = new RequestGuard(options.allowedHosts, options.allowedOrigins);
    this.#enableGet = options.enableGetStream ?? true;
    this.#legacy = options.legacySse ?? false;
    this.#ssePath = options.legacySsePath ?? '/sse';
    this.#messagesPath = options.legacyMessagesPath ?? '/messages';
    this.#authorizer = options.authorize;
    const share = options.dangerouslyShareSessionsAcrossPrincipals === true;
    if (share && options.sessionOwner !== undefined) throw new TypeError('sessionOwner and dangerouslyShareSessionsAcrossPrincipals contradict each other');
    this.#ownerRequired = this.#authorizer !== undefined && !share;
    this.#sessionOwner = share ? undefined : (options.sessionOwner ?? ownerKeyOf(this.#authorizer));
    this.#onError = options.onError ?? defaultErrorReporter('http');
    if (options.statelessEra !== false && this.#server.statelessRevisions.length > 0) {
      this.#modern = new StatelessPostHandler(this.#server, this, { responseMode: this.#mode, ...options.statelessEra });
    }
    if (!(this.#idleMs > 0)) throw new RangeError('sessionIdleTimeoutMs must be positive');
    if (!(this.#maxSessions >= 1)) throw new RangeError('maxSessions must be at least 1');
    if (!(this.#maxPerPrincipal >= 1)) throw new RangeError('maxSessionsPerPrincipal must be at least 1');
    if (!(this.maxBodyBytes >= 1)) throw new RangeError('maxBodyBytes must be at least 1');
    if (!Number.isInteger(this.retryMs) || this.retryMs < 0) throw new RangeError('retryMs must be a non-negative integer');
    if (this.#mode !== 'sse' && this.#mode !== 'json') throw new RangeError(`Unknown responseMode ${String(this.#mode)}`);
  }

  /** Open sessions (Streamable HTTP and legacy SSE). */
  get sessionCount(): number {
    return this.#sessions.size + this.#legacySessions.size;
  }

  /**
   * The web-standard entry point: answers one `Request`. Never rejects (internal failures
   * become 500 replies reported to `onError`). `info.authInfo` reaches handlers as `ctx.authInfo`.
   */
  async fetch(request: Request, info?: HttpRequestInfo): Promise<Response> {
    // The Request URL is absolute: its authority is the target's (a runtime puts an
    // absolute-form target there, RFC 9112 § 3.2.2), so it is checked like Host. The
    // description handed on keeps the origin-form path, as routes and authorizers expect.
    const verdict = this.#guard.check(request.headers.get('host'), request.url);
    if (verdict !== HOST_OK) return toWebResponse(hostRefusal(verdict));
    return toWebResponse(await this.handle(describeWebRequest(request), info), this.#webOutbound);
  }

  /**
   * The adapter-neutral entry point: answers one request description. Never rejects.
   * Called by runtime adapters (`fetch`, `mcpkit/node`).
   */
  async handle(request: HttpRequest, info?: HttpRequestInfo): Promise<HttpReply> {
    try {
      return await this.#route(request, info);
    } catch (error) {
      this.reportError(toError(error));
      return errorReply(500, ErrorCode.InternalError, 'Internal error');
    }
  }

  /** Closes every session (their streams end) and refuses later requests with 503. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#stopSweep();
    const all: Array<{ close(): Promise<void> }> = [...this.#sessions.values(), ...this.#legacySessions.values()];
    if (this.#modern !== undefined) all.push(this.#modern);
    await Promise.all(all.map((t) => t.close()));
  }

  // ───────────── hosts of the transports ─────────────

  /** @internal */
  /** The web path's outbound options: a reader cut for not reading is reported through `onError`. */
  readonly #webOutbound = { onError: (error: Error) => this.reportError(error) };

  reportError(error: Error): void {
    try {
      this.#onError?.(error);
    } catch {
      // an error reporter that throws must not break the transport
    }
  }

  /** @internal */
  released(transport: StreamableSessionTransport): void {
    const id = transport.sessionId;
    if (id !== undefined && this.#sessions.get(id) === transport) {
      this.#sessions.delete(id);
      this.#disown(transport);
      if (this.#sessions.size === 0) this.#stopSweep();
    }
  }

  /** @internal */
  releasedLegacy(transport: LegacySseTransport): void {
    if (this.#legacySessions.get(transport.sessionId) === transport) {
      this.#legacySessions.delete(transport.sessionId);
      this.#disown(transport);
    }
  }

  /** Counts a new session against its principal's limit (`owner` undefined: unbound, not counted). */
  #own(transport: StreamableSessionTransport | LegacySseTransport): void {
    const owner = transport.owner;
    if (owner === undefined) return;
    let held = this.#byOwner.get(owner);
    if (held === undefined) this.#byOwner.set(owner, (held = new Set()));
    held.add(transport);
  }

  #disown(transport: StreamableSessionTransport | LegacySseTransport): void {
    const owner = transport.owner;
    if (owner === undefined) return;
    const held = this.#byOwner.get(owner);
    if (held === undefined) return;
    held.delete(transport);
    if (held.size === 0) this.#byOwner.delete(owner);
  }

  /**
   * Room for one more session of `owner` under `maxSessionsPerPrincipal`: undefined when there
   * is room (perhaps after closing that principal's least recently active quiet session), else
   * the 429 to answer. Unbound sessions (`owner` undefined) always have room here.
   */
  #roomFor(owner: string | undefined): HttpReply | undefined {
    const held = owner === undefined ? undefined : this.#byOwner.get(owner);
    if (held === undefined || held.size < this.#maxPerPrincipal) return undefined;
    const now = Date.now();
    let oldest: StreamableSessionTransport | undefined;
    for (const transport of held) {
      if (transport instanceof StreamableSessionTransport && transport.isIdle(now, 0) && (oldest === undefined || transport.lastActivity < oldest.lastActivity)) oldest = transport;
    }
    if (oldest === undefined) {
      return errorReply(429, TRANSPORT_ERROR, 'Too Many Requests: this principal holds too many sessions', { 'retry-after': RETRY_AFTER_SECONDS });
    }
    void oldest.close();
    return undefined;
  }

  // ───────────── routing ─────────────

  async #route(req: HttpRequest, info: HttpRequestInfo | undefined): Promise<HttpReply> {
    if (this.#closed) return errorReply(503, TRANSPORT_ERROR, 'Service Unavailable: the server is shutting down');
    const hostVerdict = this.#guard.check(req.headers('host'), req.url);
    if (hostVerdict !== HOST_OK) return hostRefusal(hostVerdict);
    const path = targetPath(req.url);
    const legacyPath = this.#legacy && !this.#stateless && (path === this.#ssePath || path === this.#messagesPath);
    if (path !== this.endpoint && !legacyPath) {
      const routed = await this.#authorizer?.route?.(req);
      if (routed !== undefined) return routed;
    }
    if (!this.#guard.originAllowed(req.headers('origin'))) return errorReply(403, TRANSPORT_ERROR, 'Forbidden: Origin not allowed');
    if (this.#authorizer !== undefined && (path === this.endpoint || legacyPath) && req.method !== 'OPTIONS') {
      const result = await this.#authorizer.authenticate(req);
      if (result.reply !== undefined) return result.reply;
      info = { ...info, authInfo: result.authInfo };
    }
    if (path === this.endpoint) {
      switch (req.method) {
        case 'POST':
          return this.#post(req, info);
        case 'GET':
          return this.#get(req, info);
        case 'DELETE':
          return this.#delete(req, info);
        default:
          return errorReply(405, TRANSPORT_ERROR, 'Method Not Allowed', { allow: this.#stateless ? 'POST' : 'GET, POST, DELETE' });
      }
    }
    if (this.#legacy && !this.#stateless) {
      if (path === this.#ssePath) return req.method === 'GET' ? this.#legacyOpen(req, info) : errorReply(405, TRANSPORT_ERROR, 'Method Not Allowed', { allow: 'GET' });
      if (path === this.#messagesPath) return req.method === 'POST' ? this.#legacyPost(req, info) : errorReply(405, TRANSPORT_ERROR, 'Method Not Allowed', { allow: 'POST' });
    }
    return errorReply(404, TRANSPORT_ERROR, 'Not Found');
  }

  #lookup(sessionId: string, info: HttpRequestInfo | undefined): StreamableSessionTransport | undefined {
    const transport = this.#sessions.get(sessionId);
    if (transport === undefined || transport.closed || !this.#ownedBy(transport, info)) return undefined;
    return transport;
  }

  /** True when the request's principal may use `transport` (always, when sessions are not bound). */
  #ownedBy(transport: { readonly owner: string | undefined }, info: HttpRequestInfo | undefined): boolean {
    return this.#sessionOwner === undefined || transport.owner === this.#sessionOwner(info?.authInfo);
  }

  /**
   * Admission of a new session: its owner (undefined when sessions are not bound), or the
   * refusal — 500 when it must be bound and cannot be, 429 when its principal is at
   * `maxSessionsPerPrincipal` with every session busy, 503 at `maxSessions`.
   */
  #admit(info: HttpRequestInfo | undefined): string | undefined | HttpReply {
    const owner = this.#ownerOf(info);
    if (owner === UNBINDABLE) return errorReply(500, ErrorCode.InternalError, 'Internal error');
    const crowded = this.#roomFor(owner);
    if (crowded !== undefined) return crowded;
    if (this.sessionCount >= this.#maxSessions) {
      return errorReply(503, TRANSPORT_ERROR, 'Service Unavailable: too many sessions', { 'retry-after': RETRY_AFTER_SECONDS });
    }
    return owner;
  }

  /**
   * The owner of a session the request creates: its principal key, `undefined` when sessions
   * are not bound, {@link UNBINDABLE} (reported to `onError`) when they must be and no key
   * can be derived.
   */
  #ownerOf(info: HttpRequestInfo | undefined): string | undefined | typeof UNBINDABLE {
    const owner = this.#sessionOwner?.(info?.authInfo);
    if (owner !== undefined || !this.#ownerRequired) return owner;
    this.reportError(
      new Error(
        'No session created: authorization is on but no principal key could be derived from the auth info (give the authorizer a sessionOwner method, or pass the sessionOwner option)',
      ),
    );
    return UNBINDABLE;
  }

  /** The 400 for an `MCP-Protocol-Version` header value this server does not serve (absent means 2025-03-26), or undefined. */
  #badVersion(version: string | null, id: RequestId | null = null): HttpReply | undefined {
    if (version === null || this.#server.revisions.includes(version)) return undefined;
    return errorReply(400, TRANSPORT_ERROR, `Bad Request: unsupported MCP-Protocol-Version ${JSON.stringify(version)} (supported: ${this.#server.revisions.join(', ')})`, undefined, id);
  }

  async #readBody(req: HttpRequest): Promise<string | HttpReply> {
    const body = req.body;
    if (body === undefined) return '';
    if (typeof body === 'string') {
      return body.length > this.maxBodyBytes ? this.#tooLarge() : body;
    }
    try {
      return await body(this.maxBodyBytes);
    } catch (error) {
      if (error instanceof LocalError && error.code === 'message_too_large') return this.#tooLarge();
      return errorReply(400, TRANSPORT_ERROR, 'Bad Request: the request body could not be read');
    }
  }

  #tooLarge(): HttpReply {
    return errorReply(413, ErrorCode.InvalidRequest, `Payload Too Large: the request body exceeds ${this.maxBodyBytes} bytes`);
  }

  // ───────────── POST ─────────────

  async #post(req: HttpRequest, info: HttpRequestInfo | undefined): Promise<HttpReply> {
    if (!acceptsJsonAndSse(req.headers('accept'))) {
      return errorReply(406, TRANSPORT_ERROR, 'Not Acceptable: the client must accept both application/json and text/event-stream');
    }
    const refusedMedia = mediaRefusal(req);
    if (refusedMedia !== undefined) return refusedMedia;
    let transport: StreamableSessionTransport | undefined;
    const versionHeader = req.headers('mcp-protocol-version');
    // a POST whose MCP-Protocol-Version names a stateless revision has no session (any id is ignored)
    const sessionId = this.#stateless || this.#modern?.claimedByHeader(versionHeader) ? null : req.headers('mcp-session-id');
    if (sessionId !== null) {
      transport = this.#lookup(sessionId, info);
      if (transport === undefined) return errorReply(404, SESSION_NOT_FOUND, 'Session not found');
    }
    const text = await this.#readBody(req);
    if (typeof text !== 'string') return text;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return errorReply(400, ErrorCode.ParseError, 'Parse error: the body is not valid JSON');
    }

    const ids: RequestId[] = [];
    let batch = false;
    let hasInvalid = false;
    let initialize = false;
    if (Array.isArray(value)) {
      batch = true;
      if (value.length === 0) return errorReply(400, ErrorCode.InvalidRequest, 'Invalid request: an empty batch');
      for (let i = 0; i < value.length; i++) {
        const kind = classify(value[i]);
        if (kind === KIND_REQUEST) {
          const m = value[i] as { id: RequestId; method: string };
          if (m.method === 'initialize') initialize = true;
          ids.push(m.id);
        } else if (kind === KIND_INVALID) hasInvalid = true;
      }
      if (initialize) return errorReply(400, ErrorCode.InvalidRequest, 'Invalid request: initialize must not be part of a batch');
    } else {
      const kind = classify(value);
      if (kind === KIND_INVALID) {
        const { id, reason } = describeInvalid(value);
        return { status: 400, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id, error: { code: ErrorCode.InvalidRequest, message: `Invalid request: ${reason}` } }) };
      }
      if (kind === KIND_REQUEST) {
        const m = value as { id: RequestId; method: string };
        ids.push(m.id);
        initialize = m.method === 'initialize';
      }
    }

    const refused = this.#refuseMessages(value, batch, info);
    if (refused !== undefined) return refused;
    if (!batch && this.#modern?.claims(value, versionHeader)) return this.#modern.post(req, info, value as JSONObject, versionHeader);
    if (this.#stateless) return this.#statelessPost(req, info, value, versionHeader, ids, batch, hasInvalid, initialize);
    const replyId = batch || ids.length === 0 ? null : ids[0]!;
    if (transport === undefined) {
      if (initialize) return this.#initialize(req, info, value, ids[0]!);
      return errorReply(400, TRANSPORT_ERROR, 'Bad Request: Mcp-Session-Id header is required', undefined, replyId);
    }
    if (!initialize) {
      const bad = this.#badVersion(versionHeader, replyId);
      if (bad !== undefined) return bad;
    }
    if (transport.closed) return errorReply(404, SESSION_NOT_FOUND, 'Session not found', undefined, replyId);
    if (batch && !batchesAllowed(transport.server?.protocolVersion)) {
      return errorReply(400, ErrorCode.InvalidRequest, `Invalid request: batches are not supported in protocol revision ${transport.server?.protocolVersion ?? '(none)'}`);
    }
    return this.#dispatch(transport, req, info, value, ids, batch, hasInvalid);
  }

  /** The authorizer's refusal of any message of a POST (403), or undefined. */
  #refuseMessages(value: unknown, batch: boolean, info: HttpRequestInfo | undefined): HttpReply | undefined {
    const check = this.#authorizer?.authorizeMessage;
    if (check === undefined) return undefined;
    if (!batch) return check.call(this.#authorizer, value, info?.authInfo);
    for (const message of value as unknown[]) {
      const reply = check.call(this.#authorizer, message, info?.authInfo);
      if (reply !== undefined) return reply;
    }
    return undefined;
  }

  #dispatch(
    transport: StreamableSessionTransport,
    req: HttpRequest,
    info: HttpRequestInfo | undefined,
    value: unknown,
    ids: RequestId[],
    batch: boolean,
    hasInvalid: boolean,
  ): HttpReply | Promise<HttpReply> {
    const messageInfo = new HttpMessageInfo(transport, info?.authInfo, req.rawHeaders);
    if (ids.length === 0 && !hasInvalid) {
      transport.deliver(value, messageInfo, undefined);
      if (transport.sessionId === undefined) void transport.close();
      return emptyReply(202);
    }
    for (let i = 0; i < ids.length; i++) {
      if (transport.isOpenRequest(ids[i]!)) {
        return errorReply(409, ErrorCode.InvalidRequest, `Invalid request: id ${JSON.stringify(ids[i])} is already in use by a request in progress`, undefined, batch ? null : ids[i]!);
      }
    }
    const stream = transport.openPost(ids, batch, hasInvalid, this.#mode);
    if (this.#mode === 'sse') {
      const reply = transport.replyFor(stream);
      transport.deliver(value, messageInfo, stream);
      return reply;
    }
    transport.deliver(value, messageInfo, stream);
    return transport.whenAnswered(stream).then((outcome) => {
      if (outcome.body !== undefined) return jsonReply(200, outcome.body, transport.sessionId);
      return transport.closed && transport.sessionId !== undefined ? errorReply(404, SESSION_NOT_FOUND, 'Session not found') : emptyReply(202);
    });
  }

  async #connect(transport: StreamableSessionTransport | LegacySseTransport): Promise<ServerSession | undefined> {
    try {
      const session = await this.#server.connect(transport);
      transport.server = session;
      return session;
    } catch (error) {
      this.reportError(toError(error));
      void transport.close();
      return undefined;
    }
  }

  async #initialize(req: HttpRequest, info: HttpRequestInfo | undefined, value: unknown, id: RequestId): Promise<HttpReply> {
    const owner = this.#admit(info);
    if (typeof owner === 'object') return owner;
    const sessionId = newSessionId();
    const transport = new StreamableSessionTransport(this, sessionId);
    transport.owner = owner;
    this.#sessions.set(sessionId, transport);
    this.#own(transport);
    this.#startSweep();
    if ((await this.#connect(transport)) === undefined) return errorReply(500, ErrorCode.InternalError, 'Internal error');
    const stream = transport.openPost([id], false, false, 'json');
    transport.deliver(value, new HttpMessageInfo(transport, info?.authInfo, req.rawHeaders), stream);
    const outcome = await transport.whenAnswered(stream);
    if (outcome.body === undefined) return errorReply(503, TRANSPORT_ERROR, 'Service Unavailable: the session closed during initialization');
    if (outcome.isError) {
      void transport.close();
      return jsonReply(200, outcome.body);
    }
    return jsonReply(200, outcome.body, sessionId);
  }

  async #statelessPost(
    req: HttpRequest,
    info: HttpRequestInfo | undefined,
    value: unknown,
    versionHeader: string | null,
    ids: RequestId[],
    batch: boolean,
    hasInvalid: boolean,
    initialize: boolean,
  ): Promise<HttpReply> {
    const revision = versionHeader ?? V2025_03_26;
    const replyId = batch || ids.length === 0 ? null : ids[0]!;
    if (!initialize) {
      const bad = this.#badVersion(versionHeader, replyId);
      if (bad !== undefined) return bad;
      if (batch && !batchesAllowed(revision)) return errorReply(400, ErrorCode.InvalidRequest, `Invalid request: batches are not supported in protocol revision ${revision}`);
    }
    const transport = new StreamableSessionTransport(this, undefined);
    const session = await this.#connect(transport);
    if (session === undefined) return errorReply(500, ErrorCode.InternalError, 'Internal error');
    if (initialize) {
      const stream = transport.openPost(ids, false, false, 'json');
      transport.deliver(value, new HttpMessageInfo(transport, info?.authInfo, req.rawHeaders), stream);
      const outcome = await transport.whenAnswered(stream);
      return outcome.body === undefined ? errorReply(500, ErrorCode.InternalError, 'Internal error') : jsonReply(200, outcome.body);
    }
    try {
      session.initializeStateless(revision);
    } catch (error) {
      void transport.close();
      return errorReply(400, TRANSPORT_ERROR, `Bad Request: ${(error as Error).message}`, undefined, replyId);
    }
    return this.#dispatch(transport, req, info, value, ids, batch, hasInvalid);
  }

  // ───────────── GET and DELETE ─────────────

  #get(req: HttpRequest, info: HttpRequestInfo | undefined): HttpReply | Promise<HttpReply> {
    if (this.#stateless || !this.#enableGet) {
      return errorReply(405, TRANSPORT_ERROR, 'Method Not Allowed: this server offers no SSE stream at this endpoint', { allow: this.#stateless ? 'POST' : 'POST, DELETE' });
    }
    if (!accepts(req.headers('accept'), 'text/event-stream')) return errorReply(406, TRANSPORT_ERROR, 'Not Acceptable: the client must accept text/event-stream');
    const found = this.#sessionFor(req, info);
    if (!(found instanceof StreamableSessionTransport)) return found;
    const lastEventId = req.headers('last-event-id');
    return lastEventId !== null && lastEventId !== '' ? found.resume(lastEventId) : found.openStandalone();
  }

  async #delete(req: HttpRequest, info: HttpRequestInfo | undefined): Promise<HttpReply> {
    if (this.#stateless) return errorReply(405, TRANSPORT_ERROR, 'Method Not Allowed: this server has no sessions', { allow: 'POST' });
    const found = this.#sessionFor(req, info);
    if (!(found instanceof StreamableSessionTransport)) return found;
    await found.close();
    return emptyReply(200);
  }

  /** The session of a GET or DELETE, or the error reply (400 missing, 404 unknown, 400 bad version). */
  #sessionFor(req: HttpRequest, info: HttpRequestInfo | undefined): StreamableSessionTransport | HttpReply {
    const sessionId = req.headers('mcp-session-id');
    if (sessionId === null) return errorReply(400, TRANSPORT_ERROR, 'Bad Request: Mcp-Session-Id header is required');
    const transport = this.#lookup(sessionId, info);
    if (transport === undefined) return errorReply(404, SESSION_NOT_FOUND, 'Session not found');
    return this.#badVersion(req.headers('mcp-protocol-version')) ?? transport;
  }

  // ───────────── legacy HTTP+SSE ─────────────

  async #legacyOpen(req: HttpRequest, info: HttpRequestInfo | undefined): Promise<HttpReply> {
    const accept = req.headers('accept');
    if (accept !== null && !accepts(accept, 'text/event-stream')) return errorReply(406, TRANSPORT_ERROR, 'Not Acceptable: the client must accept text/event-stream');
    const owner = this.#admit(info);
    if (typeof owner === 'object') return owner;
    const sessionId = newSessionId();
    const transport = new LegacySseTransport(this, sessionId, this.#messagesPath);
    transport.owner = owner;
    this.#legacySessions.set(sessionId, transport);
    this.#own(transport);
    if ((await this.#connect(transport)) === undefined) return errorReply(500, ErrorCode.InternalError, 'Internal error');
    return sseReply(transport.connection);
  }

  async #legacyPost(req: HttpRequest, info: HttpRequestInfo | undefined): Promise<HttpReply> {
    const sessionId = queryParam(req.url, 'sessionId');
    if (sessionId === null) return errorReply(400, TRANSPORT_ERROR, 'Bad Request: the sessionId query parameter is required');
    const transport = this.#legacySessions.get(sessionId);
    if (transport === undefined || !this.#ownedBy(transport, info)) return errorReply(404, SESSION_NOT_FOUND, 'Session not found');
    const refusedMedia = mediaRefusal(req);
    if (refusedMedia !== undefined) return refusedMedia;
    const text = await this.#readBody(req);
    if (typeof text !== 'string') return text;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return errorReply(400, ErrorCode.ParseError, 'Parse error: the body is not valid JSON');
    }
    const refused = this.#refuseMessages(value, Array.isArray(value), info);
    if (refused !== undefined) return refused;
    transport.deliver(value, new HttpMessageInfo(transport, info?.authInfo, req.rawHeaders));
    return emptyReply(202);
  }

  // ───────────── idle reaping ─────────────

  #startSweep(): void {
    if (this.#timer !== undefined) return;
    const every = Math.min(Math.max(Math.floor(this.#idleMs / 2), 10), 60_000);
    this.#timer = setInterval(this.#sweep, every);
    (this.#timer as { unref?: () => void }).unref?.();
  }

  #stopSweep(): void {
    if (this.#timer === undefined) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  readonly #sweep = (): void => {
    const now = Date.now();
    for (const transport of this.#sessions.values()) {
      if (transport.isIdle(now, this.#idleMs)) void transport.close();
    }
  };
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
