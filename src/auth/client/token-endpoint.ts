/**
 * Requests to an authorization server's token and registration endpoints, made with
 * `oauth4webapi` (its request/process pairs) and mcpkit's own pieces around them: client
 * authentication (`none`, `client_secret_basic`, `client_secret_post`, `private_key_jwt`),
 * DPoP proofs with one retry on `use_dpop_nonce` (RFC 9449 §8), time limits, and the
 * conversion of a token response into {@link StoredTokens}.
 *
 * Design note: `client_secret_basic` is implemented here rather than taken from
 * `oauth4webapi`, which form-encodes more characters than `application/x-www-form-urlencoded`
 * does (it turns `-`, `.` and `_` into `%2D`, `%2E`, `%5F`), and servers that skip the
 * decoding RFC 6749 §2.3.1 asks for then see a different client id. Encoding exactly the
 * characters the WHATWG form encoding encodes is correct for decoding servers and identical
 * to the raw value for ids made of letters, digits and `-._*`.
 */

import type * as oauth from 'oauth4webapi';
import type { WebCryptoKey } from './crypto-types.js';
import type { DpopProver } from './dpop.js';
import { OAuthClientError } from './errors.js';
import type { HttpContext } from './http.js';
import { loadJose, loadOAuth, type OAuthLib } from './libs.js';
import type { StoredTokens, TokenEndpointAuthMethod } from './store.js';
import { requireFetchableUrl } from './urls.js';

/** A private key for `private_key_jwt`: a CryptoKey, or a PKCS#8 PEM and its algorithm. */
export type ClientPrivateKey = WebCryptoKey | { pem: string; alg: string; kid?: string };

/** The credentials a token request authenticates with. */
export interface ClientCredentials {
  clientId: string;
  clientSecret?: string;
  privateKey?: ClientPrivateKey;
  /** Key id put in the assertion's header (with a CryptoKey). */
  keyId?: string;
  method: TokenEndpointAuthMethod;
}

/** What every token endpoint call needs. */
export interface TokenContext {
  http: HttpContext;
  dpop: DpopProver | undefined;
}

