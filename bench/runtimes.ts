/**
 * The runtimes section (`--section=runtimes`): mcpkit's Streamable HTTP handler on each
 * runtime's own server — `Bun.serve`, `Deno.serve` (the `bun` and `deno` devDependencies'
 * binaries) and, for reference, `node:http` through mcpkit's Node adapter — each against a
 * bare loop on the same runtime (a bare `fetch` handler on Bun and Deno,
 * servers/runtime-fetch.mjs; the bare `node:http` server on Node, servers/bare-http.ts),
 * all answering one `echo` tool in JSON response mode to the same raw HTTP driver
 * (http-driver.ts), 2025 era with a session. On Bun and Deno a third server, `core`, runs
 * mcpkit's handler through `handle()` behind the bare loop's own request reading and
 * `Response` (servers/runtime-fetch.mjs), which splits mcpkit's extra CPU per call into its
 * core (core − bare) and its web adapter (mcpkit − core).
 *
 * Design note: per runtime the two servers run side by side in long-lived processes, warmed
 * up, then measured in alternating order per repetition at 1 and 32 requests in flight.
 * Reported: calls/s, server CPU per call (from /proc) and the driver's own CPU per call of
 * each (to tell a driver-bound row), and the median of the per-repetition ratios mcpkit / bare, shown against issue 42's targets (≥ 0.85× the bare
 * loop's calls/s, ≤ 1.3× its CPU per call). Never a timed assertion: the targets are
 * printed, not enforced. Results go to bench-results/runtimes.json.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchConfig } from './config.js';
import type { ServerSpec } from './driver.js';
import { HttpDriver, type HttpRunResult, type HttpSession } from './http-driver.js';
import { atLeast, atMost, errorMessage, showTarget, type Target } from './report.js';
import { formatNumber, formatRatio, formatTable, median, medianRatio } from './stats.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '..', '..');
const RESULTS_FILE = join(ROOT, 'bench-results', 'runtimes.json');
const IN_FLIGHT = [1, 32] as const;
type Runtime = 'node' | 'bun' | 'deno';
type Kind = 'bare' | 'core' | 'mcpkit';
/** The servers measured per runtime: the `core` split needs the fetch-handler loop (Bun and Deno). */
const KINDS: Record<Runtime, readonly Kind[]> = { node: ['bare', 'mcpkit'], bun: ['bare', 'core', 'mcpkit'], deno: ['bare', 'core', 'mcpkit'] };

/** How to start `kind` on `runtime`, or why it cannot be. */
function specFor(runtime: Runtime, kind: Kind): ServerSpec | string {
  const name = `${kind} (${runtime})`;
  if (runtime === 'node') {
    const script = join(ROOT, 'build', 'bench', 'servers', kind === 'bare' ? 'bare-http.js' : 'mcpkit-minimal-http.js');
    return existsSync(script)
      ? { name, command: process.execPath, args: [script, '--mode=json'] }
      : `${script} is missing: build first (node scripts/build.mjs library test)`;
  }
  const script = join(ROOT, 'bench', 'servers', 'runtime-fetch.mjs');
  if (runtime === 'bun') {
    const binary = join(ROOT, 'node_modules', 'bun', 'bin', 'bun.exe');
    return existsSync(binary) ? { name, command: binary, args: [script, kind, '--mode=json'] } : `${binary} is missing: run npm ci (the bun devDependency)`;
  }
  const binary = join(ROOT, 'node_modules', 'deno', 'deno');
  if (!existsSync(binary)) return `${binary} is missing: run npm ci (the deno devDependency)`;
  return {
    name,
    command: binary,
    args: ['run', '--allow-net=127.0.0.1', `--allow-read=${ROOT}`, script, kind, '--mode=json'],
    env: { ...process.env, DENO_NO_UPDATE_CHECK: '1' },
  };
}

interface Measured {
  readonly runtime: Runtime;
  readonly kind: Kind;
  readonly runs: Record<(typeof IN_FLIGHT)[number], HttpRunResult[]>;
  problem?: string;
}

