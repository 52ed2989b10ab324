/**
 * `mcpkit dev FILE`: serves a server module like `mcpkit run`, and reloads it when the module
 * or one of its local imports changes.
 *
 * Design: every load is a new child process (a "generation", see generation.ts), so the
 * module and all its imports are evaluated afresh — no module cache to bust. The dev process
 * itself owns what the client sees: stdin/stdout (see stdio-relay.ts) or the listening HTTP
 * socket (see http-proxy.ts). On a change it starts the next generation; only when that one
 * has loaded and is serving does it become current, and the previous one is retired once it
 * has answered what it was asked (at most {@link DEFAULT_RETIRE_GRACE_MS} later). A
 * generation that fails to load (syntax error, throwing module, no server export) is
 * reported on stderr and the previous one keeps serving; with none yet, the dev process
 * waits for the next change, holding the client's messages (stdio) or answering 503 (HTTP).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { libraryRoot } from '../library-root.js';
import { type ServeArgs, serveArgsOrExit } from './args.js';
import { localDependencies } from './dependencies.js';
import type { GenerationMessage } from './generation.js';
import { DevHttpProxy, type ProxyTarget } from './http-proxy.js';
import { onLines } from './lines.js';
import { untilSignal } from './serve.js';
import { type RelayGeneration, StdioRelay } from './stdio-relay.js';
import { FileWatcher } from './watcher.js';

/** `mcpkit dev --help`. */
export const DEV_USAGE = `Usage: mcpkit dev FILE [--http [--port N]] [--export NAME]

Like "mcpkit run", and reloads the server when FILE or a file it imports (relative
imports, followed transitively) changes. Each reload runs the module in a fresh
process, so every import is loaded anew.

  --http          serve on http://127.0.0.1:PORT/mcp; prints "LISTENING <url>" once the
                  code has loaded (not while it fails to)
  --port N        the port for --http (default 3000; 0 picks a free one)
  --export NAME   use this export instead of default / server / createServer

When the new code fails to load, the error is printed and the previous code keeps
serving. Over stdio the client's initialize is replayed to the new code, so the
client keeps its session; over HTTP each session is carried over the same way on its
next request (open SSE streams end and are resumed by the client). Server state kept
in memory (subscriptions, log level, your own variables) starts afresh.

Exit codes: 0 stopped (Ctrl-C, or stdin ended), 1 FILE does not exist, the port
could not be bound or mcpkit's own files are incomplete, 2 wrong arguments.

Examples:
  mcpkit dev ./server.ts
  mcpkit dev ./server.ts --http --port 0
`;

/** How long a retired generation may keep running to finish open requests, in ms. */
export const DEFAULT_RETIRE_GRACE_MS = 30_000;

/** How long a generation may take to load before it counts as failed, in ms. */
export const DEFAULT_LOAD_TIMEOUT_MS = 60_000;

/**
 * The script each generation runs (generation.ts, its own entry point in the bundled
 * package), found from the library root since this module's code may sit in a shared chunk;
 * `undefined` when the library's files cannot be found.
 */
function generationScript(): string | undefined {
  const root = libraryRoot(import.meta.url);
  return root === undefined ? undefined : join(root, 'cli', 'serve', 'generation.js');
}

interface Generation extends RelayGeneration, ProxyTarget {
  child: ChildProcess;
  exited: boolean;
}

/** Runs `mcpkit dev`; resolves with the exit code. */
export async function run(argv: string[]): Promise<number> {
  const args = serveArgsOrExit('dev', argv, DEV_USAGE);
  if (typeof args === 'number') return args;
  if (!existsSync(args.file)) {
    process.stderr.write(`mcpkit dev: ${args.file} does not exist\n`);
    return 1;
  }
  const script = generationScript();
  if (script === undefined || !existsSync(script)) {
    process.stderr.write(
      `mcpkit dev: mcpkit's own files are incomplete (cli/serve/generation.js is missing from its library folder); reinstall mcpkit, or run \`npm run build\` in a checkout\n`,
    );
    return 1;
  }
  return new DevSupervisor(args, script).start();
}

const log = (message: string): void => void process.stderr.write(`mcpkit dev: ${message}\n`);

/** Owns the client side, the watcher, and the generations. */
class DevSupervisor {
  readonly #args: ServeArgs;
  readonly #file: string;
  readonly #script: string;
  readonly #watcher: FileWatcher;
  readonly #relay: StdioRelay | undefined;
  readonly #proxy: DevHttpProxy | undefined;
  #current: Generation | undefined;
  #count = 0;
  #loading = false;
  #again = false;
  #stopping = false;
  /** The URL to print as `LISTENING <url>` once a generation first serves (HTTP). */
  #announce: string | undefined;
  readonly #all = new Set<Generation>();

  /** `script` is the generation script each generation runs ({@link generationScript}). */
  constructor(args: ServeArgs, script: string) {
    this.#args = args;
    this.#file = resolve(args.file);
    this.#script = script;
    this.#watcher = new FileWatcher(() => this.#reload('changed'));
    if (args.http) this.#proxy = new DevHttpProxy({ log });
    else this.#relay = new StdioRelay({ toClient: (line) => void process.stdout.write(`${line}\n`), log });
  }

