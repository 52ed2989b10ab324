/**
 * The client result cache on Redis (SEP-2549): the RedisResultCacheStore contract against a
 * real redis-server, then two host PROCESSES sharing it in front of one 2026-07-28 mcpkit
 * server over Streamable HTTP that counts the requests it serves — the second process sends
 * none for what the first one fetched (public entries), and fetches its own private ones.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { useRedis } from '../../test/helpers/redis/redis-server.js';
import { ALL_REVISIONS, Client } from '../client/index.js';
import { StreamableHttpClientTransport } from '../http/index.js';
import { serveNode } from '../http/node.js';
import { createStreamableHttpHandler } from '../http/server/handler.js';
import { McpServer } from '../server/index.js';
import { RedisConnection } from './connection.js';
import { RedisResultCacheStore } from './result-cache-store.js';

const suite = useRedis();
let prefixes = 0;

async function connection(prefix = `rc${++prefixes}:`): Promise<RedisConnection> {
  const c = await RedisConnection.connect({ url: suite.server.url, prefix });
  suite.defer(() => c.close());
  return c;
}

const CHILD = join(dirname(fileURLToPath(import.meta.url)), '../../test/helpers/redis/cache-client.js');

describe('RedisResultCacheStore', () => {
  it('stores with an expiry, deletes by prefix (glob characters literal), refuses bad keys', async () => {
    const redis = await connection();
    const store = new RedisResultCacheStore(redis);
    await store.set('s:pub:tools/list:1', '{"a":1}', 60_000);
    await store.set('s:pub:tools/list:2', '{"a":2}', 60_000);
    await store.set('s*:pub:tools/list:1', 'star', 60_000);
    await store.set('s:pub:prompts/list:1', 'p', 60_000);
    assert.equal(await store.get('s:pub:tools/list:1'), '{"a":1}');
    const ttl = await redis.run((c) => c.pttl(`${redis.prefix}rc:s:pub:tools/list:1`));
    assert.ok(ttl > 50_000 && ttl <= 60_000, `pttl ${ttl}`);
    await store.deletePrefix('s*:');
    assert.equal(await store.get('s:pub:tools/list:1'), '{"a":1}', 'the * of a prefix is a literal');
    assert.equal(await store.get('s*:pub:tools/list:1'), undefined);
    await store.deletePrefix('s:pub:tools/list:');
    assert.deepEqual(
      [await store.get('s:pub:tools/list:1'), await store.get('s:pub:tools/list:2'), await store.get('s:pub:prompts/list:1')],
      [undefined, undefined, 'p'],
    );
    await store.set('short', 'v', 1);
    for (let i = 0; i < 100 && (await store.get('short')) !== undefined; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(await store.get('short'), undefined, 'Redis drops an expired entry');
    await store.set('big', 'x'.repeat(11), 60_000);
    assert.equal(await new RedisResultCacheStore(redis, { maxValueChars: 10 }).set('big2', 'x'.repeat(11), 60_000), undefined);
    assert.equal(await store.get('big2'), undefined, 'an oversized value is skipped');
    await assert.rejects(store.get('a key with spaces'), RangeError);
    await assert.rejects(store.set('x'.repeat(600), 'v', 1000), RangeError);
    assert.throws(() => new RedisResultCacheStore(redis, { scanCount: 0 }), RangeError);
  });
});

describe('result cache across processes sharing Redis', () => {
  it('the second process sends no tools/list for what the first fetched; private entries stay per principal', async () => {
    const server = new McpServer(
      { name: 'counted', version: '1.0.0' },
      {
        stateless: {
          cacheHints: (method) =>
            method === 'tools/list'
              ? { ttlMs: 60_000, cacheScope: 'public' }
              : method === 'resources/read'
                ? { ttlMs: 60_000, cacheScope: 'private' }
                : undefined,
        },
      },
    );
    server.registerTool('echo', { description: 'echoes' }, (a: { text?: string }) => a.text ?? '');
    server.registerTool('add', { description: 'adds' }, () => '0');
    let reads = 0;
    server.registerResource('test://a', { name: 'a' }, (uri) => ({ uri, text: `read ${++reads}` }));
    const calls = new Map<string, number>();
    server.use({ intercept: (call, next) => (calls.set(call.method, (calls.get(call.method) ?? 0) + 1), next()) });
    const node = await serveNode(createStreamableHttpHandler({ server }));
    suite.defer(() => node.close());
    const prefix = `rcx${++prefixes}:`;
    const redis = await connection(prefix);
    const client = new Client(
      { name: 'first-process', version: '1.0.0' },
      { protocolVersions: ALL_REVISIONS, cache: { store: new RedisResultCacheStore(redis), serverId: node.url, principal: 'alice' } },
    );
    await client.connect(new StreamableHttpClientTransport({ url: node.url }));
    try {
      assert.equal(client.era, 'stateless');
      assert.deepEqual(
        (await client.listAllTools()).map((t) => t.name),
        ['echo', 'add'],
      );
      await client.listTools();
      assert.equal((await client.readResource('test://a')).contents.length, 1);
      assert.equal(calls.get('tools/list'), 1);
      assert.equal(calls.get('resources/read'), 1);

      const run = async (principal: string) => {
        const { stdout } = await promisify(execFile)(process.execPath, [CHILD, suite.server.url, prefix, node.url, principal], { timeout: 30_000 });
        return JSON.parse(stdout.trim()) as { era: string; tools: string[]; text: string; stats: { hits: number; misses: number } };
      };
      const bob = await run('bob');
      assert.deepEqual(bob.tools, ['echo', 'add']);
      assert.equal(bob.era, 'stateless');
      assert.equal(calls.get('tools/list'), 1, 'the second process sends no tools/list');
      assert.equal(calls.get('resources/read'), 2, "bob does not get alice's private read");
      assert.equal(bob.text, 'read 2');
      assert.deepEqual(bob.stats, { hits: 2, misses: 1 });
      const alice = await run('alice');
      assert.equal(alice.text, 'read 1', "alice's private read is hers in every process");
      assert.equal(calls.get('resources/read'), 2);
      assert.equal(calls.get('tools/list'), 1);
    } finally {
      await client.close();
    }
  });
});
