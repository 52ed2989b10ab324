/**
 * Redis restarted during a bounded load (issue 15 item 7): two `mcpkit demo --http --redis
 * URL` processes on one real redis-server serve one 2025-11-25 session (every other
 * operation on the other process, so both hold it) with 200 operations, half task-augmented
 * `tools/call` (`long_running_job` with `params.task`, then `tasks/result` on the other
 * process; 2025-11-25 › Tasks) and half plain `tools/call` (`echo`), eight at a time. A
 * quarter of the way in, the redis-server is stopped by its PID (SIGTERM) while requests are
 * in flight; a fifth of the load runs against no Redis at all; then Redis is started again on
 * the same port and the rest runs.
 *
 * Durability needs Redis persistence: with persistence off a restarted Redis is empty and
 * every task is gone (docs/redis.md, "Nothing acknowledged is lost"). This Redis writes the
 * append-only file with fsync on every write (`appendonly yes`, `appendfsync always`), the
 * configuration the docs ask for. "Acknowledged" means the server answered: the task's
 * result returned by `tasks/result`, or the task's creation (`CreateTaskResult`).
 *
 * Asserts: no process exits; every answer is a success or a clear error — a JSON-RPC error
 * with a code and a message (-32603 `Internal error` for what needed Redis), or HTTP 503
 * with `Retry-After` and a JSON-RPC error body (a new session while Redis is down,
 * RFC 9110 § 15.6.4) — and arrives within the bound (no hang); once Redis is back every
 * operation succeeds; every task result acknowledged before the restart is still readable,
 * unchanged, from both processes; `touch_watched_resource` (which raises resources/updated,
 * published to the other process) succeeds throughout, and after the restart the update it
 * raises on B reaches the GET stream on A; every task whose creation was acknowledged ends
 * `completed` with its result, read from both processes within a bounded wait — also a task
 * whose work ended while Redis was down: its process held the outcome and wrote it once Redis
 * was back (the task engine's final write retry, docs/redis.md); `working` is only allowed
 * while waiting for that.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { SseReader } from '../../test/helpers/http/server-harness.js';
import { type DemoProcess, startRedisDemo, stopRedisDemo } from '../../test/helpers/redis/demo-process.js';
import { type RedisServer, startRedis } from '../../test/helpers/redis/redis-server.js';
import { until } from '../../test/helpers/redis/task-peer.js';

const REVISION = '2025-11-25';
const WATCHED = 'test://watched-resource';
const OPERATIONS = 200;
const CONCURRENCY = 8;
/** Redis is stopped when this operation starts. */
const STOP_AT = 50;
/** Redis is started again once the operations before this one have answered. */
const RESTART_AT = 90;
/** A request still unanswered after this counts as hung (the demo's Redis commands time out after 2 s). */
const HANG_MS = 20_000;

/** One HTTP answer: status, Retry-After, and the JSON-RPC response (from a JSON body or the SSE stream), or `hung`. */
interface Answer {
  status: number;
  retryAfter: string | null;
  message: { result?: any; error?: { code?: unknown; message?: unknown } } | undefined;
  hung?: true;
}

let nextId = 1;

/** POSTs one request; bounded by {@link HANG_MS}. */
async function request(url: string, sessionId: string | undefined, method: string, params: Record<string, unknown>): Promise<Answer> {
  const id = nextId++;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': REVISION,
  };
  if (sessionId !== undefined) headers['mcp-session-id'] = sessionId;
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id, method, params }), signal: AbortSignal.timeout(HANG_MS) });
    text = await res.text();
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') return { status: 0, retryAfter: null, message: undefined, hung: true };
    throw error;
  }
  let messages: unknown[] = [];
  if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    for (const event of text.split(/\r?\n\r?\n/)) {
      const data = event
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart())
        .join('\n');
      if (data !== '') messages.push(JSON.parse(data));
    }
  } else if (text !== '') messages = [JSON.parse(text)];
  const message = messages.find(
    (m) => (m as { id?: unknown }).id === id || ((m as { id?: unknown }).id === null && 'error' in (m as object)),
  ) as Answer['message'];
  return { status: res.status, retryAfter: res.headers.get('retry-after'), message };
}

