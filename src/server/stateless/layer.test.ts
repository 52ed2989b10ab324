/**
 * The server's stateless era (2026-07-28) on the wire: a raw JSON-RPC peer talks to an
 * McpServer over an in-memory pair; every message the server sends is checked against the
 * 2026-07-28 schema (the recorder picks the revision each request names in its `_meta`).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONObject, RequestId } from '../../jsonrpc/types.js';
import { type RecordingTransport, recordTransport } from '../../testing/recording-transport.js';
import { InMemoryTransport } from '../../transport/memory.js';
import { McpServer, type ServerOptions } from '../index.js';

const V = '2026-07-28';
const CAPS_ALL = { elicitation: {}, sampling: {}, roots: {} };

function meta(extra: JSONObject = {}, caps: JSONObject = CAPS_ALL): JSONObject {
  return {
    'io.modelcontextprotocol/protocolVersion': V,
    'io.modelcontextprotocol/clientCapabilities': caps,
    'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
    ...extra,
  };
}

interface Wire {
  recorder: RecordingTransport;
  peer: InMemoryTransport;
  /** Every message the server sent, in order. */
  received: JSONObject[];
  /** Sends a request and resolves with its response. */
  request(id: RequestId, method: string, params?: JSONObject): Promise<JSONObject>;
  send(message: JSONObject): Promise<void>;
  server: McpServer;
}

async function connect(server: McpServer): Promise<Wire> {
  const [serverEnd, peer] = InMemoryTransport.createPair();
  const recorder = recordTransport(serverEnd, { side: 'server', revision: () => undefined });
  await server.connect(recorder);
  const received: JSONObject[] = [];
  const waiting = new Map<RequestId, (m: JSONObject) => void>();
  peer.start({
    message: (data) => {
      const m = JSON.parse(data as string) as JSONObject;
      received.push(m);
      if (m.method === undefined) waiting.get(m.id as RequestId)?.(m);
    },
    error: () => {},
    closed: () => {},
  });
  return {
    recorder,
    peer,
    received,
    server,
    send: (message) => peer.send(message as never),
    request(id, method, params) {
      return new Promise((resolve) => {
        waiting.set(id, resolve);
        void peer.send({ jsonrpc: '2.0', id, method, params } as never);
      });
    },
  };
}

function demoServer(options: ServerOptions = {}): McpServer {
  const server = new McpServer({ name: 'stateless-test', version: '1.0.0' }, { instructions: 'Be nice.', ...options });
  server.registerTool(
    'echo',
    { description: 'Echoes', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
    (a: { text: string }) => a.text,
  );
  server.registerTool('ask', { description: 'Asks for a name, then samples' }, async (_a, ctx) => {
    const who = await ctx.elicitForm({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } });
    const llm = await ctx.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 });
    const roots = await ctx.listRoots();
    return `${String(who.content?.name)} ${JSON.stringify(llm.content)} ${roots.length}`;
  });
  server.registerTool('parallel', { description: 'Asks for three inputs at once' }, async (_a, ctx) => {
    await Promise.all([
      ctx.elicitForm({ message: 'A?', requestedSchema: { type: 'object', properties: {} } }, { inputKey: 'a' }),
      ctx.listRoots({ inputKey: 'b' }),
      ctx.listRoots({ inputKey: 'c' }),
    ]);
    return 'all three';
  });
  server.registerTool('needs_sampling', { description: 'Needs sampling' }, async (_a, ctx) => {
    await ctx.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'x' } }], maxTokens: 5 });
    return 'sampled';
  });
  server.registerTool('logs', { description: 'Logs at two levels' }, async (_a, ctx) => {
    await ctx.log('debug', 'a debug line');
    await ctx.log('error', 'an error line');
    return 'logged';
  });
  server.registerResource('test://a', { name: 'a', mimeType: 'text/plain' }, (uri) => ({ uri, text: 'A' }));
  server.registerPrompt('p', { description: 'A prompt' }, () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'hello' } }] }));
  return server;
}

function result(m: JSONObject): JSONObject {
  assert.ok(m.result !== undefined, `expected a result, got ${JSON.stringify(m)}`);
  return m.result as JSONObject;
}

function error(m: JSONObject): { code: number; message: string; data?: JSONObject } {
  assert.ok(m.error !== undefined, `expected an error, got ${JSON.stringify(m)}`);
  return m.error as { code: number; message: string; data?: JSONObject };
}

