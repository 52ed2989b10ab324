/**
 * Example: an MCP server on Bun. mcpkit's Streamable HTTP handler is web-standard, so
 * `Bun.serve` takes its `fetch` as it is: no adapter. Bun keeps memory between requests, so
 * the 2025 era runs with in-memory `Mcp-Session-Id` sessions; the 2026-07-28 era is served
 * beside it on the same endpoint.
 *
 *   bun add mcpkit
 *   bun run server.ts 3000        # http://127.0.0.1:3000/mcp
 *
 * `idleTimeout: 0` keeps Bun from closing a quiet SSE stream after its default 10 s (the
 * handler ends idle sessions itself: `sessionIdleTimeoutMs`). Run by test/runtimes/bun.test.ts
 * (not compiled by the repository's tsc: it uses Bun's globals).
 */

import { createStreamableHttpHandler } from 'mcpkit/http/server';
import { McpServer } from 'mcpkit/server';

const server = new McpServer({ name: 'bun-example', version: '1.0.0' });
server.registerTool(
  'add',
  {
    description: 'Adds two numbers',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  },
  (args: { a: number; b: number }) => ({ content: [{ type: 'text', text: String(args.a + args.b) }] }),
);
const handler = createStreamableHttpHandler({ server });

const listening = Bun.serve({ hostname: '127.0.0.1', port: Number(Bun.argv[2] ?? 3000), idleTimeout: 0, fetch: (request: Request) => handler.fetch(request) });
console.log(`LISTENING http://127.0.0.1:${listening.port}/mcp`);
