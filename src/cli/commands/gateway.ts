/**
 * `mcpkit gateway --config FILE [options]`: one Streamable HTTP endpoint (both eras; legacy
 * HTTP+SSE with `--legacy-sse`) over every server of an `mcpServers` file, each mounted under
 * its name (`createGateway` of mcpkit/compose; the file's `gateway` object: gateway-config.ts).
 * Localhost by default, with the HTTP handler's Host and Origin checks; a non-loopback
 * `--host` needs caller authentication (the same options and rule as `mcpkit proxy`).
 * `GET /healthz` and `GET /readyz` answer probes. With `--redis URL`, 2025-era sessions, their
 * SSE event logs and the 2026-07-28 requestState secret are shared through Redis, so several
 * gateways behind one balancer serve the same sessions (each keeps its own upstreams).
 * stdout carries one line, `LISTENING <url>`; everything else goes to stderr. SIGINT/SIGTERM
 * close the listener, then the upstreams.
 */

import { createWriteStream, type WriteStream } from 'node:fs';
import { transportFactory } from '../../client/node/index.js';
import { readConfigText } from '../../client/node/read-config.js';
import { SERVERS_CONFIG_DEFAULTS } from '../../client/servers-config.js';
import { createGateway, type Gateway } from '../../compose/gateway.js';
import { gatewayOptions, parseGatewayConfig } from '../../compose/gateway-config.js';
import { serveNode } from '../../http/node-server.js';
import type { StreamableHttpOptions } from '../../http/server/handler.js';
import { sharedSecret } from './demo-http.js';
import { FRONT_VALUED, type FrontArgs, frontAuthorizer, frontHttpOptions, parseFront, shutdownSignal } from './http-front.js';

/** `mcpkit gateway --help`. */
export const GATEWAY_HELP = `Usage: mcpkit gateway --config FILE [options]

Serves every server of an mcpServers file (the format Claude, Cursor and VS Code use: stdio
"command"/"args"/"env", or "url" + "headers") behind one Streamable HTTP endpoint (both
protocol eras) at http://HOST:PORT/mcp. Each server's tools and prompts are named
<server>_<name>, its resources mcpkit+mount://<server>/<uri>. A server that exits or hangs
loses its tools (clients are told the list changed), is started again with backoff, and its
tools come back. Prints "LISTENING <url>" on stdout once it serves.

Endpoints: /mcp (MCP), /healthz (200 while serving), /readyz (200 when every required
server is up, else 503; the JSON body lists each server's state).

Options:
  --config FILE         the mcpServers file (JSONC); its optional "gateway" object sets the
                        separator, optional servers, timeouts and the visibility policy
                        (docs/composition.md)
  --port N              port to listen on (default 3000; 0 picks a free one)
  --host H              address to bind (default 127.0.0.1); any other than a loopback
                        address needs --auth-token-env or --auth-issuer
  --allowed-host NAME   also accept this Host header (repeatable; default: loopback names)
  --legacy-sse          also serve the legacy HTTP+SSE endpoints (/sse, /messages)
  --auth-token-env VAR  callers must send "Authorization: Bearer <value of $VAR>"
  --auth-issuer URL     callers must send a JWT access token of this issuer, checked
  --auth-jwks-uri URL     against these keys, whose audience is
  --auth-resource URL     this gateway's public URL (default: the URL it listens on)
  --redis URL           share sessions, their event logs and the requestState secret with
                        the other gateways on this Redis (redis://host:port; needs ioredis)
  --stderr FILE         append the stdio servers' stderr to FILE (default: to ours)

The servers never see the callers' Authorization header: each gets the headers and
environment the file gives it.

Examples:
  mcpkit gateway --config servers.json
  MCP_GATEWAY_TOKEN=s3cret-s3cret-s3cret mcpkit gateway --config servers.json --host 0.0.0.0 \\
      --allowed-host mcp.example.com --auth-token-env MCP_GATEWAY_TOKEN --redis redis://10.0.0.5:6379
`;

/** The parsed command line. */
interface GatewayArgs extends FrontArgs {
  config: string;
  redis: string | undefined;
}

const VALUED = new Set([...FRONT_VALUED, '--config', '--redis']);

/** Parses the arguments after `gateway`; a string is the usage error. */
export function parseGatewayArgs(argv: readonly string[]): GatewayArgs | string {
  const values = new Map<string, string[]>();
  const flags = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (VALUED.has(arg)) {
      const value = argv[++i];
      if (value === undefined || value.startsWith('--')) return `${arg} needs a value`;
      values.set(arg, [...(values.get(arg) ?? []), value]);
    } else if (arg === '--legacy-sse') flags.add(arg);
    else return `unknown option ${JSON.stringify(arg)} (mcpkit gateway --help lists the options)`;
  }
  const one = (name: string): string | undefined => values.get(name)?.at(-1);
  const config = one('--config');
  if (config === undefined) return 'give the servers file with --config FILE (an mcpServers file, as clients use)';
  const front = parseFront(values, flags, 'the servers');
  if (typeof front === 'string') return front;
  const redis = one('--redis');
  if (redis !== undefined && !/^rediss?:\/\//.test(redis)) return '--redis needs a URL (redis://host:port)';
  return { ...front, config, redis };
}

