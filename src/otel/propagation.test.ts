/**
 * Trace context across hops (SEP-414 `params._meta`, both directions), across processes
 * (client → gateway server → upstream server, with the gateway's sampling request back to the
 * client), through tasks (a `tasks/result` links to the span that created the task), from an
 * HTTP `traceparent` header, and the modes: `propagation` (context only, no spans) and `off`
 * (nothing registered). The outer GenAI `execute_tool` span is enriched, not duplicated.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { context, SpanKind, trace } from '@opentelemetry/api';
import { fixtureAnswers, fixtureServer, OTEL_SERVER_MAIN, otlpReceiver, type SpanView, sdk, viewOf, w3c } from '../../test/helpers/otel.js';
import { Client } from '../client/index.js';
import { createDemoServer } from '../demo/server.js';
import { StreamableHttpClientTransport } from '../http/index.js';
import { serveNode } from '../http/node.js';
import { createStreamableHttpHandler } from '../http/server/handler.js';
import type { JSONObject } from '../jsonrpc/types.js';
import { StdioClientTransport } from '../stdio/index.js';
import { TaskClient } from '../tasks/index.js';
import { connectInMemory } from '../testing/in-memory.js';
import { instrument } from './index.js';

const closers: Array<() => Promise<void>> = [];
after(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
});

function one(spans: SpanView[], kind: SpanView['kind'], name: string, service?: string): SpanView {
  const found = spans.filter((s) => s.kind === kind && s.name === name && (service === undefined || s.service === service));
  assert.equal(
    found.length,
    1,
    `one ${kind} span "${name}"${service ? ` of ${service}` : ''} (have: ${spans.map((s) => `${s.service ?? '-'}:${s.kind}:${s.name}`).join(', ')})`,
  );
  return found[0]!;
}

function childOf(child: SpanView, parent: SpanView, what: string): void {
  assert.equal(child.traceId, parent.traceId, `${what}: same trace`);
  assert.equal(child.parentSpanId, parent.spanId, `${what}: parent`);
}

/** The `_meta` of every message a recorded side sent. */
function sentMetas(wire: { transcript: readonly { dir: string; message: unknown }[] }): (JSONObject | undefined)[] {
  return wire.transcript
    .filter((e) => e.dir === 'send')
    .map((e) => ((e.message as JSONObject).params as JSONObject | undefined)?._meta as JSONObject | undefined);
}

describe('otel: one trace across hops', () => {
  it('client → gateway (sampling back to the client) → upstream: three processes, one trace, each hop a child of the one before', async () => {
    const receiver = await otlpReceiver();
    closers.push(() => receiver.close());
    const clientSdk = sdk();
    const client = instrument(new Client({ name: 'first', version: '1.0.0' }, fixtureAnswers), { tracerProvider: clientSdk.tracerProvider, propagator: w3c });
    const env = { ...process.env, OTLP_URL: receiver.url, OTEL_SERVICE: 'gateway', RELAY_TO: OTEL_SERVER_MAIN } as Record<string, string>;
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [OTEL_SERVER_MAIN], env }), { timeoutMs: 20_000 });
    closers.push(() => client.close());
    const result = await client.callTool({ name: 'relay' }, { timeoutMs: 30_000 });
    assert.equal((result.content[0] as { text: string }).text, 'sunny in m1', 'the upstream answered with what the client sampled');
    await receiver.until(
      (spans) =>
        spans.some((s) => s.service === 'upstream' && s.name === 'tools/call weather') &&
        spans.some((s) => s.service === 'gateway' && s.name === 'tools/call relay'),
      'the gateway and upstream spans',
    );
    const mine = clientSdk.spans().map(viewOf);
    const theirs = receiver.spans;
    const call = one(mine, 'client', 'tools/call relay');
    const gateway = one(theirs, 'server', 'tools/call relay', 'gateway');
    childOf(gateway, call, 'gateway server span ← client span');
    const sampling = one(theirs, 'client', 'sampling/createMessage', 'gateway');
    childOf(sampling, gateway, 'gateway sampling request ← gateway server span');
    const answered = one(mine, 'server', 'sampling/createMessage');
    childOf(answered, sampling, 'client answering sampling ← gateway sampling request');
    const relayed = one(theirs, 'client', 'tools/call weather', 'gateway');
    childOf(relayed, gateway, 'gateway client span ← gateway server span');
    const upstream = one(theirs, 'server', 'tools/call weather', 'upstream');
    childOf(upstream, relayed, 'upstream server span ← gateway client span');
    assert.equal(upstream.attributes['network.transport'], 'pipe');
    assert.equal(
      new Set([...mine, ...theirs].filter((s) => s.name.includes('relay') || s.name.includes('weather') || s.name.includes('sampling')).map((s) => s.traceId))
        .size,
      1,
      'one trace',
    );
    await clientSdk.shutdown();
  });
});

