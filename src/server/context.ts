/**
 * The context handed to server handlers: the incoming request plus what a handler may do
 * on behalf of it — log, report progress, and ask the client (sampling, elicitation, roots)
 * with the request's id attached, so transports route those messages to the request's
 * stream and a cancellation of the request cancels them too.
 */
import type { JSONObject, RequestId } from '../jsonrpc/types.js';
import { RequestContext } from '../session/context.js';
import type { RequestOptions, Session } from '../session/session.js';
import type { MessageInfo } from '../transport/types.js';
import type { ClientCapabilities, CreateMessageRequestParams, CreateMessageResult, ElicitFormParams, ElicitResult, Implementation, LoggingLevel, Root } from '../types.js';
import type { ServerSession } from './server-session.js';
import type { InputOptions, StatelessRequest } from './stateless-request.js';

/** Context of an incoming request on the server. */
export class ServerRequestContext extends RequestContext {
  /** The connection (client) this request came from. */
  readonly server: ServerSession;

  constructor(server: ServerSession, session: Session, id: RequestId, method: string, params: JSONObject | undefined, info: MessageInfo | undefined) {
    super(session, id, method, params, info);
    this.server = server;
  }

  /** Verified auth information from the transport, when present. */
  get authInfo(): unknown {
    return this.info?.authInfo;
  }

  /**
   * @internal Set by the server's stateless layer for a 2026-07-28 request: its per-request
   * metadata and multi round-trip inputs. Undefined for 2025-era requests.
   */
  _stateless: StatelessRequest | undefined = undefined;

  /** The revision this request is served at: the one it names (stateless era), else the connection's. */
  get protocolVersion(): string | undefined {
    return this._stateless !== undefined ? this._stateless.meta.revision : this.server.protocolVersion;
  }

  /** The client's capabilities for this request: those in its `_meta` (stateless era), else the connection's. */
  get clientCapabilities(): ClientCapabilities | undefined {
    return this._stateless !== undefined ? this._stateless.meta.clientCapabilities : this.server.clientCapabilities;
  }

  /** The client's self-reported identity: from the request's `_meta` (stateless era), else the connection's. */
  get clientInfo(): Implementation | undefined {
    return this._stateless !== undefined ? this._stateless.meta.clientInfo : this.server.clientInfo;
  }

  #related(options?: RequestOptions): RequestOptions {
    return { signal: this.signal, ...options, relatedRequestId: this.id };
  }

  /**
   * Sends `notifications/message` to this client, subject to its log level (2025 era: the
   * connection's `logging/setLevel`; stateless era: the request's `_meta` log level — none
   * set, nothing is sent).
   */
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    if (this._stateless !== undefined) return this._stateless.log(this.session, this.id, level, data, logger);
    return this.server.sendLog(level, data, logger, this.id);
  }

  /**
   * Asks the client's LLM (`sampling/createMessage`); see {@link ServerSession.createMessage}.
   * Stateless era: a multi round-trip input (see `InputOptions`); rejects with -32021 when
   * the request did not declare `sampling`.
   */
  createMessage(params: CreateMessageRequestParams, options?: RequestOptions & InputOptions): Promise<CreateMessageResult> {
    if (this._stateless !== undefined) return this._stateless.createMessage(params, options);
    return this.server.createMessage(params, this.#related(options));
  }

  /**
   * Form-mode elicitation; see {@link ServerSession.elicitForm}. Stateless era: a multi
   * round-trip input; rejects with -32021 when the request did not declare form elicitation.
   */
  elicitForm(params: Omit<ElicitFormParams, 'mode'>, options?: RequestOptions & InputOptions): Promise<ElicitResult> {
    if (this._stateless !== undefined) return this._stateless.elicitForm(params, options);
    return this.server.elicitForm(params, this.#related(options));
  }

  /**
   * URL-mode elicitation; see {@link ServerSession.elicitUrl}. Stateless era: a multi
   * round-trip input (no `elicitationId` on the wire; the returned one is the input's key).
   */
  elicitUrl(params: { message: string; url: string; elicitationId?: string; _meta?: JSONObject }, options?: RequestOptions & InputOptions): Promise<ElicitResult & { elicitationId: string }> {
    if (this._stateless !== undefined) return this._stateless.elicitUrl(params, options);
    return this.server.elicitUrl(params, this.#related(options));
  }

  /** Asks the client for its roots (`roots/list`). Stateless era: a multi round-trip input. */
  listRoots(options?: RequestOptions & InputOptions): Promise<Root[]> {
    if (this._stateless !== undefined) return this._stateless.listRoots(options);
    return this.server.listRoots(this.#related(options));
  }
}
