/**
 * The shared machinery of one `instrument` call: the tracer, the propagator, the four
 * duration histograms, and the one function that runs an operation inside its span and
 * records its outcome (value, promise or throw, as the interceptor chain hands it through).
 */
import {
  type Attributes,
  type Context,
  context,
  createContextKey,
  type Histogram,
  type Link,
  type MeterProvider,
  metrics,
  propagation,
  ROOT_CONTEXT,
  type Span,
  type SpanContext,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  type TextMapPropagator,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import type { JSONObject } from '../jsonrpc/types.js';
import {
  Attr,
  createdTaskId,
  DURATION_BUCKETS,
  failureOf,
  isToolError,
  jsonAttribute,
  METRIC_ATTRIBUTES,
  Metric,
  TASK_FOLLOW_UPS,
  TOOL_ERROR,
} from './conventions.js';

/** What `instrument` records: spans and metrics with propagation (`full`), only the trace context carried across hops (`propagation`), or nothing (`off`). */
export type OtelMode = 'full' | 'propagation' | 'off';

/** Options of `instrument`. */
export interface InstrumentOptions {
  /** Default `full`. `off` registers nothing (the hot path is the uninstrumented one). */
  mode?: OtelMode;
  /** Default: the global tracer provider (`trace.getTracerProvider()`). */
  tracerProvider?: TracerProvider;
  /** Default: the global meter provider (`metrics.getMeterProvider()`). */
  meterProvider?: MeterProvider;
  /**
   * Injects and extracts the trace context in `params._meta` and HTTP headers. Default: the
   * global propagator (`propagation`), which the OpenTelemetry Node SDK sets to W3C Trace
   * Context and Baggage; with a bare SDK, register `W3CTraceContextPropagator` yourself or
   * nothing is propagated.
   */
  propagator?: TextMapPropagator;
  /** Record `gen_ai.tool.call.arguments` (opt-in in the conventions: may hold sensitive data). Default false. */
  captureArguments?: boolean;
  /** Record `gen_ai.tool.call.result` of successful tool calls (opt-in: may hold sensitive data). Default false. */
  captureResults?: boolean;
  /** Put `mcp.resource.uri` in the span name of resource methods (the conventions' opt-in: high cardinality). Default false. */
  resourceUriInSpanName?: boolean;
  /**
   * Client side: when a GenAI `execute_tool` span is the active span around `tools/call`,
   * add the MCP attributes to it instead of starting another span (the conventions'
   * SHOULD). Default true.
   */
  reuseToolSpan?: boolean;
  /** Task-creating spans remembered to link a later `tasks/result`, `tasks/get`, `tasks/update` or `tasks/cancel` to (oldest forgotten first). Default 1000. */
  maxTrackedTasks?: number;
}

/** Reads string values from a `_meta` object. */
const metaGetter: TextMapGetter<JSONObject> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    return typeof value === 'string' ? value : undefined;
  },
};

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

/** Reads HTTP request headers (a web `Headers` or a Node headers record). */
const headerGetter: TextMapGetter<HeaderBag> = {
  keys: (carrier) => {
    if (!(carrier instanceof Headers)) return Object.keys(carrier);
    const keys: string[] = [];
    carrier.forEach((_value, key) => {
      keys.push(key);
    });
    return keys;
  },
  get: (carrier, key) => (carrier instanceof Headers ? (carrier.get(key) ?? undefined) : carrier[key.toLowerCase()]),
};

/** What {@link Telemetry.extract} finds in a message without trace context (one object for all of them). */
const NO_PARENT: { readonly parent: Context; readonly transport: Context | undefined } = Object.freeze({ parent: ROOT_CONTEXT, transport: undefined });

/** How a span ends its operation's metric: which histogram, with which of the span's attributes. */
export interface Operation {
  readonly kind: SpanKind;
  readonly name: string;
  readonly method: string;
  readonly attributes: Attributes;
  readonly parent: Context;
  readonly links: Link[] | undefined;
  readonly histogram: Histogram;
  /** Incoming requests: the JSON-RPC code an unexplained throw is answered with (-32603). */
  readonly fallbackCode: number | undefined;
  /** `tools/call` around which an outer `execute_tool` span may be enriched instead. */
  readonly reuse: Span | undefined;
  /**
   * A stateless-era (2026-07-28) request's revision, kept in its span's context: the
   * connection agreed on none, and what the handler sends beneath the interceptors
   * (`notifications/progress`, control.ts) takes its `mcp.protocol.version` from there.
   */
  readonly statelessRevision?: string | undefined;
}

/** The context key of {@link Operation.statelessRevision}. */
export const STATELESS_REVISION_KEY: symbol = createContextKey('mcpkit stateless revision');

