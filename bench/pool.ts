/**
 * The pool section of `npm run bench` (`--section=pool`): connecting a client pool of 20
 * stdio servers (the demo, `node bin/mcpkit.js demo`) against connecting them one at a time.
 * First each of the 20 is connected alone, one after another (start the process, handshake,
 * list its catalogue), giving the slowest single connect; then a pool connects all 20 in
 * parallel and its wall time is compared with that slowest single connect (the issue's
 * target: at most 1.5×, i.e. parallel, not the sum — on a machine with at least as many
 * cores as servers; with fewer cores the children's start-up CPU is shared and the ratio
 * grows with servers ÷ cores, which the report states). Memory: the host's heap and RSS
 * growth per idle connection (after a GC), and each idle demo child's RSS. Bounded: 20
 * servers, `config.coldStarts` trials (at most 5), every connect under `config.timeoutMs`.
 * No assertions: the numbers are for reading. Results go to `bench-results/pool.json`.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { transportFactory } from '../src/client/node/index.js';
import { ClientPool } from '../src/client/pool.js';
import type { StdioClientTransport } from '../src/stdio/index.js';
import type { BenchConfig } from './config.js';
import { errorMessage } from './report.js';
import { formatNumber, formatRatio, formatTable, median } from './stats.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const RESULTS_FILE = join(ROOT, 'bench-results', 'pool.json');
const BIN = join(ROOT, 'bin', 'mcpkit.js');
/** Servers in the pool. */
export const POOL_SIZE = 20;

const gc = (globalThis as { gc?: () => void }).gc;

