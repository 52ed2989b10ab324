/**
 * The era strategy of a server request: what a handler's context does that depends on the
 * protocol era, decided once per request where it enters the protocol layer and carried on
 * the context (`ServerRequestContext.era`) for the whole dispatch.
 *
 * - 2025 era ({@link SessionEra}, one per connection): the client is the connection's —
 *   its negotiated revision, capabilities, identity and log level — and sampling,
 *   elicitation and roots are requests to it over the session, sent with the request's id
 *   so transports route them to the request's stream. Results pass through unchanged.
 * - 2026-07-28 era (`StatelessRequest`, one per request, stateless/request.ts): everything
 *   comes from the request's own `_meta`; inputs are multi round-trip requests; results are
 *   shaped (`resultType`, server identity, caching hints).
 *
 * Roles, the tasks engine and the transports ask the context; nothing branches on the era.
 */
import type { JSONObject } from '../jsonrpc/types.js';
import type { StatelessClaim } from '../protocol/incoming.js';
import type { InnerHandler } from '../protocol/middleware.js';
import type { RequestOptions } from '../session/session.js';
import type {
  ClientCapabilities,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitFormParams,
  ElicitResult,
  Implementation,
  LoggingLevel,
  Root,
} from '../types.js';
import type { StatelessRequest } from './stateless/request.js';
import type { ElicitUrlParams, EraConnection, EraRequest, InputOptions } from './types.js';

export type { ElicitUrlParams, EraRequest };

/** One era's behaviour behind a server request's context (see the module note). */
export interface ServerEra {
  /** The 2026-07-28 per-request state; undefined for a 2025-era request. */
  readonly stateless: StatelessRequest | undefined;
  /** The 2026-07-28 era reading (checked `_meta`, method table); undefined for a 2025-era request. */
  readonly claim: StatelessClaim | undefined;
  /** The revision the request is served at. */
  readonly protocolVersion: string | undefined;
  /** The client's capabilities for this request. */
  readonly clientCapabilities: ClientCapabilities | undefined;
  /** The client's self-reported identity. */
  readonly clientInfo: Implementation | undefined;
  /**
   * Runs the request (`next`) and shapes its outcome for the wire of this era. `next` and
   * the value returned may each be the outcome itself or a promise of it (a handler that
   * answered at once is not wrapped), and either may throw.
   */
  serve(next: InnerHandler, method: string, params: JSONObject | undefined, ctx: EraRequest): unknown;
  log(request: EraRequest, level: LoggingLevel, data: unknown, logger: string | undefined): Promise<void>;
  createMessage(request: EraRequest, params: CreateMessageRequestParams, options: (RequestOptions & InputOptions) | undefined): Promise<CreateMessageResult>;
  elicitForm(request: EraRequest, params: Omit<ElicitFormParams, 'mode'>, options: (RequestOptions & InputOptions) | undefined): Promise<ElicitResult>;
  elicitUrl(
    request: EraRequest,
    params: ElicitUrlParams,
    options: (RequestOptions & InputOptions) | undefined,
  ): Promise<ElicitResult & { elicitationId: string }>;
  listRoots(request: EraRequest, options: (RequestOptions & InputOptions) | undefined): Promise<Root[]>;
}

/** The 2025 era of one connection: its requests talk to the client through the session. */
export class SessionEra implements ServerEra {
  readonly #session: EraConnection;

  constructor(session: EraConnection) {
    this.#session = session;
  }

  get stateless(): undefined {
    return undefined;
  }

  get claim(): undefined {
    return undefined;
  }

  get protocolVersion(): string | undefined {
    return this.#session.protocolVersion;
  }

  get clientCapabilities(): ClientCapabilities | undefined {
    return this.#session.clientCapabilities;
  }

  get clientInfo(): Implementation | undefined {
    return this.#session.clientInfo;
  }

  serve(next: InnerHandler, method: string, params: JSONObject | undefined, ctx: EraRequest): unknown {
    return next(method, params, ctx as never);
  }

  log(request: EraRequest, level: LoggingLevel, data: unknown, logger: string | undefined): Promise<void> {
    return this.#session.sendLog(level, data, logger, request.id);
  }

  createMessage(request: EraRequest, params: CreateMessageRequestParams, options: RequestOptions | undefined): Promise<CreateMessageResult> {
    return this.#session.createMessage(params, related(request, options));
  }

  elicitForm(request: EraRequest, params: Omit<ElicitFormParams, 'mode'>, options: RequestOptions | undefined): Promise<ElicitResult> {
    return this.#session.elicitForm(params, related(request, options));
  }

  elicitUrl(request: EraRequest, params: ElicitUrlParams, options: RequestOptions | undefined): Promise<ElicitResult & { elicitationId: string }> {
    return this.#session.elicitUrl(params, related(request, options));
  }

  listRoots(request: EraRequest, options: RequestOptions | undefined): Promise<Root[]> {
    return this.#session.listRoots(related(request, options));
  }
}

/** Options of a request to the client on behalf of `request`: its signal, then `options`, its id as the related one. */
function related(request: EraRequest, options: RequestOptions | undefined): RequestOptions {
  return { signal: request.signal, ...options, relatedRequestId: request.id };
}
