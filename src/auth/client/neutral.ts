/**
 * The runtime-neutral part of the OAuth client: the client, its in-memory store and the
 * pieces it is built from (challenge parsing, discovery, DPoP proofs, client metadata
 * documents). Nothing here imports `node:*`; `mcpkit/auth/web` and `mcpkit/auth` both
 * export all of it.
 */

export {
  type DiscoveredAuthorizationServer,
  type DiscoveredResource,
  discoverAuthorizationServer,
  discoverLegacyAuthorizationServer,
  discoverProtectedResource,
  type ResourceMetadataDocument,
} from './discovery.js';
export { DpopProver } from './dpop.js';
export { OAuthClientError, type OAuthClientErrorCode, type OAuthClientErrorDetails } from './errors.js';
export { type ClientMetadataDocumentOptions, clientMetadataDocument } from './metadata-document.js';
export {
  type AssertionContext,
  type AuthorizationCodeGrant,
  type AuthorizationRequest,
  type ClientCredentialsGrant,
  type ClientMetadata,
  type EnterpriseManagedGrant,
  type JwtBearerGrant,
  OAuthClient,
  type OAuthClientOptions,
  type OAuthGrant,
  type PreRegisteredClient,
  type UserAgent,
} from './oauth-client.js';
export {
  InMemoryOAuthStore,
  type OAuthStore,
  PENDING_AUTHORIZATION_TTL_MS,
  type PendingAuthorization,
  type RegistrationMethod,
  type StoredClient,
  type StoredTokens,
  type TokenEndpointAuthMethod,
} from './store.js';
export type { ClientPrivateKey } from './token-endpoint.js';
export { type AuthChallenge, parseWwwAuthenticate, type ResourceChallenge, resourceChallenge } from './www-authenticate.js';
