/**
 * The Streamable HTTP server's stateless era (2026-07-28): POSTs that claim it are served
 * per request beside the 2025-era sessions on the same URL; the binding's header checks
 * and status codes; SSE only where notifications can flow; a subscription's stream; a
 * client disconnect cancelling its request. Every body the server answers is checked
 * against the 2026-07-28 schema.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ACCEPT_BOTH, eventually, makeHandler, openSession, post, rpc, SseReader, smallServer } from '../../../../test/helpers/http/server-harness.js';
import type { JSONObject, RequestId } from '../../../jsonrpc/types.js';
import { McpServer } from '../../../server/server.js';
import { validateWireMessage } from '../../../testing/wire-schema.js';
import { handleNow, type StreamableHttpHandler } from '../handler.js';

const V = '2026-07-28';

function meta(extra: JSONObject = {}): JSONObject {
  return { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} }, ...extra };
}

/** The headers a conforming client sends with `method` (and `name`). */
function headers(method: string, name?: string, extra: Record<string, string> = {}): Record<string, string> {
  const h: Record<string, string> = { 'mcp-method': method, ...extra };
  if (name !== undefined) h['mcp-name'] = name;
  return h;
}

/** POSTs one stateless-era request with conforming headers (overridable). */
function send(
  handler: StreamableHttpHandler,
  id: RequestId,
  method: string,
  params: JSONObject,
  extra: Record<string, string> = {},
  version = V,
): Promise<Response> {
  const name = typeof params.name === 'string' ? params.name : typeof params.uri === 'string' ? params.uri : undefined;
  return post(handler, rpc(id, method, params), { protocolVersion: version, headers: headers(method, name, extra) });
}

/** The JSON body of a reply, checked against the 2026-07-28 schema as the answer to `method`. */
async function body(res: Response, method: string): Promise<JSONObject> {
  const json = (await res.json()) as JSONObject;
  const problems = validateWireMessage(V, json, { sender: 'server', requests: new Map([[json.id as RequestId, { method }]]) });
  assert.deepEqual(problems, [], JSON.stringify(json));
  return json;
}

function server(): McpServer {
  const s = smallServer();
  s.registerTool(
    'headed',
    {
      description: 'x-mcp-header arguments',
      inputSchema: {
        type: 'object',
        properties: {
          region: { type: 'string', 'x-mcp-header': 'Region' },
          count: { type: 'integer', 'x-mcp-header': 'Count' },
          flag: { type: 'boolean', 'x-mcp-header': 'Flag' },
          nested: { type: 'object', properties: { zone: { type: 'string', 'x-mcp-header': 'Zone' } } },
        },
      },
    },
    (a: JSONObject) => JSON.stringify(a),
  );
  s.registerTool('elicit', { description: 'asks for a name' }, async (_a, ctx) => {
    const r = await ctx.elicitForm({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } }, { inputKey: 'who' });
    return String(r.content?.name);
  });
  s.registerTool('progress', { description: 'reports progress' }, async (_a, ctx) => {
    await ctx.sendProgress(1, 2);
    await ctx.sendProgress(2, 2);
    return 'done';
  });
  return s;
}

