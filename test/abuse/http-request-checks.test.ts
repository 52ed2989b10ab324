/**
 * Fault and abuse suite: request checks of the Streamable HTTP server, each with the status
 * its RFC names. Requests go over real sockets to the Node adapter (raw bytes, so nothing
 * between the test and the server normalizes them), and through the web-standard `fetch`
 * entry point where that path needs its own proof.
 */

import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { type NodeServerHandle, serveNode } from '../../src/http/node.js';
import type { StreamableHttpOptions } from '../../src/http/server/handler.js';
import { ACCEPT_BOTH, initRequest, makeHandler, rpc } from '../helpers/http/server-harness.js';

interface RawResponse {
  status: number;
  headers: Map<string, string>;
  body: string;
}

/** Sends `head` (request line and header lines, without the blank line) and `body` on a new connection; reads the whole response. */
function raw(port: number, head: string[], body: Buffer | string = ''): Promise<RawResponse> {
  const payload = typeof body === 'string' ? Buffer.from(body) : body;
  const lines = [...head, `content-length: ${payload.length}`, 'connection: close', '', ''];
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.setTimeout(10_000, () => socket.destroy(new Error('no response within 10 s')));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const [statusLine, ...headerLines] = text.slice(0, split).split('\r\n');
      const headers = new Map<string, string>();
      for (const line of headerLines) {
        const colon = line.indexOf(':');
        headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
      }
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine ?? '')?.[1]), headers, body: text.slice(split + 4) });
    });
    socket.end(Buffer.concat([Buffer.from(lines.join('\r\n')), payload]));
  });
}

async function serving(options: Partial<StreamableHttpOptions> = {}): Promise<NodeServerHandle> {
  return serveNode(makeHandler({ responseMode: 'json', legacySse: true, ...options }));
}

const MCP_HEADERS = [`accept: ${ACCEPT_BOTH}`, 'content-type: application/json'];
const INIT = JSON.stringify(initRequest());

