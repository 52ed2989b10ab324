/**
 * The 2026-07-28 tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) on a shared
 * RedisTaskStore: a tools/call that became a task on instance A is visible to tasks/get on
 * instance B, and tasks/cancel through B stops the work running on A. Raw JSON-RPC peers over
 * in-memory pairs, each request carrying the stateless `_meta` (protocol version, client
 * capabilities with the extension, client info).
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { useRedis } from '../../test/helpers/redis/redis-server.js';
import { until } from '../../test/helpers/redis/task-peer.js';
import type { JSONObject, RequestId } from '../jsonrpc/types.js';
import { McpServer } from '../server/server.js';
import { TASKS_EXTENSION_ID, TaskServer } from '../tasks/index.js';
import { InMemoryTransport } from '../transport/memory.js';
import { RedisConnection } from './connection.js';
import { RedisTaskStore } from './task-store.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS_EXTENSION_ID]: {} } },
  'io.modelcontextprotocol/clientInfo': { name: 'stateless-redis-test', version: '1' },
};

const suite = useRedis();

/** One instance: a server whose `work` tool sleeps until aborted, on its own Redis connection; returns a raw caller and the aborts it saw. */
async function instance(): Promise<{ call: (method: string, params: JSONObject) => Promise<JSONObject>; aborted: string[] }> {
  const redis = await RedisConnection.connect({ url: suite.server.url, prefix: 'stateless:' });
  const store = await RedisTaskStore.open(redis);
  const mcp = new McpServer({ name: 'stateless-redis', version: '1.0.0' });
  const aborted: string[] = [];
  mcp.registerTool(
    'work',
    { description: 'waits until aborted', execution: { taskSupport: 'optional' } },
    (_args, ctx) =>
      new Promise((_, reject) =>
        ctx.signal.addEventListener(
          'abort',
          () => {
            aborted.push(String((ctx.signal.reason as Error | undefined)?.message));
            reject(ctx.signal.reason);
          },
          { once: true },
        ),
      ),
  );
  const tasks = new TaskServer(mcp, { store, sweepIntervalMs: 0, immediateResultMs: 10, ownerOf: () => ({ auth: 'user-1' }) });
  const [serverEnd, peer] = InMemoryTransport.createPair();
  await mcp.connect(serverEnd);
  const waiting = new Map<RequestId, (m: JSONObject) => void>();
  peer.start({
    message: (data) => {
      const m = JSON.parse(data as string) as JSONObject;
      if (m.method === undefined) waiting.get(m.id as RequestId)?.(m);
    },
    error: () => {},
    closed: () => {},
  });
  let next = 1;
  suite.defer(async () => {
    await peer.close();
    await tasks.close();
    await store.close();
    await redis.close();
  });
  const call = (method: string, params: JSONObject) =>
    new Promise<JSONObject>((resolve, reject) => {
      const id = next++;
      waiting.set(id, (m) => (m.error === undefined ? resolve(m.result as JSONObject) : reject(new Error(JSON.stringify(m.error)))));
      void peer.send({ jsonrpc: '2.0', id, method, params: { ...params, _meta: META } } as never);
    });
  return { call, aborted };
}

it('2026-07-28: tasks/get and tasks/cancel through instance B reach the task running on instance A', async () => {
  const a = await instance();
  const b = await instance();
  const created = await a.call('tools/call', { name: 'work', arguments: {} });
  const taskId = created.taskId as string;
  assert.equal(typeof taskId, 'string', 'the call became a task');
  assert.equal((await b.call('tasks/get', { taskId })).status, 'working');
  await b.call('tasks/cancel', { taskId });
  await until("the work's signal on A to fire", () => a.aborted.length === 1);
  assert.match(a.aborted[0]!, /cancelled/);
  assert.equal((await a.call('tasks/get', { taskId })).status, 'cancelled');
});
