/**
 * The client section of `npm run bench` (`--section=client`, called by `run.ts`): how much
 * a client costs. The bare server (`servers/bare-stdio.js`, `servers/bare-http.js`) is
 * driven over stdio and over Streamable HTTP (JSON responses) by the benchmark's raw
 * driver (the ceiling), a bare `fetch` loop (HTTP only: the floor of any fetch-based
 * client, mcpkit's included), mcpkit's `Client` (`callTool`), the official SDK v1 client and the
 * official v2 client, each in its own process (`clients/bench-client.ts`) so that the CPU
 * it reports (`process.cpuUsage`) is the client's alone.
 *
 * Design note: as in the other sections, one long-lived process per (client, transport) is
 * warmed up and then, per repetition, runs `calls` echo calls at 1 and at 32 in flight, the
 * clients walked in an order that alternates between repetitions; ratios are medians of
 * per-repetition ratios to the raw driver (and to the official clients). Then a heap row
 * per (client, mode: stdio, HTTP JSON, HTTP SSE, and the stateless 2026-07-28 era over
 * HTTP against the minimal mcpkit server, for the clients that speak it): a fresh process with
 * `--expose-gc`, warmed up, heap in use after forced GC at 0, half and all of `memoryCalls`
 * calls (at 32 in flight), and the slope in KB per 10k calls. Bench results are ratios to
 * read, never asserted. Results go to `bench-results/client.json`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { ClientProcess } from './clients/client-process.js';
import { CLIENT_KINDS, type ClientArgs, type ClientKind, type ClientTransport, clientsFor, type HeapRow, heapRow } from './clients/protocol.js';
import type { BenchConfig } from './config.js';
import { atLeast, atMost, errorMessage, type MetricSummary, showTarget, summarize, type Target } from './report.js';
import { formatNumber, formatRatio, formatTable } from './stats.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const RESULTS_FILE = join(ROOT, 'bench-results', 'client.json');
const IN_FLIGHT = [1, 32] as const;
type InFlight = (typeof IN_FLIGHT)[number];
const TRANSPORTS: readonly ClientTransport[] = ['stdio', 'http'];
/** The heap rows' transport modes. */
const HEAP_MODES: readonly { label: string; transport: ClientTransport; mode: 'json' | 'sse'; era: '2025' | '2026' }[] = [
  { label: 'stdio', transport: 'stdio', mode: 'json', era: '2025' },
  { label: 'http-json', transport: 'http', mode: 'json', era: '2025' },
  { label: 'http-sse', transport: 'http', mode: 'sse', era: '2025' },
  // the stateless era, against the minimal mcpkit server (the bare one does not speak it)
  { label: '2026-07-28', transport: 'http', mode: 'json', era: '2026' },
];
const HEAP_IN_FLIGHT = 32;
/** Heap growth (GC forced) over the memory calls above which a heap row is flagged. */
const HEAP_FLAG_MB = 10;

/** Ratio pairs reported per transport: [numerator, denominator]. */
const RATIO_PAIRS: readonly (readonly [string, string])[] = [
  ['mcpkit', 'raw'],
  ['mcpkit-fetch', 'raw'],
  ['mcpkit', 'fetch'],
  ['mcpkit', 'mcpkit-fetch'],
  ['official', 'raw'],
  ['official-v2', 'raw'],
  ['mcpkit', 'official'],
  ['mcpkit', 'official-v2'],
];

/** One timed run as the client process measured it. */
interface ClientRun {
  callsPerSec: number;
  cpuUsPerCall: number;
}

interface ClientState {
  readonly name: ClientKind;
  readonly transport: ClientTransport;
  readonly problems: string[];
  readonly runs: Record<InFlight, (ClientRun | null)[]>;
}

function progress(text: string): void {
  process.stderr.write(text + '\n');
}

function argsFor(client: ClientKind, transport: ClientTransport, mode: 'json' | 'sse' = 'json', era: '2025' | '2026' = '2025'): ClientArgs {
  return { client, transport, mode, era };
}

/** The clients of a heap row: the stateless era only for those that speak it. */
function heapClients(mode: (typeof HEAP_MODES)[number], names: readonly ClientKind[]): ClientKind[] {
  const clients = clientsFor(mode.transport, names);
  return mode.era === '2026' ? clients.filter((c) => c === 'raw' || c === 'mcpkit' || c === 'mcpkit-fetch') : clients;
}

/** Runs `calls` calls in `p` and converts the reply; rejects with the process's error. */
async function timedRun(p: ClientProcess, calls: number, inFlight: number, timeoutMs: number): Promise<ClientRun> {
  const r = await p.send({ cmd: 'run', calls, inFlight }, timeoutMs);
  return { callsPerSec: (calls * 1000) / r.elapsedMs!, cpuUsPerCall: r.cpuUs! / calls };
}

