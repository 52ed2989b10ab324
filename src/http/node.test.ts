import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { test } from 'node:test';
import { initRequest, makeHandler, note, rpc, SseReader, smallServer } from '../../test/helpers/http/server-harness.js';
import { MCPKIT_BIN } from '../../test/helpers/repo.js';
import { createDemoServer } from '../demo/server.js';
import { serveNode } from './node.js';
import { StreamableHttpHandler } from './server/handler.js';
import type { HttpReply, HttpRequest } from './server/types.js';

const ACCEPT = 'application/json, text/event-stream';

async function open(url: string, revision = '2025-11-25'): Promise<string> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { accept: ACCEPT, 'content-type': 'application/json' },
    body: JSON.stringify(initRequest(revision)),
  });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'application/json');
  await res.json();
  const sessionId = res.headers.get('mcp-session-id')!;
  const ack = await fetch(url, {
    method: 'POST',
    headers: { accept: ACCEPT, 'content-type': 'application/json', 'mcp-session-id': sessionId },
    body: JSON.stringify(note('notifications/initialized')),
  });
  assert.equal(ack.status, 202);
  return sessionId;
}

function call(url: string, sessionId: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { accept: ACCEPT, 'content-type': 'application/json', 'mcp-session-id': sessionId, ...headers },
    body: JSON.stringify(body),
  });
}

/** The head of a POST to the endpoint of a server on 127.0.0.1:`port`, as written on a raw socket. */
function postHead(port: string, sessionId: string, contentLength: number): string {
  return `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\naccept: ${ACCEPT}\r\ncontent-type: application/json\r\nmcp-session-id: ${sessionId}\r\ncontent-length: ${contentLength}\r\n\r\n`;
}

/** Announces a POST body of 100 bytes on a raw socket, sends 21 of them, and leaves: the body never ends. */
async function leaveHalfway(url: string, sessionId: string): Promise<void> {
  const { port } = new URL(url);
  const socket = connect(Number(port), '127.0.0.1');
  await once(socket, 'connect');
  socket.write(postHead(port, sessionId, 100) + '{"jsonrpc":"2.0","id"');
  await new Promise((resolve) => setTimeout(resolve, 50));
  socket.destroy();
}

/** A raw request; resolves with the response (body collected) as soon as it arrives. */
function raw(
  url: string,
  options: { method: string; headers: Record<string, string | number> },
  write?: (req: ReturnType<typeof httpRequest>) => void,
): Promise<{ res: IncomingMessage; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, options, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ res, body }));
      res.on('error', reject);
    });
    req.on('error', () => {}); // the server may cut the upload after answering
    if (write) write(req);
    else req.end();
  });
}

test('serveNode: JSON and SSE replies over a real socket on 127.0.0.1', async () => {
  const running = await serveNode(makeHandler());
  assert.match(running.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  const sessionId = await open(running.url);
  const res = await call(running.url, sessionId, rpc(1, 'tools/call', { name: 'wait', arguments: { ms: 5 } }));
  assert.equal(res.status, 200);
  const messages = await new SseReader(res).restMessages();
  assert.deepEqual(
    messages.map((m) => m.method ?? m.id),
    ['notifications/message', 'notifications/message', 1],
  );
  const del = await fetch(running.url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } });
  assert.equal(del.status, 200);
  assert.equal((await call(running.url, sessionId, rpc(2, 'ping'))).status, 404);
  const evil = await raw(running.url, { method: 'POST', headers: { host: 'evil.example.com', 'content-type': 'application/json', accept: ACCEPT } }, (req) =>
    req.end(JSON.stringify(initRequest())),
  );
  assert.equal(evil.res.statusCode, 403);
  assert.equal(JSON.parse(evil.body).error.code, -32000);
  await running.close();
});

