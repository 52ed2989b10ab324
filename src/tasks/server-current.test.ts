/**
 * Task-augmented `tools/call` in the 2025-11-25 form, as raw JSON-RPC transcripts against a
 * server with {@link TaskServer}; every message the server emits is checked against the
 * 2025-11-25 schema by the transcript harness (CreateTaskResult for task-augmented calls).
 * Spec: 2025-11-25 › Basic › Utilities › Tasks (capabilities, tool-level negotiation, status
 * lifecycle, input_required, result retrieval, cancellation, listing, errors, isolation).
 */
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { Capture, isIso, isUuid, related, sleep, TransitionLog, taskFixture } from '../../test/helpers/task-fixture.js';
import { error, type Harness, harnessTest, includes, isText, matches, notification, request, result } from '../../test/transcripts/harness.js';
import { ownerByConnection, TASK_CANCELLED_CODE, type TaskServerOptions } from './index.js';

const LATEST = '2025-11-25';

async function connect(h: Harness, options: TaskServerOptions = {}, capabilities = {}) {
  const log = new TransitionLog();
  const fx = taskFixture({ store: log, ...options });
  const c = await h.raw(fx.server);
  await c.init(LATEST, capabilities);
  return { ...fx, c, log };
}

/** A `notifications/tasks/status` expectation for the captured task. */
function status(id: Capture, value: string, more: object = {}) {
  return notification('notifications/tasks/status', {
    taskId: id.is,
    status: value,
    createdAt: isIso,
    lastUpdatedAt: isIso,
    ttl: 60_000,
    ...more,
    _meta: undefined,
  });
}

