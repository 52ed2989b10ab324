/**
 * `instrument(server | client, options)`: OpenTelemetry spans, metrics and trace-context
 * propagation for MCP, by the conventions in conventions.ts.
 *
 * - A server is instrumented through its per-request interceptor seam
 *   (`server.use(interceptor, { direction: 'both' })`): a SERVER span per incoming request
 *   or notification, a CLIENT span per request or notification the server sends (sampling,
 *   elicitation, roots, ping, progress, log messages, list changes), and
 *   `mcp.server.session.duration` per connection (`server.onConnect`).
 * - A client is instrumented through its middleware (`client.use(middleware, 'both')`, the
 *   public hook every request and notification passes, both directions): a CLIENT span per
 *   request or notification it sends, a SERVER span per request or notification the server
 *   sends it, and `mcp.client.session.duration` per connection (`client.onConnect`: so
 *   instrument a client before `connect` to have its session measured).
 *
 * Register it first (`use` runs the first registered outermost), so its spans cover what
 * later interceptors and middleware do, refusals included.
 */
import { type Attributes, context, type Span, trace } from '@opentelemetry/api';
import type { Client } from '../client/client.js';
import type { JSONObject } from '../jsonrpc/types.js';
import type { CallContext, MethodHandler, Middleware } from '../protocol/middleware.js';
import type { ServerConnection } from '../server/connection.js';
import type { InterceptContext, InterceptNext, Interceptor } from '../server/interceptors.js';
import type { McpServer } from '../server/server.js';
import type { RequestOptions } from '../session/session.js';
import type { Transport } from '../transport/types.js';
import { Attr, describeMethod, jsonAttribute } from './conventions.js';
import { type HeaderBag, type InstrumentOptions, isToolSpan, type Operation, SpanKind, Telemetry } from './telemetry.js';

/** The JSON-RPC code an incoming request is answered with when its handler throws something that is not an McpError. */
const INTERNAL_ERROR = -32603;

/**
 * Instruments `target` (an `McpServer` or a `Client`) and returns it. `mode` `off` registers
 * nothing: the target's hot path is the uninstrumented one. `propagation` only carries the
 * trace context: it extracts it from each received message (`params._meta`, SEP-414; else
 * the HTTP request's `traceparent` header) and makes it current while the message is
 * handled, and injects the current context into each message sent. `full` (the default)
 * also records spans and the duration metrics.
 *
 * A pool of clients is instrumented by instrumenting each client it creates, with the same
 * options (for instance in the pool's client factory, before the client connects): spans and
 * metrics are per request and per connection, so nothing about them is the pool's own.
 *
 * Throws TypeError when `target` is neither a server nor a client, RangeError for a bad option,
 * Error when `target` is already instrumented (in a mode other than `off`).
 */
export function instrument<T extends McpServer | Client>(target: T, options: InstrumentOptions = {}): T {
  const mode = options.mode ?? 'full';
  if (mode !== 'full' && mode !== 'propagation' && mode !== 'off')
    throw new RangeError(`Unknown OpenTelemetry mode ${JSON.stringify(mode)}; use 'full', 'propagation' or 'off'`);
  const client = isClient(target);
  if (!client && !isServer(target)) throw new TypeError('instrument() takes an McpServer or a Client; to instrument a pool, instrument each of its clients');
  if (mode === 'off') return target;
  if (instrumented.has(target)) {
    throw new Error(
      `instrument(): this ${client ? 'client' : 'server'} is already instrumented; instrument it once (a second call would record every span twice)`,
    );
  }
  const telemetry = new Telemetry(mode, options);
  instrumented.add(target);
  if (client) instrumentClient(target as Client, telemetry);
  else instrumentServer(target as McpServer, telemetry);
  return target;
}

/** The servers and clients instrumented so far (a second `instrument` would double every span). */
const instrumented = new WeakSet<object>();

function isClient(value: unknown): value is Client {
  return typeof value === 'object' && value !== null && typeof (value as Client).callTool === 'function' && typeof (value as Client).use === 'function';
}

function isServer(value: unknown): value is McpServer {
  return (
    typeof value === 'object' && value !== null && typeof (value as McpServer).handle === 'function' && typeof (value as McpServer).onConnect === 'function'
  );
}

