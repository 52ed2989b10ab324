/**
 * Benchmark comparison server: the official MCP TypeScript SDK (v1) serving one
 * `echo {message: string}` tool over Streamable HTTP, stateful, written the way the
 * SDK's examples show: one `StreamableHTTPServerTransport` (session ids from
 * `randomUUID()`) and one `McpServer` per session, kept in a map by session id, with a
 * plain `node:http` server in front that parses the POST body and hands it to
 * `transport.handleRequest(req, res, parsedBody)`. `--mode=json` sets
 * `enableJsonResponse: true`, `--mode=sse` leaves the SDK's default (an SSE stream per
 * POST).
 *
 * Run as a child process by the benchmark
 * (`node build/bench/servers/official-http.js --mode=json|sse`); start-up and exit follow
 * `http-harness.ts`. Nothing here is part of mcpkit; it exists only so the benchmark has
 * a fair baseline.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { announce, BENCH_HOST, BENCH_PATH, parseServerArgs } from './http-harness.js';

const { mode, port } = parseServerArgs(process.argv.slice(2));
const transports = new Map<string, StreamableHTTPServerTransport>();

function createEchoServer(): McpServer {
  const server = new McpServer({ name: 'official-echo', version: '1.0.0' });
  server.registerTool(
    'echo',
    {
      description: 'Returns the message it was given.',
      inputSchema: { message: z.string() },
    },
    async ({ message }) => ({ content: [{ type: 'text', text: message }] }),
  );
  return server;
}

function jsonError(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.url !== BENCH_PATH) {
    req.resume();
    res.writeHead(404);
    res.end();
    return;
  }
  const header = req.headers['mcp-session-id'];
  const sessionId = typeof header === 'string' ? header : undefined;
  const existing = sessionId === undefined ? undefined : transports.get(sessionId);

  if (req.method !== 'POST') {
    // GET (standalone SSE stream) and DELETE (end of session) belong to a session.
    if (existing === undefined) {
      req.resume();
      jsonError(res, sessionId === undefined ? 400 : 404, -32000, 'Bad Request: No valid session ID provided');
      return;
    }
    await existing.handleRequest(req, res);
    return;
  }

  let body: unknown;
  try {
    body = JSON.parse(await readBody(req));
  } catch {
    jsonError(res, 400, -32700, 'Parse error');
    return;
  }
  if (existing !== undefined) {
    await existing.handleRequest(req, res, body);
    return;
  }
  if (sessionId !== undefined) {
    jsonError(res, 404, -32001, 'Session not found');
    return;
  }
  if (!isInitializeRequest(body)) {
    jsonError(res, 400, -32000, 'Bad Request: No valid session ID provided');
    return;
  }
  const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    enableJsonResponse: mode === 'json',
    onsessioninitialized: (id) => {
      transports.set(id, transport);
    },
  });
  transport.onclose = () => {
    const id = transport.sessionId;
    if (id !== undefined) transports.delete(id);
  };
  await createEchoServer().connect(transport);
  await transport.handleRequest(req, res, body);
}

const server = createServer((req, res) => {
  handle(req, res).catch((error: unknown) => {
    process.stderr.write(`official-http: ${error instanceof Error ? error.message : String(error)}\n`);
    if (!res.headersSent) jsonError(res, 500, -32603, 'Internal server error');
    else res.destroy();
  });
});

server.listen(port, BENCH_HOST, () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('official-http: no TCP address');
  announce(address.port, async () => {
    for (const t of transports.values()) await t.close().catch(() => {});
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});
