/**
 * `mcpkit demo`: serves the demo server over stdio (saying on stderr that it waits for
 * JSON-RPC on stdin, when stdin is a terminal) or, with `--http`, over Streamable HTTP and legacy SSE on 127.0.0.1.
 * Over stdio only protocol messages go to stdout; over HTTP stdout carries one line,
 * `LISTENING <url>`, first. Everything else goes to stderr. With `--redis URL` (HTTP only)
 * several demo processes share sessions, SSE event logs, tasks and change notifications
 * (resources/updated, list_changed) through one Redis, so a client may reach any of them for
 * any request (docs/deploying.md).
 */
import { createDemoServer } from '../../demo/server.js';
import type { DemoToggles, ToggleState } from '../../demo/toggles.js';
import { serveNode } from '../../http/node-server.js';
import type { EventStore } from '../../http/server/event-store.js';
import { createStreamableHttpHandler } from '../../http/server/handler.js';
import type { SessionDirectory } from '../../http/server/session-directory.js';
import { disconnectAfterPriming } from '../../http/server/session-transport.js';
import type { SharedNotifier } from '../../server/shared-notifications.js';
import { StdioServerTransport } from '../../stdio/index.js';
import type { TaskInputRelay, TaskStore } from '../../tasks/index.js';

/** The demo's `--help`. */
export const DEMO_HELP = `Usage: mcpkit demo [--http [--port N] [--redis URL] [--drain-ms N]] [--task-db FILE] [--request-state-secret S]

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
const MIN_SECRET_BYTES = 16;

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
function statelessOptions(secret: string | undefined): { stateless?: { requestState: { secret: string } } } {
  return secret === undefined ? {} : { stateless: { requestState: { secret } } };
}

async function demo(args: string[]): Promise<number> {
  const secret = configuredSecret(args);
  if (typeof secret === 'number') return secret;
  const tasks = await taskOptions(args);
  if (typeof tasks === 'number') return tasks;
  try {
    if (args.includes('--http')) return await demoHttp(args, tasks, secret);
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

/** What `--redis URL` shares, and how to let go of it. */
interface SharedState {
  readonly sessions: SessionDirectory;
  readonly eventStore: EventStore;
  readonly tasks: TaskStore;
  /** Carries 2026-07-28 `tasks/update` answers to the demo running the task (with the shared task store only). */
  readonly inputRelay: TaskInputRelay;
  /** resources/updated and list_changed between the demos on this Redis. */
  readonly notifier: SharedNotifier;
  /** The dynamic tool and prompt, the same on every demo on this Redis. */
  readonly toggles: DemoToggles;
  /** The `requestState` secret every demo on this Redis uses (the configured one, else the one kept in Redis). */
  readonly requestStateSecret: string;
  close(): Promise<void>;
}

/** Connects to the Redis of `--redis URL`; undefined without the flag, or an exit code. */
async function sharedState(args: string[], secret: string | undefined, onError: (err: Error) => void): Promise<SharedState | undefined | number> {
  const at = args.indexOf('--redis');
  if (at < 0) return undefined;
  const url = args[at + 1];
  if (url === undefined || !/^rediss?:\/\//.test(url)) {
    process.stderr.write('mcpkit demo: --redis needs a URL (redis://host:port)\n');
    return 2;
  }
  let redisModule: typeof import('../../redis/index.js');
  try {
    redisModule = await import('../../redis/index.js');
  } catch (err) {
    process.stderr.write(`mcpkit demo: --redis needs the optional dependency ioredis: ${(err as Error).message}\n`);
    return 1;
  }
  const { RedisBus, RedisConnection, RedisEventStore, RedisNotifier, RedisSessionDirectory, RedisTaskInputRelay, RedisTaskStore } = redisModule;
  let redis;
  try {
    redis = await RedisConnection.connect({ url, prefix: 'mcpkit-demo:', onError });
  } catch (err) {
    process.stderr.write(`mcpkit demo: cannot reach Redis: ${(err as Error).message}\n`);
    return 1;
  }
  let requestStateSecret = secret;
  if (requestStateSecret === undefined) {
    try {
      requestStateSecret = await sharedSecret(redis);
    } catch (err) {
      await redis.close();
      process.stderr.write(`mcpkit demo: cannot read the shared requestState secret from Redis: ${(err as Error).message}\n`);
      return 1;
    }
  }
  const sessions = await RedisSessionDirectory.open(redis, { onError });
  const tasks = await RedisTaskStore.open(redis, { onError });
  const bus = new RedisBus(redis, { onError });
  const notifier = await RedisNotifier.open(bus, { onError });
  const inputRelay = await RedisTaskInputRelay.open(bus, { onError });
  const toggles = await redisToggles(redis, bus, onError);
  return {
    sessions,
    eventStore: new RedisEventStore(redis),
    tasks,
    inputRelay,
    toggles,
    notifier,
    requestStateSecret,
    async close() {
      await inputRelay.close();
      await notifier.close();
      await bus.close();
      await tasks.close();
      await sessions.close();
      await redis.close();
    },
  };
}

/**
 * The `requestState` secret the demos on this Redis share when none is configured: created
 * once by whichever demo starts first (SET NX of 32 random bytes, base64url, no expiry), then
 * read by everyone (GET). Runs at startup only, never per request.
 */
export async function sharedSecret(redis: import('../../redis/index.js').RedisConnection): Promise<string> {
  const key = redis.key('config', 'request-state-secret');
  const fresh = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url');
  await redis.run((client) => client.set(key, fresh, 'NX'));
  const stored = await redis.run((client) => client.get(key));
  if (stored === null || new TextEncoder().encode(stored).length < MIN_SECRET_BYTES)
    throw new Error(`the key ${key} holds no secret of at least ${MIN_SECRET_BYTES} bytes; delete it or pass --request-state-secret`);
  return stored;
}

/** The toggles the demo flips (see demo/toggles.ts). */
const TOGGLES = ['test_dynamic_tool', 'test_dynamic_prompt'];
const TOGGLE_CHANNEL = 'demo-toggles';

/**
 * {@link DemoToggles} on Redis: a counter per toggle (`<prefix>toggle:<name>`, INCR per
 * flip, odd = on), each flip announced on the bus as `{n: name, v: counter}`. Handlers get
 * the counters' current values once, right after they are added.
 */
async function redisToggles(
  redis: import('../../redis/index.js').RedisConnection,
  bus: import('../../redis/index.js').RedisBus,
  onError: (err: Error) => void,
): Promise<DemoToggles> {
  const handlers = new Set<(name: string, state: ToggleState) => void>();
  const state = (version: number): ToggleState => ({ on: version % 2 === 1, version });
  const emit = (name: string, version: number) => {
    for (const h of handlers) h(name, state(version));
  };
  await bus.subscribe(TOGGLE_CHANNEL, (data, info) => {
    if (info.origin === bus.instanceId) return;
    const m = data as { n?: unknown; v?: unknown } | null;
    if (typeof m === 'object' && m !== null && typeof m.n === 'string' && TOGGLES.includes(m.n) && Number.isSafeInteger(m.v)) emit(m.n, m.v as number);
    else onError(new Error('Dropped a malformed demo-toggles message'));
  });
  return {
    async flip(name) {
      const version = await redis.run((client) => client.incr(redis.key('toggle', name)));
      await bus.publish(TOGGLE_CHANNEL, { n: name, v: version });
      return state(version);
    },
    onFlip(handler) {
      handlers.add(handler);
      // the current states, for a demo started after some flips
      void Promise.all(TOGGLES.map(async (name) => [name, Number((await redis.run((client) => client.get(redis.key('toggle', name)))) ?? 0)] as const))
        .then((states) => {
          for (const [name, version] of states) if (version > 0 && handlers.has(handler)) handler(name, state(version));
        })
        .catch((err: unknown) => onError(new Error(`Could not read the demo toggles: ${(err as Error).message}`)));
      return () => void handlers.delete(handler);
    },
  };
}

async function demoHttp(args: string[], tasks: { store?: TaskStore }, secret: string | undefined): Promise<number> {
  let port = 3000;
  const at = args.indexOf('--port');
  if (at >= 0) {
    const value = args[at + 1];
    port = value !== undefined && /^\d{1,5}$/.test(value) ? Number(value) : NaN;
    if (!(port >= 0 && port <= 65535)) {
      process.stderr.write(`mcpkit demo: --port needs a number from 0 to 65535\n`);
      return 2;
    }
  }
  const drainMs = drainMsOf(args);
  if (drainMs === undefined) return 2;
  const onError = (err: Error) => process.stderr.write(`mcpkit demo: ${err.message}\n`);
  const shared = await sharedState(args, secret, onError);
  if (typeof shared === 'number') return shared;
  try {
    return await serveDemoHttp(
      port,
      tasks.store === undefined && shared !== undefined ? { store: shared.tasks, inputRelay: shared.inputRelay } : tasks,
      shared,
      shared?.requestStateSecret ?? secret,
      onError,
      drainMs,
    );
  } finally {
    await shared?.close();
  }
}

/** The default of `--drain-ms`: how long a stopping demo lets running requests finish. */
const DEFAULT_DRAIN_MS = 10_000;

/** `--drain-ms N` (default {@link DEFAULT_DRAIN_MS}); undefined (after saying why) for a bad value. */
function drainMsOf(args: string[]): number | undefined {
  const at = args.indexOf('--drain-ms');
  if (at < 0) return DEFAULT_DRAIN_MS;
  const value = args[at + 1];
  if (value === undefined || !/^\d{1,7}$/.test(value)) {
    process.stderr.write('mcpkit demo: --drain-ms needs a number of milliseconds from 0 to 9999999\n');
    return undefined;
  }
  return Number(value);
}

async function serveDemoHttp(
  port: number,
  tasks: { store?: TaskStore; inputRelay?: TaskInputRelay },
  shared: SharedState | undefined,
  secret: string | undefined,
  onError: (err: Error) => void,
  drainMs: number,
): Promise<number> {
  const server = createDemoServer({
    onError,
    tasks,
    ...statelessOptions(secret),
    ...(shared === undefined ? {} : { notifier: shared.notifier, toggles: shared.toggles }),
  });
  // SEP-1699 polling for the conformance scenario: test_reconnection's stream is closed
  // right after its priming event; the client resumes with GET and Last-Event-ID.
  server.use(disconnectAfterPriming((method, params) => method === 'tools/call' && params?.name === 'test_reconnection'));
  const handler = createStreamableHttpHandler({
    server,
    legacySse: true,
    onError,
    readinessPath: '/ready',
    ...(shared === undefined ? {} : { sessions: shared.sessions, eventStore: shared.eventStore }),
  });
  let running;
  try {
    running = await serveNode(handler, { port, host: '127.0.0.1' });
  } catch (err) {
    process.stderr.write(`mcpkit demo: cannot listen on 127.0.0.1:${port}: ${(err as Error).message}\n`);
    return 1;
  }
  process.stdout.write(`LISTENING ${running.url}\n`);
  process.stderr.write(
    `mcpkit demo: Streamable HTTP at ${running.url}, legacy SSE at http://127.0.0.1:${running.port}/sse${shared === undefined ? '' : ' (sessions, events, tasks and notifications shared through Redis)'}\n`,
  );
  if (shared !== undefined) {
    process.stderr.write(
      'mcpkit demo: legacy HTTP+SSE sessions (/sse, /messages) are not shared through Redis: each lives on the instance that opened it, so a balancer must send all of its requests there (docs/redis.md)\n',
    );
  }
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  // a second signal does not wait for the drain
  const again = () => {
    process.stderr.write('mcpkit demo: second signal, exiting without waiting for running requests\n');
    process.exit(1);
  };
  process.once('SIGINT', again);
  process.once('SIGTERM', again);
  if (drainMs > 0) process.stderr.write(`mcpkit demo: ${signal}: draining (no new sessions or requests; running ones get up to ${drainMs} ms)\n`);
  await running.close({ drainMs });
  process.stderr.write('mcpkit demo: stopped\n');
  return 0;
}
