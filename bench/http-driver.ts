/**
 * A deliberately cheap raw client that drives one Streamable HTTP MCP server process,
 * for the HTTP section of the benchmark (`bench/http-bench.ts`).
 *
 * Design note: like the stdio driver (`driver.ts`), it must cost the same against
 * every server and as little as possible, so it uses no SDK and no schemas. The timed
 * `tools/call` loop ({@link HttpSession.run}) has two clients. The default, `raw`
 * (`raw-http.ts`), speaks HTTP/1.1 on `node:net` sockets: one keep-alive connection
 * per request kept in flight, opened before the clock starts and closed after the run,
 * each request pre-serialized (head and body) into one `Buffer` written at once, and
 * responses parsed incrementally from latin1 strings. The other, `node-http`
 * (`BENCH_HTTP_DRIVER=node-http`, kept for comparison), is `node:http` with a fresh
 * keep-alive `Agent` per run whose `maxSockets` equals the requests in flight; `node:http`
 * costs about as much CPU per call as a bare server, which capped what the benchmark could
 * see on two cores. The handshakes (`initialize`, `notifications/initialized`,
 * `server/discover`, the idle sessions) always use `node:http`: they are not timed per
 * call. A response is classified by its `Content-Type`: an `application/json` body is
 * the message; in a `text/event-stream` body, when it is the simple shape (each event
 * with data ends after one data line, and exactly one of them is not empty, such as an
 * optional priming event then the response), that data is the message, found by
 * scanning for `data:` lines without splitting the body ({@link sseSingleData}). The
 * message is only scanned for its `"id":` (which must be the id sent on that exchange)
 * and for `"error"` / `"isError":true` markers; a full `JSON.parse` happens on slow
 * paths (several events, anything unexpected) and on every 1024th call, whose echoed
 * text is checked. Server CPU comes from
 * `/proc/<pid>/stat`, RSS from `/proc/<pid>/status` (Linux only, else `null`), and
 * heap figures after a forced GC from the bench-only hook of `servers/http-harness.ts`
 * (SIGUSR2 → one `BENCH_GC {…}` line on stderr).
 *
 * The server process is spawned with `shell: false`, must print
 * `LISTENING http://HOST:PORT/PATH` as its first stdout line and should exit when its
 * stdin ends.
 */

import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { spawn } from 'node:child_process';
import type { IncomingMessage, RequestOptions } from 'node:http';
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { toError } from '../src/jsonrpc/errors.js';
import type { HttpClientKind } from './config.js';
import type { RunResult, ServerSpec } from './driver.js';
import { checkEchoResponse, ECHO_MESSAGE, PROTOCOL_VERSION, readCpuUs, readPeakRssKb, readRssKb, scanResponseId } from './driver.js';
import type { RawConnectionEvents } from './raw-http.js';
import { buildRequests, latin1ToUtf8, RawHttpConnection, requestHeadPrefix } from './raw-http.js';
import type { GcReport, ResponseMode } from './servers/http-harness.js';
import { GC_REPORT_PREFIX, LISTENING_PREFIX, parseGcReport } from './servers/http-harness.js';

/** What one timed batch of `tools/call echo` requests over HTTP measured. */
export interface HttpRunResult extends RunResult {
  /** Responses that came as `application/json` bodies. */
  readonly jsonResponses: number;
  /** Responses that came as `text/event-stream` bodies. */
  readonly sseResponses: number;
}

/** Options for {@link HttpDriver.start}. */
export interface HttpStartOptions {
  /** Give up (and kill the child) when no `LISTENING` line came within this time. */
  readonly timeoutMs: number;
  /** The client timed runs use (see the design note); `raw` when absent. */
  readonly client?: HttpClientKind;
}

/** Request headers as the driver sends them (lower-case names). */
type RequestHeaders = Readonly<Record<string, string>>;

/** A response body reduced to what the driver needs. */
interface Exchange {
  readonly status: number;
  readonly kind: ResponseMode | null;
  readonly contentType: string;
  readonly sessionId: string | null;
  readonly body: string;
}

const ACCEPT = 'application/json, text/event-stream';
const REQUEST_PREFIX = '{"jsonrpc":"2.0","id":';
/** What follows the id in a 2025-era `tools/call echo` body carrying `message`. */
export function echoSuffix(message: string): string {
  return ',"method":"tools/call","params":{"name":"echo","arguments":{"message":' + JSON.stringify(message) + '}}}';
}
const REQUEST_SUFFIX = echoSuffix(ECHO_MESSAGE);
const INITIALIZED = Buffer.from('{"jsonrpc":"2.0","method":"notifications/initialized"}');
/** Every 1024th response is parsed in full and its echoed text compared. */
const SAMPLE_MASK = 1023;
const STDERR_TAIL_CHARS = 4096;
const INIT_ID = 0;

