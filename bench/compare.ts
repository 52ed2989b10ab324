/**
 * The instructions section's server rows for several builds of mcpkit in one run: what
 * `scripts/bench-compare.mjs <revA> <revB> …` runs once it has built each revision.
 *
 * Design note: a comparison of two instruction counts taken in separate runs carries
 * whatever changed between the runs (Node, valgrind, the driver); here one driver (this
 * build's `HttpDriver` and `count()`, `http-instructions.ts`) counts every tree's own bench
 * server (`<tree>/build/bench/servers/mcpkit-http.js`, which imports that tree's dist/
 * through the package's self-reference), the jobs interleaved tree by tree (A B A B …, two
 * at a time by default) so the machine's drift, if any, hits every tree alike. Each row is the median
 * of `--reps` counts; the deltas are against the first tree.
 *
 * Usage: node build/bench/compare.js [--quick] [--reps=N] [--payload] [--only=mcpkit,mcpkit-2026]
 *          [--modes=json,sse] [--parallel=N (default 2)]
 *          label=/path/to/tree label=/path/to/tree …
 * (BENCH_INSTR_CALLS / BENCH_INSTR_WARMUP / BENCH_TIMEOUT_S as for `npm run bench`.)
 * Results are printed as a table and written to `bench-results/compare.json`.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inParallel } from './callgrind.js';
import { type BenchConfig, parseConfig } from './config.js';
import { type HttpServerEntry, selectHttpServers } from './http-bench.js';
import { type Count, count, PAYLOAD, type Workload } from './http-instructions.js';
import { errorMessage } from './report.js';
import { RESPONSE_MODES, type ResponseMode } from './servers/http-harness.js';
import { formatNumber, formatTable, median } from './stats.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '..', '..');
const RESULTS_FILE = join(ROOT, 'bench-results', 'compare.json');
/** The servers whose rows are mcpkit's (the others do not change with mcpkit's source). */
const MCPKIT_SERVERS = ['mcpkit', 'mcpkit-2026'];

interface Tree {
  readonly label: string;
  readonly root: string;
}

interface Job {
  readonly tree: Tree;
  readonly entry: HttpServerEntry;
  readonly mode: ResponseMode;
  readonly work: Workload;
  readonly row: string;
}

interface Args {
  readonly trees: Tree[];
  readonly reps: number;
  readonly payload: boolean;
  readonly modes: readonly ResponseMode[];
  readonly parallel: number;
  readonly rest: string[];
}

function positive(arg: string, prefix: string): number {
  const n = Number(arg.slice(prefix.length));
  if (!Number.isInteger(n) || n < 1) throw new Error(`${prefix.slice(0, -1)} must be a positive integer, got ${JSON.stringify(arg)}`);
  return n;
}

function parseArgs(argv: readonly string[]): Args {
  const trees: Tree[] = [];
  const rest: string[] = [];
  let reps = 1;
  let payload = false;
  let modes: readonly ResponseMode[] = RESPONSE_MODES;
  let parallel = 2;
  for (const arg of argv) {
    if (arg.startsWith('--reps=')) reps = positive(arg, '--reps=');
    else if (arg.startsWith('--parallel=')) parallel = positive(arg, '--parallel=');
    else if (arg.startsWith('--modes=')) {
      const wanted = arg.slice('--modes='.length).split(',');
      for (const m of wanted)
        if (!(RESPONSE_MODES as readonly string[]).includes(m)) throw new Error(`unknown mode ${JSON.stringify(m)}; known: ${RESPONSE_MODES.join(', ')}`);
      modes = RESPONSE_MODES.filter((m) => wanted.includes(m));
    } else if (arg === '--payload') payload = true;
    else if (arg.startsWith('--')) rest.push(arg);
    else {
      const eq = arg.indexOf('=');
      if (eq < 1) throw new Error(`expected label=/path/to/tree, got ${JSON.stringify(arg)}`);
      trees.push({ label: arg.slice(0, eq), root: resolve(arg.slice(eq + 1)) });
    }
  }
  if (trees.length < 1) throw new Error('name at least one tree: label=/path/to/tree');
  return { trees, reps, payload, modes, parallel, rest };
}

