/**
 * `mcpkit demo --http`: the demo over Streamable HTTP and legacy SSE on 127.0.0.1, optionally
 * sharing its state through Redis (`--redis URL`). Loaded by demo.ts only with `--http`.
 */
import { createDemoServer } from '../../demo/server.js';
import type { DemoToggles, ToggleState } from '../../demo/toggles.js';
import { serveNode } from '../../http/node-server.js';
import type { EventStore } from '../../http/server/event-store.js';
import { createStreamableHttpHandler } from '../../http/server/handler.js';
import type { SessionDirectory } from '../../http/server/session-directory.js';
import { disconnectAfterPriming } from '../../http/server/session-transport.js';
import type { SharedNotifier } from '../../server/shared-notifications.js';
import type { TaskInputRelay, TaskStore } from '../../tasks/index.js';
import { MIN_SECRET_BYTES, statelessOptions } from './demo.js';
import { authFlagsOf, type DemoAuth, demoAuth, registerWhoami } from './demo-auth.js';

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

/** Runs `mcpkit demo --http …` (the arguments after `demo`); resolves with the exit code. */
export async function demoHttp(args: string[], tasks: { store?: TaskStore }, secret: string | undefined): Promise<number> {
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
  const authFlags = authFlagsOf(args);
  if (typeof authFlags === 'number') return authFlags;
  let auth: DemoAuth | undefined;
  if (authFlags !== undefined) {
    try {
      auth = await demoAuth(authFlags);
    } catch (err) {
      process.stderr.write(`mcpkit demo: --auth-issuer ${authFlags.issuer}: ${(err as Error).message}\n`);
      return 1;
    }
  }
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
      auth,
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
  auth: DemoAuth | undefined,
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
  if (auth !== undefined) registerWhoami(server);
  const handler = createStreamableHttpHandler({
    server,
    legacySse: true,
    onError,
    readinessPath: '/ready',
    ...(auth === undefined ? {} : { authorize: auth.authorizer }),
    ...(shared === undefined ? {} : { sessions: shared.sessions, eventStore: shared.eventStore }),
  });
  let running;
  try {
    running = await serveNode(handler, { port, host: '127.0.0.1' });
  } catch (err) {
    process.stderr.write(`mcpkit demo: cannot listen on 127.0.0.1:${port}: ${(err as Error).message}\n`);
    return 1;
  }
  auth?.bind(running.url);
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
