/**
 * kill -9 of the instance holding a session's SSE stream mid-response (issue 15, "What it
 * must show"): two demo-server processes (test/helpers/redis/instance.ts `serve`) share
 * sessions, SSE events and tasks through one real redis-server. A client (raw fetch and SSE
 * parsing, so every event id is checked) calls a slow tool on A that sends a progress
 * notification per step; after some events A is killed with SIGKILL. The client resumes with
 * `Last-Event-ID` on B (2025-03-26 › Streamable HTTP › Resumability and Redelivery) and:
 * - receives every event A stored that it had not received, exactly once: the sequence
 *   numbers of both parts together are 1, 2, …, m without gap or repeat, and they are exactly
 *   the events in Redis; then B ends the stream (the response was never produced). Two
 *   streams show it: one still connected to A when it dies, one whose connection broke
 *   earlier while A ran on (so B's replay is certainly not empty);
 * - a task that was running on A is reported by B as `failed` with a message saying its
 *   instance stopped (2025-11-25 › Tasks; RedisTaskStore's heartbeat), within a bounded time;
 * - a task A completed before it died has its result readable from B (`tasks/result`).
 * A second case kills A while B is already following the stream live: B ends the stream
 * after the last event A stored, again each event once. A third drives the official SDK
 * client (`@modelcontextprotocol/sdk`, its own reconnection; its resuming GETs go to B)
 * over a link that stops delivering before the kill (so B's replay is certain to carry
 * events): its handlers see every notification A stored exactly once, in order, and its
 * reconnections stop (B answers 400 once the stream was replayed to its end).
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { ACCEPT_BOTH, initRequest, LATEST, note, type ReadEvent, rpc, SseReader } from '../../test/helpers/http/server-harness.js';
import { type RedisServer, startRedis } from '../../test/helpers/redis/redis-server.js';
import { kill, type ServingInstance, spawnServing } from '../../test/helpers/redis/spawn-instance.js';
import { until } from '../../test/helpers/redis/task-peer.js';
import type { StoredEvent } from '../http/server/event-store.js';
import type { JSONObject } from '../jsonrpc/types.js';
import { RedisConnection } from './connection.js';
import { RedisEventStore } from './event-store.js';

const PREFIX = 'kill:';
const HEARTBEAT_TTL_MS = 1000;

let server: RedisServer;
let redis: RedisConnection;
const children: ServingInstance[] = [];
before(async () => {
  server = await startRedis();
  redis = await RedisConnection.connect({ url: server.url, prefix: PREFIX });
});
after(async () => {
  for (const child of children) await kill(child.child);
  await redis.close();
  await server.close();
});

async function serving(name: string): Promise<ServingInstance> {
  const instance = await spawnServing(server.url, PREFIX, name, HEARTBEAT_TTL_MS);
  children.push(instance);
  return instance;
}

function headers(sessionId: string | undefined, more: Record<string, string> = {}): Record<string, string> {
  const h: Record<string, string> = { accept: ACCEPT_BOTH, 'content-type': 'application/json', 'mcp-protocol-version': LATEST, ...more };
  if (sessionId !== undefined) h['mcp-session-id'] = sessionId;
  return h;
}

function send(url: string, sessionId: string | undefined, body: unknown): Promise<Response> {
  return fetch(url, { method: 'POST', headers: headers(sessionId), body: JSON.stringify(body) });
}

/** Sends request `id` and returns its response message (from JSON or the SSE stream). */
async function call(url: string, sessionId: string, id: number, method: string, params: JSONObject): Promise<any> {
  const res = await send(url, sessionId, rpc(id, method, params));
  assert.equal(res.status, 200, `${method}: HTTP ${res.status}`);
  if (res.headers.get('content-type') !== 'text/event-stream') return res.json();
  const messages = await new SseReader(res).restMessages();
  const response = messages.find((m) => m.id === id && m.method === undefined);
  assert.ok(response, `${method}: no response on the stream`);
  return response;
}

async function openSession(url: string): Promise<string> {
  const res = await send(url, undefined, initRequest());
  assert.equal(res.status, 200);
  const sessionId = res.headers.get('mcp-session-id')!;
  assert.ok(sessionId);
  assert.equal((await send(url, sessionId, note('notifications/initialized'))).status, 202);
  return sessionId;
}

