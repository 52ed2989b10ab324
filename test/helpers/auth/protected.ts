/**
 * Test helpers of the resource-server tests: an MCP server protected by `requireBearerAuth`
 * on a real socket (127.0.0.1, random port), and a minimal hand-written MCP-over-HTTP client
 * (fetch + JSON replies). Not part of the package.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type BearerAuth, type BearerAuthOptions, requireBearerAuth } from '../../../src/auth/server/bearer.js';
import { requireScopes, type ScopeRequirements } from '../../../src/auth/server/scopes.js';
import type { TokenVerifier } from '../../../src/auth/server/types.js';
import { toNodeListener } from '../../../src/http/node.js';
import { createStreamableHttpHandler, type StreamableHttpHandler } from '../../../src/http/server/handler.js';
import type { JSONObject } from '../../../src/jsonrpc/types.js';
import { McpServer } from '../../../src/server/server.js';

export const LATEST = '2025-11-25';

/** A server with tools whose scopes the tests check, and one that reports `ctx.authInfo`. */
export function notesServer(scopes?: ScopeRequirements): McpServer {
  const server = new McpServer({ name: 'notes', version: '1.0.0' });
  if (scopes !== undefined) server.use(requireScopes(scopes));
  server.registerTool('whoami', { description: 'reports the verified auth info', inputSchema: { type: 'object', properties: {} } }, (_args, ctx) => ({
    content: [{ type: 'text', text: JSON.stringify(ctx.authInfo ?? null) }],
  }));
  server.registerTool('read_notes', { description: 'reads', inputSchema: { type: 'object', properties: {} } }, () => ({
    content: [{ type: 'text', text: 'notes' }],
  }));
  server.registerTool('write_note', { description: 'writes', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, () => ({
    content: [{ type: 'text', text: 'written' }],
  }));
  return server;
}

export interface ProtectedServer {
  /** The MCP endpoint URL (also the resource identifier). */
  readonly url: string;
  readonly origin: string;
  readonly auth: BearerAuth;
  readonly handler: StreamableHttpHandler;
  close(): Promise<void>;
}

export interface ProtectedServerOptions extends Omit<BearerAuthOptions, 'verifier' | 'resourceMetadata'> {
  /** Builds the verifier once the resource URL is known. */
  verifier: (resource: string) => TokenVerifier | Promise<TokenVerifier>;
  /** The authorization server(s) named in the metadata. */
  authorizationServers: string[];
  scopesSupported?: string[];
  /** Called with the resource URL before the handler is built (register it at the AS). */
  onResource?: (resource: string) => Promise<void> | void;
  /** Also enforce `scopes` with the server middleware. Default true. */
  middleware?: boolean;
}

/** Starts a protected notes server on 127.0.0.1; `close()` stops it. */
export async function startProtectedServer(options: ProtectedServerOptions): Promise<ProtectedServer> {
  const http: Server = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const url = `${origin}/mcp`;
  await options.onResource?.(url);
  const { verifier, authorizationServers, scopesSupported, onResource: _ignored, middleware, ...rest } = options;
  const auth = requireBearerAuth({
    ...rest,
    verifier: await verifier(url),
    resourceMetadata: {
      resource: url,
      authorization_servers: authorizationServers,
      ...(scopesSupported !== undefined ? { scopes_supported: scopesSupported } : {}),
    },
  });
  const handler = createStreamableHttpHandler({
    server: notesServer(middleware === false ? undefined : options.scopes),
    responseMode: 'json',
    authorize: auth,
    sessionOwner: auth.sessionOwner,
    legacySse: true,
  });
  http.on('request', toNodeListener(handler));
  return {
    url,
    origin,
    auth,
    handler,
    close: async () => {
      await handler.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** One MCP POST with an optional bearer token; the JSON reply parsed when there is one. */
export interface McpReply {
  readonly status: number;
  readonly headers: Headers;
  readonly json: JSONObject | JSONObject[] | undefined;
}

export async function mcpPost(
  url: string,
  body: unknown,
  options: { token?: string; sessionId?: string; headers?: Record<string, string> } = {},
): Promise<McpReply> {
  const headers: Record<string, string> = {
    accept: 'application/json, text/event-stream',
    'content-type': 'application/json',
    'mcp-protocol-version': LATEST,
    ...options.headers,
  };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  if (options.sessionId !== undefined) headers['mcp-session-id'] = options.sessionId;
  const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body), signal: AbortSignal.timeout(10_000) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, json: text === '' ? undefined : (JSON.parse(text) as JSONObject) };
}

export function rpc(id: number, method: string, params?: JSONObject): JSONObject {
  return params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
}

export const initialize = (id = 0): JSONObject =>
  rpc(id, 'initialize', { protocolVersion: LATEST, capabilities: {}, clientInfo: { name: 'auth-test', version: '1.0.0' } });

/** Opens a session with `token`: initialize + initialized. Resolves with the session id. */
export async function openSession(url: string, token: string): Promise<string> {
  const init = await mcpPost(url, initialize(), { token });
  if (init.status !== 200) throw new Error(`initialize answered ${init.status}: ${JSON.stringify(init.json)}`);
  const sessionId = init.headers.get('mcp-session-id');
  if (sessionId === null) throw new Error('no session id');
  const done = await mcpPost(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { token, sessionId });
  if (done.status !== 202) throw new Error(`initialized answered ${done.status}`);
  return sessionId;
}

/** Calls a tool on a session; resolves with the HTTP reply. */
export function callTool(url: string, token: string, sessionId: string, name: string, id = 1): Promise<McpReply> {
  return mcpPost(url, rpc(id, 'tools/call', { name, arguments: {} }), { token, sessionId });
}

/** The parameters of a `WWW-Authenticate: Bearer …` value (quoted strings unescaped). */
export function parseChallenge(value: string | null): Record<string, string> {
  if (value === null) throw new Error('no WWW-Authenticate header');
  const m = /^Bearer\b\s*(.*)$/i.exec(value);
  if (m === null) throw new Error(`not a Bearer challenge: ${value}`);
  const out: Record<string, string> = {};
  for (const p of m[1]!.matchAll(/([a-z_]+)="((?:[^"\\]|\\.)*)"/gi)) out[p[1]!] = p[2]!.replace(/\\(.)/g, '$1');
  return out;
}
