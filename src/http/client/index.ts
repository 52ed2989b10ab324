/**
 * `mcpkit/http/client`: the client half of `mcpkit/http`, the Streamable HTTP client
 * transport, the legacy HTTP+SSE one, the fallback between them and their errors and
 * contracts (the requester a transport sends with, the authorization hook). It exports
 * exactly the client names `mcpkit/http` exports, as the same values, and loads none of the
 * server transports. Runtime-neutral: nothing here imports `node:*` (the Node requester is
 * `mcpkit/node/client`).
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
} from './common.js';
export { toAbortSignal } from './common.js';
export { HttpStatusError, type RedirectRefusal, RedirectRefusedError, SessionExpiredError } from './errors.js';
export {
  type ConnectClientOptions,
  connectClient,
  createClientTransport,
  FallbackTransport,
  type FallbackTransportOptions,
  type HttpTransportKind,
  shouldFallBack,
} from './fallback.js';
export { SseClientTransport, type SseClientTransportOptions } from './legacy-sse.js';
export { StreamableHttpClientTransport, type StreamableHttpClientTransportOptions } from './streamable.js';