/** Runs the section; resolves with the exit status it asks for (1 when a server could not be measured). */
export async function runRuntimesBench(config: BenchConfig): Promise<number> {
  console.log(
    `runtimes: mcpkit vs a bare loop on Node (node:http), Bun (Bun.serve) and Deno (Deno.serve); JSON replies, ${config.reps} reps × ${config.calls} calls`,
  );
  const deadline = Date.now() + config.deadlineMs;
  const all: Measured[] = [];
  for (const runtime of ['node', 'bun', 'deno'] as const) {
    const pair: Measured[] = KINDS[runtime].map((kind) => ({ runtime, kind, runs: { 1: [], 32: [] } }));
    all.push(...pair);
    const open: Array<{ m: Measured; driver: HttpDriver; session: HttpSession }> = [];
    try {
      for (const m of pair) {
        const spec = specFor(runtime, m.kind);
        if (typeof spec === 'string') {
          m.problem = spec;
          continue;
        }
        try {
          const { driver } = await HttpDriver.start(spec, { timeoutMs: config.timeoutMs, client: config.httpDriver });
          const session = await driver.openSession(config.timeoutMs);
          open.push({ m, driver, session });
          await session.verifyEcho(config.timeoutMs);
          await session.run(config.warmupCalls, 32, config.timeoutMs, 'json');
          await session.run(Math.max(1, Math.ceil(config.warmupCalls / 4)), 1, config.timeoutMs, 'json');
        } catch (error) {
          m.problem = `cannot start or warm up: ${errorMessage(error)}`;
        }
      }
      for (let rep = 0; rep < config.reps && Date.now() < deadline; rep++) {
        for (const k of IN_FLIGHT) {
          const order = rep % 2 === 0 ? open : [...open].reverse();
          for (const o of order) {
            if (o.m.problem !== undefined) continue;
            try {
              const r = await o.session.run(config.calls, k, config.timeoutMs, 'json');
              o.m.runs[k].push(r);
              process.stderr.write(
                `  rep ${rep + 1}/${config.reps} ${String(k).padStart(2)} in flight  ${o.driver.name.padEnd(16)} ${formatNumber(r.callsPerSec, 0).padStart(7)} calls/s  server ${formatNumber(r.serverCpuUsPerCall)} µs/call\n`,
              );
            } catch (error) {
              o.m.problem = `rep ${rep + 1}, ${k} in flight: ${errorMessage(error)}`;
            }
          }
        }
      }
    } finally {
      for (const o of open) await o.driver.close();
    }
  }

  const rows: string[][] = [
    [
      'runtime',
      'in flight',
      'bare calls/s',
      'mcpkit calls/s',
      'calls/s ratio',
      'bare µs/call',
      'mcpkit µs/call',
      'CPU ratio',
      'core µs/call',
      'extra µs/call: core, web',
      'driver µs/call (bare, mcpkit)',
    ],
  ];
  const targets: Target[] = [];
  const json: Record<string, unknown> = {};
  for (const runtime of ['node', 'bun', 'deno'] as const) {
    const bare = all.find((m) => m.runtime === runtime && m.kind === 'bare')!;
    const mcpkit = all.find((m) => m.runtime === runtime && m.kind === 'mcpkit')!;
    for (const k of IN_FLIGHT) {
      const speed = medianRatio(
        mcpkit.runs[k].map((r) => r.callsPerSec),
        bare.runs[k].map((r) => r.callsPerSec),
      );
      const cpu = medianRatio(
        mcpkit.runs[k].map((r) => r.serverCpuUsPerCall),
        bare.runs[k].map((r) => r.serverCpuUsPerCall),
      );
      const bareSpeed = median(bare.runs[k].map((r) => r.callsPerSec));
      const mcpkitSpeed = median(mcpkit.runs[k].map((r) => r.callsPerSec));
      const bareCpu = median(bare.runs[k].map((r) => r.serverCpuUsPerCall));
      const mcpkitCpu = median(mcpkit.runs[k].map((r) => r.serverCpuUsPerCall));
      const core = all.find((m) => m.runtime === runtime && m.kind === 'core');
      const coreCpu = core === undefined ? null : median(core.runs[k].map((r) => r.serverCpuUsPerCall));
      const split = coreCpu === null || bareCpu === null || mcpkitCpu === null ? null : { core: coreCpu - bareCpu, web: mcpkitCpu - coreCpu };
      const bareDriver = median(bare.runs[k].map((r) => r.driverCpuUsPerCall));
      const mcpkitDriver = median(mcpkit.runs[k].map((r) => r.driverCpuUsPerCall));
      rows.push([
        runtime,
        String(k),
        formatNumber(bareSpeed, 0),
        formatNumber(mcpkitSpeed, 0),
        formatRatio(speed),
        formatNumber(bareCpu),
        formatNumber(mcpkitCpu),
        formatRatio(cpu),
        core === undefined ? '—' : formatNumber(coreCpu),
        split === null ? '—' : `${formatNumber(split.core)}, ${formatNumber(split.web)}`,
        `${formatNumber(bareDriver)}, ${formatNumber(mcpkitDriver)}`,
      ]);
      targets.push(atLeast(`${runtime}, ${k} in flight: mcpkit calls/s ≥ 0.85× the bare loop's`, speed, 0.85));
      targets.push(atMost(`${runtime}, ${k} in flight: mcpkit server CPU per call ≤ 1.3× the bare loop's`, cpu, 1.3));
      json[`${runtime}/${k}`] = {
        bareCallsPerSec: bareSpeed,
        mcpkitCallsPerSec: mcpkitSpeed,
        callsPerSecRatio: speed,
        bareCpuUsPerCall: bareCpu,
        mcpkitCpuUsPerCall: mcpkitCpu,
        cpuRatio: cpu,
        coreCpuUsPerCall: coreCpu,
        bareDriverCpuUsPerCall: bareDriver,
        mcpkitDriverCpuUsPerCall: mcpkitDriver,
      };
    }
  }
  console.log(formatTable(rows));
  // one driver process per server, the same for both: where the driver's CPU per call is
  // near 1e6 / calls/s, the driver (not the server) set the row's pace
  console.log(
    "driver µs/call: the raw driver's own CPU per call (one node:net client per server, identical for both); a row is driver-bound when it is about 1e6 / calls/s",
  );
  console.log(
    "extra µs/call (Bun, Deno): mcpkit's server CPU per call over the bare loop's, split into its core (core − bare: handle(), the header reads it asks for included) and its web adapter (mcpkit − core: URL and Host check, request description, reply into a Response)",
  );
  console.log('targets (issue 42; reported, not enforced):');
  for (const t of targets) console.log(showTarget(t));
  const problems = all.filter((m) => m.problem !== undefined);
  for (const m of problems) console.log(`  problem: ${m.kind} (${m.runtime}): ${m.problem}`);
  mkdirSync(dirname(RESULTS_FILE), { recursive: true });
  writeFileSync(
    RESULTS_FILE,
    JSON.stringify(
      { calls: config.calls, reps: config.reps, results: json, problems: problems.map((m) => `${m.kind} (${m.runtime}): ${m.problem}`) },
      null,
      2,
    ) + '\n',
  );
  return problems.length > 0 ? 1 : 0;
}
