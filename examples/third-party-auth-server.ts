// Reference example (not compiled with the project): an MCP server that is the authorization
// server of its MCP clients while users sign in at a third-party identity provider
// (2025-03-26 › Authorization › Third-Party Authorization Flow). The runnable, tested version
// of this wiring is test/helpers/auth/third-party-example.ts.
//
// Needs the optional peer dependencies `oauth4webapi` (the upstream client) and, for the
// upstream API call below, `jose`. Runs behind a TLS-terminating proxy: the public origin is
// https, and the handler is told the host names it is reached under.
//
// Environment:
//   PUBLIC_ORIGIN        https://notes-mcp.example.com   (this server's issuer; no path)
//   UPSTREAM_ISSUER      https://login.example.com       (the identity provider)
//   UPSTREAM_CLIENT_ID / UPSTREAM_CLIENT_SECRET             (this server's client there; its
//                        redirect URI is PUBLIC_ORIGIN + /oauth/callback)
//   UPSTREAM_API         https://api.example.com/        (the resource the upstream tokens are for)
//   SEAL_SECRET          64 hex characters (seals upstream tokens at rest; keep it stable)

import { createThirdPartyAuthServer, isAuthInfo, requireBearerAuth, requireScopes } from 'mcpkit/auth';
import { createStreamableHttpHandler } from 'mcpkit/http';
import { serveNode } from 'mcpkit/node';
import { McpServer } from 'mcpkit/server';

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name} is not set`);
  return value;
};

const origin = env('PUBLIC_ORIGIN');
const resource = `${origin}/mcp`;
const upstreamApi = env('UPSTREAM_API');

// 1. The authorization server MCP clients talk to. Users consent per client here, then sign in
//    upstream; clients only ever get this server's tokens.
const as = createThirdPartyAuthServer({
  issuer: origin,
  resource,
  scopesSupported: ['notes:read', 'notes:write'],
  defaultScopes: ['notes:read'],
  upstream: {
    issuer: env('UPSTREAM_ISSUER'),
    clientId: env('UPSTREAM_CLIENT_ID'),
    clientSecret: env('UPSTREAM_CLIENT_SECRET'),
    scope: 'offline_access notes',
    resource: upstreamApi,
    name: 'Example Login',
  },
  secret: Uint8Array.from(Buffer.from(env('SEAL_SECRET'), 'hex')),
  // the default store keeps state in memory; give it a durable ThirdPartyStore to survive restarts
  onError: (error) => console.error('[auth]', error.message),
});

// 2. The MCP server. Tools that call the upstream API use the upstream token of the request's
//    grant — never the token the MCP client sent (no passthrough).
const scopes = { tools: { write_note: ['notes:write'] } };
const server = new McpServer({ name: 'notes', version: '1.0.0' });
server.use(requireScopes(scopes));
server.registerTool('list_notes', { description: 'Lists your notes', inputSchema: { type: 'object', properties: {} } }, async (_args, ctx) => {
  if (!isAuthInfo(ctx.authInfo)) throw new Error('not authenticated');
  const upstreamToken = await as.upstreamAccessToken(ctx.authInfo);
  const response = await fetch(new URL('notes', upstreamApi), { headers: { authorization: `Bearer ${upstreamToken}` } });
  return { content: [{ type: 'text', text: await response.text() }] };
});
server.registerTool(
  'write_note',
  { description: 'Writes a note', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
  () => ({
    content: [{ type: 'text', text: 'saved' }],
  }),
);

// 3. Bearer authorization on the MCP endpoint: 401 with the resource metadata, 403 with the
//    needed scope, the authorization server's endpoints served on the same origin, and
//    sessions bound to the signed-in user.
const auth = requireBearerAuth({
  verifier: as.verifier,
  routes: as.route,
  resourceMetadata: { resource, authorization_servers: [as.issuer], scopes_supported: ['notes:read', 'notes:write'], resource_name: 'Notes' },
  scopes,
  onError: (error) => console.error('[bearer]', error.message),
});
const handler = createStreamableHttpHandler({
  server,
  authorize: auth,
  sessionOwner: auth.sessionOwner,
  allowedHosts: [new URL(origin).host],
  allowedOrigins: [origin],
});

const running = await serveNode(handler, { host: '127.0.0.1', port: Number(process.env.PORT ?? 8080) });
console.log(`MCP endpoint ${resource} (listening on ${running.url})`);

// A resource server that trusts an external authorization server instead looks like this:
//   requireBearerAuth({
//     verifier: createJwtVerifier({ issuer: 'https://login.example.com', audience: resource, jwksUri: 'https://login.example.com/jwks' }),
//     resourceMetadata: { resource, authorization_servers: ['https://login.example.com'] },
//   })
