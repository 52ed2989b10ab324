/**
 * The client's result cache (SEP-2549): a real 2026-07-28 McpServer that counts the requests
 * it serves, a real Client over an in-memory pair, the memory store on a test clock; the
 * hostile-hint rules and the memory store's bounds as unit tests.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONObject } from '../jsonrpc/types.js';
import type { Middleware } from '../protocol/middleware.js';
import { McpServer } from '../server/index.js';
import { InMemoryTransport } from '../transport/memory.js';
import { type ClientCacheOptions, cachePolicyOf, type ResultCache } from './cache.js';
import { MemoryResultCacheStore } from './cache-store.js';
import { ALL_REVISIONS, Client, type ClientOptions } from './index.js';

const LIMITS = { maxTtlMs: 3_600_000, legacyTtlMs: 0 };

/** A test clock. */
function clock(start = 1_000_000): { now: () => number; advance(ms: number): void } {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

type Hints = { ttlMs: number; cacheScope: 'public' | 'private' } | undefined;

/** A 2026-07-28 server with a tool, a prompt and resources; counts each method it serves. */
function countingServer(
  hints: (method: string) => Hints,
  options: { failRead?: boolean } = {},
): { server: McpServer; calls: Map<string, number>; count(method: string): number } {
  const server = new McpServer({ name: 'counted', version: '1.0.0' }, { stateless: { cacheHints: (method) => hints(method) } });
  server.registerTool('echo', { description: 'echoes' }, (a: { text?: string }) => a.text ?? '');
  server.registerPrompt('greet', { description: 'greets' }, () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }] }));
  server.registerResource('test://a', { name: 'a' }, (uri) => {
    if (options.failRead) throw new Error('read failed');
    return { uri, text: `a@${calls.get('resources/read') ?? 0}` };
  });
  const calls = new Map<string, number>();
  server.use({
    name: 'count',
    intercept: (call, next) => {
      if (call.kind === 'request') calls.set(call.method, (calls.get(call.method) ?? 0) + 1);
      return next();
    },
  });
  return { server, calls, count: (method) => calls.get(method) ?? 0 };
}

async function connect(server: McpServer, options: ClientOptions = {}): Promise<Client> {
  const [a, b] = InMemoryTransport.createPair();
  await server.connect(a);
  const client = new Client({ name: 'cli', version: '1.0.0' }, { protocolVersions: ALL_REVISIONS, ...options });
  await client.connect(b);
  return client;
}

