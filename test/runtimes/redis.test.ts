/**
 * Stores that fit: `mcpkit/redis` (on ioredis, from dist/) runs inside Bun and Deno. The demo
 * is served by one Bun.serve process and one Deno.serve process sharing their sessions and SSE
 * event logs through one real redis-server; a round-robin proxy sends each request of one
 * client to the other process in turn, so the session made on one runtime is served by the
 * other.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '../../src/client/index.js';
import { StreamableHttpClientTransport } from '../../src/http/client/streamable.js';
import { SUITE_TIMEOUT_MS } from '../helpers/bounds.js';
import { type RoundRobinProxy, roundRobinProxy } from '../helpers/http/round-robin-proxy.js';
import { type RedisServer, startRedis } from '../helpers/redis/redis-server.js';
import { fixture, type RuntimeServer, startRuntimeServer } from './harness.js';

describe('Bun and Deno sharing sessions through Redis (ioredis inside both runtimes)', { timeout: SUITE_TIMEOUT_MS }, () => {
  let redis: RedisServer;
  const servers: RuntimeServer[] = [];
  let proxy: RoundRobinProxy;
  before(async () => {
    redis = await startRedis();
    // one at a time, each kept as soon as it runs, so after() stops whatever did start
    for (const runtime of ['bun', 'deno'] as const)
      servers.push(await startRuntimeServer(runtime, fixture('serve-demo.mjs'), ['sessions', 'json', 'redis', redis.url]));
    proxy = await roundRobinProxy(servers.map((s) => Number(new URL(s.url).port)));
  });
  after(async () => {
    await proxy?.close();
    for (const s of servers) await s.close();
    await redis?.stop();
  });

  it('one session, its requests served alternately by Bun and Deno', async () => {
    const client = new Client({ name: 'shared', version: '1.0.0' });
    await client.connect(new StreamableHttpClientTransport({ url: proxy.url, reconnect: { maxRetries: 0 } }), { timeoutMs: 15_000 });
    try {
      for (let i = 0; i < 4; i++) {
        const result = await client.callTool({ name: 'echo', arguments: { message: `call ${i}` } }, { timeoutMs: 15_000 });
        assert.deepEqual(result.content, [{ type: 'text', text: `call ${i}` }], servers.map((s) => s.stderr()).join('\n'));
      }
    } finally {
      await client.close();
    }
    const posts = proxy.exchanges.filter((e) => e.method === 'POST');
    assert.ok(posts.some((e) => e.upstream === 0) && posts.some((e) => e.upstream === 1), `both runtimes served POSTs: ${JSON.stringify(proxy.exchanges)}`);
    assert.ok(posts.filter((e) => e.status === 200).length >= 5, JSON.stringify(proxy.exchanges));
  });
});
