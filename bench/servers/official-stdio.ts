/**
 * Benchmark comparison server: the official MCP TypeScript SDK (v1) serving one
 * `echo {message: string}` tool over stdio, written the way its README shows.
 *
 * Run as a child process by `bench/run.ts` (`node build/bench/servers/official-stdio.js`).
 * It reads JSON-RPC lines on stdin, answers on stdout and exits when stdin closes.
 * Nothing here is part of mcpkit; it exists only so the benchmark has a fair baseline.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'official-echo', version: '1.0.0' });

server.registerTool(
  'echo',
  {
    description: 'Returns the message it was given.',
    inputSchema: { message: z.string() },
  },
  async ({ message }) => ({ content: [{ type: 'text', text: message }] }),
);

const transport = new StdioServerTransport();
process.stdin.on('end', () => {
  void server.close().finally(() => process.exit(0));
});
await server.connect(transport);