/** `network.transport` (and `network.protocol.name`, `server.address`, `server.port` for an HTTP peer) of a transport. */
function transportAttributes(transport: Transport | undefined, into: Record<string, string | number>, withServer: boolean): void {
  if (transport === undefined) return;
  const peer = transport.peer;
  if (typeof peer === 'string' && /^https?:/i.test(peer)) {
    into[Attr.NetworkTransport] = transport.network ?? 'tcp';
    into[Attr.NetworkProtocolName] = 'http';
    if (withServer) {
      try {
        const url = new URL(peer);
        into[Attr.ServerAddress] = url.hostname.replace(/^\[|\]$/g, '');
        into[Attr.ServerPort] = url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
      } catch {
        // an unparsable peer names no address
      }
    }
    return;
  }
  if (transport.network !== undefined) into[Attr.NetworkTransport] = transport.network;
}

// ───────────── server ─────────────

function instrumentServer(server: McpServer, t: Telemetry): void {
  const bases = new ServerBases();
  const interceptor: Interceptor = {
    name: 'opentelemetry',
    intercept: (call, next) => (call.direction === 'incoming' ? serverReceived(t, bases, call, next) : serverSent(t, bases, call, next)),
  };
  server.use(interceptor, { direction: 'both' });
  if (t.mode === 'full') {
    server.onConnect((connection) => {
      const start = performance.now();
      connection.endpoint.onClose((reason) => {
        const attributes: Record<string, string> = {};
        if (connection.protocolVersion !== undefined) attributes[Attr.ProtocolVersion] = connection.protocolVersion;
        const network = connection.transport.network;
        if (network !== undefined) attributes[Attr.NetworkTransport] = network;
        if (reason !== undefined) attributes[Attr.ErrorType] = errorTypeOfClose(reason);
        t.serverSession.record((performance.now() - start) / 1000, attributes);
      });
    });
  }
}

/** The `error.type` of a connection that ended with `reason`. */
function errorTypeOfClose(reason: Error): string {
  const code = (reason as { code?: unknown }).code;
  return typeof code === 'string' || typeof code === 'number' ? String(code) : reason.name || '_OTHER';
}

function headersOf(call: InterceptContext): HeaderBag | undefined {
  return call.info?.request?.headers;
}

/** What a span and a metric point know of the connection a message came on or goes to, built once per connection and revision. */
interface ConnectionBase {
  readonly revision: string | undefined;
  readonly sessionId: string | undefined;
  readonly era: string;
  /** Span attributes (the metric's and `mcp.session.id`). */
  readonly span: Attributes;
  /** Metric attributes: revision, transport. */
  readonly metric: Attributes;
}

/** The server's {@link ConnectionBase}s: one per connection, and one per revision for the connectionless 2026-07-28 HTTP requests. */
class ServerBases {
  readonly #byConnection = new WeakMap<ServerConnection, ConnectionBase>();
  readonly #connectionless = new Map<string | undefined, ConnectionBase>();