describe('stateless era on the server', () => {
  it('answers server/discover with versions, capabilities, identity and caching hints', async () => {
    const w = await connect(demoServer());
    const r = result(await w.request(1, 'server/discover', { _meta: meta() }));
    assert.deepEqual(r.supportedVersions, [V]);
    assert.equal(r.resultType, 'complete');
    assert.equal(r.instructions, 'Be nice.');
    assert.deepEqual((r.capabilities as JSONObject).tools, { listChanged: true });
    assert.deepEqual((r._meta as JSONObject)['io.modelcontextprotocol/serverInfo'], { name: 'stateless-test', version: '1.0.0' });
    assert.equal(r.ttlMs, 0);
    assert.equal(r.cacheScope, 'private');
    w.recorder.assertNoViolations();
  });

  it('puts resultType on every result and caching hints on cacheable ones', async () => {
    const server = demoServer({ stateless: { cacheHints: (method) => (method === 'tools/list' ? { ttlMs: 60_000, cacheScope: 'public' } : undefined) } });
    const w = await connect(server);
    const tools = result(await w.request(1, 'tools/list', { _meta: meta() }));
    assert.deepEqual([tools.resultType, tools.ttlMs, tools.cacheScope], ['complete', 60_000, 'public']);
    assert.deepEqual(
      (tools.tools as Array<{ name: string }>).map((t) => t.name),
      ['echo', 'ask', 'parallel', 'needs_sampling', 'logs'],
      'registration order, every time',
    );
    for (const [id, method, params] of [
      [2, 'resources/list', {}],
      [3, 'resources/templates/list', {}],
      [4, 'prompts/list', {}],
      [5, 'resources/read', { uri: 'test://a' }],
    ] as const) {
      const r = result(await w.request(id, method, { ...params, _meta: meta() }));
      assert.deepEqual([r.resultType, r.ttlMs, r.cacheScope], ['complete', 0, 'private'], method);
    }
    const call = result(await w.request(6, 'tools/call', { name: 'echo', arguments: { text: 'hi' }, _meta: meta() }));
    assert.equal(call.resultType, 'complete');
    assert.equal(call.ttlMs, undefined, 'tools/call is not cacheable');
    w.recorder.assertNoViolations();
  });

  it('refuses malformed metadata with -32602 and unknown versions with -32022', async () => {
    const w = await connect(demoServer());
    assert.equal(error(await w.request(1, 'tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': V } })).code, -32602);
    assert.equal(error(await w.request(2, 'tools/list', { _meta: { ...meta(), 'io.modelcontextprotocol/logLevel': 'loud' } })).code, -32602);
    assert.equal(error(await w.request(3, 'tools/list', { _meta: { ...meta(), 'io.modelcontextprotocol/clientInfo': { name: 'x' } } })).code, -32602);
    const e = error(await w.request(4, 'tools/list', { _meta: meta({ 'io.modelcontextprotocol/protocolVersion': '1999-01-01' }) }));
    assert.equal(e.code, -32022);
    assert.deepEqual(e.data, { supported: [V], requested: '1999-01-01' });
    w.recorder.assertNoViolations();
  });

  it('answers -32601 for the methods the revision removed', async () => {
    const w = await connect(demoServer());
    let id = 1;
    for (const method of ['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe', 'unknown/method']) {
      assert.equal(
        error(
          await w.request(id++, method, {
            _meta: meta(),
            uri: 'test://a',
            level: 'info',
            protocolVersion: V,
            capabilities: {},
            clientInfo: { name: 'x', version: '1' },
          }),
        ).code,
        -32601,
        method,
      );
    }
    w.recorder.assertNoViolations();
  });

  it('answers an unknown resource with -32602 and the URI in data', async () => {
    const w = await connect(demoServer());
    const e = error(await w.request(1, 'resources/read', { uri: 'test://nothing', _meta: meta() }));
    assert.equal(e.code, -32602);
    assert.deepEqual(e.data, { uri: 'test://nothing' });
    w.recorder.assertNoViolations();
  });

  it('runs a handler again per round, carrying earlier answers in a signed requestState', async () => {
    const w = await connect(demoServer());
    const r1 = result(await w.request(1, 'tools/call', { name: 'ask', arguments: {}, _meta: meta() }));
    assert.equal(r1.resultType, 'input_required');
    assert.deepEqual(Object.keys(r1.inputRequests as JSONObject), ['elicitation-1']);
    assert.equal(((r1.inputRequests as JSONObject)['elicitation-1'] as JSONObject).method, 'elicitation/create');
    assert.equal(typeof r1.requestState, 'string');
    const r2 = result(
      await w.request(2, 'tools/call', {
        name: 'ask',
        arguments: {},
        _meta: meta(),
        requestState: r1.requestState,
        inputResponses: { 'elicitation-1': { action: 'accept', content: { name: 'Ada' } } },
      }),
    );
    assert.deepEqual(Object.keys(r2.inputRequests as JSONObject), ['sampling-1']);
    assert.notEqual(r2.requestState, r1.requestState);
    const r3 = result(
      await w.request(3, 'tools/call', {
        name: 'ask',
        arguments: {},
        _meta: meta(),
        requestState: r2.requestState,
        inputResponses: { 'sampling-1': { role: 'assistant', model: 'm', content: { type: 'text', text: 'yo' } } },
      }),
    );
    assert.deepEqual(Object.keys(r3.inputRequests as JSONObject), ['roots-1']);
    const done = result(
      await w.request(4, 'tools/call', {
        name: 'ask',
        arguments: {},
        _meta: meta(),
        requestState: r3.requestState,
        inputResponses: { 'roots-1': { roots: [{ uri: 'file:///a' }] } },
      }),
    );
    assert.equal(done.resultType, 'complete');
    assert.deepEqual(done.content, [{ type: 'text', text: 'Ada {"type":"text","text":"yo"} 1' }]);
    w.recorder.assertNoViolations();
  });

  it('collects inputs asked in parallel into one InputRequiredResult', async () => {
    const w = await connect(demoServer());
    const r = result(await w.request(1, 'tools/call', { name: 'parallel', arguments: {}, _meta: meta() }));
    assert.deepEqual(Object.keys(r.inputRequests as JSONObject).sort(), ['a', 'b', 'c']);
    const done = result(
      await w.request(2, 'tools/call', {
        name: 'parallel',
        arguments: {},
        _meta: meta(),
        requestState: r.requestState,
        inputResponses: { a: { action: 'decline' }, b: { roots: [] }, c: { roots: [] }, ignored: { anything: true } },
      }),
    );
    assert.deepEqual(done.content, [{ type: 'text', text: 'all three' }]);
    w.recorder.assertNoViolations();
  });

  it('refuses a tampered, foreign or malformed requestState and malformed inputResponses with -32602', async () => {
    const w = await connect(demoServer());
    const r = result(await w.request(1, 'tools/call', { name: 'ask', arguments: {}, _meta: meta() }));
    const state = r.requestState as string;
    const answer = { 'elicitation-1': { action: 'accept', content: { name: 'Ada' } } };
    const tampered = state.slice(0, -2) + (state.endsWith('AA') ? 'BB' : 'AA');
    assert.equal(
      error(await w.request(2, 'tools/call', { name: 'ask', arguments: {}, _meta: meta(), requestState: tampered, inputResponses: answer })).code,
      -32602,
    );
    assert.equal(
      error(await w.request(3, 'tools/call', { name: 'ask', arguments: {}, _meta: meta(), requestState: state + 'x', inputResponses: answer })).code,
      -32602,
    );
    // the same state on another tool (or other arguments) is refused: it is bound to its request
    assert.equal(
      error(await w.request(4, 'tools/call', { name: 'parallel', arguments: {}, _meta: meta(), requestState: state, inputResponses: answer })).code,
      -32602,
    );
    assert.equal(
      error(await w.request(5, 'tools/call', { name: 'ask', arguments: { other: 1 }, _meta: meta(), requestState: state, inputResponses: answer })).code,
      -32602,
    );
    assert.equal(error(await w.request(6, 'tools/call', { name: 'ask', arguments: {}, _meta: meta(), inputResponses: null })).code, -32602);
    assert.equal(
      error(await w.request(7, 'tools/call', { name: 'ask', arguments: {}, _meta: meta(), inputResponses: { 'elicitation-1': 12345 } })).code,
      -32602,
    );
    // an answer that does not match the form is refused too
    assert.equal(
      error(
        await w.request(8, 'tools/call', {
          name: 'ask',
          arguments: {},
          _meta: meta(),
          inputResponses: { 'elicitation-1': { action: 'accept', content: { name: 7 } } },
        }),
      ).code,
      -32602,
    );
    // a wrong key: the input is asked for again (not an error)
    const again = result(
      await w.request(9, 'tools/call', { name: 'ask', arguments: {}, _meta: meta(), inputResponses: { wrong: { action: 'accept', content: {} } } }),
    );
    assert.equal(again.resultType, 'input_required');
    w.recorder.assertNoViolations();
  });

  it('answers -32021 naming the capability the request did not declare', async () => {
    const w = await connect(demoServer());
    const e = error(await w.request(1, 'tools/call', { name: 'needs_sampling', arguments: {}, _meta: meta({}, {}) }));
    assert.equal(e.code, -32021);
    assert.deepEqual(e.data, { requiredCapabilities: { sampling: {} } });
    const form = error(await w.request(2, 'tools/call', { name: 'ask', arguments: {}, _meta: meta({}, { elicitation: { url: {} } }) }));
    assert.equal(form.code, -32021);
    w.recorder.assertNoViolations();
  });

  it('sends logs only for a request that asked for them, at its level, on its own request', async () => {
    const w = await connect(demoServer());
    await w.request(1, 'tools/call', { name: 'logs', arguments: {}, _meta: meta() });
    assert.equal(w.received.filter((m) => m.method === 'notifications/message').length, 0);
    await w.request(2, 'tools/call', { name: 'logs', arguments: {}, _meta: meta({ 'io.modelcontextprotocol/logLevel': 'warning' }) });
    const logs = w.received.filter((m) => m.method === 'notifications/message');
    assert.deepEqual(
      logs.map((m) => (m.params as JSONObject).data),
      ['an error line'],
    );
    w.recorder.assertNoViolations();
  });

  it('serves subscriptions/listen: acknowledgement first, opted-in notifications tagged with the subscription id', async () => {
    const server = demoServer();
    const w = await connect(server);
    const listening = w.request('sub-1', 'subscriptions/listen', {
      _meta: meta(),
      notifications: { toolsListChanged: true, resourceSubscriptions: ['test://a'], promptsListChanged: false },
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    const ack = w.received.find((m) => m.method === 'notifications/subscriptions/acknowledged');
    assert.deepEqual(ack?.params, {
      _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub-1' },
      notifications: { toolsListChanged: true, resourceSubscriptions: ['test://a'] },
    });
    const other = server.registerTool('later', { description: 'Added later' }, () => 'later');
    server.registerPrompt('later', { description: 'A prompt nobody subscribed to' }, () => ({ messages: [] }));
    await server.notifyResourceUpdated('test://a');
    await server.notifyResourceUpdated('test://b');
    await new Promise((resolve) => setTimeout(resolve, 10));
    const notes = w.received.filter((m) => typeof m.method === 'string' && m.method !== 'notifications/subscriptions/acknowledged');
    assert.deepEqual(
      notes.map((m) => [m.method, (m.params as JSONObject)._meta]),
      [
        ['notifications/resources/updated', { 'io.modelcontextprotocol/subscriptionId': 'sub-1' }],
        ['notifications/tools/list_changed', { 'io.modelcontextprotocol/subscriptionId': 'sub-1' }],
      ],
    );
    other.remove();
    await server.close();
    const closed = result(await listening);
    assert.deepEqual(closed._meta, {
      'io.modelcontextprotocol/subscriptionId': 'sub-1',
      'io.modelcontextprotocol/serverInfo': { name: 'stateless-test', version: '1.0.0' },
    });
    w.recorder.assertNoViolations();
  });

  it('ends a subscription the client cancels, sending nothing more', async () => {
    const server = demoServer();
    const w = await connect(server);
    void w.request(1, 'subscriptions/listen', { _meta: meta(), notifications: { toolsListChanged: true } });
    await new Promise((resolve) => setTimeout(resolve, 10));
    await w.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
    await new Promise((resolve) => setTimeout(resolve, 10));
    server.registerTool('later', { description: 'Added later' }, () => 'later');
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(w.received.filter((m) => m.method === 'notifications/tools/list_changed').length, 0);
    assert.equal(w.received.filter((m) => m.id === 1).length, 0, 'a cancelled request gets no response');
    w.recorder.assertNoViolations();
  });

  it('serves both eras on one connection: initialize-based requests are untouched', async () => {
    const w = await connect(demoServer());
    const init = result(await w.request(1, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } }));
    assert.equal(init.protocolVersion, '2025-11-25');
    await w.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const legacy = result(await w.request(2, 'tools/list', {}));
    assert.equal(legacy.resultType, undefined);
    assert.deepEqual(result(await w.request(3, 'ping')), {});
    const modern = result(await w.request(4, 'tools/list', { _meta: meta() }));
    assert.equal(modern.resultType, 'complete');
    w.recorder.assertNoViolations();
  });

  it('can be turned off: protocolVersions without a stateless revision', async () => {
    const w = await connect(demoServer({ protocolVersions: ['2025-11-25'] }));
    const e = error(await w.request(1, 'server/discover', { _meta: meta() }));
    assert.notEqual(e.code, -32022);
    assert.equal(w.server.statelessRevisions.length, 0);
  });
});