/** Runs `mcpkit gateway`; resolves with the exit code. */
export async function run(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(GATEWAY_HELP);
    return 0;
  }
  const parsed = parseGatewayArgs(argv);
  const say = (line: string): void => void process.stderr.write(`mcpkit gateway: ${line}\n`);
  if (typeof parsed === 'string') {
    say(parsed);
    return 2;
  }
  const authorize = await frontAuthorizer(parsed);
  if (typeof authorize === 'string') {
    say(authorize);
    return 2;
  }
  let config;
  try {
    config = parseGatewayConfig(await readConfigText(parsed.config, SERVERS_CONFIG_DEFAULTS.maxChars), { source: parsed.config, variables: process.env });
  } catch (error) {
    say((error as Error).message);
    return 2;
  }
  if (config.servers.servers.size === 0) {
    say(`${parsed.config} names no enabled server; add one to "mcpServers"`);
    return 2;
  }
  const shared = await sharedHttpState(parsed.redis, say);
  if (typeof shared === 'number') return shared;
  let log: WriteStream | undefined;
  if (parsed.stderrFile !== undefined) log = createWriteStream(parsed.stderrFile, { flags: 'a' });
  let gateway: Gateway;
  try {
    const factories = new Map(
      [...config.servers.servers].map(([name, spec]) => [
        name,
        transportFactory(spec, { stderr: log === undefined ? 'inherit' : 'pipe', onStdio: (_n, t) => pipeStderr(t, log) }),
      ]),
    );
    gateway = createGateway(
      gatewayOptions(config, (name) => factories.get(name)!(name), {
        ...(shared === undefined ? {} : { server: { stateless: { requestState: { secret: shared.secret } } } }),
        http: { onError: (error) => say(error.message), ...frontHttpOptions(parsed, authorize), ...shared?.http },
        onError: (error) => say(error.message),
        onStatus: (status) => say(`upstream "${status.name}" is ${status.state}${status.state === 'up' ? ` (${status.tools} tools)` : ''}`),
      }),
    );
  } catch (error) {
    say((error as Error).message);
    await shared?.close();
    log?.end();
    return 2;
  }
  let http;
  try {
    http = await serveNode(gateway.handler, { port: parsed.port, host: parsed.host });
  } catch (error) {
    say(`cannot listen on ${parsed.host}:${parsed.port}: ${(error as Error).message}`);
    await gateway.close();
    await shared?.close();
    log?.end();
    return 1;
  }
  process.stdout.write(`LISTENING ${http.url}\n`);
  await shutdownSignal(() => say('a second signal: exiting at once'));
  say('shutting down');
  await http.close();
  await gateway.close();
  await shared?.close();
  log?.end();
  return 0;
}

/** A stdio upstream's stderr into `log` (when given). */
function pipeStderr(transport: import('../../stdio/index.js').StdioClientTransport, log: WriteStream | undefined): void {
  if (log === undefined) return;
  const started = transport.start.bind(transport);
  transport.start = async (receiver) => {
    await started(receiver);
    transport.stderr?.pipe(log, { end: false });
  };
}

/** What `--redis URL` shares between gateways. */
interface SharedHttpState {
  readonly http: Pick<StreamableHttpOptions, 'sessions' | 'eventStore'>;
  readonly secret: string;
  close(): Promise<void>;
}

/** Connects to the Redis of `--redis URL`; undefined without it, or an exit code. */
async function sharedHttpState(url: string | undefined, say: (line: string) => void): Promise<SharedHttpState | undefined | number> {
  if (url === undefined) return undefined;
  let redisModule: typeof import('../../redis/index.js');
  try {
    redisModule = await import('../../redis/index.js');
  } catch (error) {
    say(`--redis needs the optional dependency ioredis: ${(error as Error).message}`);
    return 1;
  }
  const onError = (error: Error) => say(error.message);
  let redis: import('../../redis/index.js').RedisConnection;
  try {
    redis = await redisModule.RedisConnection.connect({ url, prefix: 'mcpkit-gateway:', onError });
  } catch (error) {
    say(`cannot reach Redis: ${(error as Error).message}`);
    return 1;
  }
  try {
    const secret = await sharedSecret(redis);
    const sessions = await redisModule.RedisSessionDirectory.open(redis, { onError });
    return {
      http: { sessions, eventStore: new redisModule.RedisEventStore(redis) },
      secret,
      async close() {
        await sessions.close();
        await redis.close();
      },
    };
  } catch (error) {
    await redis.close();
    say(`cannot set up the shared state in Redis: ${(error as Error).message}`);
    return 1;
  }
}
