/** `mcpkit`: core types, errors, the JSON-RPC session and the protocol tables. Runtime-neutral. */

export { DEFAULT_DECODE_LIMITS, type DecodeLimits } from './jsonrpc/decode.js';
export {
  invalidParams,
  LocalError,
  type LocalErrorCode,
  McpError,
  methodNotFound,
  type PendingUrlElicitation,
  UrlElicitationRequiredError,
} from './jsonrpc/errors.js';
export * from './jsonrpc/types.js';
export { Endpoint, type EndpointOptions, type NotificationListener, type RequestHandler } from './protocol/endpoint.js';
export { checkIncomingRequest, claimStatelessEra, type StatelessClaim } from './protocol/incoming.js';
export { Method, Notification } from './protocol/methods.js';
export { type CallContext, compose, type InnerHandler, type MethodHandler, type Middleware, type MiddlewareDirection } from './protocol/middleware.js';
export * as Params from './protocol/params.js';
export {
  type CapabilityGate,
  type Direction,
  extendedTableFor,
  hasCapability,
  type MethodSpec,
  type ProtocolExtension,
  type RevisionTable,
  tableFor,
} from './protocol/table.js';
export {
  isSupportedRevision,
  LATEST_REVISION,
  negotiateRevision,
  STATEFUL_REVISIONS,
  V2024_11_05,
  V2025_03_26,
  V2025_06_18,
  V2025_11_25,
} from './protocol/versions.js';
export { type RequestChannel, RequestContext } from './session/context.js';
export {
  type Progress,
  type RequestOptions,
  RpcChannel,
  type RpcChannelHooks,
  type RpcChannelOptions,
  Session,
  type SessionHooks,
  type SessionOptions,
} from './session/session.js';
export { InMemoryTransport } from './transport/memory.js';
export type { ChannelView, MessageInfo, MessageKind, SendOptions, Transport, TransportReceiver } from './transport/types.js';
export type * from './types.js';
