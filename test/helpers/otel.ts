/**
 * The OpenTelemetry SDK as the otel tests use it (the real SDK: an in-memory span exporter,
 * a metric reader, the async-hooks context manager, W3C Trace Context and Baggage), the
 * server every otel test instruments, and OTLP/JSON spans read back into a common shape.
 */
import { type Attributes, type AttributeValue, context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  AggregationTemporality,
  type HistogramMetricData,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { McpError } from '../../src/jsonrpc/errors.js';
import { McpServer, type ServerOptions } from '../../src/server/index.js';

let contextManager: AsyncLocalStorageContextManager | undefined;

/** Installs the async-hooks context manager once per process (what the Node SDK does). */
export function useAsyncContext(): void {
  if (contextManager !== undefined) return;
  contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
}

/** W3C Trace Context and Baggage, as the Node SDK configures them. */
export const w3c = new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] });

/** One process's SDK: spans in memory, metrics read on demand. */
export interface Sdk {
  readonly tracerProvider: BasicTracerProvider;
  readonly meterProvider: MeterProvider;
  readonly exporter: InMemorySpanExporter;
  spans(): ReadableSpan[];
  /** The histograms collected now, by name. */
  histograms(): Promise<Map<string, HistogramMetricData>>;
  shutdown(): Promise<void>;
}

export function sdk(): Sdk {
  useAsyncContext();
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const reader = new PeriodicExportingMetricReader({
    exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
    exportIntervalMillis: 3_600_000,
  });
  const meterProvider = new MeterProvider({ readers: [reader] });
  return {
    tracerProvider,
    meterProvider,
    exporter,
    spans: () => exporter.getFinishedSpans(),
    async histograms() {
      const { resourceMetrics } = await reader.collect();
      const found = new Map<string, HistogramMetricData>();
      for (const scope of resourceMetrics.scopeMetrics) for (const metric of scope.metrics) found.set(metric.descriptor.name, metric as HistogramMetricData);
      return found;
    },
    async shutdown() {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}

/** A span as the tests compare it, from the SDK or from an OTLP/JSON export. */
export interface SpanView {
  readonly name: string;
  /** `server` or `client` (`internal` for others). */
  readonly kind: 'server' | 'client' | 'internal' | 'other';
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly attributes: Record<string, AttributeValue | undefined>;
  readonly links: readonly { traceId: string; spanId: string }[];
  readonly error: boolean;
  readonly statusMessage: string | undefined;
  readonly service: string | undefined;
}

export function viewOf(span: ReadableSpan): SpanView {
  return {
    name: span.name,
    kind: span.kind === 1 ? 'server' : span.kind === 2 ? 'client' : span.kind === 0 ? 'internal' : 'other',
    traceId: span.spanContext().traceId,
    spanId: span.spanContext().spanId,
    parentSpanId: span.parentSpanContext?.spanId,
    attributes: span.attributes as Attributes,
    links: span.links.map((l) => ({ traceId: l.context.traceId, spanId: l.context.spanId })),
    error: span.status.code === 2,
    statusMessage: span.status.message,
    service: undefined,
  };
}

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: OtlpValue }[];
  links?: { traceId: string; spanId: string }[];
  status?: { code?: number; message?: string };
}

/** An OTLP id as hex (the JSON encoding writes hex; base64 is accepted too). */
function hex(id: string | undefined): string | undefined {
  if (id === undefined || id === '') return undefined;
  return /^[0-9a-f]+$/i.test(id) && (id.length === 32 || id.length === 16) ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex');
}

/** The spans of one OTLP/JSON `ExportTraceServiceRequest` body. */
export function spansOfOtlp(body: unknown): SpanView[] {
  const out: SpanView[] = [];
  const resourceSpans = (body as { resourceSpans?: unknown[] }).resourceSpans ?? [];
  for (const rs of resourceSpans as { resource?: { attributes?: { key: string; value: OtlpValue }[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[]) {
    const service = rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue;
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        const attributes: Record<string, AttributeValue | undefined> = {};
        for (const a of s.attributes ?? []) {
          const v = a.value;
          attributes[a.key] = v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.boolValue ?? v.doubleValue));
        }
        out.push({
          name: s.name,
          // OTLP's SpanKind: 1 internal, 2 server, 3 client
          kind: s.kind === 2 ? 'server' : s.kind === 3 ? 'client' : s.kind === 1 ? 'internal' : 'other',
          traceId: hex(s.traceId)!,
          spanId: hex(s.spanId)!,
          parentSpanId: hex(s.parentSpanId),
          attributes,
          links: (s.links ?? []).map((l) => ({ traceId: hex(l.traceId)!, spanId: hex(l.spanId)! })),
          error: s.status?.code === 2,
          statusMessage: s.status?.message,
          service,
        });
      }
    }
  }
  return out;
}

