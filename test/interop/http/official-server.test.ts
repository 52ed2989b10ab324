/**
 * Interop over HTTP, mcpkit's client against servers built with the official SDK (v1):
 * Streamable HTTP with a stream the server drops mid-call (SEP-1699: the client waits
 * `retry` and resumes with GET + Last-Event-ID), and the 2025-03-26 back-compatibility
 * path: the first POST gets a 4xx, so the client falls back to the legacy HTTP+SSE
 * transport at the same URL. Each test runs twice: over `fetch`, and over mcpkit's own
 * requester (`nodeHttpRequester`).
 */

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { InMemoryEventStore } from '@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js';
import { McpServer as OfficialServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { Client } from '../../../src/client/client.js';
import { FallbackTransport } from '../../../src/http/client/fallback.js';
import { StreamableHttpClientTransport } from '../../../src/http/client/streamable.js';
import { type NodeHttpRequester, nodeHttpRequester } from '../../../src/http/node.js';

function officialServer(onDrop?: () => void): OfficialServer {
  const server = new OfficialServer({ name: 'official-http', version: '1.0.0' }, { capabilities: { logging: {} } });
  server.registerTool('echo', { description: 'echo', inputSchema: { message: z.string() } }, async ({ message }) => ({
    content: [{ type: 'text', text: message }],
  }));
  server.registerTool('drop_then_answer', { description: 'closes its SSE stream, then answers' }, async (extra) => {
    await server.server.sendLoggingMessage({ level: 'info', data: 'before drop' }, extra.sessionId);
    extra.closeSSEStream?.();
    onDrop?.();
    await new Promise((r) => setTimeout(r, 150));
    return { content: [{ type: 'text', text: 'answered after the drop' }] };
  });
  return server;
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text.length > 0 ? JSON.parse(text) : undefined;
}

const streamable = new Map<string, StreamableHTTPServerTransport>();
const legacy = new Map<string, SSEServerTransport>();
let drops = 0;
let getsWithLastEventId = 0;

const http = createServer(async (req: IncomingMessage, res: ServerResponse) => {
  try {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/mcp') {
      if (req.method === 'GET' && req.headers['last-event-id']) getsWithLastEventId++;
      const body = req.method === 'POST' ? await readBody(req) : undefined;
      const sid = req.headers['mcp-session-id'] as string | undefined;
      let transport = sid ? streamable.get(sid) : undefined;
      if (!transport && req.method === 'POST' && isInitializeRequest(body)) {
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          eventStore: new InMemoryEventStore(),
          retryInterval: 100,
          onsessioninitialized: (id) => void streamable.set(id, transport!),
        });
        await officialServer(() => drops++).connect(transport);
      }
      if (!transport) {
        res.writeHead(sid ? 404 : 400).end();
        return;
      }
      await transport.handleRequest(req, res, body);
      return;
    }
    // A server that predates Streamable HTTP: POST to the endpoint is not allowed, GET opens
    // the legacy SSE stream whose `endpoint` event names where to POST.
    if (url.pathname === '/legacy') {
      if (req.method !== 'GET') {
        res.writeHead(405, { Allow: 'GET' }).end();
        return;
      }
      const transport = new SSEServerTransport('/messages', res);
      legacy.set(transport.sessionId, transport);
      res.on('close', () => legacy.delete(transport.sessionId));
      await officialServer().connect(transport);
      return;
    }
    if (url.pathname === '/messages' && req.method === 'POST') {
      const transport = legacy.get(url.searchParams.get('sessionId') ?? '');
      if (!transport) {
        res.writeHead(404).end();
        return;
      }
      await transport.handlePostMessage(req, res, await readBody(req));
      return;
    }
    res.writeHead(404).end();
  } catch (err) {
    if (!res.headersSent) res.writeHead(500).end(String(err));
  }
});
await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
after(async () => {
  for (const t of streamable.values()) await t.close().catch(() => {});
  for (const t of legacy.values()) await t.close().catch(() => {});
  http.closeAllConnections();
  await new Promise((r) => http.close(r));
});

async function probeGone(sid: string): Promise<boolean> {
  const res = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  await res.arrayBuffer();
  return res.status === 404;
}

for (const via of ['fetch', 'nodeHttpRequester'] as const) {
  const makeRequester = (): NodeHttpRequester | undefined => (via === 'fetch' ? undefined : nodeHttpRequester());

  test(`mcpkit client → official Streamable HTTP server: calls, logs, a dropped stream resumed, DELETE on close (${via})`, async () => {
    const requester = makeRequester();
    const client = new Client({ name: 'mcpkit-interop', version: '1.0.0' });
    const logs: unknown[] = [];
    client.on('notifications/message', (p) => logs.push(p?.data));
    const transport = new StreamableHttpClientTransport({ url: `${base}/mcp`, requester });
    const init = await client.connect(transport);
    assert.equal(init.serverInfo.name, 'official-http');
    assert.equal(client.protocolVersion, '2025-11-25');
    assert.ok(transport.sessionId && streamable.has(transport.sessionId));

    const echo = await client.callTool({ name: 'echo', arguments: { message: 'over http' } });
    assert.deepEqual(echo.content, [{ type: 'text', text: 'over http' }]);

    const dropsBefore = drops;
    const gets = getsWithLastEventId;
    const r = await client.callTool({ name: 'drop_then_answer' }, { timeoutMs: 10_000 });
    assert.deepEqual(r.content, [{ type: 'text', text: 'answered after the drop' }]);
    assert.equal(drops, dropsBefore + 1, 'the official server closed the stream mid-call');
    assert.ok(getsWithLastEventId > gets, 'the client resumed with GET + Last-Event-ID');
    assert.ok(logs.includes('before drop'));

    const sid = transport.sessionId!;
    await client.close();
    for (let i = 0; i < 50 && streamable.get(sid) && !(await probeGone(sid)); i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(await probeGone(sid), true, 'DELETE ended the session on the official server');
    requester?.close();
  });

  test(`mcpkit client falls back to the legacy HTTP+SSE transport of an official server after a 4xx (${via})`, async () => {
    const requester = makeRequester();
    const client = new Client({ name: 'mcpkit-interop', version: '1.0.0' });
    const transport = new FallbackTransport(`${base}/legacy`, { requester });
    await client.connect(transport);
    assert.equal(transport.kind, 'sse');
    const tools = await client.listAllTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ['drop_then_answer', 'echo']);
    const echo = await client.callTool({ name: 'echo', arguments: { message: 'legacy' } });
    assert.deepEqual(echo.content, [{ type: 'text', text: 'legacy' }]);
    await client.close();
    requester?.close();
  });
}
