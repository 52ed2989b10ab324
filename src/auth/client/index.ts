/**
 * The client half of `mcpkit/auth`: the OAuth 2.1 client for MCP servers, its state
 * stores, the loopback redirect for command-line and desktop apps, and the pieces they are
 * built from (challenge parsing, discovery, DPoP proofs). Needs the `oauth4webapi` and
 * `jose` packages. `FileOAuthStore`, `LoopbackRedirect` and `openInBrowser` need Node; the
 * rest is runtime-neutral.
 */
export {
  OAuthClient,
  type OAuthClientOptions,
  type OAuthGrant,
  type AuthorizationCodeGrant,
  type ClientCredentialsGrant,
  type JwtBearerGrant,
  type EnterpriseManagedGrant,
  type AssertionContext,
  type AuthorizationRequest,
  type UserAgent,
  type PreRegisteredClient,
  type ClientMetadata,
} from './oauth-client.js';
export { OAuthClientError, type OAuthClientErrorCode, type OAuthClientErrorDetails } from './errors.js';
export {
  InMemoryOAuthStore,
  PENDING_AUTHORIZATION_TTL_MS,
  type OAuthStore,
  type StoredClient,
  type StoredTokens,
  type PendingAuthorization,
  type RegistrationMethod,
  type TokenEndpointAuthMethod,
} from './store.js';
export { FileOAuthStore, type FileOAuthStoreOptions } from './file-store.js';
export { LoopbackRedirect, type LoopbackRedirectOptions } from './loopback.js';
export { openInBrowser, browserCommand, type OpenInBrowserOptions } from './open-url.js';
export { clientMetadataDocument, type ClientMetadataDocumentOptions } from './metadata-document.js';
export { parseWwwAuthenticate, resourceChallenge, type AuthChallenge, type ResourceChallenge } from './www-authenticate.js';
export { discoverProtectedResource, discoverAuthorizationServer, discoverLegacyAuthorizationServer, type ResourceMetadataDocument, type DiscoveredResource, type DiscoveredAuthorizationServer } from './discovery.js';
export { DpopProver } from './dpop.js';
export { type ClientPrivateKey } from './token-endpoint.js';
