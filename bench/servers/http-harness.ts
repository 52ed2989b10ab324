/**
 * What every HTTP benchmark server (`bare-http`, `official-http`, `mcpkit-http`) shares:
 * its command line, the start-up line the driver waits for, the way it ends with its
 * parent, and the bench-only forced-GC hook used by the memory measurements.
 *
 * Protocol with the driver (`bench/http-driver.ts`):
 *   - arguments `--mode=json|sse` (default `json`) and `--port=N` (default 0: any free
 *     port); the server binds 127.0.0.1 only;
 *   - first stdout line `LISTENING http://127.0.0.1:PORT/mcp`;
 *   - the server exits when its stdin ends (the driver closing it, or the driver dying)
 *     and on SIGTERM;
 *   - with `BENCH_GC=1` in the environment and `--expose-gc` on the command line, a
 *     SIGUSR2 makes it run full garbage collections and write one stderr line
 *     `BENCH_GC {"rssKb":…,"heapUsedKb":…,"heapTotalKb":…,"externalKb":…,"oldBeforeGcKb":…,"oldAfterGcKb":…,"majorGcs":…}`
 *     ({@link GC_REPORT_PREFIX}; the last three say what reached V8's old generation between
 *     two reports, see {@link GcReport}).
 *
 * Nothing here is part of mcpkit; it is test scaffolding for the benchmark only.
 */

/** How an HTTP benchmark server answers a POST carrying a request. */
export type ResponseMode = 'json' | 'sse';

/** The response modes, in the order the benchmark runs them. */
export const RESPONSE_MODES: readonly ResponseMode[] = ['json', 'sse'];

/** The loopback address every benchmark server binds. */
export const BENCH_HOST = '127.0.0.1';

/** The path every benchmark server serves MCP on. */
export const BENCH_PATH = '/mcp';

/** Prefix of the start-up line on stdout; the URL follows it. */
export const LISTENING_PREFIX = 'LISTENING ';

/** Prefix of the stderr line a forced GC reports; a JSON {@link GcReport} follows it. */
export const GC_REPORT_PREFIX = 'BENCH_GC ';

/** The env variable that turns the forced-GC hook on (value `1`). */
export const GC_ENV = 'BENCH_GC';

/** Memory figures of a server process right after forced garbage collections. */
export interface GcReport {
  /** Resident set size, kilobytes. */
  readonly rssKb: number;
  /** V8 heap in use, kilobytes. */
  readonly heapUsedKb: number;
  /** V8 heap reserved (in use or not), kilobytes. */
  readonly heapTotalKb: number;
  /** Memory of C++ objects bound to JS objects (buffers and such), kilobytes. */
  readonly externalKb: number;
  /**
   * Old-generation space in use when the report was asked for, before the forced
   * collections, kilobytes. Minus the previous report's {@link oldAfterGcKb}, with no
   * {@link majorGcs} in between, it is what young collections promoted (or V8 allocated old)
   * meanwhile: objects that outlived two scavenges, garbage a later mark-compact must find.
   */
  readonly oldBeforeGcKb?: number;
  /** Old-generation space in use after the forced collections, kilobytes. */
  readonly oldAfterGcKb?: number;
  /** Mark-compact collections V8 ran on its own (not forced) since the process started, as far as reported so far. */
  readonly majorGcs?: number;
}

/**
 * Parses the JSON that follows {@link GC_REPORT_PREFIX} on a report line. Called by the
 * HTTP and stdio drivers for each stderr line starting with the prefix. Returns `null`
 * when the text is not a report (bad JSON or a missing or non-numeric field); never
 * throws.
 */
export function parseGcReport(json: string): GcReport | null {
  let r: Partial<GcReport>;
  try {
    r = JSON.parse(json) as Partial<GcReport>;
  } catch {
    return null;
  }
  if (typeof r !== 'object' || r === null) return null;
  const { rssKb, heapUsedKb, heapTotalKb, externalKb, oldBeforeGcKb, oldAfterGcKb, majorGcs } = r;
  if (typeof rssKb !== 'number' || typeof heapUsedKb !== 'number' || typeof heapTotalKb !== 'number' || typeof externalKb !== 'number') return null;
  const old =
    typeof oldBeforeGcKb === 'number' && typeof oldAfterGcKb === 'number' && typeof majorGcs === 'number' ? { oldBeforeGcKb, oldAfterGcKb, majorGcs } : {};
  return { rssKb, heapUsedKb, heapTotalKb, externalKb, ...old };
}

/** The command line of a benchmark server. */
export interface ServerArgs {
  readonly mode: ResponseMode;
  readonly port: number;
}

/**
 * Parses `--mode=json|sse` and `--port=N`. Called once by each server's main code with
 * `process.argv.slice(2)`. Throws `Error` on an unknown argument or a bad value.
 */