/** Initializes a session on `url` (initialize, then notifications/initialized); the session id when it was accepted, and the answer. */
async function initialize(url: string): Promise<{ sessionId?: string; answer: Answer }> {
  const body = {
    jsonrpc: '2.0',
    id: nextId++,
    method: 'initialize',
    params: { protocolVersion: REVISION, capabilities: {}, clientInfo: { name: 'restart-under-load', version: '1.0.0' } },
  };
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(HANG_MS),
  });
  const text = await res.text();
  const data = res.headers.get('content-type')?.startsWith('text/event-stream')
    ? text
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trim())
        .at(-1)
    : text;
  const answer: Answer = { status: res.status, retryAfter: res.headers.get('retry-after'), message: data ? JSON.parse(data) : undefined };
  const sessionId = res.headers.get('mcp-session-id') ?? undefined;
  if (res.status !== 200 || sessionId === undefined) return { answer };
  const ack = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': sessionId,
      'mcp-protocol-version': REVISION,
    },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    signal: AbortSignal.timeout(HANG_MS),
  });
  await ack.text();
  assert.equal(ack.status, 202);
  return { sessionId, answer };
}

/** Why `answer` is not a success or a clear error; undefined when it is one of those. */
function unclear(answer: Answer): string | undefined {
  if (answer.hung) return `no answer within ${HANG_MS} ms`;
  if (answer.status === 503) {
    if (answer.retryAfter === null) return '503 without Retry-After';
    const e = answer.message?.error;
    return typeof e?.code === 'number' && typeof e.message === 'string' && e.message !== ''
      ? undefined
      : `503 without a JSON-RPC error body: ${JSON.stringify(answer.message)}`;
  }
  if (answer.status !== 200) return `HTTP ${answer.status}: ${JSON.stringify(answer.message)}`;
  if (answer.message === undefined) return 'HTTP 200 without the response';
  if (answer.message.result !== undefined) return undefined;
  const e = answer.message.error;
  return Number.isInteger(e?.code) && typeof e?.message === 'string' && e.message !== ''
    ? undefined
    : `an error without code or message: ${JSON.stringify(answer.message)}`;
}

const ok = (a: Answer) => a.status === 200 && a.message?.result !== undefined;

let redis: RedisServer;
let demos: DemoProcess[] = [];
before(async () => {
  redis = await startRedis({ appendOnly: true });
  demos = await Promise.all([startRedisDemo(redis.url), startRedisDemo(redis.url)]);
});
after(async () => {
  for (const demo of demos) await stopRedisDemo(demo);
  await redis?.close();
});

