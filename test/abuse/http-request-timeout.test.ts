/**
 * Fault and abuse suite, HTTP server: clients that send part of a request and then go
 * silent. `serveNode`'s receive timeouts (`requestTimeoutMs`, `headersTimeoutMs`) must hold
 * as documented: within a second, not whenever Node's connection check next runs (every 30 s
 * by default, which cut a partial body 54 s in under a 30 s `requestTimeout`).
 */

import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import { test } from 'node:test';
import { serveNode } from '../../src/http/node.js';
import { createStreamableHttpHandler } from '../../src/http/server/handler.js';
import { McpServer } from '../../src/server/server.js';
import { postHead } from './http-child.js';

/** How late a timeout may fire past its value: Node's check interval (1 s) and a loaded CI machine's delay. */
const SLACK_MS = 1500;

/** Opens a raw connection, writes `text`, then stays silent; resolves with the ms until the server closed it and what it answered. */
async function silentAfter(port: number, text: string, giveUpMs: number): Promise<{ ms: number; answer: string; closed: boolean }> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {});
  await once(socket, 'connect');
  let answer = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (answer += chunk));
  const start = Date.now();
  socket.write(text);
  const closed = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), giveUpMs);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
  socket.destroy();
  return { ms: Date.now() - start, answer, closed };
}

test('abuse: a partial body (10 of 1000 declared bytes, then silence) is cut at requestTimeoutMs, within a second', { timeout: 30_000 }, async () => {
  const handler = createStreamableHttpHandler({ server: new McpServer({ name: 't', version: '1' }), onError: () => {} });
  const requestTimeoutMs = 2000;
  const running = await serveNode(handler, { headersTimeoutMs: 1000, requestTimeoutMs });
  try {
    const { ms, answer, closed } = await silentAfter(running.port, postHead(running.url, 1000) + '{"jsonrpc"', requestTimeoutMs + 8000);
    assert.ok(closed, `the connection was still open ${requestTimeoutMs + 8000} ms after the partial body`);
    assert.ok(ms >= requestTimeoutMs - 100, `cut before the timeout (${ms} ms)`);
    assert.ok(ms <= requestTimeoutMs + SLACK_MS, `cut ${ms} ms after the partial body; requestTimeoutMs is ${requestTimeoutMs}`);
    assert.match(answer, /^HTTP\/1\.1 408 /);
  } finally {
    await running.close();
  }
});

test('abuse: partial headers (then silence) are cut at headersTimeoutMs, within a second', { timeout: 30_000 }, async () => {
  const handler = createStreamableHttpHandler({ server: new McpServer({ name: 't', version: '1' }), onError: () => {} });
  const headersTimeoutMs = 1500;
  const running = await serveNode(handler, { headersTimeoutMs, requestTimeoutMs: 20_000 });
  try {
    const { ms, closed } = await silentAfter(running.port, 'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: app', headersTimeoutMs + 8000);
    assert.ok(closed, `the connection was still open ${headersTimeoutMs + 8000} ms after the partial headers`);
    assert.ok(ms >= headersTimeoutMs - 100, `cut before the timeout (${ms} ms)`);
    assert.ok(ms <= headersTimeoutMs + SLACK_MS, `cut ${ms} ms after the partial headers; headersTimeoutMs is ${headersTimeoutMs}`);
  } finally {
    await running.close();
  }
});
