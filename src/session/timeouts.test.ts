/**
 * The session's one timer for every outgoing request's timeout (session.ts): each request
 * still times out on its own deadline whatever the others' are, progress pushes a deadline
 * back, and the timer holds the process open exactly while a request waits — a process
 * whose requests are all answered exits at once; one whose request is never answered stays
 * until the timeout rejects it.
 */

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { LocalError } from '../jsonrpc/errors.js';
import { InMemoryTransport } from '../transport/memory.js';
import type { TransportReceiver } from '../transport/types.js';
import { RpcChannel } from './session.js';

/** A session whose peer records requests and answers only what the test tells it to. */
function pair() {
  const [a, b] = InMemoryTransport.createPair();
  const session = new RpcChannel(
    a,
    { request: () => ({}), notification: () => {}, batchesAllowed: () => false, error: () => {} },
    { requestTimeoutMs: 60_000 },
  );
  session.start();
  const requests: { id: number; method: string }[] = [];
  const receiver: TransportReceiver = {
    message(data) {
      const m = JSON.parse(data as string) as { id?: number; method: string };
      if (m.id !== undefined) requests.push({ id: m.id, method: m.method });
    },
    error() {},
    closed() {},
  };
  b.start(receiver);
  const answer = (id: number) => b.send(JSON.stringify({ jsonrpc: '2.0', id, result: {} }));
  /** The `n`th request the peer received (0-based), once it arrived. */
  const request = async (n: number): Promise<{ id: number; method: string }> => {
    while (requests.length <= n) await new Promise((r) => setImmediate(r));
    return requests[n]!;
  };
  return {
    session,
    requests,
    request,
    answer,
    progress: (token: number, progress: number) =>
      b.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress } })),
  };
}

const outcome = (p: Promise<unknown>) =>
  p.then(
    () => 'answered',
    (e: unknown) => (e instanceof LocalError ? e.code : String(e)),
  );

test('a short timeout issued after a long one still expires on time; the long one is unaffected', async () => {
  const { session, request, answer } = pair();
  const long = outcome(session.request('a/long', undefined, { timeoutMs: 5_000 }));
  const t0 = Date.now();
  const short = outcome(session.request('a/short', undefined, { timeoutMs: 150 }));
  assert.equal(await short, 'timeout');
  const took = Date.now() - t0;
  assert.ok(took >= 140 && took < 2_000, `the short request expired after ${took} ms`);
  answer((await request(0)).id);
  assert.equal(await long, 'answered');
  await session.close();
});

test('many requests with mixed deadlines each expire at their own, in order', async () => {
  const { session } = pair();
  const t0 = Date.now();
  const order: number[] = [];
  const timeouts = [400, 100, 300, 200, 100];
  await Promise.all(
    timeouts.map((ms, i) =>
      session.request(`m/${i}`, undefined, { timeoutMs: ms }).catch((e: unknown) => {
        assert.ok(e instanceof LocalError && e.code === 'timeout');
        assert.ok(Date.now() - t0 >= ms - 5, `request ${i} (${ms} ms) expired at ${Date.now() - t0} ms`);
        order.push(ms);
      }),
    ),
  );
  assert.deepEqual(order, [100, 100, 200, 300, 400]);
  assert.equal(session.pendingCount, 0);
  await session.close();
});

test('progress pushes a deadline back: a request kept alive by progress outlives its timeout', async () => {
  const { session, request, progress, answer } = pair();
  let progressed = 0;
  const call = outcome(session.request('slow/job', undefined, { timeoutMs: 200, onProgress: () => void progressed++ }));
  const { id } = await request(0);
  for (let i = 1; i <= 4; i++) {
    await new Promise((r) => setTimeout(r, 120));
    progress(id, i);
  }
  // 480 ms have passed, well beyond 200 ms, but each progress came within 200 ms of the last
  answer(id);
  assert.equal(await call, 'answered');
  assert.equal(progressed, 4);
  await session.close();
});

test('a request timed out after the others were answered still expires (the timer outlives idle spells)', async () => {
  const { session, request, answer } = pair();
  const first = outcome(session.request('x/1', undefined));
  answer((await request(0)).id);
  assert.equal(await first, 'answered');
  const late = outcome(session.request('x/2', undefined, { timeoutMs: 100 }));
  assert.equal(await late, 'timeout');
  await session.close();
});

/** Runs `body` (an ES module's text importing the built session) in a fresh Node; returns its exit, output and time. */
function runChild(body: string): { status: number | null; stdout: string; ms: number } {
  const session = fileURLToPath(new URL('./session.js', import.meta.url));
  const memory = fileURLToPath(new URL('../transport/memory.js', import.meta.url));
  const source = `import { RpcChannel } from ${JSON.stringify(session)};\nimport { InMemoryTransport } from ${JSON.stringify(memory)};\n${body}`;
  const t0 = Date.now();
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', source], { encoding: 'utf8', timeout: 30_000 });
  return { status: r.status, stdout: r.stdout, ms: Date.now() - t0 };
}

const CHILD_SETUP = `
const [a, b] = InMemoryTransport.createPair();
const session = new RpcChannel(a, { request: () => ({}), notification: () => {}, batchesAllowed: () => false }, { requestTimeoutMs: 20000 });
session.start();
let answer = true;
b.start({ message(d) { const m = JSON.parse(d); if (m.id !== undefined && answer) b.send(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: {} })); }, error() {}, closed() {} });
`;

test('a process whose requests were all answered exits at once (the idle timer holds nothing)', () => {
  const r = runChild(`${CHILD_SETUP}
for (let i = 0; i < 50; i++) await session.request('ping');
console.log('done');`);
  assert.equal(r.stdout.trim(), 'done');
  assert.equal(r.status, 0);
  assert.ok(r.ms < 15_000, `the process took ${r.ms} ms to exit: the 20 s timer held it`);
});

test('a process waiting for an unanswered request stays until the timeout rejects it', () => {
  const r = runChild(`${CHILD_SETUP}
await session.request('ping');
answer = false;
try { await session.request('never', undefined, { timeoutMs: 400 }); console.log('answered'); }
catch (e) { console.log(e.code); }`);
  assert.equal(r.stdout.trim(), 'timeout', 'the process must not exit before the timeout fires');
  assert.equal(r.status, 0);
});
