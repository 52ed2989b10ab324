/**
 * Fault and abuse suite, HTTP client transports: the body of an HTTP error answer.
 *
 * A non-success status may carry a JSON-RPC answer (2025-11-25 › Transports › Streamable
 * HTTP › Sending Messages to the Server: a server that does not accept the input returns an
 * HTTP error, optionally with a JSON-RPC error response without an id), so the client reads
 * the body — but only up to `maxErrorBodyChars`: a longer body is not parsed, the request
 * fails with HttpStatusError, and an endless body is cut off (the server sees the connection
 * closed) instead of being read without end.
 */

import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { test } from 'node:test';
import { Client } from '../../src/client/client.js';
import { HttpStatusError } from '../../src/http/client/errors.js';
import { SseClientTransport } from '../../src/http/client/legacy-sse.js';
import { StreamableHttpClientTransport } from '../../src/http/client/streamable.js';
import { McpError } from '../../src/jsonrpc/errors.js';
import { Collector, waitFor } from '../helpers/http/fake-server.js';
import { answerHandshake, HttpPeer, type PeerRequest } from './client-peer.js';

/** An error answer of about 2000 characters, or a body that never ends (`endless`). */
function errorBody(r: PeerRequest, res: ServerResponse, endless: boolean): void {
  res.writeHead(500, { 'content-type': 'application/json' });
  if (!endless) {
    res.end(JSON.stringify({ jsonrpc: '2.0', id: r.message?.id, error: { code: -32603, message: 'x'.repeat(2000) } }));
    return;
  }
  const chunk = ' '.repeat(1024);
  const timer = setInterval(() => res.write(chunk), 5);
  res.on('close', () => clearInterval(timer));
}

test('an HTTP error body is read up to maxErrorBodyChars, never further', { timeout: 60_000 }, async () => {
  const server = await HttpPeer.listen((r, res) => {
    if (answerHandshake(r, res)) return;
    errorBody(r, res, (r.message?.params?.arguments as { endless?: boolean } | undefined)?.endless === true);
  });
  const client = new Client({ name: 'abuse-client', version: '1' });
  try {
    await client.connect(new StreamableHttpClientTransport({ url: server.url('/mcp'), openGetStream: false, maxErrorBodyChars: 1024 }));
    // within the default bound the JSON-RPC error would be delivered; past this one it is not parsed
    await assert.rejects(
      client.request('tools/call', { name: 'x', arguments: {} }),
      (err) => err instanceof HttpStatusError && err.status === 500 && !(err instanceof McpError),
    );
    await assert.rejects(
      client.request('tools/call', { name: 'x', arguments: { endless: true } }),
      (err) => err instanceof HttpStatusError && err.status === 500,
    );
    const endless = server.withMethod('tools/call')[1]!;
    await waitFor(() => endless.closed, 'the server sees the endless error body cut off', 10_000);
  } finally {
    await client.close();
    await server.close();
  }
});

test('legacy HTTP+SSE: the error body of the SSE GET is bounded by maxErrorBodyChars too', { timeout: 60_000 }, async () => {
  const server = await HttpPeer.listen((r, res) => errorBody(r, res, true));
  try {
    const transport = new SseClientTransport({ url: server.url('/sse'), maxErrorBodyChars: 1024 });
    await assert.rejects(transport.start(new Collector()), (err) => err instanceof HttpStatusError && err.status === 500);
    await waitFor(() => server.requests[0]!.closed, 'the server sees the endless error body cut off', 10_000);
  } finally {
    await server.close();
  }
});
