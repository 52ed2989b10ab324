/**
 * Fault and abuse suite, HTTP server: many connections at once. Each connection is bounded on
 * its own (`maxBodyBytes`, the request timeout), so the bounds that matter here are those of
 * many together: `serveNode`'s `maxConnections` (Node refuses connections past it) and the
 * inbound body budget (`maxTotalBodyBytes`): bodies reserve their declared length (a chunked
 * body, each chunk) before they are read; a request whose body does not fit gets 503 with
 * `Retry-After` at once, its body unread, and every reservation is given back when its body
 * was read, cut or abandoned (`bodyBudget.held` returns to 0).
 */

import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { test } from 'node:test';
import { InboundBudget, type NodeServerHandle, serveNode } from '../../src/http/node.js';
import { createStreamableHttpHandler } from '../../src/http/server/handler.js';
import { McpServer } from '../../src/server/server.js';
import { postHead, REVISION } from './http-child.js';

/** An initialize request padded with trailing spaces to exactly `size` bytes. */
function initializeBody(size: number): string {
  const json = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: REVISION, capabilities: {}, clientInfo: { name: 'budget-test', version: '1' } },
  });
  assert.ok(size >= json.length);
  return json + ' '.repeat(size - json.length);
}

/** A raw connection collecting what the server sends, with `head` written. */
interface Peer {
  readonly socket: Socket;
  /** Everything received so far. */
  text(): string;
  /** Resolves once the received text matches `pattern`. */
  until(pattern: RegExp): Promise<string>;
  readonly closed: Promise<void>;
}

