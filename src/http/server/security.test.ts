import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ACCEPT_BOTH, errorCode, initRequest, makeHandler, openSession, post, rpc, SseReader } from '../../../test/helpers/http/server-harness.js';
import { createDemoServer } from '../../demo/server.js';

function initAt(host: string | undefined, origin?: string): Request {
  const headers: Record<string, string> = { accept: ACCEPT_BOTH, 'content-type': 'application/json' };
  if (host !== undefined) headers.host = host;
  if (origin !== undefined) headers.origin = origin;
  return new Request(`http://${host ?? 'localhost'}/mcp`, { method: 'POST', headers, body: JSON.stringify(initRequest()) });
}

test('DNS rebinding: a foreign Host or Origin gets 403 on every route; loopback names pass', async () => {
  const handler = makeHandler({ legacySse: true });
  const evil = await handler.fetch(initAt('evil.example.com:3000', 'http://evil.example.com:3000'));
  assert.equal(evil.status, 403);
  assert.equal(await errorCode(evil), -32000);
  assert.equal((await handler.fetch(initAt('evil.example.com'))).status, 403, 'foreign Host without Origin');
  assert.equal((await handler.fetch(initAt('localhost:3000', 'http://evil.example.com'))).status, 403, 'foreign Origin');
  assert.equal((await handler.fetch(initAt('localhost:3000', 'null'))).status, 403, 'opaque origin');
  assert.equal((await handler.fetch(new Request('http://evil.example.com/sse'))).status, 403, 'legacy endpoint too');
  for (const [host, origin] of [
    ['localhost:3000', 'http://localhost:3000'],
    ['127.0.0.1:8080', 'http://127.0.0.1:5173'],
    ['[::1]:9', 'https://[::1]'],
    ['LOCALHOST', undefined],
  ] as const) {
    const res = await handler.fetch(initAt(host, origin));
    assert.equal(res.status, 200, `${host} ${origin}`);
  }
  await handler.close();
});

test('allowedHosts / allowedOrigins replace the defaults; "*" disables a check', async () => {
  const handler = makeHandler({ allowedHosts: ['mcp.example.com', 'other.example.com:8443'], allowedOrigins: ['https://app.example.com'] });
  assert.equal((await handler.fetch(initAt('mcp.example.com', 'https://app.example.com'))).status, 200);
  assert.equal((await handler.fetch(initAt('other.example.com:8443'))).status, 200);
  assert.equal((await handler.fetch(initAt('other.example.com:8444'))).status, 403);
  assert.equal((await handler.fetch(initAt('localhost:3000'))).status, 403);
  assert.equal((await handler.fetch(initAt('mcp.example.com', 'http://app.example.com'))).status, 403, 'scheme matters');
  await handler.close();
  const open = makeHandler({ allowedHosts: '*', allowedOrigins: '*' });
  assert.equal((await open.fetch(initAt('anything.example', 'https://anywhere.example'))).status, 200);
  await open.close();
});

test('413 with a JSON-RPC body for an oversized POST; a 1 MiB message works', async () => {
  const handler = makeHandler({ server: createDemoServer(), maxBodyBytes: 2 * 1024 * 1024 });
  const sessionId = await openSession(handler);
  const big = 'x'.repeat(1024 * 1024);
  const ok = await post(handler, rpc(1, 'tools/call', { name: 'echo', arguments: { message: big } }), { sessionId });
  assert.equal(ok.status, 200);
  const [answer] = await new SseReader(ok).restMessages();
  assert.equal(answer.result.content[0].text.length, big.length);

  const tooBig = await post(handler, rpc(2, 'tools/call', { name: 'echo', arguments: { message: 'y'.repeat(2 * 1024 * 1024) } }), { sessionId });
  assert.equal(tooBig.status, 413);
  assert.equal(await errorCode(tooBig), -32600);
  // a streamed body without Content-Length is cut at the limit too
  const chunks = new ReadableStream<Uint8Array>({
    pull(controller) {
      controller.enqueue(new Uint8Array(512 * 1024).fill(0x20));
    },
  });
  const streamed = await handler.fetch(
    new Request('http://localhost/mcp', {
      method: 'POST',
      headers: { accept: ACCEPT_BOTH, 'content-type': 'application/json', 'mcp-session-id': sessionId },
      body: chunks,
      duplex: 'half',
    } as RequestInit),
  );
  assert.equal(streamed.status, 413);
  await handler.close();
});

test('the default body limit is 4 MiB', async () => {
  const handler = makeHandler();
  assert.equal(handler.maxBodyBytes, 4 * 1024 * 1024);
  const res = await post(handler, ' '.repeat(4 * 1024 * 1024 + 1));
  assert.equal(res.status, 413);
  await handler.close();
});

test('header checks run before the body is read', async () => {
  const handler = makeHandler();
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulled++;
      controller.enqueue(new TextEncoder().encode('{}'));
      controller.close();
    },
  });
  const res = await handler.fetch(
    new Request('http://evil.example.com/mcp', {
      method: 'POST',
      headers: { accept: ACCEPT_BOTH, 'content-type': 'text/plain' },
      body,
      duplex: 'half',
    } as RequestInit),
  );
  assert.equal(res.status, 403);
  assert.ok(pulled <= 1, "at most the stream's own first pull happened");
  await handler.close();
});

test('invalid options are refused', () => {
  const server = createDemoServer();
  assert.throws(() => makeHandler({ server, maxBodyBytes: 0 }), RangeError);
  assert.throws(() => makeHandler({ server, maxSessions: 0 }), RangeError);
  assert.throws(() => makeHandler({ server, retryMs: -1 }), RangeError);
  assert.throws(() => makeHandler({ server, responseMode: 'xml' as 'json' }), RangeError);
  assert.throws(() => makeHandler({ server, allowedOrigins: ['https://'] }), TypeError);
});
