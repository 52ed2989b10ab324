/**
 * `StreamableHttpClientTransport.close()` lets the POSTs without requests already on their
 * way finish (bounded by `closeTimeoutMs`) before it aborts the rest and DELETEs the
 * session: a request cancelled just before `close()` is cancelled at the server, against
 * mcpkit's own server over HTTP (2025-11-25, sessions).
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '../../client/client.js';
import { LocalError } from '../../jsonrpc/errors.js';
import { McpServer } from '../../server/server.js';
import { serveNode } from '../node.js';
import { createStreamableHttpHandler } from '../server/handler.js';
import { StreamableHttpClientTransport } from './streamable.js';

const REASON = 'the user pressed stop';

test('close() right after a request was aborted: the notifications/cancelled still reaches the server', async () => {
  const server = new McpServer({ name: 'close-flush', version: '1.0.0' });
  let started: () => void = () => {};
  const running = new Promise<void>((r) => (started = r));
  let observed: (reason: unknown) => void = () => {};
  const aborted = new Promise<unknown>((r) => (observed = r));
  server.registerTool('wait', { description: 'waits until cancelled' }, (_args: unknown, ctx) => {
    started();
    return new Promise((_resolve, reject) => {
      ctx.signal.addEventListener(
        'abort',
        () => {
          observed(ctx.signal.reason);
          reject(ctx.signal.reason);
        },
        { once: true },
      );
    });
  });
  const http = await serveNode(createStreamableHttpHandler({ server }));
  try {
    const client = new Client({ name: 'close-flush-client', version: '1.0.0' }, { protocolVersion: '2025-11-25' });
    const transport = new StreamableHttpClientTransport({ url: http.url, openGetStream: false });
    await client.connect(transport);
    assert.ok(transport.sessionId, 'a session');
    assert.equal(transport.protocolVersion, '2025-11-25');
    const stop = new AbortController();
    const call = client.callTool({ name: 'wait' }, { signal: stop.signal });
    const failed = call.then(
      () => assert.fail('the call was cancelled'),
      (err: unknown) => err,
    );
    await running;
    stop.abort(REASON);
    const closing = client.close();
    const err = await failed;
    assert.ok(err instanceof LocalError && err.code === 'cancelled', `the call fails as cancelled locally: ${String(err)}`);
    await closing;
    // the DELETE also ends the session's handlers, with another reason: the cancellation's
    // own reason shows that the notification, not the DELETE, stopped the tool
    const reason = await aborted;
    assert.ok(reason instanceof Error, `the handler saw an Error: ${String(reason)}`);
    assert.equal(reason.message, REASON, 'the server learned of the cancellation from notifications/cancelled');
    await assert.rejects(
      transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      (e: unknown) => e instanceof LocalError && e.code === 'connection_closed',
    );
  } finally {
    await http.close();
  }
});

test('close() refuses sends while it waits, and waits no longer than closeTimeoutMs for a notification POST that hangs', async () => {
  // a server that accepts the connection and never answers the notification's POST
  const { createServer } = await import('node:http');
  const hanging = new Set<import('node:http').ServerResponse>();
  const srv = createServer((req, res) => {
    if (req.method === 'DELETE') return void res.writeHead(200).end();
    hanging.add(res);
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as { port: number };
  try {
    const transport = new StreamableHttpClientTransport({
      url: `http://127.0.0.1:${port}/mcp`,
      openGetStream: false,
      closeTimeoutMs: 200,
      acceptTimeoutMs: 60_000,
    });
    transport.start({ message() {}, error() {}, closed() {} });
    const sent = transport.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
    while (hanging.size === 0) await new Promise((r) => setTimeout(r, 5));
    const t0 = Date.now();
    const closing = transport.close();
    await assert.rejects(
      transport.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } }),
      (e: unknown) => e instanceof LocalError && e.code === 'connection_closed',
    );
    await closing;
    const took = Date.now() - t0;
    assert.ok(took >= 150, `close waited for the notification (${took} ms)`);
    assert.ok(took < 5000, `close gave up after its bound (${took} ms)`);
    await assert.rejects(sent, (e: unknown) => e instanceof LocalError && e.code === 'connection_closed', 'the hanging POST is aborted after the bound');
  } finally {
    for (const res of hanging) res.destroy();
    srv.closeAllConnections();
    await new Promise((r) => srv.close(r));
  }
});