  async start(): Promise<number> {
    let server: Server | undefined;
    let stopped: Promise<void>;
    if (this.#proxy !== undefined) {
      server = createServer(this.#proxy.handle);
      try {
        await new Promise<void>((ok, fail) => {
          server!.once('error', fail);
          server!.listen(this.#args.port, '127.0.0.1', () => ok());
        });
      } catch (err) {
        log(`cannot listen on 127.0.0.1:${this.#args.port}: ${(err as Error).message}`);
        return 1;
      }
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
      // LISTENING waits for the first code that loads: until then there is nothing to talk to
      this.#announce = url;
      log(`bound ${url}; loading ${this.#args.file} (LISTENING follows once it serves; reloading when it or its imports change)`);
      stopped = untilSignal();
    } else {
      onLines(
        process.stdin,
        (line) => this.#relay!.fromClient(line),
        (n) => log(`dropped a ${n}-byte line from the client (too long)`),
      );
      const ended = new Promise<void>((ok) => process.stdin.once('end', ok).once('close', ok));
      stopped = Promise.race([ended, untilSignal()]);
      log(`serving ${this.#args.file} over stdio; reloading when it or its imports change`);
    }
    this.#reload('start');
    await stopped;
    this.#stopping = true;
    this.#watcher.close();
    for (const generation of this.#all) this.#end(generation);
    if (server !== undefined) {
      server.closeAllConnections();
      await new Promise<void>((ok) => server!.close(() => ok()));
    }
    return 0;
  }

  /** Starts the next generation (one at a time; a change during a load reloads once more). */
  #reload(reason: 'start' | 'changed'): void {
    if (this.#stopping) return;
    if (this.#loading) {
      this.#again = true;
      return;
    }
    this.#loading = true;
    this.#watcher.set(localDependencies(this.#file));
    if (reason === 'changed') log(`change seen, loading ${this.#args.file} again`);
    const id = ++this.#count;
    const mode = this.#proxy !== undefined ? 'http' : 'stdio';
    const child = spawn(process.execPath, [...process.execArgv, this.#script, this.#file, mode, this.#args.exportName ?? ''], {
      stdio: [mode === 'stdio' ? 'pipe' : 'ignore', 'pipe', 'inherit', 'ipc'],
    });
    const generation: Generation = {
      id,
      port: 0,
      child,
      exited: false,
      write: (line) => {
        if (!generation.exited) child.stdin?.write(`${line}\n`);
      },
    };
    this.#all.add(generation);
    child.stdin?.on('error', () => {});
    if (mode === 'stdio')
      onLines(
        child.stdout!,
        (line) => this.#relay!.fromGeneration(generation, line),
        (n) => log(`dropped a ${n}-byte line from the server (too long)`),
      );
    else child.stdout!.pipe(process.stderr, { end: false });
    let settled = false;
    const settle = (outcome: GenerationMessage | { type: 'exited'; code: number | null }): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void this.#settled(generation, outcome).finally(() => {
        this.#loading = false;
        if (this.#again) {
          this.#again = false;
          this.#reload('changed');
        }
      });
    };
    const timer = setTimeout(() => {
      settle({ type: 'failed', message: `it did not finish loading within ${DEFAULT_LOAD_TIMEOUT_MS / 1000} s` });
      this.#end(generation);
    }, DEFAULT_LOAD_TIMEOUT_MS);
    child.on('message', (message: GenerationMessage) => settle(message));
    child.on('exit', (code) => {
      generation.exited = true;
      this.#all.delete(generation);
      settle({ type: 'exited', code });
      this.#relay?.exited(generation);
      if (this.#current === generation) {
        this.#current = undefined;
        this.#proxy?.setCurrent(undefined);
        if (!this.#stopping) log(`the server process exited (code ${code}); waiting for a change to ${this.#args.file}`);
      }
    });
  }

  async #settled(generation: Generation, outcome: GenerationMessage | { type: 'exited'; code: number | null }): Promise<void> {
    if (outcome.type !== 'ready') {
      const why = outcome.type === 'failed' ? outcome.message : `the process exited with code ${outcome.code} while loading`;
      log(`${this.#args.file} failed to load:\n${why}`);
      log(
        this.#current !== undefined
          ? `still serving the code loaded before (generation ${this.#current.id}); fix the file and save it`
          : 'no working code yet; waiting for a change',
      );
      this.#end(generation);
      return;
    }
    const previous = this.#current;
    if (this.#proxy !== undefined) {
      (generation as { port: number }).port = outcome.port!;
      this.#proxy.setCurrent(generation);
    } else if (!(await this.#relay!.switchTo(generation))) {
      log('the new code did not accept the replayed initialize; still serving the code loaded before');
      this.#end(generation);
      return;
    }
    this.#current = generation;
    if (this.#announce !== undefined) {
      process.stdout.write(`LISTENING ${this.#announce}\n`);
      this.#announce = undefined;
    }
    log(previous === undefined ? `ready (generation ${generation.id})` : `reloaded (generation ${generation.id})`);
    if (previous !== undefined) void this.#retire(previous);
  }

  /** Ends `generation` once it has nothing open, or after the grace period. */
  async #retire(generation: Generation): Promise<void> {
    const deadline = Date.now() + DEFAULT_RETIRE_GRACE_MS;
    const open = (): number => this.#relay?.pendingAt(generation) ?? this.#proxy!.inflight(generation);
    while (!generation.exited && open() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    this.#end(generation);
  }

  #end(generation: Generation): void {
    if (generation.exited) return;
    if (generation.child.stdin) generation.child.stdin.end();
    generation.child.kill('SIGTERM');
    const force = setTimeout(() => generation.child.kill('SIGKILL'), 5000);
    force.unref();
    generation.child.once('exit', () => clearTimeout(force));
  }
}
