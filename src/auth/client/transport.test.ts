/**
 * The OAuth client as the `auth` of mcpkit's HTTP client transports, against mcpkit's own
 * Streamable HTTP server behind a bearer check (in process, as fetch functions): the first
 * 401 (on initialize) to a tool call, every request of the session carrying the token (POST,
 * GET, DELETE), a token expiring mid-session (refreshed, the same request replayed on the
 * same session), step-up mid-session, and the legacy HTTP+SSE transport.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeAuthServer, FakeResourceServer, Router, type Seen, type TokenInfo } from '../../../test/helpers/auth/fake-oauth.js';
import { Client } from '../../client/client.js';
import { SseClientTransport } from '../../http/client/legacy-sse.js';
import { StreamableHttpClientTransport } from '../../http/client/streamable.js';
import { createStreamableHttpHandler, type StreamableHttpHandler } from '../../http/server/handler.js';
import { McpServer } from '../../server/server.js';
import { OAuthClient } from './oauth-client.js';

const MCP_URL = 'http://localhost:3000/mcp';

function mcpServer(): McpServer {
  const server = new McpServer({ name: 'protected', version: '1.0.0' });
  server.registerTool('whoami', { description: 'the caller', inputSchema: { type: 'object', properties: {} } }, (_args, ctx) => {
    const info = ctx.authInfo as TokenInfo | undefined;
    return { content: [{ type: 'text', text: `${info?.clientId ?? 'nobody'} ${info?.scope ?? ''}` }] };
  });
  return server;
}

function setup(options: { methodScopes?: Record<string, string[]>; challengeScope?: string; legacy?: boolean } = {}) {
  const as = new FakeAuthServer({ issuer: 'http://localhost:4000' });
  const handler: StreamableHttpHandler = createStreamableHttpHandler({ server: mcpServer(), legacySse: options.legacy === true });
  const rs = new FakeResourceServer(
    { url: MCP_URL, authorizationServers: [as.issuer], methodScopes: options.methodScopes, challengeScope: options.challengeScope },
    (t) => as.tokens.get(t),
  );
  rs.app = (req: Seen, info: TokenInfo) =>
    handler.fetch(new Request(req.url, { method: req.method, headers: req.headers, body: req.method === 'POST' ? req.body : undefined }), { authInfo: info });
  const router = new Router().add(as.origin, as.handle).add(rs.url.origin, (req) => {
    // the legacy transport's endpoints are protected the same way as /mcp
    if (req.url.pathname === '/sse' || req.url.pathname === '/messages') {
      const header = req.headers.get('authorization');
      const info = header?.startsWith('Bearer ') ? as.tokens.get(header.slice(7)) : undefined;
      if (!info) return new Response('unauthorized', { status: 401, headers: { 'www-authenticate': `Bearer resource_metadata="${rs.metadataUrl}"` } });
      return rs.app!(req, info);
    }
    return rs.handle(req);
  });
  const oauth = new OAuthClient({
    serverUrl: MCP_URL,
    grant: { type: 'authorization_code', redirectUri: 'http://127.0.0.1:5555/callback', userAgent: as.userAgent },
    fetch: router.fetch,
    dangerouslyAllowInsecureHttp: true,
  });
  return { as, rs, router, oauth, handler };
}

test('Streamable HTTP with auth: 401 on initialize → OAuth → session; every request carries the bearer; a tool sees the principal', async () => {
  const { as, router, oauth, handler } = setup({ challengeScope: 'mcp:read' });
  const client = new Client({ name: 'app', version: '1.0.0' }, { requestTimeoutMs: 5000 });
  const transport = new StreamableHttpClientTransport({ url: MCP_URL, fetch: router.fetch, auth: oauth, reconnect: { initialDelayMs: 10, maxRetries: 0 } });
  await client.connect(transport);
  const result = await client.callTool({ name: 'whoami', arguments: {} });
  const clientId = [...as.clients.keys()][0]!;
  assert.deepEqual(result.content, [{ type: 'text', text: `${clientId} mcp:read` }]);
  await client.close();
  await handler.close();

  const token = (await oauth.tokens())!.accessToken;
  const mcp = router.to('http://localhost:3000', '/mcp');
  assert.equal(mcp[0]!.headers.get('authorization'), null, 'the first initialize went without credentials');
  for (const seen of mcp.slice(1)) assert.equal(seen.headers.get('authorization'), `Bearer ${token}`, `${seen.method} carries the token`);
  assert.ok(
    mcp.some((s) => s.method === 'GET'),
    'the GET stream was opened',
  );
  assert.ok(
    mcp.some((s) => s.method === 'DELETE'),
    'the session was deleted',
  );
  assert.ok(router.seen.every((s) => !s.url.href.includes(token)));
});

test('a token expiring mid-session is refreshed and the same request replayed on the same session; step-up mid-session', async () => {
  const { as, router, oauth, handler } = setup({ challengeScope: 'mcp:read', methodScopes: { 'tools/call': ['mcp:read', 'mcp:write'] } });
  const client = new Client({ name: 'app', version: '1.0.0' }, { requestTimeoutMs: 5000 });
  const transport = new StreamableHttpClientTransport({ url: MCP_URL, fetch: router.fetch, auth: oauth, openGetStream: false });
  await client.connect(transport);
  const session = transport.sessionId;
  assert.ok(session);

  // step-up: tools/call needs mcp:write
  const first = await client.callTool({ name: 'whoami', arguments: {} });
  assert.match((first.content[0] as { text: string }).text, / mcp:read mcp:write$/);
  assert.deepEqual(
    as.authorizations.map((u) => u.searchParams.get('scope')),
    ['mcp:read', 'mcp:read mcp:write'],
  );

  // expiry: the server stops accepting the access token
  as.tokens.get((await oauth.tokens())!.accessToken)!.expiresAt = 0;
  const again = await client.callTool({ name: 'whoami', arguments: {} });
  assert.match((again.content[0] as { text: string }).text, / mcp:read mcp:write$/);
  assert.equal(transport.sessionId, session, 'the same session');
  assert.equal(as.tokenRequests.at(-1)!.params.get('grant_type'), 'refresh_token');
  assert.equal(as.authorizations.length, 2, 'refreshed, not re-authorized');
  await client.close();
  await handler.close();
});

test('the legacy HTTP+SSE transport authorizes its stream and its POSTs', async () => {
  const { router, oauth, handler } = setup({ legacy: true });
  const client = new Client({ name: 'app', version: '1.0.0' }, { requestTimeoutMs: 5000 });
  const transport = new SseClientTransport({ url: 'http://localhost:3000/sse', fetch: router.fetch, auth: oauth });
  await client.connect(transport);
  const result = await client.callTool({ name: 'whoami', arguments: {} });
  assert.match((result.content[0] as { text: string }).text, /^client-/);
  const token = (await oauth.tokens())!.accessToken;
  const posts = router.to('http://localhost:3000', '/messages');
  assert.ok(posts.length >= 2);
  for (const p of posts) assert.equal(p.headers.get('authorization'), `Bearer ${token}`);
  await client.close();
  await handler.close();
});
