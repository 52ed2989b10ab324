/**
 * The runtime-neutral part of the OAuth client: the client, its in-memory store and the
 * pieces it is built from (challenge parsing, discovery, DPoP proofs, client metadata
 * documents). Nothing here imports `node:*`; `mcpkit/auth/web` and `mcpkit/auth` both
 * export all of it.
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
export { clientMetadataDocument, type ClientMetadataDocumentOptions } from './metadata-document.js';
export { parseWwwAuthenticate, resourceChallenge, type AuthChallenge, type ResourceChallenge } from './www-authenticate.js';
export { discoverProtectedResource, discoverAuthorizationServer, discoverLegacyAuthorizationServer, type ResourceMetadataDocument, type DiscoveredResource, type DiscoveredAuthorizationServer } from './discovery.js';
export { DpopProver } from './dpop.js';
export { type ClientPrivateKey } from './token-endpoint.js';
