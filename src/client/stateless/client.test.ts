/**
 * The client's stateless era (2026-07-28): era selection (probe, pinning, fallback),
 * per-request `_meta`, multi round-trip requests answered through the 2025-era handlers,
 * subscriptions, and the HTTP binding's headers. Every message the client sends is checked
 * against the schema of the revision it names.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FallbackTransport, StreamableHttpClientTransport } from '../../http/index.js';
import { createStreamableHttpHandler } from '../../http/server/handler.js';
import { LocalError, McpError } from '../../jsonrpc/errors.js';
import type { JSONObject, RequestId } from '../../jsonrpc/types.js';
import { McpServer } from '../../server/index.js';
import { type RecordingTransport, recordTransport } from '../../testing/recording-transport.js';
import { InMemoryTransport } from '../../transport/memory.js';
import type { Transport } from '../../transport/types.js';
import type { ElicitResult } from '../../types.js';
import { ALL_REVISIONS, Client, type ClientOptions } from '../index.js';

const V = '2026-07-28';

function modernServer(options: ConstructorParameters<typeof McpServer>[1] = {}): McpServer {
  const server = new McpServer({ name: 'srv', version: '2.0.0' }, { instructions: 'hi', ...options });
  server.registerTool('ask_all', { description: 'asks for everything' }, async (_a, ctx) => {
    const [who, llm, roots] = await Promise.all([
      ctx.elicitForm({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string', default: 'Anon' } } } }),
      ctx.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 }),
      ctx.listRoots(),
    ]);
    const text = Array.isArray(llm.content) ? '' : llm.content.type === 'text' ? llm.content.text : '';
    return `${String(who.content?.name)}|${text}|${roots.map((r) => r.uri).join(',')}`;
  });
  server.registerTool('two_rounds', { description: 'asks twice' }, async (_a, ctx) => {
    const a = await ctx.elicitForm({ message: 'A?', requestedSchema: { type: 'object', properties: { v: { type: 'string' } } } }, { inputKey: 'a' });
    const b = await ctx.elicitForm({ message: 'B?', requestedSchema: { type: 'object', properties: { v: { type: 'string' } } } }, { inputKey: 'b' });
    return `${String(a.content?.v)}+${String(b.content?.v)}`;
  });
  server.registerTool('logs', { description: 'logs' }, async (_a, ctx) => {
    await ctx.log('info', 'an info line');
    return 'logged';
  });
  server.registerTool(
    'headed',
    { description: 'mirrors region', inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } } },
    (a: { region?: string }) => a.region ?? '-',
  );
  server.registerTool(
    'slow',
    { description: 'waits until cancelled' },
    (_a, ctx) => new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason))),
  );
  server.registerResource('test://r', { name: 'r' }, (uri) => ({ uri, text: 'r' }));
  return server;
}

const answers: ClientOptions = {
  elicitation: {
    form: (p): ElicitResult => {
      const content: Record<string, string> = p.message === 'A?' ? { v: 'x' } : p.message === 'B?' ? { v: 'y' } : {};
      return { action: 'accept', content };
    },
  },
  sampling: { createMessage: () => ({ role: 'assistant', model: 'm', content: { type: 'text', text: 'llm' } }) },
  roots: { list: () => [{ uri: 'file:///r1' }] },
};

/** A dual-era client connected in memory to `server`, its transport recorded. */
async function connect(server: McpServer, options: ClientOptions = {}): Promise<{ client: Client; recorder: RecordingTransport }> {
  const [a, b] = InMemoryTransport.createPair();
  await server.connect(a);
  const client = new Client({ name: 'cli', version: '1.0.0' }, { protocolVersions: ALL_REVISIONS, ...answers, ...options });
  const recorder = recordTransport(b, { side: 'client', revision: () => client.protocolVersion });
  await client.connect(recorder);
  return { client, recorder };
}

/** A peer answering by `respond` (undefined: stay silent); records what it received. */
function scriptedPeer(respond: (m: JSONObject) => JSONObject | undefined): { transport: Transport; received: JSONObject[] } {
  const [mine, theirs] = InMemoryTransport.createPair();
  const received: JSONObject[] = [];
  theirs.start({
    message: (data) => {
      const m = JSON.parse(data as string) as JSONObject;
      received.push(m);
      if (m.id === undefined) return;
      const answer = respond(m);
      if (answer !== undefined) void theirs.send({ jsonrpc: '2.0', id: m.id as RequestId, ...answer } as never);
    },
    error: () => {},
    closed: () => {},
  });
  return { transport: mine, received };
}

