/**
 * Cold-start comparison server: the minimal mcpkit application of `mcpkit-minimal-stdio.ts`
 * (one `echo` tool) behind `createStreamableHttpHandler()` and `serveNode()`, with the
 * handler's defaults except `responseMode` (`--mode=json|sse`). Start-up and exit follow
 * `http-harness.ts`.
 */
import { McpServer } from '../../src/server/index.js';
import { createStreamableHttpHandler } from '../../src/http/index.js';
import { serveNode } from '../../src/http/node.js';
import { announce, BENCH_HOST, BENCH_PATH, parseServerArgs } from './http-harness.js';
import { MINIMAL_ECHO_TOOL, echoText } from './minimal-echo.js';

const { mode, port } = parseServerArgs(process.argv.slice(2));
const server = new McpServer({ name: 'mcpkit-minimal', version: '1.0.0' });
server.registerTool('echo', MINIMAL_ECHO_TOOL, echoText);
const handler = createStreamableHttpHandler({ server, endpoint: BENCH_PATH, responseMode: mode });
const running = await serveNode(handler, { port, host: BENCH_HOST });
announce(running.port, () => running.close());
