/**
 * An mcpkit {@link Client} with a {@link TaskClient} as the receiver of task-augmented
 * `sampling/createMessage` and `elicitation/create`, driven by a raw JSON-RPC server in
 * transcripts. Everything the client emits is checked against the schema of the
 * negotiated revision (the draft's messages excepted, which no schema has).
 * Spec: 2025-11-25 › Tasks (client capabilities, task-augmented sampling and elicitation);
 * SEP-1686 (draft form, any request type).
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Capture, isIso, Probe, related, sleep } from '../../test/helpers/task-fixture.js';
import { error, isText, matches, notification, request, result } from '../../test/transcripts/harness.js';
import { runTranscript, type TranscriptStep } from '../../test/transcripts/transcript.js';
import { Client, type ClientOptions } from '../client/client.js';
import { type RecordingTransport, recordTransport } from '../testing/recording-transport.js';
import { InMemoryTransport } from '../transport/memory.js';
import { TaskClient, type TaskClientOptions } from './index.js';

const LATEST = '2025-11-25';
const closers: Array<() => Promise<void>> = [];
after(async () => {
  for (const close of closers.splice(0)) await close().catch(() => {});
});

interface Peer {
  client: Client;
  tasks: TaskClient;
  wire: RecordingTransport;
  probe: Probe;
  /** The capabilities the client declared in `initialize`. */
  declared: unknown;
  /** Plays the server side. */
  run(steps: readonly TranscriptStep[]): Promise<{ received: unknown[] }>;
}

/** A client with sampling and elicitation handlers (held by the probe when asked), and a raw server. */
async function connect(revision = LATEST, taskOptions: TaskClientOptions = {}, more: Partial<ClientOptions> = {}): Promise<Peer> {
  const probe = new Probe();
  const [clientEnd, serverEnd] = InMemoryTransport.createPair();
  const client = new Client(
    { name: 'receiver', version: '1.0.0' },
    {
      protocolVersion: revision,
      sampling: {
        createMessage: async (params, ctx) => {
          probe.started++;
          ctx.signal.addEventListener('abort', () => probe.aborted.push('sampling'), { once: true });
          if ((params.messages[0]!.content as { text?: string }).text === 'hold') await probe.hold(ctx.signal);
          await ctx.sendProgress(1, 1, 'sampled');
          return { role: 'assistant', model: 'test-model', content: { type: 'text', text: 'hello' } };
        },
      },
      elicitation: {
        form: async (_params, ctx) => {
          probe.started++;
          ctx.signal.addEventListener('abort', () => probe.aborted.push('elicitation'), { once: true });
          await probe.hold(ctx.signal);
          return { action: 'accept', content: { name: 'Ada' } };
        },
      },
      ...more,
    },
  );
  const tasks = new TaskClient(client, { pollIntervalMs: 20, sweepIntervalMs: 0, ...taskOptions });
  const wire = recordTransport(clientEnd, { side: 'client', revision: () => client.protocolVersion });
  closers.push(() => client.close());
  const run = (steps: readonly TranscriptStep[]) => runTranscript(serverEnd, steps, { side: 'server' });
  const connecting = client.connect(wire);
  const { received } = await run([{ expect: { jsonrpc: '2.0', id: 1, method: 'initialize' } }]);
  const init = received[0] as { params: { capabilities: unknown } };
  await run([
    { send: result(1, { protocolVersion: revision, capabilities: { tools: {} }, serverInfo: { name: 'raw-server', version: '1.0.0' } }) },
    { expect: notification('notifications/initialized') },
  ]);
  await connecting;
  return { client, tasks, wire, probe, declared: init.params.capabilities, run };
}

const sampling = (id: number, text: string, more: object = {}) =>
  request(id, 'sampling/createMessage', { messages: [{ role: 'user', content: { type: 'text', text } }], maxTokens: 10, ...more });