/** The rows to count, per tree, in an order that alternates the trees. */
function jobsOf(trees: readonly Tree[], config: BenchConfig, { reps, payload, modes }: Args): Job[] {
  const entries = selectHttpServers(config.only ?? MCPKIT_SERVERS);
  const small: Workload = { bytes: 0, warmup: config.instructionWarmup, calls: config.instructionCalls };
  const large: Workload = {
    bytes: PAYLOAD.bytes,
    warmup: config.quick ? PAYLOAD.quickWarmup : PAYLOAD.warmup,
    calls: config.quick ? PAYLOAD.quickCalls : PAYLOAD.calls,
  };
  const kinds: { entry: HttpServerEntry; mode: ResponseMode; work: Workload; row: string }[] = [];
  for (const mode of modes) for (const entry of entries) kinds.push({ entry, mode, work: small, row: `${mode} ${entry.name}` });
  if (payload)
    for (const mode of modes)
      for (const entry of entries.filter((e) => e.name === 'mcpkit')) kinds.push({ entry, mode, work: large, row: `${mode} 64 KiB echo ${entry.name}` });
  const jobs: Job[] = [];
  for (let rep = 0; rep < reps; rep++) {
    // odd repetitions walk the trees backwards, so neither tree always goes first
    const order = rep % 2 === 0 ? trees : [...trees].reverse();
    for (const kind of kinds) {
      for (const tree of order) {
        const script = join(tree.root, 'build', 'bench', 'servers', `${kind.entry.script.split(/[\\/]/).pop()}`);
        jobs.push({ ...kind, tree, entry: { ...kind.entry, script } });
      }
    }
  }
  return jobs;
}

const args = parseArgs(process.argv.slice(2));
const { trees, reps, rest } = args;
const config = parseConfig(['--section=instructions', ...rest], process.env);
const jobs = jobsOf(trees, config, args);
for (const job of jobs) if (!existsSync(job.entry.script)) throw new Error(`${job.tree.label}: ${job.entry.script} is not built`);
console.log(
  `instructions per call, ${trees.map((t) => `${t.label} (${t.root})`).join(' vs ')}; ${config.instructionWarmup} warm-up, ${config.instructionCalls} counted calls; ${reps} repetition(s)`,
);
const results: (Count & { readonly tree: string; readonly row: string })[] = [];
await inParallel(jobs, args.parallel, async (job) => {
  let c: Count;
  try {
    c = await count(job.entry, job.mode, config, job.work);
  } catch (error) {
    c = { name: job.entry.name, mode: job.mode, bytes: job.work.bytes, instructionsPerCall: null, problem: errorMessage(error) };
  }
  results.push({ ...c, tree: job.tree.label, row: job.row });
  process.stderr.write(`  ${job.tree.label.padEnd(12)} ${job.row.padEnd(28)} ${c.problem ?? `${formatNumber(c.instructionsPerCall, 0)} instructions/call`}\n`);
});

const rows = [...new Set(jobs.map((j) => j.row))];
const table: string[][] = [['instructions per call', ...trees.map((t) => t.label), ...trees.slice(1).map((t) => `${t.label} vs ${trees[0]!.label}`)]];
const medians: Record<string, Record<string, number | null>> = {};
for (const row of rows) {
  const of = (tree: Tree): number | null => median(results.filter((r) => r.row === row && r.tree === tree.label).map((r) => r.instructionsPerCall));
  medians[row] = Object.fromEntries(trees.map((t) => [t.label, of(t)]));
  const base = of(trees[0]!);
  const deltas = trees.slice(1).map((t) => {
    const v = of(t);
    return base === null || v === null ? '—' : `${v >= base ? '+' : ''}${(((v - base) / base) * 100).toFixed(2)} %`;
  });
  table.push([row, ...trees.map((t) => formatNumber(of(t), 0)), ...deltas]);
}
console.log('\n' + formatTable(table));
const failed = results.filter((r) => r.problem !== null);
for (const r of failed) console.log(`!! ${r.tree} ${r.row}: ${r.problem}`);
mkdirSync(dirname(RESULTS_FILE), { recursive: true });
writeFileSync(
  RESULTS_FILE,
  JSON.stringify(
    {
      benchmark: 'compare',
      date: new Date().toISOString(),
      node: process.version,
      trees,
      config: { warmupCalls: config.instructionWarmup, calls: config.instructionCalls, reps },
      medians,
      results,
    },
    null,
    2,
  ) + '\n',
);
console.log(`results written to ${RESULTS_FILE}`);
process.exitCode = failed.length > 0 ? 1 : 0;
