/**
 * The draft form of tasks (`seps/sep-1686-tasks.md`) on connections that negotiated a
 * revision before 2025-11-25, as raw JSON-RPC transcripts against a server with
 * {@link TaskServer}. The draft's messages are not in those revisions' schemas, so the
 * harness is told to expect exactly those (and only those) schema complaints.
 * Spec: SEP-1686 §3 (messages), §4 (behaviour: status lifecycle, keepAlive, result
 * retrieval, cancellation, listing, deletion), §7 (errors).
 */
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { sleep, TransitionLog, taskFixture } from '../../test/helpers/task-fixture.js';
import { error, type Harness, harnessTest, matches, notification, request, result } from '../../test/transcripts/harness.js';
import type { TaskServerOptions } from './index.js';

const TASK = 'modelcontextprotocol.io/task';
const RELATED = 'modelcontextprotocol.io/related-task';
const rel = (taskId: string) => ({ [RELATED]: { taskId } });

/** The schema complaints a draft transcript causes: its methods do not exist in the revision. */
function allowDraftMessages(h: Harness): void {
  h.allowViolation(/tasks\/|notifications\/tasks\/created/);
}

async function connect(h: Harness, revision = '2025-06-18', options: TaskServerOptions = {}, capabilities = {}, draftMessages = options.draft !== false) {
  if (draftMessages) allowDraftMessages(h);
  const log = new TransitionLog();
  const fx = taskFixture({ store: log, ...options });
  const c = await h.raw(fx.server);
  await c.init(revision, capabilities);
  return { ...fx, c, log };
}

const call = (id: number, taskId: string | undefined, args: object, more: object = {}, name = 'job') =>
  request(id, 'tools/call', { name, arguments: args as never, _meta: { ...(taskId === undefined ? {} : { [TASK]: { taskId, ...more } }) } });

