/**
 * `McpServer.handle` and `wrap` with `{ era: '2025' }`: handlers and wrappers for the
 * 2025-era connections only, in the one table every connection shares (no handler per
 * connection). Shown over in-memory pairs with raw JSON-RPC: a wrapper serves every 2025
 * connection, present and future, and any handler set for the method later; several nest;
 * 2026-07-28 requests (on the same connection) are neither wrapped nor see the 2025-only
 * handlers; the tasks engine (`TaskServer`) installs nothing per connection.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONObject } from '../jsonrpc/types.js';
import type { RequestHandler } from '../protocol/endpoint.js';
import { TaskServer } from '../tasks/server.js';
import { InMemoryTransport } from '../transport/memory.js';
import type { ServerConnection } from './connection.js';
import type { ServerRequestContext } from './context.js';
import { McpServer } from './server.js';

const V2026 = '2026-07-28';
const META_2026 = {
  'io.modelcontextprotocol/protocolVersion': V2026,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
};

interface Raw {
  session: ServerConnection;
  /** Sends a request; resolves with its whole response (result or error). */
  request(method: string, params?: JSONObject): Promise<JSONObject>;
}

/** A raw 2025-11-25 client of `s`, initialized. */
async function connect(s: McpServer): Promise<Raw> {
  const [serverEnd, peer] = InMemoryTransport.createPair();
  const session = await s.connect(serverEnd);
  const waiting = new Map<unknown, (m: JSONObject) => void>();
  await peer.start({
    message: (data) => {
      const m = (typeof data === 'string' ? JSON.parse(data) : data) as JSONObject;
      if (m.method === undefined) waiting.get(m.id)?.(m);
    },
    error: () => {},
    closed: () => {},
  });
  let next = 1;
  const request = (method: string, params?: JSONObject) =>
    new Promise<JSONObject>((resolve) => {
      const id = next++;
      waiting.set(id, resolve);
      void peer.send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) } as never);
    });
  await request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } });
  await peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' } as never);
  await request('ping');
  return { session, request };
}

function echoServer(): McpServer {
  const s = new McpServer({ name: 'wraps', version: '1.0.0' });
  s.registerTool('echo', { description: 'echo', execution: { taskSupport: 'optional' } }, () => 'plain');
  return s;
}

const textOf = (response: JSONObject): string => ((response.result as JSONObject).content as JSONObject[])[0]!.text as string;

describe("McpServer.wrap(…, { era: '2025' })", () => {
  it('wraps the method on every 2025-era connection, present and future, and not the 2026-07-28 requests', async () => {
    const s = echoServer();
    const tag =
      (label: string) =>
      (inner: RequestHandler<ServerRequestContext>): RequestHandler<ServerRequestContext> =>
      async (p, ctx) => {
        const r = (await inner(p, ctx)) as JSONObject;
        const content = r.content as JSONObject[];
        return { ...r, content: [{ type: 'text', text: `${label}(${content[0]!.text as string})` }] };
      };
    s.wrap('tools/call', tag('a'), { era: '2025' });
    const first = await connect(s);
    assert.equal(textOf(await first.request('tools/call', { name: 'echo' })), 'a(plain)');

    // a wrapper added while a connection is open reaches it; the first added stays innermost
    s.wrap('tools/call', tag('b'), { era: '2025' });
    const second = await connect(s);
    for (const c of [first, second]) assert.equal(textOf(await c.request('tools/call', { name: 'echo' })), 'b(a(plain))');

    // a 2026-07-28 request on the same connection is served by the unwrapped handler
    assert.equal(textOf(await first.request('tools/call', { name: 'echo', _meta: META_2026 })), 'plain');

    // a handler set for the whole server later is wrapped for the 2025 era only
    s.handle('tools/call', () => ({ content: [{ type: 'text', text: 'replaced' }] }));
    assert.equal(textOf(await second.request('tools/call', { name: 'echo' })), 'b(a(replaced))');
    assert.equal(textOf(await second.request('tools/call', { name: 'echo', _meta: META_2026 })), 'replaced');
  });

  it('does nothing for a method without a handler', async () => {
    const s = echoServer();
    s.wrap('no/such', () => () => ({}), { era: '2025' });
    const c = await connect(s);
    assert.equal(((await c.request('no/such')).error as JSONObject).code, -32601);
  });
});

describe("McpServer.handle(…, { era: '2025' })", () => {
  it('serves 2025-era connections only, over the whole-server handler, and is wrapped like any other', async () => {
    const s = echoServer();
    s.handle('tools/call', () => ({ content: [{ type: 'text', text: 'session-only' }] }), { era: '2025' });
    const c = await connect(s);
    assert.equal(textOf(await c.request('tools/call', { name: 'echo' })), 'session-only');
    assert.equal(textOf(await c.request('tools/call', { name: 'echo', _meta: META_2026 })), 'plain');
    // a later whole-server handler does not displace it there
    s.handle('tools/call', () => ({ content: [{ type: 'text', text: 'server-wide' }] }));
    assert.equal(textOf(await c.request('tools/call', { name: 'echo' })), 'session-only');
    assert.equal(textOf(await c.request('tools/call', { name: 'echo', _meta: META_2026 })), 'server-wide');
    s.wrap('tools/call', (inner) => async (p, ctx) => ({ ...((await inner(p, ctx)) as JSONObject), wrapped: true }), { era: '2025' });
    assert.equal(((await c.request('tools/call', { name: 'echo' })).result as JSONObject).wrapped, true);
  });
});

describe('TaskServer on shared handlers', () => {
  it('installs no handler per connection: every connection has the same tasks/* and tools/call handlers, and tasks work on each', async () => {
    const s = echoServer();
    new TaskServer(s, { sweepIntervalMs: 0 });
    const a = await connect(s);
    const b = await connect(s);
    for (const method of ['tools/call', 'tasks/get', 'tasks/result', 'tasks/list', 'tasks/cancel']) {
      const handler = a.session.endpoint.getRequestHandler(method);
      assert.ok(handler !== undefined, method);
      assert.equal(b.session.endpoint.getRequestHandler(method), handler, method);
    }
    for (const c of [a, b]) {
      const created = await c.request('tools/call', { name: 'echo', task: {} });
      const taskId = ((created.result as JSONObject).task as JSONObject).taskId as string;
      const result = await c.request('tasks/result', { taskId });
      assert.equal(textOf(result), 'plain');
    }
    // a 2026-07-28 request with a 2025-11-25 task field is not run as a 2025-era task
    const direct = await a.request('tools/call', { name: 'echo', task: {}, _meta: META_2026 });
    assert.equal(textOf(direct), 'plain');
  });
});
