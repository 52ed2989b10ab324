/**
 * Interop with the official TypeScript SDK's experimental 2025-11-25 tasks, both directions,
 * over in-memory pairs (the official side through `SdkTransportBridge`). mcpkit's side of
 * every wire is recorded and schema-checked.
 *
 * - official Client → mcpkit TaskServer: `callToolStream` with a task, `getTask`,
 *   `listTasks`, `cancelTask`; and mcpkit's task-augmented sampling answered by the official
 *   client's own task store.
 * - mcpkit TaskClient → official McpServer: `callToolAsTask` against `registerToolTask`, and
 *   the official server's task-augmented sampling (`createMessageStream`) run by mcpkit.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTaskStore as SdkTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import { McpServer as SdkMcpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolResultSchema, CreateMessageRequestSchema, type CreateMessageResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { type Fixture, sleep, taskFixture } from '../../test/helpers/task-fixture.js';
import { SdkTransportBridge } from '../../test/interop/fixtures/sdk-transport-bridge.js';
import { Client } from '../client/client.js';
import type { ServerConnection } from '../server/connection.js';
import { type RecordingTransport, recordTransport } from '../testing/recording-transport.js';
import { InMemoryTransport } from '../transport/memory.js';
import { RELATED_TASK_META, TaskClient } from './index.js';

const closers: Array<() => Promise<void>> = [];
after(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
});

/** An official task store whose expiry timers are cleared when the tests end. */
function sdkStore(): SdkTaskStore {
  const store = new SdkTaskStore();
  closers.push(async () => store.cleanup());
  return store;
}

/**
 * The official SDK's `requestStream` repeats the creating request's `task` member in the
 * `tasks/get` and `tasks/result` requests it polls with, so the recorder (which keys on
 * `params.task`) expects a CreateTaskResult in answer to those. Every other violation counts.
 */
function assertClean(wire: RecordingTransport): void {
  const real = wire.violations().filter((v) => !/\] tasks\/(get|result) result \(CreateTaskResult\): \/result must have required property 'task'$/.test(v));
  assert.deepEqual(real, [], wire.formatTranscript({ maxLineLength: 400 }));
}

/** The official client (optionally with a task store of its own) connected to an mcpkit fixture server. */
async function officialClientToMcpkit(clientTasks: boolean): Promise<{ fx: Fixture; client: SdkClient; session: ServerConnection; wire: RecordingTransport }> {
  const fx = taskFixture({ pollIntervalMs: 20 });
  const [clientEnd, serverEnd] = InMemoryTransport.createPair();
  let session: ServerConnection | undefined;
  const wire = recordTransport(serverEnd, { side: 'server', revision: () => session?.protocolVersion });
  session = await fx.server.connect(wire);
  const client = new SdkClient(
    { name: 'official-client', version: '1.0.0' },
    clientTasks
      ? { capabilities: { sampling: {}, tasks: { list: {}, cancel: {}, requests: { sampling: { createMessage: {} } } } }, taskStore: sdkStore() }
      : { capabilities: {} },
  );
  await client.connect(new SdkTransportBridge(clientEnd));
  closers.push(
    () => client.close(),
    () => fx.tasks!.close(),
  );
  return { fx, client, session, wire };
}

describe('interop: official SDK client → mcpkit server (2025-11-25 tasks)', () => {
  it('callToolStream: taskCreated, taskStatus until completed, then the result', async () => {
    const { client, wire } = await officialClientToMcpkit(false);
    const tools = await client.listTools();
    assert.equal(tools.tools.find((t) => t.name === 'job')?.execution?.taskSupport, 'optional');
    const seen: string[] = [];
    let taskId: string | undefined;
    let text: string | undefined;
    for await (const message of client.experimental.tasks.callToolStream({ name: 'job', arguments: { progress: true } }, CallToolResultSchema, {
      task: { ttl: 30_000 },
    })) {
      seen.push(message.type === 'taskStatus' ? `status:${message.task.status}` : message.type);
      if (message.type === 'taskCreated') taskId = message.task.taskId;
      if (message.type === 'result') text = (message.result.content[0] as { text: string }).text;
      if (message.type === 'error') throw message.error;
    }
    assert.equal(seen[0], 'taskCreated');
    assert.equal(seen[seen.length - 1], 'result');
    assert.ok(seen.includes('status:completed'), seen.join(', '));
    assert.equal(text, 'job done');
    assert.equal((await client.experimental.tasks.getTask(taskId!)).status, 'completed');
    assertClean(wire);
  });

  it('getTask, listTasks and cancelTask against a running mcpkit task; the work is aborted', async () => {
    const { client, fx, wire } = await officialClientToMcpkit(false);
    const created = await client.request(
      { method: 'tools/call', params: { name: 'job', arguments: { hold: true }, task: { ttl: 30_000 } } },
      z.object({ task: z.object({ taskId: z.string(), status: z.string() }) }).passthrough(),
    );
    const taskId = created.task.taskId;
    assert.equal((await client.experimental.tasks.getTask(taskId)).status, 'working');
    const listed = await client.experimental.tasks.listTasks();
    assert.deepEqual(
      listed.tasks.map((t) => t.taskId),
      [taskId],
    );
    while (fx.probe.holding === 0) await sleep(2);
    const cancelled = await client.experimental.tasks.cancelTask(taskId);
    assert.equal(cancelled.status, 'cancelled');
    assert.equal(fx.probe.aborted.length, 1);
    await assert.rejects(client.experimental.tasks.cancelTask(taskId), /terminal status/);
    assertClean(wire);
  });

  it('the official client runs mcpkit’s task-augmented sampling with its own task store', async () => {
    const { client, fx, session, wire } = await officialClientToMcpkit(true);
    client.setRequestHandler(CreateMessageRequestSchema, async (request, extra) => {
      const answer: CreateMessageResult = { role: 'assistant', model: 'official-model', content: { type: 'text', text: 'hello from the SDK' } };
      if (!request.params.task) return answer;
      const task = await extra.taskStore!.createTask({ ttl: request.params.task.ttl ?? 60_000, pollInterval: 20 });
      setTimeout(() => void extra.taskStore!.storeTaskResult(task.taskId, 'completed', answer), 30);
      return { task };
    });
    const statuses: string[] = [];
    const pending = await fx.tasks!.createMessageAsTask(
      session,
      { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 20 },
      { ttl: 30_000, onStatus: (t) => statuses.push(t.status) },
    );
    assert.ok(pending.taskId);
    const result = await pending.result();
    assert.equal(result.model, 'official-model');
    assert.equal(statuses[0], 'working');
    assert.equal(statuses[statuses.length - 1], 'completed');
    assertClean(wire);
  });
});