test('serveNode: an oversized body is refused with 413 (declared or streamed) before it is read; 1 MiB messages work', async () => {
  const running = await serveNode(makeHandler({ server: createDemoServer() }), { maxDiscardBytes: 8 * 1024 * 1024 });
  const sessionId = await open(running.url);
  const big = 'é'.repeat(512 * 1024); // 1 MiB of UTF-8
  const ok = await call(running.url, sessionId, rpc(1, 'tools/call', { name: 'echo', arguments: { message: big } }));
  assert.equal(ok.status, 200);
  assert.equal((await new SseReader(ok).restMessages())[0].result.content[0].text, big);

  const headers = { accept: ACCEPT, 'content-type': 'application/json', 'mcp-session-id': sessionId };
  // declared too large: answered before a byte of the body is sent
  const declared = await raw(running.url, { method: 'POST', headers: { ...headers, 'content-length': 64 * 1024 * 1024 } }, (req) => req.flushHeaders());
  // RFC 9110 § 15.5.14; the connection is kept while the rest of the body is dropped (a
  // `Connection: close` would have Node close it under the upload and reset the 413 away)
  assert.equal(declared.res.statusCode, 413);
  assert.equal(declared.res.headers.connection, 'keep-alive');
  assert.equal(JSON.parse(declared.body).error.code, -32600);

  // chunked, no length: answered once the limit is crossed; Node's client keeps uploading
  // regardless, and is cut once maxDiscardBytes (8 MiB here) more were dropped
  let sent = 0;
  const streamed = await raw(running.url, { method: 'POST', headers }, (req) => {
    const chunk = Buffer.alloc(256 * 1024, 0x20);
    const pump = (): void => {
      while (sent < 64 * 1024 * 1024 && !req.destroyed) {
        sent += chunk.length;
        if (!req.write(chunk)) {
          req.once('drain', pump);
          return;
        }
      }
      req.end();
    };
    pump();
  });
  assert.equal(streamed.res.statusCode, 413);
  assert.ok(sent < 64 * 1024 * 1024, `the upload was cut (${sent} bytes sent)`);
  await running.close();
});

test('serveNode: a body in two packets, a character split between them, arrives whole', async () => {
  const running = await serveNode(makeHandler());
  const sessionId = await open(running.url);
  const { port } = new URL(running.url);
  const body = Buffer.from(JSON.stringify(rpc(3, 'tools/call', { name: 'echo', arguments: { text: 'né à Noël' } })));
  const cut = body.indexOf(Buffer.from('é')) + 1; // between the two bytes of é
  const socket = connect(Number(port), '127.0.0.1');
  await once(socket, 'connect');
  let reply = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (reply += chunk));
  socket.write(postHead(port, sessionId, body.length));
  socket.write(body.subarray(0, cut));
  await new Promise((resolve) => setTimeout(resolve, 50)); // a separate read on the server
  socket.write(body.subarray(cut));
  for (let i = 0; i < 200 && !reply.includes('Noël'); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  socket.destroy();
  assert.match(reply, /^HTTP\/1\.1 200/);
  assert.ok(reply.includes('"text":"né à Noël"'), reply);
  await running.close();
});