/**
 * The request bodies for ids `firstId .. firstId+count-1` as strings; `suffix` is what
 * follows the id (the 2025-era `tools/call echo` by default). Called before a timed run
 * so that serialization stays out of the measurement.
 */
export function echoBodyTexts(firstId: number, count: number, suffix: string = REQUEST_SUFFIX): string[] {
  const bodies = new Array<string>(count);
  for (let i = 0; i < count; i++) bodies[i] = REQUEST_PREFIX + (firstId + i) + suffix;
  return bodies;
}

/**
 * The same bodies as {@link echoBodyTexts}, as `Buffer`s (the `node-http` client sends
 * these). Called before a timed run.
 */
export function buildEchoBodies(firstId: number, count: number, suffix: string = REQUEST_SUFFIX): Buffer[] {
  const bodies = new Array<Buffer>(count);
  for (let i = 0; i < count; i++) bodies[i] = Buffer.from(REQUEST_PREFIX + (firstId + i) + suffix);
  return bodies;
}

/** The stateless revision (2026-07-28): no session, every request carries its `_meta`. */
export const STATELESS_VERSION = '2026-07-28';
/** The required per-request fields only (`clientInfo` is a SHOULD; the driver sends none, like the 2025-era calls). */
const STATELESS_META = JSON.stringify({
  'io.modelcontextprotocol/protocolVersion': STATELESS_VERSION,
  'io.modelcontextprotocol/clientCapabilities': {},
});
/** The rest of a stateless-era `tools/call echo` body after its id. */
const STATELESS_SUFFIX =
  ',"method":"tools/call","params":{"name":"echo","arguments":{"message":' + JSON.stringify(ECHO_MESSAGE) + '},"_meta":' + STATELESS_META + '}}';

/**
 * The data payloads of the events in an SSE body, in order (multi-line data joined with
 * `\n`; comments, `event:`, `id:` and `retry:` lines skipped; events with no data line
 * or only an empty payload, such as priming events, left out). Accepts LF and CRLF line
 * ends. Called on every SSE response; never throws.
 */
export function sseDataPayloads(body: string): string[] {
  const out: string[] = [];
  let data: string | null = null;
  let start = 0;
  const n = body.length;
  while (start <= n) {
    let end = body.indexOf('\n', start);
    if (end === -1) end = n;
    const lineEnd = end > start && body.charCodeAt(end - 1) === 13 ? end - 1 : end;
    if (lineEnd === start) {
      // blank line: dispatch
      if (data !== null && data.length > 0) out.push(data);
      data = null;
    } else if (body.startsWith('data:', start)) {
      const from = body.charCodeAt(start + 5) === 32 ? start + 6 : start + 5;
      const piece = body.slice(from, lineEnd);
      data = data === null ? piece : data + '\n' + piece;
    }
    start = end + 1;
  }
  // An event not followed by a blank line is incomplete and, per SSE, dropped.
  return out;
}

/**
 * The data of the one SSE event in `body` that carries any, when the body has the simple
 * shape servers send for one response: every `data:` line is the last line of its event
 * (a blank line follows), and exactly one of them is not empty (an empty one is a
 * priming event). Returns `null` for anything else (no data, several events with data,
 * multi-line data, fields after the data, an unterminated event); callers then fall
 * back to {@link sseDataPayloads}. Accepts LF and CRLF line ends. Called per SSE
 * response on the hot path; never throws.
 */
export function sseSingleData(body: string): string | null {
  let payload: string | null = null;
  let at = body.indexOf('data:');
  while (at !== -1) {
    if (at !== 0 && body.charCodeAt(at - 1) !== 10) {
      at = body.indexOf('data:', at + 5); // inside a line
      continue;
    }
    const from = body.charCodeAt(at + 5) === 32 ? at + 6 : at + 5;
    const nl = body.indexOf('\n', at + 5);
    if (nl === -1) return null;
    const end = nl > from && body.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
    const next = body.charCodeAt(nl + 1);
    if (next !== 10 && !(next === 13 && body.charCodeAt(nl + 2) === 10)) return null;
    if (end > from) {
      if (payload !== null) return null;
      payload = body.slice(from, end);
    }
    at = body.indexOf('data:', nl + 1);
  }
  return payload;
}

/**
 * Classifies a `Content-Type` header value: `json`, `sse`, or `null` for anything
 * else. Never throws.
 */
export function responseKind(contentType: string | undefined): ResponseMode | null {
  if (contentType === undefined) return null;
  if (contentType.startsWith('application/json')) return 'json';
  if (contentType.startsWith('text/event-stream')) return 'sse';
  return null;
}

