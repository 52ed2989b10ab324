/** `mcpkit/server`: the server role. */
export { McpServer, type ServerOptions } from './server.js';
export { ServerSession } from './server-session.js';
export { ServerRequestContext } from './context.js';
export { toolError, type ToolConfig, type ToolHandler, type ToolReturn, type RawToolHandler, type RegisteredTool, type UserSchema } from './tools.js';
export type { ResourceMetadata, ResourceReader, ResourceTemplateConfig, TemplateReader, ReadReturn, RegisteredResource } from './resources.js';
export type { PromptConfig, PromptHandler, RegisteredPrompt } from './prompts.js';
export type { Completer, CompletionContext } from './completions.js';
export { rateLimit, audit, RATE_LIMITED_CODE, type RateLimitOptions, type AuditEvent } from './middleware.js';
export { UriTemplate } from './uri-template.js';