describe('otel: tasks', () => {
  it("a task's tasks/result links to the span of the request that created the task, on both sides", async () => {
    const serverSdk = sdk();
    const clientSdk = sdk();
    const server = instrument(createDemoServer({ tasks: { pollIntervalMs: 20, sweepIntervalMs: 0 } }), {
      tracerProvider: serverSdk.tracerProvider,
      propagator: w3c,
    });
    let tasks: TaskClient | undefined;
    const pair = await connectInMemory(server, {
      onClient: (client) => {
        instrument(client, { tracerProvider: clientSdk.tracerProvider, propagator: w3c });
        tasks = new TaskClient(client, { sweepIntervalMs: 0 });
      },
    });
    const job = await tasks!.callToolAsTask({ name: 'long_running_job', arguments: { ms: 40, steps: 2 } });
    await job.result();
    await pair.close();
    for (const [spans, created, fetched] of [
      [serverSdk.spans().map(viewOf), 'server', 'server'],
      [clientSdk.spans().map(viewOf), 'client', 'client'],
    ] as const) {
      const creating = one(spans, created, 'tools/call long_running_job');
      const results = spans.filter((s) => s.kind === fetched && s.name === 'tasks/result');
      assert.ok(results.length >= 1, `a ${fetched} tasks/result span`);
      for (const r of results)
        assert.ok(
          r.links.some((l) => l.spanId === creating.spanId && l.traceId === creating.traceId),
          `${fetched} tasks/result links to the creating span`,
        );
    }
    await serverSdk.shutdown();
    await clientSdk.shutdown();
  });
});

describe('otel: context from HTTP headers', () => {
  it('a request without _meta context takes its parent from the traceparent header; with both, _meta is the parent and the header a link', async () => {
    const serverSdk = sdk();
    const server = instrument(fixtureServer(), { tracerProvider: serverSdk.tracerProvider, propagator: w3c });
    const handle = await serveNode(createStreamableHttpHandler({ server, responseMode: 'json' }));
    closers.push(() => handle.close());
    const headerTrace = '0af7651916cd43dd8448eb211c80319c';
    const headerSpan = 'b7ad6b7169203331';
    const headers = { traceparent: `00-${headerTrace}-${headerSpan}-01` };
    // an uninstrumented client: the header is the only context
    const plain = new Client({ name: 'plain', version: '1' }, { protocolVersion: '2026-07-28' });
    await plain.connect(new StreamableHttpClientTransport({ url: handle.url, headers }));
    await plain.callTool({ name: 'weather', arguments: { city: 'Bergen' } });
    await plain.close();
    const fromHeader = one(serverSdk.spans().map(viewOf), 'server', 'tools/call weather');
    assert.equal(fromHeader.traceId, headerTrace);
    assert.equal(fromHeader.parentSpanId, headerSpan);
    // an instrumented client inside a span: _meta wins, the header's context is linked
    const clientSdk = sdk();
    const traced = instrument(new Client({ name: 'traced', version: '1' }, { protocolVersion: '2025-11-25' }), {
      tracerProvider: clientSdk.tracerProvider,
      propagator: w3c,
    });
    await traced.connect(new StreamableHttpClientTransport({ url: handle.url, headers }));
    await traced.callTool({ name: 'broken' });
    await traced.close();
    const sent = one(clientSdk.spans().map(viewOf), 'client', 'tools/call broken');
    const received = one(serverSdk.spans().map(viewOf), 'server', 'tools/call broken');
    childOf(received, sent, '_meta context is the parent');
    assert.ok(
      received.links.some((l) => l.traceId === headerTrace && l.spanId === headerSpan),
      'the header context is a link',
    );
    await serverSdk.shutdown();
    await clientSdk.shutdown();
  });
});

