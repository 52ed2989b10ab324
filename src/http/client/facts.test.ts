/**
 * The Streamable HTTP client transport acts on the facts its session hands it
 * (`SendOptions`), not on what it reads in the message: request ids and methods come from
 * the options, the stateless era's headers are the client role's `metadata`, a message's
 * `_meta` is never read, and a `tools/list` result reaches the receiver as the server sent
 * it (the client role filters it; see client/stateless/client.test.ts for the whole path).
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bodyOf, Collector, FakeServer, json, status } from '../../../test/helpers/http/fake-server.js';
import type { SendOptions } from '../../transport/types.js';
import { StreamableHttpClientTransport } from './streamable.js';

const URL_ = 'http://127.0.0.1:9/mcp';
const V = '2026-07-28';

function setup() {
  const server = new FakeServer((r) => {
    const m = bodyOf(r);
    if (m.id === undefined) return status(202);
    if (m.method === 'tools/list')
      return json({
        jsonrpc: '2.0',
        id: m.id,
        result: { tools: [{ name: 'bad', inputSchema: { type: 'object', properties: { n: { type: 'number', 'x-mcp-header': 'N' } } } }] },
      });
    return json({ jsonrpc: '2.0', id: m.id, result: {} });
  });
  const transport = new StreamableHttpClientTransport({ url: URL_, fetch: server.fetch, openGetStream: false, sessionId: 'sess-1' });
  const rx = new Collector();
  transport.start(rx);
  return { server, transport, rx };
}

test("the stateless headers are the metadata the client role hands over; a message's _meta is not read", async () => {
  const { server, transport } = setup();
  const meta = { _meta: { 'io.modelcontextprotocol/protocolVersion': V } };
  // claims the 2026 era in its _meta, but no metadata: a session POST like any other
  await transport.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', ...meta } }, { kind: 'request', id: 1, method: 'tools/call' });
  const facts: SendOptions = {
    kind: 'request',
    id: 2,
    method: 'tools/call',
    metadata: { 'mcp-protocol-version': V, 'mcp-method': 'tools/call', 'mcp-name': 'x', 'mcp-param-region': 'eu' },
  };
  await transport.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'x', ...meta } }, facts);
  const [plain, era] = server.requests;
  assert.equal(plain!.headers.get('mcp-method'), null);
  assert.equal(plain!.headers.get('mcp-session-id'), 'sess-1');
  assert.equal(era!.headers.get('mcp-method'), 'tools/call');
  assert.equal(era!.headers.get('mcp-name'), 'x');
  assert.equal(era!.headers.get('mcp-param-region'), 'eu');
  assert.equal(era!.headers.get('mcp-protocol-version'), V);
  assert.equal(era!.headers.get('mcp-session-id'), null, 'no session in the stateless era');
  await transport.close();
});

test('a tools/list result is delivered as the server sent it (the transport rewrites nothing)', async () => {
  const { transport, rx } = setup();
  await transport.send(
    { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
    { kind: 'request', id: 1, method: 'tools/list', metadata: { 'mcp-protocol-version': V, 'mcp-method': 'tools/list' } },
  );
  const result = (rx.messages[0] as { result: { tools: Array<{ name: string }> } }).result;
  assert.deepEqual(
    result.tools.map((t) => t.name),
    ['bad'],
  );
  assert.deepEqual(rx.errors, []);
  await transport.close();
});

test('the ids of a POST come from the facts: the response to the request the session named settles the send', async () => {
  const { server, transport } = setup();
  // the facts name request 5; the server answers what the body says (5): the exchange completes
  await transport.send({ jsonrpc: '2.0', id: 5, method: 'ping' }, { kind: 'request', id: 5, method: 'ping' });
  // without facts (text handed over directly) the message is read for them
  await transport.send(JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'ping' }));
  assert.deepEqual(
    server.requests.map((r) => bodyOf(r).id),
    [5, 6],
  );
  await transport.close();
});
