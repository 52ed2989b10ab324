/**
 * RedisTaskInputRelay with the 2026-07-28 tasks extension on a shared RedisTaskStore: a
 * tasks/update reaching instance B hands its inputResponses to the task whose work waits on
 * instance A (which then completes with them); a malformed answer through B is refused with
 * A's -32602 and changes nothing; a task no instance runs answers -32603 instead of a false
 * acknowledgement. Raw JSON-RPC peers over in-memory pairs, one real redis-server, each
 * instance on its own Redis connection, bus and relay.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { useRedis } from '../../test/helpers/redis/redis-server.js';
import { until } from '../../test/helpers/redis/task-peer.js';
import type { JSONObject, RequestId } from '../jsonrpc/types.js';
import { McpServer } from '../server/server.js';
import { STATELESS_TASK_FORM, TASKS_EXTENSION_ID, TaskServer } from '../tasks/index.js';
import { InMemoryTransport } from '../transport/memory.js';
import { RedisBus } from './bus.js';
import { RedisConnection } from './connection.js';
import { RedisTaskInputRelay } from './task-input-relay.js';
import { RedisTaskStore } from './task-store.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} }, extensions: { [TASKS_EXTENSION_ID]: {} } },
  'io.modelcontextprotocol/clientInfo': { name: 'task-input-relay-test', version: '1' },
};
const OWNER = { auth: 'user-1' };
const nameSchema = { type: 'object' as const, properties: { name: { type: 'string' as const } }, required: ['name'] };

const suite = useRedis();

interface Instance {
  call(method: string, params: JSONObject): Promise<JSONObject>;
  readonly store: RedisTaskStore;
}

/** One instance: a server whose `greet` tool asks for a name (after it became a task), with its own connection, store, bus and relay. */
async function instance(): Promise<Instance> {
  const redis = await RedisConnection.connect({ url: suite.server.url, prefix: 'relay:' });
  const store = await RedisTaskStore.open(redis);
  const bus = new RedisBus(redis);
  const relay = await RedisTaskInputRelay.open(bus);
  const mcp = new McpServer({ name: 'relay', version: '1.0.0' });
  mcp.registerTool('greet', { description: 'asks for a name once it is a task', execution: { taskSupport: 'optional' } }, async (_args, ctx) => {
    await new Promise((r) => setTimeout(r, 50)); // past immediateResultMs: the call is a task when it asks
    const r = await ctx.elicitForm({ message: 'Your name?', requestedSchema: nameSchema }, { inputKey: 'user_name' });
    return `Hello, ${r.action === 'accept' ? String(r.content?.name) : 'stranger'}!`;
  });
  const tasks = new TaskServer(mcp, { store, sweepIntervalMs: 0, immediateResultMs: 10, ownerOf: () => OWNER, inputRelay: relay });
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
    await relay.close();
    await bus.close();
    await store.close();
    await redis.close();
  });
  const call = (method: string, params: JSONObject) =>
    new Promise<JSONObject>((resolve, reject) => {
      const id = next++;
      waiting.set(id, (m) =>
        m.error === undefined ? resolve(m.result as JSONObject) : reject(Object.assign(new Error(JSON.stringify(m.error)), { rpc: m.error })),
      );
      void peer.send({ jsonrpc: '2.0', id, method, params: { ...params, _meta: META } } as never);
    });
  return { call, store };
}

/** Starts `greet` on `a` and waits (bounded) until the task asks for `user_name`; its id. */
async function askingTask(a: Instance, b: Instance): Promise<string> {
  const created = await a.call('tools/call', { name: 'greet', arguments: {} });
  assert.equal(created.resultType, 'task', 'the call became a task');
  const taskId = created.taskId as string;
  await until('the task to ask for user_name', async () => {
    const t = await b.call('tasks/get', { taskId });
    return t.status === 'input_required' && (t.inputRequests as JSONObject | undefined)?.user_name !== undefined;
  });
  return taskId;
}

it('tasks/update through instance B hands the answers to the task waiting on instance A, which completes with them', async () => {
  const a = await instance();
  const b = await instance();
  const taskId = await askingTask(a, b);
  const ack = await b.call('tasks/update', { taskId, inputResponses: { user_name: { action: 'accept', content: { name: 'Ada' } } } });
  assert.equal(ack.resultType, 'complete', 'the empty acknowledgement');
  await until('the task to complete', async () => (await b.call('tasks/get', { taskId })).status === 'completed');
  const done = await a.call('tasks/get', { taskId });
  assert.deepEqual((done.result as JSONObject).content, [{ type: 'text', text: 'Hello, Ada!' }]);
});

it('a malformed answer through instance B is refused with -32602 from the running instance and changes nothing', async () => {
  const a = await instance();
  const b = await instance();
  const taskId = await askingTask(a, b);
  await assert.rejects(
    b.call('tasks/update', { taskId, inputResponses: { user_name: { action: 'accept', content: { name: 42 } } } }),
    (err: { rpc?: { code?: number; message?: string } }) => {
      assert.equal(err.rpc?.code, -32602, JSON.stringify(err.rpc));
      assert.match(err.rpc?.message ?? '', /user_name/);
      return true;
    },
  );
  const t = await b.call('tasks/get', { taskId });
  assert.equal(t.status, 'input_required', 'still waiting for a valid answer');
  // a valid answer afterwards still goes through
  await b.call('tasks/update', { taskId, inputResponses: { user_name: { action: 'accept', content: { name: 'Grace' } } } });
  await until('the task to complete', async () => (await a.call('tasks/get', { taskId })).status === 'completed');
});

it('tasks/update of an unfinished task whose work runs on no instance answers -32603 instead of acknowledging', async () => {
  const a = await instance();
  await instance();
  // A task record the store keeps unfinished (its creator's heartbeat is alive) with no work behind it anywhere.
  const record = await a.store.create({
    taskId: crypto.randomUUID(),
    status: 'working',
    ttlMs: 60_000,
    ttlAnchor: 'created',
    owner: OWNER,
    method: 'tools/call',
    form: STATELESS_TASK_FORM,
    requestId: 1,
  });
  await a.store.addInputRequest(record.taskId, 'user_name', { method: 'elicitation/create', params: { message: 'Your name?', requestedSchema: nameSchema } });
  await assert.rejects(
    a.call('tasks/update', { taskId: record.taskId, inputResponses: { user_name: { action: 'accept', content: { name: 'Ada' } } } }),
    (err: { rpc?: { code?: number; message?: string } }) => {
      assert.equal(err.rpc?.code, -32603, JSON.stringify(err.rpc));
      assert.match(err.rpc?.message ?? '', /runs on no reachable instance/);
      return true;
    },
  );
  // unknown task ids still answer -32602
  await assert.rejects(a.call('tasks/update', { taskId: crypto.randomUUID(), inputResponses: {} }), /-32602/);
});
