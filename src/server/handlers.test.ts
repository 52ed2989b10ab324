/**
 * The server's handler table (protocol/handler-table.ts): `handle` and `wrap` per era, the
 * per-connection overlay, registration after the table was built (a new table swapped in),
 * and the deprecated setters forwarding to the two verbs. Over in-memory pairs with raw
 * JSON-RPC, so each request picks its era (2026-07-28: `_meta` names the version).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { meta2026, rawClient, textOf } from '../../test/helpers/raw-server-client.js';
import type { JSONObject } from '../jsonrpc/types.js';
import type { RequestHandler } from '../protocol/handler-table.js';
import { HandlerRegistry } from '../protocol/handler-table.js';
import type { ServerRequestContext } from './connection.js';
import { McpServer } from './server.js';

const text = (t: string) => ({ content: [{ type: 'text', text: t }] });

function echoServer(): McpServer {
  const s = new McpServer({ name: 'verbs', version: '1.0.0' });
  s.registerTool('echo', { description: 'echo' }, () => 'plain');
  return s;
}

const tag =
  (label: string) =>
  (inner: RequestHandler<ServerRequestContext>): RequestHandler<ServerRequestContext> =>
  async (p, ctx) =>
    text(`${label}(${textOf({ result: (await inner(p, ctx)) as JSONObject })})`);

describe('handle / wrap per era', () => {
  it('handle: both eras by default; an era-scoped handler wins for its era', async () => {
    const s = echoServer();
    s.handle('tools/call', () => text('both'));
    s.handle('tools/call', () => text('only-2026'), { era: '2026-07-28' });
    const c = await rawClient(s);
    assert.equal(textOf(await c.request('tools/call', { name: 'echo' })), 'both');
    assert.equal(textOf(await c.request('tools/call', { name: 'echo', _meta: meta2026() })), 'only-2026');
    s.handle('tools/call', () => text('only-2025'), { era: '2025' });
    assert.equal(textOf(await c.request('tools/call', { name: 'echo' })), 'only-2025');
  });

  it('wrap: per era, the first added innermost, also around a handler set later', async () => {
    const s = echoServer();
    s.wrap('tools/call', tag('both'));
    s.wrap('tools/call', tag('s25'), { era: '2025' });
    s.wrap('tools/call', tag('s26'), { era: '2026-07-28' });
    const c = await rawClient(s);
    assert.equal(textOf(await c.request('tools/call', { name: 'echo' })), 's25(both(plain))');
    assert.equal(textOf(await c.request('tools/call', { name: 'echo', _meta: meta2026() })), 's26(both(plain))');
    s.handle('tools/call', () => text('later'));
    assert.equal(textOf(await c.request('tools/call', { name: 'echo' })), 's25(both(later))');
  });

  it('wrap of a method without a handler leaves it unanswered (-32601)', async () => {
    const s = echoServer();
    s.wrap('no/such', () => () => ({}));
    const c = await rawClient(s);
    assert.equal(((await c.request('no/such')).error as JSONObject).code, -32601);
  });

  it('a registration after the table was built swaps in a new table; a running request keeps its handler', async () => {
    const s = echoServer();
    let release!: () => void;
    s.handle('tools/call', () => new Promise((resolve) => (release = () => resolve(text('old')))));
    const c = await rawClient(s);
    const running = c.request('tools/call', { name: 'echo' });
    await new Promise((resolve) => setImmediate(resolve));
    s.handle('tools/call', () => text('new'));
    assert.equal(textOf(await c.request('tools/call', { name: 'echo' })), 'new');
    release();
    assert.equal(textOf(await running), 'old');
  });

  it('the built table is frozen: its maps refuse changes with a message that names what to do', () => {
    const registry = new HandlerRegistry();
    registry.handle('m', () => ({}));
    const table = registry.build();
    assert.ok(Object.isFrozen(table));
    assert.throws(() => (table.session as Map<string, unknown>).set('x', () => ({})), /frozen: register handlers on the server \(handle \/ wrap\)/);
    assert.throws(() => (table.stateless as Map<string, unknown>).delete('m'), /frozen/);
    assert.equal(table.get('2025', 'm'), table.get('2026-07-28', 'm'));
  });

  it('refuses a handler that is not a function (TypeError naming the method)', () => {
    assert.throws(() => echoServer().handle('tools/call', 'nope' as never), /handler of tools\/call must be a function/);
    assert.throws(() => echoServer().wrap('tools/call', 42 as never), /wrapper of tools\/call must be a function/);
  });
});

describe('the per-connection overlay', () => {
  it('a handler set on one connection serves that connection first, in both eras; others keep the table', async () => {
    const s = echoServer();
    s.wrap('tools/call', tag('w'));
    let first = true;
    s.onConnect((connection) => {
      if (first) connection.endpoint.setRequestHandler('tools/call', () => text('own'));
      first = false;
    });
    const a = await rawClient(s);
    const b = await rawClient(s);
    assert.equal(textOf(await a.request('tools/call', { name: 'echo' })), 'own');
    assert.equal(textOf(await a.request('tools/call', { name: 'echo', _meta: meta2026() })), 'own');
    assert.equal(textOf(await b.request('tools/call', { name: 'echo' })), 'w(plain)');
    assert.equal(a.connection.endpoint.getRequestHandler('tools/call') !== b.connection.endpoint.getRequestHandler('tools/call'), true);
  });
});

describe('deprecated setters forward to handle / wrap', () => {
  it('setRequestHandler = handle (both eras)', async () => {
    const s = echoServer();
    s.setRequestHandler('tools/call', () => text('set'));
    const c = await rawClient(s);
    assert.equal(textOf(await c.request('tools/call', { name: 'echo' })), 'set');
    assert.equal(textOf(await c.request('tools/call', { name: 'echo', _meta: meta2026() })), 'set');
  });

  it("setSessionHandler = handle(…, { era: '2025' })", async () => {
    const s = echoServer();
    s.setSessionHandler('tools/call', () => text('session'));
    const c = await rawClient(s);
    assert.equal(textOf(await c.request('tools/call', { name: 'echo' })), 'session');
    assert.equal(textOf(await c.request('tools/call', { name: 'echo', _meta: meta2026() })), 'plain');
  });

  it("wrapSessionHandler = wrap(…, { era: '2025' })", async () => {
    const s = echoServer();
    s.wrapSessionHandler('tools/call', tag('x'));
    const c = await rawClient(s);
    assert.equal(textOf(await c.request('tools/call', { name: 'echo' })), 'x(plain)');
    assert.equal(textOf(await c.request('tools/call', { name: 'echo', _meta: meta2026() })), 'plain');
  });

  it("setStatelessHandler = handle(…, { era: '2026-07-28' }); statelessHandler reads the table", async () => {
    const s = echoServer();
    const original = s.statelessHandler('tools/call');
    assert.equal(typeof original, 'function');
    s.setStatelessHandler('tools/call', async (p, ctx) => text(`st(${textOf({ result: (await original!(p, ctx)) as JSONObject })})`));
    const c = await rawClient(s);
    assert.equal(textOf(await c.request('tools/call', { name: 'echo', _meta: meta2026() })), 'st(plain)');
    assert.equal(textOf(await c.request('tools/call', { name: 'echo' })), 'plain');
    assert.equal(s.statelessHandler('tools/call') !== original, true);
  });
});
