/**
 * The shared machinery of one `instrument` call: the tracer, the propagator, the four
 * duration histograms, and the one function that runs an operation inside its span and
 * records its outcome (value, promise or throw, as the interceptor chain hands it through).
 */
import {
  type Attributes,
  type Context,
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
  type TextMapSetter,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import type { JSONObject, RequestId } from '../jsonrpc/types.js';
import { Attr, createdTaskId, DURATION_BUCKETS, failureOf, isToolError, jsonAttribute, METRIC_METHOD_ATTRIBUTES, Metric, TOOL_ERROR } from './conventions.js';

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
  /** Task-creating spans remembered to link a later `tasks/result` to (oldest forgotten first). Default 1000. */
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

export type HeaderBag = Headers | Record<string, string | string[] | undefined>;

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

/** Writes what a propagator injects into a plain object. */
const objectSetter: TextMapSetter<Record<string, string>> = {
  set: (carrier, key, value) => {
    carrier[key] = value;
  },
};

/**
 * One operation in flight: what its span starts with, and how its end is recorded (which
 * histogram, with which attributes). Built once per message; {@link Telemetry.start} fills
 * in the span and start time.
 */
export interface Operation {
  readonly kind: SpanKind;
  readonly name: string;
  readonly method: string;
  /** The span's attributes: the connection's, then the method's. */
  readonly attributes: Attributes;
  /** The connection attributes the metric point carries (the method's are added from `attributes`). */
  readonly metricBase: Attributes;
  readonly parent: Context;
  readonly links: Link[] | undefined;
  readonly histogram: Histogram;
  /** Incoming requests: the JSON-RPC code an unexplained throw is answered with (-32603). */
  readonly fallbackCode: number | undefined;
  /** `tools/call` around which an outer `execute_tool` span is enriched instead (`parent` is then the active context). */
  readonly reuse: Span | undefined;
  /** The id of a request sent below the instrumentation, read when it ends (`jsonrpc.request.id`), if the span lacks it. */
  readonly requestId: (() => RequestId | undefined) | undefined;
  /** Set by {@link Telemetry.start}. */
  span: Span | undefined;
  /** `performance.now()` at {@link Telemetry.start}. */
  startedAt: number;
}

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

  /** The context `params._meta` carries (SEP-414), or undefined when it names no `traceparent`. */
  fromMeta(params: JSONObject | undefined): Context | undefined {
    const meta = params?._meta;
    if (typeof meta !== 'object' || meta === null || Array.isArray(meta) || typeof (meta as JSONObject).traceparent !== 'string') return undefined;
    return this.propagator.extract(ROOT_CONTEXT, meta as JSONObject, metaGetter);
  }

  /** The context HTTP request headers carry, or undefined when they have no `traceparent`. */
  fromHeaders(headers: HeaderBag): Context | undefined {
    if (headerGetter.get(headers, 'traceparent') === undefined) return undefined;
    return this.propagator.extract(ROOT_CONTEXT, headers, headerGetter);
  }

  /** `params` with `ctx`'s trace context added to its `_meta` (the same object when there is nothing to add). */
  inject(params: JSONObject | undefined, ctx: Context): JSONObject | undefined {
    const carrier: Record<string, string> = {};
    this.propagator.inject(ctx, carrier, objectSetter);
    let empty = true;
    for (const _key in carrier) {
      empty = false;
      break;
    }
    if (empty) return params;
    const meta = params?._meta;
    return { ...params, _meta: typeof meta === 'object' && meta !== null && !Array.isArray(meta) ? { ...meta, ...carrier } : carrier };
  }

  /** Links of a received message's span: the transport's context and the ambient one, when they differ from the parent. */
  receivedLinks(parent: Context, transport: Context | undefined, ambient: Context): Link[] | undefined {
    if (transport === undefined && trace.getSpanContext(ambient) === undefined) return undefined;
    let links: Link[] | undefined;
    const parentId = trace.getSpanContext(parent)?.spanId;
    for (const candidate of [transport, ambient]) {
      const sc = candidate === undefined ? undefined : trace.getSpanContext(candidate);
      if (sc !== undefined && trace.isSpanContextValid(sc) && sc.spanId !== parentId && !links?.some((l) => l.context.spanId === sc.spanId))
        (links ??= []).push({ context: sc });
    }
    return links;
  }

  /** Adds the link to the span that created task `params.taskId`, for `tasks/result`. */
  taskLink(method: string, params: JSONObject | undefined, links: Link[] | undefined): Link[] | undefined {
    if (method !== 'tasks/result' || typeof params?.taskId !== 'string') return links;
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
   * Starts the operation's span (or enriches the reused one) and returns the context to run
   * it in: the parent with the span set.
   */
  start(op: Operation): Context {
    op.startedAt = performance.now();
    const reused = op.reuse;
    if (reused !== undefined) {
      reused.setAttributes(op.attributes);
      op.span = reused;
      return op.parent;
    }
    const span = this.tracer.startSpan(op.name, { kind: op.kind, attributes: op.attributes, links: op.links }, op.parent);
    op.span = span;
    return trace.setSpan(op.parent, span);
  }

  /**
   * Ends the operation with `outcome` as the chain handed it back (a value or a promise of
   * one) and passes it through unchanged: a promise's rejection still rejects.
   */
  settle(op: Operation, outcome: unknown): unknown {
    if (typeof (outcome as PromiseLike<unknown> | null)?.then === 'function') {
      return (outcome as PromiseLike<unknown>).then(
        (result) => {
          this.#end(op, result, undefined);
          return result;
        },
        (error: unknown) => {
          this.#end(op, undefined, error);
          throw error;
        },
      );
    }
    this.#end(op, outcome, undefined);
    return outcome;
  }

  /** Ends the operation with the throw `error` (rethrown by the caller). */
  fail(op: Operation, error: unknown): void {
    this.#end(op, undefined, error);
  }

  #end(op: Operation, result: unknown, error: unknown): void {
    const seconds = (performance.now() - op.startedAt) / 1000;
    const span = op.span!;
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
    if (op.requestId !== undefined) {
      const id = op.requestId();
      if (id !== undefined) span.setAttribute(Attr.RequestId, String(id));
    }
    if (op.reuse === undefined) span.end();
    const attributes: Attributes = { ...op.metricBase, [Attr.MethodName]: op.method };
    for (const key of METRIC_METHOD_ATTRIBUTES) {
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