it('survives a Redis restart under 200 operations on two demo processes: clear errors, no hang, nothing acknowledged lost', async (t) => {
  const [a, b] = demos as [DemoProcess, DemoProcess];
  const opened = await initialize(a.url);
  assert.ok(opened.sessionId, `initialize: ${JSON.stringify(opened.answer)}`);
  const sessionId = opened.sessionId;

  const problems: string[] = [];
  const check = (what: string, answer: Answer) => {
    const why = unclear(answer);
    if (why !== undefined) problems.push(`${what}: ${why}`);
  };
  /** Task id → result text, for every result `tasks/result` returned (before, during or after the outage). */
  const acknowledgedResults = new Map<string, string>();
  /** Task ids whose creation was acknowledged (CreateTaskResult). */
  const created = new Set<string>();
  const failedWhileDown: string[] = [];
  let restarted = false;
  let stopping: Promise<void> | undefined;

  const operation = async (i: number): Promise<void> => {
    const [first, second] = (i >> 1) % 2 === 0 ? [a, b] : [b, a];
    const phase = restarted ? 'after' : stopping === undefined ? 'before' : 'during';
    if (i % 10 === 5) {
      // raises resources/updated, published to the other process: a publish that fails while Redis is down is reported, never the caller's error
      const answer = await request(first.url, sessionId, 'tools/call', { name: 'touch_watched_resource', arguments: {} });
      check(`touch ${i} (${phase})`, answer);
      if (!ok(answer)) problems.push(`touch ${i} (${phase}) failed: ${JSON.stringify(answer.message)}`);
      else assert.match(answer.message!.result.content[0].text, /^version \d+$/);
      return;
    }
    if (i % 2 === 1) {
      const answer = await request(first.url, sessionId, 'tools/call', { name: 'echo', arguments: { message: `plain ${i}` } });
      check(`plain call ${i} (${phase})`, answer);
      if (phase === 'after' && !ok(answer)) problems.push(`plain call ${i} after the restart failed: ${JSON.stringify(answer.message)}`);
      if (ok(answer)) assert.deepEqual(answer.message!.result.content, [{ type: 'text', text: `plain ${i}` }]);
      else failedWhileDown.push(`plain ${i}`);
      return;
    }
    const made = await request(first.url, sessionId, 'tools/call', { name: 'long_running_job', arguments: { ms: 10, steps: 1 }, task: { ttl: 600_000 } });
    check(`task call ${i} (${phase})`, made);
    if (!ok(made)) {
      if (phase === 'after') problems.push(`task call ${i} after the restart failed: ${JSON.stringify(made.message)}`);
      failedWhileDown.push(`task ${i}`);
      return;
    }
    const taskId = made.message!.result.task?.taskId as string;
    assert.equal(typeof taskId, 'string', JSON.stringify(made.message));
    created.add(taskId);
    const result = await request(second.url, sessionId, 'tasks/result', { taskId });
    check(`tasks/result ${i} (${phase})`, result);
    if (ok(result)) {
      const text = result.message!.result.content?.[0]?.text as string;
      assert.match(text, /^finished 1 steps in \d+ ms$/);
      acknowledgedResults.set(taskId, text);
    } else if (phase === 'after') problems.push(`tasks/result ${i} after the restart failed: ${JSON.stringify(result.message)}`);
  };

  let next = 0;
  let answered = 0;
  let restart: Promise<void> | undefined;
  const worker = async () => {
    while (next < OPERATIONS) {
      const i = next++;
      if (i === STOP_AT) stopping = redis.stop();
      // the first operations after STOP_AT race with Redis's shutdown (it writes its
      // append-only file first); the later ones wait until it is down, so some surely meet
      // the outage however quick the machine is
      if (i >= STOP_AT + CONCURRENCY && !restarted) await stopping;
      if (i >= RESTART_AT && !restarted) {
        // the restart waits for the operations before RESTART_AT (bounded by HANG_MS each)
        restart ??= (async () => {
          await until('the operations before the restart to answer', () => answered >= RESTART_AT, 4 * HANG_MS);
          await stopping;
          // new sessions while Redis is down: 503 with Retry-After, from both processes
          for (const demo of [a, b]) {
            const refused = await initialize(demo.url);
            assert.equal(refused.sessionId, undefined);
            assert.equal(refused.answer.status, 503, JSON.stringify(refused.answer));
            assert.ok(refused.answer.retryAfter !== null, 'Retry-After');
            check('initialize while Redis is down', refused.answer);
          }
          await redis.restart();
          // service resumes: the processes reconnect in the background (capped backoff)
          await until(
            'a new session to be accepted again on both processes',
            async () => {
              for (const demo of [a, b]) {
                if ((await initialize(demo.url)).sessionId !== undefined) continue;
                await new Promise((resolve) => setTimeout(resolve, 200));
                return false;
              }
              return true;
            },
            4 * HANG_MS,
          );
          restarted = true;
        })();
        await restart;
      }
      try {
        await operation(i);
      } finally {
        answered++;
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));

  assert.deepEqual(problems, [], `unclear or failed answers:\n${problems.join('\n')}\n--- demo A stderr:\n${a.stderr()}\n--- demo B stderr:\n${b.stderr()}`);
  assert.ok(failedWhileDown.length > 0, 'some operations ran while Redis was down');
  assert.ok(acknowledgedResults.size > 0, 'some task results were acknowledged');

  // nothing acknowledged is lost: every result acknowledged (before the stop, during it, after the restart), from both processes
  for (const [taskId, text] of acknowledgedResults) {
    for (const demo of [a, b]) {
      const got = await request(demo.url, sessionId, 'tasks/get', { taskId });
      assert.equal(got.message?.result?.status, 'completed', `tasks/get ${taskId}: ${JSON.stringify(got.message)}`);
      const again = await request(demo.url, sessionId, 'tasks/result', { taskId });
      assert.equal(again.message?.result?.content?.[0]?.text, text, `tasks/result ${taskId}`);
    }
  }
  // Every task whose creation was acknowledged ends `completed` with its result, read from both
  // processes. A task whose work ended while Redis was down had its outcome held by its process
  // and written once Redis was back (the engine's final write retry, docs/redis.md): nothing
  // stays `working`, none vanished, none failed. Bounded: the retry runs at most 5 s apart.
  const settled = new Set<string>();
  await until(
    'every acknowledged task to read completed with its result from both processes',
    async () => {
      for (const taskId of created) {
        if (settled.has(taskId)) continue;
        let done = true;
        for (const demo of [a, b]) {
          const got = await request(demo.url, sessionId, 'tasks/get', { taskId });
          assert.ok(ok(got), `tasks/get ${taskId}: ${JSON.stringify(got.message)}`);
          const status = got.message!.result.status as string;
          assert.ok(
            status === 'completed' || status === 'working',
            `task ${taskId} is ${status}: ${JSON.stringify(got.message)}\n--- demo A stderr:\n${a.stderr()}\n--- demo B stderr:\n${b.stderr()}`,
          );
          if (status !== 'completed') done = false;
        }
        if (!done) return false;
        for (const demo of [a, b]) {
          const result = await request(demo.url, sessionId, 'tasks/result', { taskId });
          assert.match(
            result.message?.result?.content?.[0]?.text ?? '',
            /^finished 1 steps in \d+ ms$/,
            `tasks/result ${taskId}: ${JSON.stringify(result.message)}`,
          );
          const known = acknowledgedResults.get(taskId);
          if (known !== undefined) assert.equal(result.message!.result.content[0].text, known, `tasks/result ${taskId} changed`);
        }
        settled.add(taskId);
      }
      return true;
    },
    HANG_MS,
  );
  const late = created.size - acknowledgedResults.size;
  // change notifications flow between the processes again (the bus subscribed anew after the restart):
  // subscribed on A, GET stream on A, the change raised on B
  const subscribed = await request(a.url, sessionId, 'resources/subscribe', { uri: WATCHED });
  assert.ok(ok(subscribed), JSON.stringify(subscribed.message));
  const stream = await fetch(a.url, {
    headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': REVISION },
    signal: AbortSignal.timeout(4 * HANG_MS),
  });
  assert.equal(stream.status, 200);
  const reader = new SseReader(stream);
  const touched = await request(b.url, sessionId, 'tools/call', { name: 'touch_watched_resource', arguments: {} });
  assert.ok(ok(touched), JSON.stringify(touched.message));
  let update: { method?: string; params?: { uri?: string } } | undefined;
  // (the stream also carries what the session queued for it before: the tasks' log messages)
  while (update === undefined) {
    const event = await reader.next(HANG_MS);
    const message = event.data === '' ? undefined : JSON.parse(event.data);
    if (message?.method === 'notifications/resources/updated') update = message;
  }
  assert.deepEqual(update, { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: WATCHED } });
  await reader.cancel();

  for (const demo of [a, b]) assert.equal(demo.child.exitCode ?? demo.child.signalCode, null, 'the process is still running');
  // the plain and task operations after the restart all succeeded (checked above); say what happened in between
  t.diagnostic(
    `${acknowledgedResults.size} task results acknowledged by tasks/result, ${created.size} tasks created (${late} of them completed only later, all now completed), ${failedWhileDown.length} operations refused while Redis was down`,
  );
});
