/**
 * `mcpkit/auth`: OAuth 2.1 for MCP over HTTP — the resource server (bearer tokens, protected
 * resource metadata, scopes), the third-party authorization flow, the fetch guard, and the
 * client half.
 *
 * Node-specific: the fetch guard uses `node:dns` / `node:net`. The OAuth libraries are
 * optional peer dependencies loaded on first use: `jose` (JWT validation) and `oauth4webapi`
 * (the upstream client of the third-party flow); importing this entry point needs neither.
 * Test fixtures (`test/helpers/auth/`) are not part of the package.
 */

// ───────────── client: the Node-only pieces (the rest comes with ./web.js) ─────────────
export {
  browserCommand,
  FileOAuthStore,
  type FileOAuthStoreOptions,
  LoopbackRedirect,
  type LoopbackRedirectOptions,
  type OpenInBrowserOptions,
  openInBrowser,
} from './client/index.js';
// ───────────── fetch guard (server-side fetches of metadata documents) ─────────────
export {
  createGuardedFetch,
  FetchGuardError,
  type FetchGuardErrorCode,
  type FetchGuardOptions,
  type GuardedFetch,
  type GuardedFetchInit,
  isRefusedAddress,
  type ResolvedAddress,
} from './fetch-guard.js';
export { type ConsentDetails, escapeHtml, renderConsentPage, renderErrorPage } from './server/consent-page.js';
// ───────────── resource server: JWT validation (its JWKS fetch is guarded) ─────────────
export { createJwtVerifier, type JwtVerifierOptions } from './server/jwt-verifier.js';
// ───────────── third-party authorization flow (this server as authorization server) ─────────────
export {
  type ClientRegistration,
  createThirdPartyAuthServer,
  type ThirdPartyAuthServer,
  type ThirdPartyAuthServerOptions,
  type UpstreamOptions,
} from './server/third-party.js';
export {
  type AccessTokenRecord,
  type BrowserRecord,
  type ClientRecord,
  type CodeRecord,
  type GrantRecord,
  InMemoryThirdPartyStore,
  type InMemoryThirdPartyStoreOptions,
  type RecordKind,
  type RefreshTokenRecord,
  type ThirdPartyStore,
  type TransactionRecord,
  type UpstreamStateRecord,
  type UsedCodeRecord,
} from './server/third-party-store.js';
// ───────────── what mcpkit/auth/web exports (runtime-neutral) ─────────────
export * from './web.js';
