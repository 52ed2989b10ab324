/**
 * Benchmark settings from the command line and environment (`bench/run.ts`).
 *
 * Defaults give a full run (5 repetitions × 20k calls per scenario, both sections);
 * `--quick` shrinks every count for a smoke run; `BENCH_*` environment variables
 * override either.
 */

/** A part of the benchmark that can run on its own. */
export type BenchSection = 'stdio' | 'http' | 'payload' | 'cli' | 'client' | 'cold-start' | 'instructions' | 'scale' | 'runtimes' | 'pool' | 'otel' | 'gateway';

/** Every section, in the order they run. */
export const SECTIONS: readonly BenchSection[] = [
  'stdio',
  'http',
  'payload',
  'cli',
  'client',
  'cold-start',
  'instructions',
  'scale',
  'runtimes',
  'pool',
  'otel',
  'gateway',
];

/**
 * The sections a run without `--section` runs. `instructions` (valgrind, several minutes)
 * and `scale` (needs redis-server) run only when named, and so does `pool` (it starts 20
 * processes at once and then twenty one by one).
 */
export const DEFAULT_SECTIONS: readonly BenchSection[] = ['stdio', 'http', 'payload', 'cli', 'client', 'cold-start'];

/**
 * The client the HTTP section times `tools/call` with: `raw` (HTTP/1.1 on `node:net`,
 * the default) or `node-http` (`node:http` with a keep-alive agent, for comparison).
 */
export type HttpClientKind = 'raw' | 'node-http';

/** Every {@link HttpClientKind}, the default first. */
export const HTTP_CLIENTS: readonly HttpClientKind[] = ['raw', 'node-http'];

/** Everything a benchmark run is parameterized by. All counts are positive integers. */
export interface BenchConfig {
  /** Calls per timed run (one server, one in-flight level, one repetition). */
  readonly calls: number;
  /** Repetitions of the interleaved throughput runs. */
  readonly reps: number;
  /** Cold-start trials per server. */
  readonly coldStarts: number;
  /** Calls at 32 in flight between the two memory samples of the memory check. */
  readonly memoryCalls: number;
  /** Idle HTTP sessions opened for the memory-per-session measurement. */
  readonly sessions: number;
  /** Untimed calls at 32 in flight before timing (and before the first RSS sample). */
  readonly warmupCalls: number;
  /** Instructions section: calls counted per server and mode, at one in flight. */
  readonly instructionCalls: number;
  /** Instructions section: calls run under callgrind before counting starts. */
  readonly instructionWarmup: number;
  /** Gateway section: length of each timed run (one row, one in-flight level), in milliseconds. */
  readonly gatewayRunMs: number;
  /** Cap on any single run or server start, in milliseconds. */
  readonly timeoutMs: number;
  /** Cap on the whole benchmark, in milliseconds; remaining runs are skipped after it. */
  readonly deadlineMs: number;
  /** True for `--quick`. */
  readonly quick: boolean;
  /** Server names to bench (`--only=a,b` or `BENCH_ONLY`), or `null` for all. */
  readonly only: readonly string[] | null;
  /** Sections to run (`--section=stdio|http` or `BENCH_SECTION`), in {@link SECTIONS} order. */
  readonly sections: readonly BenchSection[];
  /** The HTTP section's client (`--http-driver=` or `BENCH_HTTP_DRIVER`). */
  readonly httpDriver: HttpClientKind;
  /** True for `--help`. */
  readonly help: boolean;
}

/** Usage text printed for `--help`. */
export const USAGE = `Usage: npm run bench [-- --quick] [-- --only=bare,official,mcpkit] [-- --section=stdio|http|payload|cli|client|cold-start|instructions|scale|runtimes|pool|otel|gateway]

Benchmarks MCP servers (bare ceiling, official SDK v1, mcpkit demo) with one echo tool,
over stdio and over Streamable HTTP (JSON and SSE response modes); the payload section
echoes 64 KiB and 1 MiB messages over the same transports (official v2 beside); the instructions
section counts the CPU instructions per HTTP call of each server, and per call of mcpkit's
Client beside the raw driver, under valgrind (a noise-free measure);
the cli section times the mcpkit command's start (time to first output, against node -e 0);
the client section drives the bare server with the raw driver, mcpkit's Client and the
official v1 and v2 clients (calls/s, client CPU per call, heap rows); the cold-start section
times spawn → first initialize answer of bare, mcpkit and official servers (stdio and HTTP);
the scale section counts Redis round trips per call of sessions shared by three instances;
the runtimes section runs mcpkit on node:http, Bun.serve and Deno.serve against a bare loop
on each (calls/s and server CPU per call, as ratios); the pool section connects a client pool
of 20 stdio demo servers against the slowest single connect, with memory per idle connection.
the otel section times mcpkit/otel over HTTP at 32 in flight: uninstrumented, mode off,
propagation, and spans on with a no-op exporter (calls/s and the cost per call against
uninstrumented).
the gateway section times tools/call direct and through mcpkit proxy (and mcpkit gateway), mcp-use's
server.proxy(), supergateway and mcp-proxy, stdio and HTTP upstreams, 1 and 32 in flight (p50
latency, calls/s, ratios against direct and the best third-party proxy; bench-results/gateway.json).
Writes bench-results/stdio.json, http.json, payload.json, cli.json, client.json, cold-start.json,
instructions.json, scale.json and pool.json.

Options:
  --quick            small counts for a smoke run
  --only=a,b         bench only these servers (bare-net, bare's answers on node:net
                     without node:http, runs in the http and instructions sections
                     only when named here)
  --section=s,…      run these sections: stdio, http, payload, cli, client, cold-start,
                     instructions, scale, runtimes, pool, otel, gateway
                     (default: stdio,http,payload,cli,client,cold-start)
  --http-driver=d    client timing the HTTP calls: raw (node:net, default) or node-http
  --help             this text

Environment (overrides the defaults and --quick):
  BENCH_CALLS         calls per timed run           (default 20000, quick 2000)
  BENCH_REPS          interleaved repetitions       (default 5, quick 2)
  BENCH_COLD_STARTS   cold-start trials per server  (default 10, quick 3; also the cli and cold-start sections' trials)
  BENCH_MEMORY_CALLS  calls in the memory check     (default 100000, quick 10000; also the client heap rows)
  BENCH_SESSIONS      idle HTTP sessions opened     (default 1000, quick 1000)
  BENCH_WARMUP        warm-up calls                 (default 2000, quick 500)
  BENCH_INSTR_CALLS   counted calls, instructions   (default 30000, quick 2000)
  BENCH_INSTR_WARMUP  warm-up calls, instructions   (default 10000, quick 5000)
  BENCH_GATEWAY_MS    gateway section: ms per run   (default 2000, quick 500)
  BENCH_TIMEOUT_S     cap per run / server start    (default 300)
  BENCH_DEADLINE_S    cap on the whole benchmark    (default 1800)
  BENCH_ONLY          same as --only
  BENCH_SECTION       same as --section
  BENCH_HTTP_DRIVER   same as --http-driver`;

