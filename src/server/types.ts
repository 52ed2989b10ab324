/**
 * Types the server's modules share, in a leaf that imports no server module (so the
 * connection, the era strategies and the stateless layer can all name them without a cycle).
 */
import type { JSONObject, RequestId } from '../jsonrpc/types.js';
import type { RequestChannel } from '../session/context.js';
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

/** What an era strategy needs of the request it serves. */
export interface EraRequest {
  readonly id: RequestId;
  /** Where the request's related messages go. */
  readonly session: RequestChannel;
  readonly signal: AbortSignal;
  readonly authInfo: unknown;
}

/** The parameters of URL-mode elicitation. */
export interface ElicitUrlParams {
  message: string;
  url: string;
  /** 2025 era only: the id to use (default: a fresh unguessable one). */
  elicitationId?: string;
  _meta?: JSONObject;
}

/** Options of a context method that asks the client for input. */
export interface InputOptions {
  /**
   * The key of this input in a multi round-trip request (stateless era): give one when the
   * client should see a meaningful name, or when the handler does not ask for its inputs in
   * the same order on every run. Default: the next key of a per-request sequence
   * (`elicitation-1`, `sampling-1`, `roots-1`, …). Ignored in the 2025 era.
   */
  inputKey?: string;
}

/** What the 2025 era strategy uses of its connection (`ServerConnection` implements it). */
export interface EraConnection {
  readonly protocolVersion: string | undefined;
  readonly clientCapabilities: ClientCapabilities | undefined;
  readonly clientInfo: Implementation | undefined;
  sendLog(level: LoggingLevel, data: unknown, logger?: string, relatedRequestId?: RequestId): Promise<void>;
  createMessage(params: CreateMessageRequestParams, options?: RequestOptions): Promise<CreateMessageResult>;
  elicitForm(params: Omit<ElicitFormParams, 'mode'>, options?: RequestOptions): Promise<ElicitResult>;
  elicitUrl(params: ElicitUrlParams, options?: RequestOptions): Promise<ElicitResult & { elicitationId: string }>;
  listRoots(options?: RequestOptions): Promise<Root[]>;
}