/** One `instrument` call's tracer, meter instruments, propagator and task links. */
export class Telemetry {
  readonly mode: 'full' | 'propagation';
  readonly tracer: Tracer;
  readonly propagator: TextMapPropagator;
  readonly clientDuration: Histogram;
  readonly serverDuration: Histogram;
  readonly clientSession: Histogram;
  readonly serverSession: Histogram;
  readonly captureArguments: boolean;
  readonly captureResults: boolean;
  readonly uriInName: boolean;
  readonly reuseToolSpan: boolean;
  readonly #maxTasks: number;
  /** Task id → the span of the request that created it (insertion order: oldest first). */
  readonly #tasks = new Map<string, SpanContext>();

  constructor(mode: 'full' | 'propagation', options: InstrumentOptions) {
    this.mode = mode;
    this.tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer('mcpkit');
    this.propagator = options.propagator ?? propagation;
    const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter('mcpkit');
    const histogram = (name: string, description: string): Histogram =>
      meter.createHistogram(name, { unit: 's', description, advice: { explicitBucketBoundaries: [...DURATION_BUCKETS] } });
    this.clientDuration = histogram(
      Metric.ClientOperation,
      'The duration of the MCP request or notification as observed on the sender from the time it was sent until the response or ack is received.',
    );
    this.serverDuration = histogram(
      Metric.ServerOperation,
      'MCP request or notification duration as observed on the receiver from the time it was received until the result or ack is sent.',
    );
    this.clientSession = histogram(Metric.ClientSession, 'The duration of the MCP session as observed on the MCP client.');
    this.serverSession = histogram(Metric.ServerSession, 'The duration of the MCP session as observed on the MCP server.');
    this.captureArguments = options.captureArguments === true;
    this.captureResults = options.captureResults === true;
    this.uriInName = options.resourceUriInSpanName === true;
    this.reuseToolSpan = options.reuseToolSpan !== false;
    const max = options.maxTrackedTasks ?? 1000;
    if (!(Number.isInteger(max) && max >= 0)) throw new RangeError(`maxTrackedTasks must be a non-negative integer; got ${String(max)}`);
    this.#maxTasks = max;
  }

  /**
   * The remote parent a received message names (SEP-414: `params._meta`), else the one its
   * HTTP request's headers name; `transport` is the headers' context when both are present
   * (the conventions: the transport context is recorded as a link). ROOT_CONTEXT when none.
   */
  extract(params: JSONObject | undefined, headers: HeaderBag | undefined): { parent: Context; transport: Context | undefined } {
    const meta = params?._meta;
    const fromMeta = typeof meta === 'object' && meta !== null && !Array.isArray(meta) && typeof (meta as JSONObject).traceparent === 'string';
    const fromHeaders = headers !== undefined && headerGetter.get(headers, 'traceparent') !== undefined;
    if (fromMeta) {
      const parent = this.propagator.extract(ROOT_CONTEXT, meta as JSONObject, metaGetter);
      return { parent, transport: fromHeaders ? this.propagator.extract(ROOT_CONTEXT, headers!, headerGetter) : undefined };
    }
    if (fromHeaders) return { parent: this.propagator.extract(ROOT_CONTEXT, headers!, headerGetter), transport: undefined };
    return NO_PARENT;
  }

  /** `params` with `ctx`'s trace context added to its `_meta` (the same object when there is nothing to add). */
  inject(params: JSONObject | undefined, ctx: Context): JSONObject | undefined {
    let carrier: Record<string, string> | undefined;
    this.propagator.inject(ctx, params, {
      set: (_carrier, key, value) => {
        (carrier ??= {})[key] = value;
      },
    });
    if (carrier === undefined) return params;
    const meta = params?._meta;
    return { ...params, _meta: { ...(typeof meta === 'object' && meta !== null && !Array.isArray(meta) ? meta : {}), ...carrier } };
  }

  /** Links of a received message's span: the transport's context and the ambient one, when they differ from the parent. */
  receivedLinks(parent: Context, transport: Context | undefined, ambient: Context): Link[] | undefined {
    let links: Link[] | undefined;
    const parentId = trace.getSpanContext(parent)?.spanId;
    for (const candidate of [transport, ambient]) {
      const sc = candidate === undefined ? undefined : trace.getSpanContext(candidate);
      if (sc !== undefined && trace.isSpanContextValid(sc) && sc.spanId !== parentId && !links?.some((l) => l.context.spanId === sc.spanId))
        (links ??= []).push({ context: sc });
    }
    return links;
  }

