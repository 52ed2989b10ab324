/**
 * mcpkit's `McpProxy` (mcpkit/compose) in front of one Streamable HTTP upstream, served over
 * Streamable HTTP on 127.0.0.1, for the gateway section of the benchmark (`bench/gateway.ts`;
 * a stdio upstream is `mcpkit proxy -- CMD`, the CLI). Usage: node gateway-mcpkit-proxy.js <url>.
 * The upstream is reached with `nodeHttpRequester()` (mcpkit/node/client), as a Node deployment
 * should. Prints `LISTENING <url>` once it serves; exits when its stdin ends.
 */
import { McpProxy } from '../../src/compose/proxy.js';
import { StreamableHttpClientTransport } from '../../src/http/index.js';
import { nodeHttpRequester } from '../../src/http/node-client/index.js';
import { serveNode } from '../../src/http/node-server.js';
import { createStreamableHttpHandler } from '../../src/http/server/handler.js';

async function main(argv: string[]): Promise<void> {
  const url = argv[0];
  if (url === undefined || !/^https?:\/\//.test(url)) throw new Error('usage: gateway-mcpkit-proxy.js <upstream url>');
  // Node's own HTTP client for the upstream (keep-alive sockets; fetch costs several times more per call)
  const requester = nodeHttpRequester();
  const say = (error: Error) => void process.stderr.write(`gateway-mcpkit-proxy: ${error.message}\n`);
  const proxy = await McpProxy.open({ upstream: () => new StreamableHttpClientTransport({ url, requester }), onError: say });
  const http = await serveNode(createStreamableHttpHandler({ server: proxy.server, onError: say }), { port: 0, host: '127.0.0.1' });
  process.stdout.write(`LISTENING ${http.url}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => {
    void Promise.all([http.close(), proxy.close()]).finally(() => process.exit(0));
  });
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`gateway-mcpkit-proxy: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
