/**
 * `mcpkit demo`: serves the demo server over stdio (saying on stderr that it waits for
 * JSON-RPC on stdin, when stdin is a terminal) or, with `--http`, over Streamable HTTP and legacy SSE on 127.0.0.1.
 * Over stdio only protocol messages go to stdout; over HTTP stdout carries one line,
 * `LISTENING <url>`, first. Everything else goes to stderr. With `--redis URL` (HTTP only)
 * several demo processes share sessions, SSE event logs, tasks and change notifications
 * (resources/updated, list_changed) through one Redis, so a client may reach any of them for
 * any request (docs/deploying.md).
 *
 * The HTTP side (demo-http.ts) is loaded only with `--http`: a stdio demo (a pool starts
 * many) does not compile the HTTP server or load node:http.
 */
import { createDemoServer } from '../../demo/server.js';
import { StdioServerTransport } from '../../stdio/index.js';
import type { TaskStore } from '../../tasks/index.js';

/** The demo's `--help`. */
export const DEMO_HELP = `Usage: mcpkit demo [--http [--port N] [--redis URL] [--drain-ms N] [--auth-issuer URL [--auth-scope S]]] [--task-db FILE] [--request-state-secret S]

Serves the demo MCP server (every tool, resource and prompt of the conformance suite's
server contract, plus echo, add, slow, long_running_job and more) over stdio: it reads
JSON-RPC from stdin and writes it to stdout, so run it under a client, e.g.
  mcpkit list -- mcpkit demo

Options:
  --http          serve it over Streamable HTTP on 127.0.0.1 instead, with the legacy
                  HTTP+SSE endpoints (/sse, /messages) too; prints
                  "LISTENING http://127.0.0.1:PORT/mcp" first on stdout
  --port N        the port for --http (default 3000; 0 picks a free one)
  --redis URL     with --http: share sessions, SSE event logs, tasks and resource/list
                  change notifications with every other demo started with the same
                  URL (redis://host:port[/db]), so several
                  instances can serve one client behind a load balancer (needs the
                  optional dependency ioredis; legacy SSE sessions stay on their instance)
  --drain-ms N    with --http: on SIGTERM or SIGINT, stop taking new sessions and
                  requests (503 with Retry-After; GET /ready answers 503), end GET
                  streams so clients resume elsewhere, let running requests finish for
                  up to N ms (default 10000), answer the rest with an error, then exit;
                  a second signal exits at once (docs/deploying.md)
  --auth-issuer URL
                  with --http: protect the demo with OAuth: every request needs a JWT
                  access token from that authorization server for the demo's URL (its
                  audience); serves the protected resource metadata naming it, so
                  "mcpkit login URL" signs in, and a whoami tool (needs the optional
                  dependency jose; an http: issuer only with
                  MCPKIT_DANGEROUSLY_ALLOW_INSECURE_HTTP=1)
  --auth-scope S  with --auth-issuer: the scopes a client should ask for, separated
                  by spaces (named in the metadata and in 401 challenges)
  --task-db FILE  keep tasks in a SQLite file, so they survive a restart
                  (needs the optional dependency better-sqlite3)
  --request-state-secret S
                  the secret (at least 16 bytes) sealing 2026-07-28 multi round-trip
                  requestState, so a retry may reach any instance started with the same
                  one (default: $MCPKIT_REQUEST_STATE_SECRET; else with --redis one shared
                  through Redis, created by the first instance; else random per process)

Examples:
  mcpkit list -- mcpkit demo
  mcpkit demo --http --port 0
  mcpkit demo --http --port 3001 --redis redis://127.0.0.1:6379
`;

/** Runs `mcpkit demo` with the arguments after `demo`; resolves with the exit code. */
export async function run(args: string[]): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(DEMO_HELP);
    return 0;
  }
  return demo(args);
}

