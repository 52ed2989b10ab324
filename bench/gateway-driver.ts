/**
 * The clients and processes of the gateway section (`bench/gateway.ts`): one MCP session to
 * a target (over Streamable HTTP with `node:http`, or over a child's stdio), its tool (`echo`,
 * or the one a row names) found by `tools/list` (proxies may namespace it), and timed
 * `tools/call` loops that record each call's latency.
 *
 * Design note: every target is driven by the same lean code (no SDK, no schema), so the
 * client costs the same everywhere: the timed HTTP calls go over raw keep-alive HTTP/1.1
 * connections (raw-http.ts, the HTTP section's client), the handshakes over `node:http`; a response is parsed in full (JSON, or the `data:` lines
 * of an event stream) and its result checked on every call. Processes run in their own process
 * group, so a proxy's own upstream child ends with it; their environment turns off mcp-use's
 * usage telemetry (the bench runs offline).
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createServer, connect as netConnect } from 'node:net';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { ECHO_MESSAGE } from './driver.js';
import { buildRequests, latin1ToUtf8, type RawConnectionEvents, RawHttpConnection, requestHeadPrefix } from './raw-http.js';

/** The revision every target is asked to speak (all of them support it). */
export const GATEWAY_PROTOCOL_VERSION = '2025-06-18';

/** One open session on a target. */
export interface CallTarget {
  /** One `tools/call` of its tool; rejects on an error or a wrong result. */
  call(): Promise<void>;
  /** The process at the other end, when the target started it (a stdio target). */
  readonly pid?: number;
  close(): Promise<void>;
}

/** What one timed loop measured. */
export interface LoopResult {
  readonly calls: number;
  readonly elapsedMs: number;
  /** Each call's latency in ms, in completion order. */
  readonly latenciesMs: number[];
}

/** The tool a target's timed calls make, by its upstream name (proxies may namespace it). */
export interface BenchTool {
  readonly name: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  /** Text the result's first text content must contain. */
  readonly expect: string;
}

/** The demo's `echo` of {@link ECHO_MESSAGE}: the rows' default call. */
export const ECHO_TOOL: BenchTool = { name: 'echo', arguments: { message: ECHO_MESSAGE }, expect: ECHO_MESSAGE };

/** The tool called `base` among `names`: `base` itself, else one whose name ends with `base` after a separator. */
export function pickTool(names: readonly string[], base: string): string | undefined {
  return names.find((n) => n === base) ?? names.find((n) => n.endsWith(base) && /[_.\-/:]/.test(n[n.length - base.length - 1] ?? ''));
}

/**
 * The JSON-RPC message answering `id` in a response body: the body itself (JSON), or the
 * `data:` payload of an event-stream event carrying it. Undefined when none does.
 */
export function responseFor(contentType: string, body: string, id: number): Record<string, unknown> | undefined {
  const candidates: unknown[] = [];
  if (contentType.includes('text/event-stream')) {
    let data: string[] = [];
    for (const line of `${body}\n`.split(/\r?\n/)) {
      if (line.startsWith('data:')) data.push(line.slice(line[5] === ' ' ? 6 : 5));
      else if (line === '') {
        // an event without data (a priming event) carries no message
        const payload = data.join('\n');
        if (payload.trim() !== '') candidates.push(JSON.parse(payload));
        data = [];
      }
    }
  } else if (body.trim() !== '') candidates.push(JSON.parse(body));
  for (const c of candidates.flatMap((x) => (Array.isArray(x) ? x : [x]))) {
    if (typeof c === 'object' && c !== null && (c as { id?: unknown }).id === id) return c as Record<string, unknown>;
  }
  return undefined;
}

/** Why `message` is not a result whose text contains `expect`, or undefined when it is. */
export function resultProblem(message: Record<string, unknown>, expect: string): string | undefined {
  if (message.error !== undefined) return `error ${JSON.stringify(message.error).slice(0, 300)}`;
  const result = message.result as { isError?: unknown; content?: Array<{ type?: unknown; text?: unknown }> } | undefined;
  if (result?.isError === true) return `isError: ${JSON.stringify(result).slice(0, 300)}`;
  const text = result?.content?.find((c) => c.type === 'text')?.text;
  return typeof text === 'string' && text.includes(expect) ? undefined : `unexpected result ${JSON.stringify(result).slice(0, 300)}`;
}

const INIT_PARAMS = { protocolVersion: GATEWAY_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'mcpkit-gateway-bench', version: '1.0.0' } };