/**
 * The JSON-RPC messages in a response body of the given kind, fully parsed. Used on
 * slow paths. Throws `SyntaxError` when a payload is not JSON.
 */
export function parseMessages(kind: ResponseMode, body: string): unknown[] {
  if (kind === 'json') {
    const v: unknown = JSON.parse(body);
    return Array.isArray(v) ? v : [v];
  }
  return sseDataPayloads(body).map((p) => JSON.parse(p) as unknown);
}

/** The response to `id` among parsed messages, or `undefined`. */
function findResponse(messages: readonly unknown[], id: number): Record<string, unknown> | undefined {
  for (const m of messages) {
    if (typeof m === 'object' && m !== null && (m as { id?: unknown }).id === id && (m as { method?: unknown }).method === undefined) {
      return m as Record<string, unknown>;
    }
  }
  return undefined;
}

/** Collects a response body as text and resolves with the {@link Exchange}. */
function collect(res: IncomingMessage): Promise<Exchange> {
  return new Promise<Exchange>((resolve, reject) => {
    let body = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      body += chunk;
    });
    res.on('error', reject);
    res.on('end', () => {
      const contentType = res.headers['content-type'] ?? '';
      const sid = res.headers['mcp-session-id'];
      resolve({
        status: res.statusCode ?? 0,
        kind: responseKind(contentType),
        contentType,
        sessionId: typeof sid === 'string' ? sid : null,
        body,
      });
    });
  });
}

/**
 * One running HTTP server process. Created only by {@link HttpDriver.start}; always
 * {@link HttpDriver.close} it (also after a failure). Sessions opened on it
 * ({@link HttpDriver.openSession}) are used one operation at a time each.
 */
export class HttpDriver {
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #spec: ServerSpec;
  readonly #client: HttpClientKind;
  #url: URL | null = null;
  #stdoutRest = '';
  #stderrRest = '';
  #stderrTail = '';
  #onListening: ((url: string) => void) | null = null;
  #onGcReport: ((report: GcReport) => void) | null = null;
  /** Rejects the operations in progress when the process exits. */
  readonly #failures = new Set<(error: Error) => void>();
  #exited: Error | null = null;
  readonly #exitPromise: Promise<void>;