/** The demo's task options from `--task-db FILE` (a SQLite store), `{}` without it, or an exit code. */
async function taskOptions(args: string[]): Promise<{ store?: TaskStore } | number> {
  const at = args.indexOf('--task-db');
  if (at < 0) return {};
  const file = args[at + 1];
  if (file === undefined || file.startsWith('--')) {
    process.stderr.write('mcpkit demo: --task-db needs a file name\n');
    return 2;
  }
  let sqlite: typeof import('../../tasks/sqlite-store.js');
  try {
    sqlite = await import('../../tasks/sqlite-store.js');
  } catch (err) {
    process.stderr.write(`mcpkit demo: --task-db needs the optional dependency better-sqlite3: ${(err as Error).message}\n`);
    return 1;
  }
  try {
    return { store: sqlite.SqliteTaskStore.open(file) };
  } catch (err) {
    process.stderr.write(`mcpkit demo: cannot open the task database ${file}: ${(err as Error).message}\n`);
    return 1;
  }
}

/** The shortest `requestState` secret accepted, in bytes (as `RequestStateCodec` requires). */
export const MIN_SECRET_BYTES = 16;

/**
 * The `requestState` secret of `--request-state-secret S`, else of the environment variable
 * MCPKIT_REQUEST_STATE_SECRET; undefined when neither is set, or an exit code (2) when the
 * value is shorter than 16 bytes. Never prints the secret.
 */
function configuredSecret(args: string[]): string | undefined | number {
  const at = args.indexOf('--request-state-secret');
  let secret: string | undefined;
  if (at >= 0) {
    secret = args[at + 1];
    if (secret === undefined || secret.startsWith('--')) {
      process.stderr.write('mcpkit demo: --request-state-secret needs a value (at least 16 bytes, the same on every instance)\n');
      return 2;
    }
  } else {
    secret = process.env.MCPKIT_REQUEST_STATE_SECRET;
    if (secret === '') secret = undefined;
  }
  if (secret !== undefined && new TextEncoder().encode(secret).length < MIN_SECRET_BYTES) {
    const from = at >= 0 ? '--request-state-secret' : 'MCPKIT_REQUEST_STATE_SECRET';
    process.stderr.write(`mcpkit demo: ${from} must be at least ${MIN_SECRET_BYTES} bytes long; use a long random value, the same on every instance\n`);
    return 2;
  }
  return secret;
}

/** `ServerOptions.stateless` carrying `secret`, or nothing (a random secret per server). */
export function statelessOptions(secret: string | undefined): { stateless?: { requestState: { secret: string } } } {
  return secret === undefined ? {} : { stateless: { requestState: { secret } } };
}

async function demo(args: string[]): Promise<number> {
  const secret = configuredSecret(args);
  if (typeof secret === 'number') return secret;
  const tasks = await taskOptions(args);
  if (typeof tasks === 'number') return tasks;
  try {
    if (args.includes('--http')) return await (await import('./demo-http.js')).demoHttp(args, tasks, secret);
    if (args.includes('--auth-issuer') || args.includes('--auth-scope')) {
      process.stderr.write('mcpkit demo: --auth-issuer protects the demo over HTTP: add --http\n');
      return 2;
    }
    const server = createDemoServer({ onError: (err) => process.stderr.write(`mcpkit demo: ${err.message}\n`), tasks, ...statelessOptions(secret) });
    const transport = new StdioServerTransport();
    const session = await server.connect(transport);
    // a person who started it by hand sees why nothing happens; a client on a pipe is not told
    if (process.stdin.isTTY)
      process.stderr.write(
        'mcpkit demo: serving the demo MCP server over stdio; waiting for JSON-RPC messages on stdin (run it under an MCP client, e.g. mcpkit list -- mcpkit demo; --help for options)\n',
      );
    await new Promise<void>((resolve) => session.endpoint.onClose(() => resolve()));
    return 0;
  } finally {
    await tasks.store?.close();
  }
}
