/**
 * Bearer token authorization for the Streamable HTTP handler: `requireBearerAuth()` builds
 * the handler's `authorize` hook (see `HttpAuthorizer` in `src/http/server/types.ts`).
 *
 * What it does, per 2025-03-26 / 2025-06-18 / 2025-11-25 › Authorization and RFC 6750:
 * - The token is taken only from the `Authorization: Bearer` header, on every request. A
 *   token in the query string (`access_token=`) is refused with 400 `invalid_request`; the
 *   body is never looked at (MCP bodies are JSON; form bodies get 415 from the handler).
 * - No token (or another scheme): 401 with `WWW-Authenticate: Bearer resource_metadata="…",
 *   scope="…"` and no `error` (RFC 6750 § 3.1). A token that fails validation — expired,
 *   revoked, another audience, another issuer, bad signature: 401 with
 *   `error="invalid_token"`. Validation impossible (keys or introspection unreachable): 503
 *   with `Retry-After`, reported to `onError`.
 * - Scopes: `requiredScopes` for every request and `scopes` (per method, per tool) for each
 *   parsed message; a token lacking some gets 403 with `error="insufficient_scope"` and
 *   `scope` = the token's scopes plus the missing ones (the spec's recommended approach, so
 *   a step-up never loses what was granted).
 * - The protected resource metadata (RFC 9728) is served at the path-based well-known URL of
 *   the resource (named in every challenge) and, unless disabled, at the root one.
 * - The verified {@link AuthInfo} becomes the request's auth info: handlers see it as
 *   `ctx.authInfo`; {@link BearerAuth.sessionOwner} is the principal key the handler binds
 *   sessions to by default.
 * Runtime-neutral.
 */
import type { HttpAuthorizer, HttpAuthResult, HttpPlainReply, HttpReply, HttpRequest } from '../../http/server/types.js';
import { toError } from '../../jsonrpc/errors.js';
import { principalKey } from '../../server/middleware.js';
import {
  bearerChallenge,
  PROTECTED_RESOURCE_WELL_KNOWN,
  type ProtectedResourceMetadata,
  protectedResourceMetadataPath,
  protectedResourceMetadataUrl,
} from './metadata.js';
import { requiredScopesFor, type ScopeRequirements } from './scopes.js';
import { AuthError, type AuthInfo, InvalidTokenError, isAuthInfo, missingScopes, type TokenVerifier, unionScopes } from './types.js';

/** Options of {@link requireBearerAuth}. */
export interface BearerAuthOptions {
  /** Validates tokens (`createJwtVerifier`, `createIntrospectionVerifier`, or your own). */
  verifier: TokenVerifier;
  /**
   * The protected resource metadata to serve (`resource` = this MCP server's canonical URI,
   * `authorization_servers`). `bearer_methods_supported` defaults to `["header"]`. When
   * absent, nothing is served and `resourceMetadataUrl` must name where it lives.
   */
  resourceMetadata?: ProtectedResourceMetadata;
  /** The metadata URL named in challenges. Default: the path-based well-known URL of `resourceMetadata.resource`. */
  resourceMetadataUrl?: string;
  /** Also serve the metadata at the root well-known URL. Default true. */
  serveRootMetadata?: boolean;
  /**
   * Audiences a verified token must name (a second check after the verifier's own). Default:
   * `[resourceMetadata.resource]`; an empty list disables the check.
   */
  audience?: readonly string[];
  /** Scopes every request needs (403 `insufficient_scope` when missing). */
  requiredScopes?: readonly string[];
  /** Scopes per method and per tool, checked for every parsed message (see `ScopeRequirements`). */
  scopes?: ScopeRequirements;
  /** The `scope` of 401 challenges. Default: `requiredScopes`, else `scopes_supported`, else omitted. */
  challengeScopes?: readonly string[];
  /** `Cache-Control: max-age` of the metadata document, seconds. Default 3600. */
  metadataMaxAgeSeconds?: number;
  /**
   * More routes served by the handler outside the MCP endpoint, tried before the metadata
   * (e.g. the endpoints of `createThirdPartyAuthServer(…).route`). Must not reject.
   */
  routes?: (req: HttpRequest) => HttpReply | undefined | Promise<HttpReply | undefined>;
  /** Receives verification failures that are not the client's fault (503 replies). Must not throw. */
  onError?: (error: Error) => void;
}

