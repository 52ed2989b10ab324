/**
 * The cold-start section of `npm run bench` (`--section=cold-start`, called by `run.ts`):
 * how long a server takes from spawn to its first `initialize` answer, over stdio and over
 * Streamable HTTP, for the bare ceiling, a minimal mcpkit server (one tool, no demo
 * features: `servers/mcpkit-minimal-*.ts`), the official SDK v1 and the official v2 SDK;
 * and how long importing mcpkit's entry points takes in a fresh process.
 *
 * What is measured is what ships: the minimal servers import mcpkit by its package name
 * (`mcpkit/server`, ...), which resolves through package.json's exports to the bundled
 * dist/ (one file per entry point, shared chunks: docs/architecture.md), and the import
 * times are those of dist/'s entry points. `npm run bench` builds dist/ first.
 *
 * Design note: every trial spawns a fresh process. stdio: spawn → `initialize` response
 * (the stdio driver's own measure). HTTP: spawn → `LISTENING` line → `initialize` POST
 * answered → `notifications/initialized` accepted (the HTTP driver's session opening; the
 * last step is one more loopback round trip, the same for every server). Trials walk the
 * servers in an order that alternates between trials; the report gives medians and the
 * median of per-trial ratios to `bare`. Results go to `bench-results/cold-start.json`.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BenchConfig } from './config.js';
import { type ServerSpec, StdioDriver } from './driver.js';
import { HttpDriver } from './http-driver.js';
import { atMost, errorMessage, type MetricSummary, SDK_RATIO_PAIRS, showTarget, summarize, type Target } from './report.js';
import { formatNumber, formatRatio, formatTable, median } from './stats.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '..', '..');
/** The shipped library, bundled (the import times are those of the package's own entry points). */
const DIST = join(ROOT, 'dist');
const RESULTS_FILE = join(ROOT, 'bench-results', 'cold-start.json');

/** A server of the section: its name and the script serving each transport. */
interface ColdEntry {
  readonly name: string;
  readonly stdio: string;
  readonly http: string;
}

/** The servers compared; the first is the baseline. */
const ENTRIES: readonly ColdEntry[] = [
  { name: 'bare', stdio: 'bare-stdio.js', http: 'bare-http.js' },
  { name: 'mcpkit', stdio: 'mcpkit-minimal-stdio.js', http: 'mcpkit-minimal-http.js' },
  { name: 'official', stdio: 'official-stdio.js', http: 'official-http.js' },
  { name: 'official-v2', stdio: 'official-v2-stdio.js', http: 'official-v2-http.js' },
];

/** mcpkit entry points whose import time is measured in a fresh process. */
const IMPORTS: readonly string[] = [
  'index.js',
  'server/index.js',
  'client/index.js',
  'schema/index.js',
  'stdio/index.js',
  'http/index.js',
  'http/server/index.js',
  'http/client/index.js',
];

type Transport = 'stdio' | 'http';

interface ColdState {
  readonly name: string;
  readonly transport: Transport;
  readonly trialsMs: (number | null)[];
  readonly problems: string[];
}

function spec(entry: ColdEntry, transport: Transport): ServerSpec {
  const script = join(HERE, 'servers', transport === 'stdio' ? entry.stdio : entry.http);
  return { name: `${entry.name} (${transport})`, command: process.execPath, args: transport === 'stdio' ? [script] : [script, '--mode=json'], cwd: ROOT };
}

/** One trial: milliseconds from spawn to the first initialize answer. */
async function trial(entry: ColdEntry, transport: Transport, timeoutMs: number): Promise<number> {
  if (transport === 'stdio') {
    const { driver, coldStartMs } = await StdioDriver.start(spec(entry, transport), { timeoutMs });
    await driver.close();
    return coldStartMs;
  }
  const t0 = performance.now();
  const { driver } = await HttpDriver.start(spec(entry, transport), { timeoutMs });
  try {
    await driver.openSession(timeoutMs);
    return performance.now() - t0;
  } finally {
    await driver.close();
  }
}

/**
 * Milliseconds a fresh Node process takes to import `file` (a `file:` URL), measured inside
 * it around the `import()`. Throws when the process fails.
 */