  private constructor(spec: ServerSpec, child: ChildProcessWithoutNullStreams, client: HttpClientKind) {
    this.#spec = spec;
    this.#client = client;
    this.#child = child;
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => this.#onStdout(chunk));
    child.stderr.on('data', (chunk: string) => this.#onStderr(chunk));
    child.stdin.on('error', () => {});
    this.#exitPromise = new Promise<void>((resolve) => {
      child.once('error', (error) => {
        this.#exited = new Error(`${spec.name}: cannot start ${spec.command}: ${error.message}`);
        this.#failAll(this.#exited);
        resolve();
      });
      child.once('exit', (code, signal) => {
        this.#exited ??= new Error(
          `${spec.name}: server exited (${signal ?? `code ${code}`})` + (this.#stderrTail ? `; stderr:\n${this.#stderrTail.trimEnd()}` : ''),
        );
        this.#failAll(this.#exited);
        resolve();
      });
    });
  }

  /**
   * Spawns the server (`shell: false`) and waits for its `LISTENING` line. Resolves
   * with the driver and the start time (spawn to that line, ms). Rejects with `Error`
   * when the process cannot start, exits, prints something else first, or is silent
   * past `timeoutMs`; the child is then already being closed.
   */
  static async start(spec: ServerSpec, options: HttpStartOptions): Promise<{ driver: HttpDriver; startMs: number }> {
    const t0 = performance.now();
    const child = spawn(spec.command, spec.args as string[], {
      cwd: spec.cwd,
      env: spec.env ?? process.env,
      shell: false,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const driver = new HttpDriver(spec, child, options.client ?? 'raw');
    try {
      await driver.#guard(options.timeoutMs, 'LISTENING line', (resolve, reject) => {
        driver.#onListening = (line: string): void => {
          driver.#onListening = null;
          if (!line.startsWith(LISTENING_PREFIX)) {
            reject(new Error(`${spec.name}: expected a ${LISTENING_PREFIX.trim()} line first, got ${JSON.stringify(line.slice(0, 200))}`));
            return;
          }
          try {
            const url = new URL(line.slice(LISTENING_PREFIX.length).trim());
            if (url.protocol !== 'http:') throw new Error('not an http: URL');
            driver.#url = url;
            resolve(undefined);
          } catch (error) {
            reject(new Error(`${spec.name}: bad ${LISTENING_PREFIX.trim()} line ${JSON.stringify(line)}: ${(error as Error).message}`));
          }
        };
      });
      return { driver, startMs: performance.now() - t0 };
    } catch (error) {
      await driver.close();
      throw error;
    }
  }

  /** The MCP endpoint the server announced. */
  get url(): URL {
    if (this.#url === null) throw new Error('HttpDriver: not started');
    return this.#url;
  }

  /** The client timed runs use: `raw` (`node:net`) or `node-http`. */
  get client(): HttpClientKind {
    return this.#client;
  }

  /** The server's label. */
  get name(): string {
    return this.#spec.name;
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
   * Asks the server for a forced GC and its memory figures (SIGUSR2, then the next
   * `BENCH_GC` stderr line). The server must run with `BENCH_GC=1` (and `--expose-gc`
   * for a real collection); a server without the hook dies of the signal, and this
   * rejects with the exit error. Rejects with `Error` on exit or timeout.
   */
  gcReport(timeoutMs: number): Promise<GcReport> {
    return this.#guard<GcReport>(timeoutMs, 'BENCH_GC report', (resolve) => {
      this.#onGcReport = (report): void => {
        this.#onGcReport = null;
        resolve(report);
      };
      this.#child.kill('SIGUSR2');
    }).finally(() => {
      this.#onGcReport = null;
    });
  }

  /**
   * Opens an MCP session: `initialize` (protocol {@link PROTOCOL_VERSION}), then
   * `notifications/initialized` carrying the `Mcp-Session-Id` the server returned.
   * Rejects with `Error` on a non-2xx status, an error response, an unparseable body,
   * a missing session id, exit or timeout.
   */
  async openSession(timeoutMs: number): Promise<HttpSession> {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      return await this.#openSession(agent, timeoutMs);
    } finally {
      agent.destroy();
    }
  }

  /**
   * The stateless era (2026-07-28) of the same server: checks `server/discover` and returns
   * a pseudo-session whose calls carry the per-request `_meta` and the `MCP-Protocol-Version`,
   * `Mcp-Method` and `Mcp-Name` headers instead of a session id (its `id` is empty).
   * Rejects with `Error` when the server does not serve that era, on exit or timeout.
   */
  async openStatelessSession(timeoutMs: number): Promise<HttpSession> {
    const name = this.#spec.name;
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const discover = Buffer.from(`{"jsonrpc":"2.0","id":${INIT_ID},"method":"server/discover","params":{"_meta":${STATELESS_META}}}`);
      const base: RequestHeaders = { 'content-type': 'application/json', accept: ACCEPT, 'mcp-protocol-version': STATELESS_VERSION };
      const ex = await this.#exchange(agent, { ...base, 'mcp-method': 'server/discover' }, discover, timeoutMs, 'server/discover response');
      if (ex.status !== 200 || ex.kind === null) throw new Error(`${name}: server/discover answered HTTP ${ex.status}: ${ex.body.slice(0, 200)}`);
      const response = findResponse(parseMessages(ex.kind, ex.body), INIT_ID) as { result?: { supportedVersions?: unknown } } | undefined;
      const versions = response?.result?.supportedVersions;
      if (!Array.isArray(versions) || !versions.includes(STATELESS_VERSION))
        throw new Error(`${name}: server/discover does not offer ${STATELESS_VERSION}: ${ex.body.slice(0, 200)}`);
      return new HttpSession(this, '', STATELESS_VERSION, { ...base, 'mcp-method': 'tools/call', 'mcp-name': 'echo' }, ex.kind, STATELESS_SUFFIX);
    } finally {
      agent.destroy();
    }
  }

  /**
   * Opens `count` sessions as {@link openSession} does, `concurrency` at a time over a
   * keep-alive agent with that many sockets. Resolves with them in completion order;
   * rejects with the first failure (the others are abandoned) or after `timeoutMs`.
   */
  async openSessions(count: number, concurrency: number, timeoutMs: number): Promise<HttpSession[]> {
    if (!Number.isInteger(count) || count < 1) throw new RangeError('count must be a positive integer');
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError('concurrency must be a positive integer');
    const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
    const sessions: HttpSession[] = [];
    let started = 0;
    const worker = async (): Promise<void> => {
      while (started < count) {
        started++;
        sessions.push(await this.#openSession(agent, timeoutMs));
      }
    };
    try {
      await this.#guard<void>(timeoutMs, `${count} sessions`, (resolve, reject) => {
        const workers: Promise<void>[] = [];
        for (let i = 0; i < Math.min(concurrency, count); i++) workers.push(worker());
        Promise.all(workers).then(() => resolve(undefined), reject);
      });
      return sessions;
    } finally {
      started = count; // stops the workers after a failure or timeout
      agent.destroy();
    }
  }

  /**
   * Ends the server: closes its stdin, then sends SIGTERM after 2 s and SIGKILL after
   * 3 s if it is still running. Resolves once it has exited. Idempotent; never rejects.
   */
  async close(): Promise<void> {
    this.#onListening = null;
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

  /**
   * The end of the server's stderr without the GC report lines (at most the last 1,000
   * characters, trimmed), for failure messages; empty when there is nothing else.
   */
  diagnosticStderr(): string {
    const text = this.#stderrTail
      .split('\n')
      .filter((line) => !line.startsWith(GC_REPORT_PREFIX))
      .join('\n')
      .trim();
    return text.length > 1000 ? text.slice(text.length - 1000) : text;
  }

  /** The error the process exited with, or `null` while it runs. */
  get exitError(): Error | null {
    return this.#exited;
  }

  /**
   * Runs `body` with a timer and the process-exit watch: the promise rejects on exit or
   * after `timeoutMs` (message names `what`). Used by every operation of the driver
   * and its sessions.
   * @internal
   */
  guard<T>(timeoutMs: number, what: string, body: (resolve: (v: T) => void, reject: (e: Error) => void) => void): Promise<T> {
    return this.#guard(timeoutMs, what, body);
  }

  #guard<T>(timeoutMs: number, what: string, body: (resolve: (v: T) => void, reject: (e: Error) => void) => void): Promise<T> {
    if (this.#exited !== null) return Promise.reject(this.#exited);
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const done = (error: Error | null, value?: T): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.#failures.delete(onExit);
        if (error !== null) reject(error);
        else resolve(value as T);
      };
      const onExit = (error: Error): void => done(error);
      const timer = setTimeout(
        () => done(new Error(`${this.#spec.name}: no ${what} within ${timeoutMs} ms` + (this.#stderrTail ? `; stderr:\n${this.#stderrTail.trimEnd()}` : ''))),
        timeoutMs,
      );
      this.#failures.add(onExit);
      try {
        body(
          (v) => done(null, v),
          (e) => done(e),
        );
      } catch (error) {
        done(toError(error));
      }
    });
  }

  async #openSession(agent: Agent, timeoutMs: number): Promise<HttpSession> {
    const name = this.#spec.name;
    const init = Buffer.from(
      JSON.stringify({
        jsonrpc: '2.0',
        id: INIT_ID,
        method: 'initialize',
        params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'mcpkit-bench-driver', version: '1.0.0' } },
      }),
    );
    const initHeaders: RequestHeaders = { 'content-type': 'application/json', accept: ACCEPT };
    const ex = await this.#exchange(agent, initHeaders, init, timeoutMs, 'initialize response');
    if (ex.status !== 200) throw new Error(`${name}: initialize answered HTTP ${ex.status}: ${ex.body.slice(0, 200)}`);
    if (ex.kind === null) throw new Error(`${name}: initialize answered Content-Type ${JSON.stringify(ex.contentType)}`);
    const response = findResponse(parseMessages(ex.kind, ex.body), INIT_ID) as { error?: unknown; result?: { protocolVersion?: unknown } } | undefined;
    if (response === undefined) throw new Error(`${name}: no initialize response in ${ex.body.slice(0, 200)}`);
    if (response.error !== undefined) throw new Error(`${name}: initialize failed: ${JSON.stringify(response.error)}`);
    const version = response.result?.protocolVersion;
    if (typeof version !== 'string') throw new Error(`${name}: initialize result has no protocolVersion`);
    if (ex.sessionId === null) throw new Error(`${name}: initialize response has no Mcp-Session-Id header`);
    const headers: RequestHeaders = {
      'content-type': 'application/json',
      accept: ACCEPT,
      'mcp-protocol-version': version,
      'mcp-session-id': ex.sessionId,
    };
    const ack = await this.#exchange(agent, headers, INITIALIZED, timeoutMs, 'initialized acknowledgement');
    if (ack.status < 200 || ack.status > 299) throw new Error(`${name}: notifications/initialized answered HTTP ${ack.status}: ${ack.body.slice(0, 200)}`);
    return new HttpSession(this, ex.sessionId, version, headers, ex.kind);
  }

  /** One POST and its collected response, under the guard. */
  #exchange(agent: Agent, headers: RequestHeaders, body: Buffer, timeoutMs: number, what: string): Promise<Exchange> {
    const url = this.url;
    return this.#guard<Exchange>(timeoutMs, what, (resolve, reject) => {
      const req = request({ agent, host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers }, (res) => {
        collect(res).then(resolve, reject);
      });
      req.on('error', (error) => reject(new Error(`${this.#spec.name}: ${what}: ${error.message}`)));
      req.end(body);
    });
  }

  #failAll(error: Error): void {
    for (const f of [...this.#failures]) f(error);
  }

  #onStdout(chunk: string): void {
    if (this.#onListening === null && this.#url !== null) return; // later stdout is ignored
    const text = this.#stdoutRest + chunk;
    const nl = text.indexOf('\n');
    if (nl === -1) {
      this.#stdoutRest = text.length > STDERR_TAIL_CHARS ? text.slice(0, STDERR_TAIL_CHARS) : text;
      return;
    }
    this.#stdoutRest = '';
    const line = text.slice(0, nl).replace(/\r$/, '');
    this.#onListening?.(line);
  }

  #onStderr(chunk: string): void {
    const tail = this.#stderrTail + chunk;
    this.#stderrTail = tail.length > STDERR_TAIL_CHARS ? tail.slice(tail.length - STDERR_TAIL_CHARS) : tail;
    const text = this.#stderrRest + chunk;
    let start = 0;
    let nl = text.indexOf('\n');
    while (nl !== -1) {
      if (text.startsWith(GC_REPORT_PREFIX, start)) this.#gcLine(text.slice(start + GC_REPORT_PREFIX.length, nl));
      start = nl + 1;
      nl = text.indexOf('\n', start);
    }
    const rest = text.slice(start);
    this.#stderrRest = rest.length > STDERR_TAIL_CHARS ? '' : rest;
  }

  #gcLine(json: string): void {
    const report = parseGcReport(json);
    if (report !== null) this.#onGcReport?.(report);
  }
}

