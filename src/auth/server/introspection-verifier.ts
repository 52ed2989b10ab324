/**
 * Opaque access token validation by token introspection (RFC 7662): the resource server
 * asks the authorization server, authenticating as a confidential client, whether a token is
 * active, for whom, with which scopes and for which audience.
 *
 * Design notes:
 * - A token is accepted only when the answer says `active: true`, names this resource in
 *   `aud`, has not expired (`exp`, with a clock tolerance), comes from the expected `iss`
 *   when one is configured, and is not some other kind of token (`token_type`, when present,
 *   must be `Bearer` / `access_token`: a refresh token is never a bearer credential).
 * - Answers are cached briefly (`cacheTtlMs`, never past the token's `exp`): a revoked token
 *   stays usable for at most that long. Inactive answers are cached too, for a shorter
 *   while, so a flood of bad tokens costs one introspection each per few seconds. The cache
 *   is keyed by a SHA-256 digest of the token (raw tokens are not kept) and bounded
 *   (oldest entries dropped first). Concurrent checks of one token share one request.
 * - The endpoint is operator-configured (not attacker-named), so it is fetched with the
 *   platform `fetch` (or the one given), with a time limit. Runtime-neutral (Web Crypto).
 */

import { isObject } from '../../jsonrpc/values.js';
import { type AuthInfo, InvalidTokenError, parseAudience, parseScopes, type TokenVerifier, VerifierUnavailableError } from './types.js';

/** Options of {@link createIntrospectionVerifier}. */
export interface IntrospectionVerifierOptions {
  /** The `introspection_endpoint` of the authorization server. */
  endpoint: string;
  /** The resource server's client id at the authorization server. */
  clientId: string;
  /** Its secret. */
  clientSecret: string;
  /** How the client authenticates. Default `client_secret_basic`. */
  authMethod?: 'client_secret_basic' | 'client_secret_post';
  /** This resource's identifier(s): the answer's `aud` must name one. */
  audience: string | readonly string[];
  /** The expected `iss` of answers that carry one. Default: not checked. */
  issuer?: string;
  /** How long an active answer is reused, ms (capped by the token's `exp`). Default 10 000; 0 disables the cache. */
  cacheTtlMs?: number;
  /** How long an inactive answer is reused, ms. Default 2 000. */
  negativeCacheTtlMs?: number;
  /** Most cached answers. Default 10 000. */
  maxCacheEntries?: number;
  /** Time limit of one introspection request, ms. Default 5000. */
  timeoutMs?: number;
  /** Allowed clock skew for `exp`, seconds. Default 5. */
  clockToleranceSeconds?: number;
  /** The fetch to use. Default `globalThis.fetch`. */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
  /** Clock, for tests. Default `Date.now`. */
  now?: () => number;
}

interface CacheEntry {
  /** The verified info, or the refusal. */
  readonly result: AuthInfo | InvalidTokenError;
  readonly until: number;
}

async function digest(token: string): Promise<string> {
  const bytes = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token)));
  let out = '';
  for (let i = 0; i < bytes.length; i++) out += bytes[i]!.toString(16).padStart(2, '0');
  return out;
}

/**
 * Creates a {@link TokenVerifier} that introspects tokens; see the module notes. `verify`
 * rejects with {@link InvalidTokenError} for an inactive or unacceptable token and with
 * {@link VerifierUnavailableError} when the endpoint cannot be reached or answers with an
 * error. Throws `TypeError` for an invalid endpoint or an empty audience.
 */