/**
 * The server every otel test instruments: tools that answer, fail (`isError`), ask the
 * client back (sampling, roots, a log message; form elicitation, ping), a prompt with a completer, a
 * resource and a template.
 */
export function fixtureServer(name = 'otel-fixture', options?: ServerOptions): McpServer {
  const server = new McpServer({ name, version: '1.0.0' }, options);
  server.registerTool(
    'weather',
    { description: 'the weather', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } },
    (args: { city?: string }) => `sunny in ${args.city ?? '?'}`,
  );
  server.registerTool('broken', { description: 'always fails' }, () => ({ content: [{ type: 'text' as const, text: 'it broke' }], isError: true }));
  server.registerTool('refuse', { description: 'answers a JSON-RPC error' }, () => {
    throw new McpError(-32042, 'refused on purpose');
  });
  server.registerTool('ask', { description: 'asks the client back' }, async (_args, ctx) => {
    await ctx.log('info', 'asking');
    const llm = await ctx.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 });
    const roots = await ctx.listRoots();
    return `${llm.model}|${roots.length}`;
  });
  server.registerTool('more', { description: 'a form elicitation and a ping back to the client (2025 era)' }, async (_args, ctx) => {
    const form = await ctx.elicitForm({ message: 'ok?', requestedSchema: { type: 'object', properties: {} } });
    await ctx.connection?.ping();
    return form.action;
  });
  server.registerPrompt(
    'greet',
    { description: 'greets', arguments: [{ name: 'who', required: true }], complete: { who: () => ['world', 'wide'] } },
    (args: { who: string }) => ({
      messages: [{ role: 'user' as const, content: { type: 'text' as const, text: `hello ${args.who}` } }],
    }),
  );
  server.registerResource('test://doc', { name: 'doc' }, (uri) => ({ uri, text: 'the doc' }));
  server.registerResourceTemplate('test://items/{id}', { name: 'items' }, (uri) => ({ uri, text: 'an item' }));
  return server;
}

/** The client answers `fixtureServer`'s `ask` and `more` need (sampling, roots, form elicitation). */
export const fixtureAnswers = {
  sampling: { createMessage: () => ({ role: 'assistant' as const, model: 'm1', content: { type: 'text' as const, text: 'llm' } }) },
  roots: { listChanged: true, list: () => [{ uri: 'file:///r1' }] },
  elicitation: { form: () => ({ action: 'accept' as const, content: {} }) },
};

/** A local OTLP/HTTP trace receiver (JSON bodies) on 127.0.0.1, for processes that export with the real OTLP exporter. */
export interface OtlpReceiver {
  /** The `/v1/traces` URL to export to. */
  readonly url: string;
  /** Every span received so far. */
  readonly spans: SpanView[];
  /** Export requests received (with their content type). */
  readonly requests: { contentType: string | undefined; bytes: number }[];
  /** Resolves once `condition` holds of the spans received (rejects after `ms`, naming `what`). */
  until(condition: (spans: SpanView[]) => boolean, what: string, ms?: number): Promise<void>;
  close(): Promise<void>;
}

const MAX_EXPORT_BYTES = 8 * 1024 * 1024;

export async function otlpReceiver(): Promise<OtlpReceiver> {
  const { createServer } = await import('node:http');
  const spans: SpanView[] = [];
  const requests: { contentType: string | undefined; bytes: number }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_EXPORT_BYTES) chunks.push(chunk);
    });
    req.on('end', () => {
      requests.push({ contentType: req.headers['content-type'], bytes: size });
      if (req.method !== 'POST' || req.url !== '/v1/traces' || size > MAX_EXPORT_BYTES) {
        res.writeHead(400).end();
        return;
      }
      try {
        spans.push(...spansOfOtlp(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/v1/traces`,
    spans,
    requests,
    async until(condition, what, ms = 15_000) {
      const deadline = Date.now() + ms;
      while (!condition(spans)) {
        if (Date.now() > deadline)
          throw new Error(`The OTLP receiver did not get ${what} within ${ms} ms; it has: ${spans.map((s) => `${s.service}:${s.kind}:${s.name}`).join(', ')}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The path of the compiled stdio server script (otel-server-main). */
export const OTEL_SERVER_MAIN: string = new URL('./otel-server-main.js', import.meta.url).pathname;