describe('client: choosing the era', () => {
  it('probes with server/discover and goes stateless against a modern server', async () => {
    const { client, recorder } = await connect(modernServer());
    assert.equal(client.era, 'stateless');
    assert.equal(client.protocolVersion, V);
    assert.deepEqual(client.serverInfo, { name: 'srv', version: '2.0.0' });
    assert.equal(client.instructions, 'hi');
    assert.deepEqual(client.discoverResult?.supportedVersions, [V]);
    const tools = await client.listAllTools();
    assert.ok(tools.some((t) => t.name === 'ask_all'));
    assert.equal((recorder.transcript[0]!.message as JSONObject).method, 'server/discover');
    const sent = recorder.transcript.filter((e) => e.dir === 'send').map((e) => e.message as JSONObject);
    for (const m of sent) {
      const meta = (m.params as JSONObject)._meta as JSONObject;
      assert.equal(meta['io.modelcontextprotocol/protocolVersion'], V);
      assert.deepEqual(meta['io.modelcontextprotocol/clientInfo'], { name: 'cli', version: '1.0.0' });
      assert.ok((meta['io.modelcontextprotocol/clientCapabilities'] as JSONObject).sampling !== undefined);
    }
    recorder.assertNoViolations();
    await client.close();
  });

  it('falls back to initialize against a 2025-era server', async () => {
    const legacy = modernServer({ protocolVersions: ['2025-06-18', '2025-11-25'] });
    const { client, recorder } = await connect(legacy);
    assert.equal(client.era, 'stateful');
    assert.equal(client.protocolVersion, '2025-11-25');
    assert.deepEqual(
      recorder.transcript.filter((e) => e.dir === 'send').map((e) => (e.message as JSONObject).method),
      ['server/discover', 'initialize', 'notifications/initialized'],
    );
    assert.equal((await client.callTool({ name: 'ask_all' })).content[0]?.type, 'text', 'sampling and elicitation as requests');
    await client.close();
  });

  it('falls back when the probe gets no answer in time', async () => {
    const peer = scriptedPeer((m) =>
      m.method === 'initialize' ? { result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'old', version: '1' } } } : undefined,
    );
    const client = new Client({ name: 'cli', version: '1' }, { protocolVersions: ALL_REVISIONS, stateless: { discoverTimeoutMs: 30 } });
    await client.connect(peer.transport);
    assert.equal(client.era, 'stateful');
    assert.deepEqual(
      peer.received.map((m) => m.method),
      ['server/discover', 'notifications/cancelled', 'initialize', 'notifications/initialized'],
    );
    await client.close();
  });

  it('retries the probe with a version the server names in -32022', async () => {
    let first = true;
    const peer = scriptedPeer((m) => {
      if (m.method !== 'server/discover') return undefined;
      if (first) {
        first = false;
        return { error: { code: -32022, message: 'Unsupported protocol version', data: { supported: [V], requested: V } } };
      }
      return {
        result: {
          resultType: 'complete',
          supportedVersions: [V],
          capabilities: {},
          ttlMs: 0,
          cacheScope: 'private',
          serverInfo: { name: 'draft-era', version: '0' },
        },
      };
    });
    const client = new Client({ name: 'cli', version: '1' }, { protocolVersion: V });
    await client.connect(peer.transport);
    assert.equal(client.era, 'stateless');
    assert.deepEqual(client.serverInfo, { name: 'draft-era', version: '0' }, 'serverInfo in the body (an older draft) is read too');
    assert.equal(peer.received.length, 2);
    await client.close();
  });

  it('pinning a stateful revision skips the probe; pinning the stateless one refuses a 2025-era server', async () => {
    const pinnedOld = await connect(modernServer(), { protocolVersion: '2025-06-18' });
    assert.equal(pinnedOld.client.era, 'stateful');
    assert.equal(pinnedOld.client.protocolVersion, '2025-06-18');
    assert.equal((pinnedOld.recorder.transcript[0]!.message as JSONObject).method, 'initialize');
    await pinnedOld.client.close();

    const [a, b] = InMemoryTransport.createPair();
    await modernServer({ protocolVersions: ['2025-11-25'] }).connect(a);
    const client = new Client({ name: 'cli', version: '1' }, { protocolVersion: V });
    await assert.rejects(client.connect(b), (e: unknown) => e instanceof McpError && e.code === -32601);
  });

  it('surfaces a modern refusal instead of falling back', async () => {
    const peer = scriptedPeer(() => ({ error: { code: -32022, message: 'Unsupported protocol version', data: { supported: ['2027-01-01'], requested: V } } }));
    const client = new Client({ name: 'cli', version: '1' }, { protocolVersion: V });
    await assert.rejects(client.connect(peer.transport), (e: unknown) => e instanceof LocalError && e.code === 'unsupported_protocol_version');
  });
});

