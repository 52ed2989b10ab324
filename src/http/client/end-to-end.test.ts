/**
 * An mcpkit Client over the Streamable HTTP client transport against a small fake MCP
 * server: handshake with a session id, the standalone GET stream carrying a server request
 * the client answers by POST, a tool call whose SSE stream drops after the priming event and
 * is resumed (SEP-1699), session expiry, and DELETE on close.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bodyOf, FakeServer, json, type Recorded, SseWriter, status, waitFor } from '../../../test/helpers/http/fake-server.js';
import { Client } from '../../client/client.js';
import { LocalError } from '../../jsonrpc/errors.js';
import { StreamableHttpClientTransport } from './streamable.js';

const URL_ = 'http://127.0.0.1:9/mcp';

/** A fake MCP server with one session, a resumable event log for the tool call, and a GET stream. */
class FakeMcpServer {
  readonly server: FakeServer;
  readonly sessionId = 'e2e-session-0123456789';
  getStream: SseWriter | undefined;
  /** Events of the interrupted tool call's stream, by id, for replay. */
  readonly toolEvents: Array<{ id: string; data: string }> = [];
  pingAnswered: unknown;
  expired = false;

  constructor() {
    this.server = new FakeServer((r) => this.#handle(r));
  }

  #handle(r: Recorded): Response {
    if (this.expired && r.headers.get('mcp-session-id') !== null) return status(404);
    if (r.method === 'DELETE') return status(200);
    if (r.method === 'GET') return this.#get(r);
    const m = bodyOf(r);
    if (m.method === 'initialize') {
      const version = (m.params as { protocolVersion: string }).protocolVersion;
      return json(
        { jsonrpc: '2.0', id: m.id, result: { protocolVersion: version, capabilities: { tools: {} }, serverInfo: { name: 'fake', version: '1' } } },
        { headers: { 'mcp-session-id': this.sessionId } },
      );
    }
    assert.equal(r.headers.get('mcp-session-id'), this.sessionId, `${m.method ?? 'response'} carries the session id`);
    assert.equal(r.headers.get('mcp-protocol-version'), '2025-11-25');
    if (m.method === undefined) {
      this.pingAnswered = m;
      return status(202);
    }
    if (m.id === undefined) return status(202);
    if (m.method === 'tools/list') {
      const sse = new SseWriter();
      sse.send({ jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'slow', inputSchema: { type: 'object' } }] } });
      sse.close();
      return sse.response;
    }
    if (m.method === 'tools/call') {
      // priming event, then the server disconnects before the result (SEP-1699)
      const sse = new SseWriter();
      sse.event({ id: 'call-0', retry: 40, data: '' });
      const result = { jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'resumed result' }] } };
      this.toolEvents.push({ id: 'call-1', data: JSON.stringify(result) });
      setTimeout(() => sse.close(), 5);
      return sse.response;
    }
    return json({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } });
  }

  #get(r: Recorded): Response {
    assert.equal(r.headers.get('mcp-session-id'), this.sessionId);
    const last = r.headers.get('last-event-id');
    const sse = new SseWriter();
    if (last === 'call-0') {
      for (const e of this.toolEvents) sse.event({ id: e.id, data: e.data });
      sse.close();
      return sse.response;
    }
    this.getStream = sse;
    sse.event({ id: 'get-0', data: '' });
    sse.send({ jsonrpc: '2.0', id: 'srv-ping', method: 'ping' }, 'get-1');
    return sse.response;
  }
}

test('Client over Streamable HTTP: handshake, GET stream, resumed tool call, DELETE on close', async () => {
  const fake = new FakeMcpServer();
  const transport = new StreamableHttpClientTransport({ url: URL_, fetch: fake.server.fetch, reconnect: { initialDelayMs: 10 } });
  const client = new Client({ name: 'e2e', version: '1.0.0' }, { requestTimeoutMs: 5000 });
  const init = await client.connect(transport);
  assert.equal(init.serverInfo.name, 'fake');
  assert.equal(transport.sessionId, fake.sessionId);
  assert.equal(transport.protocolVersion, '2025-11-25');

  // the server's ping on the GET stream is answered with a POST
  await waitFor(() => fake.pingAnswered !== undefined, 'the answer to the server ping');
  assert.deepEqual(fake.pingAnswered, { jsonrpc: '2.0', id: 'srv-ping', result: {} });

  const tools = await client.listTools();
  assert.deepEqual(
    tools.tools.map((t) => t.name),
    ['slow'],
  );

  const started = Date.now();
  const result = await client.callTool({ name: 'slow', arguments: {} });
  assert.deepEqual(result.content, [{ type: 'text', text: 'resumed result' }]);
  assert.ok(Date.now() - started < 4000);
  const resumes = fake.server.only('GET').filter((g) => g.headers.get('last-event-id') === 'call-0');
  assert.equal(resumes.length, 1);
  assert.equal(
    fake.server.requests.filter((r) => r.method === 'POST' && bodyOf(r).method === 'notifications/cancelled').length,
    0,
    'a disconnect is not a cancellation',
  );

  await client.close();
  const deletes = fake.server.only('DELETE');
  assert.equal(deletes.length, 1);
  assert.equal(deletes[0]!.headers.get('mcp-session-id'), fake.sessionId);
  await waitFor(() => fake.getStream!.done, 'the GET stream to be cancelled');
  await assert.rejects(client.listTools(), LocalError);
});

test('Client over Streamable HTTP with reinitialize: false: an expired session fails requests at once and closes the connection', async () => {
  const fake = new FakeMcpServer();
  let expired = '';
  const transport = new StreamableHttpClientTransport({ url: URL_, fetch: fake.server.fetch, openGetStream: false, onSessionExpired: (id) => (expired = id) });
  const client = new Client({ name: 'e2e', version: '1.0.0' }, { requestTimeoutMs: 30_000, reinitialize: false });
  await client.connect(transport);
  fake.expired = true;
  const started = Date.now();
  await assert.rejects(
    client.listTools(),
    (err: unknown) => err instanceof LocalError && ((err.cause as LocalError | undefined)?.code === 'session_expired' || err.code === 'session_expired'),
  );
  assert.ok(Date.now() - started < 2000, 'no waiting for the request timeout');
  assert.equal(expired, fake.sessionId);
  assert.equal(transport.sessionId, undefined);
  assert.ok(client.endpoint?.session.closed);
  await client.close();
  assert.equal(fake.server.only('DELETE').length, 0);
});