describe('tasks, 2025-11-25 form, server side', () => {
  harnessTest('capabilities declare tasks per request type; tools declare execution.taskSupport', async (h) => {
    const { server } = taskFixture();
    const c = await h.raw(server);
    await c.run([
      { send: request(0, 'initialize', { protocolVersion: LATEST, capabilities: {}, clientInfo: { name: 't', version: '1' } }) },
      { expect: result(0, { capabilities: { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } }, tools: {} } }) },
      { send: notification('notifications/initialized') },
      { send: request(1, 'tools/list') },
      {
        expect: result(1, {
          tools: includes(
            (t) => t.name === 'job' && t.execution.taskSupport === 'optional',
            (t) => t.name === 'must' && t.execution.taskSupport === 'required',
            (t) => t.name === 'plain' && t.execution === undefined,
          ),
        }),
      },
    ]);
  });

  harnessTest('working → completed: CreateTaskResult at once, progress and logs after it, status notification, tasks/get, tasks/result', async (h) => {
    const { c, probe, log } = await connect(h);
    const id = new Capture();
    await c.run([
      {
        send: request(1, 'tools/call', {
          name: 'job',
          arguments: { progress: true, log: true, hold: true },
          task: { ttl: 60_000 },
          _meta: { progressToken: 'p1' },
        }),
      },
      {
        expect: result(1, {
          task: { taskId: id.set, status: 'working', ttl: 60_000, pollInterval: 20, createdAt: isIso, lastUpdatedAt: isIso },
          content: undefined,
        }),
      },
      // The work runs outside the request: its log and progress come after the answer.
      { expect: notification('notifications/message', { level: 'info', logger: 'job', data: 'job started', _meta: related(id) }) },
      { expect: notification('notifications/progress', { progressToken: 'p1', progress: 1, total: 2, message: 'half way', _meta: related(id) }) },
    ]);
    assert.ok(isUuid(id.value), 'an unbound task gets an unguessable id');
    await c.run([
      { send: request(2, 'tasks/get', { taskId: id.value }) },
      { expect: result(2, { taskId: id.value, status: 'working', ttl: 60_000, pollInterval: 20, createdAt: isIso, lastUpdatedAt: isIso, _meta: undefined }) },
    ]);
    probe.release();
    await c.run([
      { expect: notification('notifications/progress', { progressToken: 'p1', progress: 2, total: 2, _meta: related(id) }) },
      { expect: status(id, 'completed', { pollInterval: 20 }) },
      { send: request(3, 'tasks/get', { taskId: id.value }) },
      { expect: result(3, { taskId: id.value, status: 'completed' }) },
      { send: request(4, 'tasks/result', { taskId: id.value }) },
      { expect: result(4, { content: [{ type: 'text', text: 'job done' }], isError: undefined, _meta: related(id) }) },
      // The result may be fetched again while the task is retained.
      { send: request(5, 'tasks/result', { taskId: id.value }) },
      { expect: result(5, { content: [{ type: 'text', text: 'job done' }] }) },
    ]);
    assert.equal(probe.started, 1);
    assert.deepEqual(log.of(id.value), ['working', 'completed']);
  });

  harnessTest('tasks/result blocks until the task ends, then answers exactly the original result', async (h) => {
    const { c, probe } = await connect(h);
    const id = new Capture();
    await c.run([
      { send: request(1, 'tools/call', { name: 'job', arguments: { hold: true }, task: {} }) },
      { expect: result(1, { task: { taskId: id.set, status: 'working', ttl: 3_600_000 } }) },
    ]);
    await c.run([{ send: request(2, 'tasks/result', { taskId: id.value }) }, { expectSilence: 60 }]);
    probe.release();
    await c.run([
      {
        expectAnyOrder: [status(id, 'completed', { ttl: 3_600_000 }), result(2, { content: [{ type: 'text', text: 'job done' }], _meta: related(id) })],
      },
    ]);
  });

  harnessTest('input_required while the work waits on an elicitation it sent (with related-task metadata), then working, then completed', async (h) => {
    const { c, log } = await connect(h, {}, { elicitation: {} });
    const id = new Capture();
    const ask = new Capture();
    await c.run([
      { send: request(1, 'tools/call', { name: 'job', arguments: { ask: 'elicit' }, task: { ttl: 60_000 } }) },
      { expect: result(1, { task: { taskId: id.set, status: 'working' } }) },
      { expect: status(id, 'input_required') },
      {
        expect: {
          jsonrpc: '2.0',
          id: (v: unknown) => ask.set(String(v)),
          method: 'elicitation/create',
          params: { mode: 'form', message: 'Your name?', requestedSchema: { type: 'object' }, _meta: related(id) },
        },
      },
    ]);
    await c.run([
      { send: request(2, 'tasks/get', { taskId: id.value }) },
      { expect: result(2, { status: 'input_required' }) },
      { send: { jsonrpc: '2.0', id: Number(ask.value), result: { action: 'accept', content: { name: 'Ada' } } } },
      { expect: status(id, 'working') },
      { expect: status(id, 'completed') },
      { send: request(3, 'tasks/result', { taskId: id.value }) },
      { expect: result(3, { content: [{ type: 'text', text: 'job done: accept Ada' }], _meta: related(id) }) },
    ]);
    assert.deepEqual(log.of(id.value), ['working', 'input_required', 'working', 'completed']);
  });

  harnessTest('cancelling while input_required cancels the pending elicitation too (notifications/cancelled to the client)', async (h) => {
    const { c, probe, log } = await connect(h, {}, { elicitation: {} });
    const id = new Capture();
    const ask = new Capture();
    await c.run([
      { send: request(1, 'tools/call', { name: 'job', arguments: { ask: 'elicit' }, task: {} }) },
      { expect: result(1, { task: { taskId: id.set } }) },
      { expect: status(id, 'input_required', { ttl: 3_600_000 }) },
      { expect: { jsonrpc: '2.0', id: (v: unknown) => ask.set(String(v)), method: 'elicitation/create' } },
    ]);
    await c.run([
      { send: request(2, 'tasks/cancel', { taskId: id.value }) },
      {
        expectAnyOrder: [
          notification('notifications/cancelled', { requestId: Number(ask.value) }),
          status(id, 'cancelled', { ttl: 3_600_000 }),
          result(2, { status: 'cancelled' }),
        ],
      },
      // A late answer to the cancelled elicitation is disregarded.
      { send: { jsonrpc: '2.0', id: Number(ask.value), result: { action: 'accept', content: { name: 'late' } } } },
      { send: request(3, 'tasks/get', { taskId: id.value }) },
      { expect: result(3, { status: 'cancelled' }) },
    ]);
    assert.deepEqual(log.of(id.value), ['working', 'input_required', 'cancelled']);
    assert.equal(probe.aborted.length, 1);
  });

  harnessTest('input_required for sampling too; the sampling request carries the related-task metadata', async (h) => {
    const { c } = await connect(h, { statusNotifications: false }, { sampling: {} });
    const id = new Capture();
    const ask = new Capture();
    await c.run([
      { send: request(1, 'tools/call', { name: 'job', arguments: { ask: 'sample' }, task: {} }) },
      { expect: result(1, { task: { taskId: id.set } }) },
      { expect: { jsonrpc: '2.0', id: (v: unknown) => ask.set(String(v)), method: 'sampling/createMessage', params: { maxTokens: 10, _meta: related(id) } } },
    ]);
    await c.run([
      { send: request(2, 'tasks/get', { taskId: id.value }) },
      { expect: result(2, { status: 'input_required' }) },
      { send: { jsonrpc: '2.0', id: Number(ask.value), result: { role: 'assistant', model: 'm1', content: { type: 'text', text: 'hi' } } } },
      { send: request(3, 'tasks/result', { taskId: id.value }) },
      { expect: result(3, { content: [{ type: 'text', text: 'job done: m1 said hi' }] }) },
      { send: request(4, 'tasks/get', { taskId: id.value }) },
      { expect: result(4, { status: 'completed' }) },
    ]);
  });

  harnessTest('an isError tool result ends the task failed; tasks/result still answers that result', async (h) => {
    const { c, log } = await connect(h);
    const id = new Capture();
    await c.run([
      { send: request(1, 'tools/call', { name: 'job', arguments: { fail: 'tool' }, task: { ttl: 60_000 } }) },
      { expect: result(1, { task: { taskId: id.set, status: 'working' } }) },
      { expect: status(id, 'failed', { statusMessage: 'job failed' }) },
    ]);
    await c.run([
      { send: request(2, 'tasks/result', { taskId: id.value }) },
      { expect: result(2, { isError: true, content: [{ type: 'text', text: 'job failed' }], _meta: related(id) }) },
    ]);
    assert.deepEqual(log.of(id.value), ['working', 'failed']);
  });

  harnessTest('a protocol error ends the task failed; tasks/result answers that same JSON-RPC error', async (h) => {
    const { c } = await connect(h);
    const id = new Capture();
    await c.run([
      { send: request(1, 'tools/call', { name: 'job', arguments: { fail: 'protocol' }, task: { ttl: 60_000 } }) },
      { expect: result(1, { task: { taskId: id.set } }) },
      { expect: status(id, 'failed', { statusMessage: 'job refused' }) },
    ]);
    await c.run([
      { send: request(2, 'tasks/result', { taskId: id.value }) },
      { expect: { jsonrpc: '2.0', id: 2, error: { code: -32001, message: 'job refused', data: { why: 'asked to' } } } },
      { send: request(3, 'tasks/get', { taskId: id.value }) },
      { expect: result(3, { status: 'failed', statusMessage: 'job refused' }) },
    ]);
  });

  harnessTest('tasks/cancel aborts the work through its signal; cancelled is final; cancelling again is -32602', async (h) => {
    const { c, probe, log } = await connect(h);
    const id = new Capture();
    await c.run([
      { send: request(1, 'tools/call', { name: 'job', arguments: { hold: true }, task: { ttl: 60_000 } }) },
      { expect: result(1, { task: { taskId: id.set } }) },
    ]);
    while (probe.holding === 0) await sleep(2);
    await c.run([
      { send: request(2, 'tasks/cancel', { taskId: id.value }) },
      {
        expectAnyOrder: [
          status(id, 'cancelled', { statusMessage: 'The task was cancelled by request.' }),
          result(2, { taskId: id.value, status: 'cancelled', statusMessage: 'The task was cancelled by request.', _meta: undefined }),
        ],
      },
    ]);
    assert.deepEqual(probe.aborted, ['The task was cancelled by request.']);
    await sleep(20); // the aborted work has ended by now; its outcome must not change the task
    await c.run([
      { send: request(3, 'tasks/get', { taskId: id.value }) },
      { expect: result(3, { status: 'cancelled' }) },
      { send: request(4, 'tasks/cancel', { taskId: id.value }) },
      { expect: error(4, -32602, { message: "Cannot cancel task: already in terminal status 'cancelled'" }) },
      { send: request(5, 'tasks/result', { taskId: id.value }) },
      { expect: error(5, TASK_CANCELLED_CODE, { message: matches(/cancelled/) }) },
    ]);
    assert.deepEqual(log.of(id.value), ['working', 'cancelled']);
  });

  harnessTest('notifications/cancelled for the creating request does not cancel a 2025-11-25 task', async (h) => {
    const { c, probe } = await connect(h);
    const id = new Capture();
    await c.run([
      { send: request(1, 'tools/call', { name: 'job', arguments: { hold: true }, task: { ttl: 60_000 } }) },
      { expect: result(1, { task: { taskId: id.set } }) },
      { send: notification('notifications/cancelled', { requestId: 1, reason: 'too late' }) },
    ]);
    probe.release();
    await c.run([{ expect: status(id, 'completed') }]);
    assert.deepEqual(probe.aborted, []);
  });

  harnessTest('the work outlives its connection: progress and logs stop, the result waits for a new connection', async (h) => {
    const { server, probe } = taskFixture();
    const first = await h.raw(server);
    await first.init(LATEST);
    const id = new Capture();
    await first.run([
      { send: request(1, 'tools/call', { name: 'job', arguments: { hold: true, progress: true, log: true }, task: {}, _meta: { progressToken: 'gone' } }) },
      { expect: result(1, { task: { taskId: id.set } }) },
    ]);
    while (probe.holding === 0) await sleep(2);
    await first.end.close();
    await sleep(5);
    probe.release();
    const second = await h.raw(server);
    await second.init(LATEST);
    await second.run([
      { send: request(1, 'tasks/result', { taskId: id.value }) },
      { expect: result(1, { content: [{ type: 'text', text: 'job done' }], _meta: related(id) }) },
    ]);
    assert.deepEqual(probe.aborted, []);
  });

  harnessTest('tool-level negotiation and every protocol error of the form', async (h) => {
    const { c } = await connect(h, { maxTtlMs: 120_000 });
    const done = new Capture();
    await c.run([
      // forbidden (no execution member) + task: -32601; required without a task: -32601.
      { send: request(1, 'tools/call', { name: 'plain', arguments: {}, task: {} }) },
      { expect: error(1, -32601, { message: matches(/plain.*forbidden/) }) },
      { send: request(2, 'tools/call', { name: 'must', arguments: {} }) },
      { expect: error(2, -32601, { message: matches(/must.*required/) }) },
      { send: request(3, 'tools/call', { name: 'plain', arguments: {} }) },
      { expect: result(3, { content: [{ type: 'text', text: 'plain done' }] }) },
      // an unknown tool stays -32602, task or not
      { send: request(4, 'tools/call', { name: 'nope', arguments: {}, task: {} }) },
      { expect: error(4, -32602, { message: matches(/nope/) }) },
      // ttl must be a non-negative integer; a longer one is shortened to the maximum
      { send: request(5, 'tools/call', { name: 'must', arguments: {}, task: { ttl: -1 } }) },
      { expect: error(5, -32602, { message: matches(/task\.ttl/) }) },
      { send: request(6, 'tools/call', { name: 'must', arguments: {}, task: { ttl: 'soon' } }) },
      { expect: error(6, -32602, { message: matches(/task\.ttl/) }) },
      { send: request(7, 'tools/call', { name: 'must', arguments: {}, task: { ttl: 999_999_999 } }) },
      { expect: result(7, { task: { taskId: done.set, status: 'working', ttl: 120_000 } }) },
      { expect: status(done, 'completed', { ttl: 120_000 }) },
      // unknown ids
      { send: request(8, 'tasks/get', { taskId: 'no-such-task' }) },
      { expect: error(8, -32602, { message: 'Failed to retrieve task: Task not found' }) },
      { send: request(9, 'tasks/result', { taskId: 'no-such-task' }) },
      { expect: error(9, -32602, { message: 'Failed to retrieve task: Task not found' }) },
      { send: request(10, 'tasks/cancel', { taskId: 'no-such-task' }) },
      { expect: error(10, -32602, { message: 'Failed to retrieve task: Task not found' }) },
      // malformed params, a foreign cursor, a method of the other form
      { send: request(11, 'tasks/get', {}) },
      { expect: error(11, -32602, { message: matches(/taskId/) }) },
      { send: request(12, 'tasks/list', { cursor: 'made-up' }) },
      { expect: error(12, -32602, { message: matches(/cursor/) }) },
      { send: request(13, 'tasks/delete', { taskId: 'x' }) },
      { expect: error(13, -32601) },
    ]);
    await c.run([
      { send: request(14, 'tasks/cancel', { taskId: done.value }) },
      { expect: error(14, -32602, { message: "Cannot cancel task: already in terminal status 'completed'" }) },
    ]);
  });

  harnessTest('tasks/list pages through the requestor’s tasks with opaque cursors', async (h) => {
    const { c } = await connect(h, { pageSize: 2, statusNotifications: false });
    const ids = [new Capture(), new Capture(), new Capture()];
    await c.run(
      ids.flatMap((id, i) => [
        { send: request(i + 1, 'tools/call', { name: 'must', arguments: {}, task: {} }) },
        { expect: result(i + 1, { task: { taskId: id.set } }) },
      ]),
    );
    const cursor = new Capture();
    await c.run([
      { send: request(10, 'tasks/list') },
      { expect: result(10, { tasks: [{ taskId: ids[0]!.is, status: isText }, { taskId: ids[1]!.is }], nextCursor: cursor.set }) },
    ]);
    await c.run([
      { send: request(11, 'tasks/list', { cursor: cursor.value }) },
      { expect: result(11, { tasks: [{ taskId: ids[2]!.is, createdAt: isIso }], nextCursor: undefined }) },
    ]);
  });

  harnessTest('at most maxActiveTasksPerOwner unfinished tasks: the next one is refused with a clear -32600', async (h) => {
    const { c, probe } = await connect(h, { maxActiveTasksPerOwner: 2, statusNotifications: false });
    await c.run([
      { send: request(1, 'tools/call', { name: 'job', arguments: { hold: true }, task: {} }) },
      { expect: result(1, { task: { status: 'working' } }) },
      { send: request(2, 'tools/call', { name: 'job', arguments: { hold: true }, task: {} }) },
      { expect: result(2, { task: { status: 'working' } }) },
      { send: request(3, 'tools/call', { name: 'job', arguments: { hold: true }, task: {} }) },
      { expect: error(3, -32600, { message: matches(/Too many unfinished tasks.*limit 2/) }) },
    ]);
    while (probe.holding < 2) await sleep(2);
    probe.release();
    while (probe.holding > 1) await sleep(2);
    await sleep(5);
    await c.run([{ send: request(4, 'tools/call', { name: 'job', arguments: {}, task: {} }) }, { expect: result(4, { task: { status: 'working' } }) }]);
    probe.release();
  });

  harnessTest('expiry: a task is gone ttl ms after creation, swept from the store, and its running work aborted', async (h) => {
    const { c, probe, tasks } = await connect(h, { minTtlMs: 0, statusNotifications: false });
    const quick = new Capture();
    const slow = new Capture();
    await c.run([
      { send: request(1, 'tools/call', { name: 'must', arguments: {}, task: { ttl: 40 } }) },
      { expect: result(1, { task: { taskId: quick.set, ttl: 40 } }) },
      { send: request(2, 'tools/call', { name: 'job', arguments: { hold: true }, task: { ttl: 40 } }) },
      { expect: result(2, { task: { taskId: slow.set } }) },
    ]);
    await sleep(60);
    assert.equal(await tasks!.engine.sweep(), 2);
    assert.deepEqual(probe.aborted, ['The task expired']);
    await c.run([
      { send: request(3, 'tasks/get', { taskId: quick.value }) },
      { expect: error(3, -32602, { message: 'Failed to retrieve task: Task not found' }) },
      { send: request(4, 'tasks/result', { taskId: slow.value }) },
      { expect: error(4, -32602) },
      { send: request(5, 'tasks/list') },
      { expect: result(5, { tasks: [] }) },
    ]);
  });

  harnessTest('isolation: another auth context gets the same error for a task as for an unknown id, and lists nothing', async (h) => {
    const { server } = taskFixture({ statusNotifications: false });
    const alice = await h.raw(server);
    alice.end.info = { authInfo: { token: 'alice-token', clientId: 'app' } };
    const bob = await h.raw(server);
    bob.end.info = { authInfo: { token: 'bob-token', clientId: 'app' } };
    await alice.init(LATEST);
    await bob.init(LATEST);
    const id = new Capture();
    await alice.run([{ send: request(1, 'tools/call', { name: 'must', arguments: {}, task: {} }) }, { expect: result(1, { task: { taskId: id.set } }) }]);
    const { received } = await bob.run([
      { send: request(1, 'tasks/get', { taskId: id.value }) },
      { expect: error(1, -32602) },
      { send: request(2, 'tasks/get', { taskId: 'never-existed' }) },
      { expect: error(2, -32602) },
      { send: request(3, 'tasks/result', { taskId: id.value }) },
      { expect: error(3, -32602) },
      { send: request(4, 'tasks/cancel', { taskId: id.value }) },
      { expect: error(4, -32602) },
      { send: request(5, 'tasks/list') },
      { expect: result(5, { tasks: [] }) },
    ]);
    const [foreign, unknown] = received as Array<{ error: unknown }>;
    assert.deepEqual(foreign!.error, unknown!.error, 'a foreign task is indistinguishable from an unknown one');
    await alice.run([
      { send: request(2, 'tasks/result', { taskId: id.value }) },
      { expect: result(2, { content: [{ type: 'text', text: 'must done' }] }) },
      { send: request(3, 'tasks/list') },
      { expect: result(3, { tasks: [{ taskId: id.value }] }) },
    ]);
  });

  harnessTest('isolation per connection with ownerByConnection, for unauthenticated in-process clients', async (h) => {
    const { server } = taskFixture({ statusNotifications: false, ownerOf: ownerByConnection });
    const one = await h.raw(server);
    const two = await h.raw(server);
    await one.init(LATEST);
    await two.init(LATEST);
    const id = new Capture();
    await one.run([{ send: request(1, 'tools/call', { name: 'must', arguments: {}, task: {} }) }, { expect: result(1, { task: { taskId: id.set } }) }]);
    await two.run([
      { send: request(1, 'tasks/get', { taskId: id.value }) },
      { expect: error(1, -32602, { message: 'Failed to retrieve task: Task not found' }) },
    ]);
    await one.run([{ send: request(2, 'tasks/get', { taskId: id.value }) }, { expect: result(2, { taskId: id.value }) }]);
  });

  harnessTest('a server without task support processes a task-augmented call normally; tasks/* are -32601', async (h) => {
    const { server } = taskFixture(false);
    // The recorder checks every answer to a request with params.task as CreateTaskResult; a
    // receiver that declared no task support answers normally, as the spec requires.
    h.allowViolation(/tools\/call result \(CreateTaskResult\): \/result must have required property 'task'/);
    const c = await h.raw(server);
    await c.init(LATEST);
    await c.run([
      { send: request(1, 'tools/call', { name: 'job', arguments: {}, task: { ttl: 1000 } }) },
      { expect: result(1, { content: [{ type: 'text', text: 'job done' }], task: undefined }) },
      { send: request(2, 'tasks/get', { taskId: 'x' }) },
      { expect: error(2, -32601) },
    ]);
  });
});

describe('tasks, 2025-11-25 form, shutdown', () => {
  harnessTest('closing the TaskServer ends running tasks as failed, truthfully', async (h) => {
    const { c, tasks, probe } = await connect(h);
    const id = new Capture();
    await c.run([
      { send: request(1, 'tools/call', { name: 'job', arguments: { hold: true }, task: {} }) },
      { expect: result(1, { task: { taskId: id.set } }) },
    ]);
    while (probe.holding === 0) await sleep(2);
    await tasks!.close();
    await c.run([
      { expect: status(id, 'failed', { ttl: 3_600_000, statusMessage: matches(/shut down/) }) },
      { send: request(2, 'tasks/result', { taskId: id.value }) },
      { expect: error(2, -32603, { message: matches(/shut down/) }) },
      { send: request(3, 'tools/call', { name: 'must', arguments: {}, task: {} }) },
      { expect: error(3, -32603) },
    ]);
    assert.equal(probe.aborted.length, 1);
  });
});