async function open(port: number, head: string): Promise<Peer> {
  const socket = connect(port, '127.0.0.1');
  socket.setEncoding('utf8');
  socket.on('error', () => {});
  let received = '';
  const waiters: Array<() => void> = [];
  socket.on('data', (chunk: string) => {
    received += chunk;
    for (const wake of waiters.splice(0)) wake();
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await once(socket, 'connect');
  if (head !== '') socket.write(head);
  return {
    socket,
    text: () => received,
    closed,
    until: async (pattern) => {
      while (!pattern.test(received)) {
        if (socket.destroyed) throw new Error(`connection closed before ${pattern}: ${JSON.stringify(received.slice(0, 300))}`);
        await Promise.race([new Promise<void>((resolve) => waiters.push(resolve)), closed]);
      }
      return received;
    },
  };
}

/** Waits (bounded) until `check` holds. */
async function eventually(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(check(), what);
}

/** Asserts `text` is a 503 refusal of the inbound budget: Retry-After, a JSON-RPC error with id null. */
function assertBudget503(text: string): void {
  assert.match(text, /^HTTP\/1\.1 503 /);
  assert.match(text, /\r\nretry-after: 1\r\n/i);
  const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as { id: unknown; error: { code: number; message: string } };
  assert.equal(body.id, null);
  assert.equal(body.error.code, -32000);
  assert.match(body.error.message, /too many request bodies at once/);
}

/** The connections `running` holds open now. */
function connections(running: NodeServerHandle): Promise<number> {
  return new Promise((resolve, reject) => running.server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
}

async function start(options: Parameters<typeof serveNode>[1]): Promise<NodeServerHandle> {
  const handler = createStreamableHttpHandler({ server: new McpServer({ name: 't', version: '1' }), onError: () => {} });
  return serveNode(handler, options);
}

/**
 * Four slow bodies fill a budget of four; two more get 503 at once while the four still
 * trickle; the four then complete and are answered; the budget is back to 0. `size` picks the
 * path: up to 64 KiB the adapter reads the body before the core sees the request, above it
 * the core reads it after its checks.
 */
async function fillAndOverflow(size: number): Promise<void> {
  const running = await start({ maxTotalBodyBytes: 4 * size });
  const budget = running.bodyBudget;
  const peers: Peer[] = [];
  try {
    const body = initializeBody(size);
    for (let i = 1; i <= 4; i++) {
      const peer = await open(running.port, postHead(running.url, size) + body.slice(0, 100));
      peers.push(peer);
      await eventually(() => budget.held === i * size, `body ${i} reserved its length (held ${budget.held})`);
    }
    for (let i = 0; i < 2; i++) {
      const extra = await open(running.port, postHead(running.url, size) + body.slice(0, 100));
      assertBudget503(await extra.until(/\r\n\r\n\{.*\}$/s));
      extra.socket.destroy();
    }
    assert.equal(budget.held, 4 * size, 'the refused requests reserved nothing');
    for (const peer of peers) peer.socket.write(body.slice(100));
    for (const peer of peers) {
      const text = await peer.until(/"id":1,"result":/);
      assert.match(text, /^HTTP\/1\.1 200 /);
    }
    assert.equal(budget.held, 0, 'every body read gave its reservation back');
  } finally {
    for (const peer of peers) peer.socket.destroy();
    await running.close();
  }
}

test('abuse: slow bodies past the inbound budget get 503 at once; those within it succeed (bodies read first, <= 64 KiB)', async () => {
  await fillAndOverflow(10_000);
});

test('abuse: slow bodies past the inbound budget get 503 at once; those within it succeed (bodies read by the core, > 64 KiB)', async () => {
  await fillAndOverflow(200_000);
});

test('abuse: aborted, refused and chunked bodies give their reservation back (the budget returns to 0)', async () => {
  const size = 100_000;
  const running = await start({ maxTotalBodyBytes: 3 * size });
  const budget = running.bodyBudget;
  try {
    // rounds of: three trickling bodies reserve, one more is refused, all are abandoned; the
    // bodies alternate between the two paths (read first up to 64 KiB, else by the core)
    for (let round = 0; round < 6; round++) {
      const length = round % 2 === 0 ? 20_000 : size;
      const peers: Peer[] = [];
      for (let i = 0; i < 3; i++) {
        peers.push(await open(running.port, postHead(running.url, length) + ' '.repeat(10)));
        await eventually(() => budget.held === peers.length * length, `round ${round}: reserved (held ${budget.held})`);
      }
      const refused = await open(running.port, postHead(running.url, 3 * size) + ' ');
      assertBudget503(await refused.until(/\r\n\r\n\{.*\}$/s));
      for (const peer of [...peers, refused]) peer.socket.destroy();
      await eventually(() => budget.held === 0, `round ${round}: aborted bodies released (held ${budget.held})`);
    }

    // a chunked body reserves as it grows: past the budget it is refused with 503
    const chunkedHead = postHead(running.url, 0).replace('Content-Length: 0\r\n', 'Transfer-Encoding: chunked\r\n');
    const chunked = await open(running.port, chunkedHead);
    const piece = ' '.repeat(size);
    const chunk = `${piece.length.toString(16)}\r\n${piece}\r\n`;
    chunked.socket.write(chunk + chunk);
    await eventually(() => budget.held === 2 * size, `the chunked body reserved its chunks (held ${budget.held})`);
    chunked.socket.write(chunk + chunk);
    assertBudget503(await chunked.until(/\r\n\r\n\{.*\}$/s));
    assert.equal(budget.held, 0, 'the refused chunked body gave its chunks back');
    chunked.socket.destroy();

    // a chunked body within the budget is read and answered, and gives its chunks back
    const within = await open(running.port, chunkedHead);
    const json = initializeBody(size);
    within.socket.write(`${json.length.toString(16)}\r\n${json}\r\n0\r\n\r\n`);
    assert.match(await within.until(/"id":1,"result":/), /^HTTP\/1\.1 200 /);
    assert.equal(budget.held, 0);
    within.socket.destroy();
  } finally {
    await running.close();
  }
});

test('abuse: serveNode refuses connections past maxConnections; those within it are served', async () => {
  const running = await start({ maxConnections: 3 });
  const peers: Peer[] = [];
  try {
    for (let i = 1; i <= 3; i++) {
      peers.push(await open(running.port, ''));
      for (let tries = 0; tries < 500 && (await connections(running)) < i; tries++) await new Promise((resolve) => setTimeout(resolve, 10));
      assert.equal(await connections(running), i, `connection ${i} accepted`);
    }
    for (let i = 0; i < 2; i++) {
      const extra = await open(running.port, '');
      await extra.closed; // Node closes it at once, unread
      assert.equal(extra.text(), '');
    }
    const body = initializeBody(300);
    for (const peer of peers) peer.socket.write(postHead(running.url, body.length) + body);
    for (const peer of peers) assert.match(await peer.until(/"id":1,"result":/), /^HTTP\/1\.1 200 /);
  } finally {
    for (const peer of peers) peer.socket.destroy();
    await running.close();
  }
});

test('abuse: handler.fetch reads bodies under the shared inbound budget (503 when it is full, released after)', async () => {
  const handler = createStreamableHttpHandler({ server: new McpServer({ name: 't', version: '1' }), onError: () => {} });
  const shared = InboundBudget.shared;
  const before = shared.held;
  const request = (body: string | ReadableStream<Uint8Array>): Request =>
    new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit);
  const filler = shared.maxTotalBodyBytes - before - 100;
  assert.ok(shared.reserve(filler));
  try {
    const refused = await handler.fetch(request(initializeBody(1000)));
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get('retry-after'), '1');
    const json = (await refused.json()) as { id: unknown; error: { code: number } };
    assert.equal(json.id, null);
    assert.equal(json.error.code, -32000);
    // a streamed body of unknown length is refused once its chunks cross the budget
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(initializeBody(1000)));
        controller.close();
      },
    });
    assert.equal((await handler.fetch(request(stream))).status, 503);
    assert.equal(shared.held, before + filler, 'refused bodies reserved nothing');
  } finally {
    shared.release(filler);
  }
  const ok = await handler.fetch(request(initializeBody(1000)));
  assert.equal(ok.status, 200);
  await ok.text();
  assert.equal(shared.held, before, 'a body read gave its reservation back');
  await handler.close();
});