describe('tasks, draft form, server side', () => {
  harnessTest(
    'submitted → working → completed: created notification, then the normal response; tasks/get, tasks/result, tasks/list, tasks/delete',
    async (h) => {
      const { c, probe, log } = await connect(h);
      await c.run([
        {
          send: request(1, 'tools/call', {
            name: 'job',
            arguments: { hold: true, progress: true },
            _meta: { progressToken: 'p', [TASK]: { taskId: 'mine-1', keepAlive: 30_000 } },
          }),
        },
        { expect: notification('notifications/tasks/created', { _meta: rel('mine-1') }) },
        { expect: notification('notifications/progress', { progressToken: 'p', progress: 1, _meta: rel('mine-1') }) },
        { send: request(2, 'tasks/get', { taskId: 'mine-1', _meta: rel('mine-1') }) },
        { expect: result(2, { taskId: 'mine-1', status: 'working', keepAlive: 30_000, pollFrequency: 20, error: undefined, _meta: rel('mine-1') }) },
        // §4.6: results only for a completed task; an error for every other status.
        { send: request(3, 'tasks/result', { taskId: 'mine-1' }) },
        { expect: error(3, -32602, { message: "Cannot retrieve result: Task status is 'working', not 'completed'" }) },
        // §4.10: deleting a running task is refused here; tasks/cancel does not exist in the draft.
        { send: request(4, 'tasks/delete', { taskId: 'mine-1' }) },
        { expect: error(4, -32602, { message: matches(/status is 'working'/) }) },
        { send: request(5, 'tasks/cancel', { taskId: 'mine-1' }) },
        { expect: error(5, -32601) },
      ]);
      probe.release();
      await c.run([
        { expect: notification('notifications/progress', { progressToken: 'p', progress: 2 }) },
        { expect: result(1, { content: [{ type: 'text', text: 'job done' }], _meta: rel('mine-1') }) },
        { send: request(6, 'tasks/get', { taskId: 'mine-1' }) },
        { expect: result(6, { taskId: 'mine-1', status: 'completed', keepAlive: 30_000 }) },
        { send: request(7, 'tasks/result', { taskId: 'mine-1' }) },
        { expect: result(7, { content: [{ type: 'text', text: 'job done' }], _meta: rel('mine-1') }) },
        { send: request(8, 'tasks/list') },
        { expect: result(8, { tasks: [{ taskId: 'mine-1', status: 'completed', keepAlive: 30_000, pollFrequency: 20 }], nextCursor: undefined }) },
        { send: request(9, 'tasks/delete', { taskId: 'mine-1' }) },
        { expect: result(9, { _meta: rel('mine-1') }) },
        { send: request(10, 'tasks/get', { taskId: 'mine-1' }) },
        { expect: error(10, -32602, { message: 'Failed to retrieve task: Task not found' }) },
      ]);
      assert.deepEqual(log.of('mine-1'), ['submitted', 'working', 'completed']);
    },
  );

  harnessTest('input_required while the work waits on an elicitation, which carries the draft related-task metadata', async (h) => {
    const { c, log } = await connect(h, '2025-06-18', {}, { elicitation: {} });
    const { received } = await c.run([
      { send: call(1, 'ask-1', { ask: 'elicit' }) },
      { expect: notification('notifications/tasks/created', { _meta: rel('ask-1') }) },
      { expect: { jsonrpc: '2.0', method: 'elicitation/create', params: { message: 'Your name?', mode: undefined, _meta: rel('ask-1') } } },
      { send: request(2, 'tasks/get', { taskId: 'ask-1' }) },
      { expect: result(2, { status: 'input_required' }) },
    ]);
    const ask = (received[1] as { id: number }).id;
    await c.run([
      { send: { jsonrpc: '2.0', id: ask, result: { action: 'accept', content: { name: 'Grace' } } } },
      { expect: result(1, { content: [{ type: 'text', text: 'job done: accept Grace' }], _meta: rel('ask-1') }) },
    ]);
    assert.deepEqual(log.of('ask-1'), ['submitted', 'working', 'input_required', 'working', 'completed']);
  });

  harnessTest('cancellation through notifications/cancelled of the original request: cancelled, work aborted, no response', async (h) => {
    const { c, probe, log } = await connect(h);
    await c.run([{ send: call(1, 'c-1', { hold: true }) }, { expect: notification('notifications/tasks/created', { _meta: rel('c-1') }) }]);
    while (probe.holding === 0) await sleep(2);
    await c.run([
      { send: notification('notifications/cancelled', { requestId: 1, reason: 'changed my mind' }) },
      { expectSilence: 40 },
      { send: request(2, 'tasks/get', { taskId: 'c-1' }) },
      { expect: result(2, { taskId: 'c-1', status: 'cancelled' }) },
      { send: request(3, 'tasks/result', { taskId: 'c-1' }) },
      { expect: error(3, -32602, { message: matches(/'cancelled', not 'completed'/) }) },
      // §4.8.3: a cancellation after the end is ignored; the task stays as it was.
      { send: notification('notifications/cancelled', { requestId: 1 }) },
      { send: request(4, 'tasks/delete', { taskId: 'c-1' }) },
      { expect: result(4, { _meta: rel('c-1') }) },
    ]);
    assert.equal(probe.aborted.length, 1);
    assert.deepEqual(log.of('c-1'), ['submitted', 'working', 'cancelled']);
  });

  harnessTest('a failing request ends failed with an error message; an isError tool result ends completed', async (h) => {
    const { c, log } = await connect(h);
    await c.run([
      { send: call(1, 'f-1', { fail: 'protocol' }) },
      { expect: notification('notifications/tasks/created', { _meta: rel('f-1') }) },
      { expect: { jsonrpc: '2.0', id: 1, error: { code: -32001, message: 'job refused', data: { why: 'asked to' } } } },
      { send: request(2, 'tasks/get', { taskId: 'f-1' }) },
      { expect: result(2, { status: 'failed', error: 'job refused' }) },
      { send: call(3, 'f-2', { fail: 'tool' }) },
      { expect: notification('notifications/tasks/created', { _meta: rel('f-2') }) },
      { expect: result(3, { isError: true, content: [{ type: 'text', text: 'job failed' }], _meta: rel('f-2') }) },
      { send: request(4, 'tasks/get', { taskId: 'f-2' }) },
      { expect: result(4, { status: 'completed', error: undefined }) },
      { send: request(5, 'tasks/result', { taskId: 'f-2' }) },
      { expect: result(5, { isError: true }) },
    ]);
    assert.deepEqual(log.of('f-1'), ['submitted', 'working', 'failed']);
    assert.deepEqual(log.of('f-2'), ['submitted', 'working', 'completed']);
  });

  harnessTest('errors: duplicate task id, malformed task metadata, unknown task, bad cursor, keepAlive rules', async (h) => {
    const { c } = await connect(h, '2025-06-18', { maxTtlMs: 50_000 });
    await c.run([
      { send: call(1, 'same', {}) },
      { expect: notification('notifications/tasks/created', { _meta: rel('same') }) },
      { expect: result(1, { content: [{ type: 'text', text: 'job done' }] }) },
      { send: call(2, 'same', {}) },
      { expect: error(2, -32602, { message: 'Task ID already exists: same' }) },
      { send: request(3, 'tools/call', { name: 'job', arguments: {}, _meta: { [TASK]: { taskId: 42 } } }) },
      { expect: error(3, -32602, { message: matches(/taskId/) }) },
      { send: call(4, 'neg', {}, { keepAlive: -5 }) },
      { expect: error(4, -32602, { message: matches(/keepAlive/) }) },
      { send: request(5, 'tasks/get', { taskId: 'nobody' }) },
      { expect: error(5, -32602, { message: 'Failed to retrieve task: Task not found' }) },
      { send: request(6, 'tasks/result', { taskId: 'nobody' }) },
      { expect: error(6, -32602) },
      { send: request(7, 'tasks/delete', { taskId: 'nobody' }) },
      { expect: error(7, -32602) },
      { send: request(8, 'tasks/list', { cursor: 'nope' }) },
      { expect: error(8, -32602) },
      // keepAlive: unlimited and too long are both shortened to the maximum (§4.5.1)
      { send: call(9, 'forever', {}, { keepAlive: null }) },
      { expect: notification('notifications/tasks/created', { _meta: rel('forever') }) },
      { expect: result(9, {}) },
      { send: request(10, 'tasks/get', { taskId: 'forever' }) },
      { expect: result(10, { keepAlive: 50_000 }) },
    ]);
  });

  harnessTest('keepAlive null is kept unlimited when the server allows it', async (h) => {
    const { c } = await connect(h, '2025-06-18', { maxTtlMs: null });
    await c.run([
      { send: call(1, 'forever', {}, { keepAlive: null }) },
      { expect: notification('notifications/tasks/created', { _meta: rel('forever') }) },
      { expect: result(1, {}) },
      { send: request(2, 'tasks/get', { taskId: 'forever' }) },
      { expect: result(2, { keepAlive: null }) },
    ]);
  });

  harnessTest('a request type the receiver does not run as a task is processed normally (no created notification)', async (h) => {
    const { c, log } = await connect(h, '2025-06-18', {}, {}, false);
    await c.run([
      { send: call(1, 'ignored', {}, {}, 'plain') },
      { expect: result(1, { content: [{ type: 'text', text: 'plain done' }], _meta: undefined }) },
      { send: request(2, 'tasks/get', { taskId: 'ignored' }) },
      { expect: error(2, -32602) },
      // a tool that requires tasks in 2025-11-25 still runs plainly without task metadata here
      { send: call(3, undefined, {}, {}, 'must') },
      { expect: result(3, { content: [{ type: 'text', text: 'must done' }] }) },
    ]);
    assert.deepEqual(log.of('ignored'), []);
  });

  for (const revision of ['2024-11-05', '2025-03-26']) {
    harnessTest(`the draft form is spoken at ${revision} too`, async (h) => {
      const { c } = await connect(h, revision);
      await c.run([
        { send: call(1, `at-${revision}`, {}) },
        { expect: notification('notifications/tasks/created', { _meta: rel(`at-${revision}`) }) },
        { expect: result(1, { content: [{ type: 'text', text: 'job done' }] }) },
        { send: request(2, 'tasks/get', { taskId: `at-${revision}` }) },
        { expect: result(2, { status: 'completed' }) },
      ]);
    });
  }

  harnessTest('with the draft turned off, older revisions process task metadata normally', async (h) => {
    const { c } = await connect(h, '2025-06-18', { draft: false });
    await c.run([
      { send: call(1, 'off', {}) },
      { expect: result(1, { content: [{ type: 'text', text: 'job done' }] }) },
      { send: request(2, 'tasks/get', { taskId: 'off' }) },
      { expect: error(2, -32601) },
    ]);
  });
});
