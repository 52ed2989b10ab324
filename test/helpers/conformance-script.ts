/**
 * Runs scripts/conformance.mjs (the official conformance suite, through its pinned versions)
 * as a child process, for the tests that require its verdict: the demo's baselines, the
 * Redis cluster behind a round-robin proxy, and the servers on other runtimes.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from './repo.js';

/** How the script ended, with everything it printed (stdout and stderr interleaved). */
export interface ConformanceRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
}

/**
 * Runs the script with `args`; SIGTERM after `timeoutMs`. Rejects only when the child cannot
 * be started. The test runner's NODE_TEST_CONTEXT is not passed on (the suite's own child
 * processes must not report to this runner).
 */
export function runConformanceScript(args: readonly string[], timeoutMs: number): Promise<ConformanceRun> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env };
    delete env.NODE_TEST_CONTEXT;
    const child = spawn(process.execPath, [join(REPO_ROOT, 'scripts', 'conformance.mjs'), ...args], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const timer = setTimeout(() => child.kill('SIGTERM'), timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, output });
    });
  });
}
