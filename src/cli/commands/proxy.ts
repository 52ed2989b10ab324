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

import { timingSafeEqual } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { McpProxy } from '../../compose/proxy.js';
import { serveNode } from '../../http/node-server.js';
import { createStreamableHttpHandler } from '../../http/server/handler.js';
import type { HttpAuthorizer, HttpReply, HttpRequest } from '../../http/server/types.js';
import { StdioClientTransport } from '../../stdio/index.js';
import { parsePort } from '../serve/serve.js';

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
interface ProxyArgs {
  port: number;
  host: string;
  allowedHosts: string[];
  legacySse: boolean;
  tokenEnv: string | undefined;
  issuer: string | undefined;
  jwksUri: string | undefined;
  resource: string | undefined;
  stderrFile: string | undefined;
  restart: boolean;
  command: string;
  args: string[];
}

const VALUED = new Set(['--port', '--host', '--allowed-host', '--auth-token-env', '--auth-issuer', '--auth-jwks-uri', '--auth-resource', '--stderr']);
/** Addresses that only this machine reaches: binding any other needs caller authentication. */
export const LOOPBACK: ReadonlySet<string> = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

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
  const one = (name: string): string | undefined => values.get(name)?.at(-1);
  const port = parsePort(one('--port'), 3000);
  if (port === undefined) return '--port needs a port number from 0 to 65535';
  const host = one('--host') ?? '127.0.0.1';
  const tokenEnv = one('--auth-token-env');
  const issuer = one('--auth-issuer');
  const jwksUri = one('--auth-jwks-uri');
  if ((issuer === undefined) !== (jwksUri === undefined)) return '--auth-issuer and --auth-jwks-uri go together';
  if (tokenEnv !== undefined && issuer !== undefined) return 'choose one of --auth-token-env and --auth-issuer';
  if (!LOOPBACK.has(host) && tokenEnv === undefined && issuer === undefined) {
    return `--host ${host} would let anyone on the network use the server: add --auth-token-env VAR or --auth-issuer URL --auth-jwks-uri URL`;
  }
  return {
    port,
    host,
    allowedHosts: values.get('--allowed-host') ?? [],
    legacySse: flags.has('--legacy-sse'),
    tokenEnv,
    issuer,
    jwksUri,
    resource: one('--auth-resource'),
    stderrFile: one('--stderr'),
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
  let token: string | undefined;
  if (parsed.tokenEnv !== undefined) {
    token = process.env[parsed.tokenEnv];
    if (token === undefined || token.length < 16) {
      say(`$${parsed.tokenEnv} must hold the callers' token (at least 16 characters)`);
      return 2;
    }
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
  const authorize = await authorizer(
    parsed,
    token,
    `http://${parsed.host.includes(':') && !parsed.host.startsWith('[') ? `[${parsed.host}]` : parsed.host}:${parsed.port}/mcp`,
  );
  const handler = createStreamableHttpHandler({
    server: proxy.server,
    legacySse: parsed.legacySse,
    onError: (error) => say(error.message),
    ...(parsed.allowedHosts.length === 0 ? {} : { allowedHosts: ['localhost', '127.0.0.1', '[::1]', ...parsed.allowedHosts] }),
    ...(authorize === undefined ? {} : { authorize }),
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

/**
 * Resolves on the first SIGINT or SIGTERM; a second one exits at once. The listeners stay
 * installed until the process exits: the stdio transport re-raises a signal when its own
 * listener is the only one left (see stdio/client-transport.ts), which a `once` listener
 * already consumed would make it do, killing the proxy mid-shutdown.
 */
export function shutdownSignal(onSecond: () => void): Promise<void> {
  return new Promise((resolve) => {
    let seen = false;
    const handle = (signal: NodeJS.Signals): void => {
      if (!seen) {
        seen = true;
        resolve();
        return;
      }
      onSecond();
      process.exit(signal === 'SIGINT' ? 130 : 143);
    };
    process.on('SIGINT', handle);
    process.on('SIGTERM', handle);
  });
}

/** The callers' authentication from the options, if any (shared with `mcpkit gateway`). */
export async function authorizer(
  parsed: Pick<ProxyArgs, 'issuer' | 'jwksUri' | 'resource'>,
  token: string | undefined,
  listening: string,
): Promise<HttpAuthorizer | undefined> {
  if (token !== undefined) return staticToken(token);
  if (parsed.issuer === undefined || parsed.jwksUri === undefined) return undefined;
  const { createJwtVerifier, requireBearerAuth } = await import('../../auth/index.js');
  const resource = parsed.resource ?? listening;
  return requireBearerAuth({
    verifier: createJwtVerifier({ issuer: parsed.issuer, audience: resource, jwksUri: parsed.jwksUri }),
    resourceMetadata: { resource, authorization_servers: [parsed.issuer] },
  });
}

/** Callers must present `token` as a bearer token (compared in constant time); one principal. */
export function staticToken(token: string): HttpAuthorizer {
  const expected = Buffer.from(token, 'utf8');
  const refuse = (error: string, description: string): HttpReply => ({
    status: 401,
    headers: { 'content-type': 'application/json', 'www-authenticate': `Bearer error="${error}", error_description="${description}"` },
    body: JSON.stringify({ error, error_description: description }),
  });
  return {
    async authenticate(req: HttpRequest) {
      const header = req.headers('authorization');
      const match = header === null ? null : /^Bearer ([^\s]+)$/i.exec(header.trim());
      if (match === null) return { reply: refuse('invalid_request', 'Send Authorization: Bearer <token>') };
      const given = Buffer.from(match[1]!, 'utf8');
      if (given.length !== expected.length || !timingSafeEqual(given, expected))
        return { reply: refuse('invalid_token', 'The token is not the one this proxy accepts') };
      return { authInfo: { subject: 'proxy-caller', clientId: 'proxy-caller', scopes: [] } };
    },
    sessionOwner: () => 'proxy-caller',
  };
}