/** `<tag>.<stream>:<seq>` → its parts. */
function parseId(id: string): { label: string; tag: string; stream: string; seq: number } {
  const m = /^([A-Za-z0-9_-]+)\.(\d+):(\d+)$/.exec(id);
  assert.ok(m, `event id ${id} names an instance, a stream and a sequence number`);
  return { label: `${m[1]}.${m[2]}:`, tag: m[1]!, stream: m[2]!, seq: Number(m[3]) };
}

/** Reads events until the stream ends or breaks (the instance died); returns those with data. */
async function readUntilBroken(sse: SseReader): Promise<ReadEvent[]> {
  const out: ReadEvent[] = [];
  for (;;) {
    let e: ReadEvent;
    try {
      e = await sse.next();
    } catch {
      return out;
    }
    if (e.data !== '') out.push(e);
  }
}

/** Starts the slow tool on `url`: one progress notification per step, 40 steps of 100 ms. */
async function slowCall(url: string, sessionId: string, id: number): Promise<SseReader> {
  const res = await send(
    url,
    sessionId,
    rpc(id, 'tools/call', { name: 'long_running_job', arguments: { ms: 4000, steps: 40 }, _meta: { progressToken: `p${id}` } }),
  );
  assert.equal(res.status, 200);
  const sse = new SseReader(res);
  const priming = await sse.next();
  assert.equal(priming.data, '');
  parseId(priming.id);
  return sse;
}

function resume(url: string, sessionId: string, lastEventId: string): Promise<Response> {
  return fetch(url, {
    method: 'GET',
    headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': LATEST, 'last-event-id': lastEventId },
  });
}

/**
 * The events Redis holds for the stream of event id `id`, read once Redis dropped the dead
 * owner's connections (so every command it sent was applied: the log is final).
 */
async function storedOf(sessionId: string, id: string): Promise<StoredEvent[]> {
  await until('Redis to drop the killed instance', async () => {
    const reply = (await redis.run((c) => c.pubsub('NUMSUB', `${PREFIX}sessions:stream:${parseId(id).tag}`))) as unknown[];
    return Number(reply[1]) === 0;
  });
  return storedNow(sessionId, id);
}

/** Every event the store holds of the stream of event `id`, read now. */
function storedNow(sessionId: string, id: string): Promise<StoredEvent[]> {
  const { tag, stream } = parseId(id);
  return new RedisEventStore(redis).replay(`${sessionId}.${tag}/${stream}`, 0);
}

/** Asserts the events of both parts are the `stored` events exactly once, in order, and none is a response. */
function assertExactlyOnce(stored: StoredEvent[], before: ReadEvent[], after: ReadEvent[]): void {
  // the resuming instance ends the stream with an error answer for the request A never answered (issue 36 item 2)
  const last = after.at(-1);
  assert.ok(last !== undefined, 'the resumption ended with the error answer');
  const orphan = JSON.parse(last.data);
  assert.equal(orphan.error?.code, -32603, `the last event answers the request A never answered: ${last.data}`);
  assert.match(orphan.error.message, /stopped before answering/);
  after = after.slice(0, -1);
  const ids = [...before, ...after].map((e) => e.id);
  const { label } = parseId(ids[0]!);
  assert.ok(
    ids.every((id) => id.startsWith(label)),
    'every event is of the one stream',
  );
  const seqs = ids.map((id) => parseId(id).seq);
  assert.deepEqual(
    seqs,
    seqs.map((_, i) => i + 1),
    'sequence numbers 1..m: no gap, no repeat',
  );
  assert.deepEqual(
    stored.map((e) => e.seq),
    seqs,
    'exactly the events A stored',
  );
  assert.deepEqual(
    [...before, ...after].map((e) => e.data),
    stored.map((e) => e.data),
  );
  for (const e of [...before, ...after]) assert.notEqual(JSON.parse(e.data).method, undefined, 'no response: A died before producing it');
}

