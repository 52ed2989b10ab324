/**
 * `mcpkit demo --http --redis URL` shares its dynamic tool: `test_trigger_tool_change`
 * called on one demo process adds (and, called again on another, removes) `test_dynamic_tool`
 * on every process on that Redis, a process started later included, so consecutive
 * tools/list answers agree whichever process serves them (the conformance tools-list
 * scenario through the round-robin proxy). Official SDK clients, one per process, one real
 * redis-server.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { BIN, type HttpChild, startHttpChild } from '../../test/helpers/cli/cli-run.js';
import { type RedisServer, startRedis } from '../../test/helpers/redis/redis-server.js';
import { until } from '../../test/helpers/redis/task-peer.js';

let redis: RedisServer;
const demos: HttpChild[] = [];
const clients: Client[] = [];
before(async () => {
  redis = await startRedis();
});
after(async () => {
  for (const client of clients) await client.close().catch(() => {});
  for (const demo of demos) await demo.stop();
  await redis.close();
});

async function demoClient(): Promise<Client> {
  const demo = await startHttpChild([BIN, 'demo', '--http', '--port', '0', '--redis', redis.url]);
  demos.push(demo);
  const client = new Client({ name: 'demo-toggles', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(demo.url)));
  clients.push(client);
  return client;
}

async function hasDynamicTool(client: Client): Promise<boolean> {
  return (await client.listTools()).tools.some((t) => t.name === 'test_dynamic_tool');
}

it('the dynamic tool added through one demo appears on every demo on the Redis (a later one too), and removing it through another removes it everywhere', async () => {
  const a = await demoClient();
  const b = await demoClient();
  assert.equal(await hasDynamicTool(a), false);
  assert.equal(await hasDynamicTool(b), false);
  assert.deepEqual((await a.callTool({ name: 'test_trigger_tool_change', arguments: {} })).content, [{ type: 'text', text: 'added test_dynamic_tool' }]);
  assert.equal(await hasDynamicTool(a), true, 'the calling demo has it at once');
  await until('demo B to list test_dynamic_tool', () => hasDynamicTool(b));
  assert.deepEqual((await b.callTool({ name: 'test_dynamic_tool', arguments: {} })).content, [{ type: 'text', text: 'dynamic' }]);
  const c = await demoClient();
  await until('demo C, started after the flip, to list test_dynamic_tool', () => hasDynamicTool(c));
  // the toggle is shared: flipping it through B removes the tool everywhere
  assert.deepEqual((await b.callTool({ name: 'test_trigger_tool_change', arguments: {} })).content, [{ type: 'text', text: 'removed test_dynamic_tool' }]);
  assert.equal(await hasDynamicTool(b), false);
  await until('demo A to drop test_dynamic_tool', async () => !(await hasDynamicTool(a)));
  await until('demo C to drop test_dynamic_tool', async () => !(await hasDynamicTool(c)));
});