/** Counts and checks the responses of one run; shared by both clients. */
/** What the calls of one run send after their ids, and the text they must echo. */
interface EchoCalls {
  readonly suffix: string;
  readonly message: string;
}

class EchoCheck {
  readonly #firstId: number;
  readonly #expect: ResponseMode | undefined;
  /** True when bodies are latin1 strings of UTF-8 bytes (the raw client). */
  readonly #latin1: boolean;
  /** The text every echo must return. */
  readonly #message: string;
  checked = 0;
  sse = 0;
  json = 0;

  constructor(firstId: number, expect: ResponseMode | undefined, latin1: boolean, message: string) {
    this.#firstId = firstId;
    this.#expect = expect;
    this.#latin1 = latin1;
    this.#message = message;
  }

  /**
   * Checks the response to call `index` cheaply (id scan and error markers), in full on
   * the sample and on anything unusual. Returns what is wrong, or `null`.
   */
  check(index: number, status: number, contentType: string | undefined, body: string): string | null {
    if (status !== 200) return `call answered HTTP ${status}: ${this.#text(body).slice(0, 200)}`;
    const kind = responseKind(contentType);
    if (kind === null) return `call answered Content-Type ${JSON.stringify(contentType)}`;
    if (this.#expect !== undefined && kind !== this.#expect) return `call answered ${contentType} where ${this.#expect} was expected`;
    let message: string | null;
    if (kind === 'sse') {
      this.sse++;
      message = sseSingleData(body);
    } else {
      this.json++;
      message = body;
    }
    if (
      message === null ||
      (index & SAMPLE_MASK) === 0 ||
      scanResponseId(message) !== this.#firstId + index ||
      message.indexOf('"error"') !== -1 ||
      message.indexOf('"isError":true') !== -1
    ) {
      return this.#full(index, kind, this.#text(body));
    }
    return null;
  }

  #text(body: string): string {
    return this.#latin1 ? latin1ToUtf8(body) : body;
  }

