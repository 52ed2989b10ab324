/**
 * Issue 36 item 6: a session deleted is deleted everywhere before DELETE is answered. Three
 * `mcpkit demo --http --redis URL` processes behind a round-robin proxy each hold the
 * session (a request reached every one); right after the 200 to DELETE, requests to every
 * instance get 404. Before: the deletion was announced after the reply, and the other
 * instances still answered some of them (0–3 of 400), which failed the conformance suite's
 * `server-session-lifecycle` 3 times in 10 through the cluster.
 *
 * Two of the three instances reach Redis through a relay that delays what Redis sends them
 * by 40 ms (a slower network path, or a busy instance reading its subscriber late), which
 * makes the race of the old code certain rather than occasional.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { after, before, it } from 'node:test';
import { type RoundRobinProxy, roundRobinProxy } from '../../test/helpers/http/round-robin-proxy.js';
import { type DemoProcess, startRedisDemo, stopRedisDemo } from '../../test/helpers/redis/demo-process.js';
import { type RedisServer, startRedis } from '../../test/helpers/redis/redis-server.js';

let redis: RedisServer;
let demos: DemoProcess[] = [];
let proxy: RoundRobinProxy;
let relay: Server;
const sockets = new Set<Socket>();

/** A TCP relay to `port` that delays every chunk Redis sends by `ms` (order kept). */
async function slowRelay(port: number, ms: number): Promise<Server> {
  const server = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    sockets.add(client).add(upstream);
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => setTimeout(() => client.writable && client.write(chunk), ms));
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

before(async () => {
  redis = await startRedis();
  relay = await slowRelay(Number(new URL(redis.url).port), 40);
  const slowUrl = `redis://127.0.0.1:${(relay.address() as AddressInfo).port}`;
  demos = await Promise.all([redis.url, slowUrl, slowUrl].map((url) => startRedisDemo(url)));
  proxy = await roundRobinProxy(demos.map((d) => d.port));
});
after(async () => {
  await proxy?.close();
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => relay?.close(resolve));
  for (const demo of demos) await stopRedisDemo(demo);
  await redis?.close();
});

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };

async function post(session: string | undefined, body: unknown): Promise<Response> {
  return fetch(proxy.url, { method: 'POST', headers: session === undefined ? HEADERS : { ...HEADERS, 'mcp-session-id': session }, body: JSON.stringify(body) });
}

async function newSession(): Promise<string> {
  const init = await post(undefined, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'delete-test', version: '1' } },
  });
  assert.equal(init.status, 200);
  await init.text();
  const id = init.headers.get('mcp-session-id')!;
  const note = await post(id, { jsonrpc: '2.0', method: 'notifications/initialized' });
  assert.equal(note.status, 202);
  return id;
}

it('answers no request of a session after the 200 to its DELETE, on any instance (60 sessions, 9 requests each)', { timeout: 60_000 }, async () => {
  let served = 0;
  let total = 0;
  for (let round = 0; round < 60; round++) {
    const id = await newSession();
    // every instance holds it now (and the DELETE reaches each instance in turn)
    for (let i = 0; i < 3 + (round % 3); i++) {
      const ping = await post(id, { jsonrpc: '2.0', id: 1 + i, method: 'ping' });
      assert.equal(ping.status, 200);
      await ping.text();
    }
    const deleted = await fetch(proxy.url, { method: 'DELETE', headers: { 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' } });
    assert.equal(deleted.status, 200);
    const after = await Promise.all(
      Array.from({ length: 9 }, (_, i) => post(id, { jsonrpc: '2.0', id: 10 + i, method: 'ping' }).then(async (r) => (await r.text(), r.status))),
    );
    total += after.length;
    served += after.filter((status) => status !== 404).length;
  }
  assert.equal(served, 0, `${served} of ${total} requests were served after the DELETE`);
});
