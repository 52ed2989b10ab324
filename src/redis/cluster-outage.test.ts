/**
 * Issue 36 item 4: an answer to a server → client request POSTed to an instance that cannot
 * relay it to the asking one (its Redis is unreachable) gets 503 with `Retry-After`, so the
 * client sends it again, instead of 202 and a lost answer. Two `mcpkit demo --http --redis`
 * processes on one real redis-server; instance B reaches Redis through a TCP relay the test
 * cuts. A raw client (fetch) places every request on the instance it names.
 */
import assert from 'node:assert/strict';
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';
import { after, before, it } from 'node:test';
import { type DemoProcess, startRedisDemo, stopRedisDemo } from '../../test/helpers/redis/demo-process.js';
import { type RedisServer, startRedis } from '../../test/helpers/redis/redis-server.js';

let redis: RedisServer;
let relay: Server;
const sockets = new Set<Socket>();
let a: DemoProcess;
let b: DemoProcess;

before(async () => {
  redis = await startRedis();
  relay = createServer((client) => {
    const upstream = connect(Number(new URL(redis.url).port), '127.0.0.1');
    sockets.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  [a, b] = await Promise.all([startRedisDemo(redis.url), startRedisDemo(`redis://127.0.0.1:${(relay.address() as AddressInfo).port}`)]);
});
after(async () => {
  await stopRedisDemo(a);
  await stopRedisDemo(b);
  await redis.close();
});

/** Cuts instance B off from Redis: the relay takes no more connections and drops the open ones. */
async function cutB(): Promise<void> {
  await new Promise((resolve) => {
    relay.close(resolve);
    for (const socket of sockets) socket.destroy();
  });
}

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };

function post(demo: DemoProcess, session: string | undefined, body: unknown): Promise<Response> {
  return fetch(demo.url, { method: 'POST', headers: session === undefined ? HEADERS : { ...HEADERS, 'mcp-session-id': session }, body: JSON.stringify(body) });
}

/** Reads SSE `data` messages from `response` until `want` matches one; returns it. */
async function nextMessage(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  buffer: { text: string },
  want: (m: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown>> {
  const decoder = new TextDecoder();
  for (;;) {
    let end: number;
    while ((end = buffer.text.indexOf('\n\n')) >= 0) {
      const event = buffer.text.slice(0, end);
      buffer.text = buffer.text.slice(end + 2);
      const data = event
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trim())
        .join('\n');
      if (data === '') continue;
      const m = JSON.parse(data) as Record<string, unknown>;
      if (want(m)) return m;
    }
    const { value, done } = await reader.read();
    if (done) throw new Error('the stream ended');
    buffer.text += decoder.decode(value, { stream: true });
  }
}

it('answers 503 with Retry-After to an answer it cannot relay, and the answer sent again completes the call', { timeout: 30_000 }, async () => {
  const init = await post(a, undefined, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: { sampling: {} }, clientInfo: { name: 'outage', version: '1' } },
  });
  assert.equal(init.status, 200);
  await init.text();
  const session = init.headers.get('mcp-session-id')!;
  assert.equal((await post(a, session, { jsonrpc: '2.0', method: 'notifications/initialized' })).status, 202);
  // B holds the session too
  const ping = await post(b, session, { jsonrpc: '2.0', id: 1, method: 'ping' });
  assert.equal(ping.status, 200);
  await ping.text();

  const call = await post(a, session, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'test_sampling', arguments: { prompt: 'hi' } } });
  assert.equal(call.status, 200);
  const reader = call.body!.getReader();
  const buffer = { text: '' };
  const asked = await nextMessage(reader, buffer, (m) => m.method === 'sampling/createMessage');
  const answer = { jsonrpc: '2.0', id: asked.id, result: { role: 'assistant', model: 'stub', content: { type: 'text', text: 'relayed' } } };

  await cutB();
  const refused = await post(b, session, answer);
  assert.equal(refused.status, 503, 'an answer that cannot be relayed is not accepted');
  assert.ok(refused.headers.get('retry-after'));
  await refused.text();

  // sent again (to the asking instance here): delivered
  assert.equal((await post(a, session, answer)).status, 202);
  const result = await nextMessage(reader, buffer, (m) => m.id === 2);
  assert.deepEqual((result.result as { content: unknown }).content, [{ type: 'text', text: 'LLM response: relayed' }]);
  await reader.cancel();
});
