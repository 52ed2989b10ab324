/**
 * Example: mcpkit's Streamable HTTP server in a Hono app. The handler is web-standard
 * (`Request` in, `Response` out), so the same app runs on Bun, Deno and Cloudflare Workers
 * (make `createHonoApp().app` the module's default export there) or on Node through
 * `@hono/node-server`, as below. Hono is the application's dependency; mcpkit does not
 * depend on it.
 *
 * This file is compiled and tested inside the mcpkit repository, so it imports the sources
 * by relative path. In an application the imports read:
 *
 *   import { McpServer } from 'mcpkit/server';
 *   import { createStreamableHttpHandler } from 'mcpkit/http';
 *
 * Run it on Node with `node build/examples/hono.js`; the endpoint is http://127.0.0.1:3000/mcp.
 */
import { fileURLToPath } from 'node:url';
import { Hono } from 'hono';
import { createStreamableHttpHandler, type StreamableHttpHandler } from '../src/http/index.js';
import { McpServer } from '../src/server/index.js';

/** Context variables of the app: what an auth middleware verified, if one runs. */
export type HonoEnv = { Variables: { auth?: unknown } };

/**
 * Builds the Hono app and the MCP handler it serves. The caller serves `app.fetch` and, at
 * shutdown, awaits `handler.close()` (which ends every MCP session). Does not throw.
 */
export function createHonoApp(): { app: Hono<HonoEnv>; handler: StreamableHttpHandler } {
  const server = new McpServer({ name: 'hono-example', version: '1.0.0' });
  server.registerTool(
    'add',
    {
      description: 'Adds two numbers',
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    },
    (args: { a: number; b: number }) => String(args.a + args.b),
  );

  // Sessions live in this process's memory. Where requests may reach different instances
  // (worker isolates, several replicas), pass `sessionless: true` instead.
  const handler = createStreamableHttpHandler({ server });

  const app = new Hono<HonoEnv>();
  app.get('/health', (c) => c.text('ok'));
  // An auth middleware in front may `c.set('auth', …)`: tools see that value as `ctx.authInfo`.
  app.all('/mcp', (c) => handler.fetch(c.req.raw, { authInfo: c.get('auth') }));
  return { app, handler };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // Node has no built-in server for `fetch` handlers; Hono's Node adapter provides one.
  const { serve } = await import('@hono/node-server');
  const { app, handler } = createHonoApp();
  const listener = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 3000 }, () => console.error('MCP server at http://127.0.0.1:3000/mcp'));
  process.once('SIGINT', () => {
    void handler.close().then(() => listener.close());
  });
}
