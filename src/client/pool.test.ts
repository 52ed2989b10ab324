/**
 * ClientPool against mcpkit servers over in-memory transports (the real-server proof, with
 * npm servers over stdio and HTTP, is test/interop/pool.test.ts): namespaced catalogue,
 * routing, list_changed folded in per server, notifications with their source, failure
 * isolation, timeouts, reconnection, and the name rules.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { McpServer } from '../server/server.js';
import { InMemoryTransport } from '../transport/memory.js';
import { ClientPool, PoolError, type PoolServerStatus, templateMatches } from './pool.js';

interface Fixture {
  server: McpServer;
  lists: { tools: number };
  /** The server ends of the connections made so far. */
  ends: InMemoryTransport[];
  factory: () => Promise<InMemoryTransport>;
}

/** A server `name` with tools `tools`, a prompt, a resource and a template; its factory connects a fresh McpServer each time. */
function fixture(name: string, tools: string[]): Fixture {
  const lists = { tools: 0 };
  const ends: InMemoryTransport[] = [];
  let shared: McpServer | undefined;
  const build = () => {
    const server = new McpServer({ name, version: '1.0.0' });
    for (const tool of tools) server.registerTool(tool, { description: `${tool} of ${name}` }, () => `${name}:${tool}`);
    server.registerPrompt('hello', { description: 'greets' }, () => ({ messages: [{ role: 'user', content: { type: 'text', text: `hello from ${name}` } }] }));
    server.registerResource(`${name}://doc`, { name: 'doc' }, () => ({ contents: [{ uri: `${name}://doc`, text: `doc of ${name}` }] }));
    server.registerResourceTemplate(`${name}://items/{id}`, { name: 'item' }, (uri) => ({ contents: [{ uri: String(uri), text: `item ${String(uri)}` }] }));
    server.use({ name: 'count', intercept: (call, next) => (call.method === 'tools/list' && lists.tools++, next()) }, { direction: 'incoming' } as never);
    return server;
  };
  const f: Fixture = {
    get server() {
      return shared!;
    },
    lists,
    ends,
    factory: async () => {
      const [client, serverEnd] = InMemoryTransport.createPair();
      shared = build();
      ends.push(serverEnd);
      await shared.connect(serverEnd);
      return client;
    },
  };
  return f;
}

