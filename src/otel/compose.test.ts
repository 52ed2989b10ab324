/**
 * One trace from the first client through an McpProxy, and through a gateway, to the
 * upstream server (SEP-414 context in `params._meta` on every hop), each hop a child of the
 * one before: the proxy's (gateway's) own SERVER span for the caller's request, its upstream
 * client's CLIENT span for the request it forwards, and back down the same way for the
 * upstream's sampling request. The real OpenTelemetry SDK records, one in-memory exporter per
 * party (client, proxy or gateway, upstream).
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { fixtureAnswers, fixtureServer, type Sdk, type SpanView, sdk, viewOf, w3c } from '../../test/helpers/otel.js';
import { Client } from '../client/index.js';
import { createGateway } from '../compose/gateway.js';
import { McpProxy } from '../compose/proxy.js';
import { StreamableHttpClientTransport } from '../http/index.js';
import { serveNode } from '../http/node.js';
import { createStreamableHttpHandler } from '../http/server/handler.js';
import { InMemoryTransport } from '../transport/memory.js';
import { instrument } from './index.js';

const closers: Array<() => Promise<void>> = [];
after(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
});

function one(spans: SpanView[], kind: SpanView['kind'], name: string, who: string): SpanView {
  const found = spans.filter((s) => s.kind === kind && s.name === name);
  assert.equal(found.length, 1, `${who}: one ${kind} span "${name}" (have: ${spans.map((s) => `${s.kind}:${s.name}`).join(', ')})`);
  return found[0]!;
}

function childOf(child: SpanView, parent: SpanView, what: string): void {
  assert.equal(child.traceId, parent.traceId, `${what}: same trace`);
  assert.equal(child.parentSpanId, parent.spanId, `${what}: parent`);
}

/**
 * The upstream: the otel fixture server, instrumented, reached over an in-memory pair per
 * connection. It speaks the 2025 era only, so that its sampling request crosses the wire
 * (2026-07-28 would make it a multi round-trip input of the tool call).
 */
function upstreamOf(upstreamSdk: Sdk): () => InMemoryTransport {
  const server = instrument(fixtureServer('upstream', { protocolVersions: ['2025-11-25'] }), {
    tracerProvider: upstreamSdk.tracerProvider,
    meterProvider: upstreamSdk.meterProvider,
    propagator: w3c,
  });
  return () => {
    const [a, b] = InMemoryTransport.createPair();
    void server.connect(a);
    return b;
  };
}

/**
 * Calls `weather` (named `tool` at the middle hop) and `ask` (whose sampling request comes
 * back to the client) and checks the parent chain across the three parties.
 */