test('serveNode: a client gone halfway through its body is answered 400, crashes nothing, and the session goes on', async () => {
  const errors: Error[] = [];
  const handler = makeHandler({ onError: (e) => errors.push(e) });
  const statuses: number[] = [];
  const handle = handler.handle.bind(handler);
  handler.handle = async (request, info) => {
    const reply = await handle(request, info);
    statuses.push(reply.status);
    return reply;
  };
  const running = await serveNode(handler);
  const sessionId = await open(running.url);
  statuses.length = 0;
  await leaveHalfway(running.url, sessionId);
  // the body read ends (it does not wait forever) with "could not be read"
  for (let i = 0; i < 100 && statuses.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.deepEqual(statuses, [400]);
  const after = await call(running.url, sessionId, rpc(2, 'tools/call', { name: 'echo', arguments: { text: 'still here' } }));
  assert.equal(after.status, 200);
  assert.equal((await new SseReader(after).restMessages())[0].result.content[0].text, 'still here');
  assert.deepEqual(errors, []);
  await running.close();
});

test("serveNode: a POST with a small body reaches the handler's own entry once its body ended, as text; a body never ended reaches it not at all", async () => {
  const errors: Error[] = [];
  const seen: Array<string | undefined> = [];
  // the authorizer sees each request as the handler's own entry received it
  const authorize = {
    authenticate: (request: HttpRequest) => {
      if (request.method === 'POST') seen.push(typeof request.body === 'string' ? request.body : typeof request.body);
      return Promise.resolve({ authInfo: 'someone' });
    },
    sessionOwner: () => 'someone',
  };
  const handler = makeHandler({ onError: (e) => errors.push(e), authorize });
  const running = await serveNode(handler);
  try {
    const sessionId = await open(running.url);
    seen.length = 0;
    await leaveHalfway(running.url, sessionId);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(seen, []);
    const message = rpc(2, 'tools/call', { name: 'echo', arguments: { text: 'still here' } });
    const after = await call(running.url, sessionId, message);
    assert.equal(after.status, 200);
    assert.equal((await new SseReader(after).restMessages())[0].result.content[0].text, 'still here');
    assert.deepEqual(seen, [JSON.stringify(message)]);
    assert.deepEqual(errors, []);
  } finally {
    await running.close();
  }
});

test('serveNode: a POST with an empty declared body is answered at once (its end is awaited: no data event comes)', async () => {
  const running = await serveNode(makeHandler());
  try {
    const headers = { accept: ACCEPT, 'content-type': 'application/json', 'content-length': 0 };
    const answered = await Promise.race([
      raw(running.url, { method: 'POST', headers }, (req) => req.end()),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('an empty body was never answered')), 3000).unref()),
    ]);
    assert.equal(answered.res.statusCode, 400);
  } finally {
    await running.close();
  }
});

test('serveNode: a POST whose body is over 64 KiB or of unknown length is refused on its headers before a byte of its body', async () => {
  const running = await serveNode(makeHandler());
  try {
    const headers = { accept: ACCEPT, 'content-type': 'application/json', 'mcp-session-id': 'no-such-session' };
    const refused = (extra: Record<string, number>): Promise<{ res: IncomingMessage; body: string }> =>
      Promise.race([
        raw(running.url, { method: 'POST', headers: { ...headers, ...extra } }, (req) => req.flushHeaders()),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no answer before the body: the server waits for it')), 3000).unref()),
      ]);
    // 1 MiB declared (within maxBodyBytes), nothing of it sent: the 404 comes all the same
    assert.equal((await refused({ 'content-length': 1024 * 1024 })).res.statusCode, 404);
    // no length (chunked), nothing sent
    assert.equal((await refused({})).res.statusCode, 404);
  } finally {
    await running.close();
  }
});

test('serveNode: a reply that fails later is a 500, reported to onError once by the handler (not by a handle() of its own)', async () => {
  const errors: Error[] = [];
  const post = (url: string): Promise<Response> => fetch(url, { method: 'POST', headers: { accept: ACCEPT, 'content-type': 'application/json' }, body: '{}' });
  // the handler's own entry: its reply promise rejects with a failure of mcpkit's own
  const handler = makeHandler({ onError: (e) => errors.push(e), authorize: { authenticate: () => Promise.reject(new Error('store went away')) } });
  // a handle() of its own that rejects: 500 as well; reporting is its own business
  const own = makeHandler({ onError: (e) => errors.push(e) });
  own.handle = () => Promise.reject(new Error('own failure'));
  const direct = await serveNode(handler);
  const wrapped = await serveNode(own);
  try {
    const res = await post(direct.url);
    assert.equal(res.status, 500);
    assert.equal(((await res.json()) as { error: { message: string } }).error.message, 'Internal error');
    assert.deepEqual(
      errors.map((e) => e.message),
      ['store went away'],
    );
    const res2 = await post(wrapped.url);
    assert.equal(res2.status, 500);
    await res2.text();
    assert.deepEqual(
      errors.map((e) => e.message),
      ['store went away'],
    );
  } finally {
    await direct.close();
    await wrapped.close();
  }
});

