/**
 * The client half of `mcpkit/auth`: the OAuth 2.1 client for MCP servers, its state
 * stores, the loopback redirect for command-line and desktop apps, and the pieces they are
 * built from (challenge parsing, discovery, DPoP proofs). Needs the `oauth4webapi` and
 * `jose` packages. `FileOAuthStore`, `LoopbackRedirect` and `openInBrowser` need Node; the
 * rest (./neutral.ts) is runtime-neutral.
 */

export { FileOAuthStore, type FileOAuthStoreOptions } from './file-store.js';
export { LoopbackRedirect, type LoopbackRedirectOptions } from './loopback.js';
export * from './neutral.js';
export { browserCommand, type OpenInBrowserOptions, openInBrowser } from './open-url.js';