/** The resident set of process `pid` in KiB (Linux /proc), or null elsewhere. */
function rssKiB(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/** The CPU time (user + system) process `pid` has used so far, in ms (Linux /proc, 10 ms ticks), or null elsewhere. */
function cpuMs(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    // the fields after the command name (which may hold spaces): utime and stime are the 12th and 13th
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

/** A pool of `n` demo servers over stdio; `children` gets each transport. */
function demoPool(n: number, timeoutMs: number, children: StdioClientTransport[]): Promise<ClientPool> {
  const pool = new ClientPool({ lazy: true, connectTimeoutMs: timeoutMs, reconnect: false });
  const factory = transportFactory(
    { transport: 'stdio', command: process.execPath, args: [BIN, 'demo'], env: {} },
    { stderr: 'ignore', onStdio: (_name, t) => children.push(t) },
  );
  return Promise.all(Array.from({ length: n }, (_, i) => pool.add(`demo${i}`, { transport: factory }))).then(() => pool);
}

/** Runs the section; resolves with its exit status (0, or 1 when a server failed). */
export async function runPoolBench(config: BenchConfig): Promise<number> {
  const trials = Math.max(1, Math.min(5, config.coldStarts));
  const cores = availableParallelism();
  console.log(`mcpkit client pool benchmark: ${POOL_SIZE} stdio demo servers, ${trials} trial(s), ${cores} core(s)`);
  const problems: string[] = [];
  const results: Array<{ slowestSingleMs: number; medianSingleMs: number; sumSingleMs: number; poolMs: number; childCpuMs: number | null; hostCpuMs: number }> =
    [];
  let memory: { heapPerConnectionKiB: number; rssPerConnectionKiB: number; childRssKiB: number | null } | undefined;
  for (let trial = 0; trial < trials; trial++) {
    // one at a time: each server alone
    const singles: number[] = [];
    for (let i = 0; i < POOL_SIZE; i++) {
      const children: StdioClientTransport[] = [];
      const pool = await demoPool(1, config.timeoutMs, children);
      const started = performance.now();
      const [status] = await pool.connect();
      singles.push(performance.now() - started);
      if (status!.state !== 'ready') problems.push(`single connect: ${status!.lastError}`);
      await pool.close();
    }
    // all at once, through one pool
    gc?.();
    const before = process.memoryUsage();
    const children: StdioClientTransport[] = [];
    const pool = await demoPool(POOL_SIZE, config.timeoutMs, children);
    const started = performance.now();
    const hostCpu = process.cpuUsage();
    const statuses = await pool.connect();
    const poolMs = performance.now() - started;
    const hostUsed = process.cpuUsage(hostCpu);
    // each child's CPU up to now: its start-up and one handshake and listing (it is idle since)
    const childCpu = children.map((c) => cpuMs(c.pid)).filter((v): v is number => v !== null);
    for (const s of statuses) if (s.state !== 'ready') problems.push(`${s.name}: ${s.lastError}`);
    gc?.();
    const afterConnect = process.memoryUsage();
    const childRss = children.map((c) => rssKiB(c.pid)).filter((v): v is number => v !== null);
    memory ??= {
      heapPerConnectionKiB: (afterConnect.heapUsed - before.heapUsed) / 1024 / POOL_SIZE,
      rssPerConnectionKiB: (afterConnect.rss - before.rss) / 1024 / POOL_SIZE,
      childRssKiB: childRss.length > 0 ? median(childRss) : null,
    };
    await pool.close();
    results.push({
      slowestSingleMs: Math.max(...singles),
      medianSingleMs: median(singles) ?? 0,
      sumSingleMs: singles.reduce((a, b) => a + b, 0),
      poolMs,
      childCpuMs: median(childCpu),
      hostCpuMs: (hostUsed.user + hostUsed.system) / 1000,
    });
  }
  const slowest = median(results.map((r) => r.slowestSingleMs));
  const sum = median(results.map((r) => r.sumSingleMs));
  const poolMs = median(results.map((r) => r.poolMs));
  const ratio = slowest !== null && poolMs !== null && slowest > 0 ? poolMs / slowest : null;
  const medianSingle = median(results.map((r) => r.medianSingleMs));
  const childCpuMs = median(results.flatMap((r) => (r.childCpuMs === null ? [] : [r.childCpuMs])));
  const hostCpuMs = median(results.map((r) => r.hostCpuMs));
  // the least wall time 20 starts can take here: their CPU spread over the cores
  const cpuBoundMs = childCpuMs === null ? null : (childCpuMs * POOL_SIZE) / cores;
  console.log(
    formatTable([
      ['measure', 'median ms', '× slowest single'],
      ['slowest single connect', formatNumber(slowest), formatRatio(1)],
      ['median single connect', formatNumber(medianSingle), formatRatio(medianSingle !== null && slowest ? medianSingle / slowest : null)],
      [`sum of ${POOL_SIZE} single connects`, formatNumber(sum), formatRatio(sum !== null && slowest ? sum / slowest : null)],
      [`pool of ${POOL_SIZE}, parallel`, formatNumber(poolMs), formatRatio(ratio)],
    ]),
  );
  if (childCpuMs !== null && cpuBoundMs !== null) {
    console.log(
      `CPU: each demo child used ${formatNumber(childCpuMs)} ms to start, shake hands and list (median); ${POOL_SIZE} × ${formatNumber(childCpuMs)} ms ÷ ${cores} core(s) = ${formatNumber(cpuBoundMs)} ms, the least wall time the pool can take here (${formatRatio(slowest ? cpuBoundMs / slowest : null)} the slowest single connect); the host used ${formatNumber(hostCpuMs)} ms of CPU to connect all ${POOL_SIZE}`,
    );
  }
  if (memory !== undefined) {
    console.log(
      `memory per idle connection: host heap ${formatNumber(memory.heapPerConnectionKiB)} KiB, host RSS ${formatNumber(memory.rssPerConnectionKiB)} KiB${gc === undefined ? ' (no --expose-gc: heap figures include garbage)' : ''}; each demo child ${memory.childRssKiB === null ? 'n/a' : `${formatNumber(memory.childRssKiB / 1024)} MiB`} RSS`,
    );
  }
  if (cores < POOL_SIZE)
    console.log(
      `note: ${POOL_SIZE} children share ${cores} core(s): their start-up (most of a connect's time is the child's CPU) runs about ${cores} at a time, so the 1.5× target needs about as many free cores as servers; the sum row is what connecting one after another costs`,
    );
  for (const p of problems) console.log(`!! ${errorMessage(p)}`);
  mkdirSync(dirname(RESULTS_FILE), { recursive: true });
  writeFileSync(
    RESULTS_FILE,
    `${JSON.stringify({ servers: POOL_SIZE, cores, trials: results, medians: { slowestSingleMs: slowest, medianSingleMs: medianSingle, sumSingleMs: sum, poolMs, ratio, childCpuMs, cpuBoundMs, hostCpuMs }, memory, problems }, null, 2)}\n`,
  );
  console.log(`\nresults written to ${RESULTS_FILE}`);
  return problems.length > 0 ? 1 : 0;
}
