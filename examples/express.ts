// Reference example (not compiled with the project): mcpkit's Streamable HTTP server mounted
// in an Express app. Needs `express` installed by the application; mcpkit itself does not
// depend on it.
//
// Do not put `express.json()` in front of the MCP route: the handler reads the body itself,
// with its own size limit (413 above `maxBodyBytes`), after its Host/Origin and header
// checks. An auth middleware that sets `req.auth` hands that value to tool handlers as
// `ctx.authInfo`.
import express from 'express';
import { McpServer } from 'mcpkit/server';
import { createStreamableHttpHandler } from 'mcpkit/http';
import { toNodeListener } from 'mcpkit/node';

const server = new McpServer({ name: 'express-example', version: '1.0.0' });
server.registerTool('echo', {
  description: 'Returns the message',
  inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
}, (args: { message: string }) => ({ content: [{ type: 'text', text: args.message }] }));

const handler = createStreamableHttpHandler({
  server,
  // The defaults allow only localhost names; list the names this server is reached under.
  allowedHosts: ['localhost', '127.0.0.1'],
  legacySse: true, // also serve GET /sse + POST /messages for 2024-11-05 clients
});

const app = express();
const mcp = toNodeListener(handler);
app.all('/mcp', mcp);
app.get('/sse', mcp);
app.post('/messages', mcp);

const listener = app.listen(3000, '127.0.0.1', () => console.error('MCP server at http://127.0.0.1:3000/mcp'));
process.on('SIGINT', async () => {
  await handler.close();
  listener.close();
});
