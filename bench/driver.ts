/**
 * A deliberately cheap raw JSON-RPC client that drives one MCP server over the child's
 * stdio, for the benchmark (`bench/run.ts`).
 *
 * Design note: the driver must cost the same against every server and as little as
 * possible, or its own work hides the server's. So it uses no SDK and no schemas:
 * request lines are serialized before the clock starts (one template, incrementing
 * ids), several requests freed by one stdout chunk go out in one write, and a response
 * line is only scanned for its `"id":` and for an `"error"` / `"isError":true` marker.
 * A full `JSON.parse` happens only on the slow paths (handshake, anything unexpected)
 * and on a sparse sample of responses, whose echoed text is checked so that a server
 * answering garbage quickly cannot win. Server CPU is read from `/proc/<pid>/stat` and
 * RSS from `/proc/<pid>/status`, so the measurements are Linux-only (elsewhere they are
 * `null`). Heap figures after a forced GC come from the bench GC hook: a server started
 * through {@link withGcHook} answers SIGUSR2 with one `BENCH_GC {…}` stderr line, which
 * the driver picks out of the stderr it already pipes ({@link StdioDriver.gcReport}). The child is spawned with `shell: false`; its pid is the process measured,
 * so the command should start the server directly (not through a wrapper like `npx`).
 */

import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { GcReport } from './servers/http-harness.js';
import { GC_ENV, GC_REPORT_PREFIX, parseGcReport } from './servers/http-harness.js';

/** The MCP protocol revision the driver asks for in `initialize`. */
export const PROTOCOL_VERSION = '2025-06-18';

/** The message every benchmark `echo` call sends (and expects back as text). */
export const ECHO_MESSAGE = 'hello from the mcpkit benchmark';

/** How to start one server under test. Plain data, so any stdio MCP server can be benched. */
export interface ServerSpec {
  /** Short label used in tables, ratios and JSON keys (e.g. `official`). */
  readonly name: string;
  /** Executable started with `shell: false` (usually `process.execPath`). */
  readonly command: string;
  /** Its arguments. */
  readonly args: readonly string[];
  /** Working directory; defaults to the driver's. */
  readonly cwd?: string;
  /** Environment; defaults to the driver's. */
  readonly env?: NodeJS.ProcessEnv;
}

/** What one timed batch of `tools/call echo` requests measured. */
export interface RunResult {
  /** Calls completed (equals the calls asked for; a failed run rejects instead). */
  readonly calls: number;
  /** Requests kept outstanding at once. */
  readonly inFlight: number;
  /** Wall time from the first write to the last response, in milliseconds. */
  readonly elapsedMs: number;
  /** `calls / elapsed`. */
  readonly callsPerSec: number;
  /** Server user+system CPU per call in microseconds (`null` without `/proc`). */
  readonly serverCpuUsPerCall: number | null;
  /** The driver's own user+system CPU per call in microseconds. */
  readonly driverCpuUsPerCall: number;
  /** Responses that were fully parsed and checked (the sample). */
  readonly checked: number;
}

/** Options for {@link StdioDriver.start}. */
export interface StartOptions {
  /** Give up (and kill the child) when no initialize response came within this time. */
  readonly timeoutMs: number;
}

const REQUEST_PREFIX = '{"jsonrpc":"2.0","id":';
/** What follows the id in a `tools/call echo` request line carrying `message`. */
function requestSuffix(message: string): string {
  return ',"method":"tools/call","params":{"name":"echo","arguments":{"message":' + JSON.stringify(message) + '}}}\n';
}
const REQUEST_SUFFIX = requestSuffix(ECHO_MESSAGE);
/** Every 1024th response is parsed in full and its echoed text compared. */
const SAMPLE_MASK = 1023;
const STDERR_TAIL_CHARS = 4096;
const INIT_ID = 0;
/** The compiled preload that installs the GC hook in a stdio server (`servers/gc-preload.ts`). */
const GC_PRELOAD = join(dirname(fileURLToPath(import.meta.url)), 'servers', 'gc-preload.js');