it('kill -9 of the instance holding the stream: the client resumes on another, every event once; tasks are reported truthfully', async () => {
  const a = await serving('a');
  const b = await serving('b');
  const sessionId = await openSession(a.url);

  // a task completed on A, and one still running there
  const done = await call(a.url, sessionId, 1, 'tools/call', { name: 'long_running_job', arguments: { ms: 0, steps: 1 }, task: { ttl: 600_000 } });
  const doneId: string = done.result.task.taskId;
  await until('the short task to complete', async () => (await call(a.url, sessionId, 2, 'tasks/get', { taskId: doneId })).result.status === 'completed');
  const running = await call(a.url, sessionId, 3, 'tools/call', { name: 'long_running_job', arguments: { ms: 600_000, steps: 1000 }, task: { ttl: 600_000 } });
  const runningId: string = running.result.task.taskId;
  assert.equal((await call(b.url, sessionId, 4, 'tasks/get', { taskId: runningId })).result.status, 'working', 'B sees it working while A lives');

  // stream X: its client's connection broke after 3 events (A runs on, storing); stream Y: connected when A dies
  const x = await slowCall(a.url, sessionId, 10);
  const receivedX: ReadEvent[] = [];
  for (let i = 0; i < 3; i++) receivedX.push(await x.next());
  await x.cancel();
  const xKey = (() => {
    const { tag, stream } = parseId(receivedX[0]!.id);
    return `${sessionId}.${tag}/${stream}`;
  })();
  const sse = await slowCall(a.url, sessionId, 5);
  const received: ReadEvent[] = [];
  for (let i = 0; i < 5; i++) received.push(await sse.next());
  await until("A to store events X's client missed", async () => (await new RedisEventStore(redis).replay(xKey, 0)).length >= 6);
  await kill(a.child);
  received.push(...(await readUntilBroken(sse)));
  const stored = await storedOf(sessionId, received[0]!.id);
  const storedX = await storedOf(sessionId, receivedX[0]!.id);

  const res = await resume(b.url, sessionId, received.at(-1)!.id);
  assert.equal(res.status, 200);
  const resumed = new SseReader(res);
  const priming = await resumed.next();
  assert.equal(priming.id, received.at(-1)!.id);
  const rest = (await resumed.rest()).filter((e) => e.data !== '');
  assertExactlyOnce(stored, received, rest);
  assert.equal((await resume(b.url, sessionId, (rest.at(-1) ?? received.at(-1)!).id)).status, 400, 'replayed to its end: forgotten, as on one instance');

  const resX = await resume(b.url, sessionId, receivedX.at(-1)!.id);
  assert.equal(resX.status, 200);
  const restX = (await new SseReader(resX).rest()).filter((e) => e.data !== '');
  assert.ok(restX.length >= 3, "B replays the events X's client missed");
  assertExactlyOnce(storedX, receivedX, restX);

  // the running task: failed, with a message, once A's heartbeat expired
  await until(
    'B to report the task of the killed instance failed',
    async () => (await call(b.url, sessionId, 6, 'tasks/get', { taskId: runningId })).result.status === 'failed',
    20_000,
  );
  const failed = await call(b.url, sessionId, 7, 'tasks/get', { taskId: runningId });
  assert.match(failed.result.statusMessage, /instance running this task stopped/);
  const failedResult = await call(b.url, sessionId, 8, 'tasks/result', { taskId: runningId });
  assert.equal(failedResult.error.code, -32603);
  // the completed task: its result, from the survivor
  const result = await call(b.url, sessionId, 9, 'tasks/result', { taskId: doneId });
  assert.match(result.result.content[0].text, /^finished 1 steps/);
});

it('kill -9 of the owner while another instance follows its stream live: the follower ends it after the last stored event', async () => {
  const a = await serving('a2');
  const b = await serving('b2');
  const sessionId = await openSession(a.url);
  const sse = await slowCall(a.url, sessionId, 1);
  const received: ReadEvent[] = [];
  for (let i = 0; i < 3; i++) received.push(await sse.next());
  await sse.cancel();

  const res = await resume(b.url, sessionId, received.at(-1)!.id);
  assert.equal(res.status, 200);
  const resumed = new SseReader(res);
  await resumed.next(); // priming
  // B follows A live now: a few more events, then A dies
  for (let i = 0; i < 3; i++) {
    const e = await resumed.next();
    if (e.data !== '') received.push(e);
  }
  // The follower deletes the stream once it wrote the rest, so the stored events are read
  // while A is frozen (SIGSTOP: it writes nothing more, and its Redis connections stay open,
  // so B does not end the follow yet), after Redis has run what A sent before it froze.
  a.child.kill('SIGSTOP');
  await new Promise((resolve) => setTimeout(resolve, 300));
  const stored = await storedNow(sessionId, received[0]!.id);
  await kill(a.child);
  const rest = (await resumed.rest()).filter((e) => e.data !== '');
  assertExactlyOnce(stored, received, rest);
});

