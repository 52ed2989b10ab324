/**
 * Through a proxy and a gateway to a 2026-07-28 upstream (mcpkit servers in memory, reached
 * by official SDK v1 callers over Streamable HTTP): the upstream's input requests go to the
 * caller whose call asked for them, also with several callers in flight; and, through a
 * gateway, a resource subscription and the log level reach that upstream in its own era; the
 * proxy's HTTP front checks `Mcp-Param-*` headers against the upstream's tool schemas.
 * (The official conformance suites run the same through `mcpkit proxy` and a gateway:
 * scripts/conformance.mjs --via proxy,gateway.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { SUITE_TIMEOUT_MS } from '../../test/helpers/bounds.js';
import { makeHandler, post, rpc } from '../../test/helpers/http/server-harness.js';
import { inMemory } from '../../test/helpers/memory-upstream.js';
import { waitFor } from '../../test/helpers/wait.js';
import { createDemoServer } from '../demo/server.js';
import { type NodeServerHandle, serveNode } from '../http/node.js';
import { createStreamableHttpHandler } from '../http/server/handler.js';
import type { JSONObject } from '../jsonrpc/types.js';
import { McpServer } from '../server/server.js';
import { createGateway, type Gateway } from './gateway.js';
import { McpProxy } from './proxy.js';

const T = { timeout: 20_000 };

function text(result: unknown): string {
  const content = (result as { content?: Array<{ type?: string; text?: string }> }).content ?? [];
  return content.map((c) => c.text ?? '').join('\n');
}

describe('proxy in front of a 2026-07-28 upstream: input requests go to the caller whose call made them', { timeout: SUITE_TIMEOUT_MS }, () => {
  let proxy: McpProxy;
  let http: NodeServerHandle;
  let running = 0;
  let bothRunning!: () => void;
  const both = new Promise<void>((resolve) => (bothRunning = resolve));
  before(async () => {
    const upstream = new McpServer({ name: 'upstream', version: '1' });
    upstream.registerTool('ask-when-two-run', { description: 'waits until two calls run, then asks the client to sample' }, async (_args, ctx) => {
      if (++running === 2) bothRunning();
      await both;
      const answer = await ctx.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'who?' } }], maxTokens: 5 });
      return { content: [{ type: 'text', text: `answered by ${answer.model}` }] };
    });
    // no pin: the proxy's client speaks 2026-07-28 to it (inputs come with the result of one call)
    proxy = await McpProxy.open({ upstream: inMemory(upstream) });
    assert.equal(proxy.upstream?.era, 'stateless');
    http = await serveNode(createStreamableHttpHandler({ server: proxy.server }), { port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    await http?.close();
    await proxy?.close();
  });

  it('two callers of different connections in flight: each answers the sampling its own call asked for', T, async () => {
    const sampler = async (model: string): Promise<V1Client> => {
      const client = new V1Client({ name: model, version: '1' }, { capabilities: { sampling: {} } });
      client.setRequestHandler(CreateMessageRequestSchema, () => ({ model, role: 'assistant', content: { type: 'text', text: 'ok' } }));
      await client.connect(new V1Http(new URL(http.url)));
      return client;
    };
    const [a, b] = await Promise.all([sampler('model-a'), sampler('model-b')]);
    try {
      const [ra, rb] = await Promise.all([a.callTool({ name: 'ask-when-two-run', arguments: {} }), b.callTool({ name: 'ask-when-two-run', arguments: {} })]);
      assert.equal(text(ra), 'answered by model-a');
      assert.equal(text(rb), 'answered by model-b');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

describe('gateway in front of a 2026-07-28 upstream (the demo): subscriptions and the log level reach it', { timeout: SUITE_TIMEOUT_MS }, () => {
  let gateway: Gateway;
  let http: NodeServerHandle;
  let client: V1Client;
  before(async () => {
    gateway = createGateway({ upstreams: { demo: { transport: inMemory(createDemoServer()) } }, healthCheck: false });
    await gateway.whenReady(10_000);
    http = await serveNode(gateway.handler, { port: 0, host: '127.0.0.1' });
    client = new V1Client({ name: 'caller', version: '1' });
    await client.connect(new V1Http(new URL(http.url)));
  });
  after(async () => {
    await client?.close();
    await http?.close();
    await gateway?.close();
  });

  it('resources/subscribe succeeds and the resource updates reach the caller', T, async () => {
    const updated: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
    const { resources } = await client.listResources();
    const watched = resources.find((r) => r.uri.endsWith('test://watched-resource'));
    assert.ok(watched, `the gateway lists the demo's watched resource (it lists ${resources.map((r) => r.uri).join(', ')})`);
    await client.subscribeResource({ uri: watched.uri });
    await client.callTool({ name: 'demo_touch_watched_resource', arguments: {} });
    await waitFor(() => updated.includes(watched.uri), 'resources/updated for the watched resource');
    await client.unsubscribeResource({ uri: watched.uri });
  });

  it("the caller's logging/setLevel reaches the upstream: a tool's log messages arrive", T, async () => {
    const messages: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void messages.push(n.params.data));
    await client.setLoggingLevel('info');
    const result = await client.callTool({ name: 'demo_test_tool_with_logging', arguments: {} });
    assert.match(text(result), /executed successfully/);
    await waitFor(() => messages.includes('Tool execution completed'), 'the tool’s log messages');
    assert.ok(messages.includes('Tool execution started'));
  });
});

describe("proxy's HTTP front: Mcp-Param-* headers are checked against the upstream's tools (SEP-2243)", { timeout: SUITE_TIMEOUT_MS }, () => {
  it('a header that does not match its argument is refused with 400 / -32020; a matching one passes', T, async () => {
    const proxy = await McpProxy.open({ upstream: inMemory(createDemoServer()) });
    const handler = makeHandler({ server: proxy.server });
    try {
      // the schemas are read at connection; wait until the proxy knows the annotated tool
      await waitFor(() => proxy.server.toolInputSchema('test_custom_headers') !== undefined, 'the upstream tool list');
      const call = async (region: string) => {
        const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
        const res = await post(handler, rpc(1, 'tools/call', { name: 'test_custom_headers', arguments: { region: 'eu' }, _meta: meta }), {
          protocolVersion: '2026-07-28',
          headers: { 'mcp-method': 'tools/call', 'mcp-name': 'test_custom_headers', 'mcp-param-region': region },
        });
        const json = (await res.json()) as JSONObject;
        return { status: res.status, code: (json.error as JSONObject | undefined)?.code };
      };
      assert.deepEqual(await call('us'), { status: 400, code: -32020 });
      assert.deepEqual(await call('eu'), { status: 200, code: undefined });
    } finally {
      await handler.close();
      await proxy.close();
    }
  });
});
