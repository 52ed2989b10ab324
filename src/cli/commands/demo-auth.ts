/**
 * `mcpkit demo --http --auth-issuer URL`: the demo as an OAuth-protected resource server.
 * Every MCP request needs a bearer token (a JWT access token, RFC 9068) that the authorization
 * server `URL` issued for this demo's URL (`aud`); the demo serves its protected resource
 * metadata (RFC 9728) naming that server, so a client (`mcpkit login URL`) finds where to sign
 * in. The keys are the server's `jwks_uri`, read from its metadata at start-up. `--auth-scope
 * "S …"` names the scopes a client should ask for (`scopes_supported`; many authorization
 * servers grant a resource nothing without them).
 *
 * An `http:` issuer is accepted only with MCPKIT_DANGEROUSLY_ALLOW_INSECURE_HTTP=1 (local
 * tests), as for `mcpkit login`. In this mode the demo also serves `whoami`, which answers
 * with what the verified token says (issuer, subject, client, scopes, audience, expiry; never
 * the token).
 */
import { discoverAuthorizationServer } from '../../auth/client/discovery.js';
import { type BearerAuth, requireBearerAuth } from '../../auth/server/bearer.js';
import { createJwtVerifier } from '../../auth/server/jwt-verifier.js';
import type { AuthInfo } from '../../auth/server/types.js';
import type { HttpAuthorizer } from '../../http/server/types.js';
import type { McpServer } from '../../server/server.js';
import { insecureHttpAllowed } from '../auth.js';

/** The demo's authorizer: built before the port is known, bound to the resource URL once listening. */
export interface DemoAuth {
  readonly authorizer: HttpAuthorizer;
  /** Binds the checks to `resource` (the demo's MCP URL, which tokens must name in `aud`). */
  bind(resource: string): void;
}

/** What `--auth-issuer URL [--auth-scope "S …"]` asks for. */
export interface DemoAuthFlags {
  readonly issuer: string;
  /** The scopes the demo names in its metadata (`scopes_supported`) and challenges: what a client asks for. */
  readonly scopes: readonly string[];
}

/** `--auth-issuer URL` and `--auth-scope "S …"`: undefined without the flag, the flags, or an exit code (2, after saying why). */
export function authFlagsOf(args: string[]): DemoAuthFlags | undefined | number {
  const issuer = authIssuerOf(args);
  if (issuer === undefined || typeof issuer === 'number') {
    if (issuer === undefined && args.includes('--auth-scope')) {
      process.stderr.write('mcpkit demo: --auth-scope goes with --auth-issuer URL\n');
      return 2;
    }
    return issuer;
  }
  const at = args.indexOf('--auth-scope');
  if (at < 0) return { issuer, scopes: [] };
  const value = args[at + 1];
  const scopes = value?.split(' ').filter((s) => s !== '') ?? [];
  if (value === undefined || value.startsWith('--') || scopes.length === 0 || scopes.some((s) => !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(s))) {
    process.stderr.write('mcpkit demo: --auth-scope needs the scopes a client should ask for, separated by spaces (e.g. "mcp:read mcp:write")\n');
    return 2;
  }
  return { issuer, scopes };
}

function authIssuerOf(args: string[]): string | undefined | number {
  const at = args.indexOf('--auth-issuer');
  if (at < 0) return undefined;
  const issuer = args[at + 1];
  if (issuer === undefined || issuer.startsWith('--') || !URL.canParse(issuer)) {
    process.stderr.write('mcpkit demo: --auth-issuer needs the URL of an OAuth authorization server (its issuer, e.g. https://auth.example.com)\n');
    return 2;
  }
  return issuer;
}

/**
 * Reads the authorization server's metadata (its `jwks_uri`) and makes the demo's
 * authorizer; rejects with an Error saying what failed (no metadata, an issuer mismatch, no
 * `jwks_uri`, an `http:` issuer without the opt-in).
 */
export async function demoAuth({ issuer, scopes }: DemoAuthFlags): Promise<DemoAuth> {
  const allowInsecure = insecureHttpAllowed();
  const { metadata } = await discoverAuthorizationServer({ fetch: globalThis.fetch, timeoutMs: 10_000, allowInsecure }, issuer);
  const jwksUri = metadata.jwks_uri;
  if (typeof jwksUri !== 'string')
    throw new Error(`the authorization server ${issuer} publishes no jwks_uri: the demo verifies JWT access tokens with its keys`);
  let bound: BearerAuth | undefined;
  const current = (): BearerAuth => {
    if (bound === undefined) throw new Error('the demo is not listening yet');
    return bound;
  };
  return {
    authorizer: {
      route: (req) => current().route?.(req),
      authenticate: (req) => current().authenticate(req),
      authorizeMessage: (message, authInfo) => current().authorizeMessage?.(message, authInfo),
      sessionOwner: (authInfo) => current().sessionOwner(authInfo),
    },
    bind(resource) {
      bound = requireBearerAuth({
        verifier: createJwtVerifier({
          issuer,
          audience: resource,
          jwksUri,
          ...(allowInsecure ? { fetchGuard: { dangerouslyAllowHttpLoopbackForTesting: true } } : {}),
        }),
        resourceMetadata: { resource, authorization_servers: [issuer], ...(scopes.length === 0 ? {} : { scopes_supported: [...scopes] }) },
      });
    },
  };
}

/** Registers `whoami`: what the verified token of the request says. */
export function registerWhoami(server: McpServer): void {
  server.registerTool(
    'whoami',
    {
      title: 'Who am I',
      description: 'Answers with what the verified bearer token of this request says: issuer, subject, client, scopes, audience and expiry (never the token)',
      annotations: { readOnlyHint: true },
    },
    (_args, ctx) => {
      const info = ctx.authInfo as AuthInfo | undefined;
      if (info === undefined) return { content: [{ type: 'text', text: 'no verified token' }], isError: true };
      const { issuer, subject, clientId, scopes, audience, expiresAt } = info;
      return { structuredContent: { issuer, subject, clientId, scopes, audience, expiresAt } };
    },
  );
}
