/**
 * The payload section of `npm run bench` (`--section=payload`): large messages. Each call is
 * a `tools/call echo` whose `message` is 64 KiB or 1 MiB of text, so the payload crosses the
 * transport in both directions (parsed and validated on the way in, serialized and written on
 * the way out), over stdio and over Streamable HTTP in both response modes (JSON, SSE), for
 * the bare ceiling, the official SDK v1 and v2 and mcpkit — the same servers as the
 * throughput sections (mcpkit from the bundled package: `mcpkit demo` over stdio, the demo's echo
 * tool, middleware and task server over HTTP, `servers/mcpkit-http.ts`).
 *
 * Design note: for each transport and size, every server runs in its own process; the
 * repetitions are interleaved (the server order rotates per repetition) at one call in
 * flight and at 8, after a warm-up at 8 in flight: first {@link SMALL_WARMUP_CALLS} echo
 * calls of the throughput sections' short message, then a few hundred calls of 64 KiB or a
 * few dozen of 1 MiB. So a run measures the steady state of a long-lived server, not its JIT
 * tier-up (start-up is the cold-start section's business). The short calls are what gets
 * every server's per-call JavaScript optimized: a large call spends almost all its time in
 * native JSON and copying code, so its JavaScript runs once per call, and 600 of them left
 * V8's optimizing compiler still at work in the timed runs (callgrind, 64 KiB over HTTP SSE
 * at 8 in flight, after 600 warm-up calls: compiler work was 10 % of the bare server's
 * instructions per call and 15 % of mcpkit's, which read 1.09× bare; with 5,000 or 10,000
 * short calls first, 1.01× in both response modes). The payload is ASCII text with some
 * structure (not one repeated character, which some JSON paths special-case) and needs no
 * escaping. Reported: calls/s, payload MB/s one way, and server CPU per call, as medians, and
 * the median per-repetition ratios to `bare` and to the official SDKs. The issue's target —
 * mcpkit ≥ 0.95× bare in every mode and size — is listed at the end. Results go to
 * `bench-results/payload.json`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { arch, cpus, platform } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { BenchConfig } from './config.js';
import { ECHO_MESSAGE, type RunResult, type ServerSpec, StdioDriver } from './driver.js';
import { HttpDriver, type HttpSession } from './http-driver.js';
import { atLeast, errorMessage, type MetricSummary, SDK_RATIO_PAIRS, showTarget, summarize, type Target } from './report.js';
import { formatNumber, formatRatio, formatTable } from './stats.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '..', '..');
const RESULTS_FILE = join(ROOT, 'bench-results', 'payload.json');

/** A transport of the section: stdio, or Streamable HTTP in one response mode. */
export type PayloadTransport = 'stdio' | 'http-json' | 'http-sse';
const TRANSPORTS: readonly PayloadTransport[] = ['stdio', 'http-json', 'http-sse'];

/** A payload size, how many calls a timed run makes and how many warm a new server up (default, `--quick`). */
interface PayloadSize {
  readonly label: string;
  readonly chars: number;
  readonly calls: number;
  readonly quickCalls: number;
  readonly warmupCalls: number;
  readonly quickWarmupCalls: number;
}
const SIZES: readonly PayloadSize[] = [
  { label: '64 KiB', chars: 64 * 1024, calls: 300, quickCalls: 40, warmupCalls: 600, quickWarmupCalls: 40 },
  { label: '1 MiB', chars: 1024 * 1024, calls: 24, quickCalls: 6, warmupCalls: 48, quickWarmupCalls: 6 },
];
const IN_FLIGHT = [1, 8] as const;
/** In-flight calls of the warm-up runs. */
const WARMUP_IN_FLIGHT = 8;
/** Short echo calls each new server gets before its payload warm-up (see the module note). */
const SMALL_WARMUP_CALLS = 5000;
/** The same with `--quick`. */
const QUICK_SMALL_WARMUP_CALLS = 200;

/** A server of the section: its name and its scripts (stdio: the command's arguments). */
interface PayloadEntry {
  readonly name: string;
  readonly stdioArgs: readonly string[];
  readonly httpScript: string;
}

const ENTRIES: readonly PayloadEntry[] = [
  { name: 'bare', stdioArgs: [join(HERE, 'servers', 'bare-stdio.js')], httpScript: join(HERE, 'servers', 'bare-http.js') },
  { name: 'official', stdioArgs: [join(HERE, 'servers', 'official-stdio.js')], httpScript: join(HERE, 'servers', 'official-http.js') },
  { name: 'official-v2', stdioArgs: [join(HERE, 'servers', 'official-v2-stdio.js')], httpScript: join(HERE, 'servers', 'official-v2-http.js') },
  { name: 'mcpkit', stdioArgs: [join(ROOT, 'bin', 'mcpkit.js'), 'demo'], httpScript: join(HERE, 'servers', 'mcpkit-http.js') },
];

