/**
 * A stdio MCP server process for the otel tests: `fixtureServer()` instrumented with the
 * real SDK, exporting its spans over OTLP/HTTP (JSON) to the receiver the test started.
 *
 * Environment: `OTLP_URL` (the receiver's /v1/traces URL, required), `OTEL_SERVICE`
 * (`service.name`), `RELAY_TO` (optional: this script's path; adds a `relay` tool that asks
 * the calling client to sample, then calls `weather` on a second copy of this server, spawned
 * over stdio through an instrumented Client: one trace across three processes).
 */
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Client } from '../../src/client/index.js';
import { instrument } from '../../src/otel/index.js';
import { StdioClientTransport, StdioServerTransport } from '../../src/stdio/index.js';
import { fixtureServer } from './otel.js';

const url = process.env.OTLP_URL;
if (url === undefined) throw new Error('OTLP_URL is not set: start this script from an otel test, which passes its receiver URL');
const service = process.env.OTEL_SERVICE ?? 'otel-fixture';
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
const propagator = new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] });
const tracerProvider = new BasicTracerProvider({
  resource: resourceFromAttributes({ 'service.name': service }),
  spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url }))],
});

const server = fixtureServer(service);
const relayTo = process.env.RELAY_TO;
if (relayTo !== undefined && relayTo !== '') {
  server.registerTool('relay', { description: 'samples, then calls weather on a downstream server' }, async (_args, ctx) => {
    const llm = await ctx.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'which city?' } }], maxTokens: 5 });
    const downstream = instrument(new Client({ name: `${service}-client`, version: '1.0.0' }), { tracerProvider, propagator });
    await downstream.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [relayTo],
        env: { ...process.env, OTEL_SERVICE: 'upstream', RELAY_TO: '' } as Record<string, string>,
      }),
    );
    try {
      const result = await downstream.callTool({ name: 'weather', arguments: { city: llm.model } });
      return (result.content[0] as { text: string }).text;
    } finally {
      await downstream.close();
    }
  });
}
instrument(server, { tracerProvider, propagator });
server.onConnect((connection) => connection.endpoint.onClose(() => void tracerProvider.forceFlush()));
await server.connect(new StdioServerTransport());
