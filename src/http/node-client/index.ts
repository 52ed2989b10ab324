/**
 * `mcpkit/node/client`: the Node.js requester of the HTTP client transports,
 * `nodeHttpRequester()` (HTTP/1.1 on `node:net` and `node:tls`, keep-alive sockets; see
 * requester.ts). It exports exactly the client names `mcpkit/node` exports, as the same
 * values, and loads none of the server adapter.
 */
export { type NodeHttpRequester, type NodeHttpRequesterOptions, nodeHttpRequester } from './requester.js';