/**
 * The payload text of `chars` characters: printable ASCII in varied words (no JSON escapes,
 * not a single repeated character). Deterministic.
 */
export function payloadText(chars: number): string {
  const words = ['model', 'context', 'protocol', 'payload', 'mcpkit', '0123456789', 'stream', 'tools/call'];
  let text = '';
  for (let i = 0; text.length < chars; i++) text += words[i % words.length] + (i % 7 === 6 ? '. ' : ' ');
  return text.slice(0, chars);
}

/** One server's figures for one (transport, size, in-flight) case, by repetition (null: failed or skipped). */
interface CaseState {
  readonly name: string;
  readonly runs: (RunResult | null)[];
  problem: string | null;
}

/** A running server of the section: it runs calls of a message and closes. */
interface Running {
  run(calls: number, inFlight: number, message: string): Promise<RunResult>;
  close(): Promise<void>;
}

async function startServer(entry: PayloadEntry, transport: PayloadTransport, timeoutMs: number): Promise<Running> {
  if (transport === 'stdio') {
    const spec: ServerSpec = { name: `${entry.name} (stdio)`, command: process.execPath, args: entry.stdioArgs, cwd: ROOT };
    const { driver } = await StdioDriver.start(spec, { timeoutMs });
    return { run: (calls, inFlight, message) => driver.run(calls, inFlight, timeoutMs, message), close: () => driver.close() };
  }
  const mode = transport === 'http-json' ? 'json' : 'sse';
  const spec: ServerSpec = { name: `${entry.name} (${mode})`, command: process.execPath, args: [entry.httpScript, `--mode=${mode}`], cwd: ROOT };
  const { driver } = await HttpDriver.start(spec, { timeoutMs, client: 'raw' });
  try {
    const session: HttpSession = await driver.openSession(timeoutMs);
    return { run: (calls, inFlight, message) => session.run(calls, inFlight, timeoutMs, mode, message), close: () => driver.close() };
  } catch (error) {
    await driver.close();
    throw error;
  }
}

/**
 * Runs the payload section: progress on stderr, tables on stdout, `bench-results/payload.json`
 * written. Resolves with 0, or 1 when a server could not be measured. Benches the servers of
 * `--only` it knows (all without it).
 */