describe('otel: modes', () => {
  it('propagation: no spans, but the context crosses both ways (the handler runs in it; its request to the client carries it)', async () => {
    const serverSdk = sdk();
    const clientSdk = sdk();
    const server = fixtureServer();
    let inHandler: string | undefined;
    server.registerTool('whose', { description: 'reports the current trace' }, async (_a, ctx) => {
      inHandler = trace.getSpanContext(context.active())?.traceId;
      await ctx.listRoots();
      return 'ok';
    });
    instrument(server, { mode: 'propagation', tracerProvider: serverSdk.tracerProvider, propagator: w3c });
    let rootsTrace: string | undefined;
    const pair = await connectInMemory(server, {
      client: { roots: { list: () => ((rootsTrace = trace.getSpanContext(context.active())?.traceId), []) } },
      onClient: (client) => void instrument(client, { mode: 'propagation', tracerProvider: clientSdk.tracerProvider, propagator: w3c }),
    });
    const outer = clientSdk.tracerProvider.getTracer('app').startSpan('app work', { kind: SpanKind.INTERNAL });
    await context.with(trace.setSpan(context.active(), outer), () => pair.client.callTool({ name: 'whose' }));
    outer.end();
    const traceId = outer.spanContext().traceId;
    assert.equal(inHandler, traceId, 'the tool handler runs in the caller trace');
    assert.equal(rootsTrace, traceId, "the client's roots handler runs in the same trace");
    const toServer = sentMetas(pair.clientWire).find((m) => typeof m?.traceparent === 'string');
    assert.match(
      String(toServer?.traceparent),
      new RegExp(`^00-${traceId}-${outer.spanContext().spanId}-01$`),
      'SEP-414: traceparent in params._meta, unprefixed',
    );
    assert.ok(
      sentMetas(pair.serverWire).some((m) => String(m?.traceparent).includes(traceId)),
      'the server→client request carries it too',
    );
    await pair.close();
    assert.deepEqual(
      serverSdk.spans().map((s) => s.name),
      [],
      'no server spans',
    );
    assert.deepEqual(
      clientSdk.spans().map((s) => s.name),
      ['app work'],
      'no client spans but the application’s',
    );
    assert.equal((await serverSdk.histograms()).size, 0, 'no metrics');
    await serverSdk.shutdown();
    await clientSdk.shutdown();
  });

  it('off: nothing is registered (no spans, no _meta injected, no metrics)', async () => {
    const serverSdk = sdk();
    const clientSdk = sdk();
    const server = instrument(fixtureServer(), {
      mode: 'off',
      tracerProvider: serverSdk.tracerProvider,
      meterProvider: serverSdk.meterProvider,
      propagator: w3c,
    });
    const pair = await connectInMemory(server, {
      onClient: (client) =>
        void instrument(client, { mode: 'off', tracerProvider: clientSdk.tracerProvider, meterProvider: clientSdk.meterProvider, propagator: w3c }),
    });
    const outer = clientSdk.tracerProvider.getTracer('app').startSpan('app work');
    await context.with(trace.setSpan(context.active(), outer), () => pair.client.callTool({ name: 'weather', arguments: { city: 'Oslo' } }));
    outer.end();
    assert.ok(
      sentMetas(pair.clientWire).every((m) => m?.traceparent === undefined),
      'no traceparent sent',
    );
    await pair.close();
    assert.deepEqual(serverSdk.spans(), []);
    assert.deepEqual(
      clientSdk.spans().map((s) => s.name),
      ['app work'],
    );
    assert.equal((await serverSdk.histograms()).size, 0);
    assert.equal((await clientSdk.histograms()).size, 0);
    assert.throws(() => instrument(fixtureServer(), { mode: 'loud' as never }), /Unknown OpenTelemetry mode "loud"; use 'full', 'propagation' or 'off'/);
    assert.throws(() => instrument({} as never), /instrument\(\) takes an McpServer or a Client/);
    const twice = instrument(fixtureServer(), { tracerProvider: serverSdk.tracerProvider });
    assert.throws(() => instrument(twice, { tracerProvider: serverSdk.tracerProvider }), /this server is already instrumented; instrument it once/);
    assert.equal(instrument(twice, { mode: 'off' }), twice, 'off is always allowed: it does nothing');
  });
});

