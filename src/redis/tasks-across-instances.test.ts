/**
 * Tasks shared by two server instances through one Redis: two TaskServers in this process,
 * each on its own Redis connection with the same prefix, each with a real Client on its own
 * connection. Shows (2025-11-25 › Tasks): tasks/get, tasks/list and tasks/result from the
 * other instance; tasks/cancel through instance B aborting the work running on A
 * ("receivers SHOULD attempt to stop the underlying work"); and a task whose instance was
 * killed (a child process, SIGKILL) reported as failed with a message rather than working
 * forever — tasks/result then answers the stored -32603 error.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { useRedis } from '../../test/helpers/redis/redis-server.js';
import { kill, spawnInstance } from '../../test/helpers/redis/spawn-instance.js';
import { type TaskPeer, taskPeer, until } from '../../test/helpers/redis/task-peer.js';
import { McpError } from '../jsonrpc/errors.js';
import { TASK_CANCELLED_CODE } from '../tasks/types.js';
import { RedisConnection } from './connection.js';
import { RedisTaskStore } from './task-store.js';

const PREFIX = 'across:';
const suite = useRedis();

interface Instance extends TaskPeer {
  store: RedisTaskStore;
}

/** One server instance with its own Redis connection, store, and a connected client. */
async function instance(): Promise<Instance> {
  const redis = await RedisConnection.connect({ url: suite.server.url, prefix: PREFIX });
  const store = await RedisTaskStore.open(redis, { heartbeatTtlMs: 1000, heartbeatIntervalMs: 200 });
  const peer = await taskPeer(store);
  suite.defer(async () => {
    await peer.close();
    await store.close();
    await redis.close();
  });
  return { ...peer, store };
}

describe('tasks across instances (RedisTaskStore)', () => {
  let a: Instance;
  let b: Instance;
  before(async () => {
    a = await instance();
    b = await instance();
  });

  it('answers tasks/get, tasks/list and tasks/result on the other instance', async () => {
    const pending = await a.tasks.callToolAsTask({ name: 'job', arguments: { hold: true } }, { ttl: 60_000 });
    const id = pending.taskId!;
    await until('the job to hold', () => a.fx.probe.holding === 1);
    assert.equal((await b.tasks.getTask(id)).status, 'working');
    assert.ok((await b.tasks.listTasks()).tasks.some((t) => t.taskId === id));
    const result = b.tasks.getTaskResult<{ content: Array<{ text: string }> }>(id);
    a.fx.probe.release();
    assert.equal((await result).content[0]!.text, 'job done');
    assert.equal((await b.tasks.getTask(id)).status, 'completed');
  });

  it('cancels through instance B the work running on instance A', async () => {
    const aborted = a.fx.probe.aborted.length;
    const pending = await a.tasks.callToolAsTask({ name: 'job', arguments: { hold: true } }, { ttl: 60_000 });
    const id = pending.taskId!;
    await until('the job to hold', () => a.fx.probe.holding === 1);
    const cancelled = await b.tasks.cancelTask(id);
    assert.equal(cancelled.status, 'cancelled');
    await until("the work's signal on A to fire", () => a.fx.probe.aborted.length === aborted + 1);
    assert.match(a.fx.probe.aborted.at(-1)!, /cancelled/);
    await until('no task running on A', () => a.fx.tasks!.engine.running === 0);
    assert.equal((await a.tasks.getTask(id)).status, 'cancelled', 'the cancel stays: the aborted work does not overwrite it');
    await assert.rejects(a.tasks.getTaskResult(id), (e: unknown) => e instanceof McpError && e.code === TASK_CANCELLED_CODE);
  });

  it('reports a task of a killed instance as failed, with a message, once its heartbeat expired', async () => {
    const child = await spawnInstance([suite.server.url, PREFIX, 'task', 'orphan-1', '500']);
    assert.equal((await b.tasks.getTask('orphan-1')).status, 'working', 'alive: still working');
    await kill(child);
    // The heartbeat outlives the process by at most its TTL (500 ms).
    await until('the task to be reported failed', async () => (await b.tasks.getTask('orphan-1')).status === 'failed');
    const info = await a.tasks.getTask('orphan-1');
    assert.match(info.statusMessage ?? '', /instance running this task stopped/);
    await assert.rejects(
      a.tasks.getTaskResult('orphan-1'),
      (e: unknown) => e instanceof McpError && e.code === -32603 && /instance running this task stopped/.test(e.message),
    );
  });
});
