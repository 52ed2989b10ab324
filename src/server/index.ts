/** `mcpkit/server`: the server role. */

export { type HandlerEra, type HandlerOptions, HandlerTable, type HandlerWrapper, type RequestHandler } from '../protocol/handler-table.js';
export {
  type CacheHints,
  type CacheScope,
  type DiscoverResult,
  type InputRequest,
  type InputRequiredResult,
  isStatelessRevision,
  MetaKey,
  missingClientCapability,
  ResultType,
  STATELESS_REVISIONS,
  StatelessErrorCode,
  type SubscriptionFilter,
  V2026_07_28,
} from '../protocol/stateless/wire.js';
export type { Completer, CompletionContext } from './completions.js';
export { ServerConnection, ServerRequestContext, ServerSession } from './connection.js';
export { type ElicitUrlParams, type EraRequest, type ServerEra, SessionEra } from './era.js';
export type { InterceptContext, InterceptDirection, InterceptNext, Interceptor, InterceptorOptions } from './interceptors.js';
export { type AuditEvent, audit, principalKey, RATE_LIMITED_CODE, type RateLimitOptions, rateLimit } from './middleware.js';
export type { PromptConfig, PromptHandler, RegisteredPrompt } from './prompts.js';
export type { ReadReturn, RegisteredResource, ResourceMetadata, ResourceReader, ResourceTemplateConfig, TemplateReader } from './resources.js';
export type { ConnectOptions } from './server.js';
export { McpServer, type ServerOptions } from './server.js';
export type { InstanceLocalDelivery, SharedChange, SharedListChangedMethod, SharedNotificationMethod, SharedNotifier } from './shared-notifications.js';
export type { StatelessDispatch, StatelessReplyChannel } from './stateless/dispatch.js';
export type { StatelessServerOptions } from './stateless/layer.js';
export { InputRequiredSignal, type RequestStateOptions } from './stateless/mrtr.js';
export { type InputOptions, type InputSink, StatelessRequest, type StatelessShaper } from './stateless/request.js';
export { SUBSCRIPTION_LIMIT_CODE, type SubscriptionLimitOptions } from './subscription-limits.js';
export {
  type RawToolHandler,
  type RegisteredTool,
  type StructuredToolHandler,
  type StructuredToolReturn,
  type ToolConfig,
  type ToolContentResult,
  type ToolHandler,
  ToolHandlerError,
  type ToolReturn,
  type ToolStructuredResult,
  toolError,
  type UserSchema,
} from './tools.js';
export { UriTemplate } from './uri-template.js';
