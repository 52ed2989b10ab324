/**
 * `mcpkit/http/server`: the server half of `mcpkit/http`, the Streamable HTTP handler (both
 * eras: sessions for 2025, the stateless POST of 2026-07-28), the legacy HTTP+SSE server
 * transport and what they are built from. It exports exactly the server names `mcpkit/http`
 * exports, as the same values, and loads none of the client transports: an HTTP server that
 * cares about start-up imports this (and `mcpkit/node/server`) instead of `mcpkit/http`.
 * Runtime-neutral: nothing here imports `node:*`.
 */

export { CORS_EXPOSED_HEADERS, CORS_REQUEST_HEADERS, type CorsOptions, type FetchHandler, withCors } from './cors.js';
export { type CloseOptions, DRAIN_CUT_MESSAGE } from './drain.js';
export { type EventStore, InMemoryEventStore, type InMemoryEventStoreOptions, type StoredEvent } from './event-store.js';
export { createStreamableHttpHandler, StreamableHttpHandler, type StreamableHttpOptions } from './handler.js';
export { BodyBudgetError, DEFAULT_MAX_TOTAL_BODY_BYTES, InboundBudget } from './inbound.js';
export { LegacySseTransport } from './legacy-sse.js';
export { OutboundBudget, type OutboundOptions, SlowReaderError, type SlowReaderReason } from './outbound.js';
export { RequestRefusedError } from './refusal-report.js';
export { LOOPBACK_HOSTS, RequestGuard } from './request-guard.js';
export type {
  FollowEnd,
  FollowedStream,
  RoutedKind,
  SessionDirectory,
  SessionDirectoryListener,
  SessionLimits,
  SessionPatch,
  SessionRecord,
  StreamFeed,
  StreamFollower,
} from './session-directory.js';
export { closeSseStream, disconnectAfterPriming, HttpMessageInfo, type JsonOutcome, StreamableSessionTransport } from './session-transport.js';
export { StatelessMessageInfo } from './stateless/exchange.js';
export { StatelessPostHandler, type StatelessPostOptions } from './stateless/post.js';
export type { BodyReader, HttpHeaders, HttpPlainReply, HttpReply, HttpRequest, HttpRequestInfo, HttpStreamReply, SseReplyStream, SseSink } from './types.js';
export { bodyTooLarge, describeWebRequest, MAX_BUFFERED_BYTES, toWebResponse, type WebResponseOptions } from './web.js';
