/**
 * Fault and abuse suite, HTTP client transports: POSTs the server never answers.
 *
 * A POST that carries only notifications or responses is answered with 202 Accepted
 * (2025-11-25 › Transports › Streamable HTTP › Sending Messages to the Server, 4; for the
 * legacy transport every POST is, 2024-11-05 › Transports › HTTP with SSE). No request
 * timeout covers such a POST, so `acceptTimeoutMs` does: past it the POST is aborted and its
 * send rejects with LocalError `timeout`. In the legacy transport a request's answer comes
 * on the SSE stream, not on its POST: once the answer is there (or the request timed out)
 * the POST's own answer is of no use, and the POST is dropped instead of holding a
 * connection until `close()`. Asserted by states and counts, polled with generous bounds.
 */

import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { test } from 'node:test';
import { Client } from '../../src/client/client.js';
import { SseClientTransport } from '../../src/http/client/legacy-sse.js';
import { StreamableHttpClientTransport } from '../../src/http/client/streamable.js';
import { LocalError } from '../../src/jsonrpc/errors.js';
import type { Transport } from '../../src/transport/types.js';
import { waitFor } from '../helpers/http/fake-server.js';
import { answerHandshake, HttpPeer, writeSse } from './client-peer.js';

function isTimeout(err: unknown): boolean {
  return err instanceof LocalError && err.code === 'timeout';
}

test('Streamable HTTP: a notification POST the server never answers fails after acceptTimeoutMs', { timeout: 60_000 }, async () => {
  const server = await HttpPeer.listen((r, res) => {
    // notifications/initialized gets no answer at all; everything else works
    if (r.message?.method === 'notifications/initialized') return;
    answerHandshake(r, res);
  });
  await expectInitializedTimesOut(
    server,
    new StreamableHttpClientTransport({ url: server.url('/mcp'), acceptTimeoutMs: 1000 }),
    new Client({ name: 'abuse-client', version: '1' }),
  );
});

/** `connect()` rejects with `timeout` because its `notifications/initialized` POST is never answered, and that POST is dropped. */
async function expectInitializedTimesOut(server: HttpPeer, transport: Transport, client: Client): Promise<void> {
  try {
    await assert.rejects(client.connect(transport), isTimeout);
    const [initialized] = server.withMethod('notifications/initialized');
    assert.ok(initialized, 'the notification was POSTed');
    await waitFor(() => initialized.closed, 'the server sees the unanswered POST closed', 10_000);
  } finally {
    await transport.close();
    await server.close();
  }
}

/** A 2024-11-05 server whose `tools/call` POSTs are never acknowledged (argument `mode`: `answer` on the stream, or not). */
async function legacyPeer(options: { ackInitialized: boolean }): Promise<HttpPeer> {
  let stream: ServerResponse | undefined;
  return HttpPeer.listen((r, res) => {
    if (r.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: endpoint\ndata: /messages\n\n');
      stream = res;
      return;
    }
    const m = r.message;
    if (m?.method === 'initialize') {
      res.writeHead(202).end();
      writeSse(stream!, {
        jsonrpc: '2.0',
        id: m.id,
        result: { protocolVersion: '2024-11-05', capabilities: { tools: {} }, serverInfo: { name: 'legacy-peer', version: '1' } },
      });
      return;
    }
    if (m?.method === 'notifications/initialized' && !options.ackInitialized) return;
    if (m?.method === 'tools/list') {
      res.writeHead(202).end();
      writeSse(stream!, { jsonrpc: '2.0', id: m.id, result: { tools: [] } });
      return;
    }
    if (m?.method === 'tools/call') {
      if ((m.params!.arguments as { mode?: string }).mode === 'answer') writeSse(stream!, { jsonrpc: '2.0', id: m.id, result: { content: [] } });
      return; // the POST itself is never answered
    }
    res.writeHead(202).end();
  });
}

test('legacy HTTP+SSE: an unacknowledged request POST is dropped once its answer arrived, or it timed out', { timeout: 60_000 }, async () => {
  const server = await legacyPeer({ ackInitialized: true });
  const client = new Client({ name: 'abuse-client', version: '1' }, { protocolVersion: '2024-11-05' });
  try {
    await client.connect(new SseClientTransport({ url: server.url('/sse'), acceptTimeoutMs: 1000 }));

    assert.deepEqual(await client.callTool({ name: 'x', arguments: { mode: 'answer' } }), { content: [] });
    const [answered] = server.withMethod('tools/call');
    await waitFor(() => answered!.closed, 'the server sees the answered request POST closed', 10_000);

    await assert.rejects(client.callTool({ name: 'x', arguments: { mode: 'stall' } }, { timeoutMs: 1000 }), isTimeout);
    const stalled = server.withMethod('tools/call')[1];
    assert.ok(stalled, 'the second call was POSTed');
    await waitFor(() => stalled.closed, 'the server sees the timed-out request POST closed', 10_000);
    assert.equal(server.requests.filter((r) => r.method === 'GET' && !r.closed).length, 1, 'the SSE stream stays open');
  } finally {
    await client.close();
    await server.close();
  }
});

test('legacy HTTP+SSE: a notification POST the server never answers fails after acceptTimeoutMs', { timeout: 60_000 }, async () => {
  const server = await legacyPeer({ ackInitialized: false });
  await expectInitializedTimesOut(
    server,
    new SseClientTransport({ url: server.url('/sse'), acceptTimeoutMs: 1000 }),
    new Client({ name: 'abuse-client', version: '1' }, { protocolVersion: '2024-11-05' }),
  );
});