/** A session over Streamable HTTP (a session id is sent back when the server gave one). */
export async function openHttpTarget(url: string, timeoutMs: number, tool: BenchTool = ECHO_TOOL): Promise<CallTarget> {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const target = new URL(url);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  let nextId = 1;
  const post = (body: unknown): Promise<{ status: number; contentType: string; text: string; session: string | undefined }> =>
    new Promise((resolve, reject) => {
      const text = JSON.stringify(body);
      const req = request(
        target,
        { method: 'POST', agent, headers: { ...headers, 'content-length': String(Buffer.byteLength(text)) }, timeout: timeoutMs },
        (res) => {
          let out = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (out += chunk));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              contentType: String(res.headers['content-type'] ?? ''),
              text: out,
              session: res.headers['mcp-session-id'] as string | undefined,
            }),
          );
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer from ${url} within ${timeoutMs} ms`)));
      req.on('error', reject);
      req.end(text);
    });
  const rpc = async (method: string, params: unknown): Promise<Record<string, unknown>> => {
    const id = nextId++;
    const res = await post({ jsonrpc: '2.0', id, method, params });
    if (res.status !== 200) throw new Error(`${method}: HTTP ${res.status} from ${url}: ${res.text.slice(0, 300)}`);
    const message = responseFor(res.contentType, res.text, id);
    if (message === undefined) throw new Error(`${method}: no answer to id ${id} in the ${res.contentType} body: ${res.text.slice(0, 300)}`);
    return message;
  };
  try {
    const id = nextId++;
    const init = await post({ jsonrpc: '2.0', id, method: 'initialize', params: INIT_PARAMS });
    if (init.status !== 200) throw new Error(`initialize: HTTP ${init.status} from ${url}: ${init.text.slice(0, 300)}`);
    const answer = responseFor(init.contentType, init.text, id);
    const version = (answer?.result as { protocolVersion?: unknown } | undefined)?.protocolVersion;
    if (typeof version !== 'string') throw new Error(`initialize: no result from ${url}: ${init.text.slice(0, 300)}`);
    if (init.session !== undefined) headers['mcp-session-id'] = init.session;
    headers['mcp-protocol-version'] = version;
    const note = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    if (note.status !== 202 && note.status !== 200) throw new Error(`notifications/initialized: HTTP ${note.status} from ${url}`);
    const tools = ((await rpc('tools/list', {})).result as { tools?: Array<{ name: string }> } | undefined)?.tools ?? [];
    const name = pickTool(
      tools.map((t) => t.name),
      tool.name,
    );
    if (name === undefined) throw new Error(`${url} lists no ${tool.name} tool (it lists ${tools.map((t) => t.name).join(', ')})`);
    const calls = new RawCallPool(target, headers, timeoutMs);
    let callId = 1_000_000;
    const callSuffix = `,"method":"tools/call","params":${JSON.stringify({ name, arguments: tool.arguments })}}`;
    return {
      call: async () => {
        const id = callId++;
        const res = await calls.post(`{"jsonrpc":"2.0","id":${id}${callSuffix}`);
        if (res.status !== 200) throw new Error(`tools/call ${name}: HTTP ${res.status} from ${url}: ${res.text.slice(0, 300)}`);
        const message = responseFor(res.contentType, res.text, id);
        if (message === undefined) throw new Error(`tools/call ${name}: no answer to id ${id} in the ${res.contentType} body: ${res.text.slice(0, 300)}`);
        const problem = resultProblem(message, tool.expect);
        if (problem !== undefined) throw new Error(`tools/call ${name} through ${url}: ${problem}`);
      },
      close: async () => {
        calls.close();
        if (headers['mcp-session-id'] !== undefined) {
          await new Promise<void>((resolve) => {
            const req = request(target, { method: 'DELETE', agent, headers, timeout: 2000 }, (res) => {
              res.resume();
              res.on('end', resolve);
            });
            req.on('error', () => resolve());
            req.on('timeout', () => req.destroy());
            req.end();
          });
        }
        agent.destroy();
      },
    };
  } catch (error) {
    agent.destroy();
    throw error;
  }
}

/**
 * The timed calls of an HTTP target: raw HTTP/1.1 keep-alive connections (raw-http.ts, as
 * the HTTP section's driver uses), one per call in flight, opened on demand and reused; each
 * request written as one buffer. `node:http` costs about as much CPU per call as the server
 * under test, which capped every HTTP row on a shared two-core machine.
 */
class RawCallPool {
  readonly #host: string;
  readonly #port: number;
  readonly #headPrefix: string;
  readonly #timeoutMs: number;
  readonly #idle: RawHttpConnection[] = [];
  readonly #all = new Set<RawHttpConnection>();
  readonly #waiting = new Map<RawHttpConnection, PendingCall>();
  readonly #events: RawConnectionEvents = {
    onResponse: (connection, status, contentType, body, close) => {
      const pending = this.#waiting.get(connection);
      this.#waiting.delete(connection);
      if (close) this.#all.delete(connection);
      else this.#idle.push(connection);
      if (pending === undefined) return;
      clearTimeout(pending.timer);
      // the connection hands over latin1 text: decode UTF-8 only when a byte needs it
      pending.resolve({ status, contentType, text: /[^\x00-\x7f]/.test(body) ? latin1ToUtf8(body) : body });
    },
    onFailure: (connection, error) => {
      const pending = this.#waiting.get(connection);
      this.#waiting.delete(connection);
      this.#all.delete(connection);
      if (pending === undefined) return;
      clearTimeout(pending.timer);
      pending.reject(error);
    },
  };

  constructor(target: URL, headers: Readonly<Record<string, string>>, timeoutMs: number) {
    this.#host = target.hostname;
    this.#port = Number(target.port || 80);
    this.#headPrefix = requestHeadPrefix(target.host, `${target.pathname}${target.search}`, headers);
    this.#timeoutMs = timeoutMs;
  }

  /** POSTs `body` (JSON text) on an idle connection (a new one when none is); resolves with the response. */
  async post(body: string): Promise<{ status: number; contentType: string; text: string }> {
    let connection = this.#idle.pop();
    while (connection !== undefined && !connection.usable) {
      this.#all.delete(connection);
      connection = this.#idle.pop();
    }
    if (connection === undefined) {
      connection = new RawHttpConnection(this.#host, this.#port, this.#events);
      this.#all.add(connection);
      await connection.open();
    }
    const [request] = buildRequests(this.#headPrefix, [body]);
    const open = connection;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(open);
        this.#all.delete(open);
        open.destroy();
        reject(new Error(`no answer within ${this.#timeoutMs} ms`));
      }, this.#timeoutMs);
      this.#waiting.set(open, { resolve, reject, timer });
      open.send(request!);
    });
  }

  /** Closes every connection. */
  close(): void {
    for (const connection of this.#all) connection.destroy();
    this.#all.clear();
    this.#idle.length = 0;
  }
}

