/**
 * Cold-start comparison server: the official v2 SDK (`@modelcontextprotocol/server` 2.x)
 * serving one `echo` tool over Streamable HTTP: its web-standard transport behind
 * `@hono/node-server`. It serves one session (one transport, one server), which is all the
 * cold-start section (`src/bench/cold-start.ts`) uses. `--mode=json` turns on JSON
 * responses. Start-up and exit follow `http-harness.ts`. Nothing here is part of mcpkit.
 */
import { randomUUID } from 'node:crypto';
import { serve } from '@hono/node-server';
import { McpServer, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { announce, BENCH_HOST, BENCH_PATH, parseServerArgs } from './http-harness.js';

const { mode, port } = parseServerArgs(process.argv.slice(2));
const server = new McpServer({ name: 'official-v2-echo', version: '1.0.0' });
server.registerTool('echo', { description: 'Returns the message it was given.', inputSchema: z.object({ message: z.string() }) }, async ({ message }) => ({
  content: [{ type: 'text', text: message }],
}));
const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), enableJsonResponse: mode === 'json' });
await server.connect(transport);
const http = serve({
  fetch: (request: Request) => (new URL(request.url).pathname === BENCH_PATH ? transport.handleRequest(request) : new Response('not found', { status: 404 })),
  port,
  hostname: BENCH_HOST,
});
http.once('listening', () => {
  const address = http.address();
  if (address === null || typeof address === 'string') throw new Error('official-v2-http: no TCP address');
  announce(address.port, () => new Promise<void>((resolve) => http.close(() => resolve())));
});