export function parseServerArgs(argv: readonly string[]): ServerArgs {
  let mode: ResponseMode = 'json';
  let port = 0;
  for (const arg of argv) {
    if (arg.startsWith('--mode=')) {
      const m = arg.slice('--mode='.length);
      if (m !== 'json' && m !== 'sse') throw new Error(`--mode must be json or sse, got ${JSON.stringify(m)}`);
      mode = m;
    } else if (arg.startsWith('--port=')) {
      const p = Number(arg.slice('--port='.length));
      if (!Number.isInteger(p) || p < 0 || p > 65535) throw new Error(`--port must be 0..65535, got ${JSON.stringify(arg)}`);
      port = p;
    } else {
      throw new Error(`unknown argument ${JSON.stringify(arg)}`);
    }
  }
  return { mode, port };
}

/** The start-up line for a server listening on `port` (without the newline). */
export function listeningLine(port: number): string {
  return `${LISTENING_PREFIX}http://${BENCH_HOST}:${port}${BENCH_PATH}`;
}

/**
 * Prints the start-up line, installs the GC hook when asked for, and makes the process
 * exit when stdin ends or on SIGTERM, after `close` settles (at most 1 s). Called once
 * by each server after it listens. Never throws.
 */
export function announce(port: number, close: () => unknown): void {
  installGcHook();
  let ending = false;
  const end = (): void => {
    if (ending) return;
    ending = true;
    const quit = setTimeout(() => process.exit(0), 1000);
    quit.unref();
    Promise.resolve()
      .then(close)
      .catch(() => {})
      .finally(() => process.exit(0));
  };
  process.stdin.on('end', end);
  process.stdin.on('error', end);
  process.stdin.resume();
  process.once('SIGTERM', end);
  process.stdout.write(listeningLine(port) + '\n');
}

/**
 * Installs the SIGUSR2 handler described in the design note when `BENCH_GC=1`; without
 * `--expose-gc` it writes a report anyway, from an uncollected heap, and says so on
 * stderr once. Called by {@link announce} and by the stdio preload `gc-preload.ts`;
 * safe to call more than once. Never throws.
 */
export function installGcHook(): void {
  if (process.env[GC_ENV] !== '1' || installed) return;
  installed = true;
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) process.stderr.write('bench server: BENCH_GC=1 without --expose-gc; GC reports will not force a collection\n');
  const old = oldGenerationWatch();
  // the handler is in place before the start-up line: a SIGUSR2 without one kills the process
  process.on('SIGUSR2', () => {
    void old.then((watch) => {
      const oldBeforeGcKb = watch.usedKb();
      const majorGcs = watch.majorGcs();
      // Two collections a turn apart, so objects freed by finalizers or by work queued
      // behind the first one are gone too.
      gc?.();
      setImmediate(() => {
        gc?.();
        const m = process.memoryUsage();
        const report: GcReport = {
          rssKb: Math.round(m.rss / 1024),
          heapUsedKb: Math.round(m.heapUsed / 1024),
          heapTotalKb: Math.round(m.heapTotal / 1024),
          externalKb: Math.round(m.external / 1024),
          oldBeforeGcKb,
          oldAfterGcKb: watch.usedKb(),
          majorGcs,
        };
        process.stderr.write(GC_REPORT_PREFIX + JSON.stringify(report) + '\n');
      });
    });
  });
}

/** Old-generation figures: space in use now, and the mark-compacts V8 ran on its own so far. */
interface OldGenerationWatch {
  usedKb(): number;
  majorGcs(): number;
}

/** Starts counting unforced mark-compacts; `node:v8` and `node:perf_hooks` load here, off the cold-start path. */
async function oldGenerationWatch(): Promise<OldGenerationWatch> {
  const [{ getHeapSpaceStatistics }, { PerformanceObserver, constants }] = await Promise.all([import('node:v8'), import('node:perf_hooks')]);
  let major = 0;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const detail = (entry as { detail?: { kind?: number; flags?: number } }).detail;
      if (detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR && ((detail.flags ?? 0) & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED) === 0) major++;
    }
  }).observe({ entryTypes: ['gc'] });
  return {
    usedKb: () => Math.round((getHeapSpaceStatistics().find((space) => space.space_name === 'old_space')?.space_used_size ?? 0) / 1024),
    majorGcs: () => major,
  };
}

let installed = false;

/** What reached the old generation during a run between two {@link GcReport}s. */
export interface OldGenerationGrowth {
  /**
   * Bytes per call that young collections promoted (old space in use before the second
   * report's forced collections, minus after the first's). Null when V8 ran a mark-compact of
   * its own in between (it freed part of what was promoted) or a report lacks the figures.
   */
  readonly promotedBytesPerCall: number | null;
  /** Mark-compacts V8 ran on its own during the run; null when a report lacks the figure. */
  readonly majorGcs: number | null;
}

/** Reads {@link OldGenerationGrowth} off the reports taken before and after `calls` calls. Pure. */
export function oldGenerationGrowth(before: GcReport, after: GcReport, calls: number): OldGenerationGrowth {
  if (before.majorGcs === undefined || after.majorGcs === undefined || before.oldAfterGcKb === undefined || after.oldBeforeGcKb === undefined) {
    return { promotedBytesPerCall: null, majorGcs: null };
  }
  const majorGcs = after.majorGcs - before.majorGcs;
  const promotedBytesPerCall = majorGcs === 0 && calls > 0 ? (Math.max(0, after.oldBeforeGcKb - before.oldAfterGcKb) * 1024) / calls : null;
  return { promotedBytesPerCall, majorGcs };
}
