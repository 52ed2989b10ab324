/**
 * `mcpkit/http`: the Streamable HTTP transport (and the legacy HTTP+SSE one), server and
 * client: exactly the names `mcpkit/http/server` (src/http/server/index.ts) and
 * `mcpkit/http/client` (src/http/client/index.ts) export, as the same values. Importing it
 * loads both halves; an application that is only a server (or only a client) starts faster
 * importing its half. Runtime-neutral: nothing here imports `node:*`; the Node adapter of the
 * server and the Node requester of the client are `mcpkit/node` (src/http/node.ts).
 *
 * Design note: the names are re-exported from the modules that define them, not from the two
 * halves' entry files: a module that only re-exports becomes an empty chunk of the bundle
 * when two entry points import it, one more file to load (test/packaging/entry-points.test.ts
 * checks that this list is the union of the halves).
 */

export type {
  AbortWatch,
  ChunkRead,
  ChunkReader,
  ChunkSource,
  ClientResponse,
  HeaderList,
  HeadersInput,
  HttpAuthorization,
  HttpClientCommonOptions,
  HttpRequester,
  ReconnectOptions,
  RequesterInit,
} from './client/common.js';
export { toAbortSignal } from './client/common.js';
export { HttpStatusError, type RedirectRefusal, RedirectRefusedError, SessionExpiredError } from './client/errors.js';
export {
  type ConnectClientOptions,
  connectClient,
  createClientTransport,
  FallbackTransport,
  type FallbackTransportOptions,
  type HttpTransportKind,
  shouldFallBack,
} from './client/fallback.js';
export { SseClientTransport, type SseClientTransportOptions } from './client/legacy-sse.js';
// ───────────── client (mcpkit/http/client) ─────────────
export { StreamableHttpClientTransport, type StreamableHttpClientTransportOptions } from './client/streamable.js';
export { CORS_EXPOSED_HEADERS, CORS_REQUEST_HEADERS, type CorsOptions, type FetchHandler, withCors } from './server/cors.js';
export { type CloseOptions, DRAIN_CUT_MESSAGE } from './server/drain.js';
export { type EventStore, InMemoryEventStore, type InMemoryEventStoreOptions, type StoredEvent } from './server/event-store.js';
// ───────────── server (mcpkit/http/server) ─────────────
export { createStreamableHttpHandler, StreamableHttpHandler, type StreamableHttpOptions } from './server/handler.js';
export { BodyBudgetError, DEFAULT_MAX_TOTAL_BODY_BYTES, InboundBudget } from './server/inbound.js';
export { LegacySseTransport } from './server/legacy-sse.js';
export { OutboundBudget, type OutboundOptions, SlowReaderError, type SlowReaderReason } from './server/outbound.js';
export { RequestRefusedError } from './server/refusal-report.js';
export { LOOPBACK_HOSTS, RequestGuard } from './server/request-guard.js';
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
} from './server/session-directory.js';
export { closeSseStream, disconnectAfterPriming, HttpMessageInfo, type JsonOutcome, StreamableSessionTransport } from './server/session-transport.js';
export { StatelessMessageInfo } from './server/stateless/exchange.js';
export { StatelessPostHandler, type StatelessPostOptions } from './server/stateless/post.js';
export type {
  BodyReader,
  HttpHeaders,
  HttpPlainReply,
  HttpReply,
  HttpRequest,
  HttpRequestInfo,
  HttpStreamReply,
  SseReplyStream,
  SseSink,
} from './server/types.js';
export { bodyTooLarge, describeWebRequest, MAX_BUFFERED_BYTES, toWebResponse, type WebResponseOptions } from './server/web.js';
