/**
 * Runs a Worker on workerd (the `workerd` devDependency's binary, the runtime of Cloudflare
 * Workers) for the runtime tests: the Worker's module is bundled with esbuild from its entry
 * file, as wrangler bundles one, into a temporary folder beside a workerd config that binds
 * 127.0.0.1 on a port workerd picks and reports on its control pipe.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { REPO_ROOT } from '../helpers/repo.js';
import type { RuntimeServer } from './harness.js';

/** The workerd binary the `workerd` package installs. */
export function workerdBinary(): string {
  const candidates = [
    join(REPO_ROOT, 'node_modules', 'workerd', 'bin', 'workerd'),
    join(REPO_ROOT, 'node_modules', '@cloudflare', 'workerd-linux-64', 'bin', 'workerd'),
  ];
  const found = candidates.find((path) => existsSync(path));
  if (found === undefined)
    throw new Error(
      `the workerd binary is missing (looked at ${candidates.join(', ')}): run \`npm ci\` in ${REPO_ROOT} so the workerd devDependency installs it (its install script must be allowed by package.json's allowScripts)`,
    );
  return found;
}

/** The compatibility date the Workers are run with (the one examples/workers/wrangler.toml names). */
export const COMPATIBILITY_DATE = '2026-11-01';

/** Bundles `entry` as a Worker module (ESM, the `workerd`/`worker`/`browser` export conditions); resolves with its source. */
export async function bundleWorker(entry: string): Promise<string> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    conditions: ['workerd', 'worker', 'browser'],
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

/** Durable Objects a Worker binds, for {@link startWorker}. */
export interface WorkerOptions {
  /** Classes the Worker module exports as Durable Objects, each bound under `binding` (SQLite-backed, on disk). */
  durableObjects?: ReadonlyArray<{ binding: string; className: string }>;
  /** Where the objects' storage lives: pass the same folder to a later start to find it again (default: a folder removed on close). */
  storageDir?: string;
}

/**
 * Bundles `entry` and serves it on workerd with the text `bindings` (the Worker's `env`);
 * resolves once workerd reports its socket listening (at most `ms`), with the URL of `path`.
 * The Worker's outbound `fetch` may reach loopback addresses (the tests' Node servers) as
 * well as public ones; workerd's default allows public addresses only.
 */
export async function startWorker(
  entry: string,
  bindings: Record<string, string> = {},
  ms = 30_000,
  path = '/mcp',
  options: WorkerOptions = {},
): Promise<RuntimeServer> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-workerd-'));
  const objects = options.durableObjects ?? [];
  const objectBindings = objects.map((o) => `(name = ${JSON.stringify(o.binding)}, durableObjectNamespace = ${JSON.stringify(o.className)})`);
  const textBindings = Object.entries(bindings).map(([name, text]) => `(name = ${JSON.stringify(name)}, text = ${JSON.stringify(text)})`);
  // SQLite-backed objects (what wrangler's new_sqlite_classes makes) on a folder of their own, kept across restarts when the caller names it
  const objectConfig =
    objects.length === 0
      ? ''
      : `
  durableObjectNamespaces = [${objects.map((o) => `(className = ${JSON.stringify(o.className)}, uniqueKey = ${JSON.stringify(`mcpkit-test-${o.className}`)}, enableSql = true)`).join(', ')}],
  durableObjectStorage = (localDisk = "objects"),`;
  const objectService =
    objects.length === 0 ? '' : `, (name = "objects", disk = (path = ${JSON.stringify(options.storageDir ?? join(dir, 'objects'))}, writable = true))`;
  if (objects.length > 0) mkdirSync(options.storageDir ?? join(dir, 'objects'), { recursive: true });
  writeFileSync(join(dir, 'worker.js'), await bundleWorker(entry));
  writeFileSync(
    join(dir, 'config.capnp'),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .mainWorker), (name = "internet", network = (allow = ["public", "local"]))${objectService} ],
  sockets = [ (name = "http", address = "127.0.0.1:0", http = (), service = "main") ],
);
const mainWorker :Workerd.Worker = (
  modules = [ (name = "worker.js", esModule = embed "worker.js") ],
  compatibilityDate = "${COMPATIBILITY_DATE}",
  bindings = [${[...textBindings, ...objectBindings].join(', ')}],${objectConfig}
);
`,
  );
  const child = spawn(workerdBinary(), ['serve', 'config.capnp', '--control-fd=3'], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    if (stderr.length < 64 * 1024) stderr += chunk;
  });
  const stop = (): Promise<void> =>
    new Promise((resolve) => {
      const done = (): void => {
        rmSync(dir, { recursive: true, force: true });
        resolve();
      };
      if (child.exitCode !== null || child.signalCode !== null) return done();
      const force = setTimeout(() => child.kill('SIGKILL'), 2000);
      child.once('exit', () => {
        clearTimeout(force);
        done();
      });
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    let control = '';
    const fail = (why: string): void => {
      clearTimeout(timer);
      void stop().then(() => reject(new Error(`workerd serving ${entry}: ${why}; stderr: ${stderr || '(empty)'}`)));
    };
    const timer = setTimeout(() => fail(`reported no listening socket within ${ms} ms`), ms);
    child.once('error', (err) => fail(`could not start: ${err.message}`));
    child.once('exit', (code, signal) => fail(`exited (${code ?? signal}) before listening`));
    const pipe = child.stdio[3] as NodeJS.ReadableStream;
    pipe.setEncoding('utf8');
    pipe.on('data', (chunk: string) => {
      control += chunk;
      for (const line of control.split('\n')) {
        let event: { event?: string; port?: number };
        try {
          event = JSON.parse(line) as typeof event;
        } catch {
          continue;
        }
        if (event.event !== 'listen' || typeof event.port !== 'number') continue;
        clearTimeout(timer);
        child.removeAllListeners('exit');
        resolve({ url: `http://127.0.0.1:${event.port}${path}`, stderr: () => stderr, close: stop });
        return;
      }
    });
  });
}
