/**
 * HTTP connection failures say what happened and where, instead of fetch's "fetch failed":
 * real sockets for each (a closed port, an unresolvable `.invalid` name, https:// to a plain
 * HTTP server, a server that never answers), through the real `Client` over Streamable
 * HTTP (fetch and mcpkit/node's requester) and the legacy SSE transport.
 */

import assert from 'node:assert/strict';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createNetServer, type Server, type Socket } from 'node:net';
import { test } from 'node:test';
import { Client } from '../../client/client.js';
import { LocalError } from '../../jsonrpc/errors.js';
import type { Transport } from '../../transport/types.js';
import { nodeHttpRequester } from '../node-client/requester.js';
import { connectionFailureReason } from './connection-failure.js';
import { SseClientTransport } from './legacy-sse.js';
import { StreamableHttpClientTransport } from './streamable.js';

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
}

/** A port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createNetServer();
  const port = await listen(server);
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** What connecting a client over `transport` rejects with. */
async function connectFailure(transport: Transport, timeoutMs = 10_000): Promise<LocalError> {
  const client = new Client({ name: 'connection-failure-test', version: '1.0.0' });
  try {
    await client.connect(transport, { timeoutMs });
  } catch (error) {
    assert.ok(error instanceof LocalError, `a LocalError, not ${String(error)}`);
    return error;
  } finally {
    await client.close().catch(() => {});
  }
  assert.fail('connected');
}

test('a closed port: the connection was refused, with the URL', async () => {
  const port = await closedPort();
  const url = `http://127.0.0.1:${port}/mcp`;
  const reason = `the connection to 127\\.0\\.0\\.1:${port} was refused \\(ECONNREFUSED\\): nothing listens there`;
  const refused = new RegExp(`^POST http://127\\.0\\.0\\.1:${port}/mcp failed: ${reason}`);
  const viaFetch = await connectFailure(new StreamableHttpClientTransport({ url }));
  assert.equal(viaFetch.code, 'connection_closed');
  assert.match(viaFetch.message, refused);
  assert.doesNotMatch(viaFetch.message, /fetch failed/);
  const requester = nodeHttpRequester();
  try {
    // the requester names the origin it could not connect to
    assert.match(
      (await connectFailure(new StreamableHttpClientTransport({ url, requester }))).message,
      new RegExp(`^Cannot connect to http://127\\.0\\.0\\.1:${port}: ${reason}`),
    );
  } finally {
    requester.close();
  }
  const sse = await connectFailure(new SseClientTransport({ url }));
  assert.match(sse.message, new RegExp(`^GET http://127\\.0\\.0\\.1:${port}/mcp failed: ${reason}`));
});

test('an unresolvable .invalid name: the host name was not found', async () => {
  const failure = await connectFailure(new StreamableHttpClientTransport({ url: 'http://no-such-host.invalid/mcp' }));
  // RFC 6761: .invalid never resolves; a resolver without network may call that temporary
  assert.match(
    failure.message,
    /^POST http:\/\/no-such-host\.invalid\/mcp failed: the host name no-such-host\.invalid (was not found \(DNS, ENOTFOUND\)|could not be resolved now)/,
  );
});

test('https:// to a plain HTTP server: the server does not speak TLS on this port', async (t) => {
  const plain = createHttpServer((_req, res) => res.end('plain'));
  const port = await listen(plain);
  t.after(() => new Promise((resolve) => plain.close(resolve)));
  const failure = await connectFailure(new StreamableHttpClientTransport({ url: `https://127.0.0.1:${port}/mcp` }));
  assert.match(
    failure.message,
    new RegExp(
      `^POST https://127\\.0\\.0\\.1:${port}/mcp failed: the TLS handshake with 127\\.0\\.0\\.1:${port} failed: the server does not speak TLS on this port \\(a plain HTTP server\\? then use http://\\)`,
    ),
  );
});

test('a server that never answers: the request times out naming the URL', async (t) => {
  const sockets = new Set<Socket>();
  const silent = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
  });
  const port = await listen(silent);
  t.after(() => {
    for (const s of sockets) s.destroy();
    return new Promise((resolve) => silent.close(resolve));
  });
  const failure = await connectFailure(new StreamableHttpClientTransport({ url: `http://127.0.0.1:${port}/mcp` }), 300);
  assert.equal(failure.code, 'timeout');
  assert.equal(failure.message, `Request initialize to http://127.0.0.1:${port}/mcp timed out after 300 ms`);
});

test('connectionFailureReason reads the codes undici and Node put in the cause chain', () => {
  const url = new URL('https://example.test:8443/mcp');
  const wrapped = (cause: object) => Object.assign(new TypeError('fetch failed'), { cause });
  assert.match(
    connectionFailureReason(wrapped({ code: 'UND_ERR_CONNECT_TIMEOUT', message: 'Connect Timeout Error' }), url),
    /^connecting to example\.test:8443 timed out/,
  );
  assert.match(
    connectionFailureReason(wrapped({ code: 'UND_ERR_HEADERS_TIMEOUT', message: 'Headers Timeout Error' }), url),
    /accepted the connection but sent no response headers in time/,
  );
  assert.match(
    connectionFailureReason(wrapped({ code: 'DEPTH_ZERO_SELF_SIGNED_CERT', message: 'self-signed certificate' }), url),
    /TLS certificate was not accepted \(DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate\)/,
  );
  assert.match(
    connectionFailureReason(wrapped({ code: 'ECONNRESET', message: 'read ECONNRESET' }), url),
    /closed the connection \(ECONNRESET; does it speak TLS on this port\?\)/,
  );
  assert.equal(connectionFailureReason(wrapped({ code: 'EWHATEVER', message: 'odd' }), url), 'EWHATEVER: odd', 'otherwise the innermost error, with its code');
  assert.equal(connectionFailureReason(new TypeError('Failed to fetch'), url), 'Failed to fetch', 'a browser says no more');
  const cycle: { message: string; cause?: unknown } = { message: 'loop' };
  cycle.cause = cycle;
  assert.equal(connectionFailureReason(cycle, url), 'loop', 'a cyclic chain ends');
});
