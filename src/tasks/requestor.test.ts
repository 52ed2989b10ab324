/**
 * The requestor API end to end, mcpkit on both sides over an in-memory pair (both wires
 * schema-checked): `TaskClient.callToolAsTask` against a `TaskServer`, and
 * `TaskServer.createMessageAsTask` / `elicitAsTask` against a `TaskClient` receiver, in the
 * 2025-11-25 form and the draft form, including graceful degradation when the receiver does
 * not run the request as a task.
 */
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { isUuid, sleep, taskFixture } from '../../test/helpers/task-fixture.js';
import { type Harness, harnessTest } from '../../test/transcripts/harness.js';
import type { ClientOptions } from '../client/client.js';
import { LocalError, McpError } from '../jsonrpc/errors.js';
import type { Progress } from '../session/session.js';
import { RELATED_TASK_META, TaskClient, type TaskServerOptions } from './index.js';

async function setup(h: Harness, options: { server?: TaskServerOptions | false; client?: ClientOptions; revision?: string } = {}) {
  const fx = taskFixture(options.server === undefined ? {} : options.server);
  let tasks: TaskClient | undefined;
  const conn = await h.client(fx.server, { protocolVersion: options.revision ?? '2025-11-25', ...options.client }, (client) => {
    tasks = new TaskClient(client, { sweepIntervalMs: 0 });
  });
  return { ...fx, ...conn, taskClient: tasks! };
}

const elicitation: ClientOptions = { elicitation: { form: async () => ({ action: 'accept', content: { name: 'Ada' } }) } };
const sampling: ClientOptions = { sampling: { createMessage: async () => ({ role: 'assistant', model: 'm', content: { type: 'text', text: 'hi' } }) } };

