/**
 * Issue 36 item 5: resource updates raised while no GET stream is attached anywhere are not
 * lost. Three `mcpkit demo --http --redis URL` processes on one real redis-server; a raw
 * client (fetch) places each request on the instance it names.
 *
 * - Between GETs: the client's GET on instance G breaks; an update is raised on instance P;
 *   the client resumes with `Last-Event-ID` on instance R and gets it. 40 rounds, the three
 *   instances taking each role in turn. Before: G dropped the relayed update (no GET
 *   attached) and P kept it under its own stream, which the client never resumes (6 of 40
 *   lost with the official client's 1 s reconnect delay).
 * - Before the first GET: updates raised before the client ever opened a GET reach its first
 *   GET on an instance that held the session when they were raised (the bound: a shared
 *   session's GET stream exists on every instance holding it from the moment it holds it).
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { type DemoProcess, startRedisDemo, stopRedisDemo } from '../../test/helpers/redis/demo-process.js';
import { type RedisServer, startRedis } from '../../test/helpers/redis/redis-server.js';

let redis: RedisServer;
let demos: DemoProcess[] = [];

before(async () => {
  redis = await startRedis();
  demos = await Promise.all([0, 1, 2].map(() => startRedisDemo(redis.url)));
});
after(async () => {
  for (const demo of demos) await stopRedisDemo(demo);
  await redis.close();
});

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
let nextId = 100;

async function post(demo: DemoProcess, session: string | undefined, body: unknown): Promise<Response> {
  return fetch(demo.url, { method: 'POST', headers: session === undefined ? HEADERS : { ...HEADERS, 'mcp-session-id': session }, body: JSON.stringify(body) });
}

/** A request answered in full (SSE or JSON); asserts 200. */
async function call(demo: DemoProcess, session: string, method: string, params?: unknown): Promise<void> {
  const r = await post(demo, session, { jsonrpc: '2.0', id: nextId++, method, params });
  assert.equal(r.status, 200);
  await r.text();
}

async function newSession(): Promise<string> {
  const init = await post(demos[0]!, undefined, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'standalone', version: '1' } },
  });
  assert.equal(init.status, 200);
  await init.text();
  const session = init.headers.get('mcp-session-id')!;
  assert.equal((await post(demos[0]!, session, { jsonrpc: '2.0', method: 'notifications/initialized' })).status, 202);
  // every instance holds it; the subscription is written through
  for (const demo of demos) await call(demo, session, 'ping');
  await call(demos[1]!, session, 'resources/subscribe', { uri: 'test://watched-resource' });
  return session;
}

interface SseEvent {
  id: string | undefined;
  data: string;
}

/** A GET stream: reads events as they come. */
class GetStream {
  readonly #controller = new AbortController();
  readonly #events: SseEvent[] = [];
  #buffer = '';
  #waiter: (() => void) | undefined;
  readonly opened: Promise<number>;

  constructor(demo: DemoProcess, session: string, lastEventId?: string) {
    const headers: Record<string, string> = { accept: 'text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
    if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
    this.opened = fetch(demo.url, { headers, signal: this.#controller.signal }).then((r) => {
      void this.#read(r.body!.getReader());
      return r.status;
    });
  }

  async #read(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        this.#buffer += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = this.#buffer.indexOf('\n\n')) >= 0) {
          const lines = this.#buffer.slice(0, end).split('\n');
          this.#buffer = this.#buffer.slice(end + 2);
          const id = lines
            .find((l) => l.startsWith('id:'))
            ?.slice(3)
            .trim();
          const data = lines
            .filter((l) => l.startsWith('data:'))
            .map((l) => l.slice(5).trim())
            .join('\n');
          this.#events.push({ id, data });
          this.#waiter?.();
        }
      }
    } catch {
      // aborted
    }
  }

  /** The id of the last event with one (the priming event included). */
  get lastId(): string | undefined {
    for (let i = this.#events.length - 1; i >= 0; i--) if (this.#events[i]!.id !== undefined) return this.#events[i]!.id;
    return undefined;
  }

  /** The resources/updated notifications received. */
  get updates(): number {
    return this.#events.filter((e) => e.data.includes('notifications/resources/updated')).length;
  }

  /** Waits until `predicate` holds (at most `ms`); false when it did not. */
  async until(predicate: () => boolean, ms = 5000): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (!predicate()) {
      if (Date.now() >= deadline) return false;
      await new Promise<void>((resolve) => {
        this.#waiter = resolve;
        setTimeout(resolve, 50);
      });
    }
    return true;
  }

  close(): void {
    this.#controller.abort();
  }
}

it('keeps updates raised between GETs for the resumption on another instance (40 rounds)', { timeout: 60_000 }, async () => {
  const session = await newSession();
  let get = new GetStream(demos[0]!, session);
  assert.equal(await get.opened, 200);
  assert.ok(await get.until(() => get.lastId !== undefined), 'the priming event came');
  let lost = 0;
  let duplicated = 0;
  for (let round = 0; round < 40; round++) {
    const [g, p, r] = [round % 3, (round + 1) % 3, (round + 2) % 3];
    void g;
    const lastId = get.lastId!;
    get.close();
    await new Promise((resolve) => setTimeout(resolve, 30)); // the instance saw the GET go
    await call(demos[p]!, session, 'tools/call', { name: 'touch_watched_resource', arguments: {} });
    await new Promise((resolve) => setTimeout(resolve, 30)); // the update was relayed and stored
    get = new GetStream(demos[r]!, session, lastId);
    assert.equal(await get.opened, 200);
    if (!(await get.until(() => get.updates >= 1, 3000))) lost++;
    // each update once: none written twice
    await new Promise((resolve) => setTimeout(resolve, 30));
    if (get.updates > 1) duplicated++;
  }
  get.close();
  assert.equal(lost, 0, `${lost} of 40 updates raised between GETs were lost`);
  assert.equal(duplicated, 0, `${duplicated} of 40 updates came twice`);
});

it('gives a first GET the updates raised before it, on an instance that held the session then', { timeout: 30_000 }, async () => {
  const session = await newSession();
  await call(demos[1]!, session, 'tools/call', { name: 'touch_watched_resource', arguments: {} });
  await call(demos[1]!, session, 'tools/call', { name: 'touch_watched_resource', arguments: {} });
  await new Promise((resolve) => setTimeout(resolve, 100));
  const get = new GetStream(demos[2]!, session);
  assert.equal(await get.opened, 200);
  assert.ok(await get.until(() => get.updates === 2, 3000), `the first GET got ${get.updates} of the 2 updates`);
  get.close();
});
