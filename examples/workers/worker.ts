/**
 * Example: an MCP server as a Cloudflare Worker. A Worker keeps no memory a later request can
 * count on (each request may reach another isolate), so the handler serves the 2026-07-28
 * era (stateless by design) and the 2025 era `sessionless`, with JSON replies: no
 * `Mcp-Session-Id`, no GET stream, nothing to resume. mcpkit's handler is web-standard, so
 * the Worker's `fetch` hands it the `Request` as it is: no adapter, no `nodejs_compat`.
 *
 * Two Workers specifics:
 * - The handler is built on the first request, not at module scope: a Worker may not
 *   generate random values (the requestState secret of the 2026-07-28 era) at global scope.
 * - Tool arguments are checked with an interpreting JSON Schema validator
 *   (json-schema-validator.ts): Workers forbid the code generation of mcpkit's default (Ajv).
 *
 * `MCP_ALLOWED_HOSTS` (a comma-separated list, see wrangler.toml) names the host names the
 * Worker answers to: the handler refuses any other `Host` with 403 (DNS rebinding defence),
 * and its default allows loopback names only.
 *
 * This file is compiled and tested inside the mcpkit repository (test/runtimes/workers.test.ts
 * runs it on workerd), so it imports the sources by relative path. In an application the
 * imports read:
 *
 *   import { McpServer } from 'mcpkit/server';
 *   import { createStreamableHttpHandler, type StreamableHttpHandler } from 'mcpkit/http/server';
 */
import { McpServer } from '../../src/server/index.js';
import { createStreamableHttpHandler, type StreamableHttpHandler } from '../../src/http/server/index.js';
import { interpretingJsonSchemaValidator } from './json-schema-validator.js';

/** The Worker's bindings (wrangler.toml `[vars]`). */
export interface Env {
  /** Comma-separated host names the Worker is reached by, e.g. `my-mcp.example.workers.dev`. */
  MCP_ALLOWED_HOSTS?: string;
}

/** Builds the MCP server and its handler; `allowedHosts` from the binding (loopback names when unset). */
export function createWorkerHandler(env: Env): StreamableHttpHandler {
  const server = new McpServer({ name: 'workers-example', version: '1.0.0' }, { jsonSchemaValidator: interpretingJsonSchemaValidator });
  server.registerTool(
    'add',
    {
      description: 'Adds two numbers',
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    },
    (args: { a: number; b: number }) => ({ content: [{ type: 'text', text: String(args.a + args.b) }] }),
  );
  const hosts = env.MCP_ALLOWED_HOSTS?.split(',').map((host) => host.trim()).filter((host) => host !== '');
  return createStreamableHttpHandler({
    server,
    sessionless: true,
    responseMode: 'json',
    ...(hosts !== undefined && hosts.length > 0 ? { allowedHosts: hosts } : {}),
  });
}

let handler: StreamableHttpHandler | undefined;

export default {
  fetch(request: Request, env: Env): Promise<Response> {
    handler ??= createWorkerHandler(env);
    return handler.fetch(request);
  },
};
