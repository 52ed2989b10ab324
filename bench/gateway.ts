/**
 * The gateway section (`npm run bench -- --section=gateway`): `tools/call` of the same echo
 * tool of the same upstream (the mcpkit demo), direct and through each intermediary, for a
 * stdio upstream and for a Streamable HTTP upstream, at 1 and at 32 calls in flight. Rows:
 * - direct: the demo over its stdio / over HTTP (`mcpkit demo --http`);
 * - bare relay (HTTP upstream): a minimal `node:http` reverse proxy with a keep-alive agent and
 *   no MCP logic (bench/servers/gateway-bare-relay.ts): the floor of a second HTTP hop;
 * - mcpkit proxy: `mcpkit proxy -- mcpkit demo` (stdio upstream); an `McpProxy` with a
 *   Streamable HTTP upstream (bench/servers/gateway-mcpkit-proxy.ts);
 * - mcpkit gateway: `mcpkit gateway --config FILE` with the demo as its one server (its tools
 *   are then `demo_<name>`; the HTTP upstream is reached with Node's requester, as the command does);
 * - the proxies users pick today: `mcp-use`'s `server.proxy()` (bench/servers/gateway-mcp-use.ts),
 *   `supergateway` (stdio upstream: its stateful Streamable HTTP output; HTTP upstream: it
 *   serves a remote server only as stdio, so that row is driven over supergateway's stdio),
 *   `mcp-proxy` (stdio upstreams only).
 * - the same direct, bare relay and gateway rows over HTTP calling the demo's `slow` tool with
 *   `ms: 1` instead of `echo` (a tool that takes a millisecond, as one doing I/O would), so the
 *   gateway's added latency is also shown against a call that does some work.
 * Every row is one session of the same lean client (gateway-driver.ts), 2025-06-18. Runs are
 * bounded by time (`BENCH_GATEWAY_MS` per run), repetitions interleaved (the row order
 * alternates) after a warm-up of each row (a run at 32 in flight, then one at 1); p50
 * latency and calls/s are reported with ratios against direct and against the best
 * third-party proxy measured in the same run (gateway-report.ts), and, for every row with
 * a process in the middle, that process's CPU time per call at 1 in flight (Linux
 * `/proc/<pid>/stat`; less noisy than latency on a loaded machine) with its ratio against the
 * bare relay's. The load average is printed at the start and the end. A row that cannot start
 * is reported with its reason; the exit status is then 1. Writes bench-results/gateway.json.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchConfig } from './config.js';
import {
  BenchProcess,
  type BenchTool,
  type CallTarget,
  ECHO_TOOL,
  freePort,
  openHttpTarget,
  openStdioTarget,
  processCpuMs,
  timedLoop,
  waitForOk,
  waitForPort,
} from './gateway-driver.js';
import { formatGatewayTable, gatewayTargets, latencyFigures, quantile, type RowKind, type RowSamples, summarizeRows } from './gateway-report.js';
import { errorMessage, showTarget } from './report.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '..', '..');
const NODE = process.execPath;
const MCPKIT = join(ROOT, 'bin', 'mcpkit.js');
const DEMO_STDIO: readonly string[] = [NODE, MCPKIT, 'demo'];
const SUPERGATEWAY = join(ROOT, 'node_modules', 'supergateway', 'dist', 'index.js');
const MCP_PROXY = join(ROOT, 'node_modules', 'mcp-proxy', 'dist', 'bin', 'mcp-proxy.mjs');
const MAX_CALLS_PER_RUN = 200_000;

/** An open row: its session, what to stop with it, and the intermediary process whose CPU per call is reported (none for direct rows). */
interface OpenRow {
  readonly target: CallTarget;
  readonly close: () => Promise<void>;
  readonly pid?: number | undefined;
}

/** The tool of the rows that call one doing work: the demo's `slow`, 1 ms (a timer, as I/O would wait). */
const WORK_TOOL: BenchTool = { name: 'slow', arguments: { ms: 1 }, expect: 'waited 1 ms' };
const WORK_LABEL = 'slow 1 ms';

/**
 * One way of calling the upstream. `open` starts what it needs and calls `tool` (the echo
 * unless the row names one); `unavailable` says why it cannot be measured.
 */