  /** Adds the link to the span that created task `params.taskId`, for a request about it ({@link TASK_FOLLOW_UPS}: `tasks/result`, `tasks/get`, …). */
  taskLink(method: string, params: JSONObject | undefined, links: Link[] | undefined): Link[] | undefined {
    if (typeof params?.taskId !== 'string' || !TASK_FOLLOW_UPS.has(method)) return links;
    const created = this.#tasks.get(params.taskId);
    if (created === undefined) return links;
    return [...(links ?? []), { context: created, attributes: { 'mcp.task.id': params.taskId } }];
  }

  #rememberTask(id: string, span: SpanContext): void {
    if (this.#maxTasks === 0) return;
    this.#tasks.delete(id);
    this.#tasks.set(id, span);
    if (this.#tasks.size > this.#maxTasks) this.#tasks.delete(this.#tasks.keys().next().value!);
  }

  /**
   * Runs `run` inside the operation's span (started now, made active) and ends it with the
   * outcome `run` hands back as it comes: a value, a promise of one, or a throw, which is
   * passed through unchanged. `run` gets the span's context (to inject into an outgoing
   * message). Records the operation's duration on its histogram.
   */
  around(op: Operation, run: (ctx: Context) => unknown): unknown {
    const start = performance.now();
    const reused = op.reuse;
    const span = reused ?? this.tracer.startSpan(op.name, { kind: op.kind, attributes: op.attributes, links: op.links }, op.parent);
    if (reused !== undefined) reused.setAttributes(op.attributes);
    let ctx = reused !== undefined ? context.active() : trace.setSpan(op.parent, span);
    if (op.statelessRevision !== undefined) ctx = ctx.setValue(STATELESS_REVISION_KEY, op.statelessRevision);
    let outcome: unknown;
    try {
      outcome = context.with(ctx, run, undefined, ctx);
    } catch (error) {
      this.#end(op, span, reused !== undefined, start, undefined, error);
      throw error;
    }
    if (typeof (outcome as PromiseLike<unknown> | null)?.then === 'function') {
      return (outcome as PromiseLike<unknown>).then(
        (result) => {
          this.#end(op, span, reused !== undefined, start, result, undefined);
          return result;
        },
        (error: unknown) => {
          this.#end(op, span, reused !== undefined, start, undefined, error);
          throw error;
        },
      );
    }
    this.#end(op, span, reused !== undefined, start, outcome, undefined);
    return outcome;
  }

  #end(op: Operation, span: Span, reused: boolean, start: number, result: unknown, error: unknown): void {
    const seconds = (performance.now() - start) / 1000;
    let errorType: string | undefined;
    let statusCode: string | undefined;
    if (error !== undefined) {
      const failure = failureOf(error, op.fallbackCode);
      errorType = failure.type;
      statusCode = failure.statusCode;
      span.setStatus({ code: SpanStatusCode.ERROR, message: failure.message });
    } else if (isToolError(op.method, result)) {
      errorType = TOOL_ERROR;
      span.setStatus({ code: SpanStatusCode.ERROR });
    } else {
      if (this.captureResults && op.method === 'tools/call' && result !== undefined) span.setAttribute(Attr.ToolResult, jsonAttribute(result));
      const task = createdTaskId(result);
      if (task !== undefined) this.#rememberTask(task, span.spanContext());
    }
    if (errorType !== undefined) span.setAttribute(Attr.ErrorType, errorType);
    if (statusCode !== undefined) span.setAttribute(Attr.StatusCode, statusCode);
    if (!reused) span.end();
    const attributes: Attributes = {};
    for (const key of METRIC_ATTRIBUTES) {
      const value = op.attributes[key];
      if (value !== undefined) attributes[key] = value;
    }
    if (errorType !== undefined) attributes[Attr.ErrorType] = errorType;
    if (statusCode !== undefined) attributes[Attr.StatusCode] = statusCode;
    op.histogram.record(seconds, attributes);
  }
}

/**
 * True when `span` is a recording GenAI `execute_tool` span of an outer instrumentation: an
 * INTERNAL span (the GenAI conventions' kind for tool execution) whose operation is
 * `execute_tool`, and not an MCP span (a server's `tools/call` span, active in a tool handler
 * that calls another server, is a parent, not a span to reuse). Read through the SDK's
 * readable span (`kind`, `name`, `attributes`); an API without them reuses nothing.
 */
export function isToolSpan(span: Span | undefined): span is Span {
  if (span === undefined || !span.isRecording()) return false;
  const readable = span as unknown as { attributes?: Attributes; name?: unknown; kind?: unknown };
  if (readable.kind !== SpanKind.INTERNAL || readable.attributes?.[Attr.MethodName] !== undefined) return false;
  return readable.attributes?.[Attr.OperationName] === 'execute_tool' || (typeof readable.name === 'string' && readable.name.startsWith('execute_tool'));
}

export { SpanKind };
