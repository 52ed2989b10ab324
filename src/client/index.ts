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
export { CACHED_METHODS, cachePolicyOf, type ClientCacheOptions, type ResultCacheControl, type CachePolicy } from './cache.js';
export { MemoryResultCacheStore, type MemoryResultCacheStoreOptions, type ResultCacheStore } from './cache-store.js';
