/**
 * `npm run bench`: the benchmark of mcpkit against the official SDK v1 and a bare
 * hand-written server, all exposing one `echo` tool, all driven by the same raw
 * JSON-RPC drivers. This file holds the stdio section (driver: `driver.ts`) and runs
 * the sections `--section` selects; the Streamable HTTP section lives in
 * `http-bench.ts`, the (opt-in) instruction counts of the HTTP servers in
 * `http-instructions.ts`, the CLI's start time in `cli-start.ts`, the cost of sessions
 * shared through Redis in `scale.ts`.
 *
 * Design note: the servers are plain data ({@link SERVERS}); each phase walks them in
 * an order that alternates between repetitions (A B C, then C B A, ...) so slow drift of
 * the machine hits every server alike. Reported ratios are medians of per-repetition
 * ratios (both servers measured minutes apart at most), never ratios of medians or
 * numbers across runs. Phases:
 *   1. probe: start each server once and check one echo (a server that fails is reported
 *      and left out; the exit status is then non-zero);
 *   2. cold start: spawn → initialize response, several trials;
 *   3. throughput: one long-lived process per server, warmed up, then per repetition
 *      `calls` echo calls at 1 and at 32 in flight, with server CPU per call;
 *   4. memory: a fresh process per server, started through the bench GC preload
 *      (`withGcHook`: `--expose-gc`, `BENCH_GC=1`); V8 heap in use and RSS after a
 *      forced GC, after warm-up and after `memoryCalls` calls at 32 in flight (heap
 *      growth > 10 MB is flagged; RSS is informational, since V8 keeps freed pages).
 * Every run has a time cap and the whole benchmark a deadline. Results are printed as a
 * table and written to `bench-results/stdio.json`.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { arch, cpus, platform } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { runCliStartBench } from './cli-start.js';
import { runClientBench } from './client-bench.js';
import { runColdStartBench } from './cold-start.js';
import type { BenchConfig } from './config.js';
import { parseConfig, USAGE } from './config.js';
import type { RunResult, ServerSpec } from './driver.js';
import { PROTOCOL_VERSION, StdioDriver, withGcHook } from './driver.js';
import { runGatewayBench } from './gateway.js';
import { runHttpBench } from './http-bench.js';
import { runInstructionsBench } from './http-instructions.js';
import { runOtelBench } from './otel-bench.js';
import { runPayloadBench } from './payload.js';
import { runPoolBench } from './pool.js';
import { atLeast, atMost, errorMessage, type MetricSummary, showTarget, summarize, type Target } from './report.js';
import { runRuntimesBench } from './runtimes.js';
import { runScaleBench } from './scale.js';
import { type OldGenerationGrowth, oldGenerationGrowth } from './servers/http-harness.js';
import { formatNumber, formatRatio, formatTable } from './stats.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '..', '..');
const RESULTS_FILE = join(ROOT, 'bench-results', 'stdio.json');
const IN_FLIGHT = [1, 32] as const;
type InFlight = (typeof IN_FLIGHT)[number];
const MEMORY_IN_FLIGHT = 32;
const MEMORY_FLAG_MB = 10;
const SETTLE_MS = 200;

/** A server under test and the file that must exist before it can start. */
interface ServerEntry {
  readonly spec: ServerSpec;
  readonly requires: string;
  readonly missingHint: string;
}

/** The servers compared, in their base order. The first one is the ratio baseline. */
const SERVERS: readonly ServerEntry[] = [
  {
    spec: { name: 'bare', command: process.execPath, args: [join(HERE, 'servers', 'bare-stdio.js')], cwd: ROOT },
    requires: join(HERE, 'servers', 'bare-stdio.js'),
    missingHint: 'build the project first (npm run build)',
  },
  {
    spec: { name: 'official', command: process.execPath, args: [join(HERE, 'servers', 'official-stdio.js')], cwd: ROOT },
    requires: join(HERE, 'servers', 'official-stdio.js'),
    missingHint: 'build the project first (npm run build)',
  },
  {
    spec: { name: 'mcpkit', command: process.execPath, args: [join(ROOT, 'bin', 'mcpkit.js'), 'demo'], cwd: ROOT },
    requires: join(ROOT, 'bin', 'mcpkit.js'),
    missingHint: 'the mcpkit demo server (node bin/mcpkit.js demo) does not exist yet',
  },
];

