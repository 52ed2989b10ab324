/**
 * `mcpkit proxy [options] -- CMD ARGS...`: serves one stdio MCP server over Streamable HTTP
 * (both eras; legacy HTTP+SSE with `--legacy-sse`) through an `McpProxy` (mcpkit/compose).
 * Localhost by default, with the HTTP handler's Host and Origin checks; a non-loopback
 * `--host` needs caller authentication (`--auth-token-env` or the `--auth-issuer` trio).
 * The upstream's stderr goes to ours (or `--stderr FILE`); when the upstream exits, callers
 * get a clear error and it is started again with backoff (unless `--no-restart`), its lists
 * announced as changed once it is back. stdout carries one line, `LISTENING <url>`;
 * everything else goes to stderr. SIGINT/SIGTERM close the listener, then the upstream.
 */

import { createWriteStream, type WriteStream } from 'node:fs';
import { McpProxy } from '../../compose/proxy.js';
import { serveNode } from '../../http/node-server.js';
import { createStreamableHttpHandler } from '../../http/server/handler.js';
import { StdioClientTransport } from '../../stdio/index.js';
import { FRONT_VALUED, type FrontArgs, frontAuthorizer, frontHttpOptions, parseFront, shutdownSignal } from './http-front.js';

/** `mcpkit proxy --help`. */
export const PROXY_HELP = `Usage: mcpkit proxy [options] -- COMMAND [ARGS...]

Serves one stdio MCP server over Streamable HTTP (both protocol eras: 2025 sessions and
2026-07-28 stateless requests) at http://HOST:PORT/mcp. Everything the server does passes
through: tools, resources, prompts, completions, logging, progress, cancellation, and its
sampling, elicitation and roots requests, which the calling client answers. Prints
"LISTENING <url>" on stdout once it serves.

Options:
  --port N              port to listen on (default 3000; 0 picks a free one)
  --host H              address to bind (default 127.0.0.1); any other than a loopback
                        address needs --auth-token-env or --auth-issuer
  --allowed-host NAME   also accept this Host header (repeatable; default: loopback names)
  --legacy-sse          also serve the legacy HTTP+SSE endpoints (/sse, /messages)
  --auth-token-env VAR  callers must send "Authorization: Bearer <value of $VAR>"
  --auth-issuer URL     callers must send a JWT access token of this issuer, checked
  --auth-jwks-uri URL     against these keys, whose audience is
  --auth-resource URL     this proxy's public URL (default: the URL it listens on)
  --stderr FILE         append the server's stderr to FILE (default: to ours)
  --no-restart          when the server exits, stay down (default: start it again,
                        waiting 250 ms, doubling up to 30 s)

The server never sees the callers' Authorization header: give it its own credentials
through its environment.

Examples:
  mcpkit proxy --port 8080 -- npx -y @modelcontextprotocol/server-everything
  MCP_PROXY_TOKEN=s3cret mcpkit proxy --host 0.0.0.0 --allowed-host mcp.example.com \\
      --auth-token-env MCP_PROXY_TOKEN -- node my-server.js
`;

/** The parsed command line. */
interface ProxyArgs extends FrontArgs {
  restart: boolean;
  command: string;
  args: string[];
}

const VALUED = new Set(FRONT_VALUED);

/** Parses the arguments after `proxy`; a string is the usage error. */
export function parseProxyArgs(argv: readonly string[]): ProxyArgs | string {
  const dash = argv.indexOf('--');
  if (dash < 0 || dash === argv.length - 1) return 'give the server to proxy after --, e.g. mcpkit proxy -- npx -y @modelcontextprotocol/server-everything';
  const own = argv.slice(0, dash);
  const values = new Map<string, string[]>();
  const flags = new Set<string>();
  for (let i = 0; i < own.length; i++) {
    const arg = own[i]!;
    if (VALUED.has(arg)) {
      const value = own[++i];
      if (value === undefined || value.startsWith('--')) return `${arg} needs a value`;
      values.set(arg, [...(values.get(arg) ?? []), value]);
    } else if (arg === '--legacy-sse' || arg === '--no-restart') flags.add(arg);
    else return `unknown option ${JSON.stringify(arg)} (mcpkit proxy --help lists the options)`;
  }
  const front = parseFront(values, flags, 'the server');
  if (typeof front === 'string') return front;
  return {
    ...front,
    restart: !flags.has('--no-restart'),
    command: argv[dash + 1]!,
    args: argv.slice(dash + 2),
  };
}

/** Runs `mcpkit proxy`; resolves with the exit code. */
export async function run(argv: string[]): Promise<number> {
  if (argv.indexOf('--') < 0 && (argv.includes('--help') || argv.includes('-h'))) {
    process.stdout.write(PROXY_HELP);
    return 0;
  }
  const parsed = parseProxyArgs(argv);
  if (typeof parsed === 'string') {
    process.stderr.write(`mcpkit proxy: ${parsed}\n`);
    return 2;
  }
  const say = (line: string): void => void process.stderr.write(`mcpkit proxy: ${line}\n`);
  const authorize = await frontAuthorizer(parsed);
  if (typeof authorize === 'string') {
    say(authorize);
    return 2;
  }
  let log: WriteStream | undefined;
  if (parsed.stderrFile !== undefined) log = createWriteStream(parsed.stderrFile, { flags: 'a' });
  let proxy: McpProxy;
  try {
    proxy = await McpProxy.open({
      upstream: () => {
        const transport = new StdioClientTransport({ command: parsed.command, args: parsed.args, stderr: log === undefined ? 'inherit' : 'pipe' });
        const started = transport.start.bind(transport);
        transport.start = async (receiver) => {
          await started(receiver);
          if (log !== undefined) transport.stderr?.pipe(log, { end: false });
          say(`upstream started (pid ${transport.pid})`);
        };
        return transport;
      },
      ...(parsed.restart ? {} : { restart: false as const }),
      onError: (error) => say(error.message.replace(/^mcpkit proxy: /, '')),
      onStatus: (status, reason) =>
        say(
          status === 'up'
            ? 'upstream is back; its lists were announced as changed'
            : `upstream is down (${reason?.message ?? 'closed'})${parsed.restart ? '; starting it again' : ''}`,
        ),
    });
  } catch (error) {
    say(`cannot start the server ${JSON.stringify(parsed.command)}: ${(error as Error).message}`);
    log?.end();
    return 1;
  }
  const handler = createStreamableHttpHandler({
    server: proxy.server,
    onError: (error) => say(error.message),
    ...frontHttpOptions(parsed, authorize),
  });
  let http;
  try {
    http = await serveNode(handler, { port: parsed.port, host: parsed.host });
  } catch (error) {
    say(`cannot listen on ${parsed.host}:${parsed.port}: ${(error as Error).message}`);
    await proxy.close();
    return 1;
  }
  process.stdout.write(`LISTENING ${http.url}\n`);
  await shutdownSignal(() => say('a second signal: exiting at once'));
  say('shutting down');
  await http.close();
  await proxy.close();
  log?.end();
  return 0;
}