/**
 * Returns a copy of `spec` whose server answers SIGUSR2 with a forced-GC report: node
 * options `--expose-gc --import <gc-preload URL>` before its arguments and `BENCH_GC=1`
 * in its environment. Called by `run.ts` for the memory phase; `spec.command` must be a
 * `node` executable that runs the server itself (the options go to it). Never throws.
 */
export function withGcHook(spec: ServerSpec): ServerSpec {
  return {
    ...spec,
    args: ['--expose-gc', '--import', pathToFileURL(GC_PRELOAD).href, ...spec.args],
    env: { ...(spec.env ?? process.env), [GC_ENV]: '1' },
  };
}

let clockTicks: number | undefined;

/**
 * Clock ticks per second for `/proc/<pid>/stat` times (`getconf CLK_TCK`, else 100).
 * Called by the CPU readers; never throws.
 */
export function clockTicksPerSecond(): number {
  if (clockTicks === undefined) {
    clockTicks = 100;
    try {
      const n = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8', timeout: 2000 }).trim());
      if (Number.isInteger(n) && n > 0) clockTicks = n;
    } catch {
      // keep the Linux default
    }
  }
  return clockTicks;
}

/**
 * Parses the text of `/proc/<pid>/stat` and returns utime+stime in clock ticks.
 * The command name (field 2) may hold spaces and parentheses, so fields are counted
 * from the last `)`. Throws `Error` when the text is not in that format.
 */
export function parseProcStatTicks(stat: string): number {
  const close = stat.lastIndexOf(')');
  if (close < 0) throw new Error('unrecognised /proc/<pid>/stat format');
  // After ") " come fields 3.. : state(3) ... utime(14) stime(15).
  const fields = stat.slice(close + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) throw new Error('unrecognised /proc/<pid>/stat format');
  return utime + stime;
}

/**
 * Reads a `kB` line such as `VmRSS:` from the text of `/proc/<pid>/status` and returns
 * kilobytes, or `null` when the key is absent. Never throws.
 */
export function parseProcStatusKb(status: string, key: string): number | null {
  const at = status.indexOf(key + ':');
  if (at < 0) return null;
  const m = /^\s*(\d+)\s*kB/.exec(status.slice(at + key.length + 1, at + key.length + 40));
  return m === null ? null : Number(m[1]);
}

/**
 * Finds the integer id of a compact JSON-RPC response line without parsing it: the
 * number after the last `"id":`. Returns -1 when there is none or it is not a
 * non-negative integer (the caller then falls back to `JSON.parse`). Called per
 * response on the hot path; never throws.
 */
export function scanResponseId(line: string): number {
  const at = line.lastIndexOf('"id":');
  if (at < 0) return -1;
  let i = at + 5;
  while (line.charCodeAt(i) === 32) i++;
  let id = 0;
  const start = i;
  for (let c = line.charCodeAt(i); c >= 48 && c <= 57; c = line.charCodeAt(++i)) id = id * 10 + (c - 48);
  if (i === start) return -1;
  const next = line.charCodeAt(i);
  // The number must end the value: `,` `}` or space.
  return next === 44 || next === 125 || next === 32 ? id : -1;
}

/**
 * Builds the request lines for ids `firstId .. firstId+count-1` (each ending in `\n`).
 * Called before a timed run so that serialization stays out of the measurement.
 */
export function buildEchoRequests(firstId: number, count: number, message: string = ECHO_MESSAGE): string[] {
  const suffix = message === ECHO_MESSAGE ? REQUEST_SUFFIX : requestSuffix(message);
  const lines = new Array<string>(count);
  for (let i = 0; i < count; i++) lines[i] = REQUEST_PREFIX + (firstId + i) + suffix;
  return lines;
}

/**
 * Checks a fully parsed response to an echo call. Returns a description of what is
 * wrong, or `null` when it is a proper result echoing `message` (default {@link ECHO_MESSAGE}).
 */