describe('otel: bad trace context', () => {
  it('a malformed or oversized traceparent, tracestate or baggage in _meta or a header starts a new trace and the request is served', async () => {
    const serverSdk = sdk();
    const server = instrument(fixtureServer(), { tracerProvider: serverSdk.tracerProvider, propagator: w3c });
    const handle = await serveNode(createStreamableHttpHandler({ server, responseMode: 'json' }));
    closers.push(() => handle.close());
    const bad = [
      { traceparent: 'garbage' },
      { traceparent: `00-${'0'.repeat(32)}-${'0'.repeat(16)}-01` },
      { traceparent: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01-extra`, tracestate: 'x'.repeat(100_000), baggage: 'k=v,'.repeat(50_000) },
      { traceparent: 12 as unknown as string },
    ];
    const headers = { traceparent: 'ff-not-a-trace' };
    const client = new Client({ name: 'raw', version: '1' }, { protocolVersion: '2025-11-25' });
    await client.connect(new StreamableHttpClientTransport({ url: handle.url, headers }));
    for (const meta of bad) {
      const result = await client.callTool({ name: 'weather', arguments: { city: 'X' }, _meta: meta as JSONObject });
      assert.equal((result.content[0] as { text: string }).text, 'sunny in X');
    }
    await client.close();
    const spans = serverSdk
      .spans()
      .map(viewOf)
      .filter((s) => s.name === 'tools/call weather');
    assert.equal(spans.length, bad.length);
    for (const span of spans) {
      assert.equal(span.parentSpanId, undefined, 'a root span');
      assert.deepEqual(span.links, []);
    }
    await serverSdk.shutdown();
  });

  it('refuses a bad maxTrackedTasks', () => {
    assert.throws(() => instrument(fixtureServer(), { maxTrackedTasks: -1 }), /maxTrackedTasks must be a non-negative integer; got -1/);
  });
});

describe('otel: an outer GenAI execute_tool span', () => {
  it('is enriched with the MCP attributes instead of a second client span, and is the server span’s parent', async () => {
    const serverSdk = sdk();
    const clientSdk = sdk();
    const server = instrument(fixtureServer(), { tracerProvider: serverSdk.tracerProvider, propagator: w3c });
    const pair = await connectInMemory(server, {
      onClient: (client) => void instrument(client, { tracerProvider: clientSdk.tracerProvider, propagator: w3c }),
    });
    const tool = clientSdk.tracerProvider
      .getTracer('agent')
      .startSpan('execute_tool weather', { kind: SpanKind.INTERNAL, attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'weather' } });
    await context.with(trace.setSpan(context.active(), tool), () => pair.client.callTool({ name: 'weather', arguments: { city: 'Oslo' } }));
    tool.end();
    // outside an execute_tool span: a client span as usual
    await pair.client.callTool({ name: 'broken' });
    await pair.close();
    const mine = clientSdk.spans().map(viewOf);
    assert.equal(mine.filter((s) => s.name === 'tools/call weather').length, 0, 'no duplicate MCP client span');
    const outer = one(mine, 'internal', 'execute_tool weather');
    assert.equal(outer.attributes['mcp.method.name'], 'tools/call');
    assert.ok(typeof outer.attributes['jsonrpc.request.id'] === 'string');
    one(mine, 'client', 'tools/call broken');
    childOf(one(serverSdk.spans().map(viewOf), 'server', 'tools/call weather'), outer, 'server span ← the outer tool span');
    await serverSdk.shutdown();
    await clientSdk.shutdown();
  });
});