async function checkChain(url: string, sdks: { client: Sdk; middle: Sdk; upstream: Sdk }, names: { weather: string; ask: string }, who: string): Promise<void> {
  const client = instrument(new Client({ name: 'first', version: '1.0.0' }, { protocolVersion: '2025-11-25', ...fixtureAnswers }), {
    tracerProvider: sdks.client.tracerProvider,
    meterProvider: sdks.client.meterProvider,
    propagator: w3c,
  });
  await client.connect(new StreamableHttpClientTransport({ url }));
  closers.push(() => client.close());
  assert.equal(((await client.callTool({ name: names.weather, arguments: { city: 'Oslo' } })).content[0] as { text: string }).text, 'sunny in Oslo');
  assert.equal(((await client.callTool({ name: names.ask })).content[0] as { text: string }).text, 'm1|1');
  const mine = sdks.client.spans().map(viewOf);
  const middle = sdks.middle.spans().map(viewOf);
  const upstream = sdks.upstream.spans().map(viewOf);

  const call = one(mine, 'client', `tools/call ${names.weather}`, 'client');
  const received = one(middle, 'server', `tools/call ${names.weather}`, who);
  childOf(received, call, `${who} server span ← client span`);
  const forwarded = one(middle, 'client', 'tools/call weather', who);
  childOf(forwarded, received, `${who} upstream client span ← its server span`);
  const served = one(upstream, 'server', 'tools/call weather', 'upstream');
  childOf(served, forwarded, `upstream server span ← ${who} client span`);
  assert.equal(forwarded.attributes['gen_ai.tool.name'], 'weather');
  assert.equal(received.attributes['gen_ai.tool.name'], names.weather);

  // the upstream's sampling request, back down to the first client
  const askCall = one(mine, 'client', `tools/call ${names.ask}`, 'client');
  const askReceived = one(middle, 'server', `tools/call ${names.ask}`, who);
  childOf(askReceived, askCall, `${who}: ask received ← client`);
  const askForwarded = one(middle, 'client', 'tools/call ask', who);
  childOf(askForwarded, askReceived, `${who}: ask forwarded ← ask received`);
  const askServed = one(upstream, 'server', 'tools/call ask', 'upstream');
  childOf(askServed, askForwarded, `upstream: ask served ← ${who} forwarded`);
  const sampling = one(upstream, 'client', 'sampling/createMessage', 'upstream');
  childOf(sampling, askServed, 'upstream sampling request ← its tools/call span');
  const samplingIn = one(middle, 'server', 'sampling/createMessage', who);
  childOf(samplingIn, sampling, `${who} upstream client receiving sampling ← upstream sampling request`);
  const samplingOut = one(middle, 'client', 'sampling/createMessage', who);
  childOf(samplingOut, samplingIn, `${who} asking its caller ← its received sampling`);
  const answered = one(mine, 'server', 'sampling/createMessage', 'client');
  childOf(answered, samplingOut, `client answering sampling ← ${who} sampling request`);
  assert.ok(samplingOut.attributes['jsonrpc.request.id'] !== undefined, `${who}: the id of the sampling request it sent`);

  assert.equal(new Set([call, received, forwarded, served].map((s) => s.traceId)).size, 1, 'one trace for weather');
  assert.equal(
    new Set([askCall, askReceived, askForwarded, askServed, sampling, samplingIn, samplingOut, answered].map((s) => s.traceId)).size,
    1,
    'one trace for ask',
  );
}

describe('otel: one trace through the proxy and the gateway', () => {
  it('client → McpProxy (instrumented server and upstream client) → upstream server', async () => {
    const sdks = { client: sdk(), middle: sdk(), upstream: sdk() };
    const options = { tracerProvider: sdks.middle.tracerProvider, meterProvider: sdks.middle.meterProvider, propagator: w3c };
    const proxy = await McpProxy.open({ upstream: upstreamOf(sdks.upstream), onClient: (client) => instrument(client, options) });
    closers.push(() => proxy.close());
    instrument(proxy.server, options);
    const http = await serveNode(createStreamableHttpHandler({ server: proxy.server }));
    closers.push(() => http.close());
    await checkChain(http.url, sdks, { weather: 'weather', ask: 'ask' }, 'proxy');
    for (const s of Object.values(sdks)) await s.shutdown();
  });

  it('client → gateway (instrumented server and upstream clients) → upstream server', async () => {
    const sdks = { client: sdk(), middle: sdk(), upstream: sdk() };
    const options = { tracerProvider: sdks.middle.tracerProvider, meterProvider: sdks.middle.meterProvider, propagator: w3c };
    const gateway = createGateway({
      upstreams: { up: { transport: upstreamOf(sdks.upstream) } },
      healthCheck: false,
      onUpstreamClient: (client) => void instrument(client, options),
    });
    closers.push(() => gateway.close());
    instrument(gateway.server, options);
    const http = await serveNode(gateway.handler);
    closers.push(() => http.close());
    await gateway.whenReady(10_000);
    await checkChain(http.url, sdks, { weather: 'up_weather', ask: 'up_ask' }, 'gateway');
    for (const s of Object.values(sdks)) await s.shutdown();
  });
});
