/**
 * The error of mcpkit's OAuth client. Every failure of discovery, registration, the
 * authorization flow or a token request is an {@link OAuthClientError} with a stable
 * string `code`; the server's OAuth error (when it sent one) is in `oauthError`.
 *
 * When the error happens inside an HTTP transport's request (the transport's `auth` hook),
 * the transport rejects with its own `LocalError` whose `cause` is this error.
 */

/** Stable codes of {@link OAuthClientError}. */
export type OAuthClientErrorCode =
  /** A URL is not `https:` (or `http:` with the insecure opt-in), or has a forbidden scheme. */
  | 'insecure_url'
  /** Protected resource metadata or authorization server metadata could not be found or is invalid. */
  | 'discovery_failed'
  /** The protected resource metadata names a `resource` that does not cover the MCP server's URL. */
  | 'resource_mismatch'
  /** Authorization server metadata names another `issuer` than the one it was fetched for. */
  | 'issuer_mismatch'
  /** The authorization server does not advertise PKCE with S256. */
  | 'pkce_unsupported'
  /** No way to obtain a client id at this authorization server (or registration failed). */
  | 'registration_failed'
  /** The user has to authorize: `authorizationUrl` is where to send them (no user agent was configured). */
  | 'authorization_required'
  /** The authorization response was an error, or failed validation (`state`, `iss`, redirect URI). */
  | 'authorization_failed'
  /** The token endpoint refused a grant, or answered something unusable. */
  | 'token_request_failed'
  /** The options given to the OAuth client are inconsistent. */
  | 'invalid_configuration'
  /** A bounded wait (loopback redirect, HTTP request) ran out. */
  | 'timeout'
  /** The operation was cancelled (closed loopback listener, aborted signal). */
  | 'cancelled';

/** Details an {@link OAuthClientError} may carry. */
export interface OAuthClientErrorDetails {
  /** The underlying failure. */
  cause?: unknown;
  /** The OAuth `error` value the server sent (`invalid_grant`, `access_denied`, ...). */
  oauthError?: string;
  /** The HTTP status involved, when there was one. */
  status?: number;
  /** For `authorization_required`: the URL to send the user to. */
  authorizationUrl?: URL;
}

/**
 * A failure of the OAuth client (see {@link OAuthClientErrorCode}). Thrown by
 * `OAuthClient` methods and, through a transport's `auth` hook, found as the `cause` of the
 * transport's error.
 */
export class OAuthClientError extends Error {
  /** What went wrong, as a stable code. */
  readonly code: OAuthClientErrorCode;
  /** The OAuth `error` the server sent, when there was one. */
  readonly oauthError: string | undefined;
  /** The HTTP status involved, when there was one. */
  readonly status: number | undefined;
  /** For `authorization_required`: where the user must go to authorize. */
  readonly authorizationUrl: URL | undefined;

  constructor(code: OAuthClientErrorCode, message: string, details: OAuthClientErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'OAuthClientError';
    this.code = code;
    this.oauthError = details.oauthError;
    this.status = details.status;
    this.authorizationUrl = details.authorizationUrl;
  }
}
