/**
 * `mcpkit/http/server`: the server half of `mcpkit/http`, the Streamable HTTP handler (both
 * eras: sessions for 2025, the stateless POST of 2026-07-28), the legacy HTTP+SSE server
 * transport and what they are built from. It exports exactly the server names `mcpkit/http`
 * exports, as the same values, and loads none of the client transports: an HTTP server that
 * cares about start-up imports this (and `mcpkit/node/server`) instead of `mcpkit/http`.
 * Runtime-neutral: nothing here imports `node:*`.
 */
export { createStreamableHttpHandler, StreamableHttpHandler, type StreamableHttpOptions } from './handler.js';
export { DRAIN_CUT_MESSAGE, type CloseOptions } from './drain.js';
export { InMemoryEventStore, type EventStore, type InMemoryEventStoreOptions, type StoredEvent } from './event-store.js';
export { RequestGuard, LOOPBACK_HOSTS } from './request-guard.js';
export { RequestRefusedError } from './refusal-report.js';
export { closeSseStream, disconnectAfterPriming, HttpMessageInfo, StreamableSessionTransport, type JsonOutcome } from './session-transport.js';
export type { FollowEnd, FollowedStream, RoutedKind, SessionDirectory, SessionDirectoryListener, SessionLimits, SessionPatch, SessionRecord, StreamFeed, StreamFollower } from './session-directory.js';
export { LegacySseTransport } from './legacy-sse.js';
export { describeWebRequest, toWebResponse, bodyTooLarge, MAX_BUFFERED_BYTES, type WebResponseOptions } from './web.js';
export { withCors, CORS_REQUEST_HEADERS, CORS_EXPOSED_HEADERS, type CorsOptions, type FetchHandler } from './cors.js';
export { OutboundBudget, SlowReaderError, type OutboundOptions, type SlowReaderReason } from './outbound.js';
export { BodyBudgetError, DEFAULT_MAX_TOTAL_BODY_BYTES, InboundBudget } from './inbound.js';
export type { BodyReader, HttpRequest, HttpRequestInfo, HttpHeaders, HttpReply, HttpPlainReply, HttpStreamReply, SseReplyStream, SseSink } from './types.js';
export { StatelessPostHandler, type StatelessPostOptions } from './stateless/post.js';
export { StatelessMessageInfo } from './stateless/exchange.js';