test('serveNode: a client vanishing mid-stream crashes nothing; the result is replayable', async () => {
  const errors: Error[] = [];
  const running = await serveNode(makeHandler({ onError: (e) => errors.push(e) }));
  const sessionId = await open(running.url);
  const priming = await new Promise<string>((resolve, reject) => {
    const req = httpRequest(
      running.url,
      { method: 'POST', headers: { accept: ACCEPT, 'content-type': 'application/json', 'mcp-session-id': sessionId } },
      (res) => {
        res.setEncoding('utf8');
        res.once('data', (chunk: string) => {
          req.destroy(); // gone, right after the priming event
          resolve(/id: (\S+)/.exec(chunk)![1]!);
        });
      },
    );
    req.on('error', () => {});
    req.end(JSON.stringify(rpc(1, 'tools/call', { name: 'wait', arguments: { ms: 50 } })));
    setTimeout(() => reject(new Error('no priming event')), 2000).unref();
  });
  await new Promise((resolve) => setTimeout(resolve, 120));
  const resumed = await fetch(running.url, { headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId, 'last-event-id': priming } });
  assert.equal(resumed.status, 200);
  const messages = await new SseReader(resumed).restMessages();
  assert.equal(messages.at(-1).result.content[0].text, 'waited 50');
  assert.deepEqual(errors, []);
  await running.close();
});