describe('client: requests of the stateless era', () => {
  it('answers input requests through its 2025-era handlers and retries with the request state', async () => {
    const { client, recorder } = await connect(modernServer());
    const r = await client.callTool({ name: 'ask_all' });
    assert.deepEqual(r.content, [{ type: 'text', text: 'Anon|llm|file:///r1' }], 'the form default was applied (SEP-1034)');
    const two = await client.callTool({ name: 'two_rounds' });
    assert.deepEqual(two.content, [{ type: 'text', text: 'x+y' }]);
    const calls = recorder.transcript.filter((e) => e.dir === 'send' && (e.message as JSONObject).method === 'tools/call').map((e) => e.message as JSONObject);
    assert.equal(calls.length, 5, 'ask_all: 2 rounds; two_rounds: 3 rounds');
    assert.equal(new Set(calls.map((m) => m.id)).size, 5, 'every retry has a new id');
    assert.equal((calls[0]!.params as JSONObject).requestState, undefined);
    assert.equal(typeof (calls[1]!.params as JSONObject).requestState, 'string');
    recorder.assertNoViolations();
    await client.close();
  });

  it('fails a call whose input it cannot answer, and refuses unknown result types', async () => {
    const { client } = await connect(modernServer(), { sampling: undefined, roots: undefined, capabilities: { sampling: {}, roots: {} } });
    await assert.rejects(client.callTool({ name: 'ask_all' }), (e: unknown) => e instanceof LocalError && e.code === 'capability_missing');
    await client.close();
    const peer = scriptedPeer((m) =>
      m.method === 'server/discover'
        ? { result: { resultType: 'complete', supportedVersions: [V], capabilities: { tools: {} }, ttlMs: 0, cacheScope: 'private' } }
        : { result: { resultType: 'mystery', content: [] } },
    );
    const c2 = new Client({ name: 'cli', version: '1' }, { protocolVersion: V });
    await c2.connect(peer.transport);
    await assert.rejects(c2.request('tools/call', { name: 'x' }), (e: unknown) => e instanceof LocalError && e.code === 'invalid_result');
    await c2.close();
  });

  it('asks for logs per request once a level is set; ping and logging/setLevel are not sent', async () => {
    const { client, recorder } = await connect(modernServer());
    const logs: unknown[] = [];
    client.on('notifications/message', (p) => logs.push(p?.data));
    await client.callTool({ name: 'logs' });
    assert.deepEqual(logs, []);
    await client.setLoggingLevel('info');
    await client.callTool({ name: 'logs' });
    assert.deepEqual(logs, ['an info line']);
    await assert.rejects(client.ping(), (e: unknown) => e instanceof LocalError && e.code === 'method_unsupported');
    assert.ok(!recorder.transcript.some((e) => (e.message as JSONObject).method === 'logging/setLevel'));
    recorder.assertNoViolations();
    await client.close();
  });

  it('listens: acknowledgement, tagged notifications, closing', async () => {
    const server = modernServer();
    const { client, recorder } = await connect(server);
    const seen: string[] = [];
    const sub = await client.listen({ toolsListChanged: true, resourceSubscriptions: ['test://r'] }, { onNotification: (method) => seen.push(method) });
    assert.deepEqual(sub.notifications, { toolsListChanged: true, resourceSubscriptions: ['test://r'] });
    server.registerTool('late', { description: 'late' }, () => 'late');
    await server.notifyResourceUpdated('test://r');
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(seen.sort(), ['notifications/resources/updated', 'notifications/tools/list_changed']);
    sub.close();
    await assert.rejects(sub.ended, (e: unknown) => e instanceof LocalError && e.code === 'cancelled');
    recorder.assertNoViolations();
    await client.close();
  });

  it('a subscription the server ends resolves', async () => {
    const server = modernServer();
    const { client } = await connect(server);
    const sub = await client.listen({ promptsListChanged: true });
    assert.deepEqual(sub.notifications, {}, 'no prompts: nothing agreed');
    await server.close();
    await sub.ended;
  });
});

