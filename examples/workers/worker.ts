/**
 * Example: an MCP server as a Cloudflare Worker. A Worker keeps no memory a later request can
 * count on (each request may reach another isolate), so the handler serves the 2026-07-28
 * era (stateless by design) and the 2025 era `sessionless`, with JSON replies: no
 * `Mcp-Session-Id`, no GET stream, nothing to resume. mcpkit's handler is web-standard, so
 * the Worker's `fetch` hands it the `Request` as it is: no adapter, no `nodejs_compat`.
 *
 * Tasks (the 2026-07-28 `io.modelcontextprotocol/tasks` extension): `slow_add` becomes a
 * task when it takes longer than the handler's `immediateResultMs`. Its task lives in a
 * Durable Object (`TaskStoreDurableObject`, bound as `TASKS` in wrangler.toml), so a
 * `tasks/get` reaching any isolate finds it; the work runs on in the isolate that started it
 * because the store's `idle()` is handed to `ctx.waitUntil`.
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
 *   import { DurableObjectTaskStore, TaskServer, type DurableObjectStubLike } from 'mcpkit/tasks';
 *   export { TaskStoreDurableObject } from 'mcpkit/tasks';
 */

import { createStreamableHttpHandler, type StreamableHttpHandler } from '../../src/http/server/index.js';
import { McpServer } from '../../src/server/index.js';
import { type DurableObjectStubLike, DurableObjectTaskStore, TaskServer } from '../../src/tasks/index.js';
import { interpretingJsonSchemaValidator } from './json-schema-validator.js';

/** The Durable Object class holding the tasks: wrangler.toml binds it as `TASKS`. */
export { TaskStoreDurableObject } from '../../src/tasks/index.js';

/** What the example uses of a Durable Object namespace binding (`DurableObjectNamespace` in @cloudflare/workers-types). */
export interface TaskNamespace {
  idFromName(name: string): unknown;
  get(id: never): DurableObjectStubLike;
}

/** What the example uses of the `ExecutionContext` of a Worker's `fetch`. */
export interface WaitUntil {
  waitUntil(promise: Promise<unknown>): void;
}

/** The Worker's bindings (wrangler.toml `[vars]`). */
export interface Env {
  /** Comma-separated host names the Worker is reached by, e.g. `my-mcp.example.workers.dev`. */
  MCP_ALLOWED_HOSTS?: string;
  /** The Durable Object namespace of `TaskStoreDurableObject` (wrangler.toml `[[durable_objects.bindings]]`). */
  TASKS: TaskNamespace;
}

/** The handler and the task store it writes to. */
export interface WorkerHandler {
  readonly handler: StreamableHttpHandler;
  readonly tasks: DurableObjectTaskStore;
}

/** Builds the MCP server, its tasks and its handler; `allowedHosts` from the binding (loopback names when unset). */
export function createWorkerHandler(env: Env): WorkerHandler {
  const server = new McpServer({ name: 'workers-example', version: '1.0.0' }, { jsonSchemaValidator: interpretingJsonSchemaValidator });
  server.registerTool(
    'add',
    {
      description: 'Adds two numbers',
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    },
    (args: { a: number; b: number }) => ({ content: [{ type: 'text', text: String(args.a + args.b) }] }),
  );
  server.registerTool(
    'slow_add',
    {
      description: 'Adds two numbers after waiting ms milliseconds (a task when it takes long)',
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' }, ms: { type: 'number' } }, required: ['a', 'b', 'ms'] },
      execution: { taskSupport: 'optional' },
    },
    async (args: { a: number; b: number; ms: number }, ctx) => {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, Math.min(args.ms, 20_000));
        ctx.signal.addEventListener('abort', () => (clearTimeout(timer), reject(ctx.signal.reason)), { once: true });
      });
      return { content: [{ type: 'text', text: String(args.a + args.b) }] };
    },
  );
  // A stub per store call: a stub belongs to the request that made it, the store to all of them.
  const id = env.TASKS.idFromName('tasks');
  const tasks = new DurableObjectTaskStore(() => env.TASKS.get(id as never));
  // No sweep timer (a Worker runs code only while it serves a request): expired tasks are
  // invisible on every read, and deleted when the object's storage is swept (tasks.sweep).
  new TaskServer(server, { store: tasks, sweepIntervalMs: 0 });
  const hosts = env.MCP_ALLOWED_HOSTS?.split(',')
    .map((host) => host.trim())
    .filter((host) => host !== '');
  const handler = createStreamableHttpHandler({
    server,
    sessionless: true,
    responseMode: 'json',
    ...(hosts !== undefined && hosts.length > 0 ? { allowedHosts: hosts } : {}),
  });
  return { handler, tasks };
}

let worker: WorkerHandler | undefined;

export default {
  async fetch(request: Request, env: Env, ctx: WaitUntil): Promise<Response> {
    worker ??= createWorkerHandler(env);
    const response = await worker.handler.fetch(request);
    // a task started by this request runs on after its CreateTaskResult is sent
    ctx.waitUntil(worker.tasks.idle());
    return response;
  },
};
