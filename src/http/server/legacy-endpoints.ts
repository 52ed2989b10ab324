/**
 * The endpoints of the 2024-11-05 HTTP+SSE transport, served beside Streamable HTTP when the
 * handler's `legacySse` option is on (2025-03-26 › Transports › Backwards Compatibility):
 * `GET /sse` opens a session and its stream, `POST /messages?sessionId=…` delivers to it.
 *
 * Contract: the handler has already done the shared checks (Host, Origin, authentication).
 * `GET /sse` checks Accept (406 when given and without `text/event-stream`) and admission
 * (the handler's session caps); the message POST checks the session first (400 without
 * `sessionId`, 404 unknown or another principal's), then media types (415), body (413),
 * JSON (-32700) and the authorizer's refusal (403), and answers 202 with every server
 * message on the stream. Other methods get 405. Runtime-neutral.
 */
import type { McpServer } from '../../server/server.js';
import { drainingReply } from './drain.js';
import { type LegacyHost, LegacySseTransport } from './legacy-sse.js';
import { accepts, mediaRefusal, readJson, refuseMessages, sseNotAcceptable } from './post-checks.js';
import { emptyReply, errorReply, internalErrorReply, SESSION_NOT_FOUND, sseReply, TRANSPORT_ERROR } from './replies.js';
import { connectTransport } from './session-dispatch.js';
import { newSessionId, type SessionRegistry } from './session-registry.js';
import { HttpMessageInfo } from './session-transport.js';
import type { HttpAuthorizer, HttpReply, HttpRequest, HttpRequestInfo } from './types.js';

/** The settings of {@link LegacyEndpoints}, from the handler's options. */
export interface LegacyEndpointSettings {
  /** Path of the SSE endpoint (the handler's `legacySsePath`). */
  readonly ssePath: string;
  /** Path of the message endpoint (`legacyMessagesPath`), announced in the `endpoint` event. */
  readonly messagesPath: string;
  /** Largest accepted POST body in bytes (the handler's `maxBodyBytes`). */
  readonly maxBodyBytes: number;
  /** The handler's authorizer, for its refusal of messages. */
  readonly authorizer: HttpAuthorizer | undefined;
  /** True while the handler drains (`close({ drainMs })`): a POST carrying requests gets 503, as on the Streamable endpoint. */
  readonly draining: () => boolean;
}

/** True when a POSTed body (one message or a batch) holds a request (a method and an id). */
function carriesRequest(value: unknown): boolean {
  const isRequest = (m: unknown): boolean => typeof m === 'object' && m !== null && 'method' in m && 'id' in m;
  return Array.isArray(value) ? value.some(isRequest) : isRequest(value);
}

function queryParam(url: string, name: string): string | null {
  const q = url.indexOf('?');
  if (q < 0) return null;
  const hash = url.indexOf('#', q);
  return new URLSearchParams(hash < 0 ? url.slice(q + 1) : url.slice(q + 1, hash)).get(name);
}

/** The legacy HTTP+SSE endpoints of one handler; see the module note. */
export class LegacyEndpoints {
  readonly #server: McpServer;
  readonly #host: LegacyHost;
  readonly #registry: SessionRegistry;
  readonly #settings: LegacyEndpointSettings;

  constructor(server: McpServer, host: LegacyHost, registry: SessionRegistry, settings: LegacyEndpointSettings) {
    this.#server = server;
    this.#host = host;
    this.#registry = registry;
    this.#settings = settings;
  }

  /** True when `path` (a request target's path) is one of the two endpoints. */
  serves(path: string): boolean {
    return path === this.#settings.ssePath || path === this.#settings.messagesPath;
  }

  /** Answers a request for a path {@link serves} accepts. */
  async handle(req: HttpRequest, path: string, info: HttpRequestInfo | undefined): Promise<HttpReply> {
    if (path === this.#settings.ssePath)
      return req.method === 'GET' ? this.#open(req, info) : errorReply(405, TRANSPORT_ERROR, 'Method Not Allowed', { allow: 'GET' });
    return req.method === 'POST' ? this.#post(req, info) : errorReply(405, TRANSPORT_ERROR, 'Method Not Allowed', { allow: 'POST' });
  }

  async #open(req: HttpRequest, info: HttpRequestInfo | undefined): Promise<HttpReply> {
    const accept = req.headers('accept');
    if (accept !== null && !accepts(accept, 'text/event-stream')) return sseNotAcceptable();
    const owner = this.#registry.admit(info);
    if (typeof owner === 'object') return owner;
    const transport = new LegacySseTransport(this.#host, newSessionId(), this.#settings.messagesPath, owner);
    this.#registry.addLegacy(transport);
    if ((await connectTransport(this.#server, transport, (error) => this.#host.reportError(error))) === undefined) return internalErrorReply();
    return sseReply(transport.connection);
  }

  async #post(req: HttpRequest, info: HttpRequestInfo | undefined): Promise<HttpReply> {
    const sessionId = queryParam(req.url, 'sessionId');
    if (sessionId === null) return errorReply(400, TRANSPORT_ERROR, 'Bad Request: the sessionId query parameter is required');
    const transport = this.#registry.lookupLegacy(sessionId, info);
    if (transport === undefined) return errorReply(404, SESSION_NOT_FOUND, 'Session not found');
    const refused = mediaRefusal(req);
    if (refused !== undefined) return refused;
    const body = await readJson(req, this.#settings.maxBodyBytes);
    if (body.status !== undefined) return body;
    const denied = refuseMessages(this.#settings.authorizer, body.value, info);
    if (denied !== undefined) return denied;
    // draining: answers and notifications for running work still pass, new work does not
    if (this.#settings.draining() && carriesRequest(body.value)) return drainingReply();
    transport.deliver(body.value, new HttpMessageInfo(transport, info?.authInfo, req.rawHeaders));
    return emptyReply(202);
  }
}