interface PendingCall {
  resolve(response: { status: number; contentType: string; text: string }): void;
  reject(error: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

/** A child process of the bench, in its own process group. */
export class BenchProcess {
  readonly child: ChildProcessWithoutNullStreams;
  #stderr = '';
  #stdoutRest = '';
  #lineWaiters: ((line: string) => void)[] = [];
  readonly exited: Promise<void>;
  readonly #name: string;

  constructor(name: string, command: string, args: readonly string[], cwd: string, onLine?: (line: string) => void) {
    this.#name = name;
    this.child = spawn(command, args as string[], {
      cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
      env: { ...process.env, NO_COLOR: '1', MCP_USE_ANONYMIZED_TELEMETRY: 'false' },
    });
    this.child.stdin.on('error', () => {});
    this.child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      this.#stderr = (this.#stderr + chunk).slice(-4000);
    });
    this.child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      this.#stdoutRest += chunk;
      for (let nl = this.#stdoutRest.indexOf('\n'); nl >= 0; nl = this.#stdoutRest.indexOf('\n')) {
        const line = this.#stdoutRest.slice(0, nl);
        this.#stdoutRest = this.#stdoutRest.slice(nl + 1);
        if (onLine !== undefined) onLine(line);
        else this.#lineWaiters.shift()?.(line);
      }
    });
    this.exited = new Promise((resolve) => this.child.once('exit', () => resolve()));
    this.child.once('error', () => {});
  }

  /** The tail of its stderr (for error messages). */
  get stderr(): string {
    return this.#stderr;
  }

  /** Resolves with the URL of its first stdout line `LISTENING <url>`; rejects after `timeoutMs` or on exit. */
  async listening(timeoutMs: number): Promise<string> {
    const line = await Promise.race([
      new Promise<string>((resolve) => this.#lineWaiters.push(resolve)),
      this.exited.then(() => Promise.reject(new Error(`${this.#name} exited before listening; stderr: ${this.#stderr.trim().slice(-1500)}`))),
      sleep(timeoutMs).then(() => Promise.reject(new Error(`${this.#name} printed no LISTENING line within ${timeoutMs} ms`))),
    ]);
    const match = /^LISTENING (http:\/\/\S+)/.exec(line.trim());
    if (match === null) throw new Error(`${this.#name}: expected LISTENING <url> first, got ${JSON.stringify(line.slice(0, 200))}`);
    return match[1]!;
  }

  /** Ends the process group (SIGTERM, then SIGKILL after a grace). */
  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.stdin.end();
    const kill = (signal: NodeJS.Signals) => {
      try {
        process.kill(-this.child.pid!, signal);
      } catch {
        // gone already
      }
    };
    kill('SIGTERM');
    const timer = setTimeout(() => kill('SIGKILL'), 3000);
    await this.exited;
    clearTimeout(timer);
    kill('SIGKILL'); // any grandchild that outlived its parent
  }
}