export function createIntrospectionVerifier(options: IntrospectionVerifierOptions): TokenVerifier {
  const endpoint = new URL(options.endpoint).href;
  const audience = typeof options.audience === 'string' ? [options.audience] : [...options.audience];
  if (audience.length === 0 || audience.some((a) => typeof a !== 'string' || a === ''))
    throw new TypeError('createIntrospectionVerifier: audience must name this resource');
  const ttl = options.cacheTtlMs ?? 10_000;
  const negativeTtl = Math.min(options.negativeCacheTtlMs ?? 2000, ttl);
  const maxEntries = options.maxCacheEntries ?? 10_000;
  const timeoutMs = options.timeoutMs ?? 5000;
  const tolerance = (options.clockToleranceSeconds ?? 5) * 1000;
  const doFetch = options.fetch ?? ((input: string, init: RequestInit) => fetch(input, init));
  const now = options.now ?? Date.now;
  const cache = new Map<string, CacheEntry>();
  const inFlight = new Map<string, Promise<AuthInfo | InvalidTokenError>>();

  const remember = (key: string, result: AuthInfo | InvalidTokenError): void => {
    const t = now();
    let until = t + (result instanceof InvalidTokenError ? negativeTtl : ttl);
    if (!(result instanceof InvalidTokenError) && result.expiresAt !== undefined) until = Math.min(until, result.expiresAt * 1000);
    if (until <= t) return;
    if (cache.size >= maxEntries) {
      // drop the oldest tenth at once rather than one per insertion
      let drop = Math.max(1, Math.floor(maxEntries / 10));
      for (const k of cache.keys()) {
        cache.delete(k);
        if (--drop === 0) break;
      }
    }
    cache.set(key, { result, until });
  };

  async function introspect(token: string): Promise<AuthInfo | InvalidTokenError> {
    const body = new URLSearchParams({ token, token_type_hint: 'access_token' });
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    if ((options.authMethod ?? 'client_secret_basic') === 'client_secret_basic') {
      headers.authorization = `Basic ${btoa(`${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`)}`;
    } else {
      body.set('client_id', options.clientId);
      body.set('client_secret', options.clientSecret);
    }
    let answer: Record<string, unknown>;
    try {
      const response = await doFetch(endpoint, { method: 'POST', headers, body: body.toString(), signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
      if (!response.ok) throw new Error(`the introspection endpoint answered ${response.status}`);
      const json: unknown = await response.json();
      if (!isObject(json)) throw new Error('the introspection answer is not a JSON object');
      answer = json as Record<string, unknown>;
    } catch (error) {
      throw new VerifierUnavailableError(`Token introspection failed: ${(error as Error).message}`, { cause: error });
    }
    if (answer.active !== true) return new InvalidTokenError('The token is not active');
    const tokenType = answer.token_type;
    if (tokenType !== undefined && !(typeof tokenType === 'string' && /^(bearer|access_token)$/i.test(tokenType))) {
      return new InvalidTokenError('The token is not an access token');
    }
    if (options.issuer !== undefined && answer.iss !== undefined && answer.iss !== options.issuer)
      return new InvalidTokenError('The token was issued by another authorization server');
    const aud = parseAudience(answer.aud);
    if (!aud.some((a) => audience.includes(a))) return new InvalidTokenError('The token was not issued for this resource');
    const exp = typeof answer.exp === 'number' ? answer.exp : undefined;
    if (exp !== undefined && exp * 1000 + tolerance <= now()) return new InvalidTokenError('The token has expired');
    return {
      issuer: typeof answer.iss === 'string' ? answer.iss : options.issuer,
      subject: typeof answer.sub === 'string' ? answer.sub : undefined,
      clientId: typeof answer.client_id === 'string' ? answer.client_id : '',
      scopes: parseScopes(answer.scope),
      audience: aud,
      expiresAt: exp,
      tokenId: typeof answer.jti === 'string' ? answer.jti : undefined,
      claims: answer,
    };
  }

  return {
    async verify(token: string): Promise<AuthInfo> {
      const key = await digest(token);
      const hit = cache.get(key);
      let result: AuthInfo | InvalidTokenError;
      if (hit !== undefined && hit.until > now()) result = hit.result;
      else {
        if (hit !== undefined) cache.delete(key);
        let pending = inFlight.get(key);
        if (pending === undefined) {
          pending = introspect(token).then(
            (r) => {
              inFlight.delete(key);
              if (ttl > 0) remember(key, r);
              return r;
            },
            (error: unknown) => {
              inFlight.delete(key);
              throw error;
            },
          );
          inFlight.set(key, pending);
        }
        result = await pending;
      }
      if (result instanceof InvalidTokenError) throw new InvalidTokenError(result.message);
      if (result.expiresAt !== undefined && result.expiresAt * 1000 + tolerance <= now()) throw new InvalidTokenError('The token has expired');
      return result;
    },
  };
}