  /** Full check of one response body. */
  #full(index: number, kind: ResponseMode, body: string): string | null {
    let messages: unknown[];
    try {
      messages = parseMessages(kind, body);
    } catch {
      return `unparseable ${kind} response body: ${body.slice(0, 200)}`;
    }
    const response = findResponse(messages, this.#firstId + index);
    if (response === undefined) return `no response with id ${this.#firstId + index} in: ${body.slice(0, 200)}`;
    const problem = checkEchoResponse(response, this.#message);
    if (problem !== null) return problem;
    this.checked++;
    return null;
  }
}

/**
 * One open MCP session on an {@link HttpDriver}'s server. Created by
 * {@link HttpDriver.openSession}. One operation at a time; a run must settle before
 * the next starts.
 */
export class HttpSession {
  readonly #driver: HttpDriver;
  readonly #headers: RequestHeaders;
  #nextId = INIT_ID + 1;
  /** The `Mcp-Session-Id` the server assigned. */
  readonly id: string;
  /** The protocol revision the server answered `initialize` with. */
  readonly protocolVersion: string;
  /** How the server answered `initialize` (`json` or `sse`). */
  readonly initializeKind: ResponseMode;
  /** What follows the id in each request body (the stateless era adds its `_meta`). */
  readonly #suffix: string;
  /** The raw client's request head up to `Content-Length: `, built on first use. */
  #headPrefix: string | null = null;

