/**
 * Starts JavaScript runtimes other than Node as real child processes for the runtime tests:
 * Bun and Deno from their npm packages (`bun`, `deno`, exact-version devDependencies whose
 * install scripts package.json's `allowScripts` lets run). A binary that is missing fails the
 * test with what to do; nothing is skipped.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/repo.js';

export type Runtime = 'bun' | 'deno';

/** Where each runtime's npm package puts its binary once its install script ran. */
const BINARIES: Record<Runtime, string[]> = {
  bun: [join(REPO_ROOT, 'node_modules', 'bun', 'bin', 'bun.exe'), join(REPO_ROOT, 'node_modules', '@oven', 'bun-linux-x64', 'bin', 'bun')],
  deno: [join(REPO_ROOT, 'node_modules', 'deno', 'deno'), join(REPO_ROOT, 'node_modules', '@deno', 'linux-x64-glibc', 'deno')],
};

/** The runtime's binary; throws naming the paths looked at and the fix when none is there. */
export function runtimeBinary(runtime: Runtime): string {
  const found = BINARIES[runtime].find((path) => existsSync(path));
  if (found === undefined) {
    throw new Error(
      `the ${runtime} binary is missing (looked at ${BINARIES[runtime].join(', ')}): run \`npm ci\` in ${REPO_ROOT} so the ${runtime} devDependency installs it (its install script must be allowed by package.json's allowScripts)`,
    );
  }
  return found;
}

/** A fixture script of test/runtimes/fixtures/ (plain JavaScript the runtimes load as is). */
export function fixture(name: string): string {
  return join(REPO_ROOT, 'test', 'runtimes', 'fixtures', name);
}

/** A Deno cache folder per test process, so Deno writes nothing outside it. */
let denoDir: string | undefined;
function denoCache(): string {
  denoDir ??= mkdtempSync(join(tmpdir(), 'mcpkit-deno-'));
  return denoDir;
}
process.once('exit', () => {
  if (denoDir !== undefined) rmSync(denoDir, { recursive: true, force: true });
});

/**
 * The command running `script` with `args` on `runtime`. Deno gets only the permissions the
 * fixtures need: the loopback network, reading the checkout, and reading the environment
 * (ioredis's `debug` dependency lists it at load; nothing is written).
 */
export function runtimeCommand(runtime: Runtime, script: string, args: readonly string[]): { command: string; args: string[]; env: NodeJS.ProcessEnv } {
  const binary = runtimeBinary(runtime);
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  if (runtime === 'bun') return { command: binary, args: [script, ...args], env: { ...env, BUN_RUNTIME_TRANSPILER_CACHE_PATH: '0' } };
  return {
    command: binary,
    args: ['run', '--no-prompt', '--allow-net=127.0.0.1', `--allow-read=${REPO_ROOT}`, '--allow-env', script, ...args],
    env: { ...env, DENO_DIR: denoCache(), DENO_NO_UPDATE_CHECK: '1', DENO_NO_PROMPT: '1' },
  };
}

/** A runtime serving HTTP as a child process. */
export interface RuntimeServer {
  /** The URL the process printed after `LISTENING `. */
  readonly url: string;
  /** Its stderr so far (for failure messages). */
  stderr(): string;
  /** Kills the process (SIGKILL after 2 s) and waits for it to exit. */
  close(): Promise<void>;
}

/** Kills `child` by its pid and resolves once it exited. */
function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 2000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/**
 * Starts `script` on `runtime` and waits (at most `ms`) for the line `LISTENING <url>` on
 * its stdout; rejects with the process's stderr when it exits or the time runs out first.
 */
export function startRuntimeServer(runtime: Runtime, script: string, args: readonly string[], ms = 30_000): Promise<RuntimeServer> {
  const cmd = runtimeCommand(runtime, script, args);
  const child = spawn(cmd.command, cmd.args, { cwd: REPO_ROOT, env: cmd.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    if (stderr.length < 64 * 1024) stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    const fail = (why: string): void => {
      clearTimeout(timer);
      void stop(child).then(() => reject(new Error(`${runtime} ${script} ${args.join(' ')}: ${why}; stderr: ${stderr || '(empty)'}`)));
    };
    const timer = setTimeout(() => fail(`printed no LISTENING line within ${ms} ms`), ms);
    child.once('error', (err) => fail(`could not start: ${err.message}`));
    child.once('exit', (code, signal) => fail(`exited (${code ?? signal}) before listening`));
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const match = /^LISTENING (\S+)$/m.exec(stdout);
      if (match === null) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      child.stdout!.removeAllListeners('data');
      child.stdout!.resume();
      resolve({ url: match[1]!, stderr: () => stderr, close: () => stop(child) });
    });
  });
}

/**
 * Runs `script` on `runtime` to its end (at most `ms`, then it is killed) and resolves with
 * the JSON its last stdout line holds; rejects with its stderr when it fails.
 */
export function runRuntimeScript(runtime: Runtime, script: string, args: readonly string[], ms = 45_000): Promise<Record<string, unknown>> {
  const cmd = runtimeCommand(runtime, script, args);
  const child = spawn(cmd.command, cmd.args, { cwd: REPO_ROOT, env: cmd.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    if (stdout.length < 1024 * 1024) stdout += chunk;
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    if (stderr.length < 64 * 1024) stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`${runtime} ${script}: could not start: ${err.message}`));
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const last = stdout.trim().split('\n').pop() ?? '';
      if (code !== 0)
        return reject(
          new Error(
            `${runtime} ${script} ${args.join(' ')} failed (${code ?? signal}${signal === 'SIGKILL' ? `, killed after ${ms} ms` : ''}); stderr: ${stderr || '(empty)'}; stdout: ${stdout}`,
          ),
        );
      try {
        resolve(JSON.parse(last) as Record<string, unknown>);
      } catch {
        reject(new Error(`${runtime} ${script}: last stdout line is not JSON: ${last}; stderr: ${stderr}`));
      }
    });
  });
}