test('serveNode: a quick SSE reply is one body with Content-Length; a slow one streams its priming event first', async () => {
  const running = await serveNode(makeHandler({ server: createDemoServer() }));
  const sessionId = await open(running.url);
  const headers = { accept: ACCEPT, 'content-type': 'application/json', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
  // echo answers within the turn its request arrived in: priming event + response, no chunked framing
  const quick = await raw(running.url, { method: 'POST', headers }, (req) =>
    req.end(JSON.stringify(rpc(1, 'tools/call', { name: 'echo', arguments: { message: 'hi' } }))),
  );
  assert.equal(quick.res.statusCode, 200);
  assert.equal(quick.res.headers['content-type'], 'text/event-stream');
  assert.equal(quick.res.headers['transfer-encoding'], undefined);
  assert.equal(Number(quick.res.headers['content-length']), Buffer.byteLength(quick.body));
  const events = quick.body.split('\n\n').filter((e) => e.length > 0);
  assert.equal(events.length, 2);
  assert.match(events[0]!, /^id: \S+\nretry: \d+\ndata: ?$/m);
  assert.equal(JSON.parse(/data: (.*)/.exec(events[1]!)![1]!).result.content[0].text, 'hi');
  // so is a 64 KiB result: up to two slices wait for the end of the turn, like a JSON reply
  const big = 'é'.repeat(64 * 1024);
  const large = await raw(running.url, { method: 'POST', headers }, (req) =>
    req.end(JSON.stringify(rpc(3, 'tools/call', { name: 'echo', arguments: { message: big } }))),
  );
  assert.equal(large.res.headers['transfer-encoding'], undefined);
  assert.equal(Number(large.res.headers['content-length']), Buffer.byteLength(large.body));
  assert.equal(JSON.parse(/data: (\{.*)/.exec(large.body)![1]!).result.content[0].text, big);

  // a slow tool (300 ms): the priming event arrives on its own, before the response exists
  const first = await new Promise<{ chunk: string; res: IncomingMessage }>((resolve, reject) => {
    const req = httpRequest(running.url, { method: 'POST', headers }, (res) => {
      res.setEncoding('utf8');
      res.once('data', (chunk: string) => resolve({ chunk, res }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(rpc(2, 'tools/call', { name: 'slow', arguments: { ms: 300 } })));
  });
  assert.equal(first.res.headers['transfer-encoding'], 'chunked');
  assert.match(first.chunk, /^id: \S+\nretry: \d+\ndata: ?\n\n$/);
  let rest = '';
  first.res.on('data', (chunk: string) => (rest += chunk));
  await once(first.res, 'end');
  assert.match(rest, /"id":2,"result"/);
  await running.close();
});

test('serveNode: large replies leave in slices with the right Content-Length, surrogate pairs intact (JSON and SSE)', async () => {
  for (const responseMode of ['json', 'sse'] as const) {
    const running = await serveNode(makeHandler({ responseMode }));
    try {
      const sessionId = await open(running.url);
      const text = 'a😀é'.repeat(200_000); // 800 000 UTF-16 units: many slices, pairs at every boundary parity
      const headers = { accept: ACCEPT, 'content-type': 'application/json', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
      const got = await raw(running.url, { method: 'POST', headers }, (req) =>
        req.end(JSON.stringify(rpc(1, 'tools/call', { name: 'echo', arguments: { text } }))),
      );
      assert.equal(got.res.statusCode, 200);
      // JSON: one body with Content-Length; SSE: past 128 Ki pending characters the stream flushes at once (chunked)
      if (responseMode === 'json') assert.equal(Number(got.res.headers['content-length']), Buffer.byteLength(got.body));
      else assert.equal(got.res.headers['transfer-encoding'], 'chunked');
      const json = responseMode === 'json' ? got.body : /data: (\{.*)/.exec(got.body)![1]!;
      assert.equal(JSON.parse(json).result.content[0].text, text, responseMode);
    } finally {
      await running.close();
    }
  }
});

test("serveNode: a reply's Content-Length is that of its body, whatever length the reply's headers claim", async () => {
  class Claiming extends StreamableHttpHandler {
    override async handle(): Promise<HttpReply> {
      return { status: 200, headers: { 'content-type': 'text/plain; charset=utf-8', 'Content-Length': '999', 'x-kept': 'yes' }, body: 'héllo' };
    }
  }
  const running = await serveNode(new Claiming({ server: smallServer() }));
  try {
    // two Content-Length headers would make the response unreadable: fetch rejects it
    const res = await fetch(running.url, { signal: AbortSignal.timeout(5000) });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-length'), String(Buffer.byteLength('héllo')));
    assert.equal(res.headers.get('x-kept'), 'yes');
    assert.equal(await res.text(), 'héllo');
  } finally {
    await running.close();
  }
});

test('serveNode: request timeouts bound receiving a request, not a long SSE answer', async () => {
  const running = await serveNode(makeHandler(), { requestTimeoutMs: 150, headersTimeoutMs: 100 });
  const sessionId = await open(running.url);
  const res = await call(running.url, sessionId, rpc(1, 'tools/call', { name: 'wait', arguments: { ms: 400 } }));
  const messages = await new SseReader(res).restMessages(3000);
  assert.equal(messages.at(-1).result.content[0].text, 'waited 400');
  await running.close();
});

test('serveNode: a GET stream without an event store sends its head at once', async () => {
  const server = smallServer();
  const running = await serveNode(makeHandler({ server, eventStore: false }));
  const sessionId = await open(running.url);
  const res = await fetch(running.url, { headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId } });
  assert.equal(res.status, 200);
  const sse = new SseReader(res);
  await server.log('info', 'hello');
  const event = await sse.next();
  assert.equal(event.id, '');
  assert.equal(JSON.parse(event.data).params.data, 'hello');
  await sse.cancel();
  await running.close();
});

test('serveNode: close() ends open streams and frees the port', async () => {
  const server = smallServer();
  const running = await serveNode(makeHandler({ server }));
  const sessionId = await open(running.url);
  const sse = new SseReader(await fetch(running.url, { headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId } }));
  await sse.next();
  await running.close();
  await sse.rest(1000).catch(() => []);
  assert.equal(server.connections.size, 0);
  await assert.rejects(fetch(running.url, { method: 'POST', body: '{}' }));
});

test('mcpkit demo --http: prints LISTENING first, serves the demo, and test_reconnection polls via GET', async () => {
  const bin = MCPKIT_BIN;
  const child = spawn(process.execPath, [bin, 'demo', '--http', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    let stdout = '';
    child.stdout.setEncoding('utf8');
    const line = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: string) => {
        stdout += chunk;
        const nl = stdout.indexOf('\n');
        if (nl >= 0) resolve(stdout.slice(0, nl));
      });
      child.once('exit', (code) => reject(new Error(`exited with ${code}`)));
      setTimeout(() => reject(new Error('no LISTENING line')), 10_000).unref();
    });
    const match = /^LISTENING (http:\/\/127\.0\.0\.1:(\d+)\/mcp)$/.exec(line);
    assert.ok(match, line);
    const url = match[1]!;
    const sessionId = await open(url);
    const posted = await call(url, sessionId, rpc(1, 'tools/call', { name: 'test_reconnection', arguments: {} }), { 'mcp-protocol-version': '2025-11-25' });
    const events = await new SseReader(posted).rest();
    assert.equal(events.length, 1);
    assert.equal(events[0]!.data, '');
    assert.equal(events[0]!.retry, 1000);
    const resumed = await fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId, 'last-event-id': events[0]!.id } });
    const messages = await new SseReader(resumed).restMessages();
    assert.equal(messages[0].result.content[0].text, 'Reconnection test completed successfully');
    const legacy = await fetch(`http://127.0.0.1:${match[2]}/sse`, { headers: { accept: 'text/event-stream' } });
    const legacyEvents = new SseReader(legacy);
    assert.equal((await legacyEvents.next()).event, 'endpoint');
    await legacyEvents.cancel();
  } finally {
    child.kill('SIGTERM');
  }
  const [code] = await once(child, 'exit');
  assert.equal(code, 0);
});