export async function runPayloadBench(config: BenchConfig): Promise<number> {
  // `--only` names this section does not know (mcpkit-2026, say) are other sections' servers
  const entries = ENTRIES.filter((e) => config.only === null || config.only.includes(e.name));
  const began = performance.now();
  console.log(
    `mcpkit payload benchmark: tools/call echo of a large message (both directions), node ${process.version}, ${platform()} ${arch()}, ${cpus().length} CPUs`,
  );
  console.log(
    `${config.reps} reps per case, interleaved; ${SIZES.map((s) => `${s.label}: ${config.quick ? s.quickCalls : s.calls} calls`).join(', ')} per timed run, after a warm-up of ${config.quick ? QUICK_SMALL_WARMUP_CALLS : SMALL_WARMUP_CALLS} short calls and then ${SIZES.map((s) => `${config.quick ? s.quickWarmupCalls : s.warmupCalls}`).join(' and ')} calls at ${WARMUP_IN_FLIGHT} in flight; in flight ${IN_FLIGHT.join(' and ')}`,
  );

  const cases: { transport: PayloadTransport; size: PayloadSize; inFlight: number; states: CaseState[] }[] = [];
  let failed = false;
  for (const transport of TRANSPORTS) {
    for (const size of SIZES) {
      const message = payloadText(size.chars);
      const calls = config.quick ? size.quickCalls : size.calls;
      const byInFlight = new Map(IN_FLIGHT.map((n) => [n, entries.map((e): CaseState => ({ name: e.name, runs: [], problem: null }))] as const));
      for (let rep = 0; rep < config.reps; rep++) {
        const order = entries.map((_, i) => entries[(i + rep) % entries.length]!);
        for (const entry of order) {
          let running: Running | undefined;
          try {
            running = await startServer(entry, transport, config.timeoutMs);
            await running.run(config.quick ? QUICK_SMALL_WARMUP_CALLS : SMALL_WARMUP_CALLS, WARMUP_IN_FLIGHT, ECHO_MESSAGE);
            await running.run(config.quick ? size.quickWarmupCalls : size.warmupCalls, WARMUP_IN_FLIGHT, message);
            for (const inFlight of IN_FLIGHT) {
              const state = byInFlight.get(inFlight)!.find((s) => s.name === entry.name)!;
              const result = await running.run(calls, inFlight, message);
              state.runs.push(result);
              process.stderr.write(
                `  ${transport.padEnd(9)} ${size.label.padEnd(6)} rep ${rep + 1}/${config.reps} ${String(inFlight).padStart(2)} in flight  ${entry.name.padEnd(11)} ${formatNumber(result.callsPerSec, 1)} calls/s\n`,
              );
            }
          } catch (error) {
            failed = true;
            for (const states of byInFlight.values()) {
              const state = states.find((s) => s.name === entry.name)!;
              state.problem ??= errorMessage(error);
              while (state.runs.length <= rep) state.runs.push(null);
            }
            process.stderr.write(`  ${transport} ${size.label} ${entry.name}: ${errorMessage(error)}\n`);
          } finally {
            await running?.close();
          }
        }
      }
      for (const inFlight of IN_FLIGHT) cases.push({ transport, size, inFlight, states: byInFlight.get(inFlight)! });
    }
  }

  const names = entries.map((e) => e.name);
  const pairs = SDK_RATIO_PAIRS.filter(([a, b]) => names.includes(a) && names.includes(b)).map(([a, b]) => `${a}/${b}`);
  const rows: string[][] = [['case', ...names, ...pairs]];
  const summaries: { transport: PayloadTransport; size: string; inFlight: number; metrics: MetricSummary[] }[] = [];
  const targets: Target[] = [];
  for (const c of cases) {
    const mb = c.size.chars / (1024 * 1024);
    const metrics = [
      summarize(c.states, SDK_RATIO_PAIRS, 'calls/s', 'calls/s', false, (s) => s.runs.map((r) => r?.callsPerSec ?? null)),
      summarize(c.states, SDK_RATIO_PAIRS, 'MB/s one way', 'MB/s', false, (s) => s.runs.map((r) => (r === null ? null : r.callsPerSec * mb))),
      summarize(c.states, SDK_RATIO_PAIRS, 'server CPU µs/call', 'µs', true, (s) => s.runs.map((r) => r?.serverCpuUsPerCall ?? null)),
    ];
    summaries.push({ transport: c.transport, size: c.size.label, inFlight: c.inFlight, metrics });
    for (const m of metrics) {
      const label = `${c.transport} ${c.size.label} ${c.inFlight} in flight: ${m.label}${m.lowerIsBetter ? ' (lower is better)' : ''}`;
      rows.push([
        label,
        ...names.map((n) => formatNumber(m.median[n] ?? null, m.unit === 'µs' ? 0 : 1)),
        ...pairs.map((p) => formatRatio(m.ratios[p] ?? null)),
      ]);
    }
    if (names.includes('mcpkit') && names.includes('bare')) {
      targets.push(
        atLeast(`${c.transport} ${c.size.label} at ${c.inFlight} in flight: mcpkit throughput ≥ 0.95× bare`, metrics[0]!.ratios['mcpkit/bare'] ?? null, 0.95),
      );
    }
  }
  console.log('\n' + formatTable(rows));
  console.log('\nTargets (issue):\n' + targets.map(showTarget).join('\n'));
  const problems = cases.flatMap((c) => c.states.filter((s) => s.problem !== null).map((s) => `${c.transport} ${c.size.label} ${s.name}: ${s.problem}`));
  for (const p of new Set(problems)) console.log(`\n!! ${p}`);

  mkdirSync(dirname(RESULTS_FILE), { recursive: true });
  writeFileSync(
    RESULTS_FILE,
    JSON.stringify(
      {
        benchmark: 'payload',
        date: new Date().toISOString(),
        machine: { node: process.version, platform: platform(), arch: arch(), cpus: cpus().length },
        config: {
          reps: config.reps,
          sizes: SIZES.map((s) => ({
            label: s.label,
            chars: s.chars,
            calls: config.quick ? s.quickCalls : s.calls,
            warmupCalls: config.quick ? s.quickWarmupCalls : s.warmupCalls,
          })),
          inFlight: IN_FLIGHT,
          warmupInFlight: WARMUP_IN_FLIGHT,
        },
        elapsedS: (performance.now() - began) / 1000,
        cases: cases.map((c) => ({ transport: c.transport, size: c.size.label, inFlight: c.inFlight, servers: c.states })),
        summaries,
        targets,
      },
      null,
      2,
    ) + '\n',
  );
  console.log(`\nresults written to ${RESULTS_FILE}`);
  return failed ? 1 : 0;
}