async function throughput(states: readonly ClientState[], config: BenchConfig, pastDeadline: () => boolean): Promise<void> {
  const open = new Map<ClientState, ClientProcess>();
  try {
    for (const s of states) {
      try {
        const { process: p } = await ClientProcess.start(`${s.name} (${s.transport})`, argsFor(s.name, s.transport), false, config.timeoutMs);
        open.set(s, p);
        await p.send({ cmd: 'run', calls: config.warmupCalls, inFlight: 32 }, config.timeoutMs);
        await p.send({ cmd: 'run', calls: Math.max(1, Math.ceil(config.warmupCalls / 4)), inFlight: 1 }, config.timeoutMs);
      } catch (error) {
        s.problems.push(`warm-up: ${errorMessage(error)}`);
        progress(`  ${s.name} (${s.transport}): warm-up: ${errorMessage(error)}`);
        await open.get(s)?.close();
        open.delete(s);
      }
    }
    for (let rep = 0; rep < config.reps; rep++) {
      for (const transport of TRANSPORTS) {
        const group = states.filter((s) => s.transport === transport);
        for (const k of IN_FLIGHT) {
          for (const s of rep % 2 === 0 ? group : [...group].reverse()) {
            const p = open.get(s);
            if (p === undefined) continue;
            if (pastDeadline()) return;
            try {
              const r = await timedRun(p, config.calls, k, config.timeoutMs);
              s.runs[k][rep] = r;
              progress(
                `  rep ${rep + 1}/${config.reps}  ${transport.padEnd(5)} ${String(k).padStart(2)} in flight  ${s.name.padEnd(11)} ` +
                  `${formatNumber(r.callsPerSec, 0).padStart(7)} calls/s  client ${formatNumber(r.cpuUsPerCall)} µs/call`,
              );
            } catch (error) {
              s.problems.push(`rep ${rep + 1}, ${k} in flight: ${errorMessage(error)}`);
              progress(`  ${s.name} (${transport}): ${errorMessage(error)}`);
              await p.close();
              open.delete(s);
            }
          }
        }
      }
    }
  } finally {
    for (const p of open.values()) await p.close();
  }
}

/** One heap row: a fresh process, heap after forced GC at 0, half and all of `memoryCalls`. */
async function heapOf(client: ClientKind, mode: (typeof HEAP_MODES)[number], config: BenchConfig): Promise<HeapRow> {
  const { process: p } = await ClientProcess.start(
    `${client} (${mode.label}, heap)`,
    argsFor(client, mode.transport, mode.mode, mode.era),
    true,
    config.timeoutMs,
  );
  try {
    await p.send({ cmd: 'run', calls: config.warmupCalls, inFlight: HEAP_IN_FLIGHT }, config.timeoutMs);
    const half = Math.max(1, Math.floor(config.memoryCalls / 2));
    const points: { calls: number; heapUsedKb: number }[] = [];
    let done = 0;
    for (let step = 0; step < 3; step++) {
      if (step > 0) {
        await p.send({ cmd: 'run', calls: half, inFlight: HEAP_IN_FLIGHT }, config.timeoutMs);
        done += half;
      }
      const gc = await p.send({ cmd: 'gc' }, config.timeoutMs);
      if (gc.forced !== true) throw new Error('the client process could not force a GC');
      points.push({ calls: done, heapUsedKb: gc.heapUsedKb! });
    }
    return heapRow(points);
  } finally {
    await p.close();
  }
}

