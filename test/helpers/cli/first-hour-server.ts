/**
 * Test fixture: a stdio MCP server built with mcpkit's McpServer that misbehaves the ways
 * the CLI must cope with. At start it writes to stderr a line holding an OSC window-title
 * sequence (`ESC ] 0 ; pwned BEL`) and a colour sequence, which must never reach the
 * terminal raw. Its tool `open_page {url, mode}` asks for a URL-mode elicitation of `url`
 * (`mode: "request"`, the default) or fails with -32042 listing it (`mode: "error"`), so
 * tests can offer it non-https URLs. Not part of the package.
 */

import { UrlElicitationRequiredError } from '../../../src/jsonrpc/errors.js';
import { McpServer } from '../../../src/server/index.js';
import { StdioServerTransport } from '../../../src/stdio/index.js';

process.stderr.write('\u001b]0;pwned\u0007first-hour fixture \u001b[31mstarting\u001b[0m\n');
const server = new McpServer({ name: 'first-hour', version: '1.0.0' });
server.registerTool(
  'open_page',
  {
    description: 'Asks the user to open url (URL-mode elicitation), or fails with -32042 naming it',
    inputSchema: { type: 'object', properties: { url: { type: 'string' }, mode: { type: 'string', enum: ['request', 'error'] } }, required: ['url'] },
  },
  async (args: { url: string; mode?: string }, ctx) => {
    if (args.mode === 'error') throw UrlElicitationRequiredError.of([{ mode: 'url', elicitationId: 'page-1', url: args.url, message: 'Open the page' }]);
    const r = await ctx.elicitUrl({ message: 'Open the page', url: args.url });
    return { content: [{ type: 'text', text: `action=${r.action}` }] };
  },
);
await server.connect(new StdioServerTransport());