describe('cachePolicyOf: hostile hints', () => {
  it('caches a complete result with a positive ttlMs, with its scope', () => {
    assert.deepEqual(cachePolicyOf({ tools: [], ttlMs: 5000, cacheScope: 'public', resultType: 'complete' }, 'stateless', LIMITS), {
      ttlMs: 5000,
      scope: 'public',
    });
    assert.deepEqual(cachePolicyOf({ tools: [], ttlMs: 5000, cacheScope: 'private' }, 'stateless', LIMITS), { ttlMs: 5000, scope: 'private' });
  });
  it('does not cache zero, negative, absent, non-finite or non-number ttlMs', () => {
    for (const ttlMs of [0, -1, -Infinity, Infinity, Number.NaN, '60000', null, true, { n: 1 }, [60000], 0.5, undefined]) {
      assert.equal(cachePolicyOf({ tools: [], ttlMs, cacheScope: 'public' } as JSONObject, 'stateless', LIMITS), undefined, `ttlMs ${String(ttlMs)}`);
    }
  });
  it('clamps a huge ttlMs to maxTtlMs and floors a fractional one', () => {
    assert.equal(cachePolicyOf({ ttlMs: 1e300, cacheScope: 'public' }, 'stateless', LIMITS)?.ttlMs, 3_600_000);
    assert.equal(cachePolicyOf({ ttlMs: Number.MAX_SAFE_INTEGER * 4, cacheScope: 'public' }, 'stateless', { ...LIMITS, maxTtlMs: 10 })?.ttlMs, 10);
    assert.equal(cachePolicyOf({ ttlMs: 1500.9, cacheScope: 'public' }, 'stateless', LIMITS)?.ttlMs, 1500);
  });
  it('takes an unknown or missing scope for private', () => {
    for (const cacheScope of ['shared', 'PUBLIC', '', 42, null, undefined, { public: true }]) {
      assert.equal(cachePolicyOf({ ttlMs: 1000, cacheScope } as JSONObject, 'stateless', LIMITS)?.scope, 'private', `scope ${String(cacheScope)}`);
    }
  });
  it('never caches interim or unknown result types, or a non-object', () => {
    assert.equal(cachePolicyOf({ resultType: 'input_required', ttlMs: 1000, cacheScope: 'public' }, 'stateless', LIMITS), undefined);
    assert.equal(cachePolicyOf({ resultType: 'task', ttlMs: 1000, cacheScope: 'public' }, 'stateless', LIMITS), undefined);
    for (const r of [null, 'x', 42, [{ ttlMs: 1000 }]]) assert.equal(cachePolicyOf(r, 'stateless', LIMITS), undefined);
  });
  it('ignores hints of a 2025-era result; caches it privately only with legacyTtlMs', () => {
    assert.equal(cachePolicyOf({ tools: [], ttlMs: 5000, cacheScope: 'public' }, 'stateful', LIMITS), undefined);
    assert.deepEqual(cachePolicyOf({ tools: [] }, 'stateful', { ...LIMITS, legacyTtlMs: 2000 }), { ttlMs: 2000, scope: 'private' });
    assert.equal(cachePolicyOf({ tools: [] }, undefined, { ...LIMITS, legacyTtlMs: 2000 }), undefined);
  });
  it('refuses invalid cache options and a shared store without serverId', () => {
    assert.throws(() => new Client({ name: 'c', version: '1' }, { cache: { store: new MemoryResultCacheStore() } }), /serverId is required/);
    for (const bad of [{ maxTtlMs: 0 }, { maxTtlMs: -5 }, { maxTtlMs: 1.5 }, { maxEntryChars: Number.NaN }, { legacyTtlMs: -1 }] as ClientCacheOptions[]) {
      assert.throws(() => new Client({ name: 'c', version: '1' }, { cache: bad }), RangeError, JSON.stringify(bad));
    }
  });
});

describe('MemoryResultCacheStore', () => {
  it('expires entries on its clock', async () => {
    const c = clock();
    const store = new MemoryResultCacheStore({ now: c.now });
    await store.set('k', 'v', 100);
    assert.equal(await store.get('k'), 'v');
    c.advance(100);
    assert.equal(await store.get('k'), undefined);
    assert.equal(store.size, 0);
  });
  it('evicts the least recently used beyond maxEntries and maxChars, and skips oversized values', async () => {
    const store = new MemoryResultCacheStore({ maxEntries: 3, maxChars: 100 });
    for (const k of ['a', 'b', 'c']) await store.set(k, 'x', 1000);
    await store.get('a');
    await store.set('d', 'x', 1000);
    assert.deepEqual([await store.get('a'), await store.get('b'), await store.get('c'), await store.get('d')], ['x', undefined, 'x', 'x']);
    await store.set('big', 'y'.repeat(95), 1000);
    assert.ok(store.chars <= 100, `chars ${store.chars}`);
    assert.equal(await store.get('big'), 'y'.repeat(95));
    await store.set('huge', 'z'.repeat(200), 1000);
    assert.equal(await store.get('huge'), undefined);
    assert.ok(store.chars <= 100);
  });
  it('deletes by prefix and refuses bad bounds', async () => {
    const store = new MemoryResultCacheStore();
    await store.set('s1:pub:tools/list:x', '1', 1000);
    await store.set('s1:pub:prompts/list:x', '2', 1000);
    await store.set('s2:pub:tools/list:x', '3', 1000);
    await store.deletePrefix('s1:pub:tools/list:');
    assert.deepEqual(
      [await store.get('s1:pub:tools/list:x'), await store.get('s1:pub:prompts/list:x'), await store.get('s2:pub:tools/list:x')],
      [undefined, '2', '3'],
    );
    assert.throws(() => new MemoryResultCacheStore({ maxEntries: 0 }), RangeError);
    assert.throws(() => new MemoryResultCacheStore({ maxChars: Number.POSITIVE_INFINITY }), RangeError);
  });
});