describe('requestor API, 2025-11-25 form', () => {
  harnessTest('callToolAsTask: a task handle that reports each status, relays progress, and resolves to the original result', async (h) => {
    const { taskClient, probe } = await setup(h);
    const statuses: string[] = [];
    const progress: Progress[] = [];
    const pending = await taskClient.callToolAsTask(
      { name: 'job', arguments: { progress: true, hold: true } },
      { ttl: 30_000, onStatus: (t) => statuses.push(t.status), onProgress: (p) => progress.push(p) },
    );
    assert.ok(isUuid(pending.taskId));
    assert.equal(pending.status, 'working');
    assert.equal(pending.task?.ttlMs, 30_000);
    while (probe.holding === 0) await sleep(2);
    probe.release();
    const r = await pending.result();
    assert.deepEqual(r.content, [{ type: 'text', text: 'job done' }]);
    assert.deepEqual((r._meta as Record<string, unknown>)[RELATED_TASK_META], { taskId: pending.taskId });
    assert.deepEqual(statuses, ['working', 'completed']);
    assert.equal(pending.status, 'completed');
    assert.deepEqual(
      progress.map((p) => p.progress),
      [1, 2],
    );
  });

  harnessTest('input_required: the handle calls tasks/result and this client answers the elicitation meanwhile', async (h) => {
    const { taskClient } = await setup(h, { client: elicitation });
    const statuses: string[] = [];
    const pending = await taskClient.callToolAsTask({ name: 'job', arguments: { ask: 'elicit' } }, { onStatus: (t) => statuses.push(t.status) });
    const r = await pending.result();
    assert.deepEqual(r.content, [{ type: 'text', text: 'job done: accept Ada' }]);
    assert.deepEqual(statuses.slice(0, 2), ['working', 'input_required']);
    assert.equal(statuses[statuses.length - 1], 'completed');
  });

  harnessTest('cancel() and an aborted signal cancel the task on the server; result() rejects with LocalError cancelled', async (h) => {
    const { taskClient, probe } = await setup(h);
    const statuses: string[] = [];
    const pending = await taskClient.callToolAsTask({ name: 'job', arguments: { hold: true } }, { onStatus: (t) => statuses.push(t.status) });
    while (probe.holding === 0) await sleep(2);
    await pending.cancel();
    await assert.rejects(pending.result(), (e: unknown) => e instanceof LocalError && e.code === 'cancelled');
    assert.deepEqual(statuses, ['working', 'cancelled']);
    assert.equal((await taskClient.getTask(pending.taskId!)).status, 'cancelled');
    const controller = new AbortController();
    const second = await taskClient.callToolAsTask({ name: 'job', arguments: { hold: true } }, { signal: controller.signal });
    while (probe.holding === 0) await sleep(2);
    controller.abort();
    await assert.rejects(second.result(), (e: unknown) => e instanceof LocalError && e.code === 'cancelled');
    assert.equal(probe.aborted.length, 2);
    await pending.cancel(); // a no-op once settled
  });

  harnessTest('failures: a protocol error rejects with that McpError; an isError result resolves, the task failed', async (h) => {
    const { taskClient } = await setup(h);
    const refused = await taskClient.callToolAsTask({ name: 'job', arguments: { fail: 'protocol' } });
    await assert.rejects(refused.result(), (e: unknown) => e instanceof McpError && e.code === -32001 && (e.data as { why: string }).why === 'asked to');
    assert.equal(refused.status, 'failed');
    const toolError = await taskClient.callToolAsTask({ name: 'job', arguments: { fail: 'tool' } });
    assert.equal((await toolError.result()).isError, true);
    assert.equal(toolError.status, 'failed');
    assert.equal(toolError.task?.statusMessage, 'job failed');
  });

  harnessTest('degrades gracefully: a forbidden tool, or a server without tasks, answers directly (no task id)', async (h) => {
    const a = await setup(h);
    const plain = await a.taskClient.callToolAsTask({ name: 'plain', arguments: {} });
    assert.equal(plain.taskId, undefined);
    assert.equal(plain.status, undefined);
    assert.deepEqual((await plain.result()).content, [{ type: 'text', text: 'plain done' }]);
    const b = await setup(h, { server: false });
    const direct = await b.taskClient.callToolAsTask({ name: 'job', arguments: {} });
    assert.equal(direct.taskId, undefined);
    assert.deepEqual((await direct.result()).content, [{ type: 'text', text: 'job done' }]);
  });

  harnessTest('honours the poll interval (and clamps a silly one)', async (h) => {
    const counted = async (pollIntervalMs: number) => {
      const fx = await setup(h, { server: { pollIntervalMs, statusNotifications: false } });
      const counter = { gets: 0 };
      fx.server.use({
        intercept(call, next) {
          if (call.method === 'tasks/get') counter.gets++;
          return next();
        },
      });
      return { ...fx, counter };
    };
    const slow = await counted(100);
    const pending = await slow.taskClient.callToolAsTask({ name: 'job', arguments: { hold: true } });
    await sleep(350);
    assert.ok(slow.counter.gets >= 2 && slow.counter.gets <= 4, `expected about 3 polls in 350 ms at 100 ms, got ${slow.counter.gets}`);
    slow.probe.release();
    await pending.result();
    // A server suggesting 1 ms is held to the requestor's floor.
    const silly = await counted(1);
    const fast = await silly.taskClient.callToolAsTask({ name: 'job', arguments: { hold: true } }, { minPollIntervalMs: 60 });
    assert.equal(fast.task?.pollIntervalMs, 1);
    await sleep(200);
    assert.ok(silly.counter.gets >= 1 && silly.counter.gets <= 4, `a 60 ms floor allows at most 4 polls in 200 ms, got ${silly.counter.gets}`);
    silly.probe.release();
    await fast.result();
  });

  harnessTest('TaskClient wrappers: getTask, getTaskResult, listTasks, cancelTask', async (h) => {
    const { taskClient, probe } = await setup(h);
    const done = await taskClient.callToolAsTask({ name: 'must', arguments: {} });
    await done.result();
    const running = await taskClient.callToolAsTask({ name: 'job', arguments: { hold: true } });
    while (probe.holding === 0) await sleep(2);
    assert.equal((await taskClient.getTask(done.taskId!)).status, 'completed');
    assert.deepEqual((await taskClient.getTaskResult<{ content: unknown }>(done.taskId!)).content, [{ type: 'text', text: 'must done' }]);
    const list = await taskClient.listTasks();
    assert.deepEqual(list.tasks.map((t) => t.taskId).sort(), [done.taskId, running.taskId].sort());
    assert.equal((await taskClient.cancelTask(running.taskId!)).status, 'cancelled');
    await assert.rejects(taskClient.cancelTask(running.taskId!), (e: unknown) => e instanceof McpError && e.code === -32602);
    await assert.rejects(running.result(), (e: unknown) => e instanceof LocalError && e.code === 'cancelled');
    assert.equal(probe.aborted.length, 1);
  });
});

