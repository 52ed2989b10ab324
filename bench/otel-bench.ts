/**
 * The otel section: what mcpkit/otel costs per call over Streamable HTTP (JSON responses,
 * 2025-11-25 session) at 32 calls in flight (issue 41: "with spans on and a no-op exporter
 * the cost per call is reported, target ≤ 15 % at 32 in flight over HTTP").
 *
 * Server rows: mcpkit's HTTP bench server, each row its own process
 * (`servers/mcpkit-http.js`, `servers/mcpkit-otel-http.js --otel=…`), driven by the HTTP
 * section's raw driver (`http-driver.ts`: keep-alive node:net connections, no MCP client in
 * the way) at 32 in flight; the figure is the server process's CPU time per call:
 * - `uninstrumented`: no `instrument` call;
 * - `off`: `instrument(…, { mode: 'off' })`, which registers nothing (must equal the row above
 *   within noise; the instructions section counts the same pair exactly);
 * - `context manager only`: `off`, with the AsyncLocalStorage context manager every
 *   OpenTelemetry Node set-up registers, entered once (the floor under `propagation` and
 *   `full`: on Node 20 AsyncLocalStorage then tracks every promise of the process);
 * - `floor: one bare SDK span`: not mcpkit/otel but the least any span-per-request
 *   instrumentation does on the same SDK set-up (one span with one attribute, current while
 *   the request runs, one histogram value): what `full` is measured against;
 * - `propagation`: trace context extracted from each request, no spans;
 * - `full, no-op exporter`: spans and metrics through the real SDK (AsyncLocalStorage
 *   context manager, `BatchSpanProcessor` with an exporter that drops the spans, a
 *   `MeterProvider` without a reader). The driver sends no trace context, so each call is a
 *   sampled root span, as behind an uninstrumented client.
 *
 * Client rows: mcpkit's `Client` (its Streamable HTTP transport, fetch) in this process,
 * uninstrumented and instrumented `full` (the same SDK set-up, under an active application
 * span so its context is injected into every request), against the bare HTTP server
 * (`servers/bare-http.js`, so the server costs both the same); the figure is this process's
 * CPU time per call.
 *
 * All processes are started and warmed up first; then each repetition runs every row once,
 * the order rotating between repetitions; the reported ratio is the median of the
 * per-repetition ratios to the uninstrumented row of the same repetition (the machine's load
 * moves both alike). Writes bench-results/otel.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { ExportResultCode, W3CTraceContextPropagator } from '@opentelemetry/core';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { Client } from '../src/client/index.js';
import { StreamableHttpClientTransport } from '../src/http/index.js';
import { instrument } from '../src/otel/index.js';
import type { BenchConfig } from './config.js';
import { HttpDriver, type HttpSession } from './http-driver.js';
import { atMost, errorMessage, showTarget, type Target } from './report.js';
import { formatNumber, formatRatio, formatTable, median } from './stats.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '..', '..');
const IN_FLIGHT = 32;
/** Issue 41's full-mode target: server CPU per call ≤ 1.15× uninstrumented. */
const FULL_MAX_RATIO = 1.15;

interface ServerRow {
  readonly name: string;
  readonly script: string;
  readonly args: readonly string[];
}
const SERVER_ROWS: readonly ServerRow[] = [
  { name: 'uninstrumented', script: 'mcpkit-http.js', args: [] },
  { name: 'off', script: 'mcpkit-otel-http.js', args: ['--otel=off'] },
  { name: 'context manager only', script: 'mcpkit-otel-http.js', args: ['--otel=context'] },
  { name: 'floor: one bare SDK span', script: 'mcpkit-otel-http.js', args: ['--otel=floor'] },
  { name: 'propagation', script: 'mcpkit-otel-http.js', args: ['--otel=propagation'] },
  { name: 'full, no-op exporter', script: 'mcpkit-otel-http.js', args: ['--otel=full'] },
];
const CLIENT_ROWS = ['uninstrumented', 'full, no-op exporter'] as const;
type ClientRow = (typeof CLIENT_ROWS)[number];

/** Drops every span at once. */
const noopExporter: SpanExporter = {
  export: (_spans, done) => done({ code: ExportResultCode.SUCCESS }),
  shutdown: async () => {},
};