/** Comparisons reported as ratios, when both servers are benched: [numerator, denominator]. */
const RATIO_PAIRS: readonly (readonly [string, string])[] = [
  ['official', 'bare'],
  ['mcpkit', 'bare'],
  ['mcpkit', 'official'],
];

/** Memory figures of one server, all taken right after a forced GC except the peak. */
interface MemoryResult {
  calls: number;
  heapAfterWarmupMb: number;
  heapAfterCallsMb: number;
  heapGrowthMb: number;
  rssAfterWarmupMb: number;
  rssAfterCallsMb: number;
  rssGrowthMb: number;
  peakRssMb: number | null;
  /** Heap growth above {@link MEMORY_FLAG_MB}. */
  flagged: boolean;
  /** What young collections promoted to the old generation during the run (see servers/http-harness.ts). */
  old: OldGenerationGrowth;
  run: RunResult;
}

interface ServerState {
  readonly entry: ServerEntry;
  readonly name: string;
  /** False once the probe failed; such a server is skipped in every later phase. */
  available: boolean;
  /** False once a throughput run failed; its process is gone for the remaining reps. */
  alive: boolean;
  readonly problems: string[];
  /** Indexed by in-flight level, then by repetition. */
  readonly runs: Record<InFlight, (RunResult | null)[]>;
  /** Indexed by trial. */
  readonly coldStartMs: (number | null)[];
  memory: MemoryResult | null;
}

const live = new Set<StdioDriver>();

async function startDriver(spec: ServerSpec, timeoutMs: number): Promise<{ driver: StdioDriver; coldStartMs: number }> {
  const started = await StdioDriver.start(spec, { timeoutMs });
  live.add(started.driver);
  return started;
}

async function closeDriver(driver: StdioDriver): Promise<void> {
  await driver.close();
  live.delete(driver);
}

function progress(text: string): void {
  process.stderr.write(text + '\n');
}

/** A, B, C on even rounds; C, B, A on odd ones. */
function roundOrder<T>(items: readonly T[], round: number): T[] {
  return round % 2 === 0 ? [...items] : [...items].reverse();
}

function kbToMb(kb: number | null): number | null {
  return kb === null ? null : kb / 1024;
}

async function probe(state: ServerState, config: BenchConfig): Promise<void> {
  if (!existsSync(state.entry.requires)) {
    state.available = false;
    state.problems.push(`${state.entry.requires} not found: ${state.entry.missingHint}`);
    return;
  }
  try {
    const { driver } = await startDriver(state.entry.spec, config.timeoutMs);
    try {
      await driver.verifyEcho(config.timeoutMs);
    } finally {
      await closeDriver(driver);
    }
  } catch (error) {
    state.available = false;
    state.problems.push(`cannot start or use: ${errorMessage(error)}`);
  }
}

async function coldStarts(states: readonly ServerState[], config: BenchConfig, pastDeadline: () => boolean): Promise<void> {
  for (let trial = 0; trial < config.coldStarts; trial++) {
    for (const s of roundOrder(states, trial)) {
      if (pastDeadline()) return;
      try {
        const { driver, coldStartMs } = await startDriver(s.entry.spec, config.timeoutMs);
        s.coldStartMs[trial] = coldStartMs;
        await closeDriver(driver);
      } catch (error) {
        s.coldStartMs[trial] = null;
        s.problems.push(`cold start trial ${trial + 1}: ${errorMessage(error)}`);
      }
    }
  }
}