interface RowSpec {
  readonly upstream: 'stdio' | 'http';
  readonly name: string;
  readonly kind: RowKind;
  /** The tool called instead of the echo, and its label in the report. */
  readonly tool?: { readonly call: BenchTool; readonly label: string };
  readonly unavailable?: string;
  open?(upstreamUrl: string, timeoutMs: number, tool: BenchTool): Promise<OpenRow>;
}

/** A process that prints `LISTENING <url>`, and a session on that URL (after `ready(url)` when given). */
async function listeningRow(
  name: string,
  args: readonly string[],
  timeoutMs: number,
  ready?: (url: string) => Promise<void>,
  tool: BenchTool = ECHO_TOOL,
): Promise<OpenRow> {
  const proc = new BenchProcess(name, NODE, args, ROOT);
  try {
    const url = await proc.listening(timeoutMs);
    await ready?.(url);
    const target = await openHttpTarget(url, timeoutMs, tool);
    return { target, close: () => target.close().finally(() => proc.close()), pid: proc.child.pid };
  } catch (error) {
    await proc.close();
    throw error;
  }
}

/** A process that takes `--port` and prints nothing useful, and a session on `path` there. */
async function portRow(name: string, args: (port: number) => readonly string[], path: string, timeoutMs: number): Promise<OpenRow> {
  const port = await freePort();
  const proc = new BenchProcess(name, NODE, args(port), ROOT);
  try {
    await waitForPort(port, timeoutMs, proc.exited, name);
    const target = await openHttpTarget(`http://127.0.0.1:${port}${path}`, timeoutMs);
    return { target, close: () => target.close().finally(() => proc.close()), pid: proc.child.pid };
  } catch (error) {
    await proc.close();
    throw new Error(`${errorMessage(error)}${proc.stderr.trim() === '' ? '' : `; stderr: ${proc.stderr.trim().slice(-800)}`}`);
  }
}

