/**
 * The OAuth client's two libraries, `oauth4webapi` and `jose` (optional peer dependencies
 * of mcpkit), loaded on first use so that importing `mcpkit/auth` needs neither. A missing
 * package fails the operation that needed it with {@link OAuthClientError}
 * `invalid_configuration` naming the package to install; a later call tries again.
 */
import { OAuthClientError } from './errors.js';

/** The `oauth4webapi` module. */
export type OAuthLib = typeof import('oauth4webapi');
/** The `jose` module. */
export type JoseLib = typeof import('jose');

let oauthLib: Promise<OAuthLib> | undefined;
let joseLib: Promise<JoseLib> | undefined;

function missing(name: string, err: unknown): OAuthClientError {
  return new OAuthClientError('invalid_configuration', `mcpkit's OAuth client needs the ${name} package (npm install ${name})`, { cause: err });
}

/** Loads `oauth4webapi` (once). Rejects with `invalid_configuration` when it is not installed. */
export function loadOAuth(): Promise<OAuthLib> {
  oauthLib ??= import('oauth4webapi').catch((err: unknown) => {
    oauthLib = undefined;
    throw missing('oauth4webapi', err);
  });
  return oauthLib;
}

/** Loads `jose` (once). Rejects with `invalid_configuration` when it is not installed. */
export function loadJose(): Promise<JoseLib> {
  joseLib ??= import('jose').catch((err: unknown) => {
    joseLib = undefined;
    throw missing('jose', err);
  });
  return joseLib;
}