test('serveNode: an SSE reply ready before its turn ends schedules no end-of-turn callback; one ended later in the turn cancels it', async () => {
  const server = smallServer();
  server.registerTool('tick', { description: 'answers after a microtask' }, async () => {
    await Promise.resolve();
    return 'ticked';
  });
  const running = await serveNode(makeHandler({ server, responseMode: 'sse' }));
  const sessionId = await open(running.url);
  // the sink's end-of-turn callbacks: setImmediate(callback, sink), the sink having turnEnded()
  const scheduled: unknown[] = [];
  const cancelled: unknown[] = [];
  const realSet = globalThis.setImmediate;
  const realClear = globalThis.clearImmediate;
  globalThis.setImmediate = ((callback: (...args: unknown[]) => void, ...args: unknown[]) => {
    const handle = realSet(callback, ...args);
    if (typeof (args[0] as { turnEnded?: unknown } | undefined)?.turnEnded === 'function') scheduled.push(handle);
    return handle;
  }) as typeof setImmediate;
  globalThis.clearImmediate = ((handle: ReturnType<typeof setImmediate>) => {
    if (scheduled.includes(handle)) cancelled.push(handle);
    realClear(handle);
  }) as typeof clearImmediate;
  try {
    const quick = await call(running.url, sessionId, rpc(1, 'tools/call', { name: 'echo', arguments: { text: 'hi' } }), {
      'mcp-protocol-version': '2025-11-25',
    });
    assert.equal(quick.headers.get('content-type'), 'text/event-stream');
    assert.match(await quick.text(), /"text":"hi"/);
    assert.equal(scheduled.length, 0, 'a synchronous tool: the stream ended during its attach');
    const ticked = await call(running.url, sessionId, rpc(2, 'tools/call', { name: 'tick', arguments: {} }), { 'mcp-protocol-version': '2025-11-25' });
    assert.equal(ticked.headers.get('transfer-encoding'), null, 'still one body with Content-Length');
    assert.match(await ticked.text(), /"text":"ticked"/);
    assert.equal(scheduled.length, 1);
    assert.deepEqual(cancelled, scheduled, 'the end cancelled the callback it no longer needs');
  } finally {
    globalThis.setImmediate = realSet;
    globalThis.clearImmediate = realClear;
  }
  await running.close();
});