describe('requestor API, draft form (2025-06-18)', () => {
  const draft = (h: Harness) => h.allowViolation(/tasks\/|notifications\/tasks\/created/);

  harnessTest('the requestor picks the id; submitted is reported on creation; polling and the direct answer race', async (h) => {
    draft(h);
    const { taskClient, probe } = await setup(h, { revision: '2025-06-18', server: { pollIntervalMs: 20 } });
    const statuses: string[] = [];
    const pending = await taskClient.callToolAsTask(
      { name: 'job', arguments: { hold: true } },
      { taskId: 'client-chosen', keepAlive: 20_000, onStatus: (t) => statuses.push(t.status) },
    );
    assert.equal(pending.taskId, 'client-chosen');
    while (!statuses.includes('working')) await sleep(5);
    probe.release();
    const r = await pending.result();
    assert.deepEqual(r.content, [{ type: 'text', text: 'job done' }]);
    assert.deepEqual(statuses.slice(0, 2), ['submitted', 'working']);
    const info = await taskClient.getTask('client-chosen');
    assert.equal(info.status, 'completed');
    assert.equal(info.ttlMs, 20_000);
    await taskClient.deleteTask('client-chosen');
    await assert.rejects(taskClient.getTask('client-chosen'), (e: unknown) => e instanceof McpError && e.code === -32602);
  });

  harnessTest('cancel() sends notifications/cancelled for the original request: the task ends cancelled', async (h) => {
    draft(h);
    const { taskClient, probe } = await setup(h, { revision: '2025-06-18' });
    const pending = await taskClient.callToolAsTask({ name: 'job', arguments: { hold: true } });
    assert.ok(isUuid(pending.taskId));
    while (probe.holding === 0) await sleep(2);
    await pending.cancel('stop');
    await assert.rejects(pending.result(), (e: unknown) => e instanceof LocalError && e.code === 'cancelled');
    while (probe.aborted.length === 0) await sleep(2);
    assert.equal((await taskClient.getTask(pending.taskId!)).status, 'cancelled');
  });

  harnessTest('a receiver that does not run the request as a task answers directly; the handle has no task', async (h) => {
    const { taskClient } = await setup(h, { revision: '2025-06-18', server: false });
    const pending = await taskClient.callToolAsTask({ name: 'job', arguments: {} });
    assert.equal(pending.taskId, undefined);
    assert.deepEqual((await pending.result()).content, [{ type: 'text', text: 'job done' }]);
  });

  harnessTest('a task the receiver reports in the unknown state rejects with LocalError invalid_result', async (h) => {
    draft(h);
    const { taskClient, tasks, probe } = await setup(h, { revision: '2025-06-18', server: { pollIntervalMs: 20 } });
    const statuses: string[] = [];
    const pending = await taskClient.callToolAsTask({ name: 'job', arguments: { hold: true } }, { onStatus: (t) => statuses.push(t.status) });
    while (probe.holding === 0) await sleep(2);
    // As the store's recovery does for a draft task whose process died.
    await tasks!.store.update(pending.taskId!, { status: 'unknown', statusMessage: 'lost track of it' });
    await assert.rejects(pending.result(), (e: unknown) => e instanceof LocalError && e.code === 'invalid_result' && /lost track of it/.test(e.message));
    assert.equal(statuses[statuses.length - 1], 'unknown');
    const info = await taskClient.getTask(pending.taskId!);
    assert.equal(info.status, 'unknown');
    assert.equal(info.raw.error, 'lost track of it');
    probe.release();
  });

  harnessTest('a protocol error arrives as the direct answer', async (h) => {
    draft(h);
    const { taskClient } = await setup(h, { revision: '2025-06-18' });
    const pending = await taskClient.callToolAsTask({ name: 'job', arguments: { fail: 'protocol' } });
    await assert.rejects(pending.result(), (e: unknown) => e instanceof McpError && e.code === -32001);
  });
});

describe('requestor API on the server: task-augmented sampling and elicitation', () => {
  harnessTest('createMessageAsTask and elicitAsTask to a TaskClient receiver (2025-11-25)', async (h) => {
    const { tasks, session } = await setup(h, { client: { ...sampling, ...elicitation } });
    const statuses: string[] = [];
    const sample = await tasks!.createMessageAsTask(
      session,
      { messages: [{ role: 'user', content: { type: 'text', text: 'x' } }], maxTokens: 5 },
      { onStatus: (t) => statuses.push(t.status) },
    );
    assert.ok(isUuid(sample.taskId));
    const r = await sample.result();
    assert.equal(r.model, 'm');
    assert.equal(statuses[0], 'working');
    assert.equal(statuses[statuses.length - 1], 'completed');
    const ask = await tasks!.elicitAsTask(session, { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
    assert.ok(ask.taskId);
    assert.deepEqual((await ask.result()).content, { name: 'Ada' });
    await assert.rejects(
      tasks!.elicitAsTask(session, { message: 'bad', requestedSchema: { type: 'object', properties: { nested: { type: 'object' } } } as never }),
      (e: unknown) => e instanceof LocalError && e.code === 'validation_failed',
    );
  });

  harnessTest('to a client without task support the request is sent plainly', async (h) => {
    const fx = taskFixture();
    const { session } = await h.client(fx.server, sampling);
    const plain = await fx.tasks!.createMessageAsTask(session, { messages: [{ role: 'user', content: { type: 'text', text: 'x' } }], maxTokens: 5 });
    assert.equal(plain.taskId, undefined);
    assert.equal((await plain.result()).model, 'm');
  });

  harnessTest('draft form: the server picks the id and the mcpkit client runs the sampling as a draft task', async (h) => {
    h.allowViolation(/tasks\/|notifications\/tasks\/created/);
    const { tasks, session } = await setup(h, { revision: '2025-06-18', client: sampling });
    const statuses: string[] = [];
    const sample = await tasks!.createMessageAsTask(
      session,
      { messages: [{ role: 'user', content: { type: 'text', text: 'x' } }], maxTokens: 5 },
      { taskId: 'srv-chosen', onStatus: (t) => statuses.push(t.status) },
    );
    assert.equal(sample.taskId, 'srv-chosen');
    assert.equal((await sample.result()).model, 'm');
    assert.equal(statuses[0], 'submitted');
  });
});