describe('tasks on the client, as receiver', () => {
  it('declares tasks per request type it has a handler for', async () => {
    const p = await connect();
    assert.deepEqual(p.declared, {
      sampling: {},
      elicitation: { form: {} },
      tasks: { list: {}, cancel: {}, requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } },
    });
    const noElicitation = await connect(LATEST, {}, { elicitation: undefined });
    assert.deepEqual((noElicitation.declared as { tasks?: unknown }).tasks, {
      list: {},
      cancel: {},
      requests: { sampling: { createMessage: {} } },
    });
    p.wire.assertNoViolations();
  });

  it('runs task-augmented sampling: CreateTaskResult at once, working → completed, progress, tasks/get, tasks/result, tasks/list', async () => {
    const p = await connect();
    const id = new Capture();
    await p.run([
      { send: sampling(10, 'hold', { task: { ttl: 30_000 }, _meta: { progressToken: 'sp' } }) },
      {
        expect: result(10, {
          task: { taskId: id.set, status: 'working', ttl: 30_000, pollInterval: 20, createdAt: isIso, lastUpdatedAt: isIso },
          model: undefined,
        }),
      },
    ]);
    await p.run([
      { send: request(11, 'tasks/get', { taskId: id.value }) },
      { expect: result(11, { taskId: id.value, status: 'working' }) },
      { send: request(12, 'tasks/result', { taskId: id.value }) },
      { expectSilence: 30 },
    ]);
    p.probe.release();
    await p.run([
      {
        expectAnyOrder: [
          notification('notifications/progress', { progressToken: 'sp', progress: 1, message: 'sampled', _meta: related(id) }),
          notification('notifications/tasks/status', { taskId: id.is, status: 'completed' }),
          result(12, { role: 'assistant', model: 'test-model', content: { type: 'text', text: 'hello' }, _meta: related(id) }),
        ],
      },
      { send: request(13, 'tasks/list') },
      { expect: result(13, { tasks: [{ taskId: id.value, status: 'completed' }] }) },
    ]);
    p.wire.assertNoViolations();
  });

  it('runs task-augmented elicitation; tasks/cancel aborts the handler through its signal', async () => {
    const p = await connect();
    const id = new Capture();
    await p.run([
      {
        send: request(20, 'elicitation/create', {
          mode: 'form',
          message: 'Name?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
          task: {},
        }),
      },
      { expect: result(20, { task: { taskId: id.set, status: 'working' } }) },
    ]);
    while (p.probe.holding === 0) await sleep(2);
    await p.run([
      { send: request(21, 'tasks/cancel', { taskId: id.value }) },
      {
        expectAnyOrder: [
          notification('notifications/tasks/status', { taskId: id.is, status: 'cancelled' }),
          result(21, { taskId: id.value, status: 'cancelled', statusMessage: isText }),
        ],
      },
      { send: request(22, 'tasks/cancel', { taskId: id.value }) },
      { expect: error(22, -32602, { message: matches(/terminal status 'cancelled'/) }) },
      { send: request(23, 'tasks/get', { taskId: 'unknown' }) },
      { expect: error(23, -32602, { message: 'Failed to retrieve task: Task not found' }) },
    ]);
    assert.deepEqual(p.probe.aborted, ['elicitation']);
    p.wire.assertNoViolations();
  });

  it('without task support for a request type (receive: false) processes it normally; tasks/* are -32601', async () => {
    const p = await connect(LATEST, { receive: false });
    await p.run([
      { send: sampling(30, 'now', { task: {} }) },
      { expect: result(30, { model: 'test-model', task: undefined }) },
      { send: request(31, 'tasks/get', { taskId: 'x' }) },
      { expect: error(31, -32601) },
    ]);
    // The recorder expects CreateTaskResult for any request with params.task; a receiver that
    // declared no task support answers normally, as the spec requires.
    assert.deepEqual(
      p.wire.violations().map((v) => v.replace(/^#\d+ /, '')),
      [`C→S [${LATEST}] sampling/createMessage result (CreateTaskResult): /result must have required property 'task'`],
    );
  });

  it('draft form (2025-06-18): created notification, then the normal response with related-task metadata', async () => {
    const p = await connect('2025-06-18');
    const meta = { 'modelcontextprotocol.io/task': { taskId: 'srv-1', keepAlive: 10_000 } };
    await p.run([
      { send: sampling(40, 'now', { _meta: meta }) },
      { expect: notification('notifications/tasks/created', { _meta: { 'modelcontextprotocol.io/related-task': { taskId: 'srv-1' } } }) },
      { expect: result(40, { model: 'test-model', _meta: { 'modelcontextprotocol.io/related-task': { taskId: 'srv-1' } } }) },
      { send: request(41, 'tasks/get', { taskId: 'srv-1' }) },
      { expect: result(41, { taskId: 'srv-1', status: 'completed', keepAlive: 10_000 }) },
      { send: request(42, 'tasks/result', { taskId: 'srv-1' }) },
      { expect: result(42, { model: 'test-model' }) },
      { send: sampling(43, 'now', { _meta: meta }) },
      { expect: error(43, -32602, { message: 'Task ID already exists: srv-1' }) },
    ]);
  });
});
