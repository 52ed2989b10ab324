// Reference example (not compiled with the project): mcpkit's Streamable HTTP server in a
// Hono app. The handler is web-standard (`Request` in, `Response` out), so the same app runs
// on Bun, Deno, Cloudflare Workers, or Node through `@hono/node-server`. Needs `hono`
// installed by the application; mcpkit itself does not depend on it.
import { Hono } from 'hono';
import { McpServer } from 'mcpkit/server';
import { createStreamableHttpHandler } from 'mcpkit/http';

const server = new McpServer({ name: 'hono-example', version: '1.0.0' });
server.registerTool('add', {
  description: 'Adds two numbers',
  inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
}, (args: { a: number; b: number }) => ({ content: [{ type: 'text', text: String(args.a + args.b) }] }));

const handler = createStreamableHttpHandler({
  server,
  // On a worker platform sessions live in one isolate's memory; prefer stateless mode there.
  stateless: false,
});

const app = new Hono();
// Pass what an auth middleware verified as the second argument: tools see it as ctx.authInfo.
app.all('/mcp', (c) => handler.fetch(c.req.raw, { authInfo: c.get('auth' as never) }));

export default app;
