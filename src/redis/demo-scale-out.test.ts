/**
 * `mcpkit demo --http --redis URL` scales out: three demo processes on one Redis behind a
 * round-robin proxy serve one official SDK client session (each request to the next
 * process): tool calls, sampling answered on another process than the one that asked
 * (2025-06-18 › Client › Sampling), and DELETE.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { BIN, type HttpChild, startHttpChild } from '../../test/helpers/cli/cli-run.js';
import { type RoundRobinProxy, roundRobinProxy } from '../../test/helpers/http/round-robin-proxy.js';
import { type RedisServer, startRedis } from '../../test/helpers/redis/redis-server.js';

let redis: RedisServer;
let demos: HttpChild[] = [];
let proxy: RoundRobinProxy;
before(async () => {
  redis = await startRedis();
  demos = await Promise.all([0, 1, 2].map(() => startHttpChild([BIN, 'demo', '--http', '--port', '0', '--redis', redis.url])));
  proxy = await roundRobinProxy(demos.map((d) => Number(new URL(d.url).port)));
});
after(async () => {
  await proxy?.close();
  for (const demo of demos) await demo.stop();
  await redis.close();
});

it('serves one session from three demo processes', async () => {
  const client = new Client({ name: 'scale-out', version: '1.0.0' }, { capabilities: { sampling: {} } });
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: 'assistant', model: 'stub', content: { type: 'text', text: 'from afar' } }));
  const transport = new StreamableHTTPClientTransport(new URL(proxy.url));
  await client.connect(transport);
  for (let i = 0; i < 3; i++)
    assert.deepEqual((await client.callTool({ name: 'echo', arguments: { message: `hop ${i}` } })).content, [{ type: 'text', text: `hop ${i}` }]);
  assert.deepEqual((await client.callTool({ name: 'test_sampling', arguments: { prompt: 'x' } })).content, [{ type: 'text', text: 'LLM response: from afar' }]);
  assert.equal(new Set(proxy.exchanges.map((e) => e.upstream)).size, 3);
  await transport.terminateSession();
  await client.close();
});
