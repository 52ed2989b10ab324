/** `mcpkit/client`: the client role. */
export { Client, type ClientOptions, type UrlElicitationRequest } from './client.js';
export { UrlElicitationRequiredError } from '../jsonrpc/errors.js';
export { ALL_REVISIONS, type Subscription } from './client.js';
export type { StatelessClientOptions } from './stateless/client.js';
export {
  V2026_07_28,
  STATELESS_REVISIONS,
  MetaKey,
  StatelessErrorCode,
  ResultType,
  isStatelessRevision,
  type DiscoverResult,
  type SubscriptionFilter,
  type InputRequest,
  type InputRequiredResult,
  type CacheHints,
  type CacheScope,
} from '../protocol/stateless/wire.js';
export { ToolSearch, TOOL_SEARCH_DEFAULTS, type ToolSearchOptions, type ToolSearchQueryOptions, type ToolSearchAddOptions, type ToolSearchHit } from './tool-search.js';
export {
  ClientPool,
  PoolError,
  POOL_SEPARATOR,
  templateMatches,
  type ClientPoolOptions,
  type PoolServerOptions,
  type ReconnectOptions,
  type TransportFactory,
  type PoolServerState,
  type PoolServerStatus,
  type PoolTool,
  type PoolPrompt,
  type PoolResource,
  type PoolResourceTemplate,
  type PoolNotification,
  type PoolEvents,
} from './pool.js';
export {
  parseServersConfig,
  parseServerSpec,
  ServersConfigError,
  SERVERS_CONFIG_DEFAULTS,
  SERVER_NAME_PATTERN,
  type ServerSpec,
  type StdioServerSpec,
  type HttpServerSpec,
  type ServersConfig,
  type ServersConfigOptions,
} from './servers-config.js';
