/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728) for an MCP server: the document, its
 * well-known locations, and the `WWW-Authenticate` challenge that points at it
 * (2025-06-18 › Authorization › Authorization Server Location). Runtime-neutral.
 */

/** The protected resource metadata document (RFC 9728 § 2). */
export interface ProtectedResourceMetadata {
  /** The resource identifier: the MCP server's canonical URI (e.g. `https://mcp.example.com/mcp`). */
  resource: string;
  /** Issuer identifiers of the authorization servers that issue tokens for it (at least one). */
  authorization_servers: string[];
  /** Scopes clients may request (the minimal set for basic use; more come by step-up). */
  scopes_supported?: string[];
  /** How tokens are presented: always `["header"]` here (query and body are refused). */
  bearer_methods_supported?: string[];
  /** Human-readable name. */
  resource_name?: string;
  /** Documentation URL. */
  resource_documentation?: string;
  [extension: string]: unknown;
}

/** The well-known prefix of RFC 9728. */
export const PROTECTED_RESOURCE_WELL_KNOWN = '/.well-known/oauth-protected-resource';

/**
 * Validates a resource identifier (absolute `http(s)` URI without fragment) and returns it as
 * a `URL`. Throws `TypeError` otherwise.
 */
export function parseResource(resource: string): URL {
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    throw new TypeError(`Not an absolute URI: ${resource}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError(`The resource must be an http(s) URI: ${resource}`);
  if (resource.includes('#')) throw new TypeError(`The resource must not have a fragment: ${resource}`);
  return url;
}

/**
 * The path of the metadata of `resource` (RFC 9728 § 3.1: the well-known prefix inserted
 * before the resource's path; a trailing slash of the path is dropped): `https://h/mcp` →
 * `/.well-known/oauth-protected-resource/mcp`; `https://h` → `/.well-known/oauth-protected-resource`.
 */
export function protectedResourceMetadataPath(resource: string): string {
  const path = parseResource(resource).pathname.replace(/\/+$/, '');
  return path === '' ? PROTECTED_RESOURCE_WELL_KNOWN : PROTECTED_RESOURCE_WELL_KNOWN + path;
}

/** The absolute URL of the metadata of `resource` (what `resource_metadata` in a challenge names). */
export function protectedResourceMetadataUrl(resource: string): string {
  return parseResource(resource).origin + protectedResourceMetadataPath(resource);
}

/** Quotes a value for an auth-param (RFC 9110 quoted-string). */
function quote(value: string): string {
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`).replace(/[\r\n]/g, ' ')}"`;
}

/** Parameters of a Bearer challenge (RFC 6750 § 3, RFC 9728 § 5.1). */
export interface BearerChallenge {
  /** `invalid_request`, `invalid_token` or `insufficient_scope`; absent when no credentials were sent. */
  error?: string;
  error_description?: string;
  /** The scopes the request needs, space-separated. */
  scope?: string;
  /** The protected resource metadata URL. */
  resource_metadata?: string;
}

/** Builds a `WWW-Authenticate: Bearer …` header value. Parameters in a fixed order; absent ones omitted. */
export function bearerChallenge(params: BearerChallenge): string {
  const parts: string[] = [];
  if (params.error !== undefined) parts.push(`error=${quote(params.error)}`);
  if (params.error_description !== undefined) parts.push(`error_description=${quote(params.error_description)}`);
  if (params.scope !== undefined && params.scope !== '') parts.push(`scope=${quote(params.scope)}`);
  if (params.resource_metadata !== undefined) parts.push(`resource_metadata=${quote(params.resource_metadata)}`);
  return parts.length === 0 ? 'Bearer' : `Bearer ${parts.join(', ')}`;
}
