/** `mcpkit/client`: the client role. */

export { UrlElicitationRequiredError } from '../jsonrpc/errors.js';
export {
  type CacheHints,
  type CacheScope,
  type DiscoverResult,
  type InputRequest,
  type InputRequiredResult,
  isStatelessRevision,
  MetaKey,
  ResultType,
  STATELESS_REVISIONS,
  StatelessErrorCode,
  type SubscriptionFilter,
  V2026_07_28,
} from '../protocol/stateless/wire.js';
export { CACHED_METHODS, type CachePolicy, type ClientCacheOptions, cachePolicyOf, type ResultCacheControl } from './cache.js';
export { MemoryResultCacheStore, type MemoryResultCacheStoreOptions, type ResultCacheStore } from './cache-store.js';
export { ALL_REVISIONS, Client, type ClientOptions, type Subscription, type UrlElicitationRequest } from './client.js';
export {
  ClientPool,
  type ClientPoolOptions,
  POOL_SEPARATOR,
  PoolError,
  type PoolEvents,
  type PoolNotification,
  type PoolPrompt,
  type PoolResource,
  type PoolResourceTemplate,
  type PoolServerOptions,
  type PoolServerState,
  type PoolServerStatus,
  type PoolTool,
  type ReconnectOptions,
  type TransportFactory,
  templateMatches,
} from './pool.js';
export {
  type HttpServerSpec,
  parseServerSpec,
  parseServersConfig,
  SERVER_NAME_PATTERN,
  SERVERS_CONFIG_DEFAULTS,
  type ServerSpec,
  type ServersConfig,
  ServersConfigError,
  type ServersConfigOptions,
  type StdioServerSpec,
} from './servers-config.js';
export type { StatelessClientOptions } from './stateless/client.js';
export {
  TOOL_SEARCH_DEFAULTS,
  ToolSearch,
  type ToolSearchAddOptions,
  type ToolSearchHit,
  type ToolSearchOptions,
  type ToolSearchQueryOptions,
} from './tool-search.js';