/** An official McpServer with a task tool (its own store), and an mcpkit client with a TaskClient. */
async function mcpkitClientToOfficial() {
  const store = sdkStore();
  const official = new SdkMcpServer(
    { name: 'official-task-server', version: '1.0.0' },
    { capabilities: { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } }, taskStore: store },
  );
  official.experimental.tasks.registerToolTask(
    'slow_sum',
    { description: 'Adds two numbers, slowly', inputSchema: { a: z.number(), b: z.number() }, execution: { taskSupport: 'optional' } },
    {
      createTask: async ({ a, b }, extra) => {
        const task = await extra.taskStore.createTask({ ttl: extra.taskRequestedTtl ?? 60_000, pollInterval: 20 });
        setTimeout(() => void extra.taskStore.storeTaskResult(task.taskId, 'completed', { content: [{ type: 'text', text: String(a + b) }] }), 60);
        return { task };
      },
      getTask: async (_args, extra) => (await extra.taskStore.getTask(extra.taskId))!,
      getTaskResult: async (_args, extra) => (await extra.taskStore.getTaskResult(extra.taskId)) as never,
    },
  );
  const [clientEnd, serverEnd] = InMemoryTransport.createPair();
  await official.connect(new SdkTransportBridge(serverEnd));
  const client = new Client(
    { name: 'mcpkit-client', version: '1.0.0' },
    {
      sampling: { createMessage: async () => ({ role: 'assistant', model: 'mcpkit-model', content: { type: 'text', text: 'hello from mcpkit' } }) },
    },
  );
  const tasks = new TaskClient(client, { pollIntervalMs: 20, sweepIntervalMs: 0 });
  const wire = recordTransport(clientEnd, { side: 'client', revision: () => client.protocolVersion });
  await client.connect(wire);
  closers.push(
    () => client.close(),
    () => official.close(),
    () => tasks.close(),
  );
  return { official, client, tasks, wire };
}

describe('interop: mcpkit client → official SDK server (2025-11-25 tasks)', () => {
  it('callToolAsTask against registerToolTask: polls the official store and gets the result', async () => {
    const { tasks, wire } = await mcpkitClientToOfficial();
    const statuses: string[] = [];
    const pending = await tasks.callToolAsTask({ name: 'slow_sum', arguments: { a: 2, b: 40 } }, { ttl: 30_000, onStatus: (t) => statuses.push(t.status) });
    assert.ok(pending.taskId);
    assert.equal(pending.status, 'working');
    const result = await pending.result();
    assert.deepEqual(result.content, [{ type: 'text', text: '42' }]);
    assert.deepEqual((result._meta as Record<string, unknown> | undefined)?.[RELATED_TASK_META], { taskId: pending.taskId });
    assert.deepEqual([statuses[0], statuses[statuses.length - 1]], ['working', 'completed']);
    const listed = await tasks.listTasks();
    assert.ok(listed.tasks.some((t) => t.taskId === pending.taskId && t.status === 'completed'));
    assert.equal((await tasks.getTask(pending.taskId!)).status, 'completed');
    assertClean(wire);
  });

  it('the official server’s task-augmented sampling (createMessageStream) runs as an mcpkit task', async () => {
    const { official, tasks, wire } = await mcpkitClientToOfficial();
    const seen: string[] = [];
    let model: string | undefined;
    for await (const message of official.server.experimental.tasks.createMessageStream(
      { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 20 },
      { task: { ttl: 30_000 } },
    )) {
      seen.push(message.type === 'taskStatus' ? `status:${message.task.status}` : message.type);
      if (message.type === 'result') model = message.result.model;
      if (message.type === 'error') throw message.error;
    }
    assert.equal(seen[0], 'taskCreated');
    assert.equal(seen[seen.length - 1], 'result');
    assert.equal(model, 'mcpkit-model');
    const list = await tasks.store.list({}, { limit: 10 });
    assert.equal(list.tasks.length, 1);
    assert.equal(list.tasks[0]!.method, 'sampling/createMessage');
    assert.equal(list.tasks[0]!.status, 'completed');
    assertClean(wire);
  });
});