/** Runs the section; resolves with its exit status (0, or 1 on problems or a truncated run). */
export async function runClientBench(config: BenchConfig): Promise<number> {
  const began = performance.now();
  let truncated = false;
  const pastDeadline = (): boolean => {
    if (performance.now() - began > config.deadlineMs) truncated = true;
    return truncated;
  };
  const names = CLIENT_KINDS.filter((c) => config.only === null || config.only.includes(c) || c === 'raw' || c === 'fetch');
  console.log(
    `mcpkit client benchmark: bare server driven by ${names.join(', ')}; ${config.reps} reps × ${config.calls.toLocaleString('en-US')} calls, ` +
      `interleaved; heap rows over ${config.memoryCalls.toLocaleString('en-US')} calls` +
      (config.quick ? ' (--quick)' : ''),
  );
  const states: ClientState[] = [];
  for (const transport of TRANSPORTS) {
    for (const name of clientsFor(transport, names)) {
      states.push({ name, transport, problems: [], runs: { 1: new Array(config.reps).fill(null), 32: new Array(config.reps).fill(null) } });
    }
  }
  progress('client throughput…');
  await throughput(states, config, pastDeadline);

  progress('client heap rows…');
  const heap: Record<string, Record<string, HeapRow | null>> = {};
  const heapProblems: string[] = [];
  for (const mode of HEAP_MODES) {
    heap[mode.label] = {};
    for (const name of heapClients(mode, names)) {
      if (pastDeadline()) break;
      try {
        const row = await heapOf(name, mode, config);
        heap[mode.label]![name] = row;
        progress(
          `  heap  ${mode.label.padEnd(9)} ${name.padEnd(11)} ${row.points.map((x) => formatNumber(x.heapUsedKb / 1024)).join(' → ')} MB (slope ${formatNumber(row.slopeKbPer10k)} KB/10k calls)`,
        );
      } catch (error) {
        heap[mode.label]![name] = null;
        heapProblems.push(`heap ${name} (${mode.label}): ${errorMessage(error)}`);
        progress(`  heap  ${mode.label} ${name}: ${errorMessage(error)}`);
      }
    }
  }

  const metrics: Record<string, MetricSummary> = {};
  const rows: string[][] = [];
  const pairs = RATIO_PAIRS.filter(([a, b]) => names.includes(a as ClientKind) && names.includes(b as ClientKind)).map(([a, b]) => `${a}/${b}`);
  rows.push(['', ...names, ...pairs]);
  for (const transport of TRANSPORTS) {
    const group = states.filter((s) => s.transport === transport);
    for (const k of IN_FLIGHT) {
      const rate = summarize(group, RATIO_PAIRS, `${transport} calls/s, ${k} in flight`, 'calls/s', false, (s) => s.runs[k].map((r) => r?.callsPerSec ?? null));
      const cpu = summarize(group, RATIO_PAIRS, `${transport} client CPU µs/call, ${k} in flight`, 'µs', true, (s) =>
        s.runs[k].map((r) => r?.cpuUsPerCall ?? null),
      );
      metrics[`${transport}Throughput${k}`] = rate;
      metrics[`${transport}Cpu${k}`] = cpu;
      for (const m of [rate, cpu]) {
        const digits = m.unit === 'calls/s' ? 0 : 1;
        rows.push([
          m.label + (m.lowerIsBetter ? ' (lower is better)' : ''),
          ...names.map((n) => formatNumber(m.median[n] ?? null, digits)),
          ...pairs.map((p) => formatRatio(m.ratios[p] ?? null)),
        ]);
      }
    }
  }
  for (const mode of HEAP_MODES) {
    const row = (pick: (h: HeapRow) => string): string[] => names.map((n) => (heap[mode.label]?.[n] ? pick(heap[mode.label]![n]!) : '—'));
    rows.push([
      `${mode.label} heap MB after GC at 0 / ½ / all calls`,
      ...row((h) => h.points.map((x) => formatNumber(x.heapUsedKb / 1024)).join(' / ')),
      ...pairs.map(() => ''),
    ]);
    rows.push([`${mode.label} heap slope, KB per 10k calls`, ...row((h) => formatNumber(h.slopeKbPer10k)), ...pairs.map(() => '')]);
  }
  console.log('\n' + formatTable(rows));

  const targets: Target[] = [];
  for (const transport of TRANSPORTS) {
    for (const k of IN_FLIGHT) {
      targets.push(
        atLeast(`${transport}: mcpkit Client calls/s at ${k} in flight ≥ 0.8× raw`, metrics[`${transport}Throughput${k}`]!.ratios['mcpkit/raw'] ?? null, 0.8),
      );
      targets.push(
        atMost(`${transport}: mcpkit Client CPU per call at ${k} in flight ≤ 1.5× raw`, metrics[`${transport}Cpu${k}`]!.ratios['mcpkit/raw'] ?? null, 1.5),
      );
    }
  }
  for (const mode of HEAP_MODES) {
    const h = heap[mode.label]?.['mcpkit'];
    const growthMb = h ? (h.points[h.points.length - 1]!.heapUsedKb - h.points[0]!.heapUsedKb) / 1024 : null;
    targets.push(
      atMost(
        `${mode.label}: mcpkit Client heap flat (growth over ${config.memoryCalls.toLocaleString('en-US')} calls, GC forced, ≤ ${HEAP_FLAG_MB} MB)`,
        growthMb,
        HEAP_FLAG_MB,
        'MB',
      ),
    );
  }
  console.log('\nTargets (issue):');
  for (const t of targets) console.log(showTarget(t));

  const problems = [...states.flatMap((s) => s.problems.map((p) => `${s.name} (${s.transport}): ${p}`)), ...heapProblems];
  if (truncated) console.log(`\n!! deadline of ${config.deadlineMs / 1000} s reached: remaining runs were skipped.`);
  for (const p of problems) console.log(`!! ${p}`);
  mkdirSync(dirname(RESULTS_FILE), { recursive: true });
  writeFileSync(
    RESULTS_FILE,
    JSON.stringify(
      {
        benchmark: 'client',
        date: new Date().toISOString(),
        node: process.version,
        config: {
          calls: config.calls,
          reps: config.reps,
          warmupCalls: config.warmupCalls,
          memoryCalls: config.memoryCalls,
          inFlight: IN_FLIGHT,
          quick: config.quick,
        },
        truncated,
        elapsedS: (performance.now() - began) / 1000,
        clients: states,
        heap,
        metrics,
        targets,
        problems,
      },
      null,
      2,
    ) + '\n',
  );
  console.log(`\nresults written to ${RESULTS_FILE}`);
  return problems.length > 0 || truncated ? 1 : 0;
}
