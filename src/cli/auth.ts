/**
 * Where the CLI keeps OAuth state, and the authorization of HTTP targets. Tokens and client
 * registrations live in one `FileOAuthStore` file (mode 0600, directory 0700, replaced
 * atomically) under the config directory, keyed per server. A URL target gets an
 * `OAuthClient` only when that file holds tokens for it (so plain servers never load the
 * OAuth libraries); the client refreshes tokens itself and, when the user must sign in again,
 * the command fails with a hint to run `mcpkit login URL`.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { AuthorizationCodeGrant, OAuthClient } from '../auth/client/index.js';
import type { HttpAuthorization } from '../http/client/index.js';

/**
 * The CLI's config directory: `$MCPKIT_CONFIG_DIR` when set (tests use it), else
 * `$XDG_CONFIG_HOME/mcpkit`, else `~/.config/mcpkit`.
 */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.MCPKIT_CONFIG_DIR) return env.MCPKIT_CONFIG_DIR;
  if (env.XDG_CONFIG_HOME) return join(env.XDG_CONFIG_HOME, 'mcpkit');
  return join(homedir(), '.config', 'mcpkit');
}

/** The file tokens and registrations are kept in (`<config dir>/auth.json`). */
export function tokenFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(configDir(env), 'auth.json');
}

/**
 * True when `MCPKIT_DANGEROUSLY_ALLOW_INSECURE_HTTP=1`: OAuth over plain http (metadata,
 * authorization server, MCP server). Only for local test servers.
 */
export function insecureHttpAllowed(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.MCPKIT_DANGEROUSLY_ALLOW_INSECURE_HTTP === '1';
}

/** The client metadata the CLI registers with (dynamic registration). */
export const CLI_CLIENT_METADATA = { clientName: 'mcpkit CLI', softwareId: 'mcpkit-cli', softwareVersion: '0.1.0', applicationType: 'native' as const };

/**
 * The https URL of a client ID metadata document (SEP-991) to use as this CLI's client id
 * where the authorization server supports it: `$MCPKIT_CLIENT_METADATA_URL`, else none
 * (dynamic registration). The document must list the loopback redirect URI login uses
 * (`mcpkit login --port N` fixes its port).
 */
export function clientMetadataUrl(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env.MCPKIT_CLIENT_METADATA_URL || undefined;
}

/** An OAuth client for `url` over the CLI's token file, with `grant`. */
export async function oauthClientFor(url: string, grant: AuthorizationCodeGrant): Promise<OAuthClient> {
  const { OAuthClient, FileOAuthStore } = await import('../auth/client/index.js');
  const cimd = clientMetadataUrl();
  return new OAuthClient({
    serverUrl: url,
    grant,
    store: new FileOAuthStore(tokenFile()),
    clientMetadata: CLI_CLIENT_METADATA,
    ...(cimd === undefined ? {} : { clientIdMetadataDocumentUrl: cimd }),
    dangerouslyAllowInsecureHttp: insecureHttpAllowed(),
  });
}

/**
 * The authorization for requests to `url`: an OAuth client when the token file holds tokens
 * for it, else undefined. Without a user agent, a flow that needs the user stops with
 * `authorization_required` (the command then suggests `mcpkit login`).
 */
export async function authFor(url: string): Promise<HttpAuthorization | undefined> {
  if (!existsSync(tokenFile())) return undefined;
  if (new URL(url).protocol === 'http:' && !insecureHttpAllowed()) return undefined;
  const oauth = await oauthClientFor(url, { type: 'authorization_code', redirectUri: 'http://127.0.0.1/callback' });
  return (await oauth.tokens()) === undefined ? undefined : oauth;
}
