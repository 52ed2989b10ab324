/**
 * `mcpkit/node`: mcpkit's HTTP on Node.js, both halves: the adapter serving the Streamable
 * HTTP handler on `node:http` (`serveNode`, `toNodeListener`: `mcpkit/node/server`,
 * src/http/node-server.ts) and the requester of the HTTP client transports
 * (`nodeHttpRequester`: `mcpkit/node/client`, src/http/node-client/index.ts). Importing it
 * loads both; an application that is only a server (or only a client) starts faster
 * importing its half.
 *
 * Design note: the requester's names are re-exported from the module that defines them, not
 * from `mcpkit/node/client`'s entry file, which only re-exports: such a module becomes an
 * empty chunk of the bundle when two entry points import it, one more file to load.
 */

export { type NodeHttpRequester, type NodeHttpRequesterOptions, nodeHttpRequester } from './node-client/requester.js';
export * from './node-server.js';
