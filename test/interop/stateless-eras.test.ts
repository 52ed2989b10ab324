/**
 * Interop across eras with the official SDK (v1, which speaks only the 2025 era) as the
 * peer: a dual-era mcpkit client probes with `server/discover`, is refused, and falls back
 * to `initialize` — over stdio (the official server as a child process), over Streamable
 * HTTP (the official server in-process) and down to the legacy HTTP+SSE transport; and the
 * official client still reaches mcpkit's dual-era server over HTTP with `initialize`.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client as OfficialClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as OfficialHttpClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer as OfficialServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ALL_REVISIONS, Client } from '../../src/client/index.js';
import { createDemoServer } from '../../src/demo/server.js';
import { FallbackTransport } from '../../src/http/client/fallback.js';
import { serveNode } from '../../src/http/node.js';
import { createStreamableHttpHandler } from '../../src/http/server/handler.js';
import type { JSONObject } from '../../src/jsonrpc/types.js';
import { StdioClientTransport } from '../../src/stdio/index.js';
import { recordTransport } from '../../src/testing/recording-transport.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/official-server.js', import.meta.url));

function official(): OfficialServer {
  const server = new OfficialServer({ name: 'official-v1', version: '1.0.0' });
  server.registerTool('echo', { description: 'echo', inputSchema: { message: z.string() } }, async ({ message }) => ({
    content: [{ type: 'text', text: message }],
  }));
  return server;
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text.length > 0 ? JSON.parse(text) : undefined;
}

const sessions = new Map<string, StreamableHTTPServerTransport>();
const legacy = new Map<string, SSEServerTransport>();
/** Methods of the POSTs the official HTTP server received, in order. */
const posted: string[] = [];

const http = createServer(async (req: IncomingMessage, res: ServerResponse) => {
  try {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/mcp') {
      const body = req.method === 'POST' ? await readBody(req) : undefined;
      if (body !== undefined) posted.push(String((body as { method?: unknown }).method));
      const sid = req.headers['mcp-session-id'] as string | undefined;
      let transport = sid ? sessions.get(sid) : undefined;
      if (!transport && req.method === 'POST' && isInitializeRequest(body)) {
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => void sessions.set(id, transport!),
        });
        await official().connect(transport);
      }
      if (!transport) {
        // what the official SDK's examples answer to a request without a session
        res
          .writeHead(400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: No valid session ID provided' }, id: null }));
        return;
      }
      await transport.handleRequest(req, res, body);
      return;
    }
    if (url.pathname === '/legacy') {
      if (req.method !== 'GET') {
        res.writeHead(405, { Allow: 'GET' }).end();
        return;
      }
      const transport = new SSEServerTransport('/messages', res);
      legacy.set(transport.sessionId, transport);
      await official().connect(transport);
      return;
    }
    if (url.pathname === '/messages') {
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
  for (const t of sessions.values()) await t.close().catch(() => {});
  for (const t of legacy.values()) await t.close().catch(() => {});
  http.closeAllConnections();
  await new Promise<void>((resolve) => http.close(() => resolve()));
});

describe('a dual-era mcpkit client and 2025-era official servers', () => {
  it('falls back to initialize over stdio', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [FIXTURE, 'full'],
      stderr: 'pipe',
      closeTimeouts: { stdinMs: 1000, termMs: 1000 },
    });
    const client = new Client({ name: 'dual', version: '1.0.0' }, { protocolVersions: ALL_REVISIONS });
    const recorder = recordTransport(transport, { side: 'client', revision: () => client.protocolVersion });
    await client.connect(recorder, { timeoutMs: 10_000 });
    try {
      assert.equal(client.era, 'stateful');
      assert.equal(client.protocolVersion, '2025-11-25');
      const sent = recorder.transcript.filter((e) => e.dir === 'send').map((e) => (e.message as JSONObject).method);
      assert.deepEqual(sent.slice(0, 3), ['server/discover', 'initialize', 'notifications/initialized']);
      assert.ok((await client.listAllTools()).length > 0);
      recorder.assertNoViolations();
    } finally {
      await client.close();
    }
  });

  it('falls back to initialize over Streamable HTTP', async () => {
    posted.length = 0;
    const transport = new FallbackTransport(`${base}/mcp`);
    const client = new Client({ name: 'dual', version: '1.0.0' }, { protocolVersions: ALL_REVISIONS });
    await client.connect(transport, { timeoutMs: 10_000 });
    try {
      assert.equal(client.era, 'stateful');
      assert.equal(transport.kind, 'streamable-http');
      assert.deepEqual(posted.slice(0, 3), ['server/discover', 'initialize', 'notifications/initialized']);
      const r = await client.callTool({ name: 'echo', arguments: { message: 'across eras' } });
      assert.deepEqual(r.content, [{ type: 'text', text: 'across eras' }]);
    } finally {
      await client.close();
    }
  });

  it('falls back further to the legacy HTTP+SSE transport', async () => {
    const transport = new FallbackTransport(`${base}/legacy`);
    const client = new Client({ name: 'dual', version: '1.0.0' }, { protocolVersions: ALL_REVISIONS });
    await client.connect(transport, { timeoutMs: 10_000 });
    try {
      assert.equal(client.era, 'stateful');
      assert.equal(transport.kind, 'sse');
      assert.deepEqual((await client.callTool({ name: 'echo', arguments: { message: 'old' } })).content, [{ type: 'text', text: 'old' }]);
    } finally {
      await client.close();
    }
  });
});

describe("the official client and mcpkit's dual-era server", () => {
  it('initializes and calls tools over Streamable HTTP', async () => {
    const handler = createStreamableHttpHandler({ server: createDemoServer({ tasks: false }) });
    const running = await serveNode(handler, { port: 0, host: '127.0.0.1' });
    const client = new OfficialClient({ name: 'official-client', version: '1.0.0' });
    try {
      await client.connect(new OfficialHttpClientTransport(new URL(running.url)));
      const tools = await client.listTools();
      assert.ok(tools.tools.some((t) => t.name === 'test_input_required_result_elicitation'));
      const r = await client.callTool({ name: 'echo', arguments: { message: 'from v1' } });
      assert.deepEqual(r.content, [{ type: 'text', text: 'from v1' }]);
    } finally {
      await client.close();
      await running.close();
    }
  });
});
