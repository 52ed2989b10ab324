/**
 * Durability across a crash: `mcpkit demo --task-db FILE` (the demo server with a
 * SqliteTaskStore) is killed with SIGKILL while a task runs, started again on the same file,
 * and a new client then asks about the tasks of the dead process. The running task is
 * reported truthfully (failed: the server restarted, outcome unknown; `tasks/result` answers
 * the stored error), and the task that completed before the kill still returns its result.
 * Bounded: every wait has a deadline; the temporary folder is removed.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { sleep } from '../../test/helpers/task-fixture.js';
import { demoServerCommand } from '../../test/interop/fixtures/raw-stdio-transport.js';
import { Client } from '../client/client.js';
import { LocalError, McpError } from '../jsonrpc/errors.js';
import { StdioClientTransport } from '../stdio/index.js';
import { RELATED_TASK_META, TaskClient } from './index.js';

const dir = mkdtempSync(join(tmpdir(), 'mcpkit-task-restart-'));
const file = join(dir, 'tasks.db');
const open: Client[] = [];
after(async () => {
  for (const c of open.splice(0)) await c.close().catch(() => {});
  rmSync(dir, { recursive: true, force: true });
});

async function start(): Promise<{ client: Client; tasks: TaskClient; transport: StdioClientTransport }> {
  const { command, args } = demoServerCommand();
  const transport = new StdioClientTransport({ command, args: [...args, '--task-db', file], closeTimeouts: { stdinMs: 2000, termMs: 1000 } });
  const client = new Client({ name: 'restart-test', version: '1.0.0' });
  const tasks = new TaskClient(client, { sweepIntervalMs: 0 });
  open.push(client);
  await client.connect(transport, { timeoutMs: 10_000 });
  return { client, tasks, transport };
}

async function until(what: string, condition: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new assert.AssertionError({ message: `timed out waiting for ${what}` });
    await sleep(20);
  }
}

describe('tasks survive a SIGKILL of the server (SqliteTaskStore)', () => {
  it('reports the running task as failed after the restart, and still returns the completed one', async () => {
    const first = await start();
    const quick = await first.tasks.callToolAsTask({ name: 'long_running_job', arguments: { ms: 20, steps: 2 } }, { ttl: 600_000 });
    assert.ok(quick.taskId);
    const quickResult = await quick.result();
    assert.match((quickResult.content[0] as { text: string }).text, /^finished 2 steps/);

    const long = await first.tasks.callToolAsTask({ name: 'long_running_job', arguments: { ms: 60_000, steps: 600 } }, { ttl: 600_000 });
    assert.equal(long.status, 'working');
    await until('the long task to be working', async () => (await first.tasks.getTask(long.taskId!)).status === 'working');
    const killed = new Promise<void>((resolve) => first.client.endpoint!.onClose(() => resolve()));
    process.kill(first.transport.pid!, 'SIGKILL');
    await killed;
    await assert.rejects(long.result(), (e: unknown) => e instanceof LocalError);

    const second = await start();
    const after = await second.tasks.getTask(long.taskId!);
    assert.equal(after.status, 'failed');
    assert.match(after.statusMessage ?? '', /restarted/);
    await assert.rejects(second.tasks.getTaskResult(long.taskId!), (e: unknown) => e instanceof McpError && e.code === -32603 && /restarted/.test(e.message));

    const kept = await second.tasks.getTask(quick.taskId!);
    assert.equal(kept.status, 'completed');
    const again = await second.tasks.getTaskResult<typeof quickResult>(quick.taskId!);
    assert.deepEqual(again.content, quickResult.content);
    assert.deepEqual((again._meta as Record<string, unknown>)[RELATED_TASK_META], { taskId: quick.taskId });
    const listed = await second.tasks.listTasks();
    assert.deepEqual(listed.tasks.map((t) => t.taskId).sort(), [quick.taskId, long.taskId].sort());
    await second.client.close();
  });
});