describe('Client result cache against a 2026-07-28 server', () => {
  it('sends no tools/list within ttlMs, one after expiry, one after list_changed', async () => {
    const { server, count } = countingServer((m) => (m === 'tools/list' ? { ttlMs: 60_000, cacheScope: 'public' } : undefined));
    const c = clock();
    const store = new MemoryResultCacheStore({ now: c.now });
    const client = await connect(server, { cache: { store, serverId: 'memory://counted' } });
    try {
      assert.equal(client.era, 'stateless');
      const first = await client.listTools();
      assert.deepEqual(
        first.tools.map((t) => t.name),
        ['echo'],
      );
      assert.equal(count('tools/list'), 1);
      for (let i = 0; i < 5; i++)
        assert.deepEqual(
          (await client.listAllTools()).map((t) => t.name),
          ['echo'],
        );
      assert.equal(count('tools/list'), 1, 'within ttlMs the client sends none');
      assert.deepEqual(client.cache.stats, { hits: 5, misses: 1 });
      c.advance(60_000);
      await client.listTools();
      assert.equal(count('tools/list'), 2, 'after expiry it sends one');
      await client.listTools();
      assert.equal(count('tools/list'), 2);

      const sub = await client.listen({ toolsListChanged: true });
      const changed = new Promise<void>((resolve) => client.on('notifications/tools/list_changed', () => resolve()));
      server.registerTool('added', { description: 'new' }, () => 'ok');
      await changed;
      const after = await client.listTools();
      assert.equal(count('tools/list'), 3, 'after list_changed it sends one');
      assert.deepEqual(
        after.tools.map((t) => t.name),
        ['echo', 'added'],
      );
      await client.listTools();
      assert.equal(count('tools/list'), 3);
      sub.close();
      await sub.ended.catch(() => {});
      await client.cache.clear();
      await client.listTools();
      assert.equal(count('tools/list'), 4, 'after clear() it sends one');
    } finally {
      await client.close();
    }
  });

  it('does not cache results whose ttlMs is 0 (the server default), nor errors', async () => {
    const { server, count } = countingServer(() => undefined, { failRead: true });
    const client = await connect(server);
    try {
      await client.listTools();
      await client.listTools();
      assert.equal(count('tools/list'), 2);
      await assert.rejects(client.readResource('test://a'));
      await assert.rejects(client.readResource('test://a'));
      assert.equal(count('resources/read'), 2, 'errors are never cached');
    } finally {
      await client.close();
    }
  });

  it('does not store a result larger than maxEntryChars', async () => {
    const { server, count } = countingServer(() => ({ ttlMs: 60_000, cacheScope: 'public' }));
    const store = new MemoryResultCacheStore();
    const client = await connect(server, { cache: { store, serverId: 'memory://small', maxEntryChars: 50 } });
    try {
      await client.listTools();
      await client.listTools();
      assert.equal(count('tools/list'), 2);
      assert.equal(store.size, 0);
    } finally {
      await client.close();
    }
  });

  it('caches each read by its uri and drops it on resources/updated', async () => {
    const { server, count } = countingServer((m) => (m === 'resources/read' || m === 'prompts/list' ? { ttlMs: 60_000, cacheScope: 'public' } : undefined));
    server.registerResource('test://b', { name: 'b' }, (uri) => ({ uri, text: 'b' }));
    const client = await connect(server);
    try {
      const a1 = await client.readResource('test://a');
      const b1 = await client.readResource('test://b');
      assert.notDeepEqual(a1.contents, b1.contents, 'the uri is part of the key');
      assert.deepEqual(await client.readResource('test://a'), a1);
      assert.equal(count('resources/read'), 2);
      await client.listPrompts();
      await client.listPrompts();
      assert.equal(count('prompts/list'), 1);
      const sub = await client.listen({ resourceSubscriptions: ['test://a'] });
      const updated = new Promise<void>((resolve) => client.on('notifications/resources/updated', () => resolve()));
      await server.notifyResourceUpdated('test://a');
      await updated;
      await client.readResource('test://a');
      assert.equal(count('resources/read'), 3, 'the updated uri is read again');
      await client.readResource('test://b');
      assert.equal(count('resources/read'), 3, 'other uris stay cached');
      sub.close();
      await sub.ended.catch(() => {});
    } finally {
      await client.close();
    }
  });

  it('keeps private entries per principal and drops them when the principal changes', async () => {
    const { server, count } = countingServer((m) => (m === 'tools/list' ? { ttlMs: 60_000, cacheScope: 'private' } : undefined));
    const store = new MemoryResultCacheStore();
    let who = 'alice';
    const alice = await connect(server, { cache: { store, serverId: 'memory://counted', principal: () => who } });
    const bob = await connect(server, { cache: { store, serverId: 'memory://counted', principal: 'bob' } });
    try {
      await alice.listTools();
      await alice.listTools();
      assert.equal(count('tools/list'), 1);
      await bob.listTools();
      assert.equal(count('tools/list'), 2, 'a private entry is not shared between two principals');
      await bob.listTools();
      assert.equal(count('tools/list'), 2);
      const held = store.size;
      who = 'carol';
      await alice.listTools();
      assert.equal(count('tools/list'), 3, 'a new principal does not see the old one’s entries');
      assert.equal(store.size, held, "alice's entry was dropped, carol's added");
      who = 'alice';
      await alice.listTools();
      assert.equal(count('tools/list'), 4, "alice's entries were dropped when the principal changed");
    } finally {
      await alice.close();
      await bob.close();
    }
  });

  it('drops on close the entries no other client can reach', async () => {
    const { server } = countingServer((m) =>
      m === 'tools/list' ? { ttlMs: 60_000, cacheScope: 'private' } : m === 'prompts/list' ? { ttlMs: 60_000, cacheScope: 'public' } : undefined,
    );
    const store = new MemoryResultCacheStore();
    const lone = await connect(server, { cache: { store, serverId: 'memory://counted' } });
    const named = await connect(server, { cache: { store, serverId: 'memory://counted', principal: 'dora' } });
    await lone.listTools();
    await lone.listPrompts();
    await named.listTools();
    assert.equal(store.size, 3);
    await lone.close();
    assert.equal(store.size, 2, "the lone client's private entry is gone, the public one stays");
    await named.close();
    assert.equal(store.size, 2, "dora's entries stay for her other clients");
  });

  it('shares public entries between clients of the same serverId, not otherwise', async () => {
    const { server, count } = countingServer((m) => (m === 'tools/list' ? { ttlMs: 60_000, cacheScope: 'public' } : undefined));
    const store = new MemoryResultCacheStore();
    const a = await connect(server, { cache: { store, serverId: 'memory://counted', principal: 'alice' } });
    const b = await connect(server, { cache: { store, serverId: 'memory://counted', principal: 'bob' } });
    const other = await connect(server, { cache: { store, serverId: 'memory://elsewhere' } });
    const plain = await connect(server);
    const plain2 = await connect(server);
    try {
      await a.listTools();
      await b.listTools();
      assert.equal(count('tools/list'), 1, 'public: shared across principals');
      await other.listTools();
      assert.equal(count('tools/list'), 2, 'another serverId is another server');
      await plain.listTools();
      await plain2.listTools();
      assert.equal(count('tools/list'), 4, 'without serverId, clients never share');
      await plain.listTools();
      assert.equal(count('tools/list'), 4, 'the default store caches for its own client');
      await other.listTools();
      await other.close();
      const reopened = await connect(server, { cache: { store, serverId: 'memory://elsewhere' } });
      await reopened.listTools();
      assert.equal(count('tools/list'), 4, 'public entries of a named server outlive the client');
      await reopened.close();
      const before = store.size;
      await plain.close();
      assert.equal(store.size, before, 'the default store is not this one');
    } finally {
      for (const c of [a, b, other, plain, plain2]) await c.close();
    }
  });

  it('does not cache 2025-era results unless legacyTtlMs is set; cache: false turns it off', async () => {
    const { server, count } = countingServer(() => ({ ttlMs: 60_000, cacheScope: 'public' }));
    const legacy = await connect(server, { protocolVersions: undefined });
    const opted = await connect(server, { protocolVersions: undefined, cache: { legacyTtlMs: 60_000 } });
    const off = await connect(server, { cache: false });
    try {
      assert.equal(legacy.era, 'stateful');
      await legacy.listTools();
      await legacy.listTools();
      assert.equal(count('tools/list'), 2);
      await opted.listTools();
      await opted.listTools();
      assert.equal(count('tools/list'), 3);
      assert.equal(off.cache.enabled, false);
      await off.listTools();
      await off.listTools();
      assert.equal(count('tools/list'), 5);
    } finally {
      for (const c of [legacy, opted, off]) await c.close();
    }
  });

  it('takes itself out of a 2025-era connection without legacyTtlMs: its requests do not pass through the cache', async () => {
    const { server } = countingServer(() => ({ ttlMs: 60_000, cacheScope: 'public' }));
    /** A client whose cache middleware counts the requests that pass through it. */
    const counted = async (options: ClientOptions) => {
      const [a, b] = InMemoryTransport.createPair();
      await server.connect(a);
      const client = new Client({ name: 'cli', version: '1.0.0' }, options);
      const cache = client.cache as ResultCache;
      const original = cache.middleware;
      const seen: string[] = [];
      (cache as { middleware: Middleware }).middleware = (next) => {
        const handler = original(next);
        return (method, params, ctx) => {
          seen.push(method);
          return handler(method, params, ctx);
        };
      };
      await client.connect(b);
      seen.length = 0; // the handshake's own requests
      await client.listTools();
      await client.listPrompts();
      return { client, seen, active: client.cache.active };
    };
    const legacy = await counted({});
    const pinned = await counted({ protocolVersion: '2025-11-25' });
    const opted = await counted({ cache: { legacyTtlMs: 60_000 } });
    const modern = await counted({ protocolVersions: ALL_REVISIONS });
    try {
      assert.equal(legacy.client.era, 'stateful');
      assert.deepEqual([legacy.seen, legacy.active], [[], false]);
      assert.deepEqual([pinned.seen, pinned.active], [[], false]);
      assert.deepEqual([opted.seen, opted.active], [['tools/list', 'prompts/list'], true]);
      assert.equal(modern.client.era, 'stateless');
      assert.deepEqual([modern.seen, modern.active], [['tools/list', 'prompts/list'], true]);
    } finally {
      for (const c of [legacy, pinned, opted, modern]) await c.client.close();
    }
  });

  it('never caches a read answered through a multi round-trip', async () => {
    const { server, count } = countingServer(() => ({ ttlMs: 60_000, cacheScope: 'public' }));
    server.registerResource('test://asks', { name: 'asks' }, async (uri, ctx) => {
      const r = await ctx.elicitForm({ message: 'Who?', requestedSchema: { type: 'object', properties: { v: { type: 'string' } } } });
      return { uri, text: String(r.content?.v) };
    });
    const client = await connect(server, { elicitation: { form: () => ({ action: 'accept', content: { v: 'me' } }) } });
    try {
      const first = await client.readResource('test://asks');
      assert.equal((first.contents[0] as { text?: string }).text, 'me');
      const served = count('resources/read');
      assert.ok(served >= 2, 'an input round and the retry');
      await client.readResource('test://asks');
      assert.ok(count('resources/read') >= served + 2, 'sent again, every round');
    } finally {
      await client.close();
    }
  });
});
