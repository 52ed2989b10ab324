/**
 * Shapes and errors shared by the resource-server half of `mcpkit/auth`: the verified
 * {@link AuthInfo} handlers see as `ctx.authInfo`, the {@link TokenVerifier} contract, and the
 * errors that become 401 / 403 / 503 replies. Runtime-neutral.
 */
import { McpError } from '../../jsonrpc/errors.js';

/**
 * What a verified access token says, as handlers see it (`ctx.authInfo`) and `sessionOwner`
 * receives it. Deliberately without the token itself: an MCP server must never pass the
 * token it received on to another service (2025-06-18 › Authorization › Access Token
 * Privilege Restriction); it gets its own upstream tokens instead.
 */
export interface AuthInfo {
  /** The authorization server that issued the token (`iss`), when known. */
  readonly issuer: string | undefined;
  /** The resource owner (`sub`); for a client credentials token usually the client itself. */
  readonly subject: string | undefined;
  /** The OAuth client the token was issued to (`client_id`). */
  readonly clientId: string;
  /** Granted scopes (the `scope` claim, split on spaces). */
  readonly scopes: readonly string[];
  /** The audiences (`aud`); always includes this resource once verified. */
  readonly audience: readonly string[];
  /** Expiry, seconds since the epoch (`exp`). */
  readonly expiresAt: number | undefined;
  /** The token's identifier (`jti`), when present. */
  readonly tokenId: string | undefined;
  /** Every claim (JWT payload or introspection response), for what the fields above omit. */
  readonly claims: Readonly<Record<string, unknown>>;
}

/**
 * Validates a bearer token for this resource. `verify` resolves with its {@link AuthInfo}, or
 * rejects with {@link InvalidTokenError} (answered 401 `invalid_token`) or with any other
 * error when validation could not be done (answered 503; JWKS or introspection unreachable).
 * Must be safe for concurrent calls.
 */
export interface TokenVerifier {
  verify(token: string): Promise<AuthInfo>;
}

/** Stable codes of {@link AuthError}. */
export type AuthErrorCode = 'invalid_token' | 'insufficient_scope' | 'invalid_request' | 'verifier_unavailable';

/** Base class of the resource server's errors; compare `code`. */
export class AuthError extends Error {
  readonly code: AuthErrorCode;
  constructor(code: AuthErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AuthError';
    this.code = code;
  }
}

/** The token is missing its mark: expired, not yet valid, wrong issuer or audience, bad signature, inactive, revoked, malformed. */
export class InvalidTokenError extends AuthError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('invalid_token', message, options);
    this.name = 'InvalidTokenError';
  }
}

/** The token could not be checked (the JWKS or the introspection endpoint failed). Answered 503. */
export class VerifierUnavailableError extends AuthError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('verifier_unavailable', message, options);
    this.name = 'VerifierUnavailableError';
  }
}

/** JSON-RPC code of {@link InsufficientScopeError} when it crosses the wire (outside HTTP). */
export const INSUFFICIENT_SCOPE_CODE = -32003;

/**
 * A request needs scopes the token lacks. Over Streamable HTTP the bearer authorizer answers
 * it before delivery as 403 with `WWW-Authenticate: Bearer error="insufficient_scope",
 * scope="…"`; thrown from a handler or middleware (other transports, or scopes decided
 * late) it becomes JSON-RPC error {@link INSUFFICIENT_SCOPE_CODE} with
 * `data: { error: 'insufficient_scope', scope }`.
 */
export class InsufficientScopeError extends McpError {
  /** The scopes the request needs (all of them). */
  readonly requiredScopes: readonly string[];
  /** The scope string to challenge with: what the token had plus what is missing. */
  readonly challengeScope: string;
  constructor(requiredScopes: readonly string[], grantedScopes: readonly string[] = [], message?: string) {
    const challenge = unionScopes(grantedScopes, requiredScopes);
    super(INSUFFICIENT_SCOPE_CODE, message ?? `Insufficient scope: requires ${requiredScopes.join(' ')}`, { error: 'insufficient_scope', scope: challenge });
    this.name = 'InsufficientScopeError';
    this.requiredScopes = [...requiredScopes];
    this.challengeScope = challenge;
  }
}

/** `a` followed by the scopes of `b` not in `a`, space-separated (order kept, no duplicates). */
export function unionScopes(a: readonly string[], b: readonly string[]): string {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const list of [a, b]) {
    for (const s of list) {
      if (seen.has(s)) continue;
      seen.add(s);
      out.push(s);
    }
  }
  return out.join(' ');
}

/** The scopes of `required` missing from `granted` (empty when all are granted). */
export function missingScopes(required: readonly string[], granted: readonly string[]): string[] {
  if (required.length === 0) return [];
  const have = new Set(granted);
  return required.filter((s) => !have.has(s));
}

/** True when `value` looks like an {@link AuthInfo} (as verifiers of this module build it). */
export function isAuthInfo(value: unknown): value is AuthInfo {
  return (
    typeof value === 'object' &&
    value !== null &&
    Array.isArray((value as AuthInfo).scopes) &&
    typeof (value as AuthInfo).clientId === 'string' &&
    Array.isArray((value as AuthInfo).audience)
  );
}

/** Splits a `scope` claim (space-separated string, or an array as some servers send `scp`). */
export function parseScopes(value: unknown): string[] {
  if (typeof value === 'string') return value.split(' ').filter((s) => s.length > 0);
  if (Array.isArray(value)) return value.filter((s): s is string => typeof s === 'string' && s.length > 0);
  return [];
}

/** The `aud` claim as a list. */
export function parseAudience(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((s): s is string => typeof s === 'string');
  return [];
}
