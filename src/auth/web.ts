/**
 * `mcpkit/auth/web`: the runtime-neutral part of `mcpkit/auth`, for Cloudflare Workers, browsers
 * and any runtime without Node's modules — the bearer middleware and the OAuth client with
 * what they are built from. Nothing reachable from here imports `node:*` (the layering test
 * enforces it), so a bundler targeting a Worker or a page takes it as it is. The same values
 * as `mcpkit/auth` exports (one class is one class, whichever entry point it came from).
 *
 * Left out, because they need Node's modules: the fetch guard (`createGuardedFetch`:
 * `node:dns`, `node:net`, `node:http`, `node:https`) and what fetches through it
 * (`createJwtVerifier`, whose JWKS fetch is guarded, and the third-party authorization
 * server), `FileOAuthStore` (`node:fs`), `LoopbackRedirect` (`node:http`) and
 * `openInBrowser`. Where no DNS API exists nothing can check the addresses a host name
 * resolves to, so no guarded fetch is offered: verify tokens with
 * `createIntrospectionVerifier` or a `TokenVerifier` of your own, whose `fetch` is the
 * platform's (on Cloudflare Workers, outbound requests cannot reach private addresses).
 */

export type { HttpAuthorizer, HttpAuthResult } from '../http/server/types.js';
// ───────────── client ─────────────
export * from './client/neutral.js';
// ───────────── resource server ─────────────
export { type BearerAuth, type BearerAuthOptions, principalOf, requireBearerAuth } from './server/bearer.js';
export { createIntrospectionVerifier, type IntrospectionVerifierOptions } from './server/introspection-verifier.js';
export {
  type BearerChallenge,
  bearerChallenge,
  PROTECTED_RESOURCE_WELL_KNOWN,
  type ProtectedResourceMetadata,
  parseResource,
  protectedResourceMetadataPath,
  protectedResourceMetadataUrl,
} from './server/metadata.js';
export { requiredScopesFor, requireScopes, type ScopeRequirements } from './server/scopes.js';
export {
  AuthError,
  type AuthErrorCode,
  type AuthInfo,
  INSUFFICIENT_SCOPE_CODE,
  InsufficientScopeError,
  InvalidTokenError,
  isAuthInfo,
  type TokenVerifier,
  VerifierUnavailableError,
} from './server/types.js';