/** The authorizer built by {@link requireBearerAuth}: pass it as the handler's `authorize` option. */
export interface BearerAuth extends HttpAuthorizer {
  /** The metadata URL named in every challenge. */
  readonly resourceMetadataUrl: string;
  /**
   * The principal key of verified auth info ({@link principalOf}: issuer, subject and client of
   * the token; `undefined` for requests without auth info). The handler binds sessions with it
   * by default (its `sessionOwner` option overrides it): a session created by one principal
   * answers 404 to every other.
   */
  sessionOwner(authInfo: unknown): string | undefined;
  /**
   * Authenticates one request outside the MCP handler (a custom route of the same server):
   * resolves like {@link HttpAuthorizer.authenticate}.
   */
  authenticate(req: HttpRequest): Promise<HttpAuthResult>;
}

const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/;
const NONE: readonly string[] = Object.freeze([]);

/** A principal key for sessions: `[issuer, subject, clientId]` as JSON. `undefined` when `authInfo` is not an {@link AuthInfo}. */
export function principalOf(authInfo: unknown): string | undefined {
  return isAuthInfo(authInfo) ? principalKey(authInfo) : undefined;
}

function jsonError(status: number, error: string, description: string, headers: Record<string, string>): HttpPlainReply {
  return {
    status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers },
    body: JSON.stringify({ error, error_description: description }),
  };
}

/** Where the token of a request is, or why there is none. */
type Extracted = { token: string } | { missing: true } | { invalid: string };

function extractToken(req: HttpRequest): Extracted {
  const q = req.url.indexOf('?');
  if (q >= 0 && new URLSearchParams(req.url.slice(q + 1)).has('access_token')) {
    return { invalid: 'Access tokens are accepted only in the Authorization header, never in the URI' };
  }
  const header = req.headers('authorization');
  if (header === null) return { missing: true };
  const value = header.trim();
  const space = value.indexOf(' ');
  const scheme = space < 0 ? value : value.slice(0, space);
  if (scheme.toLowerCase() !== 'bearer') return { missing: true };
  const token = space < 0 ? '' : value.slice(space + 1).trim();
  if (token === '' || !TOKEN68.test(token)) return { invalid: 'The Authorization header does not carry one well-formed bearer token' };
  return { token };
}

/**
 * Builds the bearer authorizer; see the module notes. Throws `TypeError` when neither
 * `resourceMetadata` nor `resourceMetadataUrl` is given, or the metadata lacks `resource` or
 * `authorization_servers`.
 */
