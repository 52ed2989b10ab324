/**
 * Three demo-server instances on one Redis behind a round-robin proxy (each request to the
 * next instance), driven by the official SDK client (`@modelcontextprotocol/sdk` 1.32.2,
 * Streamable HTTP): one session whose every request lands on another instance passes a
 * feature walk — tools, resources, prompts, sampling and elicitation (answers POSTed to an
 * instance other than the one that asked: routed back, 2025-06-18 › Client › Sampling and
 * Elicitation), progress, logging (a level set on one instance honoured on the next),
 * subscriptions (the update raised on one instance reaches the GET stream held on another),
 * cancellation (`notifications/cancelled` reaching the instance running the request stops
 * it, 2025-06-18 › Utilities › Cancellation), and DELETE ending the session on all three.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { type RoundRobinProxy, roundRobinProxy } from '../../test/helpers/http/round-robin-proxy.js';
import { type RedisServer, startRedis } from '../../test/helpers/redis/redis-server.js';
import { until } from '../../test/helpers/redis/task-peer.js';
import { createDemoServer } from '../demo/server.js';
import { type NodeServerHandle, serveNode } from '../http/node.js';
import { createStreamableHttpHandler, type StreamableHttpHandler } from '../http/server/handler.js';
import { RedisConnection } from './connection.js';
import { RedisEventStore } from './event-store.js';
import { RedisSessionDirectory } from './session-directory.js';

interface Instance {
  handler: StreamableHttpHandler;
  node: NodeServerHandle;
  close(): Promise<void>;
}

let redisServer: RedisServer;
let proxy: RoundRobinProxy;
const instances: Instance[] = [];
const errors: Error[] = [];

before(async () => {
  redisServer = await startRedis();
  for (let i = 0; i < 3; i++) {
    const redis = await RedisConnection.connect({ url: redisServer.url, prefix: 'three:' });
    const directory = await RedisSessionDirectory.open(redis, { onError: (e) => errors.push(e) });
    const handler = createStreamableHttpHandler({
      server: createDemoServer(),
      sessions: directory,
      eventStore: new RedisEventStore(redis),
      onError: (e) => errors.push(e),
    });
    const node = await serveNode(handler);
    instances.push({
      handler,
      node,
      async close() {
        await node.close();
        await directory.close();
        await redis.close();
      },
    });
  }
  proxy = await roundRobinProxy(instances.map((i) => i.node.port));
});
after(async () => {
  await proxy?.close();
  for (const instance of instances) await instance.close().catch(() => {});
  await redisServer.close();
});

it('passes the official SDK client feature walk with every request on another instance', async () => {
  const client = new Client({ name: 'three-instances', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {} } });
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({
    role: 'assistant',
    model: 'stub',
    content: { type: 'text', text: 'sampled elsewhere' },
  }));
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { username: 'ada', email: 'ada@example.com' } }));
  const logs: unknown[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params.data));
  const updated: string[] = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
  const transport = new StreamableHTTPClientTransport(new URL(proxy.url));
  await client.connect(transport);
  assert.ok(transport.sessionId);

  // tools, resources, prompts
  assert.ok((await client.listTools()).tools.some((t) => t.name === 'test_sampling'));
  assert.deepEqual((await client.callTool({ name: 'echo', arguments: { message: 'hop' } })).content, [{ type: 'text', text: 'hop' }]);
  assert.ok((await client.listResources()).resources.some((r) => r.uri === 'test://static-text'));
  assert.equal(((await client.readResource({ uri: 'test://static-text' })).contents[0] as { text?: string }).text !== undefined, true);
  assert.equal((await client.getPrompt({ name: 'test_simple_prompt' })).messages.length, 1);

  // sampling and elicitation: the client's answer goes to the next instance, not the asking one
  assert.deepEqual((await client.callTool({ name: 'test_sampling', arguments: { prompt: 'hi' } })).content, [
    { type: 'text', text: 'LLM response: sampled elsewhere' },
  ]);
  const elicited = await client.callTool({ name: 'test_elicitation', arguments: { message: 'who?' } });
  assert.deepEqual(elicited.content, [{ type: 'text', text: 'User response: action=accept, content={"username":"ada","email":"ada@example.com"}' }]);

  // progress
  const progress: number[] = [];
  await client.callTool({ name: 'test_tool_with_progress', arguments: {} }, undefined, { onprogress: (p) => void progress.push(p.progress) });
  assert.deepEqual(progress, [0, 50, 100]);

  // logging: the level set on one instance holds on the next
  await client.setLoggingLevel('debug');
  await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
  assert.equal(logs.length, 3);

  // subscriptions: the update is raised where the tool runs and reaches the GET stream, wherever it is held
  await client.subscribeResource({ uri: 'test://watched-resource' });
  await client.callTool({ name: 'touch_watched_resource', arguments: {} });
  await until('the resources/updated notification', () => updated.length === 1);
  assert.deepEqual(updated, ['test://watched-resource']);

  // cancellation: the notification lands on another instance and stops the request where it runs
  const abort = new AbortController();
  const slowIndex = proxy.exchanges.length;
  const slow = client.callTool({ name: 'slow', arguments: { ms: 600_000 } }, undefined, { signal: abort.signal, onprogress: () => abort.abort('enough') });
  await assert.rejects(slow);
  const slowPost = proxy.exchanges[slowIndex]!;
  assert.equal(slowPost.method, 'POST');
  await until('the cancelled request to end its stream', () => slowPost.ended, 10_000);

  // every instance served part of it
  const used = new Set(proxy.exchanges.filter((e) => e.method === 'POST').map((e) => e.upstream));
  assert.equal(used.size, 3);

  await transport.terminateSession();
  await until('every instance to forget the session', () => instances.every((i) => i.handler.sessionCount === 0));
  await client.close();
  assert.deepEqual(
    errors.map((e) => e.message),
    [],
  );
});