  /** @internal Created by {@link HttpDriver.openSession}. */
  constructor(driver: HttpDriver, id: string, protocolVersion: string, headers: RequestHeaders, initializeKind: ResponseMode, suffix: string = REQUEST_SUFFIX) {
    this.#driver = driver;
    this.id = id;
    this.protocolVersion = protocolVersion;
    this.#headers = headers;
    this.initializeKind = initializeKind;
    this.#suffix = suffix;
  }

  /**
   * Sends one `tools/call echo` and checks the full response. Used to verify a server
   * before timing it. Resolves with the kind of body it answered with; rejects with
   * `Error` on a wrong answer, exit or timeout.
   */
  async verifyEcho(timeoutMs: number): Promise<ResponseMode> {
    const r = await this.run(1, 1, timeoutMs);
    return r.sseResponses === 1 ? 'sse' : 'json';
  }

  /**
   * Performs `calls` echo calls keeping `inFlight` outstanding, with the driver's client
   * ({@link HttpDriver.client}), and measures them. The raw client opens `inFlight`
   * keep-alive connections before the clock starts (one request outstanding on each;
   * a connection the server ends with `Connection: close` is replaced); the `node-http`
   * client uses a fresh keep-alive agent with `inFlight` sockets. Both close their
   * connections when the run settles. With `expect`, every response must come in that
   * body kind. Rejects with `Error` when the server exits, cannot be connected to, closes
   * a connection with a request outstanding, answers malformed HTTP, a non-200 status,
   * an unknown body kind, an error or a wrong echo or id, or the run exceeds `timeoutMs`.
   * Throws `RangeError` on a non-positive count. With `message`, the calls echo it instead
   * of {@link ECHO_MESSAGE} (the payload section; 2025-era sessions only: `RangeError` on a
   * stateless one).
   */
  run(calls: number, inFlight: number, timeoutMs: number, expect?: ResponseMode, message?: string): Promise<HttpRunResult> {
    if (!Number.isInteger(calls) || calls < 1) throw new RangeError('calls must be a positive integer');
    if (!Number.isInteger(inFlight) || inFlight < 1) throw new RangeError('inFlight must be a positive integer');
    if (message !== undefined && this.#suffix !== REQUEST_SUFFIX) throw new RangeError('a run with its own message needs a 2025-era session');
    const firstId = this.#nextId;
    this.#nextId += calls;
    const echo = { suffix: message === undefined ? this.#suffix : echoSuffix(message), message: message ?? ECHO_MESSAGE };
    return this.#driver.client === 'raw'
      ? this.#runRaw(firstId, calls, inFlight, timeoutMs, expect, echo)
      : this.#runNodeHttp(firstId, calls, inFlight, timeoutMs, expect, echo);
  }

  /** The figures of a finished run. */
  static #result(calls: number, inFlight: number, check: EchoCheck, t0: number, cpu0: number | null, pid: number, driverCpu0: NodeJS.CpuUsage): HttpRunResult {
    const elapsedMs = performance.now() - t0;
    const cpu1 = readCpuUs(pid);
    const driverCpu = process.cpuUsage(driverCpu0);
    return {
      calls,
      inFlight,
      elapsedMs,
      callsPerSec: (calls * 1000) / elapsedMs,
      serverCpuUsPerCall: cpu0 === null || cpu1 === null ? null : (cpu1 - cpu0) / calls,
      driverCpuUsPerCall: (driverCpu.user + driverCpu.system) / calls,
      checked: check.checked,
      jsonResponses: check.json,
      sseResponses: check.sse,
    };
  }

  /** The run over {@link RawHttpConnection}s (the default client). */
  #runRaw(firstId: number, calls: number, inFlight: number, timeoutMs: number, expect: ResponseMode | undefined, echo: EchoCalls): Promise<HttpRunResult> {
    const driver = this.#driver;
    const name = driver.name;
    const url = driver.url;
    const pid = driver.pid;
    const host = url.hostname;
    const port = Number(url.port);
    this.#headPrefix ??= requestHeadPrefix(url.host, url.pathname, this.#headers);
    const requests = buildRequests(this.#headPrefix, echoBodyTexts(firstId, calls, echo.suffix));
    const check = new EchoCheck(firstId, expect, true, echo.message);
    const connections = new Set<RawHttpConnection>();
    /** Set once the run has settled (also by a timeout or an exit): nothing more is sent. */
    let stopped = false;

    return driver
      .guard<HttpRunResult>(timeoutMs, `end of run (${calls} calls, ${inFlight} in flight)`, (resolve, reject) => {
        let sent = 0;
        let received = 0;
        let failed = false;
        let cpu0: number | null = null;
        let driverCpu0: NodeJS.CpuUsage = { user: 0, system: 0 };
        let t0 = 0;

        const fail = (message: string): void => {
          if (failed || stopped) return;
          failed = true;
          const stderr = driver.diagnosticStderr();
          reject(new Error(`${name}: ${message}` + (stderr ? `; server stderr:\n${stderr}` : '')));
        };

        const open = (): Promise<RawHttpConnection> => {
          const connection = new RawHttpConnection(host, port, events);
          connections.add(connection);
          return connection.open().then(() => connection);
        };

        const sendOn = (connection: RawHttpConnection, index: number): void => {
          connection.tag = index;
          connection.send(requests[index]!);
        };

        /** Sends call `index` on a new connection (the last one was closed by the server). */
        const replace = (index: number): void => {
          open().then(
            (connection) => {
              if (failed || stopped) return;
              if (!connection.usable) return fail('the server closed a new connection before any request');
              sendOn(connection, index);
            },
            (error: Error) => fail(error.message),
          );
        };

        const events: RawConnectionEvents = {
          onResponse(connection, status, contentType, body, close): void {
            if (failed || stopped) return;
            const problem = check.check(connection.tag, status, contentType, body);
            if (problem !== null) return fail(problem);
            received++;
            if (close) connections.delete(connection);
            if (received === calls) {
              resolve(HttpSession.#result(calls, inFlight, check, t0, cpu0, pid, driverCpu0));
            } else if (sent < calls) {
              const index = sent++;
              if (close || !connection.usable) replace(index);
              else sendOn(connection, index);
            }
          },
          onFailure(connection, error): void {
            connections.delete(connection);
            fail(`${connection.tag >= 0 ? `request ${firstId + connection.tag}` : 'connection'}: ${error.message}`);
          },
        };

        const opening: Promise<RawHttpConnection>[] = [];
        for (let i = 0; i < Math.min(inFlight, calls); i++) opening.push(open());
        Promise.all(opening).then(
          (ready) => {
            if (failed || stopped) return;
            cpu0 = readCpuUs(pid);
            driverCpu0 = process.cpuUsage();
            t0 = performance.now();
            for (const connection of ready) {
              const index = sent++;
              if (connection.usable) sendOn(connection, index);
              else replace(index);
            }
          },
          (error: Error) => fail(error.message),
        );
      })
      .finally(() => {
        stopped = true;
        for (const connection of connections) connection.destroy();
        connections.clear();
      });
  }

  /** The run over `node:http` with a keep-alive agent (`BENCH_HTTP_DRIVER=node-http`). */
  #runNodeHttp(firstId: number, calls: number, inFlight: number, timeoutMs: number, expect: ResponseMode | undefined, echo: EchoCalls): Promise<HttpRunResult> {
    const driver = this.#driver;
    const name = driver.name;
    const url = driver.url;
    const pid = driver.pid;
    const bodies = buildEchoBodies(firstId, calls, echo.suffix);
    const agent = new Agent({ keepAlive: true, maxSockets: inFlight });
    const options: RequestOptions = { agent, host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: this.#headers };
    const check = new EchoCheck(firstId, expect, false, echo.message);
    /** Set once the run has settled (also by a timeout or an exit): nothing more is sent. */
    let stopped = false;

    return driver
      .guard<HttpRunResult>(timeoutMs, `end of run (${calls} calls, ${inFlight} in flight)`, (resolve, reject) => {
        let sent = 0;
        let received = 0;
        let failed = false;

        const fail = (message: string): void => {
          if (failed || stopped) return;
          failed = true;
          const stderr = driver.diagnosticStderr();
          reject(new Error(`${name}: ${message}` + (stderr ? `; server stderr:\n${stderr}` : '')));
        };

        const onBody = (index: number, status: number, contentType: string | undefined, body: string): void => {
          if (failed || stopped) return;
          const problem = check.check(index, status, contentType, body);
          if (problem !== null) return fail(problem);
          received++;
          if (received === calls) resolve(HttpSession.#result(calls, inFlight, check, t0, cpu0, pid, driverCpu0));
          else if (sent < calls) send();
        };

        const send = (): void => {
          const index = sent++;
          const req = request(options, (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => {
              body += chunk;
            });
            res.on('end', () => onBody(index, res.statusCode ?? 0, res.headers['content-type'], body));
            res.on('error', (error) => fail(`response ${firstId + index}: ${error.message}`));
          });
          req.on('error', (error) => fail(`request ${firstId + index}: ${error.message}`));
          req.end(bodies[index]);
        };

        const first = Math.min(inFlight, calls);
        const cpu0 = readCpuUs(pid);
        const driverCpu0 = process.cpuUsage();
        const t0 = performance.now();
        for (let i = 0; i < first; i++) send();
      })
      .finally(() => {
        stopped = true;
        agent.destroy();
      });
  }
}
