/**
 * The task engine's final write retry on a real redis-server (append-only file, fsync
 * always) that is stopped while a task's work is about to end, then started again: two
 * TaskServers in this process (instances A and B), each on its own Redis connection, share
 * one RedisTaskStore prefix. Shows the contract of src/tasks/engine.ts ("Held outcomes"):
 * - the work ends while Redis is down: A holds the outcome, answers `tasks/get` and
 *   `tasks/result` from it (2025-11-25 › Tasks), B answers -32603 (it cannot read the
 *   store), and once Redis is back the outcome lands in the store — B then reads
 *   `completed` with the result (bounded wait), nothing stays `working`;
 * - an outcome nobody was told about is replaced by `failed` with a clear message once
 *   `outcomeRetryMs` is over, and that is what B reads after the restart;
 * - an outcome already answered from memory is never replaced (terminal states never
 *   change for the requestor), even past `outcomeRetryMs`;
 * - the draft form (SEP-1686, a 2025-06-18 connection): the creating request, still open,
 *   is answered with the held result while Redis is down, and the result is stored after.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { type RedisServer, startRedis } from '../../test/helpers/redis/redis-server.js';
import { until } from '../../test/helpers/redis/task-peer.js';
import { type Fixture, taskFixture } from '../../test/helpers/task-fixture.js';
import { Client } from '../client/client.js';
import { McpError } from '../jsonrpc/errors.js';
import { TaskClient } from '../tasks/client.js';
import { InMemoryTransport } from '../transport/memory.js';
import { RedisConnection } from './connection.js';
import { RedisTaskStore } from './task-store.js';

const PREFIX = 'outcome:';
const COMMAND_TIMEOUT_MS = 300;
/** Bound on every "eventually" of this file. */
const BOUND_MS = 20_000;

interface Instance {
  fx: Fixture;
  client: Client;
  tasks: TaskClient;
  /** What the task engine reported (its onError). */
  errors: Error[];
  close(): Promise<void>;
}

let redis: RedisServer;
const instances: Instance[] = [];

/** One server instance (own Redis connection and store) with a connected client; every task owned by one user. */
async function instance(outcomeRetryMs?: number, protocolVersion?: string): Promise<Instance> {
  const errors: Error[] = [];
  const connection = await RedisConnection.connect({
    url: redis.url,
    prefix: PREFIX,
    commandTimeoutMs: COMMAND_TIMEOUT_MS,
    reconnectMaxDelayMs: 100,
    onError: () => {},
  });
  // A long heartbeat: the outage must not make B end A's task as "instance stopped".
  const store = await RedisTaskStore.open(connection, { heartbeatTtlMs: 60_000, heartbeatIntervalMs: 1000, onError: () => {} });
  const fx = taskFixture({
    store,
    ownerOf: () => ({ auth: 'user-1' }),
    onError: (e) => errors.push(e),
    ...(outcomeRetryMs === undefined ? {} : { outcomeRetryMs }),
  });
  const [clientEnd, serverEnd] = InMemoryTransport.createPair();
  await fx.server.connect(serverEnd);
  const client = new Client({ name: 'outcome-retry', version: '1.0.0' }, protocolVersion === undefined ? {} : { protocolVersion });
  const tasks = new TaskClient(client, { sweepIntervalMs: 0 });
  await client.connect(clientEnd);
  const made: Instance = {
    fx,
    client,
    tasks,
    errors,
    async close() {
      await client.close();
      await fx.tasks?.close();
      await store.close();
      await connection.close();
    },
  };
  instances.push(made);
  return made;
}

/** True when `e` is the -32603 a tasks/* request gets while the store is unreachable. */
const internalError = (e: unknown) => e instanceof McpError && e.code === -32603;

/** Starts a held job on `a` and resolves with its task id once the work holds. */
async function holdingTask(a: Instance): Promise<string> {
  const before = a.fx.probe.holding;
  // a plain request, not TaskClient.callToolAsTask: its background tasks/get polling would
  // read (and so acknowledge) a held outcome at moments this file does not choose
  const created = (await a.client.request('tools/call', { name: 'job', arguments: { hold: true }, task: { ttl: 600_000 } })) as { task: { taskId: string } };
  await until('the job to hold', () => a.fx.probe.holding === before + 1, BOUND_MS);
  return created.task.taskId;
}

/** Stops Redis, lets the held work finish, and waits until A holds the outcome. */
async function finishWhileDown(a: Instance): Promise<void> {
  await redis.stop();
  a.fx.probe.release();
  await until("A to hold the task's outcome", () => a.fx.tasks!.engine.heldOutcomes === 1, BOUND_MS);
  assert.ok(
    a.errors.some((e) => /failed to take its outcome \(completed\); it is held in memory and retried/.test(e.message)),
    a.errors.map((e) => e.message).join('\n'),
  );
}

/** Starts Redis again and waits (bounded) until B reads `taskId` as `status`. */
async function restartAndRead(b: Instance, taskId: string, status: string): Promise<void> {
  await redis.restart();
  await until(`B to read the task as ${status}`, async () => (await b.tasks.getTask(taskId).catch(() => undefined))?.status === status, BOUND_MS);
}

