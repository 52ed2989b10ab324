/**
 * `mcpkit demo --http --port 0 --redis <url>` as a child process, for the tests that run the
 * real demo on a shared Redis (the conformance run through the proxy, the Redis restart).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { BIN } from '../cli/cli-run.js';

/** A running demo process. */
export interface DemoProcess {
  /** Its MCP endpoint, from its LISTENING line. */
  readonly url: string;
  /** The port of {@link url}. */
  readonly port: number;
  readonly child: ChildProcess;
  /** The tail of its stderr (its onError reports). */
  stderr(): string;
}

/** Starts a demo on `redisUrl` and waits (at most 20 s) for its LISTENING line; rejects if it exits first. */
export function startRedisDemo(redisUrl: string, extraArgs: readonly string[] = []): Promise<DemoProcess> {
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT; // the demo is not a test file
  const child = spawn(process.execPath, [BIN, 'demo', '--http', '--port', '0', '--redis', redisUrl, ...extraArgs], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err = (err + c.toString('utf8')).slice(-20_000)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the demo did not print LISTENING within 20 s: ${err}`));
    }, 20_000);
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString('utf8');
      const m = /LISTENING (\S+)/.exec(out);
      if (m !== null) {
        clearTimeout(timer);
        resolve({ url: m[1]!, port: Number(new URL(m[1]!).port), child, stderr: () => err });
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the demo exited before listening (${code ?? signal}): ${err}`));
    });
  });
}

/** Stops a demo: SIGTERM, SIGKILL after 5 s; resolves once it exited. */
export async function stopRedisDemo(demo: DemoProcess): Promise<void> {
  const { child } = demo;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await gone;
  clearTimeout(timer);
}