describe('Streamable HTTP: the stateless era', () => {
  it('replies to a request the adapter holds whole, to a synchronous tool, without a promise once the server is ready', async () => {
    const handler = makeHandler({ server: server() });
    // the first request of the era waits for the server to be ready
    assert.equal((await send(handler, 0, 'tools/list', { _meta: meta() })).status, 200);
    const h: Record<string, string> = {
      host: 'localhost:3000',
      accept: ACCEPT_BOTH,
      'content-type': 'application/json',
      'mcp-protocol-version': V,
      ...headers('tools/call', 'echo'),
    };
    const text = JSON.stringify(rpc(1, 'tools/call', { name: 'echo', arguments: { text: 'x' }, _meta: meta() }));
    const reply = handleNow(handler, { method: 'POST', url: '/mcp', headers: (name) => h[name] ?? null, body: text, rawHeaders: h });
    assert.ok(!(reply instanceof Promise), 'the reply itself');
    assert.equal(reply.status, 200);
    assert.equal(reply.stream, undefined);
    const json = JSON.parse(reply.body!) as JSONObject;
    assert.deepEqual(validateWireMessage(V, json, { sender: 'server', requests: new Map([[1, { method: 'tools/call' }]]) }), []);
    assert.deepEqual((json.result as JSONObject).content, [{ type: 'text', text: 'x' }]);
    await handler.close();
  });

  it('serves discover and tools/list as JSON, with the wire ids, without sessions', async () => {
    const handler = makeHandler({ server: server() });
    const res = await send(handler, 'd-1', 'server/discover', { _meta: meta() });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json');
    assert.equal(res.headers.get('mcp-session-id'), null);
    const discover = await body(res, 'server/discover');
    assert.equal(discover.id, 'd-1');
    assert.deepEqual((discover.result as JSONObject).supportedVersions, [V]);
    // two clients may use the same id at once: the transport keeps them apart
    const [a, b] = await Promise.all([
      send(handler, 7, 'tools/list', { _meta: meta() }),
      send(handler, 7, 'tools/call', { name: 'echo', arguments: { text: 'x' }, _meta: meta() }),
    ]);
    assert.equal((await body(a, 'tools/list')).id, 7);
    assert.deepEqual(((await body(b, 'tools/call')).result as JSONObject).content, [{ type: 'text', text: 'x' }]);
    assert.equal(handler.sessionCount, 0);
    await handler.close();
  });

  it("puts the server identity on every result: alone, merged with a result's own _meta, on InputRequiredResult; not when turned off", async () => {
    const s = server();
    s.registerTool('tagged', { description: 'a result with its own _meta' }, () => ({ content: [], _meta: { 'example.com/tag': 'mine' } }));
    const handler = makeHandler({ server: s });
    const identity = { name: 'http-test-server', version: '1.0.0' };
    // 2026-07-28 › Schema › ResultMetaObject: serverInfo SHOULD be on every response
    const echo = (await body(await send(handler, 1, 'tools/call', { name: 'echo', arguments: { text: 'a "quoted" }} text' }, _meta: meta() }), 'tools/call'))
      .result as JSONObject;
    assert.deepEqual(echo, {
      resultType: 'complete',
      content: [{ type: 'text', text: 'a "quoted" }} text' }],
      _meta: { 'io.modelcontextprotocol/serverInfo': identity },
    });
    const tagged = (await body(await send(handler, 2, 'tools/call', { name: 'tagged', arguments: {}, _meta: meta() }), 'tools/call')).result as JSONObject;
    assert.deepEqual(tagged._meta, { 'io.modelcontextprotocol/serverInfo': identity, 'example.com/tag': 'mine' });
    const asked = (await body(await send(handler, 3, 'tools/call', { name: 'elicit', arguments: {}, _meta: meta() }), 'tools/call')).result as JSONObject;
    assert.equal(asked.resultType, 'input_required');
    assert.deepEqual(asked._meta, { 'io.modelcontextprotocol/serverInfo': identity });
    await handler.close();

    const off = new McpServer({ name: 'quiet', version: '2' }, { stateless: { serverInfoInResults: false } });
    off.registerTool('echo', { description: 'echo' }, () => 'x');
    const offHandler = makeHandler({ server: off });
    const plain = (await body(await send(offHandler, 1, 'tools/call', { name: 'echo', arguments: {}, _meta: meta() }), 'tools/call')).result as JSONObject;
    assert.equal(plain._meta, undefined);
    await offHandler.close();
  });

  it('answers metadata and version problems with 400 and the request id', async () => {
    const handler = makeHandler({ server: server() });
    const cases: Array<[string, Promise<Response>, number]> = [
      ['missing _meta', send(handler, 1, 'tools/list', {}), -32602],
      ['missing capabilities', send(handler, 2, 'tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': V } }), -32602],
      ['unknown version', send(handler, 3, 'tools/list', { _meta: meta({ 'io.modelcontextprotocol/protocolVersion': 'v9' }) }, {}, 'v9'), -32022],
      ['header and body versions differ', send(handler, 4, 'tools/list', { _meta: meta({ 'io.modelcontextprotocol/protocolVersion': 'v9' }) }), -32020],
      ['no MCP-Protocol-Version header', post(handler, rpc(5, 'tools/list', { _meta: meta() }), { headers: headers('tools/list') }), -32020],
    ];
    for (const [what, pending, code] of cases) {
      const res = await pending;
      assert.equal(res.status, 400, what);
      const json = (await res.json()) as JSONObject;
      assert.equal((json.error as JSONObject).code, code, what);
      assert.notEqual(json.id, null, what);
    }
    await handler.close();
  });

  it('answers -32601 with 404, and -32021 with 400', async () => {
    const handler = makeHandler({ server: server() });
    for (const method of ['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'nope']) {
      const res = await send(handler, 1, method, { _meta: meta() });
      assert.equal(res.status, 404, method);
      assert.equal(((await body(res, method)).error as JSONObject).code, -32601, method);
    }
    const res = await send(handler, 2, 'tools/call', { name: 'ask', arguments: {}, _meta: meta() });
    assert.equal(res.status, 400);
    assert.deepEqual(((await body(res, 'tools/call')).error as JSONObject).data, { requiredCapabilities: { sampling: {} } });
    await handler.close();
  });

  it('checks Mcp-Method and Mcp-Name against the body (trimmed, base64 decoded, case-sensitive)', async () => {
    const handler = makeHandler({ server: server() });
    const ok = async (extra: Record<string, string>, params: JSONObject = { name: 'echo', arguments: {} }) => {
      const res = await post(handler, rpc(1, 'tools/call', { ...params, _meta: meta() }), { protocolVersion: V, headers: extra });
      assert.equal(res.status, 200, JSON.stringify(extra));
      await res.text();
    };
    const refused = async (extra: Record<string, string>, method = 'tools/call') => {
      const res = await post(handler, rpc(1, method, { name: 'echo', arguments: {}, _meta: meta() }), { protocolVersion: V, headers: extra });
      assert.equal(res.status, 400, JSON.stringify(extra));
      assert.equal(((await res.json()) as { error: { code: number } }).error.code, -32020, JSON.stringify(extra));
    };
    await ok({ 'mcp-method': 'tools/call', 'mcp-name': 'echo' });
    await ok({ 'mcp-method': ' tools/call ', 'mcp-name': '  echo\t' });
    await ok({ 'mcp-method': 'tools/call', 'mcp-name': `=?base64?${btoa('echo')}?=` });
    await refused({ 'mcp-name': 'echo' });
    await refused({ 'mcp-method': 'TOOLS/CALL', 'mcp-name': 'echo' });
    await refused({ 'mcp-method': 'tools/list', 'mcp-name': 'echo' });
    await refused({ 'mcp-method': 'tools/call' });
    await refused({ 'mcp-method': 'tools/call', 'mcp-name': 'other' });
    await refused({ 'mcp-method': 'tools/call', 'mcp-name': '=?base64?ZWNobw?=' }); // bad padding
    await handler.close();
  });

  it('checks Mcp-Param headers of x-mcp-header arguments', async () => {
    const handler = makeHandler({ server: server() });
    const call = async (args: JSONObject, extra: Record<string, string>) => {
      const res = await post(handler, rpc(1, 'tools/call', { name: 'headed', arguments: args, _meta: meta() }), {
        protocolVersion: V,
        headers: { 'mcp-method': 'tools/call', 'mcp-name': 'headed', ...extra },
      });
      const status = res.status;
      const json = (await res.json()) as JSONObject;
      return { status, code: (json.error as JSONObject | undefined)?.code };
    };
    assert.deepEqual(
      await call(
        { region: 'eu', count: 42, flag: true, nested: { zone: 'z1' } },
        { 'mcp-param-region': 'eu', 'MCP-PARAM-COUNT': '42.0', 'mcp-param-flag': 'true', 'mcp-param-zone': 'z1' },
      ),
      { status: 200, code: undefined },
    );
    assert.deepEqual(await call({ region: 'Grüße' }, { 'mcp-param-region': `=?base64?${Buffer.from('Grüße').toString('base64')}?=` }), {
      status: 200,
      code: undefined,
    });
    assert.deepEqual(await call({}, {}), { status: 200, code: undefined }, 'absent arguments need no headers');
    assert.deepEqual(await call({ region: null }, {}), { status: 200, code: undefined }, 'null arguments need no headers');
    assert.deepEqual(await call({ region: 'eu' }, {}), { status: 400, code: -32020 }, 'missing header');
    assert.deepEqual(await call({ region: 'eu' }, { 'mcp-param-region': 'us' }), { status: 400, code: -32020 }, 'mismatch');
    assert.deepEqual(await call({ count: 3 }, { 'mcp-param-count': 'three' }), { status: 400, code: -32020 }, 'not a number');
    assert.deepEqual(await call({ flag: false }, { 'mcp-param-flag': 'False' }), { status: 400, code: -32020 }, 'case-sensitive boolean');
    assert.deepEqual(await call({ region: 'eu' }, { 'mcp-param-region': '=?base64?!!!?=' }), { status: 400, code: -32020 }, 'invalid base64');
    await handler.close();
  });

  it('answers as SSE when the request asked for progress, carrying its notifications', async () => {
    const handler = makeHandler({ server: server() });
    const res = await send(handler, 'p', 'tools/call', { name: 'progress', arguments: {}, _meta: meta({ progressToken: 'tok' }) });
    assert.equal(res.headers.get('content-type'), 'text/event-stream');
    assert.equal(res.headers.get('x-accel-buffering'), 'no');
    const messages = await new SseReader(res).restMessages();
    assert.deepEqual(
      messages.map((m) => m.method ?? m.id),
      ['notifications/progress', 'notifications/progress', 'p'],
    );
    for (const m of messages) assert.deepEqual(validateWireMessage(V, m, { sender: 'server', requests: new Map([['p', { method: 'tools/call' }]]) }), []);
    await handler.close();
  });

  it('runs a multi round-trip request over two POSTs', async () => {
    const handler = makeHandler({ server: server() });
    const first = (await body(await send(handler, 1, 'tools/call', { name: 'elicit', arguments: {}, _meta: meta() }), 'tools/call')).result as JSONObject;
    assert.equal(first.resultType, 'input_required');
    const second = await body(
      await send(handler, 2, 'tools/call', {
        name: 'elicit',
        arguments: {},
        _meta: meta(),
        requestState: first.requestState,
        inputResponses: { who: { action: 'accept', content: { name: 'Ada' } } },
      }),
      'tools/call',
    );
    assert.deepEqual((second.result as JSONObject).content, [{ type: 'text', text: 'Ada' }]);
    await handler.close();
  });

  it('keeps a subscription stream open, tagged, until the client closes it (which cancels it)', async () => {
    const s = server();
    const handler = makeHandler({ server: s });
    const res = await send(handler, 'listen-1', 'subscriptions/listen', { _meta: meta(), notifications: { toolsListChanged: true } });
    assert.equal(res.headers.get('content-type'), 'text/event-stream');
    const reader = new SseReader(res);
    const ack = JSON.parse((await reader.next()).data);
    assert.equal(ack.method, 'notifications/subscriptions/acknowledged');
    assert.equal(ack.params._meta['io.modelcontextprotocol/subscriptionId'], 'listen-1');
    s.registerTool('late', { description: 'added late' }, () => 'late');
    const change = JSON.parse((await reader.next()).data);
    assert.deepEqual(change, {
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
      params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'listen-1' } },
    });
    await reader.cancel();
    // no connection serves it: the request itself ends with its stream
    assert.equal(s.connections.size, 0);
    await eventually(() => s.statelessSubscriptionCount === 0, 20_000, 'the listen request ends with its stream');
    await handler.close();
  });

  it('serves the 2025 era beside it on the same URL', async () => {
    const s = server();
    const handler = makeHandler({ server: s });
    const sessionId = await openSession(handler);
    const legacy = await post(handler, rpc(1, 'tools/list'), { sessionId, protocolVersion: '2025-11-25' });
    const messages = await new SseReader(legacy).restMessages();
    assert.equal(messages[0].result.resultType, undefined);
    const modern = await send(handler, 1, 'tools/list', { _meta: meta() });
    assert.equal(((await body(modern, 'tools/list')).result as JSONObject).resultType, 'complete');
    assert.equal(handler.sessionCount, 1);
    await handler.close();
  });

  it('can be turned off', async () => {
    const handler = makeHandler({ server: server(), statelessEra: false });
    const res = await send(handler, 1, 'server/discover', { _meta: meta() });
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as { error: { code: number } }).error.code, -32000, 'the 2025-era answer: a session is required');
    await handler.close();
  });
});
