/**
 * The `Mcp-Session-Id` mode of the MCP endpoint (2025-03-26 › Transports › Streamable HTTP ›
 * Session Management): `initialize` creates a session and its id, later POSTs name it, GET
 * opens (or with `Last-Event-ID` resumes) its stream, DELETE ends it.
 *
 * Contract: one {@link StreamableSessionTransport} per session, connected to the one server
 * and kept in the handler's {@link SessionRegistry}. An `initialize` is answered as JSON
 * whatever the response mode, so that a failed initialization creates no session (and an
 * error answer closes the transport again). The session a POST names is looked up before its
 * body is read (404 for an unknown one, or one owned by another principal).
 * With a session directory (the handler's `sessions` option) a session this handler does not
 * hold is restored from its record before that (session-sharing.ts), a new one is recorded
 * before its id is handed out, and DELETE ends it in the directory first.
 * Runtime-neutral.
 */
import type { McpServer } from '../../server/server.js';
import type { EndpointMode } from './endpoint-mode.js';
import { accepts, batchRefusal, type PostBody, sseNotAcceptable, versionRefusal } from './post-checks.js';
import { emptyReply, errorReply, internalErrorReply, jsonReply, TRANSPORT_ERROR } from './replies.js';
import type { SessionDirectory } from './session-directory.js';
import { answerAsJson, connectTransport, deliverPost } from './session-dispatch.js';
import { newSessionId, type SessionRegistry } from './session-registry.js';
import { SessionSharing, sessionNotFound } from './session-sharing.js';
import { StreamableSessionTransport, type TransportHost } from './session-transport.js';
import type { HttpReply, HttpRequest, HttpRequestInfo } from './types.js';

/** The settings of a {@link SessionPath}, from the handler's options. */
export interface SessionPathSettings {
  /** How POSTs carrying requests are answered (the handler's `responseMode`). */
  readonly mode: 'sse' | 'json';
  /** False answers GET with 405 (the handler's `enableGetStream`). */
  readonly enableGet: boolean;
  /** Where sessions are shared with other instances (the handler's `sessions`); undefined: only here. */
  readonly directory?: SessionDirectory | undefined;
  /** The idle timeout, in ms (the handler's `sessionIdleTimeoutMs`), recorded with shared sessions. */
  readonly idleMs?: number;
}

function sessionIdRequired(id: PostBody['replyId'] = null): HttpReply {
  return errorReply(400, TRANSPORT_ERROR, 'Bad Request: Mcp-Session-Id header is required', undefined, id);
}

/** The `Mcp-Session-Id` mode; see the module note. */
export class SessionPath implements EndpointMode {
  readonly allow = 'GET, POST, DELETE';
  readonly #server: McpServer;
  readonly #host: TransportHost;
  readonly #registry: SessionRegistry;
  readonly #settings: SessionPathSettings;
  readonly #sharing: SessionSharing | undefined;

  constructor(server: McpServer, host: TransportHost, registry: SessionRegistry, settings: SessionPathSettings) {
    this.#server = server;
    this.#host = host;
    this.#registry = registry;
    this.#settings = settings;
    const directory = settings.directory;
    this.#sharing = directory === undefined ? undefined : new SessionSharing(directory, server, host, registry, settings.idleMs ?? 30 * 60_000);
  }

  sessionOf(
    req: HttpRequest,
    info: HttpRequestInfo | undefined,
  ): StreamableSessionTransport | undefined | HttpReply | Promise<StreamableSessionTransport | HttpReply> {
    const sessionId = req.headers('mcp-session-id');
    if (sessionId === null) return undefined;
    return this.#find(sessionId, info);
  }

  close(): void {
    this.#sharing?.close();
  }