/**
 * A response whose body the client stops receiving at `stall()` (what arrives afterwards is
 * held back, as on a dead link) and that breaks at `cut()`: the events in between are lost.
 */
class Link {
  #stalled = false;
  #cut: (() => void) | undefined;
  #cutNow = false;

  wrap(res: Response): Response {
    const reader = res.body!.getReader();
    const body = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        if (this.#stalled) {
          await new Promise<void>((resolve) => {
            this.#cut = () => {
              controller.error(new Error('the link broke'));
              resolve();
            };
            if (this.#cutNow) this.#cut();
          });
          return;
        }
        const { value, done } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      cancel: () => void reader.cancel().catch(() => {}),
    });
    return new Response(body, { status: res.status, headers: res.headers });
  }

  stall(): void {
    this.#stalled = true;
  }

  cut(): void {
    this.#cutNow = true;
    this.#cut?.();
  }
}

it('the official SDK client across a kill -9: every notification A stored once, in order, then an error answer for the call A never answered', async () => {
  const a = await serving('a3');
  const b = await serving('b3');
  const link = new Link();
  const resumes: string[] = [];
  const route: typeof fetch = async (_input, init) => {
    const lastEventId = new Headers(init?.headers).get('last-event-id');
    if (init?.method === 'GET' && lastEventId !== null) {
      resumes.push(lastEventId);
      return fetch(b.url, init);
    }
    const res = await fetch(a.url, init);
    return typeof init?.body === 'string' && init.body.includes('long_running_job') ? link.wrap(res) : res;
  };
  const client = new Client({ name: 'sdk-kill', version: '1.0.0' });
  const errors: string[] = [];
  client.onerror = (e) => void errors.push(e.message);
  const received: string[] = [];
  let afterCut = 0;
  let cutDone = false;
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    received.push(`log ${JSON.stringify(n.params.data)}`);
    if (cutDone) afterCut++;
  });
  const transport = new StreamableHTTPClientTransport(new URL(a.url), {
    fetch: route,
    reconnectionOptions: { initialReconnectionDelay: 20, maxReconnectionDelay: 100, reconnectionDelayGrowFactor: 1.5, maxRetries: 2 },
  });
  await client.connect(transport);
  await client.setLoggingLevel('debug');
  const progress: number[] = [];
  let token = '';
  const abort = new AbortController();
  const call = client.callTool({ name: 'long_running_job', arguments: { ms: 4000, steps: 40 } }, undefined, {
    signal: abort.signal,
    onresumptiontoken: (t) => void (token = t),
    onprogress: (p) => {
      progress.push(p.progress);
      received.push(`progress ${p.progress}`);
      if (progress.length === 5) link.stall();
      if (cutDone) afterCut++;
    },
  });
  call.catch(() => {});
  await until('5 progress notifications', () => progress.length >= 5);
  const { tag, stream } = parseId(token);
  const store = new RedisEventStore(redis);
  await until(
    'A to store events the client does not get',
    async () => (await store.replay(`${transport.sessionId}.${tag}/${stream}`, 0)).length >= parseId(token).seq + 10,
  );
  await kill(a.child);
  const stored = await storedOf(transport.sessionId!, token);
  cutDone = true;
  link.cut();
  // B answers the request A never answered with an error (issue 36 item 2): the call ends, no timeout
  let ended = '';
  call.catch((e: Error) => void (ended = e.message));
  await until('the call to end with the error answer', () => ended !== '', 20_000);
  assert.match(ended, /stopped before answering/);

  const expected = stored.map((e) => {
    const m = JSON.parse(e.data);
    return m.method === 'notifications/progress' ? `progress ${m.params.progress}` : `log ${JSON.stringify(m.params.data)}`;
  });
  assert.deepEqual(received, expected, 'every notification A stored, each once, in order');
  assert.ok(afterCut >= 10, `B replayed what the broken link lost (${afterCut})`);
  assert.deepEqual(
    progress,
    progress.map((_, i) => i + 1),
  );
  assert.ok(
    resumes.some((id) => id.startsWith(`${tag}.${stream}:`)),
    "the SDK resumed the call's stream on B",
  );
  // B forgets the stream once its replay ended; that delete can land just after the call ends
  await until(
    'the stream replayed to its end on B to be forgotten (the next resumption got 400)',
    async () => (await store.replay(`${transport.sessionId}.${tag}/${stream}`, 0)).length === 0,
  );
  await transport.close().catch(() => {});
});
