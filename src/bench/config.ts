/**
 * Benchmark settings from the command line and environment (`src/bench/run.ts`).
 *
 * Defaults give a full run (5 repetitions × 20k calls per scenario); `--quick` shrinks
 * every count for a smoke run; `BENCH_*` environment variables override either.
 */

/** Everything a benchmark run is parameterized by. All counts are positive integers. */
export interface BenchConfig {
  /** Calls per timed run (one server, one in-flight level, one repetition). */
  readonly calls: number;
  /** Repetitions of the interleaved throughput runs. */
  readonly reps: number;
  /** Cold-start trials per server. */
  readonly coldStarts: number;
  /** Calls at 32 in flight between the two RSS samples of the memory check. */
  readonly memoryCalls: number;
  /** Untimed calls at 32 in flight before timing (and before the first RSS sample). */
  readonly warmupCalls: number;
  /** Cap on any single run or server start, in milliseconds. */
  readonly timeoutMs: number;
  /** Cap on the whole benchmark, in milliseconds; remaining runs are skipped after it. */
  readonly deadlineMs: number;
  /** True for `--quick`. */
  readonly quick: boolean;
  /** Server names to bench (`--only=a,b` or `BENCH_ONLY`), or `null` for all. */
  readonly only: readonly string[] | null;
  /** True for `--help`. */
  readonly help: boolean;
}

/** Usage text printed for `--help`. */
export const USAGE = `Usage: npm run bench [-- --quick] [-- --only=bare,official,mcpkit]

Benchmarks stdio MCP servers (bare ceiling, official SDK v1, mcpkit demo) with one echo tool.
Writes bench-results/stdio.json.

Options:
  --quick            small counts for a smoke run
  --only=a,b         bench only these servers
  --help             this text

Environment (overrides the defaults and --quick):
  BENCH_CALLS         calls per timed run           (default 20000, quick 2000)
  BENCH_REPS          interleaved repetitions       (default 5, quick 2)
  BENCH_COLD_STARTS   cold-start trials per server  (default 10, quick 3)
  BENCH_MEMORY_CALLS  calls in the memory check     (default 100000, quick 10000)
  BENCH_WARMUP        warm-up calls                 (default 2000, quick 500)
  BENCH_TIMEOUT_S     cap per run / server start    (default 300)
  BENCH_DEADLINE_S    cap on the whole benchmark    (default 1800)
  BENCH_ONLY          same as --only`;

function positiveInt(env: Readonly<Record<string, string | undefined>>, key: string, fallback: number): number {
  const raw = env[key];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${key} must be a positive integer, got ${JSON.stringify(raw)}`);
  return n;
}

function nameList(raw: string): string[] {
  const names = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (names.length === 0) throw new Error('--only / BENCH_ONLY needs at least one server name');
  return names;
}

/**
 * Reads the settings. Called once by `run.ts` with `process.argv.slice(2)` and
 * `process.env`. Throws `Error` on an unknown option or a malformed value.
 */
export function parseConfig(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): BenchConfig {
  let quick = false;
  let help = false;
  let only: string[] | null = env['BENCH_ONLY'] ? nameList(env['BENCH_ONLY']) : null;
  for (const arg of argv) {
    if (arg === '--quick') quick = true;
    else if (arg === '--help' || arg === '-h') help = true;
    else if (arg.startsWith('--only=')) only = nameList(arg.slice('--only='.length));
    else throw new Error(`unknown option ${JSON.stringify(arg)} (see --help)`);
  }
  return {
    calls: positiveInt(env, 'BENCH_CALLS', quick ? 2000 : 20000),
    reps: positiveInt(env, 'BENCH_REPS', quick ? 2 : 5),
    coldStarts: positiveInt(env, 'BENCH_COLD_STARTS', quick ? 3 : 10),
    memoryCalls: positiveInt(env, 'BENCH_MEMORY_CALLS', quick ? 10000 : 100000),
    warmupCalls: positiveInt(env, 'BENCH_WARMUP', quick ? 500 : 2000),
    timeoutMs: positiveInt(env, 'BENCH_TIMEOUT_S', 300) * 1000,
    deadlineMs: positiveInt(env, 'BENCH_DEADLINE_S', 1800) * 1000,
    quick,
    only,
    help,
  };
}