const until = async (check: () => boolean, what: string, ms = 5000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('ClientPool', () => {
  it('merges the catalogues under server.name and routes calls, prompts and reads', async () => {
    const a = fixture('alpha', ['search', 'create_issue']);
    const b = fixture('beta', ['search']);
    const pool = new ClientPool();
    try {
      await pool.add('alpha', { transport: a.factory });
      await pool.add('beta', { transport: b.factory });
      const tools = await pool.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), ['alpha.create_issue', 'alpha.search', 'beta.search']);
      assert.deepEqual(tools.find((t) => t.name === 'beta.search')!.originalName, 'search');
      assert.deepEqual((await pool.callTool('alpha.create_issue', {})).content, [{ type: 'text', text: 'alpha:create_issue' }]);
      assert.deepEqual((await pool.callTool('beta.search')).content, [{ type: 'text', text: 'beta:search' }]);
      const prompt = await pool.getPrompt('beta.hello');
      assert.deepEqual(prompt.messages[0]!.content, { type: 'text', text: 'hello from beta' });
      assert.deepEqual((await pool.listPrompts()).map((p) => p.name).sort(), ['alpha.hello', 'beta.hello']);
      assert.deepEqual(
        (await pool.listResources()).map((r) => [r.server, r.uri]),
        [
          ['alpha', 'alpha://doc'],
          ['beta', 'beta://doc'],
        ],
      );
      assert.deepEqual(
        (await pool.listResourceTemplates()).map((t) => t.server),
        ['alpha', 'beta'],
      );
      assert.equal(((await pool.readResource('beta://doc')).contents[0] as { text: string }).text, 'doc of beta');
      assert.equal(((await pool.readResource('alpha://items/7')).contents[0] as { text: string }).text, 'item alpha://items/7');
      await assert.rejects(pool.readResource('gamma://x'), (e: unknown) => e instanceof PoolError && e.code === 'not_routable');
      await assert.rejects(pool.callTool('gamma.search'), (e: unknown) => e instanceof PoolError && e.code === 'not_routable' && /alpha, beta/.test(e.message));
      await assert.rejects(pool.callTool('nodot'), (e: unknown) => e instanceof PoolError && e.code === 'not_routable');
      const hits = await pool.searchTools('create an issue', { limit: 2 });
      assert.equal(hits[0]!.name, 'alpha.create_issue');
      assert.deepEqual(
        (await pool.searchTools('search', { servers: ['beta'] })).map((t) => t.name),
        ['beta.search'],
      );
      assert.deepEqual(
        pool.status().map((s) => [s.name, s.state, s.counts.tools]),
        [
          ['alpha', 'ready', 2],
          ['beta', 'ready', 1],
        ],
      );
    } finally {
      await pool.close();
    }
  });

  it('folds list_changed into the catalogue, re-listing only that server, and passes notifications on with their source', async () => {
    const a = fixture('alpha', ['one']);
    const b = fixture('beta', ['two']);
    const pool = new ClientPool();
    const seen: Array<[string, string]> = [];
    pool.on('notification', ({ server, method }) => seen.push([server, method]));
    try {
      await pool.add('alpha', { transport: a.factory });
      await pool.add('beta', { transport: b.factory });
      await pool.connect();
      const before = { a: a.lists.tools, b: b.lists.tools };
      a.server.registerTool('added', { description: 'new' }, () => 'new');
      await until(() => seen.some(([s, m]) => s === 'alpha' && m === 'notifications/tools/list_changed'), 'the list_changed');
      await until(() => pool.status()[0]!.counts.tools === 2, 'the re-listing');
      assert.deepEqual((await pool.listTools()).map((t) => t.name).sort(), ['alpha.added', 'alpha.one', 'beta.two']);
      assert.equal(a.lists.tools, before.a + 1);
      assert.equal(b.lists.tools, before.b, 'beta was not listed again');
      assert.equal((await pool.searchTools('added'))[0]!.name, 'alpha.added');
    } finally {
      await pool.close();
    }
  });

  it('isolates failures: a failing and a hanging server never block the others; their state and error show', async () => {
    const a = fixture('alpha', ['one']);
    const pool = new ClientPool({ connectTimeoutMs: 300, reconnect: false });
    try {
      await pool.add('alpha', { transport: a.factory });
      await pool.add('broken', { transport: () => Promise.reject(new Error('spawn ENOENT no-such-server')) });
      // a transport that starts but never answers the handshake
      await pool.add('hangs', { transport: () => InMemoryTransport.createPair()[0] });
      // a factory that never makes its transport
      await pool.add('stuck', { transport: () => new Promise(() => {}) });
      const started = Date.now();
      const statuses = await pool.connect();
      assert.ok(Date.now() - started < 3000, 'connect waited for the timeout, not longer');
      const byName = Object.fromEntries(statuses.map((s) => [s.name, s]));
      assert.equal(byName.alpha!.state, 'ready');
      assert.equal(byName.broken!.state, 'failed');
      assert.match(byName.broken!.lastError!, /ENOENT/);
      assert.equal(byName.hangs!.state, 'failed');
      assert.match(byName.hangs!.lastError!, /300 ms|timed out|timeout/i);
      assert.equal(byName.stuck!.state, 'failed');
      assert.match(byName.stuck!.lastError!, /longer than 300 ms/);
      assert.deepEqual(
        (await pool.listTools()).map((t) => t.name),
        ['alpha.one'],
      );
      await assert.rejects(pool.callTool('broken.x'), (e: unknown) => e instanceof PoolError && e.code === 'server_unavailable' && /ENOENT/.test(e.message));
      assert.deepEqual((await pool.callTool('alpha.one')).content, [{ type: 'text', text: 'alpha:one' }]);
      assert.deepEqual(
        (await pool.searchTools('one')).map((t) => t.name),
        ['alpha.one'],
      );
      // alpha goes down (no reconnection here): its tools leave the listing and the search
      await a.ends[0]!.close();
      await until(() => pool.status()[0]!.state === 'failed', 'alpha to fail');
      assert.deepEqual(await pool.searchTools('one'), []);
      assert.deepEqual(await pool.listTools(), []);
      await assert.rejects(pool.callTool('alpha.one'), (e: unknown) => e instanceof PoolError && e.code === 'server_unavailable');
    } finally {
      await pool.close();
    }
  });

  it('reconnects with backoff when a connection ends, and the server comes back', async () => {
    const a = fixture('alpha', ['one']);
    const b = fixture('beta', ['two']);
    const pool = new ClientPool({ reconnect: { initialDelayMs: 20, maxDelayMs: 100 } });
    const states: PoolServerStatus['state'][] = [];
    pool.on('status', (s) => s.name === 'alpha' && states.push(s.state));
    try {
      await pool.add('alpha', { transport: a.factory });
      await pool.add('beta', { transport: b.factory });
      await pool.connect();
      await a.ends[0]!.close();
      await until(() => pool.status()[0]!.state !== 'ready', 'alpha to notice');
      assert.deepEqual((await pool.callTool('beta.two')).content, [{ type: 'text', text: 'beta:two' }], 'beta keeps working');
      await until(() => pool.status()[0]!.state === 'ready', 'alpha to come back');
      assert.equal(a.ends.length, 2, 'a second connection was made');
      assert.ok(states.includes('reconnecting'), states.join());
      assert.deepEqual((await pool.callTool('alpha.one')).content, [{ type: 'text', text: 'alpha:one' }]);
      assert.equal(pool.status()[0]!.lastError !== undefined, true);
      // a subscription made through the pool is made again on the next connection
      const updates: string[] = [];
      pool.on('notification', ({ server, method, params }) => method === 'notifications/resources/updated' && updates.push(`${server} ${String(params?.uri)}`));
      await pool.subscribeResource('alpha://doc');
      await a.ends[1]!.close();
      await until(() => a.ends.length === 3 && pool.status()[0]!.state === 'ready', 'alpha to come back again');
      await a.server.notifyResourceUpdated('alpha://doc');
      await until(() => updates.length === 1, 'the update after the reconnection');
      assert.deepEqual(updates, ['alpha alpha://doc']);
    } finally {
      await pool.close();
    }
  });

  it('connects lazy servers on first use only', async () => {
    const a = fixture('alpha', ['one']);
    const pool = new ClientPool({ lazy: true });
    try {
      await pool.add('alpha', { transport: a.factory });
      await new Promise((r) => setTimeout(r, 20));
      assert.equal(a.ends.length, 0);
      assert.equal(pool.status()[0]!.state, 'idle');
      assert.deepEqual((await pool.callTool('alpha.one')).content, [{ type: 'text', text: 'alpha:one' }]);
      assert.equal(a.ends.length, 1);
    } finally {
      await pool.close();
    }
  });

  it('refuses names the namespacing cannot hold, duplicates, and anything after close; remove drops a server', async () => {
    const a = fixture('alpha', ['one']);
    const pool = new ClientPool({ maxServers: 2 });
    for (const bad of ['a.b', '', 'x y', 'a'.repeat(65)]) {
      await assert.rejects(pool.add(bad, { transport: a.factory }), (e: unknown) => e instanceof PoolError && e.code === 'invalid_server', bad);
    }
    await pool.add('alpha', { transport: a.factory, lazy: true });
    await assert.rejects(pool.add('alpha', { transport: a.factory }), /already in the pool/);
    await pool.add('beta', { transport: a.factory, lazy: true });
    await assert.rejects(pool.add('gamma', { transport: a.factory }), /maxServers/);
    assert.equal(await pool.remove('beta'), true);
    assert.equal(await pool.remove('beta'), false);
    assert.deepEqual(pool.servers, ['alpha']);
    await pool.close();
    await assert.rejects(pool.add('late', { transport: a.factory }), (e: unknown) => e instanceof PoolError && e.code === 'pool_closed');
  });
});

describe('templateMatches', () => {
  it('matches RFC 6570 expansions as a router reads them, in one pass', () => {
    assert.equal(templateMatches('file:///{path}', 'file:///a'), true);
    assert.equal(templateMatches('file:///{path}', 'file:///a/b'), false);
    assert.equal(templateMatches('file:///{+path}', 'file:///a/b'), true);
    assert.equal(templateMatches('x://items/{id}/raw', 'x://items/7/raw'), true);
    assert.equal(templateMatches('x://items/{id}/raw', 'x://items/7/cooked'), false);
    assert.equal(templateMatches('x://items/{id}', 'y://items/7'), false);
    assert.equal(templateMatches('x://s{?q,lang}', 'x://s?q=a&lang=en'), true);
    const started = Date.now();
    assert.equal(templateMatches('{+a}{+b}{+c}x', `${'y'.repeat(60_000)}z`), false);
    assert.ok(Date.now() - started < 500, 'no backtracking');
  });
});
