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
import type { CreateMessageRequestParams, CreateMessageResult, ElicitFormParams, ElicitResult, LoggingLevel, Root } from '../types.js';
import type { ServerSession } from './server-session.js';

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

  #related(options?: RequestOptions): RequestOptions {
    return { signal: this.signal, ...options, relatedRequestId: this.id };
  }

  /** Sends `notifications/message` to this client, subject to its log level. */
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    return this.server.sendLog(level, data, logger, this.id);
  }

  /** Asks the client's LLM (`sampling/createMessage`); see {@link ServerSession.createMessage}. */
  createMessage(params: CreateMessageRequestParams, options?: RequestOptions): Promise<CreateMessageResult> {
    return this.server.createMessage(params, this.#related(options));
  }

  /** Form-mode elicitation; see {@link ServerSession.elicitForm}. */
  elicitForm(params: Omit<ElicitFormParams, 'mode'>, options?: RequestOptions): Promise<ElicitResult> {
    return this.server.elicitForm(params, this.#related(options));
  }

  /** URL-mode elicitation; see {@link ServerSession.elicitUrl}. */
  elicitUrl(params: { message: string; url: string; elicitationId?: string }, options?: RequestOptions): Promise<ElicitResult & { elicitationId: string }> {
    return this.server.elicitUrl(params, this.#related(options));
  }

  /** Asks the client for its roots (`roots/list`). */
  listRoots(options?: RequestOptions): Promise<Root[]> {
    return this.server.listRoots(this.#related(options));
  }
}