before(async () => {
  redis = await startRedis({ appendOnly: true });
});
// a test that failed while Redis was stopped must not fail the next ones
beforeEach(async () => {
  if (redis.pid === undefined) await redis.restart();
});
after(async () => {
  for (const i of instances) await i.close().catch(() => {});
  await redis.close();
});

describe('final write retry (a task that ends while Redis is down)', () => {
  it('answers from the held outcome on its instance, and stores it once Redis is back: completed with its result everywhere', async () => {
    const a = await instance();
    const b = await instance();
    const taskId = await holdingTask(a);
    await finishWhileDown(a);

    // A answers from memory; B cannot read the store: a clean -32603
    assert.equal((await a.tasks.getTask(taskId)).status, 'completed');
    const fromMemory = await a.tasks.getTaskResult<{ content: Array<{ text: string }> }>(taskId);
    assert.equal(fromMemory.content[0]!.text, 'job done');
    await assert.rejects(b.tasks.getTask(taskId), internalError);

    await restartAndRead(b, taskId, 'completed');
    const stored = await b.tasks.getTaskResult<{ content: Array<{ text: string }> }>(taskId);
    assert.equal(stored.content[0]!.text, 'job done');
    await until('A to drop the held outcome', () => a.fx.tasks!.engine.heldOutcomes === 0, BOUND_MS);
    assert.equal((await a.tasks.getTask(taskId)).status, 'completed', 'A now reads the store');
  });

  it('replaces an outcome nobody was told about by failed, with a clear message, once outcomeRetryMs is over', async () => {
    const a = await instance(500);
    const b = await instance();
    const taskId = await holdingTask(a);
    await finishWhileDown(a);
    await until(
      'the outcome to be given up',
      () => a.errors.some((e) => e.message.includes(`Task ${taskId}: The task finished, but its outcome could not be stored within 500 ms`)),
      BOUND_MS,
    ).catch((err: Error) => {
      throw new Error(`${err.message}; engine reports: ${a.errors.map((e) => e.message).join(' | ')}`);
    });

    const local = await a.tasks.getTask(taskId);
    assert.equal(local.status, 'failed');
    assert.match(
      local.statusMessage ?? '',
      /^The task finished, but its outcome could not be stored within 500 ms \(the task store was unreachable\); run the request again$/,
    );
    await assert.rejects(a.tasks.getTaskResult(taskId), (e: unknown) => internalError(e) && /could not be stored/.test((e as Error).message));

    await restartAndRead(b, taskId, 'failed');
    assert.equal((await b.tasks.getTask(taskId)).statusMessage, local.statusMessage);
    await assert.rejects(b.tasks.getTaskResult(taskId), (e: unknown) => internalError(e) && /could not be stored/.test((e as Error).message));
    await until('A to drop the held outcome', () => a.fx.tasks!.engine.heldOutcomes === 0, BOUND_MS);
  });

  it('never replaces an outcome already answered from memory, even past outcomeRetryMs', async () => {
    const a = await instance(300);
    const b = await instance();
    const taskId = await holdingTask(a);
    await finishWhileDown(a);
    const heldAt = Date.now();
    assert.equal((await a.tasks.getTask(taskId)).status, 'completed', 'acknowledged');
    // wait for two failed write attempts made after outcomeRetryMs was over (the engine reports each)
    const failures = () => a.errors.filter((e) => e.name === 'RedisUnavailableError').length;
    let seen = -1;
    await until(
      'outcomeRetryMs to be over',
      () => {
        if (Date.now() <= heldAt + 300) return false;
        seen = failures();
        return true;
      },
      BOUND_MS,
    );
    await until('two more failed attempts past outcomeRetryMs', () => failures() >= seen + 2, BOUND_MS);
    assert.ok(!a.errors.some((e) => e.message.includes('could not be stored within')), 'not given up');
    assert.equal((await a.tasks.getTask(taskId)).status, 'completed');

    await restartAndRead(b, taskId, 'completed');
    const stored = await b.tasks.getTaskResult<{ content: Array<{ text: string }> }>(taskId);
    assert.equal(stored.content[0]!.text, 'job done');
  });

  it('answers a draft creating request with the held result while Redis is down, and stores it once Redis is back', async () => {
    const a = await instance(undefined, '2025-06-18');
    const b = await instance();
    const taskId = 'draft-outcome-1';
    const before = a.fx.probe.holding;
    const answered = a.client.request('tools/call', {
      name: 'job',
      arguments: { hold: true },
      _meta: { 'modelcontextprotocol.io/task': { taskId, keepAlive: 600_000 } },
    });
    await until('the job to hold', () => a.fx.probe.holding === before + 1, BOUND_MS);
    await finishWhileDown(a);
    const result = (await answered) as { content: Array<{ text: string }> };
    assert.equal(result.content[0]!.text, 'job done', 'the creating request got the held result');

    await restartAndRead(b, taskId, 'completed');
    const stored = await b.tasks.getTaskResult<{ content: Array<{ text: string }> }>(taskId);
    assert.equal(stored.content[0]!.text, 'job done');
    await until('A to drop the held outcome', () => a.fx.tasks!.engine.heldOutcomes === 0, BOUND_MS);
  });
});
