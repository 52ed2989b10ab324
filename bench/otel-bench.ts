/**
 * The otel section: what mcpkit/otel costs, over Streamable HTTP (JSON responses, 2025-11-25
 * session) at 32 calls in flight, client and server in this process, both instrumented the
 * same way:
 * - `uninstrumented`: neither side calls `instrument`;
 * - `off`: `instrument(…, { mode: 'off' })`, which registers nothing (must equal the row above
 *   within noise);
 * - `propagation`: trace context injected into and extracted from `params._meta`, no spans;
 * - `full, no-op exporter`: spans and metrics through the real SDK (BasicTracerProvider with
 *   a BatchSpanProcessor, the production setting, whose exporter drops the spans at once; a
 *   MeterProvider without a reader), under an active application span so context is
 *   propagated.
 * Repetitions are interleaved; each row reports median calls/s and the extra time per call
 * against the uninstrumented row, and the median CPU time per call (this process runs client
 * and server, so it is the whole cost; it moves less than the rate on a shared machine). Writes bench-results/otel.json.
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
import { serveNode } from '../src/http/node.js';
import { createStreamableHttpHandler } from '../src/http/server/handler.js';
import { type InstrumentOptions, instrument } from '../src/otel/index.js';
import { McpServer } from '../src/server/index.js';
import type { BenchConfig } from './config.js';
import { errorMessage } from './report.js';
import { formatNumber, formatTable, median } from './stats.js';

const IN_FLIGHT = 32;
type Row = 'uninstrumented' | 'off' | 'propagation' | 'full, no-op exporter';
const ROWS: readonly Row[] = ['uninstrumented', 'off', 'propagation', 'full, no-op exporter'];

/** Drops every span at once. */
const noopExporter: SpanExporter = {
  export: (_spans, done) => done({ code: ExportResultCode.SUCCESS }),
  shutdown: async () => {},
};

/** One timed run: calls per second, and the process's CPU time per call (client and server both run here) in µs. */
interface Sample {
  readonly rate: number;
  readonly cpuMicros: number;
}

/** Times `calls` `tools/call`s at {@link IN_FLIGHT} in flight against a fresh server and client in `row`'s mode. */
async function measure(row: Row, calls: number, warmup: number): Promise<Sample> {
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(noopExporter)] });
  const meterProvider = new MeterProvider();
  const options: InstrumentOptions | undefined =
    row === 'uninstrumented'
      ? undefined
      : {
          mode: row === 'off' ? 'off' : row === 'propagation' ? 'propagation' : 'full',
          tracerProvider,
          meterProvider,
          propagator: new W3CTraceContextPropagator(),
        };
  const server = new McpServer({ name: 'otel-bench', version: '1.0.0' });
  server.registerTool('echo', { description: 'echoes' }, () => 'ok');
  if (options !== undefined) instrument(server, options);
  const handle = await serveNode(createStreamableHttpHandler({ server, responseMode: 'json' }));
  const client = new Client({ name: 'otel-bench', version: '1.0.0' }, { protocolVersion: '2025-11-25' });
  if (options !== undefined) instrument(client, options);
  try {
    await client.connect(new StreamableHttpClientTransport({ url: handle.url }));
    const app = tracerProvider.getTracer('bench').startSpan('bench');
    const run = (n: number): Promise<void> =>
      context.with(trace.setSpan(context.active(), app), async () => {
        let next = 0;
        const lane = async (): Promise<void> => {
          while (next < n) {
            next++;
            await client.callTool({ name: 'echo' });
          }
        };
        await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
      });
    await run(warmup);
    const start = performance.now();
    const cpu = process.cpuUsage();
    await run(calls);
    const used = process.cpuUsage(cpu);
    const seconds = (performance.now() - start) / 1000;
    app.end();
    return { rate: calls / seconds, cpuMicros: (used.user + used.system) / calls };
  } finally {
    await client.close().catch(() => {});
    await handle.close().catch(() => {});
    await tracerProvider.shutdown();
    await meterProvider.shutdown();
  }
}

/** The otel section. Resolves with the exit status it asks for (0, or 1 on problems). */
export async function runOtelBench(config: BenchConfig): Promise<number> {
  const manager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(manager);
  const calls = Math.min(config.calls, 20_000);
  const warmup = Math.min(config.warmupCalls, 2_000);
  const samples = new Map<Row, Sample[]>(ROWS.map((r) => [r, []]));
  console.log(`otel: mcpkit/otel over Streamable HTTP (JSON), ${IN_FLIGHT} in flight, ${calls} calls × ${config.reps} interleaved repetitions`);
  try {
    for (let rep = 0; rep < config.reps; rep++) for (const row of ROWS) samples.get(row)!.push(await measure(row, calls, warmup));
  } catch (error) {
    console.error(`otel: ${errorMessage(error)}`);
    return 1;
  } finally {
    context.disable();
  }
  const rateOf = (row: Row): number => median(samples.get(row)!.map((s) => s.rate))!;
  const cpuOf = (row: Row): number => median(samples.get(row)!.map((s) => s.cpuMicros))!;
  const base = rateOf('uninstrumented');
  const baseCpu = cpuOf('uninstrumented');
  // on a shared machine the CPU time per call moves less than the wall-clock rate: both are reported
  const table: string[][] = [['mode', 'calls/s', 'vs uninstrumented', 'µs per call (extra)', 'CPU µs per call', 'CPU vs uninstrumented']];
  const results: Record<string, { callsPerSecond: number; ratio: number; extraMicrosPerCall: number; cpuMicrosPerCall: number; cpuRatio: number }> = {};
  for (const row of ROWS) {
    const rate = rateOf(row);
    const cpu = cpuOf(row);
    const extra = (1 / rate - 1 / base) * 1e6;
    results[row] = { callsPerSecond: rate, ratio: rate / base, extraMicrosPerCall: extra, cpuMicrosPerCall: cpu, cpuRatio: cpu / baseCpu };
    table.push([
      row,
      formatNumber(rate, 0),
      `${formatNumber((rate / base - 1) * 100, 1)} %`,
      `${formatNumber(1e6 / rate, 1)} (${extra >= 0 ? '+' : ''}${formatNumber(extra, 1)})`,
      formatNumber(cpu, 1),
      `${cpu >= baseCpu ? '+' : ''}${formatNumber((cpu / baseCpu - 1) * 100, 1)} %`,
    ]);
  }
  console.log(formatTable(table));
  const out = join(resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bench-results'), 'otel.json');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify({ inFlight: IN_FLIGHT, calls, reps: config.reps, rows: results }, null, 2)}\n`);
  return 0;
}