export function importMs(file: string, timeoutMs: number): number {
  const code = `const t = performance.now(); await import(${JSON.stringify(file)}); process.stdout.write(String(performance.now() - t));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', timeout: timeoutMs });
  const ms = Number(out.trim());
  if (!Number.isFinite(ms)) throw new Error(`unexpected output ${JSON.stringify(out.slice(0, 100))}`);
  return ms;
}

/** Runs the section; resolves with its exit status (0, or 1 when a trial failed). */
export async function runColdStartBench(config: BenchConfig): Promise<number> {
  const trials = config.coldStarts;
  console.log(`mcpkit cold-start benchmark: spawn → first initialize answer, ${trials} trials per server and transport; import times of the entry points`);
  const states: ColdState[] = [];
  for (const transport of ['stdio', 'http'] as const) {
    for (const entry of ENTRIES) states.push({ name: entry.name, transport, trialsMs: [], problems: [] });
  }
  const importTimes: Record<string, (number | null)[]> = Object.fromEntries(IMPORTS.map((i) => [i, []]));
  const importProblems: string[] = [];
  for (let t = 0; t < trials; t++) {
    const order = t % 2 === 0 ? states : [...states].reverse();
    for (const s of order) {
      const entry = ENTRIES.find((e) => e.name === s.name)!;
      try {
        s.trialsMs[t] = await trial(entry, s.transport, config.timeoutMs);
      } catch (error) {
        s.trialsMs[t] = null;
        s.problems.push(`trial ${t + 1}: ${errorMessage(error)}`);
      }
    }
    for (const file of IMPORTS) {
      try {
        importTimes[file]!.push(importMs(pathToFileURL(join(DIST, file)).href, config.timeoutMs));
      } catch (error) {
        importTimes[file]!.push(null);
        importProblems.push(`import ${file}: ${errorMessage(error)}`);
      }
    }
    process.stderr.write(`  cold-start trial ${t + 1}/${trials}\n`);
  }

  const names = ENTRIES.map((e) => e.name);
  const pairs = SDK_RATIO_PAIRS.map(([a, b]) => `${a}/${b}`);
  const metrics: Record<string, MetricSummary> = {};
  const rows: string[][] = [['', ...names, ...pairs]];
  for (const transport of ['stdio', 'http'] as const) {
    const m = summarize(
      states.filter((s) => s.transport === transport),
      SDK_RATIO_PAIRS,
      `${transport}: spawn → initialize answer, ms (median of ${trials})`,
      'ms',
      true,
      (s) => s.trialsMs,
    );
    metrics[transport] = m;
    rows.push([m.label, ...names.map((n) => formatNumber(m.median[n] ?? null)), ...pairs.map((p) => formatRatio(m.ratios[p] ?? null))]);
  }
  console.log(formatTable(rows));
  const importRows: string[][] = [['mcpkit entry point', `import ms (median of ${trials}, fresh process)`]];
  const imports: Record<string, number | null> = {};
  for (const file of IMPORTS) {
    imports[file] = median(importTimes[file]!);
    importRows.push([file, formatNumber(imports[file]!)]);
  }
  console.log('\n' + formatTable(importRows));

  const targets: Target[] = [
    atMost('stdio: mcpkit cold start ≤ 1.3× bare', metrics['stdio']!.ratios['mcpkit/bare'] ?? null, 1.3),
    atMost('http: mcpkit cold start ≤ 1.3× bare', metrics['http']!.ratios['mcpkit/bare'] ?? null, 1.3),
  ];
  console.log('\nTargets (issue):');
  for (const t of targets) console.log(showTarget(t));
  const problems = [...states.flatMap((s) => s.problems.map((p) => `${s.name} (${s.transport}): ${p}`)), ...importProblems];
  for (const p of problems) console.log(`!! ${p}`);
  mkdirSync(dirname(RESULTS_FILE), { recursive: true });
  writeFileSync(
    RESULTS_FILE,
    JSON.stringify(
      {
        benchmark: 'cold-start',
        date: new Date().toISOString(),
        node: process.version,
        trials,
        servers: states,
        importTimes,
        imports,
        metrics,
        targets,
        problems,
      },
      null,
      2,
    ) + '\n',
  );
  console.log(`\nresults written to ${RESULTS_FILE}`);
  return problems.length > 0 ? 1 : 0;
}
