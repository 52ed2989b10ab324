/**
 * The client ID metadata document (SEP-991, draft-ietf-oauth-client-id-metadata-document):
 * the JSON an application hosts at an https URL that then serves as its `client_id` with
 * authorization servers that advertise `client_id_metadata_document_supported`.
 */
import { OAuthClientError } from './errors.js';
import type { ClientMetadata } from './oauth-client.js';
import { requireFetchableUrl, requireRedirectUri } from './urls.js';

/** What {@link clientMetadataDocument} needs. */
export interface ClientMetadataDocumentOptions extends ClientMetadata {
  /** The https URL the document is served at (it is the client id). Must have a path. */
  clientId: string;
  redirectUris: string[];
  /** Declare `refresh_token` among the grant types (SEP-2207). Default true. */
  refreshTokens?: boolean;
  /** A public JWK Set for `private_key_jwt` (then the auth method is `private_key_jwt`). */
  jwks?: { keys: Array<Record<string, unknown>> };
}

/**
 * Builds the metadata document to host at `clientId`. Throws {@link OAuthClientError}
 * `insecure_url` for a client id that is not https, `invalid_configuration` for one without
 * a path, no redirect URI, or a redirect URI that is neither https nor loopback http.
 */
export function clientMetadataDocument(options: ClientMetadataDocumentOptions): Record<string, unknown> {
  const id = requireFetchableUrl(options.clientId, 'The client id (metadata document URL)', false);
  if (id.pathname === '/' || id.pathname === '') throw new OAuthClientError('invalid_configuration', 'The client id URL must have a path');
  if (options.redirectUris.length === 0) throw new OAuthClientError('invalid_configuration', 'The metadata document needs at least one redirect URI');
  for (const uri of options.redirectUris) requireRedirectUri(uri);
  const doc: Record<string, unknown> = {
    client_id: options.clientId,
    client_name: options.clientName,
    redirect_uris: [...options.redirectUris],
    grant_types: options.refreshTokens === false ? ['authorization_code'] : ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: options.jwks ? 'private_key_jwt' : 'none',
  };
  if (options.applicationType !== undefined) doc.application_type = options.applicationType;
  if (options.clientUri !== undefined) doc.client_uri = options.clientUri;
  if (options.logoUri !== undefined) doc.logo_uri = options.logoUri;
  if (options.softwareId !== undefined) doc.software_id = options.softwareId;
  if (options.softwareVersion !== undefined) doc.software_version = options.softwareVersion;
  if (options.jwks) doc.jwks = options.jwks;
  return doc;
}