test('Content-Encoding the server does not decode: 415 with Accept-Encoding: identity (RFC 9110 § 15.5.16, § 8.4; RFC 7694 § 3)', async () => {
  const node = await serving();
  try {
    const host = `host: 127.0.0.1:${node.port}`;
    // RFC 9110 § 8.4: a request whose content coding is not acceptable is answered 415;
    // RFC 7694 § 3: with Accept-Encoding naming what is (here: only identity)
    const gzipped = await raw(node.port, ['POST /mcp HTTP/1.1', host, ...MCP_HEADERS, 'content-encoding: gzip'], gzipSync(INIT));
    assert.equal(gzipped.status, 415);
    assert.equal(gzipped.headers.get('accept-encoding'), 'identity');
    assert.equal((JSON.parse(gzipped.body) as { error: { code: number } }).error.code, -32000);
    for (const coding of ['br', 'deflate, gzip', 'x-unknown']) {
      const res = await raw(node.port, ['POST /mcp HTTP/1.1', host, ...MCP_HEADERS, `content-encoding: ${coding}`], INIT);
      assert.equal(res.status, 415, coding);
    }
    const legacy = await raw(
      node.port,
      ['POST /messages?sessionId=any HTTP/1.1', host, 'content-type: application/json', 'content-encoding: gzip'],
      gzipSync(INIT),
    );
    assert.equal(legacy.status, 404, 'an unknown legacy session is still 404 first');
    // identity is no coding at all; a 415 for the media type does not carry Accept-Encoding (RFC 7694 § 3)
    assert.equal((await raw(node.port, ['POST /mcp HTTP/1.1', host, ...MCP_HEADERS, 'content-encoding: identity'], INIT)).status, 200);
    const wrongType = await raw(node.port, ['POST /mcp HTTP/1.1', host, `accept: ${ACCEPT_BOTH}`, 'content-type: text/plain'], INIT);
    assert.equal(wrongType.status, 415);
    assert.equal(wrongType.headers.has('accept-encoding'), false);
  } finally {
    await node.close();
  }
  // the legacy message endpoint, on a live session
  const handler = makeHandler({ legacySse: true });
  const stream = await handler.fetch(new Request('http://localhost/sse', { headers: { accept: 'text/event-stream' } }));
  const reader = stream.body!.getReader();
  const endpoint = /data: (\S+)/.exec(new TextDecoder().decode((await reader.read()).value))![1]!;
  const legacy = await handler.fetch(
    new Request(`http://localhost${endpoint}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync(INIT),
    }),
  );
  assert.equal(legacy.status, 415);
  assert.equal(legacy.headers.get('accept-encoding'), 'identity');
  await reader.cancel();
  await handler.close();
});

test('Host is parsed strictly: a non-numeric or out-of-range port, a bad IPv6 literal or userinfo get 400 (RFC 9112 § 3.2)', async () => {
  const node = await serving();
  try {
    // RFC 9112 § 3.2: a Host field with an invalid value is answered 400; Host = uri-host [ ":" port ], port = *DIGIT
    for (const host of [
      '127.0.0.1:evil.com',
      `127.0.0.1:${node.port}:evil.com`,
      'localhost:99999',
      'localhost:80x',
      '[::1',
      '[::1]evil',
      '[evil.com]',
      'user@localhost',
      'local host',
    ]) {
      const res = await raw(node.port, ['POST /mcp HTTP/1.1', `host: ${host}`, ...MCP_HEADERS], INIT);
      assert.equal(res.status, 400, host);
      assert.equal((JSON.parse(res.body) as { error: { code: number } }).error.code, -32000, host);
    }
    // well-formed but foreign stays 403 (DNS rebinding protection, 2025-11-25 › Transports › Security Warning)
    assert.equal((await raw(node.port, ['POST /mcp HTTP/1.1', 'host: evil.com:80', ...MCP_HEADERS], INIT)).status, 403);
    for (const host of [`127.0.0.1:${node.port}`, 'localhost', `[::1]:${node.port}`, 'LOCALHOST:', `localhost:0${node.port}`]) {
      assert.equal((await raw(node.port, ['POST /mcp HTTP/1.1', `host: ${host}`, ...MCP_HEADERS], INIT)).status, 200, host);
    }
  } finally {
    await node.close();
  }
});

test('an absolute-form request target naming a foreign host is refused like a foreign Host (RFC 9112 § 3.2.2)', async () => {
  const node = await serving();
  try {
    const host = `host: 127.0.0.1:${node.port}`;
    // RFC 9112 § 3.2.2: the server uses the target's authority, not Host; so that authority is checked
    const foreign = await raw(node.port, ['POST http://evil.com/mcp HTTP/1.1', host, ...MCP_HEADERS], INIT);
    assert.equal(foreign.status, 403);
    assert.equal(
      (await raw(node.port, [`GET http://evil.com:${node.port}/sse HTTP/1.1`, host, 'accept: text/event-stream'])).status,
      403,
      'legacy endpoint too',
    );
    assert.equal((await raw(node.port, ['POST http://127.0.0.1:evil.com/mcp HTTP/1.1', host, ...MCP_HEADERS], INIT)).status, 400, 'malformed authority');
    assert.equal(
      (await raw(node.port, [`POST http://user@127.0.0.1:${node.port}/mcp HTTP/1.1`, host, ...MCP_HEADERS], INIT)).status,
      400,
      'userinfo (RFC 9110 § 4.2.4)',
    );
    assert.equal((await raw(node.port, [`POST ftp://127.0.0.1:${node.port}/mcp HTTP/1.1`, host, ...MCP_HEADERS], INIT)).status, 400, 'not an http(s) URI');
    const own = await raw(node.port, [`POST http://127.0.0.1:${node.port}/mcp HTTP/1.1`, host, ...MCP_HEADERS], INIT);
    assert.equal(own.status, 200, 'an absolute target naming this server is served');
  } finally {
    await node.close();
  }
  // the web-standard path: a runtime hands over the absolute target as the Request URL
  // (e.g. @hono/node-server), with the Host header it came with
  const handler = makeHandler({ responseMode: 'json' });
  const web = await handler.fetch(
    new Request('http://evil.com/mcp', {
      method: 'POST',
      headers: { host: '127.0.0.1', accept: ACCEPT_BOTH, 'content-type': 'application/json' },
      body: JSON.stringify(rpc(0, 'ping')),
    }),
  );
  assert.equal(web.status, 403);
  await handler.close();
});
