// The HTTP front of `mcpkit dev` in-process, in front of real mcpkit servers on 127.0.0.1.
// Streamable HTTP (MCP 2025-06-18 "Transports", session management): the server assigns
// Mcp-Session-Id at initialization; a request with an unknown session id gets 404.

import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { McpServer } from '../../server/index.js';
import { DevHttpProxy, type ProxyTarget } from './http-proxy.js';
import { serveHttp } from './serve.js';

const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const initBody = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
});

async function generation(id: number, text: string): Promise<ProxyTarget & { close(): Promise<void> }> {
  const server = new McpServer({ name: 'g', version: String(id) });
  server.registerTool('hello', { inputSchema: { type: 'object' } }, async () => ({ content: [{ type: 'text', text }] }));
  const running = await serveHttp(server, 0, () => {});
  return { id, port: running.port, close: () => running.close() };
}

async function front(proxy: DevHttpProxy): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(proxy.handle);
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: () => new Promise<void>((ok) => (server.closeAllConnections(), server.close(() => ok()))),
  };
}

async function open(url: string): Promise<string> {
  const res = await fetch(url, { method: 'POST', headers, body: initBody });
  assert.equal(res.status, 200);
  await res.text();
  const sid = res.headers.get('mcp-session-id')!;
  const ack = await fetch(url, {
    method: 'POST',
    headers: { ...headers, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  assert.equal(ack.status, 202);
  return sid;
}

const call = async (url: string, sid: string) => {
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...headers, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'hello', arguments: {} } }),
  });
  return { status: res.status, text: await res.text() };
};

test('sessions move to the new generation; the oldest beyond maxSessions is forgotten (404 after a reload)', async () => {
  const logs: string[] = [];
  const proxy = new DevHttpProxy({ log: (m) => void logs.push(m), maxSessions: 1 });
  const one = await generation(1, 'one');
  const two = await generation(2, 'two');
  const http = await front(proxy);
  try {
    proxy.setCurrent(one);
    const forgotten = await open(http.url);
    const kept = await open(http.url);
    assert.equal(proxy.sessionCount, 1);
    assert.match((await call(http.url, kept)).text, /"one"/);
    proxy.setCurrent(two);
    assert.match((await call(http.url, kept)).text, /"two"/);
    assert.equal((await call(http.url, forgotten)).status, 404);
    assert.deepEqual(logs, []);
  } finally {
    await http.close();
    await one.close();
    await two.close();
  }
});

test('no generation: waits, then 503 with Retry-After; a POST body past the limit is 413 and not forwarded', async () => {
  const proxy = new DevHttpProxy({ log: () => {}, waitForServerMs: 50, maxInitializeBodyBytes: 300 });
  const http = await front(proxy);
  const one = await generation(1, 'one');
  try {
    const waited = await fetch(http.url, { method: 'POST', headers, body: initBody });
    assert.equal(waited.status, 503);
    assert.equal(waited.headers.get('retry-after'), '1');
    await waited.text();
    proxy.setCurrent(one);
    const big = await fetch(http.url, { method: 'POST', headers, body: 'x'.repeat(301) });
    assert.equal(big.status, 413);
    await big.text();
    const late = fetch(http.url, { method: 'POST', headers, body: initBody });
    assert.equal((await late).status, 200);
  } finally {
    await http.close();
    await one.close();
  }
});

test('a request held while no generation serves is delivered when one arrives', async () => {
  const proxy = new DevHttpProxy({ log: () => {} });
  const http = await front(proxy);
  const one = await generation(1, 'one');
  try {
    const pending = fetch(http.url, { method: 'POST', headers, body: initBody });
    await new Promise((r) => setTimeout(r, 100));
    proxy.setCurrent(one);
    const res = await pending;
    assert.equal(res.status, 200);
    await res.text();
  } finally {
    await http.close();
    await one.close();
  }
});
