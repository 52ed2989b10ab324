/**
 * Routing hints (`SendOptions.relatedRequestId`) of what a task's work sends, which the
 * Streamable HTTP transport uses to pick the stream: in the 2025-11-25 form an input request
 * goes out on behalf of a `tasks/result` waiting for the task (that is where the requestor
 * listens, per the spec's input_required flow), else on no request (the standalone stream);
 * in the draft form on behalf of the still-open creating request.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Capture, sleep, taskFixture } from '../../test/helpers/task-fixture.js';
import { notification, request, result } from '../../test/transcripts/harness.js';
import { runTranscript } from '../../test/transcripts/transcript.js';
import type { JSONRPCMessage, RequestId } from '../jsonrpc/types.js';
import { InMemoryTransport } from '../transport/memory.js';
import type { SendOptions, Transport, TransportReceiver } from '../transport/types.js';

/** Wraps a transport and notes the routing hint of every message sent through it. */
class RoutingSpy implements Transport {
  readonly sent: Array<{ method?: string; related?: RequestId }> = [];
  constructor(readonly inner: Transport) {}
  start(receiver: TransportReceiver) {
    return this.inner.start(receiver);
  }
  send(message: JSONRPCMessage | JSONRPCMessage[] | string, options?: SendOptions) {
    const m = message as { method?: string };
    this.sent.push(options?.relatedRequestId === undefined ? { method: m.method } : { method: m.method, related: options.relatedRequestId });
    return this.inner.send(message, options);
  }
  close() {
    return this.inner.close();
  }
}

async function connect(revision: string) {
  const fx = taskFixture({ statusNotifications: false });
  const [clientEnd, serverEnd] = InMemoryTransport.createPair();
  const spy = new RoutingSpy(serverEnd);
  await fx.server.connect(spy);
  const run = (steps: Parameters<typeof runTranscript>[1]) => runTranscript(clientEnd, steps, { side: 'client' });
  await run([
    { send: request(0, 'initialize', { protocolVersion: revision, capabilities: { elicitation: {} }, clientInfo: { name: 't', version: '1' } }) },
    { expect: result(0, {}) },
    { send: notification('notifications/initialized') },
  ]);
  return { ...fx, spy, run, close: () => clientEnd.close() };
}

describe('routing of task messages', () => {
  it('2025-11-25: an elicitation goes out on behalf of the waiting tasks/result; progress on no request', async () => {
    const { probe, spy, run, close } = await connect('2025-11-25');
    const id = new Capture();
    await run([
      { send: request(1, 'tools/call', { name: 'job', arguments: { wait: true, ask: 'elicit', progress: true }, task: {}, _meta: { progressToken: 't' } }) },
      { expect: result(1, { task: { taskId: id.set } }) },
    ]);
    await run([{ send: request(2, 'tasks/result', { taskId: id.value }) }]);
    while (probe.holding === 0) await sleep(2);
    await sleep(10);
    probe.release();
    const { received } = await run([
      { expect: notification('notifications/progress', { progress: 1 }) },
      { expect: { jsonrpc: '2.0', method: 'elicitation/create' } },
    ]);
    const ask = (received[1] as { id: number }).id;
    await run([
      { send: { jsonrpc: '2.0', id: ask, result: { action: 'accept', content: { name: 'x' } } } },
      { expect: notification('notifications/progress', { progress: 2 }) },
      { expect: result(2, { content: [{ type: 'text', text: 'job done: accept x' }] }) },
    ]);
    assert.deepEqual(
      spy.sent.find((s) => s.method === 'elicitation/create'),
      { method: 'elicitation/create', related: 2 },
    );
    assert.deepEqual(
      spy.sent.filter((s) => s.method === 'notifications/progress'),
      [
        { method: 'notifications/progress', related: 2 },
        { method: 'notifications/progress', related: 2 },
      ],
    );
    await close();
  });

  it('2025-11-25 without a waiting tasks/result: no routing hint; draft: the creating request', async () => {
    const current = await connect('2025-11-25');
    await current.run([
      { send: request(1, 'tools/call', { name: 'job', arguments: { progress: true }, task: {}, _meta: { progressToken: 't' } }) },
      { expect: result(1, {}) },
      { expect: notification('notifications/progress', { progress: 1 }) },
      { expect: notification('notifications/progress', { progress: 2 }) },
    ]);
    assert.deepEqual(
      current.spy.sent.filter((s) => s.method === 'notifications/progress'),
      [{ method: 'notifications/progress' }, { method: 'notifications/progress' }],
    );
    await current.close();
    const draft = await connect('2025-06-18');
    await draft.run([
      {
        send: request(1, 'tools/call', {
          name: 'job',
          arguments: { progress: true },
          _meta: { progressToken: 't', 'modelcontextprotocol.io/task': { taskId: 'd' } },
        }),
      },
      { expect: notification('notifications/tasks/created', {}) },
      { expect: notification('notifications/progress', { progress: 1 }) },
      { expect: notification('notifications/progress', { progress: 2 }) },
      { expect: result(1, {}) },
    ]);
    assert.deepEqual(
      draft.spy.sent.filter((s) => s.method?.startsWith('notifications/')),
      [
        { method: 'notifications/tasks/created', related: 1 },
        { method: 'notifications/progress', related: 1 },
        { method: 'notifications/progress', related: 1 },
      ],
    );
    await draft.close();
  });
});