describe('client: the HTTP binding of the stateless era', () => {
  /** A dual-era client over HTTP against `server`, with every POST's headers recorded. */
  async function overHttp(server: McpServer, fallback = false) {
    const handler = createStreamableHttpHandler({ server });
    const posts: Array<{ headers: Headers; body: JSONObject }> = [];
    const fetchSpy: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      if (request.method === 'POST') posts.push({ headers: request.headers, body: JSON.parse(await request.clone().text()) as JSONObject });
      return handler.fetch(request);
    };
    const transport = fallback
      ? new FallbackTransport('http://localhost/mcp', { fetch: fetchSpy })
      : new StreamableHttpClientTransport({ url: 'http://localhost/mcp', fetch: fetchSpy });
    const client = new Client({ name: 'cli', version: '1' }, { protocolVersions: ALL_REVISIONS, ...answers });
    await client.connect(transport);
    return { client, posts, handler, transport };
  }

  it('sends MCP-Protocol-Version, Mcp-Method, Mcp-Name and Mcp-Param headers, and no session', async () => {
    const { client, posts, handler } = await overHttp(modernServer());
    await client.listAllTools();
    assert.deepEqual((await client.callTool({ name: 'headed', arguments: { region: 'Zürich' } })).content, [{ type: 'text', text: 'Zürich' }]);
    await client.readResource('test://r');
    for (const p of posts) {
      assert.equal(p.headers.get('mcp-protocol-version'), V);
      assert.equal(p.headers.get('mcp-method'), p.body.method);
      assert.equal(p.headers.get('mcp-session-id'), null);
    }
    const call = posts.find((p) => p.body.method === 'tools/call')!;
    assert.equal(call.headers.get('mcp-name'), 'headed');
    assert.equal(call.headers.get('mcp-param-region'), `=?base64?${Buffer.from('Zürich').toString('base64')}?=`);
    assert.equal(posts.find((p) => p.body.method === 'resources/read')!.headers.get('mcp-name'), 'test://r');
    await client.close();
    await handler.close();
  });

  it('lists tools again and retries once when a call is refused for missing Mcp-Param headers', async () => {
    const { client, posts, handler } = await overHttp(modernServer());
    // never listed: the transport does not know the annotations yet
    assert.deepEqual((await client.callTool({ name: 'headed', arguments: { region: 'eu' } })).content, [{ type: 'text', text: 'eu' }]);
    assert.deepEqual(
      posts.map((p) => p.body.method),
      ['server/discover', 'tools/call', 'tools/list', 'tools/call'],
    );
    await client.close();
    await handler.close();
  });

  it('leaves out tools with invalid x-mcp-header annotations', async () => {
    const server = modernServer();
    server.registerRawTool({ name: 'bad', inputSchema: { type: 'object', properties: { n: { type: 'number', 'x-mcp-header': 'N' } } } }, () => ({
      content: [],
    }));
    const { client, handler } = await overHttp(server);
    const names = (await client.listAllTools()).map((t) => t.name);
    assert.ok(names.includes('headed') && !names.includes('bad'));
    await client.close();
    await handler.close();
  });

  it('cancels by closing the request stream, not by POSTing notifications/cancelled', async () => {
    const { client, posts, handler } = await overHttp(modernServer());
    const controller = new AbortController();
    const pending = client.callTool({ name: 'slow' }, { signal: controller.signal, onProgress: () => {} });
    await new Promise((resolve) => setTimeout(resolve, 30));
    controller.abort();
    await assert.rejects(pending, (e: unknown) => e instanceof LocalError && e.code === 'cancelled');
    await new Promise((resolve) => setTimeout(resolve, 30));
    assert.ok(!posts.some((p) => p.body.method === 'notifications/cancelled'));
    await client.close();
    await handler.close();
  });

  it('falls back to 2025-era Streamable HTTP (not legacy SSE) for a 2025-era server', async () => {
    const { client, transport, posts, handler } = await overHttp(modernServer({ protocolVersions: ['2025-11-25'] }), true);
    assert.equal(client.era, 'stateful');
    assert.equal((transport as FallbackTransport).kind, 'streamable-http');
    assert.deepEqual(
      posts.map((p) => p.body.method),
      ['server/discover', 'initialize', 'notifications/initialized'],
    );
    await client.listTools();
    await client.close();
    await handler.close();
  });
});
