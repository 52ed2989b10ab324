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
import { createStreamableHttpHandler } from '../../http/server/handler.js';
import { disconnectAfterPriming } from '../../http/server/session-transport.js';
import { serveNode } from '../../http/node.js';
import { StdioServerTransport } from '../../stdio/index.js';
import type { TaskStore } from '../../tasks/index.js';
import type { EventStore } from '../../http/server/event-store.js';
import type { SessionDirectory } from '../../http/server/session-directory.js';
import type { SharedNotifier } from '../../server/shared-notifications.js';

/** The demo's `--help`. */
export const DEMO_HELP = `Usage: mcpkit demo [--http [--port N] [--redis URL]] [--task-db FILE]

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
  --task-db FILE  keep tasks in a SQLite file, so they survive a restart
                  (needs the optional dependency better-sqlite3)

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

async function demo(args: string[]): Promise<number> {
  const tasks = await taskOptions(args);
  if (typeof tasks === 'number') return tasks;
  try {
    if (args.includes('--http')) return await demoHttp(args, tasks);
    const server = createDemoServer({ onError: (err) => process.stderr.write(`mcpkit demo: ${err.message}\n`), tasks });
    const transport = new StdioServerTransport();
    const session = await server.connect(transport);
    // a person who started it by hand sees why nothing happens; a client on a pipe is not told
    if (process.stdin.isTTY) process.stderr.write('mcpkit demo: serving the demo MCP server over stdio; waiting for JSON-RPC messages on stdin (run it under an MCP client, e.g. mcpkit list -- mcpkit demo; --help for options)\n');
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
  /** resources/updated and list_changed between the demos on this Redis. */
  readonly notifier: SharedNotifier;
  close(): Promise<void>;
}

/** Connects to the Redis of `--redis URL`; undefined without the flag, or an exit code. */
async function sharedState(args: string[], onError: (err: Error) => void): Promise<SharedState | undefined | number> {
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
  const { RedisBus, RedisConnection, RedisEventStore, RedisNotifier, RedisSessionDirectory, RedisTaskStore } = redisModule;
  let redis;
  try {
    redis = await RedisConnection.connect({ url, prefix: 'mcpkit-demo:', onError });
  } catch (err) {
    process.stderr.write(`mcpkit demo: cannot reach Redis: ${(err as Error).message}\n`);
    return 1;
  }
  const sessions = await RedisSessionDirectory.open(redis, { onError });
  const tasks = await RedisTaskStore.open(redis, { onError });
  const bus = new RedisBus(redis, { onError });
  const notifier = await RedisNotifier.open(bus, { onError });
  return {
    sessions,
    eventStore: new RedisEventStore(redis),
    tasks,
    notifier,
    async close() {
      await notifier.close();
      await bus.close();
      await tasks.close();
      await sessions.close();
      await redis.close();
    },
  };
}

async function demoHttp(args: string[], tasks: { store?: TaskStore }): Promise<number> {
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
  const onError = (err: Error) => process.stderr.write(`mcpkit demo: ${err.message}\n`);
  const shared = await sharedState(args, onError);
  if (typeof shared === 'number') return shared;
  try {
    return await serveDemoHttp(port, tasks.store === undefined && shared !== undefined ? { store: shared.tasks } : tasks, shared, onError);
  } finally {
    await shared?.close();
  }
}

async function serveDemoHttp(port: number, tasks: { store?: TaskStore }, shared: SharedState | undefined, onError: (err: Error) => void): Promise<number> {
  const server = createDemoServer({ onError, tasks, ...(shared === undefined ? {} : { notifier: shared.notifier }) });
  // SEP-1699 polling for the conformance scenario: test_reconnection's stream is closed
  // right after its priming event; the client resumes with GET and Last-Event-ID.
  server.use(disconnectAfterPriming((method, params) => method === 'tools/call' && params?.name === 'test_reconnection'));
  const handler = createStreamableHttpHandler({ server, legacySse: true, onError, ...(shared === undefined ? {} : { sessions: shared.sessions, eventStore: shared.eventStore }) });
  let running;
  try {
    running = await serveNode(handler, { port, host: '127.0.0.1' });
  } catch (err) {
    process.stderr.write(`mcpkit demo: cannot listen on 127.0.0.1:${port}: ${(err as Error).message}\n`);
    return 1;
  }
  process.stdout.write(`LISTENING ${running.url}\n`);
  process.stderr.write(`mcpkit demo: Streamable HTTP at ${running.url}, legacy SSE at http://127.0.0.1:${running.port}/sse${shared === undefined ? '' : ' (sessions, events, tasks and notifications shared through Redis)'}\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await running.close();
  return 0;
}
