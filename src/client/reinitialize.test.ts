/**
 * A client whose session the server no longer knows starts a new one (2025-11-25 ›
 * Transports › Session Management: "When a client receives HTTP 404 in response to a request
 * containing an Mcp-Session-Id, it MUST start a new session by sending a new
 * InitializeRequest without a session ID attached"). Against mcpkit's server after DELETE
 * and after idle expiry, and against the official SDK's server after DELETE: requests keep
 * working, resource subscriptions are made again, a request the 404 refused is sent again,
 * and a tool call that was running when the session ended fails with `session_expired`
 * instead of being repeated.
 */

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { McpServer as OfficialServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { waitFor } from '../../test/helpers/http/fake-server.js';
import { StreamableHttpClientTransport } from '../http/client/streamable.js';
import { serveNode } from '../http/node.js';
import { createStreamableHttpHandler, type StreamableHttpOptions } from '../http/server/handler.js';
import { LocalError } from '../jsonrpc/errors.js';
import { McpServer } from '../server/server.js';
import { Client } from './client.js';

function deleteSession(url: string, sessionId: string): Promise<Response> {
  return fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' } });
}

/** mcpkit's server: a counting tool, a slow tool, a subscribable resource. */
async function mcpkitServer(options: Partial<StreamableHttpOptions> = {}) {
  const server = new McpServer({ name: 'renew', version: '1.0.0' });
  const calls = { count: 0, slow: 0 };
  server.registerTool('count', {}, () => String(++calls.count));
  server.registerTool('slow', {}, async (_args, ctx) => {
    calls.slow++;
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, 5_000);
      ctx.signal.addEventListener('abort', () => (clearTimeout(timer), resolve(undefined)), { once: true });
    });
    return 'slow done';
  });
  server.registerResource('demo://doc', { name: 'doc' }, () => ({ contents: [{ uri: 'demo://doc', text: 'v1' }] }));
  const handler = createStreamableHttpHandler({ server, onError: () => {}, ...options });
  const listening = await serveNode(handler, { port: 0 });
  return { server, handler, calls, url: listening.url.toString(), close: () => listening.close() };
}

describe('a new session after the old one expired', () => {
  it('mcpkit server, after DELETE: requests keep working, subscriptions are made again', async () => {
    const s = await mcpkitServer();
    const transport = new StreamableHttpClientTransport({ url: s.url });
    const client = new Client({ name: 'renew-client', version: '1.0.0' });
    try {
      await client.connect(transport);
      await client.subscribeResource('demo://doc');
      const updates: unknown[] = [];
      client.on('notifications/resources/updated', (p) => updates.push(p?.['uri']));
      const first = client.endpoint?.session.transportSessionId ?? transport.sessionId;
      assert.ok(first);
      assert.equal((await deleteSession(s.url, first)).status, 200);

      assert.equal((await client.listTools()).tools.length, 2, 'the next request works, in a new session');
      assert.equal(s.handler.sessionCount, 1);
      const sessions = [...s.server.connections];
      assert.equal(sessions.length, 1);
      assert.ok(sessions[0]!.subscriptions.has('demo://doc'), 'the subscription was made again');
      await s.server.notifyResourceUpdated('demo://doc');
      await waitFor(() => updates.length === 1, 'the update in the new session', 10_000);
    } finally {
      await client.close();
      await s.close();
    }
  });

  it('mcpkit server, after idle expiry: the refused tool call is sent again and runs once', async () => {
    const s = await mcpkitServer({ sessionIdleTimeoutMs: 200 });
    const client = new Client({ name: 'renew-client', version: '1.0.0' });
    try {
      await client.connect(new StreamableHttpClientTransport({ url: s.url, openGetStream: false }));
      assert.equal(s.handler.sessionCount, 1);
      await waitFor(() => s.handler.sessionCount === 0, 'the idle session to be reaped', 10_000);
      const result = await client.callTool({ name: 'count', arguments: {} });
      assert.deepEqual(result.content, [{ type: 'text', text: '1' }]);
      assert.equal(s.calls.count, 1, 'the 404 meant it never ran: sent once more, ran once');
    } finally {
      await client.close();
      await s.close();
    }
  });

  it('mcpkit server: a tool call running when the session ends is not repeated', async () => {
    const s = await mcpkitServer();
    const transport = new StreamableHttpClientTransport({ url: s.url, openGetStream: false });
    const client = new Client({ name: 'renew-client', version: '1.0.0' });
    try {
      await client.connect(transport);
      const running = client.callTool({ name: 'slow', arguments: {} });
      await waitFor(() => s.calls.slow === 1, 'the slow call to start', 10_000);
      await deleteSession(s.url, transport.sessionId!);
      await assert.rejects(
        running,
        (error: unknown) => error instanceof LocalError && error.code === 'session_expired' && /was not sent again/.test(error.message),
      );
      assert.equal(s.calls.slow, 1, 'not repeated');
      assert.deepEqual((await client.callTool({ name: 'count', arguments: {} })).content, [{ type: 'text', text: '1' }], 'the client works in the new session');
    } finally {
      await client.close();
      await s.close();
    }
  });

  it('official SDK server, after DELETE: the next request works in a new session', async () => {
    const transports = new Map<string, StreamableHTTPServerTransport>();
    let initializes = 0;
    const http = createServer(async (req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
      const sid = req.headers['mcp-session-id'] as string | undefined;
      let transport = sid ? transports.get(sid) : undefined;
      if (!transport && req.method === 'POST' && isInitializeRequest(body)) {
        initializes++;
        const official = new OfficialServer({ name: 'official', version: '1.0.0' });
        official.registerTool('hello', { description: 'hello' }, async () => ({ content: [{ type: 'text', text: 'hi' }] }));
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => void transports.set(id, transport!),
        });
        transport.onclose = () => {
          if (transport!.sessionId) transports.delete(transport!.sessionId);
        };
        await official.connect(transport);
      }
      if (!transport) {
        res.writeHead(sid ? 404 : 400).end();
        return;
      }
      await transport.handleRequest(req, res, body);
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
    const transport = new StreamableHttpClientTransport({ url, openGetStream: false });
    const client = new Client({ name: 'renew-client', version: '1.0.0' });
    try {
      await client.connect(transport);
      const first = transport.sessionId!;
      assert.equal((await deleteSession(url, first)).status, 200);
      await waitFor(() => !transports.has(first), 'the official server to forget the session', 10_000);
      const result = await client.callTool({ name: 'hello', arguments: {} });
      assert.deepEqual(result.content, [{ type: 'text', text: 'hi' }]);
      assert.equal(initializes, 2, 'a fresh initialize');
      assert.equal(transports.size, 1);
    } finally {
      await client.close();
      await new Promise((resolve) => http.close(resolve));
    }
  });

  it('reinitialize: false leaves the client closed with the expiry as the reason', async () => {
    const s = await mcpkitServer();
    const transport = new StreamableHttpClientTransport({ url: s.url, openGetStream: false });
    const client = new Client({ name: 'renew-client', version: '1.0.0' }, { reinitialize: false });
    try {
      await client.connect(transport);
      await deleteSession(s.url, transport.sessionId!);
      // the connection closed because of the expiry (LocalError connection_closed, its cause the 404's session_expired)
      await assert.rejects(
        client.listTools(),
        (error: unknown) =>
          error instanceof LocalError && ((error.cause as LocalError | undefined)?.code === 'session_expired' || error.code === 'session_expired'),
      );
      assert.equal(s.handler.sessionCount, 0, 'no new session');
    } finally {
      await client.close();
      await s.close();
    }
  });
});