/**
 * The CPU time (user + system) process `pid` has used so far, in ms, from `/proc/<pid>/stat`
 * (clock ticks of 10 ms, the Linux default); null where there is no such file (not Linux, or
 * the process is gone). Its children's time is not included.
 */
export function processCpuMs(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    // the fields after the command name (which may hold spaces), from field 3 on: utime is field 14, stime 15
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks * 10 : null;
  } catch {
    return null;
  }
}

/** A free TCP port on 127.0.0.1 (for servers that take `--port` and print no URL). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once 127.0.0.1:`port` accepts connections; rejects after `timeoutMs` or when `exited` settles first. */
export async function waitForPort(port: number, timeoutMs: number, exited: Promise<void>, name: string): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  let gone = false;
  void exited.then(() => (gone = true));
  while (performance.now() < deadline) {
    if (gone) throw new Error(`${name} exited before listening on port ${port}`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = netConnect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    await sleep(50);
  }
  throw new Error(`${name} did not listen on port ${port} within ${timeoutMs} ms`);
}

/** Resolves once GET `url` answers 200; rejects with the last status after `timeoutMs`. */
export async function waitForOk(url: string, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  let last = 'no answer';
  while (performance.now() < deadline) {
    const status = await new Promise<number>((resolve) => {
      const req = request(url, { method: 'GET', timeout: 2000 }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('timeout', () => req.destroy());
      req.on('error', () => resolve(0));
      req.end();
    });
    if (status === 200) return;
    last = status === 0 ? 'no answer' : `HTTP ${status}`;
    await sleep(100);
  }
  throw new Error(`${url} was not ready within ${timeoutMs} ms (last: ${last})`);
}

/** A session over a child's stdio (newline-delimited JSON-RPC). */
export async function openStdioTarget(
  name: string,
  command: string,
  args: readonly string[],
  cwd: string,
  timeoutMs: number,
  bench: BenchTool = ECHO_TOOL,
): Promise<CallTarget> {
  const pending = new Map<number, { resolve: (m: Record<string, unknown>) => void; reject: (e: Error) => void }>();
  const proc = new BenchProcess(name, command, args, cwd, (line) => {
    if (line.trim() === '') return;
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return; // not a JSON-RPC line (a banner): ignored
    }
    const id = message.id;
    if (typeof id === 'number' && (message.result !== undefined || message.error !== undefined)) {
      const waiter = pending.get(id);
      pending.delete(id);
      waiter?.resolve(message);
    } else if (id !== undefined && typeof message.method === 'string') {
      // a request of the server's (ping, roots): refuse it
      proc.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32601, message: 'not supported by the bench client' } })}\n`);
    }
  });
  void proc.exited.then(() => {
    for (const waiter of pending.values()) waiter.reject(new Error(`${name} exited; stderr: ${proc.stderr.trim().slice(-1500)}`));
    pending.clear();
  });
  let nextId = 1;
  const rpc = (method: string, params: unknown): Promise<Record<string, unknown>> => {
    const id = nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`${name}: no answer to ${method} within ${timeoutMs} ms`));
      }, timeoutMs);
      pending.set(id, {
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      proc.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  };
  try {
    const init = await rpc('initialize', INIT_PARAMS);
    if (init.result === undefined) throw new Error(`${name}: initialize failed: ${JSON.stringify(init.error)}`);
    proc.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    const tools = ((await rpc('tools/list', {})).result as { tools?: Array<{ name: string }> } | undefined)?.tools ?? [];
    const tool = pickTool(
      tools.map((t) => t.name),
      bench.name,
    );
    if (tool === undefined) throw new Error(`${name} lists no ${bench.name} tool (it lists ${tools.map((t) => t.name).join(', ')})`);
    return {
      pid: proc.child.pid,
      call: async () => {
        const problem = resultProblem(await rpc('tools/call', { name: tool, arguments: bench.arguments }), bench.expect);
        if (problem !== undefined) throw new Error(`tools/call ${tool} on ${name}: ${problem}`);
      },
      close: () => proc.close(),
    };
  } catch (error) {
    await proc.close();
    throw error;
  }
}

/**
 * Calls `target` with `inFlight` calls outstanding for `durationMs` (or until `maxCalls`),
 * recording each call's latency. Rejects on the first failed call.
 */
export async function timedLoop(target: CallTarget, inFlight: number, durationMs: number, maxCalls: number): Promise<LoopResult> {
  const latenciesMs: number[] = [];
  const t0 = performance.now();
  const deadline = t0 + durationMs;
  let started = 0;
  const lane = async (): Promise<void> => {
    while (started < maxCalls && performance.now() < deadline) {
      started++;
      const s = performance.now();
      await target.call();
      latenciesMs.push(performance.now() - s);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  return { calls: latenciesMs.length, elapsedMs: performance.now() - t0, latenciesMs };
}
