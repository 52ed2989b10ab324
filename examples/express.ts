/**
 * Example: mcpkit's Streamable HTTP server mounted in an Express 5 app, with the legacy
 * HTTP+SSE endpoints for 2024-11-05 clients. Express is the application's dependency;
 * mcpkit does not depend on it.
 *
 * This file is compiled and tested inside the mcpkit repository, so it imports the sources
 * by relative path. In an application the imports read:
 *
 *   import { McpServer } from 'mcpkit/server';
 *   import { createStreamableHttpHandler } from 'mcpkit/http';
 *   import { toNodeListener } from 'mcpkit/node';
 *
 * Do not put `express.json()` in front of the MCP routes: the handler reads the body itself,
 * with its own size limit (413 above `maxBodyBytes`), after its Host, Origin and header
 * checks. An auth middleware that sets `req.auth` hands that value to tool handlers as
 * `ctx.authInfo`.
 *
 * Run it with `node build/examples/express.js`; the endpoint is http://127.0.0.1:3000/mcp.
 */
import { fileURLToPath } from 'node:url';
import express, { type Express } from 'express';
import { createStreamableHttpHandler, type StreamableHttpHandler } from '../src/http/index.js';
import { toNodeListener } from '../src/http/node.js';
import { McpServer } from '../src/server/index.js';

/**
 * Builds the Express app and the MCP handler it serves. The caller makes the app listen and,
 * at shutdown, awaits `handler.close()` (which ends every MCP session) before closing the
 * HTTP server. Does not throw.
 */
export function createExpressApp(): { app: Express; handler: StreamableHttpHandler } {
  const server = new McpServer({ name: 'express-example', version: '1.0.0' });
  server.registerTool(
    'echo',
    {
      description: 'Returns the message',
      inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
    },
    (args: { message: string }) => args.message,
  ); // a string result is one text item

  const handler = createStreamableHttpHandler({
    server,
    // DNS-rebinding protection: requests whose Host is not listed get 403. The default
    // allows only localhost names; list the names this server is reached under.
    allowedHosts: ['localhost', '127.0.0.1'],
    legacySse: true, // also serve GET /sse + POST /messages for 2024-11-05 clients
  });

  const app = express();
  const mcp = toNodeListener(handler);
  app.all('/mcp', mcp);
  app.get('/sse', mcp);
  app.post('/messages', mcp);
  app.get('/health', (_req, res) => {
    res.send('ok'); // the rest of the app is ordinary Express
  });
  return { app, handler };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { app, handler } = createExpressApp();
  const listener = app.listen(3000, '127.0.0.1', () => console.error('MCP server at http://127.0.0.1:3000/mcp'));
  process.once('SIGINT', () => {
    void handler.close().then(() => listener.close());
  });
}
