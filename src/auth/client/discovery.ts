/**
 * Finding the authorization server of an MCP server: protected resource metadata
 * (RFC 9728; MCP 2025-06-18 and later), authorization server metadata (RFC 8414 and
 * OpenID Connect Discovery, in the order MCP 2025-11-25 gives), and the 2025-03-26
 * fallbacks (metadata at the MCP server's origin, else the default `/authorize`, `/token`,
 * `/register` endpoints).
 *
 * Design note: documents are validated as they are found. A protected resource metadata
 * document whose `resource` does not identify the MCP server is refused (an error, not a
 * reason to try the next location): following it would let one server obtain tokens meant
 * for another. An authorization server metadata document whose `issuer` is not exactly the
 * issuer it was requested for is refused the same way (RFC 8414 §3.3). Only a missing
 * document (a non-2xx status or a body that is not a JSON object) moves on to the next
 * location. The 2025-03-26 metadata at the server's origin carries no issuer the client
 * knows in advance, so that one document is taken as served.
 */
import type { AuthorizationServer } from 'oauth4webapi';
import { OAuthClientError } from './errors.js';
import { getJson, type HttpContext } from './http.js';
import { authorizationServerMetadataUrls, protectedResourceMetadataUrls, requireFetchableUrl, resourceCovers } from './urls.js';

/** Protected resource metadata (RFC 9728 §2), as far as the client reads it. */
export interface ResourceMetadataDocument {
  resource: string;
  authorization_servers?: string[];
  scopes_supported?: string[];
  bearer_methods_supported?: string[];
  [key: string]: unknown;
}

/** A protected resource metadata document and where it was found. */
export interface DiscoveredResource {
  url: URL;
  metadata: ResourceMetadataDocument;
}

/** Authorization server metadata and how it was obtained. */
export interface DiscoveredAuthorizationServer {
  metadata: AuthorizationServer;
  /**
   * `rfc8414` / `openid`: fetched from the issuer's well-known URL, issuer checked.
   * `legacy-metadata`: the 2025-03-26 document at the MCP server's origin.
   * `legacy-defaults`: no metadata anywhere; the 2025-03-26 default endpoints.
   */
  source: 'rfc8414' | 'openid' | 'legacy-metadata' | 'legacy-defaults';
  /** Where the document was fetched from (absent for defaults). */
  url?: URL;
}

function stringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

/**
 * Fetches the protected resource metadata of the MCP server at `server`: from
 * `challengeUrl` (the `resource_metadata` of a 401) when given, then the path-based and
 * root well-known URLs (RFC 9728 §3.1). Resolves undefined when no location serves a
 * document (a 2025-03-26 server). Rejects with {@link OAuthClientError}: `insecure_url` for
 * a challenge URL that is not https (without the opt-in), `resource_mismatch` when the
 * document's `resource` does not cover `server`, `discovery_failed` for a document without
 * a `resource` or with malformed fields, `timeout`.
 */
export async function discoverProtectedResource(ctx: HttpContext, server: URL, challengeUrl: string | undefined): Promise<DiscoveredResource | undefined> {
  const fromChallenge =
    challengeUrl === undefined ? undefined : requireFetchableUrl(challengeUrl, 'The resource_metadata URL of the server’s challenge', ctx.allowInsecure);
  for (const url of protectedResourceMetadataUrls(server, fromChallenge)) {
    requireFetchableUrl(url, 'The protected resource metadata URL', ctx.allowInsecure);
    const { body } = await getJson(ctx, url);
    if (body === undefined) continue;
    if (typeof body.resource !== 'string' || body.resource === '') {
      throw new OAuthClientError('discovery_failed', `The protected resource metadata at ${url.href} has no resource`);
    }
    if (!resourceCovers(body.resource, server)) {
      throw new OAuthClientError(
        'resource_mismatch',
        `The protected resource metadata at ${url.href} is for ${JSON.stringify(body.resource)}, not for the MCP server ${server.href}; refusing to authorize`,
      );
    }
    if (body.authorization_servers !== undefined && !stringArray(body.authorization_servers)) {
      throw new OAuthClientError('discovery_failed', `The protected resource metadata at ${url.href} has a malformed authorization_servers`);
    }
    if (body.scopes_supported !== undefined && !stringArray(body.scopes_supported)) {
      throw new OAuthClientError('discovery_failed', `The protected resource metadata at ${url.href} has a malformed scopes_supported`);
    }
    return { url, metadata: body as ResourceMetadataDocument };
  }
  return undefined;
}

/**
 * Fetches the metadata of the authorization server `issuer` from its well-known URLs in
 * the MCP 2025-11-25 order and checks that its `issuer` is exactly `issuer`. Rejects with
 * {@link OAuthClientError}: `insecure_url` for an issuer that is not https (without the
 * opt-in) or has a query or fragment, `issuer_mismatch`, `discovery_failed` when no URL
 * serves a document, `timeout`.
 */
export async function discoverAuthorizationServer(ctx: HttpContext, issuer: string): Promise<DiscoveredAuthorizationServer> {
  const issuerUrl = requireFetchableUrl(issuer, 'The authorization server issuer', ctx.allowInsecure);
  if (issuerUrl.search !== '' || issuerUrl.hash !== '' || issuer.includes('#') || issuer.includes('?')) {
    throw new OAuthClientError('insecure_url', `The authorization server issuer ${JSON.stringify(issuer)} must not have a query or fragment`);
  }
  const tried: string[] = [];
  for (const candidate of authorizationServerMetadataUrls(issuerUrl)) {
    const { status, body } = await getJson(ctx, candidate.url);
    if (body === undefined) {
      tried.push(`${candidate.url.href} (${status})`);
      continue;
    }
    if (body.issuer !== issuer) {
      throw new OAuthClientError(
        'issuer_mismatch',
        `The authorization server metadata at ${candidate.url.href} names the issuer ${JSON.stringify(body.issuer)}, not ${JSON.stringify(issuer)}; refusing to use it`,
      );
    }
    return { metadata: body as unknown as AuthorizationServer, source: candidate.kind === 'oauth' ? 'rfc8414' : 'openid', url: candidate.url };
  }
  throw new OAuthClientError('discovery_failed', `No authorization server metadata for ${issuer} (tried ${tried.join(', ')})`);
}

/**
 * The 2025-03-26 way (servers without protected resource metadata): authorization server
 * metadata at the MCP server's origin (the authorization base URL), else the default
 * endpoints `/authorize`, `/token` and `/register` there. Rejects with
 * {@link OAuthClientError} `insecure_url` (an http server without the opt-in), `timeout`.
 */
export async function discoverLegacyAuthorizationServer(ctx: HttpContext, server: URL): Promise<DiscoveredAuthorizationServer> {
  const base = requireFetchableUrl(server.origin, 'The MCP server', ctx.allowInsecure);
  for (const candidate of authorizationServerMetadataUrls(base)) {
    const { body } = await getJson(ctx, candidate.url);
    if (body === undefined || typeof body.issuer !== 'string') continue;
    return { metadata: body as unknown as AuthorizationServer, source: 'legacy-metadata', url: candidate.url };
  }
  const origin = base.origin;
  return {
    metadata: {
      issuer: origin,
      authorization_endpoint: `${origin}/authorize`,
      token_endpoint: `${origin}/token`,
      registration_endpoint: `${origin}/register`,
    },
    source: 'legacy-defaults',
  };
}
