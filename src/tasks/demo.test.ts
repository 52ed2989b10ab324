/**
 * The demo's long-running job as a task, end to end against `createDemoServer` with an
 * mcpkit client (both wires schema-checked): progress while polled, a confirmation half way
 * (input_required), cancellation, and the plain call that still works.
 */
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { sleep } from '../../test/helpers/task-fixture.js';
import { type Harness, harnessTest } from '../../test/transcripts/harness.js';
import type { ClientOptions } from '../client/client.js';
import { LocalError } from '../jsonrpc/errors.js';
import { TaskClient } from './index.js';

async function demo(h: Harness, options: ClientOptions = {}) {
  const server = h.demo({ tasks: { pollIntervalMs: 20, sweepIntervalMs: 0 } });
  let tasks: TaskClient | undefined;
  await h.client(server, options, (client) => {
    tasks = new TaskClient(client, { sweepIntervalMs: 0 });
  });
  return tasks!;
}

describe('demo: long_running_job', () => {
  harnessTest('is worth polling: a task with progress, working → completed', async (h) => {
    const tasks = await demo(h);
    const statuses: string[] = [];
    const progress: number[] = [];
    const job = await tasks.callToolAsTask(
      { name: 'long_running_job', arguments: { ms: 100, steps: 5 } },
      { onStatus: (t) => statuses.push(t.status), onProgress: (p) => progress.push(p.progress) },
    );
    assert.ok(job.taskId);
    const r = await job.result();
    assert.match((r.content[0] as { text: string }).text, /^finished 5 steps/);
    assert.deepEqual(progress, [1, 2, 3, 4, 5]);
    assert.deepEqual(statuses, ['working', 'completed']);
  });

  harnessTest('asks for confirmation half way: input_required until the user answers', async (h) => {
    const answers: string[] = [];
    const tasks = await demo(h, {
      elicitation: {
        form: async (params) => {
          answers.push(params.message);
          return { action: 'accept', content: { continue: answers.length === 1 } };
        },
      },
    });
    const statuses: string[] = [];
    const go = await tasks.callToolAsTask(
      { name: 'long_running_job', arguments: { ms: 40, steps: 4, confirm: true } },
      { onStatus: (t) => statuses.push(t.status) },
    );
    assert.match(((await go.result()).content[0] as { text: string }).text, /^finished 4 steps/);
    assert.ok(statuses.includes('input_required'), statuses.join(', '));
    const stop = await tasks.callToolAsTask({ name: 'long_running_job', arguments: { ms: 40, steps: 4, confirm: true } });
    const stopped = await stop.result();
    assert.equal(stopped.isError, true);
    assert.equal(stop.status, 'failed');
    assert.match(answers[0]!, /half way/);
  });

  harnessTest('cancels, and still runs as a plain call', async (h) => {
    const tasks = await demo(h);
    const job = await tasks.callToolAsTask({ name: 'long_running_job', arguments: { ms: 60_000, steps: 600 } });
    await sleep(30);
    await job.cancel();
    await assert.rejects(job.result(), (e: unknown) => e instanceof LocalError && e.code === 'cancelled');
    const plain = await tasks.client.callTool({ name: 'long_running_job', arguments: { ms: 10, steps: 1 } });
    assert.match((plain.content[0] as { text: string }).text, /^finished 1 steps/);
  });
});
