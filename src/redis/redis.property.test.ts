/**
 * Property tests of the Redis pieces against a real redis-server (bounded: 25 runs each).
 * - RedisEventStore replays exactly what the in-memory store does for the same appends
 *   (the newest `maxEventsPerStream` above the sequence number, oldest first), with data
 *   of any Unicode text (the SSE `data` is the message JSON, stored verbatim).
 * - Key parts: distinct ids never map to the same key part, and every key part is a plain
 *   word (what a client sends never reaches a key unchecked).
 * - RedisTaskStore: whatever mix of updates two instances race on one task, at most one
 *   terminal write wins and the status read afterwards never changes again (2025-11-25 ›
 *   Tasks: terminal statuses are final).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { type RedisServer, startRedis } from '../../test/helpers/redis/redis-server.js';
import { InMemoryEventStore } from '../http/server/event-store.js';
import type { TaskPatch } from '../tasks/store.js';
import { isTerminal } from '../tasks/types.js';
import { RedisConnection } from './connection.js';
import { RedisEventStore } from './event-store.js';
import { RedisTaskStore } from './task-store.js';

const RUNS = 25;
let server: RedisServer;
let a: RedisConnection;
let b: RedisConnection;
before(async () => {
  server = await startRedis();
  a = await RedisConnection.connect({ url: server.url, prefix: 'prop:' });
  b = await RedisConnection.connect({ url: server.url, prefix: 'prop:' });
});
after(async () => {
  await a.close();
  await b.close();
  await server.close();
});

let runs = 0;

test('RedisEventStore replays what the in-memory store replays', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.string({ unit: 'grapheme', maxLength: 40 }), { maxLength: 30 }),
      fc.integer({ min: 1, max: 8 }),
      fc.integer({ min: 0, max: 35 }),
      async (data, max, afterSeq) => {
        const key = `s${++runs}/1`;
        const redis = new RedisEventStore(a, { maxEventsPerStream: max });
        const model = new InMemoryEventStore({ maxEventsPerStream: max });
        for (let i = 0; i < data.length; i++) {
          await redis.append(key, i + 1, data[i]!);
          model.append(key, i + 1, data[i]!);
        }
        assert.deepEqual(await new RedisEventStore(b, { maxEventsPerStream: max }).replay(key, afterSeq), model.replay(key, afterSeq));
      },
    ),
    { numRuns: RUNS },
  );
});

test('key parts: injective, and always plain words', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 200 }), fc.string({ unit: 'binary', maxLength: 200 }), (x, y) => {
      for (const id of [a.id(x), a.id(y)]) assert.match(id, /^(~[0-9a-f]{64}|[A-Za-z0-9._/-]{1,128})$/);
      if (x !== y) assert.notEqual(a.id(x), a.id(y));
    }),
    { numRuns: 500 },
  );
});

const patch = fc.constantFrom<TaskPatch>(
  { status: 'completed', result: { ok: true } },
  { status: 'failed', error: { code: -32603, message: 'x' } },
  { status: 'cancelled', statusMessage: 'c' },
  { status: 'input_required' },
  { status: 'working', statusMessage: 'w' },
  { statusMessage: 'note' },
);

test('RedisTaskStore: two instances racing on one task end it at most once, and it stays ended', async () => {
  const sa = await RedisTaskStore.open(a);
  const sb = await RedisTaskStore.open(b);
  try {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.boolean(), patch), { minLength: 1, maxLength: 8 }), async (ops) => {
        const id = `race-${++runs}`;
        await sa.create({ taskId: id, status: 'working', ttlMs: 60_000, ttlAnchor: 'created', owner: {}, method: 'tools/call', form: '2025-11-25' });
        const outcomes = await Promise.allSettled(ops.map(([onA, p]) => (onA ? sa : sb).update(id, p)));
        const ended = outcomes.filter((o) => o.status === 'fulfilled' && isTerminal(o.value.status));
        assert.ok(ended.length <= 1, `${ended.length} terminal writes won`);
        for (const o of outcomes) if (o.status === 'rejected') assert.equal((o.reason as { code?: string }).code, 'terminal');
        const final = await sb.get(id);
        if (ended.length === 1) assert.equal(final?.status, (ended[0] as PromiseFulfilledResult<{ status: string }>).value.status);
        else assert.ok(!isTerminal(final!.status));
      }),
      { numRuns: RUNS },
    );
  } finally {
    await sa.close();
    await sb.close();
  }
});
