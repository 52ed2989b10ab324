/**
 * Fault and abuse suite, HTTP server: a POST body larger than `maxBodyBytes` (4 MiB by
 * default). The server answers 413 with a JSON-RPC error body (RFC 9110 § 15.5.14 "Content Too
 * Large"; the JSON-RPC error is -32600, Invalid Request) as soon as the limit is crossed, and
 * that answer must reach a fetch client still uploading: the server keeps discarding the rest
 * of the body instead of closing at once (RFC 9112 § 9.6: closing a connection with unread
 * input makes the peer's TCP discard the response). Discarding is itself bounded: a peer that
 * keeps sending is cut after `maxDiscardBytes` (64 MiB) or `discardTimeoutMs` (10 s).
 */

import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import { test } from 'node:test';
import { ACCEPT_BOTH, openSession, postHead, REVISION, startChild } from './http-child.js';

const MiB = 1024 * 1024;

/** Asserts a readable 413 whose body is a JSON-RPC error response (-32600, id null). */
async function assertReadable413(res: Response): Promise<void> {
  assert.equal(res.status, 413);
  assert.equal(res.headers.get('content-type'), 'application/json');
  const body = await res.json();
  assert.equal(body.jsonrpc, '2.0');
  assert.equal(body.id, null);
  assert.equal(body.error.code, -32600);
  assert.match(body.error.message, /Payload Too Large/);
}

test('abuse: a fetch client uploading 64 MiB bodies reads the 413 (several at once, with and without Content-Length)', async () => {
  // a generous discard time: on a loaded machine the uploads may crawl; the bound is tested below
  const child = await startChild({ serve: { discardTimeoutMs: 60_000 } });
  try {
    const sessionId = await openSession(child.url);
    const headers = { accept: ACCEPT_BOTH, 'content-type': 'application/json', 'mcp-session-id': sessionId, 'mcp-protocol-version': REVISION };
    const body = Buffer.alloc(64 * MiB, 0x20);
    const outcomes = await Promise.allSettled([1, 2, 3, 4].map(() => fetch(child.url, { method: 'POST', headers, body }).then(assertReadable413)));
    const failures = outcomes
      .filter((o) => o.status === 'rejected')
      .map((o) => String((o as PromiseRejectedResult).reason?.cause?.code ?? (o as PromiseRejectedResult).reason));
    assert.deepEqual(failures, [], 'every sender reads its 413');

    // a streamed body (chunked, no Content-Length), produced a little at a time
    let produced = 0;
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (produced >= 64 * MiB) {
          controller.close();
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 1));
        controller.enqueue(new Uint8Array(MiB).fill(0x20));
        produced += MiB;
      },
    });
    await assertReadable413(await fetch(child.url, { method: 'POST', headers, body: stream, duplex: 'half' } as RequestInit));

    // the connection and the server are fine afterwards
    const ping = await fetch(child.url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }) });
    assert.equal(ping.status, 200);
    assert.match(await ping.text(), /"id":1,"result":\{\}/);
  } finally {
    await child.stop();
  }
});

test('abuse: a peer that keeps sending, or stalls, after the 413 is cut once a discard bound (bytes, time) is crossed', async () => {
  const child = await startChild({ serve: { maxDiscardBytes: 8 * MiB, discardTimeoutMs: 1000 } });
  try {
    const socket = connect(child.port, '127.0.0.1');
    await once(socket, 'connect');
    let response = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (response += chunk));
    socket.on('error', () => {}); // the cut may surface as a reset
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    const drained = (): Promise<void> => new Promise((resolve) => socket.once('drain', resolve));
    // declares 10 GiB, then sends until the server closes (at most 1 GiB here)
    socket.write(postHead(child.url, 10 * 1024 * MiB));
    const chunk = Buffer.alloc(MiB, 0x20);
    let sent = 0;
    while (sent < 1024 * MiB && !socket.destroyed) {
      sent += chunk.length;
      if (!socket.write(chunk)) await Promise.race([drained(), closed]);
    }
    await closed;
    assert.match(response, /^HTTP\/1\.1 413 /, 'the 413 arrived while the peer was sending');
    assert.ok(sent < 256 * MiB, `the server stopped discarding long before the peer stopped sending (${sent / MiB} MiB sent)`);

    // a peer that declares a huge body and then sends nothing is cut after discardTimeoutMs
    const idle = connect(child.port, '127.0.0.1');
    let idleResponse = '';
    idle.setEncoding('utf8');
    idle.on('data', (chunk: string) => (idleResponse += chunk));
    idle.on('error', () => {});
    const idleClosed = new Promise<void>((resolve) => idle.once('close', () => resolve()));
    idle.write(postHead(child.url, 10 * 1024 * MiB));
    const cut = await Promise.race([idleClosed.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 15_000).unref())]);
    assert.ok(cut, 'the idle uploader is cut');
    assert.match(idleResponse, /^HTTP\/1\.1 413 /);
    idle.destroy();
  } finally {
    await child.stop();
  }
});
