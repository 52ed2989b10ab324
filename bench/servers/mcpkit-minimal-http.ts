/**
 * Cold-start comparison server: the minimal mcpkit application of `mcpkit-minimal-stdio.ts`
 * (one `echo` tool) behind `createStreamableHttpHandler()` and `serveNode()`, with the
 * handler's defaults except `responseMode` (`--mode=json|sse`). Start-up and exit follow
 * `http-harness.ts`. Like the stdio one, it imports mcpkit from the package: from the
 * server-only entry points (`mcpkit/server`, `mcpkit/http/server`, `mcpkit/node/server`: the
 * bundled dist/), what a server that cares about start-up imports, so no HTTP client code is
 * loaded.
 */

import { createStreamableHttpHandler } from 'mcpkit/http/server';
import { serveNode } from 'mcpkit/node/server';
import { McpServer } from 'mcpkit/server';
import { announce, BENCH_HOST, BENCH_PATH, parseServerArgs } from './http-harness.js';
import { echoText, MINIMAL_ECHO_TOOL } from './minimal-echo.js';

const { mode, port } = parseServerArgs(process.argv.slice(2));
const server = new McpServer({ name: 'mcpkit-minimal', version: '1.0.0' });
server.registerTool('echo', MINIMAL_ECHO_TOOL, echoText);
const handler = createStreamableHttpHandler({ server, endpoint: BENCH_PATH, responseMode: mode });
const running = await serveNode(handler, { port, host: BENCH_HOST });
announce(running.port, () => running.close());
