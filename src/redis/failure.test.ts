/**
 * Failure behaviour against a real redis-server that is stopped, frozen and restarted:
 * every operation rejects with RedisUnavailableError (reason disconnected or timeout) instead
 * of hanging or crashing, service resumes once Redis is back, and — with Redis writing an
 * append-only file with fsync on every write (the configuration docs/redis.md asks for when
 * acknowledged results must survive a Redis restart) — a task result the store acknowledged
 * is still there after Redis was killed and started again, for tasks/get and tasks/result
 * on the wire (2025-11-25 › Tasks: results are kept for the task's ttl).
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { type RedisServer, startRedis } from '../../test/helpers/redis/redis-server.js';
import { taskPeer, until } from '../../test/helpers/redis/task-peer.js';
import { McpError } from '../jsonrpc/errors.js';
import type { NewTask } from '../tasks/store.js';
import { RedisBus } from './bus.js';
import { RedisConnection, RedisUnavailableError, type RedisUnavailableReason } from './connection.js';
import { RedisEventStore } from './event-store.js';
import { RedisTaskStore } from './task-store.js';

const COMMAND_TIMEOUT_MS = 300;
/** A generous bound: an operation still pending after it counts as hung. */
const HANG_MS = 10 * COMMAND_TIMEOUT_MS;

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
before(() => process.on('unhandledRejection', onUnhandled));
after(() => process.off('unhandledRejection', onUnhandled));
afterEach(() => assert.deepEqual(unhandled, [], 'no unhandled rejection'));

const task = (taskId: string, more: Partial<NewTask> = {}): NewTask => ({
  taskId,
  status: 'working',
  ttlMs: 600_000,
  ttlAnchor: 'created',
  owner: {},
  method: 'tools/call',
  form: '2025-11-25',
  ...more,
});

/** `op`, or a rejection when it is still pending after {@link HANG_MS}. */
async function bounded<T>(op: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hung = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`still pending after ${HANG_MS} ms`)), HANG_MS)));
  try {
    return await Promise.race([op, hung]);
  } finally {
    clearTimeout(timer);
  }
}

/** Asserts that `op` rejects with RedisUnavailableError of one of `reasons`, and does not hang. */
async function unavailable(op: Promise<unknown>, reasons: RedisUnavailableReason[] = ['disconnected', 'timeout']): Promise<void> {
  await assert.rejects(bounded(op), (e: unknown) => {
    assert.ok(e instanceof RedisUnavailableError, `expected RedisUnavailableError, got ${String(e)}`);
    assert.ok(reasons.includes(e.reason), e.reason);
    assert.match(e.message, /^Redis at 127\.0\.0\.1:\d+ /);
    return true;
  });
}

async function connect(server: RedisServer, errors: Error[], prefix = 'fail:'): Promise<RedisConnection> {
  return RedisConnection.connect({ url: server.url, prefix, commandTimeoutMs: COMMAND_TIMEOUT_MS, reconnectMaxDelayMs: 100, onError: (e) => errors.push(e) });
}

describe('Redis failures', () => {
  it('rejects every operation with a clear error while Redis is down, and resumes when it is back', async () => {
    const server = await startRedis();
    const errors: Error[] = [];
    const redis = await connect(server, errors);
    const store = await RedisTaskStore.open(redis, { heartbeatTtlMs: 1000, heartbeatIntervalMs: 100 });
    const events = new RedisEventStore(redis);
    const bus = new RedisBus(redis);
    try {
      await store.create(task('before'));
      await server.stop();
      await unavailable(store.get('before'));
      await unavailable(store.create(task('during')));
      await unavailable(store.update('before', { status: 'completed', result: {} }));
      await unavailable(store.list({}, { limit: 10 }));
      await unavailable(events.append('s/1', 1, 'x'));
      await unavailable(events.replay('s/1', 0));
      await unavailable(bus.publish('c', 1));
      // Failed reconnect attempts go to onError (never to an unhandled 'error' event).
      await until('connection errors to reach onError', () => errors.length > 0);
      assert.ok(errors.every((e) => !/password/i.test(e.message)));
      await server.restart();
      await redis.whenReady();
      // The store beats again at once after the reconnect (the empty Redis lost the heartbeat).
      await until('the heartbeat to be back', async () => (await redis.run((c) => c.exists(redis.key('instance', store.instanceId)))) === 1);
      // Persistence off: the restarted Redis is empty, and the stores work on it at once.
      assert.equal(await store.get('before'), undefined);
      assert.equal((await store.create(task('after'))).status, 'working');
      await events.append('s/1', 1, 'x');
      assert.deepEqual(await events.replay('s/1', 0), [{ seq: 1, data: 'x' }]);
    } finally {
      await store.close();
      await redis.close();
      await server.close();
    }
  });

  it('closes stores and the connection while Redis is down, without hanging', async () => {
    const server = await startRedis();
    const redis = await connect(server, []);
    const store = await RedisTaskStore.open(redis);
    const bus = new RedisBus(redis);
    await bus.subscribe('c', () => {});
    await server.stop();
    try {
      await bounded(store.close());
      await bounded(bus.close());
      await bounded(redis.close());
      await assert.rejects(store.get('x'), (e: unknown) => (e as { code?: string }).code === 'closed');
      await unavailable(redis.publish('c', 'x'), ['closed']);
    } finally {
      await server.close();
    }
  });

  it('times a command out when Redis accepts but stops answering (process frozen)', async () => {
    const server = await startRedis();
    const redis = await connect(server, []);
    const store = await RedisTaskStore.open(redis);
    try {
      await store.create(task('t'));
      process.kill(server.pid!, 'SIGSTOP');
      try {
        await unavailable(store.get('t'), ['timeout']);
        await unavailable(new RedisEventStore(redis).append('s/1', 1, 'x'), ['timeout']);
      } finally {
        process.kill(server.pid!, 'SIGCONT');
      }
      await redis.whenReady();
      assert.equal((await store.get('t'))?.status, 'working');
    } finally {
      await store.close();
      await redis.close();
      await server.close();
    }
  });

  it('keeps acknowledged task results and events across a Redis kill and restart (append-only file, fsync always)', async () => {
    const server = await startRedis({ appendOnly: true });
    const errors: Error[] = [];
    const redis = await connect(server, errors, 'durable:');
    const store = await RedisTaskStore.open(redis, { heartbeatTtlMs: 2000, heartbeatIntervalMs: 100 });
    const peer = await taskPeer(store);
    const { tasks } = peer;
    try {
      const pending = await tasks.callToolAsTask({ name: 'job', arguments: {} }, { ttl: 600_000 });
      const result = await pending.result();
      assert.equal((result.content[0] as { text: string }).text, 'job done');
      await new RedisEventStore(redis).append('sess/1', 1, 'kept');

      await server.stop('SIGKILL');
      // While Redis is down the MCP answer is a clean internal error, not a hang or a crash.
      await assert.rejects(
        tasks.getTask(pending.taskId!, { timeoutMs: HANG_MS }),
        (e: unknown) => e instanceof McpError && e.code === -32603 && e.message === 'Internal error',
      );

      await server.restart();
      await redis.whenReady();
      assert.equal((await tasks.getTask(pending.taskId!)).status, 'completed');
      const again = await tasks.getTaskResult<{ content: Array<{ text: string }> }>(pending.taskId!);
      assert.equal(again.content[0]!.text, 'job done');
      assert.deepEqual(await new RedisEventStore(redis).replay('sess/1', 0), [{ seq: 1, data: 'kept' }]);
    } finally {
      await peer.close();
      await store.close();
      await redis.close();
      await server.close();
    }
  });
});