/** `mcpkit gateway --config FILE` with one server, `demo`, as `entry` gives it (its tools are `demo_<name>`). */
async function gatewayRow(entry: Record<string, unknown>, timeoutMs: number, tool: BenchTool = ECHO_TOOL): Promise<OpenRow> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-bench-gateway-'));
  const file = join(dir, 'servers.json');
  writeFileSync(file, JSON.stringify({ mcpServers: { demo: entry } }));
  try {
    // it serves at once and mounts its servers as they come up: wait for /readyz
    const ready = (url: string) => waitForOk(new URL('/readyz', url).href, timeoutMs);
    const row = await listeningRow('mcpkit gateway', [MCPKIT, 'gateway', '--config', file, '--port', '0'], timeoutMs, ready, tool);
    return { target: row.target, close: () => row.close().finally(() => rmSync(dir, { recursive: true, force: true })), pid: row.pid };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

const ROWS: readonly RowSpec[] = [
  { upstream: 'stdio', name: 'direct', kind: 'direct', open: async (_u, t) => wrap(await openStdioTarget('demo', NODE, [MCPKIT, 'demo'], ROOT, t)) },
  {
    upstream: 'stdio',
    name: 'mcpkit proxy',
    kind: 'mcpkit',
    open: (_u, t) => listeningRow('mcpkit proxy', [MCPKIT, 'proxy', '--port', '0', '--', ...DEMO_STDIO], t),
  },
  {
    upstream: 'stdio',
    name: 'mcpkit gateway',
    kind: 'mcpkit',
    open: (_u, t) => gatewayRow({ command: NODE, args: [MCPKIT, 'demo'] }, t),
  },
  {
    upstream: 'stdio',
    name: 'mcp-use server.proxy()',
    kind: 'third-party',
    open: (_u, t) => listeningRow('mcp-use', [join(HERE, 'servers', 'gateway-mcp-use.js'), 'stdio', ...DEMO_STDIO], t),
  },
  {
    upstream: 'stdio',
    name: 'supergateway',
    kind: 'third-party',
    open: (_u, t) =>
      portRow(
        'supergateway',
        (port) => [
          SUPERGATEWAY,
          '--stdio',
          DEMO_STDIO.join(' '),
          '--outputTransport',
          'streamableHttp',
          '--stateful',
          '--port',
          String(port),
          '--logLevel',
          'none',
        ],
        '/mcp',
        t,
      ),
  },
  {
    upstream: 'stdio',
    name: 'mcp-proxy',
    kind: 'third-party',
    open: (_u, t) => portRow('mcp-proxy', (port) => [MCP_PROXY, '--port', String(port), '--host', '127.0.0.1', '--', ...DEMO_STDIO], '/mcp', t),
  },
  { upstream: 'http', name: 'direct', kind: 'direct', open: async (u, t) => wrap(await openHttpTarget(u, t)) },
  { upstream: 'http', name: 'bare relay', kind: 'floor', open: (u, t) => bareRelayRow(u, t, ECHO_TOOL) },
  {
    upstream: 'http',
    name: 'mcpkit proxy',
    kind: 'mcpkit',
    open: (u, t) => listeningRow('mcpkit proxy (HTTP upstream)', [join(HERE, 'servers', 'gateway-mcpkit-proxy.js'), u], t),
  },
  { upstream: 'http', name: 'mcpkit gateway', kind: 'mcpkit', open: (u, t) => gatewayRow({ url: u }, t) },
  {
    upstream: 'http',
    name: 'mcp-use server.proxy()',
    kind: 'third-party',
    open: (u, t) => listeningRow('mcp-use (HTTP upstream)', [join(HERE, 'servers', 'gateway-mcp-use.js'), 'http', u], t),
  },
  {
    upstream: 'http',
    name: 'supergateway (stdio front)',
    kind: 'third-party',
    open: async (u, t) => {
      const target = await openStdioTarget('supergateway', NODE, [SUPERGATEWAY, '--streamableHttp', u, '--logLevel', 'none'], ROOT, t);
      return { ...wrap(target), pid: target.pid };
    },
  },
  { upstream: 'http', name: 'mcp-proxy', kind: 'third-party', unavailable: 'mcp-proxy serves stdio commands only (no HTTP upstream)' },
  {
    upstream: 'http',
    name: 'direct',
    kind: 'direct',
    tool: { call: WORK_TOOL, label: WORK_LABEL },
    open: async (u, t, tool) => wrap(await openHttpTarget(u, t, tool)),
  },
  { upstream: 'http', name: 'bare relay', kind: 'floor', tool: { call: WORK_TOOL, label: WORK_LABEL }, open: bareRelayRow },
  {
    upstream: 'http',
    name: 'mcpkit gateway',
    kind: 'mcpkit',
    tool: { call: WORK_TOOL, label: WORK_LABEL },
    open: (u, t, tool) => gatewayRow({ url: u }, t, tool),
  },
];

/** The bare relay (bench/servers/gateway-bare-relay.ts) in front of the HTTP upstream. */
function bareRelayRow(upstreamUrl: string, timeoutMs: number, tool: BenchTool): Promise<OpenRow> {
  return listeningRow('bare relay', [join(HERE, 'servers', 'gateway-bare-relay.js'), upstreamUrl], timeoutMs, undefined, tool);
}

/** The machine's load averages (1, 5, 15 min), rounded: latency on a shared machine reads with them. */
function loadAverage(): number[] {
  return loadavg().map((x) => Math.round(x * 100) / 100);
}

function wrap(target: CallTarget): OpenRow {
  return { target, close: () => target.close() };
}

/** The gateway section. Resolves with the exit status it asks for (0, or 1 when a row failed). */
export async function runGatewayBench(config: BenchConfig): Promise<number> {
  const runMs = config.gatewayRunMs;
  const reps = Math.min(config.reps, 3);
  const timeoutMs = Math.min(config.timeoutMs, 60_000);
  console.log(
    `gateway: tools/call echo (and slow 1 ms) direct, through a bare relay and through proxies, stdio and HTTP upstreams (mcpkit demo), 1 and 32 in flight, ${runMs} ms per run × ${reps} interleaved repetitions; load average now: ${loadAverage().join(', ')}`,
  );
  const problems: string[] = [];
  const upstream = new BenchProcess('mcpkit demo --http', NODE, [MCPKIT, 'demo', '--http', '--port', '0'], ROOT);
  const open = new Map<RowSpec, OpenRow>();
  const samples = new Map<RowSpec, RowSamples>(
    ROWS.map((r) => [
      r,
      {
        upstream: r.upstream,
        name: r.name,
        kind: r.kind,
        ...(r.tool === undefined ? {} : { tool: r.tool.label }),
        ...(r.unavailable === undefined ? {} : { unavailable: r.unavailable }),
        p50Ms1: [],
        callsPerSec1: [],
        callsPerSec32: [],
        cpuUsPerCall1: [],
      },
    ]),
  );
  const fail = (row: RowSpec, error: unknown) => {
    problems.push(`${row.upstream}${row.tool === undefined ? '' : ` (${row.tool.label})`}: ${row.name}: ${errorMessage(error)}`);
    const s = samples.get(row)!;
    samples.set(row, { ...s, unavailable: s.unavailable ?? `failed (${errorMessage(error).slice(0, 120)})` });
  };
  try {
    const upstreamUrl = await upstream.listening(timeoutMs);
    for (const row of ROWS) {
      if (row.open === undefined) continue;
      try {
        const r = await row.open(upstreamUrl, timeoutMs, row.tool?.call ?? ECHO_TOOL);
        open.set(row, r);
        // warm-up, at both loads: V8 optimizes a path after many calls, on helper threads that a
        // loaded machine starves, so a process with more code (a gateway) reaches its steady
        // cost later than a bare relay; half a run at 32 in flight left the gateway's next
        // thousands of calls at 1 in flight costing 2-3x its steady CPU
        await timedLoop(r.target, 32, Math.max(200, runMs), MAX_CALLS_PER_RUN);
        await timedLoop(r.target, 1, Math.max(200, runMs), MAX_CALLS_PER_RUN);
      } catch (error) {
        fail(row, error);
        await open.get(row)?.close();
        open.delete(row);
      }
    }
    for (let rep = 0; rep < reps; rep++) {
      const order = [...open.keys()];
      if (rep % 2 === 1) order.reverse();
      for (const row of order) {
        const r = open.get(row);
        if (r === undefined) continue;
        const s = samples.get(row)!;
        try {
          const cpu0 = processCpuMs(r.pid);
          const one = await timedLoop(r.target, 1, runMs, MAX_CALLS_PER_RUN);
          const cpu1 = processCpuMs(r.pid);
          const many = await timedLoop(r.target, 32, runMs, MAX_CALLS_PER_RUN);
          s.p50Ms1.push(quantile(one.latenciesMs, 0.5));
          s.cpuUsPerCall1!.push(cpu0 === null || cpu1 === null || one.calls === 0 ? null : ((cpu1 - cpu0) * 1000) / one.calls);
          s.callsPerSec1.push((one.calls * 1000) / one.elapsedMs);
          s.callsPerSec32.push((many.calls * 1000) / many.elapsedMs);
        } catch (error) {
          fail(row, error);
          await r.close().catch(() => {});
          open.delete(row);
        }
      }
    }
  } catch (error) {
    problems.push(errorMessage(error));
  } finally {
    await Promise.all([...open.values()].map((r) => r.close().catch(() => {})));
    await upstream.close();
  }
  const summaries = summarizeRows([...samples.values()]);
  console.log(`load average at the end (1, 5, 15 min): ${loadAverage().join(', ')}`);
  console.log(formatGatewayTable(summaries));
  const targets = gatewayTargets(summaries, 'mcpkit gateway');
  const proxyFigures = gatewayTargets(summaries, 'mcpkit proxy');
  const latency = latencyFigures(summaries, 'mcpkit gateway');
  console.log('\nTargets (issue 39):');
  for (const t of targets) console.log(showTarget(t));
  console.log('The latency target where the upstream tool does work (an extra row; the rows above are unchanged):');
  for (const t of latency.targets) console.log(showTarget(t));
  console.log('The floor of a second hop (bare relay, no MCP logic), same run:');
  for (const note of latency.notes) console.log(note);
  console.log('The same figures for mcpkit proxy (informational):');
  for (const t of proxyFigures) console.log(showTarget(t));
  for (const p of problems) console.log(`!! ${p}`);
  const out = join(ROOT, 'bench-results', 'gateway.json');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(
    out,
    `${JSON.stringify({ runMs, reps, load: loadAverage(), rows: summaries, samples: [...samples.values()], targets, latencyTargets: latency.targets, latencyNotes: latency.notes, proxyFigures, problems }, null, 2)}\n`,
  );
  console.log(`results written to ${out}`);
  return problems.length > 0 ? 1 : 0;
}
