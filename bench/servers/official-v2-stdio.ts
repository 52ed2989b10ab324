/**
 * Cold-start comparison server: the official v2 SDK (`@modelcontextprotocol/server` 2.x)
 * serving one `echo {message: string}` tool over stdio, the way its README shows. Exits
 * when stdin ends. Nothing here is part of mcpkit.
 */
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

const server = new McpServer({ name: 'official-v2-echo', version: '1.0.0' });
server.registerTool('echo', { description: 'Returns the message it was given.', inputSchema: z.object({ message: z.string() }) }, async ({ message }) => ({
  content: [{ type: 'text', text: message }],
}));
process.stdin.on('end', () => process.exit(0));
await server.connect(new StdioServerTransport());
