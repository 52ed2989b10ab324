/** `mcpkit/server`: the server role. */
export { McpServer, type ServerOptions } from './server.js';
export { ServerConnection, ServerSession, ServerRequestContext } from './connection.js';
export type { InterceptContext, InterceptNext, Interceptor, InterceptorOptions, InterceptDirection } from './interceptors.js';
export { HandlerTable, type HandlerEra, type HandlerOptions, type HandlerWrapper, type RequestHandler } from '../protocol/handler-table.js';
export { SessionEra, type ServerEra, type EraRequest, type ElicitUrlParams } from './era.js';
export type { StatelessDispatch, StatelessReplyChannel } from './stateless/dispatch.js';
export {
  toolError,
  ToolHandlerError,
  type ToolConfig,
  type ToolHandler,
  type StructuredToolHandler,
  type ToolReturn,
  type StructuredToolReturn,
  type ToolContentResult,
  type ToolStructuredResult,
  type RawToolHandler,
  type RegisteredTool,
  type UserSchema,
} from './tools.js';
export type { ResourceMetadata, ResourceReader, ResourceTemplateConfig, TemplateReader, ReadReturn, RegisteredResource } from './resources.js';
export type { PromptConfig, PromptHandler, RegisteredPrompt } from './prompts.js';
export type { Completer, CompletionContext } from './completions.js';
export { rateLimit, audit, principalKey, RATE_LIMITED_CODE, type RateLimitOptions, type AuditEvent } from './middleware.js';
export { UriTemplate } from './uri-template.js';
export { SUBSCRIPTION_LIMIT_CODE, type SubscriptionLimitOptions } from './subscription-limits.js';
export type { ConnectOptions } from './server.js';
export type { SharedNotifier, SharedChange, SharedNotificationMethod, SharedListChangedMethod, InstanceLocalDelivery } from './shared-notifications.js';
export type { StatelessServerOptions } from './stateless/layer.js';
export { StatelessRequest, type InputOptions, type InputSink, type StatelessShaper } from './stateless/request.js';
export { InputRequiredSignal, type RequestStateOptions } from './stateless/mrtr.js';
export {
  V2026_07_28,
  STATELESS_REVISIONS,
  MetaKey,
  StatelessErrorCode,
  ResultType,
  isStatelessRevision,
  missingClientCapability,
  type DiscoverResult,
  type SubscriptionFilter,
  type InputRequest,
  type InputRequiredResult,
  type CacheHints,
  type CacheScope,
} from '../protocol/stateless/wire.js';