async function throughput(states: readonly ServerState[], config: BenchConfig, pastDeadline: () => boolean): Promise<void> {
  const drivers = new Map<ServerState, StdioDriver>();
  const drop = async (s: ServerState, error: unknown): Promise<void> => {
    s.alive = false;
    s.problems.push(errorMessage(error));
    progress(`  ${s.name}: ${errorMessage(error)}`);
    const d = drivers.get(s);
    drivers.delete(s);
    if (d !== undefined) await closeDriver(d);
  };
  try {
    for (const s of states) {
      try {
        const { driver } = await startDriver(s.entry.spec, config.timeoutMs);
        drivers.set(s, driver);
        await driver.run(config.warmupCalls, 32, config.timeoutMs);
        await driver.run(Math.max(1, Math.ceil(config.warmupCalls / 4)), 1, config.timeoutMs);
      } catch (error) {
        await drop(s, `warm-up: ${errorMessage(error)}`);
      }
    }
    for (let rep = 0; rep < config.reps; rep++) {
      for (const k of IN_FLIGHT) {
        for (const s of roundOrder(states, rep)) {
          const driver = drivers.get(s);
          if (driver === undefined) continue;
          if (pastDeadline()) return;
          try {
            const r = await driver.run(config.calls, k, config.timeoutMs);
            s.runs[k][rep] = r;
            progress(
              `  rep ${rep + 1}/${config.reps}  ${String(k).padStart(2)} in flight  ${s.name.padEnd(8)} ` +
                `${formatNumber(r.callsPerSec, 0).padStart(7)} calls/s  server ${formatNumber(r.serverCpuUsPerCall)} µs/call`,
            );
          } catch (error) {
            await drop(s, `rep ${rep + 1}, ${k} in flight: ${errorMessage(error)}`);
          }
        }
      }
    }
  } finally {
    for (const d of drivers.values()) await closeDriver(d);
  }
}

async function memory(states: readonly ServerState[], config: BenchConfig, pastDeadline: () => boolean): Promise<void> {
  for (const s of states) {
    if (pastDeadline()) return;
    let driver: StdioDriver | undefined;
    try {
      driver = (await startDriver(withGcHook(s.entry.spec), config.timeoutMs)).driver;
      await driver.run(config.warmupCalls, MEMORY_IN_FLIGHT, config.timeoutMs);
      await sleep(SETTLE_MS);
      const before = await driver.gcReport(config.timeoutMs);
      const run = await driver.run(config.memoryCalls, MEMORY_IN_FLIGHT, config.timeoutMs);
      await sleep(SETTLE_MS);
      const after = await driver.gcReport(config.timeoutMs);
      const heapGrowthMb = (after.heapUsedKb - before.heapUsedKb) / 1024;
      s.memory = {
        calls: config.memoryCalls,
        heapAfterWarmupMb: before.heapUsedKb / 1024,
        heapAfterCallsMb: after.heapUsedKb / 1024,
        heapGrowthMb,
        rssAfterWarmupMb: before.rssKb / 1024,
        rssAfterCallsMb: after.rssKb / 1024,
        rssGrowthMb: (after.rssKb - before.rssKb) / 1024,
        peakRssMb: kbToMb(driver.peakRssKb()),
        flagged: heapGrowthMb > MEMORY_FLAG_MB,
        old: oldGenerationGrowth(before, after, config.memoryCalls),
        run,
      };
      progress(
        `  memory  ${s.name.padEnd(8)} heap ${formatNumber(before.heapUsedKb / 1024)} → ${formatNumber(after.heapUsedKb / 1024)} MB, ` +
          `RSS ${formatNumber(before.rssKb / 1024)} → ${formatNumber(after.rssKb / 1024)} MB over ${config.memoryCalls} calls (GC forced)`,
      );
    } catch (error) {
      s.problems.push(`memory check: ${errorMessage(error)}`);
      progress(`  memory  ${s.name}: ${errorMessage(error)}`);
    } finally {
      if (driver !== undefined) await closeDriver(driver);
    }
  }
}

