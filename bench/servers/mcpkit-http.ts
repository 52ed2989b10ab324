/**
 * Benchmark server for mcpkit over Streamable HTTP: the demo server
 * (`createDemoServer()`, the same one `mcpkit demo` serves, with its `echo` tool and its
 * middleware) behind `createStreamableHttpHandler()` and the Node adapter
 * `serveNode()`, with the handler's defaults (stateful sessions, in-memory event store)
 * except `responseMode`, which `--mode=json|sse` sets. The `mcpkit demo --http` command
 * serves SSE mode only and exits on signals rather than on the end of stdin, hence this
 * wrapper.
 *
 * Run as a child process by the benchmark
 * (`node build/bench/servers/mcpkit-http.js --mode=json|sse`); start-up and exit follow
 * `http-harness.ts`.
 */
import { createDemoServer } from '../../src/demo/server.js';
import { createStreamableHttpHandler } from '../../src/http/index.js';
import { serveNode } from '../../src/http/node.js';
import { announce, BENCH_HOST, BENCH_PATH, parseServerArgs } from './http-harness.js';

const { mode, port } = parseServerArgs(process.argv.slice(2));
const onError = (error: Error): void => {
  process.stderr.write(`mcpkit-http: ${error.message}\n`);
};
const handler = createStreamableHttpHandler({
  server: createDemoServer({ onError }),
  endpoint: BENCH_PATH,
  responseMode: mode,
  onError,
});
const running = await serveNode(handler, { port, host: BENCH_HOST });
announce(running.port, () => running.close());
