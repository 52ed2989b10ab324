/**
 * Benchmark server for mcpkit over Streamable HTTP: the benchmark's `echo` tool (the minimal
 * servers', `minimal-echo.ts`) on a server with the demo's per-call machinery, its rate-limit
 * middleware and its task server (as `createDemoServer()` sets them up, src/demo/server.ts),
 * so a call goes through the middleware chain and the task-aware dispatch as in `mcpkit
 * demo`; behind `createStreamableHttpHandler()` and the Node adapter `serveNode()`, with the
 * handler's defaults (stateful sessions, in-memory event store) except `responseMode`, which
 * `--mode=json|sse` sets.
 *
 * It imports mcpkit from the package (`mcpkit/server`, `mcpkit/tasks`, `mcpkit/http/server`,
 * `mcpkit/node/server`: the bundled dist/), the code users run. The demo server itself is not
 * part of the package's API, and the bundle is what must be measured: built with esbuild's
 * `keepNames`, it once cost a tool call over HTTP 17 % more instructions (166k against 141k)
 * than the compiler's output of the same sources (scripts/build.mjs).
 *
 * Run as a child process by the benchmark
 * (`node build/bench/servers/mcpkit-http.js --mode=json|sse`); start-up and exit follow
 * `http-harness.ts`.
 */

import { createStreamableHttpHandler } from 'mcpkit/http/server';
import { serveNode } from 'mcpkit/node/server';
import { McpServer, rateLimit } from 'mcpkit/server';
import { TaskServer } from 'mcpkit/tasks';
import { announce, BENCH_HOST, BENCH_PATH, parseServerArgs } from './http-harness.js';
import { echoText, MINIMAL_ECHO_TOOL } from './minimal-echo.js';

const { mode, port } = parseServerArgs(process.argv.slice(2));
const onError = (error: Error): void => {
  process.stderr.write(`mcpkit-http: ${error.message}\n`);
};
const server = new McpServer({ name: 'mcpkit-bench', version: '1.0.0' }, { onError });
// the demo's middleware and task server, with the demo's settings
server.use(rateLimit({ limit: 1_000_000, windowMs: 60_000 }));
new TaskServer(server, { pollIntervalMs: 500, onError });
server.registerTool('echo', MINIMAL_ECHO_TOOL, echoText);
const handler = createStreamableHttpHandler({ server, endpoint: BENCH_PATH, responseMode: mode, onError });
const running = await serveNode(handler, { port, host: BENCH_HOST });
announce(running.port, () => running.close());
