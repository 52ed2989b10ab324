/**
 * The example server of the third-party authorization flow, runnable in tests: an MCP
 * "notes" server on 127.0.0.1 that is its clients' authorization server while users sign in
 * at an upstream authorization server (the oidc-provider fixture). It shows the intended
 * wiring (`examples/third-party-auth-server.ts` is the production-shaped version):
 *
 * ```ts
 * const as = createThirdPartyAuthServer({ issuer, resource, scopesSupported, upstream: {...} });
 * const auth = requireBearerAuth({ verifier: as.verifier, routes: as.route,
 *   resourceMetadata: { resource, authorization_servers: [as.issuer] }, scopes });
 * createStreamableHttpHandler({ server, authorize: auth, sessionOwner: auth.sessionOwner });
 * ```
 *
 * Tools: `whoami` (the verified auth info), `upstream_profile` (calls the "upstream API" with
 * the upstream token — never the MCP token — and reports what that API saw), `read_notes`
 * and `write_note` (needs `notes:write`).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type BearerAuth, requireBearerAuth } from '../../../src/auth/server/bearer.js';
import { createJwtVerifier } from '../../../src/auth/server/jwt-verifier.js';
import { requireScopes } from '../../../src/auth/server/scopes.js';
import { createThirdPartyAuthServer, type ThirdPartyAuthServer, type ThirdPartyAuthServerOptions } from '../../../src/auth/server/third-party.js';
import { isAuthInfo, type TokenVerifier } from '../../../src/auth/server/types.js';
import { toNodeListener } from '../../../src/http/node.js';
import { createStreamableHttpHandler, type StreamableHttpHandler } from '../../../src/http/server/handler.js';
import { McpServer } from '../../../src/server/server.js';
import type { OidcServer, RegisteredClient } from './oidc-server.js';

/** The upstream API's resource identifier at the upstream authorization server. */
export const UPSTREAM_API = 'https://notes-api.example/';

/** Options of {@link startThirdPartyExample}. */
export interface ThirdPartyExampleOptions extends Partial<Omit<ThirdPartyAuthServerOptions, 'issuer' | 'resource' | 'upstream'>> {
  /** Lifetime of upstream access tokens (seconds). Default 300. */
  upstreamAccessTokenTtlSeconds?: number;
  /** Renew upstream tokens this long before expiry. Default 0 (exactly at expiry). */
  upstreamRefreshSkewSeconds?: number;
}

/** A running example server. */
export interface ThirdPartyExample {
  /** `http://127.0.0.1:<port>`: the authorization server's issuer. */
  readonly origin: string;
  /** The MCP endpoint (the resource). */
  readonly url: string;
  readonly as: ThirdPartyAuthServer;
  readonly auth: BearerAuth;
  readonly handler: StreamableHttpHandler;
  /** This server's static client at the upstream. */
  readonly upstreamClient: RegisteredClient;
  /** What the upstream API accepts (upstream-issued tokens for {@link UPSTREAM_API}). */
  readonly upstreamApi: TokenVerifier;
  close(): Promise<void>;
}

/** Starts the example on 127.0.0.1 with `oidc` as the upstream; `close()` stops it (not `oidc`). */
export async function startThirdPartyExample(oidc: OidcServer, options: ThirdPartyExampleOptions = {}): Promise<ThirdPartyExample> {
  const http: Server = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const url = `${origin}/mcp`;
  const { upstreamAccessTokenTtlSeconds, upstreamRefreshSkewSeconds, ...asOptions } = options;
  await oidc.addResource(UPSTREAM_API, { scopes: ['mcp:read', 'mcp:write'], accessTokenTtlSeconds: upstreamAccessTokenTtlSeconds ?? 300 });
  const upstreamClient = await oidc.registerClient({
    client_name: 'notes MCP server',
    redirect_uris: [`${origin}/oauth/callback`],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
  });
  const as = createThirdPartyAuthServer({
    scopesSupported: ['notes:read', 'notes:write'],
    defaultScopes: ['notes:read'],
    ...asOptions,
    issuer: origin,
    resource: url,
    upstream: {
      issuer: oidc.issuer,
      clientId: upstreamClient.client_id,
      clientSecret: upstreamClient.client_secret!,
      scope: 'mcp:read',
      resource: UPSTREAM_API,
      name: 'Example Identity',
      refreshSkewSeconds: upstreamRefreshSkewSeconds ?? 0,
    },
    dangerouslyAllowInsecureHttpForTesting: true,
  });
  // the upstream API validates upstream tokens for itself; MCP tokens mean nothing to it
  const upstreamApi = createJwtVerifier({
    issuer: oidc.issuer,
    audience: UPSTREAM_API,
    jwksUri: oidc.metadata.jwks_uri,
    clockToleranceSeconds: 0,
    fetchGuard: { dangerouslyAllowHttpLoopbackForTesting: true },
  });

  const scopes = { tools: { write_note: ['notes:write'] } };
  const server = new McpServer({ name: 'notes-third-party', version: '1.0.0' });
  server.use(requireScopes(scopes));
  server.registerTool('whoami', { description: 'The verified auth info', inputSchema: { type: 'object', properties: {} } }, (_args, ctx) => ({
    content: [{ type: 'text', text: JSON.stringify(ctx.authInfo ?? null) }],
  }));
  server.registerTool(
    'upstream_profile',
    { description: 'Calls the upstream API on the user’s behalf', inputSchema: { type: 'object', properties: {} } },
    async (_args, ctx) => {
      if (!isAuthInfo(ctx.authInfo)) throw new Error('not authenticated');
      const upstreamToken = await as.upstreamAccessToken(ctx.authInfo);
      const seen = await upstreamApi.verify(upstreamToken);
      return {
        content: [{ type: 'text', text: JSON.stringify({ subject: seen.subject, audience: seen.audience, expiresAt: seen.expiresAt, tokenId: seen.tokenId }) }],
      };
    },
  );
  server.registerTool('read_notes', { description: 'Reads notes', inputSchema: { type: 'object', properties: {} } }, () => ({
    content: [{ type: 'text', text: 'notes' }],
  }));
  server.registerTool('write_note', { description: 'Writes a note', inputSchema: { type: 'object', properties: {} } }, () => ({
    content: [{ type: 'text', text: 'written' }],
  }));

  const auth = requireBearerAuth({
    verifier: as.verifier,
    routes: as.route,
    resourceMetadata: { resource: url, authorization_servers: [as.issuer], scopes_supported: ['notes:read', 'notes:write'] },
    scopes,
  });
  const handler = createStreamableHttpHandler({ server, responseMode: 'json', authorize: auth, sessionOwner: auth.sessionOwner });
  http.on('request', toNodeListener(handler));
  return {
    origin,
    url,
    as,
    auth,
    handler,
    upstreamClient,
    upstreamApi,
    close: async () => {
      await handler.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