  of(call: InterceptContext): ConnectionBase {
    const connection = call.connection;
    const revision = call.revision;
    const sessionId = call.sessionId;
    const era = call.era;
    if (connection === undefined) {
      // only 2026-07-28 requests over Streamable HTTP come without a connection: no session, TCP
      let base = this.#connectionless.get(revision);
      if (base === undefined) {
        base = serverBase(revision, undefined, era, 'tcp');
        // revisions are few, but the key comes from the peer: keep the map small
        if (this.#connectionless.size < 16) this.#connectionless.set(revision, base);
      }
      return base;
    }
    let base = this.#byConnection.get(connection);
    if (base === undefined || base.revision !== revision || base.sessionId !== sessionId || base.era !== era) {
      base = serverBase(revision, sessionId, era, connection.transport.network ?? (headersOf(call) !== undefined ? 'tcp' : undefined));
      this.#byConnection.set(connection, base);
    }
    return base;
  }
}

/** The connection attributes the server knows: revision, session (2025 only), transport (mcpkit's TCP transports are its HTTP ones). */
function serverBase(revision: string | undefined, sessionId: string | undefined, era: string, network: string | undefined): ConnectionBase {
  const metric: Attributes = {};
  if (revision !== undefined) metric[Attr.ProtocolVersion] = revision;
  if (network !== undefined) metric[Attr.NetworkTransport] = network;
  if (network === 'tcp') metric[Attr.NetworkProtocolName] = 'http';
  const span: Attributes = { ...metric };
  // 2026-07-28 has no sessions: an Mcp-Session-Id there is no MCP session
  if (era === '2025' && sessionId !== undefined) span[Attr.SessionId] = sessionId;
  return { revision, sessionId, era, span, metric };
}

function serverReceived(t: Telemetry, bases: ServerBases, call: InterceptContext, next: InterceptNext): unknown {
  const params = call.params;
  const headers = headersOf(call);
  // the parent: _meta's context (SEP-414), else the HTTP request's traceparent header; the header's is a link when both are
  const fromMeta = t.fromMeta(params);
  const fromHeaders = headers === undefined ? undefined : t.fromHeaders(headers);
  const metaParent = fromMeta !== undefined && trace.getSpanContext(fromMeta) !== undefined;
  const parent = metaParent ? fromMeta : fromHeaders !== undefined && trace.getSpanContext(fromHeaders) !== undefined ? fromHeaders : undefined;
  const active = context.active();
  if (t.mode === 'propagation') return parent === undefined || parent === active ? next() : context.with(parent, next);
  const base = bases.of(call);
  const attributes: Attributes = { ...base.span };
  const method = call.method;
  const name = describeMethod(method, params, t.uriInName, attributes as Record<string, string>);
  const id = call.id;
  if (id !== undefined && id !== null) attributes[Attr.RequestId] = String(id);
  if (t.captureArguments && method === 'tools/call' && params?.arguments !== undefined) attributes[Attr.ToolArguments] = jsonAttribute(params.arguments);
  const op: Operation = {
    kind: SpanKind.SERVER,
    name,
    method,
    attributes,
    metricBase: base.metric,
    // without a propagated parent, the ambient context (an HTTP server span) is the parent
    parent: parent ?? active,
    links: t.taskLink(method, params, parent === undefined ? undefined : t.receivedLinks(parent, metaParent ? fromHeaders : undefined, active)),
    histogram: t.serverDuration,
    fallbackCode: call.kind === 'request' ? INTERNAL_ERROR : undefined,
    reuse: undefined,
    requestId: undefined,
    span: undefined,
    startedAt: 0,
  };
  const spanContext = t.start(op);
  let outcome: unknown;
  try {
    outcome = context.with(spanContext, next);
  } catch (error) {
    t.fail(op, error);
    throw error;
  }
  return t.settle(op, outcome);
}

function serverSent(t: Telemetry, bases: ServerBases, call: InterceptContext, next: InterceptNext): unknown {
  const active = context.active();
  if (t.mode === 'propagation') return next(t.inject(call.params, active));
  const base = bases.of(call);
  const attributes: Attributes = { ...base.span };
  const method = call.method;
  const name = describeMethod(method, call.params, t.uriInName, attributes as Record<string, string>);
  const op: Operation = {
    kind: SpanKind.CLIENT,
    name,
    method,
    attributes,
    metricBase: base.metric,
    parent: active,
    links: t.taskLink(method, call.params, undefined),
    histogram: t.clientDuration,
    fallbackCode: undefined,
    reuse: undefined,
    // the id is assigned below the interceptors, when the request is sent
    requestId: call.kind === 'request' ? () => call.id : undefined,
    span: undefined,
    startedAt: 0,
  };
  const spanContext = t.start(op);
  const sent = t.inject(call.params, spanContext);
  let outcome: unknown;
  try {
    outcome = context.with(spanContext, next, undefined, sent);
  } catch (error) {
    t.fail(op, error);
    throw error;
  }
  return t.settle(op, outcome);
}

// ───────────── client ─────────────

/** The client's connection attributes, rebuilt when its transport, revision, session or era changes. */
interface ClientBase {
  readonly transport: Transport | undefined;
  readonly revision: string | undefined;
  readonly sessionId: string | undefined;
  readonly era: string | undefined;
  /** What it sends (CLIENT spans: with `server.address` and `server.port`) and its metric points. */
  readonly sent: Attributes;
  readonly sentMetric: Attributes;
  /** What it receives from the server (SERVER spans) and their metric points. */
  readonly received: Attributes;
  readonly receivedMetric: Attributes;
}

function clientBase(client: Client): ClientBase {
  const transport = client.transport;
  const revision = client.protocolVersion;
  const sessionId = transport?.sessionId;
  const era = client.era;
  const sentMetric: Record<string, string | number> = {};
  transportAttributes(transport, sentMetric, true);
  const receivedMetric: Record<string, string | number> = { ...sentMetric };
  delete receivedMetric[Attr.ServerAddress];
  delete receivedMetric[Attr.ServerPort];
  if (revision !== undefined) sentMetric[Attr.ProtocolVersion] = receivedMetric[Attr.ProtocolVersion] = revision;
  const sent: Attributes = { ...sentMetric };
  const received: Attributes = { ...receivedMetric };
  // only a 2025-era session is an MCP session
  if (sessionId !== undefined && era === 'stateful') sent[Attr.SessionId] = received[Attr.SessionId] = sessionId;
  return { transport, revision, sessionId, era, sent, sentMetric, received, receivedMetric };
}

function instrumentClient(client: Client, t: Telemetry): void {
  let base = clientBase(client);
  const current = (): ClientBase => {
    const transport = client.transport;
    if (base.transport !== transport || base.revision !== client.protocolVersion || base.sessionId !== transport?.sessionId || base.era !== client.era)
      base = clientBase(client);
    return base;
  };
  const middleware: Middleware =
    (next: MethodHandler): MethodHandler =>
    (method, params, ctx) =>
      ctx.direction === 'outgoing' ? clientSent(t, method, params, ctx, next, current) : clientReceived(t, method, params, ctx, next, current);
  client.use(middleware, 'both');
  if (t.mode === 'full') {
    client.onConnect((endpoint) => {
      const start = performance.now();
      endpoint.onClose((reason) => {
        const attributes: Attributes = { ...current().sentMetric };
        if (reason !== undefined) attributes[Attr.ErrorType] = errorTypeOfClose(reason);
        t.clientSession.record((performance.now() - start) / 1000, attributes);
      });
    });
  }
}

/** A call context like `ctx` whose request options also set the span's `jsonrpc.request.id` once the id is assigned. */
function reportingId(ctx: CallContext, span: Span): CallContext {
  const options = ctx.options;
  const onRequestId = options?.onRequestId;
  const watched: RequestOptions = {
    ...options,
    onRequestId: (id) => {
      span.setAttribute(Attr.RequestId, String(id));
      onRequestId?.(id);
    },
  };
  return { direction: ctx.direction, kind: ctx.kind, id: ctx.id, signal: ctx.signal, info: ctx.info, options: watched, sessionId: ctx.sessionId };
}

function clientSent(
  t: Telemetry,
  method: string,
  params: JSONObject | undefined,
  ctx: CallContext,
  next: MethodHandler,
  current: () => ClientBase,
): Promise<unknown> {
  const active = context.active();
  if (t.mode === 'propagation') return next(method, t.inject(params, active), ctx);
  const base = current();
  const attributes: Attributes = { ...base.sent };
  const name = describeMethod(method, params, t.uriInName, attributes as Record<string, string>);
  if (t.captureArguments && method === 'tools/call' && params?.arguments !== undefined) attributes[Attr.ToolArguments] = jsonAttribute(params.arguments);
  const outer = t.reuseToolSpan && method === 'tools/call' ? trace.getSpan(active) : undefined;
  const op: Operation = {
    kind: SpanKind.CLIENT,
    name,
    method,
    attributes,
    metricBase: base.sentMetric,
    parent: active,
    links: t.taskLink(method, params, undefined),
    histogram: t.clientDuration,
    fallbackCode: undefined,
    reuse: isToolSpan(outer) ? outer : undefined,
    requestId: undefined,
    span: undefined,
    startedAt: 0,
  };
  const spanContext = t.start(op);
  const sent = t.inject(params, spanContext);
  let outcome: unknown;
  try {
    outcome = context.with(spanContext, next, undefined, method, sent, ctx.kind === 'request' ? reportingId(ctx, op.span!) : ctx);
  } catch (error) {
    t.fail(op, error);
    throw error;
  }
  return t.settle(op, outcome) as Promise<unknown>;
}

function clientReceived(
  t: Telemetry,
  method: string,
  params: JSONObject | undefined,
  ctx: CallContext,
  next: MethodHandler,
  current: () => ClientBase,
): Promise<unknown> {
  const extracted = t.fromMeta(params);
  const parent = extracted !== undefined && trace.getSpanContext(extracted) !== undefined ? extracted : undefined;
  if (t.mode === 'propagation') return parent === undefined ? next(method, params, ctx) : context.with(parent, next, undefined, method, params, ctx);
  const active = context.active();
  const base = current();
  const attributes: Attributes = { ...base.received };
  const name = describeMethod(method, params, t.uriInName, attributes as Record<string, string>);
  if (ctx.id !== undefined && ctx.id !== null) attributes[Attr.RequestId] = String(ctx.id);
  const op: Operation = {
    kind: SpanKind.SERVER,
    name,
    method,
    attributes,
    metricBase: base.receivedMetric,
    parent: parent ?? active,
    links: t.taskLink(method, params, parent === undefined ? undefined : t.receivedLinks(parent, undefined, active)),
    histogram: t.serverDuration,
    fallbackCode: ctx.kind === 'request' ? INTERNAL_ERROR : undefined,
    reuse: undefined,
    requestId: undefined,
    span: undefined,
    startedAt: 0,
  };
  const spanContext = t.start(op);
  let outcome: unknown;
  try {
    outcome = context.with(spanContext, next, undefined, method, params, ctx);
  } catch (error) {
    t.fail(op, error);
    throw error;
  }
  return t.settle(op, outcome) as Promise<unknown>;
}
