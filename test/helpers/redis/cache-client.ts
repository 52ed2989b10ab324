/**
 * A second host process for the result cache test (src/redis/result-cache.test.ts).
 * Usage: node cache-client.js <redis url> <prefix> <mcp url> <principal>
 * Connects a dual-era Client to the MCP server at <mcp url> with a RedisResultCacheStore
 * (serverId: the URL), lists the tools and reads test://a twice, prints one JSON line
 * `{tools, text, stats}` and exits.
 */

import { ALL_REVISIONS, Client } from '../../../src/client/index.js';
import { StreamableHttpClientTransport } from '../../../src/http/index.js';
import { RedisConnection } from '../../../src/redis/connection.js';
import { RedisResultCacheStore } from '../../../src/redis/result-cache-store.js';

const [redisUrl, prefix, mcpUrl, principal] = process.argv.slice(2) as [string, string, string, string];
const redis = await RedisConnection.connect({ url: redisUrl, prefix });
const client = new Client(
  { name: 'second-process', version: '1.0.0' },
  { protocolVersions: ALL_REVISIONS, cache: { store: new RedisResultCacheStore(redis), serverId: mcpUrl, principal } },
);
await client.connect(new StreamableHttpClientTransport({ url: mcpUrl }));
const tools = (await client.listAllTools()).map((t) => t.name);
await client.listTools();
const read = await client.readResource('test://a');
const text = (read.contents[0] as { text?: string }).text;
process.stdout.write(`${JSON.stringify({ era: client.era, tools, text, stats: client.cache.stats })}\n`);
await client.close();
await redis.close();
