/**
 * RedisTaskStore against a real redis-server: the shared TaskStore contract (each test on
 * its own key prefix), then what only a shared store has — two instances racing on one
 * task, liveness of the instance running a task.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type RedisServer, startRedis } from '../../test/helpers/redis/redis-server.js';
import { describeTaskStoreContract } from '../../test/helpers/task-store-contract.js';
import type { NewTask } from '../tasks/store.js';
import { RedisConnection } from './connection.js';
import { RedisTaskStore } from './task-store.js';

let server: RedisServer;
const connections: RedisConnection[] = [];
let prefixes = 0;

before(async () => {
  server = await startRedis();
});
after(async () => {
  for (const c of connections.splice(0)) await c.close();
  await server.close();
});

/** A connection on a fresh key prefix (a fresh, empty store). */
async function connection(prefix = `t${++prefixes}:`): Promise<RedisConnection> {
  const c = await RedisConnection.connect({ url: server.url, prefix });
  connections.push(c);
  return c;
}

describeTaskStoreContract('RedisTaskStore', async (clock, limits) => RedisTaskStore.open(await connection(), { now: clock.now, ...limits }));

const task = (taskId: string, more: Partial<NewTask> = {}): NewTask => ({
  taskId,
  status: 'working',
  ttlMs: 60_000,
  ttlAnchor: 'created',
  owner: {},
  method: 'tools/call',
  form: '2025-11-25',
  ...more,
});

describe('RedisTaskStore between instances', () => {
  it('ends a task exactly once when two instances race to finish it', async () => {
    const prefix = `race${++prefixes}:`;
    const a = await RedisTaskStore.open(await connection(prefix));
    const b = await RedisTaskStore.open(await connection(prefix));
    try {
      for (let round = 0; round < 20; round++) {
        const id = `r${round}`;
        await a.create(task(id));
        const outcomes = await Promise.allSettled([
          a.update(id, { status: 'completed', result: { by: 'a' } }),
          b.update(id, { status: 'cancelled', statusMessage: 'by b' }),
          b.update(id, { status: 'failed', error: { code: -32603, message: 'by b' } }),
        ]);
        const won = outcomes.filter((o) => o.status === 'fulfilled');
        assert.equal(won.length, 1, `exactly one terminal write wins (round ${round})`);
        for (const o of outcomes) if (o.status === 'rejected') assert.equal((o.reason as { code?: string }).code, 'terminal');
        const final = (won[0] as PromiseFulfilledResult<{ status: string }>).value.status;
        assert.equal((await a.get(id))?.status, final);
        assert.equal((await b.get(id))?.status, final);
      }
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('reads a task and its result from another instance', async () => {
    const prefix = `share${++prefixes}:`;
    const a = await RedisTaskStore.open(await connection(prefix));
    const b = await RedisTaskStore.open(await connection(prefix));
    try {
      await a.create(task('x', { owner: { session: 's', auth: 'u' } }));
      await a.update('x', { status: 'completed', result: { content: [{ type: 'text', text: 'ok' }] } });
      assert.deepEqual((await b.get('x', { session: 's', auth: 'u' }))?.result, { content: [{ type: 'text', text: 'ok' }] });
      assert.equal(await b.get('x', { session: 's', auth: 'other' }), undefined);
      assert.deepEqual(
        (await b.list({ session: 's', auth: 'u' }, { limit: 10 })).tasks.map((t) => t.taskId),
        ['x'],
      );
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('reports an unfinished task of a stopped instance as failed (draft: unknown), once its heartbeat expired', async () => {
    const prefix = `live${++prefixes}:`;
    const a = await RedisTaskStore.open(await connection(prefix), { heartbeatTtlMs: 300, heartbeatIntervalMs: 100 });
    const b = await RedisTaskStore.open(await connection(prefix), { heartbeatTtlMs: 300, heartbeatIntervalMs: 100 });
    try {
      await a.create(task('run'));
      await a.create(task('draft', { status: 'submitted', form: 'draft', ttlAnchor: 'terminal' }));
      assert.equal((await b.get('run'))?.status, 'working', 'a beating instance keeps its tasks');
      await a.close();
      const failed = await b.get('run');
      assert.equal(failed?.status, 'failed');
      assert.match(failed?.statusMessage ?? '', /instance running this task stopped/);
      assert.deepEqual(failed?.error, { code: -32603, message: failed?.statusMessage });
      assert.equal((await b.get('draft'))?.status, 'unknown');
      const b2 = await RedisTaskStore.open(await connection(prefix));
      assert.equal((await b2.get('run'))?.status, 'failed', 'the outcome was written once and is the same for everyone');
      await b2.close();
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('lets Redis expire a task only as a backstop: ttl plus expiryBackstopMs, none without a ttl', async () => {
    const redis = await connection();
    const store = await RedisTaskStore.open(redis, { expiryBackstopMs: 5000 });
    try {
      await store.create(task('timed', { ttlMs: 1000 }));
      await store.create(task('keep', { ttlMs: null }));
      await store.create(task('after-end', { ttlMs: 1000, ttlAnchor: 'terminal', form: 'draft', status: 'submitted' }));
      const pttl = (id: string) => redis.run((c) => c.pttl(redis.key('task', id)));
      const timed = await pttl('timed');
      assert.ok(timed > 5000 && timed <= 6000, `pttl ${timed}`);
      assert.equal(await pttl('keep'), -1, 'no expiry');
      assert.equal(await pttl('after-end'), -1, 'a keepAlive task expires only after it ends');
      await store.update('after-end', { status: 'completed', result: {} });
      assert.ok((await pttl('after-end')) > 5000);
    } finally {
      await store.close();
    }
  });

  it("does not let a restarted process with the same instanceId vouch for the dead one's tasks", async () => {
    const prefix = `same${++prefixes}:`;
    const first = await RedisTaskStore.open(await connection(prefix), { instanceId: 'host-1' });
    await first.create(task('left'));
    await first.close();
    const second = await RedisTaskStore.open(await connection(prefix), { instanceId: 'host-1' });
    try {
      assert.notEqual(second.instanceId, first.instanceId);
      assert.match(second.instanceId, /^host-1\./);
      assert.equal((await second.get('left'))?.status, 'failed');
    } finally {
      await second.close();
    }
  });

  it('validates options', async () => {
    const c = await connection();
    await assert.rejects(RedisTaskStore.open(c, { instanceId: 'a b' }), RangeError);
    await assert.rejects(RedisTaskStore.open(c, { heartbeatTtlMs: 100, heartbeatIntervalMs: 100 }), RangeError);
    await assert.rejects(RedisTaskStore.open(c, { maxFinishedTasks: 0 }), RangeError);
  });
});
