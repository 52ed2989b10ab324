/**
 * Test harness: a real `redis-server` (Debian's package; `.ci/run` installs it) on a free
 * loopback port, persistence off unless a test asks for the append-only file, stopped by
 * PID. Not part of the package. A test that needs Redis fails (never skips) when the binary
 * is missing or the server does not answer PING in time.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';

/** How long a started server has to answer PING. */
const START_TIMEOUT_MS = 10_000;
/** How long a stopped server has to exit after SIGTERM before SIGKILL. */
const STOP_TIMEOUT_MS = 5_000;

/** What {@link startRedis} accepts. */
export interface RedisServerOptions {
  /** Write an append-only file with fsync after every write (for the durability tests). Default false. */
  appendOnly?: boolean;
}

/** A running (or stopped, restartable) redis-server of a test. */
export interface RedisServer {
  readonly port: number;
  /** `redis://127.0.0.1:<port>`. */
  readonly url: string;
  /** PID of the current process (undefined while stopped). */
  readonly pid: number | undefined;
  /** Stops the server: SIGTERM, then SIGKILL after a bound. Idempotent. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again on the same port (and data folder). */
  restart(): Promise<void>;
  /** Stops it and removes its data folder. */
  close(): Promise<void>;
}

function binary(): string {
  const found = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
  const path = found.stdout.trim();
  if (found.status !== 0 || path === '') throw new Error('redis-server is not installed (Debian package redis-server; .ci/run installs it)');
  return path;
}

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Resolves true when the server on `port` answers PING with PONG. */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let reply = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString('latin1');
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Starts a redis-server on a free loopback port and waits until it answers PING. */
export async function startRedis(options: RedisServerOptions = {}): Promise<RedisServer> {
  const bin = binary();
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-redis-'));
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--dir',
    dir,
    '--protected-mode',
    'yes',
    '--daemonize',
    'no',
    '--loglevel',
    'warning',
  ];
  args.push(...(options.appendOnly ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no']));
  let child: ChildProcess | undefined;
  let output = '';

  async function start(): Promise<void> {
    const proc = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    proc.stdout!.on('data', (c: Buffer) => (output = (output + c.toString()).slice(-4000)));
    proc.stderr!.on('data', (c: Buffer) => (output = (output + c.toString()).slice(-4000)));
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (Date.now() < deadline) {
      if (proc.exitCode !== null || proc.signalCode !== null) break;
      if (await ping(port)) return;
      await sleep(25);
    }
    await stop('SIGKILL');
    throw new Error(`redis-server did not answer PING on port ${port} within ${START_TIMEOUT_MS} ms:\n${output}`);
  }

  async function stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const proc = child;
    child = undefined;
    if (proc === undefined || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    proc.kill(signal);
    const timer = setTimeout(() => proc.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }

  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    get pid() {
      return child?.pid;
    },
    stop,
    restart: start,
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** What {@link useRedis} gives a test file. */
export interface RedisSuite {
  /** The server (available once the file's `before` hooks ran). */
  readonly server: RedisServer;
  /** Runs `step` in the file's `after` hook, before the server stops (last deferred first; failures ignored). */
  defer(step: () => Promise<void>): void;
}

/** Starts a redis-server for the whole test file (its `before` hook) and stops it afterwards. Call at the top level. */
export function useRedis(options: RedisServerOptions = {}): RedisSuite {
  let server: RedisServer | undefined;
  const steps: Array<() => Promise<void>> = [];
  before(async () => {
    server = await startRedis(options);
  });
  after(async () => {
    for (const step of steps.reverse()) await step().catch(() => {});
    await server?.close();
  });
  return {
    get server() {
      if (server === undefined) throw new Error('the redis-server starts in the before hook');
      return server;
    },
    defer: (step) => void steps.push(step),
  };
}
