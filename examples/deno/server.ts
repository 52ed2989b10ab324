/**
 * Example: an MCP server on Deno (and Deno Deploy). mcpkit's Streamable HTTP handler is
 * web-standard, so `Deno.serve` takes its `fetch` as it is: no adapter. A long-running Deno
 * process keeps memory, so the 2025 era runs with in-memory `Mcp-Session-Id` sessions; the
 * 2026-07-28 era is served beside it on the same endpoint.
 *
 *   deno run --allow-net=127.0.0.1 --allow-read server.ts 3000     # http://127.0.0.1:3000/mcp
 *
 * (`--allow-read` lets Deno load mcpkit from node_modules; with a `deno.json` import map
 * `"mcpkit/": "npm:mcpkit/"` instead, Deno fetches it itself.) On Deno Deploy, where
 * requests may reach several isolates, pass `sessionless: true` (and serve the 2026-07-28
 * era, which needs no sessions) rather than relying on memory. Run by
 * test/runtimes/deno.test.ts (not compiled by the repository's tsc: it uses Deno's globals).
 */

import { createStreamableHttpHandler } from 'mcpkit/http/server';
import { McpServer } from 'mcpkit/server';

const server = new McpServer({ name: 'deno-example', version: '1.0.0' });
server.registerTool(
  'add',
  {
    description: 'Adds two numbers',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  },
  (args: { a: number; b: number }) => ({ content: [{ type: 'text', text: String(args.a + args.b) }] }),
);
const handler = createStreamableHttpHandler({ server });

Deno.serve(
  { hostname: '127.0.0.1', port: Number(Deno.args[0] ?? 3000), onListen: ({ port }) => console.log(`LISTENING http://127.0.0.1:${port}/mcp`) },
  (request: Request) => handler.fetch(request),
);
