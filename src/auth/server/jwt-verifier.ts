/**
 * JWT access token validation (RFC 9068 profile) with `jose`: signature against the
 * authorization server's JWKS, `iss`, `aud` (this resource: RFC 8707, 2025-06-18 ›
 * Authorization › Token Handling), `exp`/`nbf` with a clock tolerance, and the `typ` header.
 *
 * Design notes:
 * - `jose` is an optional peer dependency, loaded on first use; a missing package fails
 *   the first verification with a clear message (503), not the import of `mcpkit/auth`.
 * - The JWKS is fetched through the fetch guard (HTTPS, no private addresses, size and time
 *   caps) and cached by jose (`cacheMaxAgeMs`); an unknown `kid` triggers at most one refetch
 *   per `cooldownMs`.
 * - Only asymmetric algorithms are accepted (no `none`, no HMAC: a shared secret would let
 *   anyone holding it mint tokens).
 */
import type * as Jose from 'jose';
import { createGuardedFetch, type FetchGuardOptions, type GuardedFetch } from '../fetch-guard.js';
import { type AuthInfo, InvalidTokenError, parseAudience, parseScopes, type TokenVerifier, VerifierUnavailableError } from './types.js';

/** Options of {@link createJwtVerifier}. */
export interface JwtVerifierOptions {
  /** The expected `iss`, exactly. */
  issuer: string;
  /** This resource's identifier(s): a token must name one of them in `aud`. */
  audience: string | readonly string[];
  /** Where the authorization server publishes its keys (`jwks_uri` of its metadata). */
  jwksUri: string;
  /**
   * The required `typ` header. Default `at+jwt` (RFC 9068; also accepts
   * `application/at+jwt`); `false` skips the check for servers that issue plain `JWT`s.
   */
  typ?: string | false;
  /** Accepted signature algorithms. Default: RS256/384/512, PS256/384/512, ES256/384/512, EdDSA, Ed25519. */
  algorithms?: readonly string[];
  /** Allowed clock skew for `exp`, `nbf` and `iat`, in seconds. Default 5. */
  clockToleranceSeconds?: number;
  /** How long fetched keys are trusted, ms. Default 10 minutes. */
  cacheMaxAgeMs?: number;
  /** Least time between two JWKS fetches, ms. Default 30 s. */
  cooldownMs?: number;
  /** Guard options for the JWKS fetch (size/time caps; `dangerouslyAllowHttpLoopbackForTesting`). */
  fetchGuard?: FetchGuardOptions;
  /** Replaces the guarded fetch entirely (it must apply equivalent checks). */
  fetch?: GuardedFetch;
}

const DEFAULT_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];
const UNAVAILABLE_CODES = new Set(['ERR_JWKS_TIMEOUT', 'ERR_JWKS_INVALID', 'ERR_JOSE_GENERIC']);

let josePromise: Promise<typeof Jose> | undefined;

/** Loads `jose` once. Rejects with {@link VerifierUnavailableError} when it is not installed. */
function loadJose(): Promise<typeof Jose> {
  const specifier = 'jose';
  return (josePromise ??= (import(specifier) as Promise<typeof Jose>).catch((error: unknown) => {
    josePromise = undefined;
    throw new VerifierUnavailableError('JWT validation needs the optional peer dependency `jose` (npm install jose)', { cause: error });
  }));
}

/**
 * Creates a {@link TokenVerifier} for JWT access tokens; see the module notes. `verify`
 * rejects with {@link InvalidTokenError} for any token that fails a check and with
 * {@link VerifierUnavailableError} when the keys cannot be fetched. Throws `TypeError` for
 * an invalid `issuer`, `audience` or `jwksUri`.
 */
export function createJwtVerifier(options: JwtVerifierOptions): TokenVerifier {
  const audience = typeof options.audience === 'string' ? [options.audience] : [...options.audience];
  if (audience.length === 0 || audience.some((a) => typeof a !== 'string' || a === ''))
    throw new TypeError('createJwtVerifier: audience must name this resource');
  if (typeof options.issuer !== 'string' || options.issuer === '') throw new TypeError('createJwtVerifier: issuer is required');
  const jwksUri = new URL(options.jwksUri);
  const typ = options.typ ?? 'at+jwt';
  const algorithms = [...(options.algorithms ?? DEFAULT_ALGORITHMS)];
  if (algorithms.some((a) => a === 'none' || a.startsWith('HS'))) throw new TypeError('createJwtVerifier: only asymmetric algorithms are accepted');
  const guarded = options.fetch ?? createGuardedFetch(options.fetchGuard);
  let keys: ReturnType<typeof Jose.createRemoteJWKSet> | undefined;

  return {
    async verify(token: string): Promise<AuthInfo> {
      const jose = await loadJose();
      keys ??= jose.createRemoteJWKSet(jwksUri, {
        cacheMaxAge: options.cacheMaxAgeMs ?? 600_000,
        cooldownDuration: options.cooldownMs ?? 30_000,
        [jose.customFetch]: (url: string, init: { headers: Headers; signal: AbortSignal }) => guarded(url, { headers: init.headers, signal: init.signal }),
      });
      let payload: Jose.JWTPayload;
      let header: Jose.JWTHeaderParameters;
      try {
        ({ payload, protectedHeader: header } = await jose.jwtVerify(token, keys, {
          issuer: options.issuer,
          audience,
          algorithms,
          clockTolerance: options.clockToleranceSeconds ?? 5,
          requiredClaims: ['exp'],
        }));
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (code?.startsWith('ERR_J') && !UNAVAILABLE_CODES.has(code)) {
          throw new InvalidTokenError(describe(error as Jose.errors.JOSEError), { cause: error });
        }
        throw new VerifierUnavailableError(`The authorization server's keys could not be fetched: ${(error as Error).message}`, { cause: error });
      }
      if (typ !== false) {
        const actual = (header.typ ?? '').toLowerCase();
        const expected = typ.toLowerCase();
        if (actual !== expected && actual !== `application/${expected}`)
          throw new InvalidTokenError(`The token's typ is ${JSON.stringify(header.typ ?? null)}, not ${typ}`);
      }
      const clientId = typeof payload.client_id === 'string' ? payload.client_id : typeof payload.azp === 'string' ? payload.azp : '';
      return {
        issuer: payload.iss,
        subject: payload.sub,
        clientId,
        scopes: parseScopes(payload.scope ?? payload.scp),
        audience: parseAudience(payload.aud),
        expiresAt: payload.exp,
        tokenId: payload.jti,
        claims: payload,
      };
    },
  };
}

function describe(error: Jose.errors.JOSEError): string {
  switch (error.code) {
    case 'ERR_JWT_EXPIRED':
      return 'The token has expired';
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED': {
      const claim = (error as Jose.errors.JWTClaimValidationFailed).claim;
      return claim === 'aud'
        ? 'The token was not issued for this resource'
        : claim === 'iss'
          ? 'The token was issued by another authorization server'
          : `The token's ${claim} claim is not acceptable`;
    }
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return 'The token signature is invalid';
    case 'ERR_JWKS_NO_MATCHING_KEY':
      return 'The token was signed with an unknown key';
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return 'The token is signed with a refused algorithm';
    default:
      return 'The token is malformed';
  }
}