/** The items in an order that rotates with the repetition (each item leads once every `items.length` repetitions). */
function rotated<T>(items: readonly T[], rep: number): T[] {
  const k = rep % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}

/** A connected client of a row, and how to run `n` calls on it at {@link IN_FLIGHT} in flight. */
interface ClientUnderTest {
  run(n: number): Promise<void>;
  close(): Promise<void>;
}

async function openClient(row: ClientRow, url: URL): Promise<ClientUnderTest> {
  const client = new Client({ name: 'otel-bench', version: '1.0.0' }, { protocolVersion: '2025-11-25' });
  let tracerProvider: BasicTracerProvider | undefined;
  let meterProvider: MeterProvider | undefined;
  if (row !== 'uninstrumented') {
    tracerProvider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(noopExporter)] });
    meterProvider = new MeterProvider();
    instrument(client, { mode: 'full', tracerProvider, meterProvider, propagator: new W3CTraceContextPropagator() });
  }
  await client.connect(new StreamableHttpClientTransport({ url }));
  const app = tracerProvider?.getTracer('bench').startSpan('bench');
  const lanes = async (n: number): Promise<void> => {
    let next = 0;
    const lane = async (): Promise<void> => {
      while (next < n) {
        next++;
        const result = await client.callTool({ name: 'echo', arguments: { message: 'hello' } });
        if (result.isError === true) throw new Error(`echo failed: ${JSON.stringify(result)}`);
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  };
  return {
    run: (n) => (app === undefined ? lanes(n) : context.with(trace.setSpan(context.active(), app), () => lanes(n))),
    close: async () => {
      app?.end();
      await client.close().catch(() => {});
      await tracerProvider?.shutdown();
      await meterProvider?.shutdown();
    },
  };
}

/** CPU µs per call of this process while `run` makes `calls` calls. */
async function processCpuPerCall(calls: number, run: (n: number) => Promise<void>): Promise<number> {
  const cpu = process.cpuUsage();
  await run(calls);
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / calls;
}

/** The otel section. Resolves with the exit status it asks for (0, or 1 on problems). */
export async function runOtelBench(config: BenchConfig): Promise<number> {
  const calls = Math.min(config.calls, 20_000);
  const warmup = Math.min(config.warmupCalls, 5_000);
  const reps = Math.max(config.reps, 3);
  const began = performance.now();
  console.log(
    `otel: mcpkit/otel over Streamable HTTP (JSON), ${IN_FLIGHT} in flight, ${calls} calls × ${reps} interleaved repetitions per row (${warmup} warm-up calls)`,
  );
  const manager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(manager);
  const drivers: HttpDriver[] = [];
  const clients: ClientUnderTest[] = [];
  const serverCpu = new Map<string, number[]>(SERVER_ROWS.map((r) => [r.name, []]));
  const clientCpu = new Map<ClientRow, number[]>(CLIENT_ROWS.map((r) => [r, []]));
  const serverRate = new Map<string, number[]>(SERVER_ROWS.map((r) => [r.name, []]));
  try {
    const start = async (name: string, script: string, args: readonly string[]): Promise<HttpDriver> => {
      const spec = { name, command: process.execPath, args: [join(HERE, 'servers', script), ...args, '--mode=json'], cwd: ROOT, env: process.env };
      const { driver } = await HttpDriver.start(spec, { timeoutMs: config.timeoutMs, client: 'raw' });
      drivers.push(driver);
      return driver;
    };
    const sessions = new Map<string, HttpSession>();
    for (const row of SERVER_ROWS) {
      const driver = await start(row.name, row.script, row.args);
      const session = await driver.openSession(config.timeoutMs);
      if ((await session.verifyEcho(config.timeoutMs)) !== 'json') throw new Error(`${row.name}: the echo did not come back as JSON`);
      await session.run(warmup, IN_FLIGHT, config.timeoutMs, 'json');
      sessions.set(row.name, session);
    }
    const bare = await start('bare', 'bare-http.js', []);
    const clientOf = new Map<ClientRow, ClientUnderTest>();
    for (const row of CLIENT_ROWS) {
      const c = await openClient(row, bare.url);
      clients.push(c);
      clientOf.set(row, c);
      await c.run(warmup);
    }
    for (let rep = 0; rep < reps; rep++) {
      for (const row of rotated(SERVER_ROWS, rep)) {
        const r = await sessions.get(row.name)!.run(calls, IN_FLIGHT, config.timeoutMs, 'json');
        if (r.serverCpuUsPerCall === null) throw new Error(`${row.name}: no server CPU figure (no /proc?)`);
        serverCpu.get(row.name)!.push(r.serverCpuUsPerCall);
        serverRate.get(row.name)!.push(r.callsPerSec);
        process.stderr.write(
          `  rep ${rep + 1}/${reps} server ${row.name.padEnd(22)} ${formatNumber(r.serverCpuUsPerCall, 1)} µs CPU/call  ${formatNumber(r.callsPerSec, 0)} calls/s\n`,
        );
      }
      for (const row of rotated(CLIENT_ROWS, rep)) {
        const cpu = await processCpuPerCall(calls, (n) => clientOf.get(row)!.run(n));
        clientCpu.get(row)!.push(cpu);
        process.stderr.write(`  rep ${rep + 1}/${reps} client ${row.padEnd(22)} ${formatNumber(cpu, 1)} µs CPU/call\n`);
      }
    }
  } catch (error) {
    console.error(`otel: ${errorMessage(error)}`);
    return 1;
  } finally {
    for (const c of clients) await c.close();
    for (const d of drivers) await d.close().catch(() => {});
    context.disable();
  }

  /** The median over repetitions of row ÷ base, each repetition's figures together. */
  const ratioOf = (samples: ReadonlyMap<string, readonly number[]>, row: string, base: string): number =>
    median(samples.get(row)!.map((v, i) => v / samples.get(base)![i]!))!;
  const results: Record<string, unknown> = {};
  const serverTable: string[][] = [['server (own process)', 'CPU µs per call', 'vs uninstrumented', 'calls/s']];
  for (const row of SERVER_ROWS) {
    const cpu = median(serverCpu.get(row.name)!)!;
    const ratio = ratioOf(serverCpu, row.name, 'uninstrumented');
    results[`server ${row.name}`] = {
      cpuMicrosPerCall: cpu,
      cpuRatio: ratio,
      samples: serverCpu.get(row.name),
      callsPerSecond: median(serverRate.get(row.name)!),
    };
    serverTable.push([row.name, formatNumber(cpu, 1), formatRatio(ratio), formatNumber(median(serverRate.get(row.name)!), 0)]);
  }
  const clientTable: string[][] = [['mcpkit Client (this process) → bare server', 'CPU µs per call', 'vs uninstrumented']];
  for (const row of CLIENT_ROWS) {
    const cpu = median(clientCpu.get(row)!)!;
    const ratio = ratioOf(clientCpu as ReadonlyMap<string, number[]>, row, 'uninstrumented');
    results[`client ${row}`] = { cpuMicrosPerCall: cpu, cpuRatio: ratio, samples: clientCpu.get(row) };
    clientTable.push([row, formatNumber(cpu, 1), formatRatio(ratio)]);
  }
  console.log(formatTable(serverTable));
  console.log('');
  console.log(formatTable(clientTable));
  console.log('(ratios: the median of the per-repetition ratios; the instructions section counts off and full against uninstrumented exactly)');
  const targets: Target[] = [
    atMost(
      `server CPU per call, full mode with a no-op exporter ≤ ${FULL_MAX_RATIO}× uninstrumented at ${IN_FLIGHT} in flight`,
      ratioOf(serverCpu, 'full, no-op exporter', 'uninstrumented'),
      FULL_MAX_RATIO,
    ),
  ];
  console.log('\nTargets (issue 41):\n' + targets.map(showTarget).join('\n'));
  const out = join(ROOT, 'bench-results', 'otel.json');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(
    out,
    `${JSON.stringify({ inFlight: IN_FLIGHT, calls, warmup, reps, elapsedS: (performance.now() - began) / 1000, rows: results, targets }, null, 2)}\n`,
  );
  return 0;
}