function positiveInt(env: Readonly<Record<string, string | undefined>>, key: string, fallback: number): number {
  const raw = env[key];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${key} must be a positive integer, got ${JSON.stringify(raw)}`);
  return n;
}

function nameList(raw: string, what = '--only / BENCH_ONLY'): string[] {
  const names = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (names.length === 0) throw new Error(`${what} needs at least one name`);
  return names;
}

function httpClient(raw: string): HttpClientKind {
  const name = raw.trim();
  if (!(HTTP_CLIENTS as readonly string[]).includes(name)) {
    throw new Error(`unknown HTTP driver ${JSON.stringify(raw)}; known: ${HTTP_CLIENTS.join(', ')}`);
  }
  return name as HttpClientKind;
}

function sectionList(raw: string): BenchSection[] {
  const wanted = nameList(raw, '--section / BENCH_SECTION');
  for (const name of wanted) {
    if (!(SECTIONS as readonly string[]).includes(name)) throw new Error(`unknown section ${JSON.stringify(name)}; known: ${SECTIONS.join(', ')}`);
  }
  return SECTIONS.filter((s) => wanted.includes(s));
}

/**
 * Reads the settings. Called once by `run.ts` with `process.argv.slice(2)` and
 * `process.env`. Throws `Error` on an unknown option or a malformed value.
 */
export function parseConfig(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): BenchConfig {
  let quick = false;
  let help = false;
  let only: string[] | null = env['BENCH_ONLY'] ? nameList(env['BENCH_ONLY']) : null;
  let sections: readonly BenchSection[] = env['BENCH_SECTION'] ? sectionList(env['BENCH_SECTION']) : DEFAULT_SECTIONS;
  let httpDriver: HttpClientKind = env['BENCH_HTTP_DRIVER'] ? httpClient(env['BENCH_HTTP_DRIVER']) : 'raw';
  for (const arg of argv) {
    if (arg === '--quick') quick = true;
    else if (arg === '--help' || arg === '-h') help = true;
    else if (arg.startsWith('--only=')) only = nameList(arg.slice('--only='.length));
    else if (arg.startsWith('--section=')) sections = sectionList(arg.slice('--section='.length));
    else if (arg.startsWith('--http-driver=')) httpDriver = httpClient(arg.slice('--http-driver='.length));
    else throw new Error(`unknown option ${JSON.stringify(arg)} (see --help)`);
  }
  return {
    calls: positiveInt(env, 'BENCH_CALLS', quick ? 2000 : 20000),
    reps: positiveInt(env, 'BENCH_REPS', quick ? 2 : 5),
    coldStarts: positiveInt(env, 'BENCH_COLD_STARTS', quick ? 3 : 10),
    memoryCalls: positiveInt(env, 'BENCH_MEMORY_CALLS', quick ? 10000 : 100000),
    sessions: positiveInt(env, 'BENCH_SESSIONS', 1000),
    warmupCalls: positiveInt(env, 'BENCH_WARMUP', quick ? 500 : 2000),
    instructionCalls: positiveInt(env, 'BENCH_INSTR_CALLS', quick ? 2000 : 30_000),
    instructionWarmup: positiveInt(env, 'BENCH_INSTR_WARMUP', quick ? 5000 : 10000),
    gatewayRunMs: positiveInt(env, 'BENCH_GATEWAY_MS', quick ? 500 : 2000),
    timeoutMs: positiveInt(env, 'BENCH_TIMEOUT_S', 300) * 1000,
    deadlineMs: positiveInt(env, 'BENCH_DEADLINE_S', 1800) * 1000,
    quick,
    only,
    sections,
    httpDriver,
    help,
  };
}
