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
import { type Context, context, trace } from '@opentelemetry/api';
import type { Client } from '../client/client.js';
import type { JSONObject, RequestId } from '../jsonrpc/types.js';
import type { CallContext, MethodHandler, Middleware } from '../protocol/middleware.js';
import type { InterceptContext, InterceptNext, Interceptor } from '../server/interceptors.js';
import type { McpServer } from '../server/server.js';
import type { RequestOptions } from '../session/session.js';
import type { Transport } from '../transport/types.js';
import { controlObserver, isControlNotification } from './control.js';
import { Attr, describeMethod, jsonAttribute, methodFacts } from './conventions.js';
import { type InstrumentOptions, isToolSpan, type Operation, SpanKind, STATELESS_REVISION_KEY, Telemetry } from './telemetry.js';

/** The stateless revision: from it on there are no MCP sessions (no `mcp.session.id`). */
const STATELESS_REVISION = '2026-07-28';

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
  const interceptor: Interceptor = {
    name: 'opentelemetry',
    intercept: (call, next) =>
      // cancelled and progress: recorded by the channel's control observer, on every path that sends them
      call.kind === 'notification' && isControlNotification(call.method)
        ? next()
        : call.direction === 'incoming'
          ? serverReceived(t, call, next)
          : serverSent(t, call, next),
  };
  server.use(interceptor, { direction: 'both' });
  server.onConnect((connection) => {
    connection.endpoint.session.observeControl(
      controlObserver(t, (_sent, request) => {
        const attributes: Record<string, string | number> = {};
        // a stateless connection agrees on no revision: the request being handled (or cancelled) names it
        const version =
          connection.protocolVersion ??
          (request as { readonly protocolVersion?: string } | undefined)?.protocolVersion ??
          (context.active().getValue(STATELESS_REVISION_KEY) as string | undefined);
        if (version !== undefined) attributes[Attr.ProtocolVersion] = version;
        // 2026-07-28 has no sessions
        const session = connection.sessionId;
        if (session !== undefined && version !== undefined && version < STATELESS_REVISION) attributes[Attr.SessionId] = session;
        const network = connection.transport.network;
        if (network !== undefined) attributes[Attr.NetworkTransport] = network;
        if (network === 'tcp') attributes[Attr.NetworkProtocolName] = 'http';
        return attributes;
      }),
    );
  });
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

function headersOf(call: InterceptContext): Headers | Record<string, string | string[] | undefined> | undefined {
  return call.info?.request?.headers;
}

/** The attributes the server knows of every message: revision, session (2025 only), transport. */
function serverAttributes(call: InterceptContext, into: Record<string, string | number>): void {
  if (call.revision !== undefined) into[Attr.ProtocolVersion] = call.revision;
  // 2026-07-28 has no sessions: an Mcp-Session-Id there is no MCP session
  if (call.era === '2025' && call.sessionId !== undefined) into[Attr.SessionId] = call.sessionId;
  if (headersOf(call) !== undefined) {
    into[Attr.NetworkTransport] = 'tcp';
    into[Attr.NetworkProtocolName] = 'http';
  } else {
    const network = call.connection?.transport.network;
    if (network !== undefined) into[Attr.NetworkTransport] = network;
    // mcpkit's TCP transports are its HTTP transports
    if (network === 'tcp') into[Attr.NetworkProtocolName] = 'http';
  }
}

function serverReceived(t: Telemetry, call: InterceptContext, next: InterceptNext): unknown {
  const { parent, transport } = t.extract(call.params, headersOf(call));
  if (t.mode === 'propagation') return parent === context.active() || trace.getSpanContext(parent) === undefined ? next() : context.with(parent, next);
  const attributes: Record<string, string | number> = {};
  const name = describeMethod(call.method, call.params, t.uriInName, attributes);
  if (call.id !== undefined && call.id !== null) attributes[Attr.RequestId] = String(call.id);
  serverAttributes(call, attributes);
  if (t.captureArguments && call.method === 'tools/call' && call.params?.arguments !== undefined)
    attributes[Attr.ToolArguments] = jsonAttribute(call.params.arguments);
  const hasParent = trace.getSpanContext(parent) !== undefined;
  const op: Operation = {
    kind: SpanKind.SERVER,
    name,
    method: call.method,
    attributes,
    // without a propagated parent, the ambient context (an HTTP server span) is the parent
    parent: hasParent ? parent : context.active(),
    links: t.taskLink(call.method, call.params, hasParent ? t.receivedLinks(parent, transport, context.active()) : undefined),
    histogram: t.serverDuration,
    fallbackCode: call.kind === 'request' ? INTERNAL_ERROR : undefined,
    reuse: undefined,
    statelessRevision: call.era === '2025' ? undefined : call.revision,
  };
  return t.around(op, () => next());
}

function serverSent(t: Telemetry, call: InterceptContext, next: InterceptNext): unknown {
  if (t.mode === 'propagation') return next(t.inject(call.params, context.active()));
  const facts = methodFacts(call.method, call.params, t.uriInName);
  const attributes: Record<string, string | number> = facts.attributes;
  serverAttributes(call, attributes);
  const op: Operation = {
    kind: SpanKind.CLIENT,
    name: facts.name,
    method: call.method,
    attributes,
    parent: context.active(),
    links: t.taskLink(call.method, call.params, undefined),
    histogram: t.clientDuration,
    fallbackCode: undefined,
    reuse: undefined,
  };
  return t.around(op, (ctx: Context) => {
    const outcome = next(t.inject(call.params, ctx));
    // the id is assigned beneath the interceptors, when the request is sent (synchronously, unless a later interceptor waits first)
    if (call.id !== undefined) trace.getSpan(ctx)?.setAttribute(Attr.RequestId, String(call.id));
    return outcome;
  });
}