export function checkEchoResponse(msg: unknown, message: string = ECHO_MESSAGE): string | null {
  if (typeof msg !== 'object' || msg === null) return 'response is not an object';
  const m = msg as { error?: { message?: unknown }; result?: { content?: unknown; isError?: unknown } };
  if (m.error !== undefined) return `error response: ${JSON.stringify(m.error)}`;
  const result = m.result;
  if (typeof result !== 'object' || result === null) return 'response has no result';
  if (result.isError === true) return `tool error: ${JSON.stringify(result.content)}`;
  const first = Array.isArray(result.content) ? (result.content[0] as { type?: unknown; text?: unknown } | undefined) : undefined;
  if (first?.type !== 'text' || first.text !== message) return `unexpected echo content: ${JSON.stringify(result.content).slice(0, 200)}`;
  return null;
}

/** Current RSS of a process in kilobytes, or `null` without `/proc`. Never throws. */
export function readRssKb(pid: number): number | null {
  try {
    return parseProcStatusKb(readFileSync(`/proc/${pid}/status`, 'latin1'), 'VmRSS');
  } catch {
    return null;
  }
}

/** Peak RSS (`VmHWM`) of a process in kilobytes, or `null` without `/proc`. Never throws. */
export function readPeakRssKb(pid: number): number | null {
  try {
    return parseProcStatusKb(readFileSync(`/proc/${pid}/status`, 'latin1'), 'VmHWM');
  } catch {
    return null;
  }
}

/** Total user+system CPU of a process in microseconds, or `null` without `/proc`. Never throws. */
export function readCpuUs(pid: number): number | null {
  try {
    return (parseProcStatTicks(readFileSync(`/proc/${pid}/stat`, 'latin1')) * 1e6) / clockTicksPerSecond();
  } catch {
    return null;
  }
}

type LineHandler = (line: string) => void;

/**
 * One running server process and the raw JSON-RPC conversation with it.
 *
 * Created only by {@link StdioDriver.start}. One operation at a time: a run must settle
 * before the next starts. Always {@link StdioDriver.close} it (also after a failure).
 */
export class StdioDriver {
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #spec: ServerSpec;
  #rest = '';
  #stderrTail = '';
  #stderrRest = '';
  #onGcReport: ((report: GcReport) => void) | null = null;
  #onLine: LineHandler;
  #afterChunk: (() => void) | null = null;
  /** Rejects the operation in progress; set while one runs. */
  #fail: ((error: Error) => void) | null = null;
  #exited: Error | null = null;
  readonly #exitPromise: Promise<void>;
  #nextId = INIT_ID + 1;

