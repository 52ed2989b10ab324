/** `mcpkit`: core types, errors, the JSON-RPC session and the protocol tables. Runtime-neutral. */
export * from './jsonrpc/types.js';
export { McpError, LocalError, UrlElicitationRequiredError, invalidParams, methodNotFound, type LocalErrorCode, type PendingUrlElicitation } from './jsonrpc/errors.js';
export { DEFAULT_DECODE_LIMITS, type DecodeLimits } from './jsonrpc/decode.js';
export type { Transport, TransportReceiver, SendOptions, MessageInfo, ChannelView, MessageKind } from './transport/types.js';
export { InMemoryTransport } from './transport/memory.js';
export { RpcChannel, type RpcChannelOptions, type RpcChannelHooks, Session, type SessionOptions, type SessionHooks, type RequestOptions, type Progress } from './session/session.js';
export { RequestContext, type RequestChannel } from './session/context.js';
export { checkIncomingRequest, claimStatelessEra, type StatelessClaim } from './protocol/incoming.js';
export { Endpoint, type EndpointOptions, type RequestHandler, type NotificationListener } from './protocol/endpoint.js';
export { compose, type CallContext, type InnerHandler, type MethodHandler, type Middleware, type MiddlewareDirection } from './protocol/middleware.js';
export { Method, Notification } from './protocol/methods.js';
export { tableFor, extendedTableFor, hasCapability, type MethodSpec, type RevisionTable, type CapabilityGate, type ProtocolExtension, type Direction } from './protocol/table.js';
export * as Params from './protocol/params.js';
export { STATEFUL_REVISIONS, LATEST_REVISION, isSupportedRevision, negotiateRevision, V2024_11_05, V2025_03_26, V2025_06_18, V2025_11_25 } from './protocol/versions.js';
export type * from './types.js';