/** `application/x-www-form-urlencoded` encoding of one value (WHATWG URL › urlencoded serializer). */
export function formEncode(value: string): string {
  return encodeURIComponent(value)
    .replace(/[!'()~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

/** `client_secret_basic` (RFC 6749 §2.3.1): the form-encoded id and secret in HTTP Basic. */
export function clientSecretBasic(clientSecret: string): oauth.ClientAuth {
  return (_as, client, _body, headers) => {
    headers.set('authorization', `Basic ${btoa(`${formEncode(client.client_id)}:${formEncode(clientSecret)}`)}`);
  };
}

const importedKeys = new WeakMap<object, WebCryptoKey>();

async function privateKeyOf(key: ClientPrivateKey): Promise<{ key: WebCryptoKey; kid?: string }> {
  if (typeof (key as WebCryptoKey).type === 'string' && typeof (key as WebCryptoKey).algorithm === 'object') return { key: key as WebCryptoKey };
  const pem = key as { pem: string; alg: string; kid?: string };
  let imported = importedKeys.get(pem);
  if (imported === undefined) {
    try {
      imported = await (await loadJose()).importPKCS8(pem.pem, pem.alg);
    } catch (err) {
      throw new OAuthClientError('invalid_configuration', `The client's private key could not be imported as ${pem.alg}`, { cause: err });
    }
    importedKeys.set(pem, imported);
  }
  return pem.kid === undefined ? { key: imported } : { key: imported, kid: pem.kid };
}

/**
 * The `oauth4webapi` client authentication for `credentials`. Throws
 * {@link OAuthClientError} `invalid_configuration` when the method needs a secret or key
 * that is missing.
 */
export async function clientAuthentication(credentials: ClientCredentials): Promise<oauth.ClientAuth> {
  const lib = await loadOAuth();
  switch (credentials.method) {
    case 'none':
      return lib.None();
    case 'client_secret_basic':
    case 'client_secret_post': {
      const secret = credentials.clientSecret;
      if (!secret) throw new OAuthClientError('invalid_configuration', `${credentials.method} needs a client secret`);
      return credentials.method === 'client_secret_basic' ? clientSecretBasic(secret) : lib.ClientSecretPost(secret);
    }
    case 'private_key_jwt': {
      if (!credentials.privateKey) throw new OAuthClientError('invalid_configuration', 'private_key_jwt needs a private key');
      const { key, kid } = await privateKeyOf(credentials.privateKey);
      const keyId = kid ?? credentials.keyId;
      return lib.PrivateKeyJwt(keyId === undefined ? key : { key, kid: keyId });
    }
  }
}

/** The `oauth4webapi` client object of `credentials`. */
export function oauthClient(credentials: { clientId: string; method: TokenEndpointAuthMethod }): oauth.Client {
  return { client_id: credentials.clientId, token_endpoint_auth_method: credentials.method };
}

/** Options for an `oauth4webapi` request: our fetch, the time limit, the insecure opt-in. */
export function requestOptions<Body = URLSearchParams>(lib: OAuthLib, http: HttpContext): oauth.HttpRequestOptions<'POST', Body> {
  return {
    [lib.customFetch]: (url: string, options: oauth.CustomFetchOptions<'POST', Body>) => http.fetch(url, options as RequestInit),
    [lib.allowInsecureRequests]: http.allowInsecure,
    signal: () => AbortSignal.timeout(http.timeoutMs),
  };
}

/** The shape of `oauth4webapi`'s `ResponseBodyError` (recognized by its code, the module being loaded lazily). */
interface BodyError {
  code: 'OAUTH_RESPONSE_BODY_ERROR';
  error: string;
  error_description?: string;
  status: number;
}

/** True for `oauth4webapi`'s `ResponseBodyError` (an OAuth error response). */
export function isResponseBodyError(err: unknown): err is BodyError {
  return err instanceof Error && (err as Partial<BodyError>).code === 'OAUTH_RESPONSE_BODY_ERROR' && typeof (err as Partial<BodyError>).error === 'string';
}

/** Converts an `oauth4webapi` error (or any failure of a token request) into an {@link OAuthClientError}. */
export function tokenError(err: unknown, what: string): OAuthClientError {
  if (err instanceof OAuthClientError) return err;
  if (isResponseBodyError(err)) {
    const description = err.error_description ? `: ${err.error_description}` : '';
    return new OAuthClientError('token_request_failed', `${what} failed with ${err.error}${description} (HTTP ${err.status})`, {
      cause: err,
      oauthError: err.error,
      status: err.status,
    });
  }
  if (err instanceof Error && err.name === 'TimeoutError') return new OAuthClientError('timeout', `${what} timed out`, { cause: err });
  const message = err instanceof Error ? err.message : String(err);
  return new OAuthClientError('token_request_failed', `${what} failed: ${message}`, { cause: err });
}

/** The token endpoint of `as`, checked (https unless the insecure opt-in is set). */
export function tokenEndpointOf(as: oauth.AuthorizationServer, http: HttpContext): URL {
  if (typeof as.token_endpoint !== 'string') throw new OAuthClientError('discovery_failed', `The authorization server ${as.issuer} has no token_endpoint`);
  return requireFetchableUrl(as.token_endpoint, 'The token endpoint', http.allowInsecure);
}

/**
 * Runs one token endpoint exchange: `send` makes the request (with the given extra headers,
 * which carry the DPoP proof when DPoP is on) and `process` validates the response. When the
 * server answers `use_dpop_nonce`, the nonce is remembered and the exchange is repeated once.
 * Rejects with {@link OAuthClientError} (`token_request_failed`, `timeout`, ...).
 */
export async function tokenExchange(
  ctx: TokenContext,
  as: oauth.AuthorizationServer,
  what: string,
  send: (headers: Record<string, string>) => Promise<Response>,
  process: (response: Response) => Promise<oauth.TokenEndpointResponse>,
): Promise<oauth.TokenEndpointResponse> {
  const endpoint = tokenEndpointOf(as, ctx.http);
  for (let attempt = 0; ; attempt++) {
    const headers: Record<string, string> = {};
    if (ctx.dpop) headers.dpop = await ctx.dpop.proof('POST', endpoint);
    let response: Response;
    try {
      response = await send(headers);
    } catch (err) {
      throw tokenError(err, what);
    }
    const fresh = ctx.dpop?.noteNonce(endpoint, response.headers) ?? false;
    try {
      return await process(response);
    } catch (err) {
      if (attempt === 0 && fresh && isResponseBodyError(err) && err.error === 'use_dpop_nonce') continue;
      throw tokenError(err, what);
    }
  }
}

/** Facts about a token request needed to store its result. */
export interface IssuedFor {
  issuer: string;
  resource: string;
  requestedScope: string | undefined;
  dpopJkt: string | undefined;
}

/** Converts a token endpoint response into what the store keeps. Throws `token_request_failed` for an unknown token type. */
export function storedTokens(response: oauth.TokenEndpointResponse, issued: IssuedFor, previous?: StoredTokens): StoredTokens {
  const type = String(response.token_type).toLowerCase();
  if (type !== 'bearer' && type !== 'dpop')
    throw new OAuthClientError(
      'token_request_failed',
      `The token endpoint issued a token of type ${JSON.stringify(response.token_type)}, which cannot be used with an MCP server`,
    );
  const tokens: StoredTokens = {
    issuer: issued.issuer,
    resource: issued.resource,
    accessToken: response.access_token,
    tokenType: type === 'dpop' ? 'DPoP' : 'Bearer',
  };
  // refresh token rotation: a new one replaces the old; none returned keeps the old one
  const refresh = response.refresh_token ?? previous?.refreshToken;
  if (refresh !== undefined) tokens.refreshToken = refresh;
  if (typeof response.expires_in === 'number' && response.expires_in > 0) tokens.expiresAt = Date.now() + response.expires_in * 1000;
  const granted = typeof response.scope === 'string' ? response.scope : issued.requestedScope;
  if (granted !== undefined) tokens.scope = granted;
  if (issued.requestedScope !== undefined) tokens.requestedScope = issued.requestedScope;
  if (tokens.tokenType === 'DPoP' && issued.dpopJkt !== undefined) tokens.dpopJkt = issued.dpopJkt;
  return tokens;
}
