/**
 * The floor of a second HTTP hop, for the gateway section of the benchmark (`bench/gateway.ts`):
 * a minimal `node:http` reverse proxy with no MCP logic. Every request (any method, any path)
 * is sent to the one upstream URL given, over a keep-alive agent, with the caller's headers
 * (hop-by-hop ones dropped, `Host` the upstream's) and its body bytes piped through; the
 * upstream's status, headers and body bytes are piped back as they come (event streams too).
 * Nothing is parsed, checked or rewritten: it is what any gateway pays for the hop itself.
 * Not a usable proxy (no limits, no timeouts, no auth).
 *
 * Usage: node gateway-bare-relay.js <upstream url>. Prints `LISTENING <url>` once it serves;
 * exits when its stdin ends.
 */
import { Agent, createServer, type IncomingHttpHeaders, request } from 'node:http';

/** Not forwarded: the fields that belong to one connection (RFC 9110 §7.6.1), and Host (the request to the upstream names its own). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host']);

function forwardable(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  }
  return out;
}

function main(argv: string[]): void {
  const raw = argv[0];
  if (raw === undefined || !/^http:\/\//.test(raw)) throw new Error('usage: gateway-bare-relay.js <upstream http url>');
  const upstream = new URL(raw);
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const server = createServer((req, res) => {
    const out = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: `${upstream.pathname}${upstream.search}`,
        method: req.method,
        headers: forwardable(req.headers),
        agent,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, forwardable(answer.headers));
        answer.pipe(res);
      },
    );
    out.on('error', (error) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`bare relay: upstream failed: ${error.message}`);
    });
    // a caller that goes away ends the upstream request (an abandoned event stream)
    res.on('close', () => {
      if (!res.writableFinished) out.destroy();
    });
    req.pipe(out);
  });
  server.keepAliveTimeout = 5000;
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as { port: number };
    process.stdout.write(`LISTENING http://127.0.0.1:${port}/mcp\n`);
  });
  process.stdin.resume();
  process.stdin.on('end', () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
    agent.destroy();
  });
}

try {
  main(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`gateway-bare-relay: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
