/**
 * URL rules of the OAuth client: which URLs may be fetched or opened, the canonical URI of
 * an MCP server (RFC 8707 `resource`), whether a protected resource metadata `resource`
 * covers the server (RFC 9728 §3.3), the well-known URLs to try (RFC 9728 §3.1, RFC 8414
 * §3.1 and §5, in the order the MCP 2025-11-25 authorization spec gives), and redirect URI
 * validation (localhost or HTTPS only).
 *
 * Design note: comparisons that the specs require to be exact (issuer, resource as
 * published) are done on the strings elsewhere; here URLs are parsed only to build new
 * URLs and to compare origins and paths.
 */
import { OAuthClientError } from './errors.js';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** True for `localhost`, `127.0.0.1` and `[::1]` (as `URL.hostname` spells them). */
export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname.toLowerCase());
}

/**
 * Parses `value` as a URL the OAuth client may fetch: `https:`, or `http:` only when
 * `allowInsecure` (the loudly named opt-in) is set. Throws {@link OAuthClientError}
 * `insecure_url` for anything else (`javascript:`, `data:`, `file:`, ... are always refused)
 * and for unparsable values or URLs with credentials.
 */
export function requireFetchableUrl(value: string | URL, what: string, allowInsecure: boolean): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new OAuthClientError('insecure_url', `${what} is not a valid URL: ${JSON.stringify(String(value))}`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && allowInsecure)) {
    throw new OAuthClientError(
      'insecure_url',
      `${what} must use https${allowInsecure ? ' or http' : ''} (got ${url.protocol}); refusing ${url.protocol === 'http:' ? 'plain http without the dangerouslyAllowInsecureHttp opt-in' : 'it'}`,
    );
  }
  if (url.username !== '' || url.password !== '') {
    throw new OAuthClientError('insecure_url', `${what} must not contain credentials`);
  }
  return url;
}

/**
 * The canonical URI of an MCP server (MCP 2025-11-25 › Canonical Server URI): lower-case
 * scheme and host (the URL parser does that), no fragment, and no trailing slash when the
 * path is the root. Used as the `resource` when a server publishes no protected resource
 * metadata (2025-03-26 servers) and as the key of stored tokens.
 */
export function canonicalServerUri(server: URL): string {
  const path = server.pathname === '/' ? '' : server.pathname;
  return `${server.protocol}//${server.host}${path}${server.search}`;
}

/**
 * True when the `resource` a protected resource metadata document publishes identifies the
 * MCP server at `server`: same origin, and the server's path is the resource's path or lies
 * below it (a resource at the origin's root covers every path). A resource with a fragment,
 * a query differing from the server's, or that is not an http(s) URL never matches.
 */
export function resourceCovers(resource: string, server: URL): boolean {
  let r: URL;
  try {
    r = new URL(resource);
  } catch {
    return false;
  }
  if (r.protocol !== 'https:' && r.protocol !== 'http:') return false;
  if (r.hash !== '' || resource.includes('#')) return false;
  if (r.origin !== server.origin) return false;
  if (r.search !== '' && r.search !== server.search) return false;
  const base = r.pathname;
  if (base === '/' || base === '') return true;
  if (server.pathname === base) return true;
  const prefix = base.endsWith('/') ? base : `${base}/`;
  return server.pathname.startsWith(prefix);
}

/**
 * The protected resource metadata URLs to try for `server`, in order (MCP 2025-11-25 ›
 * Protected Resource Metadata Discovery): the `resource_metadata` URL from the challenge
 * when there is one, then the path-based well-known URL (when the server's path is not the
 * root), then the well-known URL at the root. Duplicates are dropped.
 */
export function protectedResourceMetadataUrls(server: URL, fromChallenge: URL | undefined): URL[] {
  const out: URL[] = [];
  const add = (u: URL) => {
    if (!out.some((x) => x.href === u.href)) out.push(u);
  };
  if (fromChallenge) add(fromChallenge);
  if (server.pathname !== '/' && server.pathname !== '')
    add(new URL(`${server.origin}/.well-known/oauth-protected-resource${server.pathname}${server.search}`));
  add(new URL(`${server.origin}/.well-known/oauth-protected-resource`));
  return out;
}

/** One authorization server metadata URL to try, and which kind of document it serves. */
export interface MetadataCandidate {
  url: URL;
  kind: 'oauth' | 'openid';
}

/**
 * The authorization server metadata URLs to try for `issuer`, in the order of MCP
 * 2025-11-25 › Authorization Server Metadata Discovery. With a path (`/tenant1`): RFC 8414
 * path insertion, OpenID Connect path insertion, OpenID Connect path appending. Without:
 * RFC 8414, then OpenID Connect. A terminating `/` of the path is removed first (RFC 8414
 * §3.1).
 */
export function authorizationServerMetadataUrls(issuer: URL): MetadataCandidate[] {
  let path = issuer.pathname;
  while (path.endsWith('/')) path = path.slice(0, -1);
  const origin = issuer.origin;
  if (path === '') {
    return [
      { url: new URL(`${origin}/.well-known/oauth-authorization-server`), kind: 'oauth' },
      { url: new URL(`${origin}/.well-known/openid-configuration`), kind: 'openid' },
    ];
  }
  return [
    { url: new URL(`${origin}/.well-known/oauth-authorization-server${path}`), kind: 'oauth' },
    { url: new URL(`${origin}/.well-known/openid-configuration${path}`), kind: 'openid' },
    { url: new URL(`${origin}${path}/.well-known/openid-configuration`), kind: 'openid' },
  ];
}

/**
 * Checks a redirect URI (MCP authorization › Communication Security: localhost or HTTPS):
 * `https:` anywhere, or `http:` on `localhost`, `127.0.0.1` or `[::1]`; no fragment, no
 * credentials. Returns the parsed URL; throws {@link OAuthClientError} `invalid_configuration`.
 */
export function requireRedirectUri(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new OAuthClientError('invalid_configuration', `The redirect URI is not a valid URL: ${JSON.stringify(value)}`);
  }
  const ok = url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));
  if (!ok)
    throw new OAuthClientError(
      'invalid_configuration',
      `The redirect URI must be https, or http on localhost/127.0.0.1/[::1] (got ${url.protocol}//${url.host})`,
    );
  if (url.hash !== '' || value.includes('#')) throw new OAuthClientError('invalid_configuration', 'The redirect URI must not have a fragment');
  if (url.username !== '' || url.password !== '') throw new OAuthClientError('invalid_configuration', 'The redirect URI must not contain credentials');
  return url;
}

/**
 * True when two redirect URIs are the same for an authorization server that follows
 * RFC 8252 §7.3: identical, or both loopback `http:` URIs that differ only in the port.
 */
export function sameRedirectUri(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    const x = new URL(a);
    const y = new URL(b);
    if (x.protocol !== 'http:' || y.protocol !== 'http:' || !isLoopbackHost(x.hostname)) return false;
    return x.hostname === y.hostname && x.pathname === y.pathname && x.search === y.search;
  } catch {
    return false;
  }
}

/**
 * Checks a URL before it is shown to a browser (the authorization URL): only `http:` and
 * `https:` are ever opened — `javascript:`, `data:`, `file:`, `vbscript:` and every other
 * scheme are refused. Throws {@link OAuthClientError} `insecure_url`.
 */
export function requireBrowserUrl(value: string | URL): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new OAuthClientError('insecure_url', 'Refusing to open a value that is not a URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new OAuthClientError('insecure_url', `Refusing to open a ${url.protocol} URL: only http and https URLs are ever opened`);
  }
  return url;
}
