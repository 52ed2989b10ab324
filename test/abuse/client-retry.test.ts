/**
 * Fault and abuse suite, HTTP client transports: a server's SSE `retry` field.
 *
 * `retry` sets the reconnection time of a stream (WHATWG HTML › Server-sent events ›
 * Processing the event stream, "retry"), and Streamable HTTP clients honour it when they
 * reopen the standalone GET stream or resume a response stream (2025-11-25 › Transports ›
 * Streamable HTTP › Resumability and Redelivery; SEP-1699). It is chosen by the server, so
 * the client caps it with `reconnect.maxDelayMs`: a server that says "retry in an hour"
 * (or in more milliseconds than a timer can hold) does not park a request or the GET
 * stream for that long. Asserted by states and counts, polled with generous bounds.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '../../src/client/client.js';
import { StreamableHttpClientTransport } from '../../src/http/client/streamable.js';
import { waitFor } from '../helpers/http/fake-server.js';
import { answerHandshake, HttpPeer, writeSse } from './client-peer.js';

const ONE_HOUR_MS = 3_600_000;

test("a server's huge retry is capped by reconnect.maxDelayMs (GET stream and resumed response stream)", { timeout: 60_000 }, async () => {
  let gets = 0;
  let callId: unknown;
  const server = await HttpPeer.listen((r, res) => {
    if (r.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const resumeFrom = r.headers['last-event-id'];
      if (resumeFrom === 'call-0') {
        // the resumed response stream: the answer, then the end
        writeSse(res, { jsonrpc: '2.0', id: callId, result: { content: [] } });
        res.end();
        return;
      }
      // the standalone stream: a new event id, an hour's retry, and a disconnect
      gets++;
      res.end(`retry: ${ONE_HOUR_MS}\nid: get-${gets}\ndata:\n\n`);
      return;
    }
    if (answerHandshake(r, res)) return;
    if (r.message?.method === 'tools/call') {
      // priming event with an hour's retry, then a disconnect before the answer (SEP-1699)
      callId = r.message.id;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`retry: ${ONE_HOUR_MS}\nid: call-0\ndata:\n\n`);
      return;
    }
    res.writeHead(400).end();
  });
  const transport = new StreamableHttpClientTransport({ url: server.url('/mcp'), reconnect: { maxDelayMs: 20 } });
  const client = new Client({ name: 'abuse-client', version: '1' });
  try {
    await client.connect(transport);
    await waitFor(() => gets >= 3, 'the GET stream is reopened despite retry: one hour', 10_000);
    assert.deepEqual(await client.callTool({ name: 'slow' }, { timeoutMs: 10_000 }), { content: [] });
    assert.equal(server.requests.filter((r) => r.headers['last-event-id'] === 'call-0').length, 1, 'the response stream was resumed once');
  } finally {
    await client.close();
    await server.close();
  }
});
