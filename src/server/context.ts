/**
 * The context handed to server handlers: the incoming request plus what a handler may do
 * on behalf of it — log, report progress, and ask the client (sampling, elicitation, roots).
 * What those do depends on the request's protocol era, decided once when the request
 * arrived and held here as {@link ServerRequestContext.era} (era.ts); the methods delegate
 * to it and never branch themselves.
 */
import type { JSONObject, RequestId } from '../jsonrpc/types.js';
import { RequestContext, type RequestChannel } from '../session/context.js';
import type { RequestOptions } from '../session/session.js';
import type { MessageInfo } from '../transport/types.js';
import type { ClientCapabilities, CreateMessageRequestParams, CreateMessageResult, ElicitFormParams, ElicitResult, Implementation, LoggingLevel, Root } from '../types.js';
import type { ElicitUrlParams, ServerEra } from './era.js';
import type { ServerSession } from './server-session.js';
import type { InputOptions } from './stateless/request.js';

/** Context of an incoming request on the server. */
export class ServerRequestContext extends RequestContext {
  /**
   * The connection (client) this request came from. Undefined for a 2026-07-28 request served
   * without a connection (Streamable HTTP: each such POST stands alone).
   */
  readonly server: ServerSession | undefined;
  /** The request's protocol era: where its client's capabilities come from and how it asks the client. */
  readonly era: ServerEra;

  constructor(server: ServerSession | undefined, session: RequestChannel, id: RequestId, method: string, params: JSONObject | undefined, info: MessageInfo | undefined, era: ServerEra) {
    super(session, id, method, params, info);
    this.server = server;
    this.era = era;
  }

  /** Verified auth information from the transport, when present. */
  get authInfo(): unknown {
    return this.info?.authInfo;
  }

  /** The revision this request is served at: the one it names (2026-07-28), else the connection's. */
  get protocolVersion(): string | undefined {
    return this.era.protocolVersion;
  }

  /** The client's capabilities for this request: those in its `_meta` (2026-07-28), else the connection's. */
  get clientCapabilities(): ClientCapabilities | undefined {
    return this.era.clientCapabilities;
  }

  /** The client's self-reported identity: from the request's `_meta` (2026-07-28), else the connection's. */
  get clientInfo(): Implementation | undefined {
    return this.era.clientInfo;
  }

  /**
   * Sends `notifications/message` to this client, subject to its log level (2025 era: the
   * connection's `logging/setLevel`; 2026-07-28: the request's `_meta` log level — none
   * set, nothing is sent).
   */
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    return this.era.log(this, level, data, logger);
  }

  /**
   * Asks the client's LLM (`sampling/createMessage`); see {@link ServerSession.createMessage}.
   * 2026-07-28: a multi round-trip input (see `InputOptions`); rejects with -32021 when
   * the request did not declare `sampling`.
   */
  createMessage(params: CreateMessageRequestParams, options?: RequestOptions & InputOptions): Promise<CreateMessageResult> {
    return this.era.createMessage(this, params, options);
  }

  /**
   * Form-mode elicitation; see {@link ServerSession.elicitForm}. 2026-07-28: a multi
   * round-trip input; rejects with -32021 when the request did not declare form elicitation.
   */
  elicitForm(params: Omit<ElicitFormParams, 'mode'>, options?: RequestOptions & InputOptions): Promise<ElicitResult> {
    return this.era.elicitForm(this, params, options);
  }

  /**
   * URL-mode elicitation; see {@link ServerSession.elicitUrl}. 2026-07-28: a multi
   * round-trip input (no `elicitationId` on the wire; the returned one is the input's key).
   */
  elicitUrl(params: ElicitUrlParams, options?: RequestOptions & InputOptions): Promise<ElicitResult & { elicitationId: string }> {
    return this.era.elicitUrl(this, params, options);
  }

  /** Asks the client for its roots (`roots/list`). 2026-07-28: a multi round-trip input. */
  listRoots(options?: RequestOptions & InputOptions): Promise<Root[]> {
    return this.era.listRoots(this, options);
  }
}
