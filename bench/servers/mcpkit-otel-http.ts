/**
 * Benchmark server for mcpkit/otel: `mcpkit-http.ts`'s server (the demo's rate-limit
 * middleware and task server, the `echo` tool, the Streamable HTTP handler's defaults behind
 * `serveNode`), instrumented with `instrument(server, { mode })` before anything else is
 * registered, as docs/observability.md asks:
 * - `--otel=off`: `mcpkit/otel` loaded and `instrument(…, { mode: 'off' })` called, which must
 *   register nothing (the issue: "off equals uninstrumented");
 * - `--otel=context`: mode `off`, with the AsyncLocalStorage context manager registered as
 *   every OpenTelemetry Node set-up does (the floor `full` stands on: on Node 20, once a
 *   context is entered, AsyncLocalStorage tracks every promise of the process);
 * - `--otel=floor`: not mcpkit/otel but the least any span-per-request instrumentation does
 *   with the same SDK set-up as `full`: an interceptor that starts one SERVER span with one
 *   attribute, makes it current while the request is handled, ends it and records one
 *   histogram value (the floor `full` is measured against);
 * - `--otel=propagation`: trace context extracted from each request (no spans);
 * - `--otel=full`: spans and the duration metrics through the real SDK as production sets it
 *   up: the AsyncLocalStorage context manager, a `BasicTracerProvider` with a
 *   `BatchSpanProcessor` whose exporter drops every batch (a no-op exporter), a
 *   `MeterProvider` without a reader, the W3C propagator.
 * The SDK packages are imported only for `propagation` and `full`.
 *
 * Run as a child process by the benchmark
 * (`node build/bench/servers/mcpkit-otel-http.js --otel=off|propagation|full --mode=json|sse`);
 * start-up and exit follow `http-harness.ts`.
 */

import { createStreamableHttpHandler } from 'mcpkit/http/server';
import { serveNode } from 'mcpkit/node/server';
import { type InstrumentOptions, instrument } from 'mcpkit/otel';
import { McpServer, rateLimit } from 'mcpkit/server';
import { TaskServer } from 'mcpkit/tasks';
import { announce, BENCH_HOST, BENCH_PATH, parseServerArgs } from './http-harness.js';
import { echoText, MINIMAL_ECHO_TOOL } from './minimal-echo.js';

/** The modes this server runs in (`--otel=…`). */
const MODES = ['off', 'context', 'floor', 'propagation', 'full'] as const;
type Mode = (typeof MODES)[number];

const argv = process.argv.slice(2);
const otelArg = argv.find((a) => a.startsWith('--otel='));
const otel = otelArg?.slice('--otel='.length);
if (otel === undefined || !(MODES as readonly string[]).includes(otel))
  throw new Error(`--otel must be one of ${MODES.join(', ')}; got ${JSON.stringify(otel)}`);
const { mode, port } = parseServerArgs(argv.filter((a) => a !== otelArg));

/** The SDK set up as production does, with a no-op exporter. */
async function sdkOptions(otelMode: Exclude<Mode, 'floor'>): Promise<InstrumentOptions> {
  if (otelMode === 'off') return { mode: 'off' };
  if (otelMode === 'context') {
    const [{ context }, { AsyncLocalStorageContextManager }] = await Promise.all([import('@opentelemetry/api'), import('@opentelemetry/context-async-hooks')]);
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    // entered once, as an instrumented process does at its first span: AsyncLocalStorage is live from here on
    context.with(context.active(), () => {});
    return { mode: 'off' };
  }
  const [{ context }, { AsyncLocalStorageContextManager }, { ExportResultCode, W3CTraceContextPropagator }, { MeterProvider }, traceBase] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/core'),
    import('@opentelemetry/sdk-metrics'),
    import('@opentelemetry/sdk-trace-base'),
  ]);
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const exporter = {
    export: (_spans: unknown, done: (result: { code: number }) => void) => done({ code: ExportResultCode.SUCCESS }),
    shutdown: async () => {},
  };
  return {
    mode: otelMode,
    tracerProvider: new traceBase.BasicTracerProvider({ spanProcessors: [new traceBase.BatchSpanProcessor(exporter)] }),
    meterProvider: new MeterProvider(),
    propagator: new W3CTraceContextPropagator(),
  };
}

/** The `floor` row's interceptor (see the module note), on the `full` row's SDK set-up. */
async function floorInterceptor(on: McpServer): Promise<void> {
  const options = await sdkOptions('full');
  const { context, SpanKind, trace } = await import('@opentelemetry/api');
  const tracer = options.tracerProvider!.getTracer('floor');
  const histogram = options.meterProvider!.getMeter('floor').createHistogram('floor.duration', { unit: 's' });
  on.use(
    {
      name: 'floor',
      intercept: (call, next) => {
        const start = performance.now();
        const span = tracer.startSpan(call.method, { kind: SpanKind.SERVER, attributes: { 'mcp.method.name': call.method } });
        return context.with(trace.setSpan(context.active(), span), () =>
          Promise.resolve(next()).finally(() => {
            span.end();
            histogram.record((performance.now() - start) / 1000, { 'mcp.method.name': call.method });
          }),
        );
      },
    },
    { direction: 'incoming' },
  );
}

const onError = (error: Error): void => {
  process.stderr.write(`mcpkit-otel-http: ${error.message}\n`);
};
const server = new McpServer({ name: 'mcpkit-bench', version: '1.0.0' }, { onError });
if (otel === 'floor') await floorInterceptor(server);
// first, so its spans cover the middleware after it
else instrument(server, await sdkOptions(otel as Exclude<Mode, 'floor'>));
server.use(rateLimit({ limit: 1_000_000, windowMs: 60_000 }));
new TaskServer(server, { pollIntervalMs: 500, onError });
server.registerTool('echo', MINIMAL_ECHO_TOOL, echoText);
const handler = createStreamableHttpHandler({ server, endpoint: BENCH_PATH, responseMode: mode, onError });
const running = await serveNode(handler, { port, host: BENCH_HOST });
announce(running.port, () => running.close());