async function main(): Promise<number> {
  const config = parseConfig(process.argv.slice(2), process.env);
  if (config.help) {
    console.log(USAGE);
    return 0;
  }
  let code = 0;
  if (config.sections.includes('stdio')) code = Math.max(code, await runStdio(config));
  if (config.sections.includes('stdio') && config.sections.includes('http')) console.log('');
  if (config.sections.includes('http')) code = Math.max(code, await runHttpBench(config));
  if (config.sections.includes('payload')) {
    if (config.sections.some((s) => s === 'stdio' || s === 'http')) console.log('');
    code = Math.max(code, await runPayloadBench(config));
  }
  if (config.sections.includes('cli')) {
    if (config.sections.some((s) => s === 'stdio' || s === 'http' || s === 'payload')) console.log('');
    code = Math.max(code, await runCliStartBench(config));
  }
  if (config.sections.includes('client')) {
    if (config.sections.some((s) => s === 'stdio' || s === 'http' || s === 'payload' || s === 'cli')) console.log('');
    code = Math.max(code, await runClientBench(config));
  }
  if (config.sections.includes('cold-start')) {
    if (config.sections.some((s) => s === 'stdio' || s === 'http' || s === 'payload' || s === 'cli' || s === 'client')) console.log('');
    code = Math.max(code, await runColdStartBench(config));
  }
  if (config.sections.includes('instructions')) {
    if (config.sections.length > 1) console.log('');
    code = Math.max(code, await runInstructionsBench(config));
  }
  if (config.sections.includes('pool')) {
    if (config.sections.length > 1) console.log('');
    code = Math.max(code, await runPoolBench(config));
  }
  if (config.sections.includes('scale')) {
    if (config.sections.length > 1) console.log('');
    code = Math.max(code, await runScaleBench(config));
  }
  if (config.sections.includes('runtimes')) {
    if (config.sections.length > 1) console.log('');
    code = Math.max(code, await runRuntimesBench(config));
  }
  if (config.sections.includes('otel')) {
    if (config.sections.length > 1) console.log('');
    code = Math.max(code, await runOtelBench(config));
  }
  if (config.sections.includes('gateway')) {
    if (config.sections.length > 1) console.log('');
    code = Math.max(code, await runGatewayBench(config));
  }
  return code;
}