export function requireBearerAuth(options: BearerAuthOptions): BearerAuth {
  const metadata = options.resourceMetadata;
  if (metadata !== undefined) {
    if (typeof metadata.resource !== 'string' || metadata.resource === '') throw new TypeError('requireBearerAuth: resourceMetadata.resource is required');
    if (!Array.isArray(metadata.authorization_servers) || metadata.authorization_servers.length === 0) {
      throw new TypeError('requireBearerAuth: resourceMetadata.authorization_servers must name at least one authorization server');
    }
  }
  const metadataUrl = options.resourceMetadataUrl ?? (metadata !== undefined ? protectedResourceMetadataUrl(metadata.resource) : undefined);
  if (metadataUrl === undefined) throw new TypeError('requireBearerAuth: resourceMetadata or resourceMetadataUrl is required');
  const verifier = options.verifier;
  const audience = options.audience ?? (metadata !== undefined ? [metadata.resource] : NONE);
  const required = options.requiredScopes ?? NONE;
  const requirements = options.scopes;
  const challengeScope = (options.challengeScopes ?? (required.length > 0 ? required : (metadata?.scopes_supported ?? NONE))).join(' ');
  const onError = options.onError;

  // the metadata document, serialized once; served at the path-based and (optionally) root URLs
  const metadataPaths = new Set<string>();
  let metadataBody: string | undefined;
  if (metadata !== undefined) {
    metadataBody = JSON.stringify({ bearer_methods_supported: ['header'], ...metadata });
    metadataPaths.add(protectedResourceMetadataPath(metadata.resource));
    if (options.serveRootMetadata !== false) metadataPaths.add(PROTECTED_RESOURCE_WELL_KNOWN);
  }
  const metadataHeaders = {
    'content-type': 'application/json',
    'cache-control': `public, max-age=${options.metadataMaxAgeSeconds ?? 3600}`,
    'access-control-allow-origin': '*',
  };

  const unauthorized = (description?: string): HttpReply =>
    description === undefined
      ? jsonError(401, 'unauthorized', 'Authorization required', {
          'www-authenticate': bearerChallenge({ scope: challengeScope, resource_metadata: metadataUrl }),
        })
      : jsonError(401, 'invalid_token', description, {
          'www-authenticate': bearerChallenge({
            error: 'invalid_token',
            error_description: description,
            scope: challengeScope,
            resource_metadata: metadataUrl,
          }),
        });

  const forbidden = (needed: readonly string[], granted: readonly string[]): HttpReply => {
    const scope = unionScopes(granted, needed);
    const description = `Insufficient scope: requires ${needed.join(' ')}`;
    return jsonError(403, 'insufficient_scope', description, {
      'www-authenticate': bearerChallenge({ error: 'insufficient_scope', error_description: description, scope, resource_metadata: metadataUrl }),
    });
  };

  async function authenticate(req: HttpRequest): Promise<HttpAuthResult> {
    const extracted = extractToken(req);
    if ('missing' in extracted) return { reply: unauthorized() };
    if ('invalid' in extracted) {
      return {
        reply: jsonError(400, 'invalid_request', extracted.invalid, {
          'www-authenticate': bearerChallenge({ error: 'invalid_request', error_description: extracted.invalid, resource_metadata: metadataUrl }),
        }),
      };
    }
    let info: AuthInfo;
    try {
      info = await verifier.verify(extracted.token);
    } catch (error) {
      if (error instanceof InvalidTokenError || (error instanceof AuthError && error.code === 'invalid_token')) return { reply: unauthorized(error.message) };
      try {
        onError?.(toError(error));
      } catch {
        // a throwing reporter must not break the request
      }
      return { reply: jsonError(503, 'temporarily_unavailable', 'The access token could not be validated right now', { 'retry-after': '5' }) };
    }
    if (audience.length > 0 && !info.audience.some((a) => audience.includes(a))) return { reply: unauthorized('The token was not issued for this resource') };
    if (required.length > 0) {
      const missing = missingScopes(required, info.scopes);
      if (missing.length > 0) return { reply: forbidden(required, info.scopes) };
    }
    return { authInfo: info };
  }

  return {
    resourceMetadataUrl: metadataUrl,
    authenticate,
    sessionOwner: principalOf,
    route(req: HttpRequest): HttpReply | undefined | Promise<HttpReply | undefined> {
      if (options.routes === undefined) return serveMetadata(req);
      const extra = options.routes(req);
      if (extra instanceof Promise) return extra.then((reply) => reply ?? serveMetadata(req));
      return extra ?? serveMetadata(req);
    },
    authorizeMessage(message: unknown, authInfo: unknown): HttpReply | undefined {
      if (requirements === undefined || typeof message !== 'object' || message === null) return undefined;
      const m = message as { method?: unknown; id?: unknown; params?: unknown };
      if (typeof m.method !== 'string' || m.id === undefined) return undefined;
      const needed = requiredScopesFor(requirements, m.method, m.params);
      if (needed.length === 0) return undefined;
      const granted = isAuthInfo(authInfo) ? authInfo.scopes : NONE;
      return missingScopes(needed, granted).length > 0 ? forbidden(needed, granted) : undefined;
    },
  };

  function serveMetadata(req: HttpRequest): HttpReply | undefined {
    if (metadataBody === undefined) return undefined;
    const q = req.url.indexOf('?');
    let path = q < 0 ? req.url : req.url.slice(0, q);
    if (path.charCodeAt(0) !== 47 /* / */) {
      try {
        path = new URL(path).pathname;
      } catch {
        return undefined;
      }
    }
    if (!metadataPaths.has(path)) return undefined;
    if (req.method === 'GET' || req.method === 'HEAD')
      return { status: 200, headers: metadataHeaders, ...(req.method === 'GET' ? { body: metadataBody } : {}) };
    if (req.method === 'OPTIONS') {
      return {
        status: 204,
        headers: {
          'access-control-allow-origin': '*',
          'access-control-allow-methods': 'GET, HEAD, OPTIONS',
          'access-control-allow-headers': 'mcp-protocol-version',
          'access-control-max-age': '86400',
        },
      };
    }
    return jsonError(405, 'invalid_request', 'Method Not Allowed', { allow: 'GET, HEAD, OPTIONS' });
  }
}