// ───────────── client ─────────────

/** What the client knows of its connection, computed once per transport. */
interface ClientFacts {
  readonly transport: Transport | undefined;
  readonly attributes: Record<string, string | number>;
}

function instrumentClient(client: Client, t: Telemetry): void {
  let facts: ClientFacts = { transport: undefined, attributes: {} };
  /** The connection's attributes; `server.address` and `server.port` only on what the client sends (the conventions' CLIENT span). */
  const factsOf = (sent: boolean): Record<string, string | number> => {
    const transport = client.transport;
    if (facts.transport !== transport) {
      const attributes: Record<string, string | number> = {};
      transportAttributes(transport, attributes, true);
      facts = { transport, attributes };
    }
    const attributes = { ...facts.attributes };
    if (!sent) {
      delete attributes[Attr.ServerAddress];
      delete attributes[Attr.ServerPort];
    }
    const version = client.protocolVersion;
    if (version !== undefined) attributes[Attr.ProtocolVersion] = version;
    const session = transport?.sessionId;
    if (session !== undefined && client.era === 'stateful') attributes[Attr.SessionId] = session;
    return attributes;
  };
  const middleware: Middleware =
    (next: MethodHandler): MethodHandler =>
    (method, params, ctx) =>
      // cancelled and progress: recorded by the channel's control observer, on every path that sends them
      ctx.kind === 'notification' && isControlNotification(method)
        ? next(method, params, ctx)
        : ctx.direction === 'outgoing'
          ? clientSent(t, method, params, ctx, next, factsOf)
          : clientReceived(t, method, params, ctx, next, factsOf);
  client.use(middleware, 'both');
  client.onConnect((endpoint) => endpoint.session.observeControl(controlObserver(t, factsOf)));
  if (t.mode === 'full') {
    client.onConnect((endpoint) => {
      const start = performance.now();
      endpoint.onClose((reason) => {
        const attributes = factsOf(true);
        delete attributes[Attr.SessionId];
        if (reason !== undefined) attributes[Attr.ErrorType] = errorTypeOfClose(reason);
        t.clientSession.record((performance.now() - start) / 1000, attributes);
      });
    });
  }
}

/** A call context like `ctx` whose request options also report the request id to `onId`. */
function reportingId(ctx: CallContext, onId: (id: RequestId) => void): CallContext {
  const options = ctx.options;
  const watched: RequestOptions = {
    ...options,
    onRequestId: (id) => {
      onId(id);
      options?.onRequestId?.(id);
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
  factsOf: (sent: boolean) => Record<string, string | number>,
): Promise<unknown> {
  if (t.mode === 'propagation') return next(method, t.inject(params, context.active()), ctx);
  const facts = methodFacts(method, params, t.uriInName);
  const attributes: Record<string, string | number> = Object.assign(factsOf(true), facts.attributes);
  if (t.captureArguments && method === 'tools/call' && params?.arguments !== undefined) attributes[Attr.ToolArguments] = jsonAttribute(params.arguments);
  const active = trace.getSpan(context.active());
  const reuse = t.reuseToolSpan && method === 'tools/call' && isToolSpan(active) ? active : undefined;
  const op: Operation = {
    kind: SpanKind.CLIENT,
    name: facts.name,
    method,
    attributes,
    parent: context.active(),
    links: t.taskLink(method, params, undefined),
    histogram: t.clientDuration,
    fallbackCode: undefined,
    reuse,
  };
  return t.around(op, (spanContext: Context) => {
    const sent = t.inject(params, spanContext);
    if (ctx.kind !== 'request') return next(method, sent, ctx);
    const span = trace.getSpan(spanContext);
    return next(
      method,
      sent,
      reportingId(ctx, (id) => span?.setAttribute(Attr.RequestId, String(id))),
    );
  }) as Promise<unknown>;
}

function clientReceived(
  t: Telemetry,
  method: string,
  params: JSONObject | undefined,
  ctx: CallContext,
  next: MethodHandler,
  factsOf: (sent: boolean) => Record<string, string | number>,
): Promise<unknown> {
  const { parent } = t.extract(params, undefined);
  const hasParent = trace.getSpanContext(parent) !== undefined;
  if (t.mode === 'propagation') return hasParent ? context.with(parent, () => next(method, params, ctx)) : next(method, params, ctx);
  const facts = methodFacts(method, params, t.uriInName);
  const attributes: Record<string, string | number> = Object.assign(factsOf(false), facts.attributes);
  if (ctx.id !== undefined && ctx.id !== null) attributes[Attr.RequestId] = String(ctx.id);
  const op: Operation = {
    kind: SpanKind.SERVER,
    name: facts.name,
    method,
    attributes,
    parent: hasParent ? parent : context.active(),
    links: t.taskLink(method, params, hasParent ? t.receivedLinks(parent, undefined, context.active()) : undefined),
    histogram: t.serverDuration,
    fallbackCode: ctx.kind === 'request' ? INTERNAL_ERROR : undefined,
    reuse: undefined,
  };
  return t.around(op, () => next(method, params, ctx)) as Promise<unknown>;
}
