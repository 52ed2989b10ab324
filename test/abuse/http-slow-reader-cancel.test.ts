/**
 * Fault and abuse suite, HTTP server: a client that opens a long request's SSE stream and then
 * never reads it. While the request keeps producing (progress notifications with a large
 * message), the Node adapter's queue for that reader grows; past `maxQueuedBytes` (or with no
 * drain progress for `stallTimeoutMs`) the reader is cut, the cut is reported through
 * `onError`, and the request is cancelled: the handler's signal fires, as if the client had
 * sent `notifications/cancelled` (MCP 2025-11-25 › Utilities › Cancellation; RFC 9112 § 9.6
 * lets the server close the connection). Work nobody reads is not kept going.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { serveNode } from '../../src/http/node.js';
import { createStreamableHttpHandler } from '../../src/http/server/handler.js';
import { McpServer } from '../../src/server/server.js';
import { eventually, neverReadingPost, openSession, REVISION } from './http-child.js';

test('a reader cut for not reading has its request cancelled, and the cut is reported', { timeout: 60_000 }, async () => {
  const server = new McpServer({ name: 'flood', version: '1.0.0' });
  let sent = 0;
  let aborted = false;
  const filler = 'x'.repeat(32 * 1024);
  server.registerTool('flood', {}, async (_args, ctx) => {
    // bounded: at most 2000 notifications of 32 KiB (64 MiB), far past the 1 MiB queue bound
    for (let i = 1; i <= 2000 && !ctx.signal.aborted; i++) {
      await ctx.sendProgress(i, undefined, filler);
      sent = i;
      await new Promise((resolve) => setImmediate(resolve));
    }
    aborted = ctx.signal.aborted;
    return 'done';
  });
  const errors: Error[] = [];
  const handler = createStreamableHttpHandler({ server, onError: (e) => errors.push(e) });
  const listening = await serveNode(handler, { port: 0, maxQueuedBytes: 1024 * 1024, stallTimeoutMs: 2_000 });
  try {
    const url = listening.url.toString();
    const sessionId = await openSession(url);
    const body = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'flood', arguments: {}, _meta: { progressToken: 'p' } } });
    const socket = await neverReadingPost(url, body, { 'mcp-session-id': sessionId, 'mcp-protocol-version': REVISION });
    try {
      assert.ok(await eventually(() => aborted, 45_000), `the handler was never cancelled (it sent ${sent} notifications)`);
      assert.ok(sent < 2000, 'the work stopped before its end');
      assert.ok(
        errors.some((e) => e.name === 'SlowReaderError'),
        `the cut was reported (${errors.map((e) => e.message).join('; ')})`,
      );
    } finally {
      socket.destroy();
    }
  } finally {
    await listening.close();
    await handler.close?.();
  }
});
