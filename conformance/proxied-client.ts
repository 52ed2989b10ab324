/**
 * The conformance client behind a proxy: the program scripts/conformance.mjs gives the
 * official suite as its client command for the through-proxy client runs. The suite's
 * scenario server is the proxy's upstream; the conformance client (client.js, unchanged)
 * talks to the proxy. So each scenario checks what the suite's server saw of the proxy's
 * upstream client and that the caller's answers (elicitation, sampling, roots) made it
 * through.
 *
 * Contract with the suite: as client.js (the server URL is the last argument,
 * `MCP_CONFORMANCE_SCENARIO`, `MCP_CONFORMANCE_PROTOCOL_VERSION`); the exit status is
 * client.js's. The proxy's upstream client speaks the scenario's wire (pinned to it when the
 * suite names one); the gateway's, every revision (createGateway has no pin). `--via proxy` (the default) is an `McpProxy` (mcpkit/compose) served over
 * Streamable HTTP on 127.0.0.1; `--via gateway` a `createGateway` with that one upstream,
 * merged (empty prefix: the suite's servers check the names they serve).
 *
 * Design note: the proxy runs in this process and the conformance client in a child, so the
 * client is exactly the one the direct runs use and each side's logs stay apart (the child's
 * stderr is passed on, the proxy's errors go to stderr prefixed `proxy:`).
 */
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createGateway } from '../src/compose/gateway.js';
import { McpProxy } from '../src/compose/proxy.js';
import { StreamableHttpClientTransport } from '../src/http/index.js';
import { serveNode } from '../src/http/node-server.js';
import { createStreamableHttpHandler } from '../src/http/server/handler.js';

/** Bound on the whole run (below the suite's per-scenario timeout). */
const WATCHDOG_MS = 50_000;

const HERE = dirname(fileURLToPath(import.meta.url));

/** Runs client.js against `url` with our environment; resolves with its exit code. */
function runClient(url: string): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(HERE, 'client.js'), url], { stdio: ['ignore', 'inherit', 'inherit'] });
    child.once('error', (err) => {
      process.stderr.write(`proxied client: cannot start client.js: ${err.message}\n`);
      resolve(1);
    });
    child.once('exit', (code) => resolve(code ?? 1));
  });
}

async function main(argv: string[]): Promise<number> {
  const url = argv.at(-1);
  if (!url || !/^https?:\/\//.test(url) || !process.env.MCP_CONFORMANCE_SCENARIO) {
    process.stderr.write('usage: MCP_CONFORMANCE_SCENARIO=<name> node build/conformance/proxied-client.js <server-url>\n');
    return 2;
  }
  const via = argv[0] === '--via' ? argv[1] : 'proxy';
  if (via !== 'proxy' && via !== 'gateway') {
    process.stderr.write(`proxied client: --via takes proxy or gateway, got ${JSON.stringify(via)}\n`);
    return 2;
  }
  const wire = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION;
  const say = (error: Error) => void process.stderr.write(`${via}: ${error.message}\n`);
  if (via === 'gateway') {
    const gateway = createGateway({
      upstreams: { '': { transport: () => new StreamableHttpClientTransport({ url }) } },
      requestTimeoutMs: 20_000,
      healthCheck: false,
    });
    await gateway.whenReady(20_000);
    const http = await serveNode(gateway.handler, { port: 0, host: '127.0.0.1' });
    try {
      return await runClient(http.url);
    } finally {
      await http.close();
      await gateway.close();
    }
  }
  const proxy = await McpProxy.open({
    upstream: () => new StreamableHttpClientTransport({ url }),
    ...(wire === undefined || wire === '' ? {} : { protocolVersions: [wire] }),
    restart: false,
    requestTimeoutMs: 20_000,
    onError: say,
  });
  const http = await serveNode(createStreamableHttpHandler({ server: proxy.server, onError: say }), { port: 0, host: '127.0.0.1' });
  try {
    return await runClient(http.url);
  } finally {
    await http.close();
    await proxy.close();
  }
}

const watchdog = setTimeout(() => {
  process.stderr.write(`proxied client: gave up after ${WATCHDOG_MS} ms\n`);
  process.exit(1);
}, WATCHDOG_MS);
watchdog.unref();

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`proxied client: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
