/**
 * Fault and abuse suite, HTTP client transports: requests that time out or are cancelled.
 *
 * A real `node:http` server on 127.0.0.1 answers a request by opening an SSE stream and
 * then only trickling comments (or by never sending headers, or by trickling a JSON body
 * that never ends). When the client request times out or its signal aborts, the session
 * rejects it and sends `notifications/cancelled` (2025-11-25 › Utilities › Cancellation);
 * from then on no response will be read for it, so the transport must stop reading the
 * HTTP response that carried it: the server sees that connection close while the client is
 * still connected. A stream that still carries another pending request is kept until that
 * one is answered (2025-11-25 › Transports › Streamable HTTP › Sending Messages: the stream
 * carries the responses to every request of the POST), and once every request of the POST
 * has its response the stream has nothing more to give (the server SHOULD close it then), so
 * after `acceptTimeoutMs` the client stops reading it even when the server does not close it.
 * Everything is asserted by states and counts, polled with generous bounds.
 */

import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, test } from 'node:test';
import { Client } from '../../src/client/client.js';
import { StreamableHttpClientTransport } from '../../src/http/client/streamable.js';
import { LocalError } from '../../src/jsonrpc/errors.js';
import { Collector, waitFor } from '../helpers/http/fake-server.js';
import { answerHandshake, HttpPeer, openSse, type PeerRequest, writeSse } from './client-peer.js';

type Mode = 'sse-trickle' | 'no-headers' | 'json-trickle';

/** How each stalled request is answered, by its `_meta.mode` (set by the test). */
function stall(res: ServerResponse, mode: Mode): void {
  if (mode === 'no-headers') return;
  if (mode === 'sse-trickle') openSse(res);
  else res.writeHead(200, { 'content-type': 'application/json' }).write('{"jsonrpc":"2.0",');
  const timer = setInterval(() => res.write(mode === 'sse-trickle' ? ': still working\n\n' : ' '), 20);
  res.on('close', () => clearInterval(timer));
}

let server: HttpPeer;

before(async () => {
  server = await HttpPeer.listen((r, res) => {
    if (answerHandshake(r, res)) return;
    const m = r.message;
    if (m?.method === 'tools/call') {
      stall(res, (m.params!.arguments as { mode: Mode }).mode);
      return;
    }
    if (m?.method === 'tools/list') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { tools: [] } }));
      return;
    }
    res.writeHead(400).end();
  });
});

after(async () => {
  await server.close();
});

test('a request that times out or is cancelled stops reading its response before close()', { timeout: 60_000 }, async () => {
  for (const mode of ['sse-trickle', 'no-headers', 'json-trickle'] as const) {
    for (const how of ['timeout', 'abort'] as const) {
      const what = `${mode}, ${how}`;
      const first = server.requests.length;
      const transport = new StreamableHttpClientTransport({ url: server.url('/mcp'), openGetStream: false });
      const client = new Client({ name: 'abuse-client', version: '1' });
      await client.connect(transport);
      try {
        const controller = new AbortController();
        const call = client.callTool({ name: 'stall', arguments: { mode, what } }, how === 'timeout' ? { timeoutMs: 1000 } : { signal: controller.signal });
        const carried = await waitForRequest(
          (r) => r.message?.method === 'tools/call' && (r.message.params!.arguments as { what?: string }).what === what,
          what,
        );
        if (how === 'abort') controller.abort();
        await assert.rejects(call, (err) => err instanceof LocalError && err.code === (how === 'timeout' ? 'timeout' : 'cancelled'), what);
        // the server sees the response connection closed by the client, which is still connected
        await waitFor(() => carried.closed, `${what}: the server sees the stalled response closed`, 10_000);
        // the response is dropped as the cancellation is queued, so the two may arrive in either order
        const cancellations = () =>
          server.requests.slice(first).filter((r) => r.message?.method === 'notifications/cancelled' && r.message.params?.requestId === carried.message?.id);
        await waitFor(() => cancellations().length > 0, `${what}: the request is cancelled on the wire`, 10_000);
        assert.equal(cancellations().length, 1);
        assert.deepEqual(await client.listTools(), { tools: [] }, `${what}: the client still works`);
      } finally {
        await client.close();
      }
    }
  }
});

test('a stream that still carries a pending request is kept until that one is answered, then dropped', { timeout: 60_000 }, async () => {
  let stream: ServerResponse | undefined;
  const peer = await HttpPeer.listen((r, res) => {
    if (answerHandshake(r, res)) return;
    openSse(res);
    stream = res;
  });
  // acceptTimeoutMs: how long an answered stream may stay open before the client drops it
  const transport = new StreamableHttpClientTransport({ url: peer.url('/mcp'), openGetStream: false, acceptTimeoutMs: 1000 });
  const receiver = new Collector();
  try {
    transport.start(receiver);
    // one POST carries two requests; the server opens one SSE stream for both and never ends it
    const settled = transport
      .send([
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'a' } },
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'b' } },
      ])
      .then(
        () => 'resolved',
        (err: unknown) => err,
      );
    await waitFor(() => stream !== undefined, 'the batch POST opened its stream', 10_000);
    const batch = peer.requests.find((r) => Array.isArray(r.message))!;

    await transport.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, reason: 'timeout' } });
    assert.equal(batch.closed, false, 'request 2 still pending: the stream is kept');

    // the kept stream is still read: the answer to request 2 arrives through it
    writeSse(stream!, { jsonrpc: '2.0', id: 2, result: { content: [] } });
    await waitFor(() => receiver.messages.length === 1, 'the answer to request 2 is delivered', 10_000);
    assert.deepEqual(receiver.messages, [{ jsonrpc: '2.0', id: 2, result: { content: [] } }]);

    // every request of the POST is settled: the client stops reading although the server keeps the stream open
    await waitFor(() => batch.closed, 'the server sees the finished stream closed', 10_000);
    assert.equal(await settled, 'resolved', 'the send settles once its requests are answered');
    assert.equal(receiver.closedCount, 0, 'the transport itself stays open');
  } finally {
    await transport.close();
    await peer.close();
  }
});

test('an answered stream the server ends is read to its end, so its connection is reused', { timeout: 60_000 }, async () => {
  const peer = await HttpPeer.listen((r, res) => {
    // the answer, then the end of the stream in a later write (as a server's event loop may well do)
    openSse(res);
    writeSse(res, { jsonrpc: '2.0', id: r.message?.id, result: {} });
    setTimeout(() => res.end(), 20);
  });
  const transport = new StreamableHttpClientTransport({ url: peer.url('/mcp'), openGetStream: false });
  const receiver = new Collector();
  try {
    transport.start(receiver);
    // each send settles once its exchange is over, so the next one finds the connection idle
    for (let id = 1; id <= 20; id++) await transport.send({ jsonrpc: '2.0', id, method: 'ping' });
    assert.equal(receiver.messages.length, 20);
    // a stream dropped at its last answer would cost a connection per request
    assert.ok(peer.connections <= 5, `20 sequential requests used ${peer.connections} connections`);
  } finally {
    await transport.close();
    await peer.close();
  }
});

async function waitForRequest(predicate: (r: PeerRequest) => boolean, what: string): Promise<PeerRequest> {
  await waitFor(() => server.requests.some(predicate), `${what}: the request reached the server`, 10_000);
  return server.requests.find(predicate)!;
}