  private constructor(spec: ServerSpec, child: ChildProcessWithoutNullStreams) {
    this.#spec = spec;
    this.#child = child;
    this.#onLine = ignoreLine;
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => this.#onData(chunk));
    child.stderr.on('data', (chunk: string) => this.#onStderr(chunk));
    // A dead child makes writes fail with EPIPE; the exit handler reports it.
    child.stdin.on('error', () => {});
    this.#exitPromise = new Promise<void>((resolve) => {
      child.once('error', (error) => {
        this.#exited = new Error(`${spec.name}: cannot start ${spec.command}: ${error.message}`);
        this.#fail?.(this.#exited);
        resolve();
      });
      child.once('exit', (code, signal) => {
        this.#exited ??= new Error(
          `${spec.name}: server exited (${signal ?? `code ${code}`})` + (this.#stderrTail ? `; stderr:\n${this.#stderrTail.trimEnd()}` : ''),
        );
        this.#fail?.(this.#exited);
        resolve();
      });
    });
  }

  /**
   * Spawns the server (`shell: false`), sends `initialize` at once, waits for its
   * response, then sends `notifications/initialized`. Resolves with the driver and the
   * cold-start time (spawn to initialize response, ms). Rejects with `Error` when the
   * process cannot start, exits, answers with an error, or is silent past `timeoutMs`;
   * the child is then already being closed.
   */
  static async start(spec: ServerSpec, options: StartOptions): Promise<{ driver: StdioDriver; coldStartMs: number }> {
    const t0 = performance.now();
    const child = spawn(spec.command, spec.args as string[], {
      cwd: spec.cwd,
      env: spec.env ?? process.env,
      shell: false,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const driver = new StdioDriver(spec, child);
    const init = JSON.stringify({
      jsonrpc: '2.0',
      id: INIT_ID,
      method: 'initialize',
      params: {
        protocolVersion: PROTOCOL_VERSION,
        capabilities: {},
        clientInfo: { name: 'mcpkit-bench-driver', version: '1.0.0' },
      },
    });
    try {
      const response = await driver.#request(init + '\n', INIT_ID, options.timeoutMs, 'initialize');
      const coldStartMs = performance.now() - t0;
      const m = response as { error?: unknown; result?: { protocolVersion?: unknown } };
      if (m.error !== undefined) throw new Error(`${spec.name}: initialize failed: ${JSON.stringify(m.error)}`);
      if (typeof m.result?.protocolVersion !== 'string') throw new Error(`${spec.name}: initialize result has no protocolVersion`);
      child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
      return { driver, coldStartMs };
    } catch (error) {
      await driver.close();
      throw error;
    }
  }

  /** The server's process id (the process whose CPU and RSS are read). */
  get pid(): number {
    return this.#child.pid ?? -1;
  }

  /** The last few KB the server wrote to stderr (for error messages). */
  get stderrTail(): string {
    return this.#stderrTail;
  }

  /** Current server RSS in kilobytes, or `null` without `/proc`. */
  rssKb(): number | null {
    return readRssKb(this.pid);
  }

  /** Peak server RSS in kilobytes, or `null` without `/proc`. */
  peakRssKb(): number | null {
    return readPeakRssKb(this.pid);
  }

  /**
   * Asks the server for a forced GC and its memory figures: sends SIGUSR2 and resolves
   * with the next `BENCH_GC` stderr line. The server must have been started from
   * {@link withGcHook}; one without the hook dies of the signal, and this rejects with
   * the exit error. Rejects with `Error` on exit or when no report came within
   * `timeoutMs`. One operation at a time, like {@link StdioDriver.run}.
   */
  gcReport(timeoutMs: number): Promise<GcReport> {
    if (this.#exited !== null) return Promise.reject(this.#exited);
    return new Promise<GcReport>((resolve, reject) => {
      let settled = false;
      const done = (error: Error | null, report?: GcReport): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.#onGcReport = null;
        this.#fail = null;
        if (error !== null) reject(error);
        else resolve(report!);
      };
      const timer = setTimeout(() => done(new Error(`${this.#spec.name}: no BENCH_GC report within ${timeoutMs} ms`)), timeoutMs);
      this.#onGcReport = (report): void => done(null, report);
      this.#fail = (error: Error): void => done(error);
      this.#child.kill('SIGUSR2');
    });
  }

  /**
   * Sends one `tools/call echo` and checks the full response. Used to verify a server
   * before timing it. Rejects with `Error` on a wrong answer, exit or timeout.
   */
  async verifyEcho(timeoutMs: number): Promise<void> {
    const id = this.#nextId++;
    const line = buildEchoRequests(id, 1)[0]!;
    const response = await this.#request(line, id, timeoutMs, 'tools/call echo');
    const problem = checkEchoResponse(response);
    if (problem !== null) throw new Error(`${this.#spec.name}: ${problem}`);
  }

  /**
   * Performs `calls` echo calls of `message` (default {@link ECHO_MESSAGE}) keeping
   * `inFlight` outstanding, and measures them. Rejects with `Error` when the server exits,
   * returns an error or a wrong echo, answers an unknown id, or the run exceeds `timeoutMs`
   * (the server may then still hold requests: close the driver rather than reusing it).
   */
  run(calls: number, inFlight: number, timeoutMs: number, message: string = ECHO_MESSAGE): Promise<RunResult> {
    if (!Number.isInteger(calls) || calls < 1) throw new RangeError('calls must be a positive integer');
    if (!Number.isInteger(inFlight) || inFlight < 1) throw new RangeError('inFlight must be a positive integer');
    if (this.#exited !== null) return Promise.reject(this.#exited);
    const firstId = this.#nextId;
    this.#nextId += calls;
    const lines = buildEchoRequests(firstId, calls, message);
    const answered = new Uint8Array(calls);
    const stdin = this.#child.stdin;
    const name = this.#spec.name;
    const pid = this.pid;

    return new Promise<RunResult>((resolve, reject) => {
      let sent = 0;
      let received = 0;
      let freed = 0;
      let checked = 0;
      let settled = false;
      let t0 = 0;
      let cpu0: number | null = null;
      let driverCpu0: NodeJS.CpuUsage | null = null;

      const finish = (error: Error | null): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.#onLine = ignoreLine;
        this.#afterChunk = null;
        this.#fail = null;
        if (error !== null) {
          reject(error);
          return;
        }
        const elapsedMs = performance.now() - t0;
        const cpu1 = readCpuUs(pid);
        const driverCpu = process.cpuUsage(driverCpu0 ?? undefined);
        resolve({
          calls,
          inFlight,
          elapsedMs,
          callsPerSec: (calls * 1000) / elapsedMs,
          serverCpuUsPerCall: cpu0 === null || cpu1 === null ? null : (cpu1 - cpu0) / calls,
          driverCpuUsPerCall: (driverCpu.user + driverCpu.system) / calls,
          checked,
        });
      };

      const slowPath = (line: string): void => {
        let msg: { id?: unknown; method?: unknown };
        try {
          msg = JSON.parse(line) as { id?: unknown; method?: unknown };
        } catch {
          finish(new Error(`${name}: unparseable output line: ${line.slice(0, 200)}`));
          return;
        }
        if (typeof msg.method === 'string' && msg.id === undefined) return; // server notification (e.g. logging)
        const idx = typeof msg.id === 'number' ? msg.id - firstId : -1;
        if (typeof msg.method === 'string' || idx < 0 || idx >= calls || answered[idx] !== 0) {
          finish(new Error(`${name}: unexpected message: ${line.slice(0, 200)}`));
          return;
        }
        const problem = checkEchoResponse(msg, message);
        if (problem !== null) {
          finish(new Error(`${name}: ${problem}`));
          return;
        }
        answered[idx] = 1;
        checked++;
        received++;
        freed++;
      };

      this.#onLine = (line: string): void => {
        if (settled) return;
        const idx = scanResponseId(line) - firstId;
        if (
          idx < 0 ||
          idx >= calls ||
          answered[idx] !== 0 ||
          (idx & SAMPLE_MASK) === 0 ||
          line.indexOf('"error"') !== -1 ||
          line.indexOf('"isError":true') !== -1
        ) {
          slowPath(line);
        } else {
          answered[idx] = 1;
          received++;
          freed++;
        }
        if (received === calls) finish(null);
      };

      this.#afterChunk = (): void => {
        if (settled || freed === 0) return;
        let end = sent + freed;
        if (end > calls) end = calls;
        freed = 0;
        if (end === sent) return;
        let batch = lines[sent]!;
        for (let i = sent + 1; i < end; i++) batch += lines[i]!;
        sent = end;
        stdin.write(batch);
      };

      this.#fail = (error: Error): void => finish(error);
      const timer = setTimeout(
        () => finish(new Error(`${name}: run timed out after ${timeoutMs} ms (${received}/${calls} answered, ${inFlight} in flight)`)),
        timeoutMs,
      );

      const first = Math.min(inFlight, calls);
      let batch = '';
      for (let i = 0; i < first; i++) batch += lines[i]!;
      sent = first;
      cpu0 = readCpuUs(pid);
      driverCpu0 = process.cpuUsage();
      t0 = performance.now();
      stdin.write(batch);
    });
  }

  /**
   * Ends the server: closes its stdin, then sends SIGTERM after 2 s and SIGKILL after
   * 3 s if it is still running. Resolves once it has exited. Idempotent; never rejects.
   */
  async close(): Promise<void> {
    this.#fail = null;
    this.#onLine = ignoreLine;
    this.#afterChunk = null;
    this.#onGcReport = null;
    if (this.#exited === null) {
      this.#child.stdin.end();
      const term = setTimeout(() => this.#child.kill('SIGTERM'), 2000);
      const kill = setTimeout(() => this.#child.kill('SIGKILL'), 3000);
      await this.#exitPromise;
      clearTimeout(term);
      clearTimeout(kill);
    }
    await this.#exitPromise;
  }

  /** Writes one request line and resolves with the parsed response carrying `id`. */
  #request(line: string, id: number, timeoutMs: number, what: string): Promise<unknown> {
    if (this.#exited !== null) return Promise.reject(this.#exited);
    return new Promise<unknown>((resolve, reject) => {
      let settled = false;
      const done = (error: Error | null, value?: unknown): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.#onLine = ignoreLine;
        this.#fail = null;
        if (error !== null) reject(error);
        else resolve(value);
      };
      const timer = setTimeout(
        () =>
          done(
            new Error(`${this.#spec.name}: no ${what} response within ${timeoutMs} ms` + (this.#stderrTail ? `; stderr:\n${this.#stderrTail.trimEnd()}` : '')),
          ),
        timeoutMs,
      );
      this.#onLine = (text: string): void => {
        let msg: { id?: unknown };
        try {
          msg = JSON.parse(text) as { id?: unknown };
        } catch {
          done(new Error(`${this.#spec.name}: unparseable output line: ${text.slice(0, 200)}`));
          return;
        }
        if (msg.id === id) done(null, msg);
        // anything else (logging notifications, banners as JSON) is ignored
      };
      this.#fail = (error: Error): void => done(error);
      this.#child.stdin.write(line);
    });
  }

  /** Keeps the stderr tail and hands complete `BENCH_GC` lines to the waiting report. */
  #onStderr(chunk: string): void {
    const tail = this.#stderrTail + chunk;
    this.#stderrTail = tail.length > STDERR_TAIL_CHARS ? tail.slice(tail.length - STDERR_TAIL_CHARS) : tail;
    const text = this.#stderrRest + chunk;
    let start = 0;
    let nl = text.indexOf('\n');
    while (nl !== -1) {
      if (text.startsWith(GC_REPORT_PREFIX, start)) {
        const report = parseGcReport(text.slice(start + GC_REPORT_PREFIX.length, nl));
        if (report !== null) this.#onGcReport?.(report);
      }
      start = nl + 1;
      nl = text.indexOf('\n', start);
    }
    const rest = text.slice(start);
    // An over-long unterminated line cannot be a report; drop it rather than grow.
    this.#stderrRest = rest.length > STDERR_TAIL_CHARS ? '' : rest;
  }

  #onData(chunk: string): void {
    let start = 0;
    let nl = chunk.indexOf('\n');
    if (nl === -1) {
      this.#rest += chunk;
      return;
    }
    if (this.#rest.length > 0) {
      const line = this.#rest + chunk.slice(0, nl);
      this.#rest = '';
      if (line.length > 1) this.#onLine(line);
      start = nl + 1;
      nl = chunk.indexOf('\n', start);
    }
    while (nl !== -1) {
      if (nl - start > 1) this.#onLine(chunk.slice(start, nl));
      start = nl + 1;
      nl = chunk.indexOf('\n', start);
    }
    if (start < chunk.length) this.#rest = chunk.slice(start);
    this.#afterChunk?.();
  }
}

function ignoreLine(): void {}
