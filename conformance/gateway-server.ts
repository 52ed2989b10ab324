/**
 * The demo behind a gateway, for the through-gateway server runs of scripts/conformance.mjs
 * (`--via gateway`): `createGateway` (mcpkit/compose) with one upstream, `mcpkit demo` on
 * stdio, served over Streamable HTTP on 127.0.0.1 (ephemeral port). Prints
 * `LISTENING <url>` once the upstream is up; SIGTERM/SIGINT close it.
 *
 * Design note: the upstream is mounted under the empty prefix (merged), so its tools,
 * prompts and resource URIs keep the names the suite calls (`mcpkit gateway --config`
 * prefixes every server with its name, which the suite's fixed names cannot follow); every
 * other part of the gateway (its server, the mount, the McpProxy per upstream, failure
 * isolation, the HTTP handler with the health endpoints) is the one the command serves.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createGateway } from '../src/compose/gateway.js';
import { serveNode } from '../src/http/node-server.js';
import { StdioClientTransport } from '../src/stdio/index.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

async function main(): Promise<void> {
  const gateway = createGateway({
    upstreams: {
      '': { transport: () => new StdioClientTransport({ command: process.execPath, args: [join(ROOT, 'bin', 'mcpkit.js'), 'demo'], stderr: 'inherit' }) },
    },
  });
  await gateway.whenReady(30_000);
  const http = await serveNode(gateway.handler, { port: 0, host: '127.0.0.1' });
  process.stdout.write(`LISTENING ${http.url}\n`);
  const stop = () => {
    void Promise.all([http.close(), gateway.close()]).finally(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`gateway-server: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