/** The stdio section. Resolves with the exit status it asks for (0, or 1 on problems). */
async function runStdio(config: BenchConfig): Promise<number> {
  const known = new Set(SERVERS.map((e) => e.spec.name));
  for (const name of config.only ?? []) if (!known.has(name)) throw new Error(`unknown server ${JSON.stringify(name)}; known: ${[...known].join(', ')}`);
  const entries = SERVERS.filter((e) => config.only === null || config.only.includes(e.spec.name));

  const began = performance.now();
  let truncated = false;
  const pastDeadline = (): boolean => {
    if (performance.now() - began > config.deadlineMs) truncated = true;
    return truncated;
  };

  const cpuList = cpus();
  const machine = `node ${process.version}, ${platform()} ${arch()}, ${cpuList.length} CPUs${cpuList[0] ? ` (${cpuList[0].model.trim()})` : ''}`;
  console.log(`mcpkit stdio benchmark: ${machine}`);
  console.log(
    `${config.reps} reps × ${config.calls.toLocaleString('en-US')} calls per scenario, interleaved; ` +
      `${config.coldStarts} cold starts; memory over ${config.memoryCalls.toLocaleString('en-US')} calls at ${MEMORY_IN_FLIGHT} in flight` +
      (config.quick ? ' (--quick)' : ''),
  );

  const states: ServerState[] = entries.map((entry) => ({
    entry,
    name: entry.spec.name,
    available: true,
    alive: true,
    problems: [],
    runs: { 1: new Array<RunResult | null>(config.reps).fill(null), 32: new Array<RunResult | null>(config.reps).fill(null) },
    coldStartMs: new Array<number | null>(config.coldStarts).fill(null),
    memory: null,
  }));

  const stopOnSignal = (): void => {
    void Promise.all([...live].map((d) => d.close())).finally(() => process.exit(130));
  };
  process.once('SIGINT', stopOnSignal);
  process.once('SIGTERM', stopOnSignal);

  progress('probing servers…');
  for (const s of states) {
    await probe(s, config);
    if (!s.available) {
      console.log(`\n!! ${s.name} is not benched: ${s.problems.join('; ')}`);
      if (s.name === 'mcpkit') console.log('!! continuing with the other servers; the exit status will be non-zero.');
    }
  }
  const usable = states.filter((s) => s.available);
  if (usable.length > 0) {
    progress('cold starts…');
    await coldStarts(usable, config, pastDeadline);
    progress('throughput…');
    await throughput(usable, config, pastDeadline);
    progress('memory…');
    await memory(usable, config, pastDeadline);
  }

  const memCalls = config.memoryCalls.toLocaleString('en-US');
  const metrics: Record<string, MetricSummary> = {
    throughput1: summarize(states, RATIO_PAIRS, 'calls/s, 1 in flight', 'calls/s', false, (s) => s.runs[1].map((r) => r?.callsPerSec ?? null)),
    throughput32: summarize(states, RATIO_PAIRS, 'calls/s, 32 in flight', 'calls/s', false, (s) => s.runs[32].map((r) => r?.callsPerSec ?? null)),
    serverCpu1: summarize(states, RATIO_PAIRS, 'server CPU µs/call, 1 in flight', 'µs', true, (s) => s.runs[1].map((r) => r?.serverCpuUsPerCall ?? null)),
    serverCpu32: summarize(states, RATIO_PAIRS, 'server CPU µs/call, 32 in flight', 'µs', true, (s) => s.runs[32].map((r) => r?.serverCpuUsPerCall ?? null)),
    driverCpu32: summarize(states, RATIO_PAIRS, 'driver CPU µs/call, 32 in flight', 'µs', true, (s) => s.runs[32].map((r) => r?.driverCpuUsPerCall ?? null)),
    coldStart: summarize(states, RATIO_PAIRS, `cold start ms (median of ${config.coldStarts})`, 'ms', true, (s) => s.coldStartMs),
  };
  const memoryRows: [string, (m: MemoryResult) => number | null, boolean][] = [
    ['heap after warm-up (GC forced), MB', (m) => m.heapAfterWarmupMb, false],
    [`heap growth over ${memCalls} calls (GC forced), MB`, (m) => m.heapGrowthMb, true],
    ['RSS after warm-up (GC forced), MB (informational)', (m) => m.rssAfterWarmupMb, false],
    [`RSS growth over ${memCalls} calls, MB (informational)`, (m) => m.rssGrowthMb, false],
    ['promoted to the old generation, bytes/call (none: a mark-compact ran)', (m) => m.old.promotedBytesPerCall, true],
    [`mark-compacts V8 ran on its own over ${memCalls} calls`, (m) => m.old.majorGcs, true],
  ];

  const names = states.map((s) => s.name);
  const pairs = RATIO_PAIRS.filter(([a, b]) => names.includes(a) && names.includes(b)).map(([a, b]) => `${a}/${b}`);
  const rows: string[][] = [['', ...names, ...pairs]];
  for (const m of Object.values(metrics)) {
    const digits = m.unit === 'calls/s' ? 0 : 1;
    rows.push([
      m.label + (m.lowerIsBetter ? ' (lower is better)' : ''),
      ...names.map((n) => formatNumber(m.median[n] ?? null, digits)),
      ...pairs.map((p) => formatRatio(m.ratios[p] ?? null)),
    ]);
  }
  for (const [label, pick, flags] of memoryRows) {
    rows.push([
      label,
      ...states.map((s) => (s.memory === null ? '—' : formatNumber(pick(s.memory)) + (flags && s.memory.flagged ? ' (!)' : ''))),
      ...pairs.map(() => ''),
    ]);
  }
  console.log('\n' + formatTable(rows));
  const flagged = states.filter((s) => s.memory?.flagged);
  if (flagged.length > 0) {
    console.log(`(!) heap grew by more than ${MEMORY_FLAG_MB} MB (GC forced): ${flagged.map((s) => s.name).join(', ')}`);
  }

  const mcpkitMemory = states.find((s) => s.name === 'mcpkit')?.memory ?? null;
  const targets: Target[] = [
    atLeast('throughput at 32 in flight ≥ 2.5× official', metrics['throughput32']!.ratios['mcpkit/official'] ?? null, 2.5),
    atLeast('throughput at 1 in flight ≥ 1× official', metrics['throughput1']!.ratios['mcpkit/official'] ?? null, 1),
    atMost(`memory flat: heap growth over ${memCalls} calls (GC forced) ≤ ${MEMORY_FLAG_MB} MB`, mcpkitMemory?.heapGrowthMb ?? null, MEMORY_FLAG_MB, 'MB'),
  ];
  const goals: Target[] = [
    atLeast('throughput at 1 in flight ≥ 0.9× bare', metrics['throughput1']!.ratios['mcpkit/bare'] ?? null, 0.9),
    atLeast('throughput at 32 in flight ≥ 0.85× bare', metrics['throughput32']!.ratios['mcpkit/bare'] ?? null, 0.85),
    atMost('cold start ≤ 1.3× bare', metrics['coldStart']!.ratios['mcpkit/bare'] ?? null, 1.3),
  ];
  console.log('\nTargets (issue):');
  for (const t of targets) console.log(showTarget(t));
  console.log('Goals (notes/performance.md, informational):');
  for (const g of goals) console.log(showTarget(g));

  const failing = states.filter((s) => s.problems.length > 0);
  if (truncated) console.log(`\n!! deadline of ${config.deadlineMs / 1000} s reached: remaining runs were skipped.`);
  for (const s of failing) console.log(`\n!! ${s.name}: ${s.problems.join('\n   ')}`);

  const report = {
    benchmark: 'stdio',
    date: new Date().toISOString(),
    machine: { node: process.version, platform: platform(), arch: arch(), cpus: cpuList.length, cpuModel: cpuList[0]?.model.trim() ?? null },
    protocolVersion: PROTOCOL_VERSION,
    config: {
      calls: config.calls,
      reps: config.reps,
      coldStarts: config.coldStarts,
      memoryCalls: config.memoryCalls,
      memoryInFlight: MEMORY_IN_FLIGHT,
      warmupCalls: config.warmupCalls,
      inFlight: IN_FLIGHT,
      quick: config.quick,
    },
    truncated,
    elapsedS: (performance.now() - began) / 1000,
    servers: states.map((s) => ({
      name: s.name,
      command: s.entry.spec.command,
      args: s.entry.spec.args,
      memoryArgs: withGcHook(s.entry.spec).args,
      benched: s.available,
      problems: s.problems,
      runs: { '1': s.runs[1], '32': s.runs[32] },
      coldStartMs: s.coldStartMs,
      memory: s.memory,
    })),
    metrics,
    targets,
    goals,
  };
  mkdirSync(dirname(RESULTS_FILE), { recursive: true });
  writeFileSync(RESULTS_FILE, JSON.stringify(report, null, 2) + '\n');
  console.log(`\nresults written to ${RESULTS_FILE}`);

  process.off('SIGINT', stopOnSignal);
  process.off('SIGTERM', stopOnSignal);
  return failing.length > 0 || truncated ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  async (error: unknown) => {
    console.error(`bench: ${errorMessage(error)}`);
    await Promise.all([...live].map((d) => d.close()));
    process.exitCode = 2;
  },
);