  /** The session `sessionId` for a request of `info`'s principal (restored from the directory when not held), or the 404/503. */
  #find(sessionId: string, info: HttpRequestInfo | undefined): StreamableSessionTransport | HttpReply | Promise<StreamableSessionTransport | HttpReply> {
    const held = this.#registry.lookup(sessionId, info);
    const sharing = this.#sharing;
    if (sharing === undefined) return held ?? sessionNotFound();
    if (held !== undefined) return sharing.use(held);
    // held for another principal: the same 404 as an unknown session
    return this.#registry.held(sessionId) !== undefined ? sessionNotFound() : sharing.restore(sessionId, info);
  }

  post(
    req: HttpRequest,
    info: HttpRequestInfo | undefined,
    body: PostBody,
    versionHeader: string | null,
    session: StreamableSessionTransport | undefined,
  ): HttpReply | Promise<HttpReply> {
    const replyId = body.replyId;
    if (session === undefined) return body.initialize ? this.#initialize(req, info, body) : sessionIdRequired(replyId);
    if (!body.initialize) {
      const bad = versionRefusal(this.#server.revisions, versionHeader, replyId);
      if (bad !== undefined) return bad;
    }
    if (session.closed) return sessionNotFound(replyId);
    if (body.batch) {
      const refused = batchRefusal(session.protocolVersion);
      if (refused !== undefined) return refused;
    }
    // a client message for work of another instance goes there (202 once relayed, 503 when it cannot be)
    if (this.#sharing !== undefined && body.ids.length === 0 && !body.hasInvalid) {
      const routed = this.#sharing.route(session, body.value);
      if (routed !== undefined) return routed.then((reply) => reply ?? deliverPost(session, req, info, body, this.#settings.mode));
    }
    return deliverPost(session, req, info, body, this.#settings.mode);
  }

  async get(req: HttpRequest, info: HttpRequestInfo | undefined): Promise<HttpReply> {
    if (!this.#settings.enableGet) {
      return errorReply(405, TRANSPORT_ERROR, 'Method Not Allowed: this server offers no SSE stream at this endpoint', { allow: 'POST, DELETE' });
    }
    if (!accepts(req.headers('accept'), 'text/event-stream')) return sseNotAcceptable();
    const found = await this.#sessionFor(req, info);
    if (!(found instanceof StreamableSessionTransport)) return found;
    const lastEventId = req.headers('last-event-id');
    return lastEventId !== null && lastEventId !== '' ? found.resume(lastEventId) : found.openStandalone();
  }

  async delete(req: HttpRequest, info: HttpRequestInfo | undefined): Promise<HttpReply> {
    const found = await this.#sessionFor(req, info);
    if (!(found instanceof StreamableSessionTransport)) return found;
    const failed = await this.#sharing?.end(found.sessionId!);
    if (failed !== undefined) return failed;
    await found.close();
    return emptyReply(200);
  }

  /** The session of a GET or DELETE, or the error reply (400 missing, 404 unknown, 400 bad version, 503 directory unreachable). */
  async #sessionFor(req: HttpRequest, info: HttpRequestInfo | undefined): Promise<StreamableSessionTransport | HttpReply> {
    const sessionId = req.headers('mcp-session-id');
    if (sessionId === null) return sessionIdRequired();
    const found = this.#find(sessionId, info);
    const transport = found instanceof Promise ? await found : found;
    if (!(transport instanceof StreamableSessionTransport)) return transport;
    return versionRefusal(this.#server.revisions, req.headers('mcp-protocol-version')) ?? transport;
  }

  async #initialize(req: HttpRequest, info: HttpRequestInfo | undefined, body: PostBody): Promise<HttpReply> {
    const owner = this.#registry.admit(info, this.#sharing !== undefined);
    if (typeof owner === 'object') return owner;
    const sessionId = newSessionId();
    const transport = this.#sharing?.newTransport(sessionId, owner) ?? new StreamableSessionTransport(this.#host, sessionId, undefined, owner);
    this.#registry.add(transport);
    const connection = await connectTransport(this.#server, transport, (error) => this.#host.reportError(error));
    if (connection === undefined) return internalErrorReply();
    const outcome = await answerAsJson(transport, req, info, body.value, body.ids[0]!);
    if (outcome.body === undefined) return errorReply(503, TRANSPORT_ERROR, 'Service Unavailable: the session closed during initialization');
    if (outcome.isError) {
      void transport.close();
      return jsonReply(200, outcome.body);
    }
    const refused = await this.#sharing?.record(transport, connection);
    if (refused !== undefined) return refused;
    return jsonReply(200, outcome.body, sessionId);
  }
}
