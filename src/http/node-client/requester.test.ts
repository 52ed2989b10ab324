/**
 * nodeHttpRequester against real servers on 127.0.0.1: a plain `node:http` server (body
 * framings, interim responses, keep-alive reuse and its bounds), hostile raw `node:net`
 * servers (each malformed answer is a clear rejection, the socket is destroyed), aborts,
 * refused requests, close(), HTTPS with a self-signed certificate made by `openssl`, and
 * a flat heap over many calls.
 */

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { type AddressInfo, createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { ClientResponse } from '../client/common.js';
import { nodeHttpRequester as makeRequester, type NodeHttpRequester, type NodeHttpRequesterOptions } from './requester.js';

/**
 * What each test opened (requesters, servers): closed after it, passed or failed, so a failed
 * assertion ends its test instead of leaving sockets that keep the process running.
 */
const opened: Array<() => unknown> = [];
afterEach(async () => {
  for (const close of opened.splice(0).reverse()) await close();
});

/** A requester closed after the test (see {@link opened}); close() is idempotent, so a test may still close it itself. */
function nodeHttpRequester(options?: NodeHttpRequesterOptions): NodeHttpRequester {
  const requester = makeRequester(options);
  opened.push(() => requester.close());
  return requester;
}

/** A listening server and the sockets it accepted. */
interface Running<S extends Server | NetServer> {
  server: S;
  url: string;
  /** Connections accepted so far. */
  connections: number;
  /** Connections open right now. */
  open: number;
  /** Most connections open at once. */
  peak: number;
  /** Resolves when every accepted socket has closed. */
  allClosed(): Promise<void>;
  close(): Promise<void>;
}

async function listen<S extends Server | NetServer>(server: S, scheme = 'http'): Promise<Running<S>> {
  const sockets = new Set<Socket>();
  const running: Running<S> = {
    server,
    url: '',
    connections: 0,
    open: 0,
    peak: 0,
    allClosed: async () => {
      while (sockets.size > 0) await new Promise((r) => setTimeout(r, 5));
    },
    close: () =>
      (closing ??= (async () => {
        for (const s of sockets) s.destroy();
        await new Promise((r) => server.close(r));
      })()),
  };
  let closing: Promise<void> | undefined;
  opened.push(() => running.close());
  server.on(scheme === 'https' ? 'secureConnection' : 'connection', (socket: Socket) => {
    sockets.add(socket);
    running.connections++;
    running.open++;
    running.peak = Math.max(running.peak, running.open);
    socket.on('close', () => {
      sockets.delete(socket);
      running.open--;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  running.url = `${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return running;
}

function httpServer(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Running<Server>> {
  return listen(createHttpServer(handler));
}

/** A raw server: `answer` gets each connection and the request bytes received so far. */
function rawServer(answer: (socket: Socket, request: string, index: number) => void): Promise<Running<NetServer>> {
  let index = 0;
  const server = createNetServer((socket) => {
    let seen = '';
    socket.on('error', () => {});
    socket.on('data', (data) => {
      seen += data.toString('latin1');
      if (!seen.includes('\r\n\r\n')) return;
      const request = seen;
      seen = '';
      answer(socket, request, index++);
    });
  });
  return listen(server);
}

function get(
  requester: NodeHttpRequester,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string; signal?: AbortSignal } = {},
): Promise<ClientResponse> {
  return requester(new URL(url), { method: init.method ?? 'GET', headers: new Headers(init.headers), body: init.body, signal: init.signal });
}

async function text(response: ClientResponse): Promise<string> {
  const reader = response.body!.getReader();
  const chunks: Uint8Array[] = [];
  for (;;) {
    const next = await reader.read();
    if (next.done) break;
    chunks.push(next.value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

test('Content-Length bodies; N sequential requests share one keep-alive connection; status, headers, request line', async () => {
  const seen: Array<{ method: string; url: string; host: string; length: string | undefined; type: string | undefined; body: string }> = [];
  const running = await httpServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({
        method: req.method!,
        url: req.url!,
        host: req.headers.host!,
        length: req.headers['content-length'],
        type: req.headers['content-type'],
        body,
      });
      res.writeHead(201, 'Made It', { 'content-type': 'text/plain', 'x-two': 'a' });
      res.end(`answer ${seen.length}`);
    });
  });
  const requester = nodeHttpRequester();
  for (let i = 1; i <= 5; i++) {
    const response = await get(requester, `${running.url}/path?q=${i}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"é":1}' });
    assert.equal(response.status, 201);
    assert.equal(response.statusText, 'Made It');
    assert.equal(response.ok, true);
    assert.equal(response.redirected, false);
    assert.equal(response.headers.get('x-two'), 'a');
    assert.equal(response.url, `${running.url}/path?q=${i}`);
    assert.equal(await text(response), `answer ${i}`);
    assert.equal(response.bodyUsed, true);
  }
  assert.equal(running.connections, 1, 'one connection for five sequential requests');
  assert.deepEqual(seen[0], {
    method: 'POST',
    url: '/path?q=1',
    host: running.url.slice('http://'.length),
    length: '8',
    type: 'application/json',
    body: '{"é":1}',
  });
  assert.equal(requester.idleSockets, 1);
  requester.close();
  await running.allClosed();
  await running.close();
});

test('large bodies on several connections at once, read slowly, arrive intact (their packets share one read buffer; a slow reader pauses its socket)', async () => {
  // every plain-TCP connection reads into one shared buffer: a body piece must be copied
  // before the next packet (of any connection) lands there; chunks kept until the end tell
  const SIZE = 3 * 1024 * 1024;
  const bodyFor = (seed: number): Buffer => {
    const bytes = Buffer.allocUnsafe(SIZE);
    let x = seed;
    for (let i = 0; i < SIZE; i++) {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      bytes[i] = x >>> 24;
    }
    return bytes;
  };
  const bodies = [bodyFor(1), bodyFor(2), bodyFor(3)];
  const running = await httpServer((req, res) => {
    const which = Number(req.url!.slice(1));
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(SIZE) });
    res.end(bodies[which]);
  });
  const requester = nodeHttpRequester();
  const readSlowly = async (which: number): Promise<void> => {
    const response = await get(requester, `${running.url}/${which}`);
    const reader = response.body!.getReader();
    const chunks: Uint8Array[] = [];
    for (let n = 0; ; n++) {
      // pause between reads: the other connections' packets come meanwhile, and this one's
      // queue passes the high-water mark (its socket is paused, then resumed)
      if (n % 4 === 0) await new Promise((r) => setTimeout(r, 2));
      const next = await reader.read();
      if (next.done) break;
      chunks.push(next.value);
    }
    const got = Buffer.concat(chunks);
    assert.equal(got.length, SIZE);
    assert.ok(got.equals(bodies[which]!), `body ${which} arrived altered`);
  };
  try {
    await Promise.all([readSlowly(0), readSlowly(1), readSlowly(2)]);
    assert.equal(running.connections, 3);
  } finally {
    requester.close();
    await running.close();
  }
});

test('chunked bodies arrive chunk by chunk; trailers are skipped; the connection is reused', async () => {
  const running = await httpServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain', trailer: 'x-check' });
    res.write('first,');
    setTimeout(() => {
      res.addTrailers({ 'x-check': 'ok' });
      res.end('second');
    }, 20);
  });
  const requester = nodeHttpRequester();
  const response = await get(requester, running.url);
  assert.equal(response.headers.get('transfer-encoding'), 'chunked');
  const reader = response.body!.getReader();
  const first = await reader.read();
  assert.equal(Buffer.from(first.value!).toString(), 'first,', 'the first chunk arrives before the rest is written');
  let rest = '';
  for (let next = await reader.read(); !next.done; next = await reader.read()) rest += Buffer.from(next.value).toString();
  assert.equal(rest, 'second');
  assert.equal(await text(await get(requester, running.url)), 'first,second');
  assert.equal(running.connections, 1);
  requester.close();
  await running.close();
});

test('a body delimited by the connection closing is read to the end and the connection is not reused', async () => {
  const running = await rawServer((socket) => {
    socket.write('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\nhello ');
    setTimeout(() => socket.end('world'), 10);
  });
  const requester = nodeHttpRequester();
  assert.equal(await text(await get(requester, running.url)), 'hello world');
  assert.equal(await text(await get(requester, running.url)), 'hello world');
  assert.equal(running.connections, 2);
  requester.close();
  await running.close();
});

test('204, 304 and HEAD have no body, 100 Continue is skipped, and the connection is reused after each', async () => {
  const running = await httpServer((req, res) => {
    if (req.url === '/204') res.writeHead(204).end();
    else if (req.url === '/304') res.writeHead(304, { etag: '"x"' }).end();
    else if (req.url === '/continue') {
      res.writeContinue();
      setTimeout(() => res.end('after continue'), 5);
    } else res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '11' }).end(req.method === 'HEAD' ? undefined : 'hello there');
  });
  const requester = nodeHttpRequester();
  const noContent = await get(requester, `${running.url}/204`, { method: 'POST', body: '{}' });
  assert.equal(noContent.status, 204);
  assert.equal(await text(noContent), '');
  const notModified = await get(requester, `${running.url}/304`);
  assert.equal(notModified.status, 304);
  assert.equal(await text(notModified), '');
  const head = await get(requester, running.url, { method: 'HEAD' });
  assert.equal(head.headers.get('content-length'), '11');
  assert.equal(await text(head), '');
  const continued = await get(requester, `${running.url}/continue`);
  assert.equal(continued.status, 200);
  assert.equal(await text(continued), 'after continue');
  assert.equal(await text(await get(requester, running.url)), 'hello there');
  assert.equal(running.connections, 1);
  requester.close();
  await running.close();
});

test('Connection: close and HTTP/1.0 answers are not reused', async () => {
  const running = await rawServer((socket, _request, index) => {
    if (index % 2 === 0) socket.write('HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 2\r\n\r\nok');
    else socket.write('HTTP/1.0 200 OK\r\ncontent-length: 2\r\n\r\nok');
  });
  const requester = nodeHttpRequester();
  for (let i = 0; i < 4; i++) assert.equal(await text(await get(requester, running.url)), 'ok');
  assert.equal(running.connections, 4);
  await running.allClosed();
  assert.equal(requester.openSockets, 0);
  requester.close();
  await running.close();
});

test('an idle connection is dropped before the server’s Keep-Alive timeout, and the next request opens a new one', async () => {
  const running = await httpServer((_req, res) => res.end('ok'));
  running.server.keepAliveTimeout = 1500; // announced as Keep-Alive: timeout=1
  const requester = nodeHttpRequester();
  assert.equal(await text(await get(requester, running.url)), 'ok');
  assert.equal(requester.idleSockets, 1);
  await new Promise((r) => setTimeout(r, 1200));
  // past timeout=1 less 500 ms, before the server's own 1500 ms: the client let go first
  assert.equal(await text(await get(requester, running.url)), 'ok');
  assert.equal(running.connections, 2);
  requester.close();
  await running.close();
});

test('an idle connection the server closes leaves the pool at once', async () => {
  const running = await rawServer((socket) => {
    socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok');
    setTimeout(() => socket.end(), 20);
  });
  const requester = nodeHttpRequester();
  assert.equal(await text(await get(requester, running.url)), 'ok');
  assert.equal(requester.idleSockets, 1);
  await running.allClosed();
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(requester.openSockets, 0);
  assert.equal(await text(await get(requester, running.url)), 'ok');
  requester.close();
  await running.close();
});

test('a reused connection that dies before any response byte is retried once on a fresh one; a fresh one that dies fails', async () => {
  const running = await rawServer((socket, _request, index) => {
    // the second request, on the kept connection: the server drops it unanswered
    if (index === 1) socket.destroy();
    else socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok');
  });
  const requester = nodeHttpRequester();
  assert.equal(await text(await get(requester, running.url)), 'ok');
  assert.equal(await text(await get(requester, running.url, { method: 'POST', body: 'x' })), 'ok');
  assert.equal(running.connections, 2);
  requester.close();
  await running.close();

  const silent = await rawServer((socket) => socket.destroy());
  const second = nodeHttpRequester();
  await assert.rejects(get(second, silent.url), /closed the connection before answering/);
  assert.equal(silent.connections, 1, 'no retry on a fresh connection');
  second.close();
  await silent.close();
});

test('maxSocketsPerOrigin bounds the connections; requests beyond wait in order and all succeed', async () => {
  const running = await httpServer((req, res) => setTimeout(() => res.end(req.url), 30));
  const requester = nodeHttpRequester({ maxSocketsPerOrigin: 2 });
  const answers = await Promise.all(Array.from({ length: 7 }, (_, i) => get(requester, `${running.url}/${i}`).then(text)));
  assert.deepEqual(
    answers,
    Array.from({ length: 7 }, (_, i) => `/${i}`),
  );
  assert.equal(running.peak, 2);
  assert.equal(running.connections, 2);
  requester.close();
  await running.close();
});

test('connection failures and bad options are clear errors', async () => {
  const closedPort = await rawServer(() => {});
  const url = closedPort.url;
  await closedPort.close();
  const requester = nodeHttpRequester();
  await assert.rejects(get(requester, url), (err: Error) => err.message.startsWith(`Cannot connect to ${url}`) && /ECONNREFUSED/.test(err.message));
  await assert.rejects(get(requester, 'ftp://127.0.0.1/x'), { name: 'TypeError', message: /http: and https: only/ });
  await assert.rejects(get(requester, 'http://u:p@127.0.0.1/x'), { name: 'TypeError', message: /credentials/ });
  assert.throws(() => nodeHttpRequester({ maxSocketsPerOrigin: 0 }), { name: 'RangeError', message: /maxSocketsPerOrigin must be a positive integer/ });
  requester.close();
});

test('hostile servers: each malformed answer rejects clearly, the socket is destroyed, later requests work', async () => {
  const answers: Record<string, string> = {
    '/huge-head': `HTTP/1.1 200 OK\r\nx-big: ${'a'.repeat(20_000)}\r\ncontent-length: 0\r\n\r\n`,
    '/garbage': 'SMTP ready\r\n\r\n',
    '/no-status': 'HTTP/1.1 abc OK\r\n\r\n',
    '/conflicting-length': 'HTTP/1.1 200 OK\r\ncontent-length: 5\r\ncontent-length: 7\r\n\r\nhello',
    '/bad-length': 'HTTP/1.1 200 OK\r\ncontent-length: -5\r\n\r\n',
    '/bad-header': 'HTTP/1.1 200 OK\r\nbad header: x\r\n\r\n',
    '/folded': 'HTTP/1.1 200 OK\r\nx-a: 1\r\n  folded\r\n\r\n',
    '/upgrade': 'HTTP/1.1 101 Switching Protocols\r\n\r\n',
  };
  const expected: Record<string, RegExp> = {
    '/huge-head': /head exceeds 16384 bytes \(maxHeaderBytes\)/,
    '/garbage': /status line "SMTP ready" is not/,
    '/no-status': /status line/,
    '/conflicting-length': /conflicting Content-Length values \(5 and 7\)/,
    '/bad-length': /Content-Length "-5" is not a number/,
    '/bad-header': /header name "bad header" is not a token/,
    '/folded': /folded header line/,
    '/upgrade': /101 Switching Protocols/,
  };
  const running = await rawServer((socket, request) => {
    const path = request.split(' ')[1]!;
    if (path === '/ok') socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok');
    else socket.write(answers[path]!);
  });
  const requester = nodeHttpRequester();
  for (const path of Object.keys(answers)) {
    await assert.rejects(get(requester, running.url + path), expected[path]!, path);
    await running.allClosed();
    assert.equal(requester.openSockets, 0, `${path}: the socket is gone`);
  }
  assert.equal(await text(await get(requester, `${running.url}/ok`)), 'ok');
  requester.close();
  await running.close();
});

test('hostile servers: a broken body fails the read, the socket is destroyed', async () => {
  const answers: Record<string, (socket: Socket) => void> = {
    '/bad-chunk': (s) => s.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\nzz\r\n'),
    '/long-chunk-line': (s) => s.write(`HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5;${'x'.repeat(5000)}`),
    '/overlong-chunk': (s) => s.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nhello\r\n0\r\n\r\n'),
    '/huge-trailers': (s) => s.write(`HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n0\r\n${`x-t: ${'t'.repeat(1000)}\r\n`.repeat(20)}\r\n`),
    '/cut': (s) => {
      s.write('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nonly ten..');
      setTimeout(() => s.destroy(), 10);
    },
    '/cut-chunked': (s) => {
      s.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n');
      setTimeout(() => s.end(), 10);
    },
    '/extra-bytes': (s) => s.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nokEXTRA'),
  };
  const expected: Record<string, RegExp | null> = {
    '/bad-chunk': /chunk-size line "zz" is not hexadecimal/,
    '/long-chunk-line': /chunk-size line exceeds 4096 bytes/,
    '/overlong-chunk': /longer than its size says/,
    '/huge-trailers': /trailers exceeds/,
    '/cut': /closed the connection in the middle of the response body/,
    '/cut-chunked': /closed the connection in the middle of the response body/,
    // the response itself is complete; the stray bytes only cost the connection
    '/extra-bytes': null,
  };
  const running = await rawServer((socket, request) => answers[request.split(' ')[1]!]!(socket));
  const requester = nodeHttpRequester();
  for (const path of Object.keys(answers)) {
    const response = await get(requester, running.url + path);
    assert.equal(response.status, 200);
    if (expected[path] === null) assert.equal(await text(response), 'ok');
    else await assert.rejects(text(response), expected[path]!, path);
    await running.allClosed();
    assert.equal(requester.openSockets, 0, `${path}: the socket is gone`);
  }
  requester.close();
  await running.close();
});

test('maxHeaderBytes is an option', async () => {
  const running = await rawServer((socket) => socket.write(`HTTP/1.1 200 OK\r\nx-big: ${'a'.repeat(600)}\r\ncontent-length: 0\r\n\r\n`));
  const small = nodeHttpRequester({ maxHeaderBytes: 512 });
  await assert.rejects(get(small, running.url), /exceeds 512 bytes/);
  const large = nodeHttpRequester({ maxHeaderBytes: 1024 });
  assert.equal((await get(large, running.url)).status, 200);
  small.close();
  large.close();
  await running.close();
});

test('abort before sending, while waiting for the head, and while reading the body: rejects with the reason, socket destroyed', async () => {
  let stall: 'head' | 'body' = 'head';
  const running = await httpServer((_req, res) => {
    if (stall === 'body') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('part');
    }
  });
  const requester = nodeHttpRequester();
  const reason = new Error('stop now');
  await assert.rejects(get(requester, running.url, { signal: AbortSignal.abort(reason) }), (err) => err === reason);
  assert.equal(running.connections, 0, 'nothing was sent');

  const whileWaiting = new AbortController();
  const pending = get(requester, running.url, { signal: whileWaiting.signal });
  while (running.connections === 0) await new Promise((r) => setTimeout(r, 5));
  whileWaiting.abort(reason);
  await assert.rejects(pending, (err) => err === reason);
  await running.allClosed();
  assert.equal(requester.openSockets, 0);

  stall = 'body';
  const whileReading = new AbortController();
  const response = await get(requester, running.url, { signal: whileReading.signal });
  const reader = response.body!.getReader();
  assert.equal(Buffer.from((await reader.read()).value!).toString(), 'part');
  const next = reader.read();
  whileReading.abort(reason);
  await assert.rejects(next, (err) => err === reason);
  await running.allClosed();
  assert.equal(requester.openSockets, 0);
  requester.close();
  await running.close();
});

test('the abort listener is removed once the body ended; cancel() of an unfinished body destroys the socket, of a finished one keeps it', async () => {
  const running = await httpServer((req, res) => {
    if (req.url === '/endless') {
      res.writeHead(200);
      res.write('x');
    } else res.end('done');
  });
  const requester = nodeHttpRequester();
  const controller = new AbortController();
  let listeners = 0;
  const signal = controller.signal;
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = ((...args: Parameters<AbortSignal['addEventListener']>) => (listeners++, add(...args))) as AbortSignal['addEventListener'];
  signal.removeEventListener = ((...args: Parameters<AbortSignal['removeEventListener']>) => (
    listeners--, remove(...args)
  )) as AbortSignal['removeEventListener'];
  const response = await get(requester, running.url, { signal });
  assert.equal(await text(response), 'done');
  assert.equal(listeners, 0, 'the abort listener was removed');
  for (let i = 0; i < 3; i++) await text(await get(requester, running.url, { signal }));
  assert.equal(listeners, 0, 'one signal over many requests gathers no listeners');
  controller.abort(new Error('late'));
  assert.equal(requester.idleSockets, 1, 'a late abort does nothing');
  const finished = await get(requester, running.url);
  await new Promise((r) => setTimeout(r, 10));
  await finished.body!.cancel();
  assert.equal(requester.idleSockets, 1, 'the whole body had arrived: the socket went back to the pool');
  const endless = await get(requester, `${running.url}/endless`);
  await endless.body!.cancel();
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(requester.openSockets, 0, 'the unfinished body’s socket (the reused one) was destroyed');
  requester.close();
  await running.close();
});

test('a header value with CR or LF, a header name or a method that is not a token are refused before anything is sent', async () => {
  const running = await httpServer((_req, res) => res.end('ok'));
  const requester = nodeHttpRequester();
  class Smuggling extends Headers {
    override forEach(callback: (value: string, key: string, parent: Headers) => void): void {
      callback('1\r\nx-injected: yes', 'x-a', this);
    }
  }
  class BadName extends Headers {
    override forEach(callback: (value: string, key: string, parent: Headers) => void): void {
      callback('1', 'x a', this);
    }
  }
  await assert.rejects(requester(new URL(running.url), { method: 'GET', headers: new Smuggling() }), {
    name: 'TypeError',
    message: /header x-a holds CR, LF or NUL/,
  });
  await assert.rejects(requester(new URL(running.url), { method: 'GET', headers: new BadName() }), {
    name: 'TypeError',
    message: /header name "x a" is not a token/,
  });
  await assert.rejects(requester(new URL(running.url), { method: 'GE T', headers: new Headers() }), {
    name: 'TypeError',
    message: /method "GE T" is not a token/,
  });
  await assert.rejects(get(requester, running.url, { headers: { 'transfer-encoding': 'chunked' } }), {
    name: 'TypeError',
    message: /Transfer-Encoding cannot be set/,
  });
  assert.equal(running.connections, 0);
  requester.close();
  await running.close();
});

test('close() rejects requests in progress and queued, destroys every socket, refuses later requests', async () => {
  const running = await httpServer(() => {});
  const requester = nodeHttpRequester({ maxSocketsPerOrigin: 1 });
  const first = get(requester, running.url);
  const queued = get(requester, running.url);
  while (running.connections === 0) await new Promise((r) => setTimeout(r, 5));
  requester.close();
  await assert.rejects(first, { code: 'connection_closed', message: /requester was closed/ });
  await assert.rejects(queued, { code: 'connection_closed' });
  await assert.rejects(get(requester, running.url), { code: 'connection_closed' });
  await running.allClosed();
  assert.equal(requester.openSockets, 0);
  requester.close();
  await running.close();
});

test('https: a self-signed certificate (openssl) trusted through tls.ca, SNI from the URL, keep-alive; untrusted it is refused', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-requester-tls-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost',
    ],
    { stdio: 'ignore' },
  );
  let servername: string | undefined;
  const server = createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
    servername = (req.socket as unknown as { servername?: string }).servername;
    res.end(`secure ${req.headers.host}`);
  });
  const running = await listen(server, 'https');
  const port = (server.address() as AddressInfo).port;
  const trusted = nodeHttpRequester({ tls: { ca: readFileSync(cert) } });
  for (let i = 0; i < 3; i++) assert.equal(await text(await get(trusted, `https://localhost:${port}/`)), `secure localhost:${port}`);
  assert.equal(servername, 'localhost');
  assert.equal(running.connections, 1);
  const untrusted = nodeHttpRequester();
  await assert.rejects(
    get(untrusted, `https://localhost:${port}/`),
    /Cannot connect to https:\/\/localhost:\d+: the server's TLS certificate was not accepted \(DEPTH_ZERO_SELF_SIGNED_CERT: self[- ]signed certificate\)/,
  );
  trusted.close();
  untrusted.close();
  await running.close();
});

test('the heap stays flat over 20 000 requests (GC forced)', async () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const heap = (): number => {
    for (let i = 0; i < 4; i++) gc();
    return process.memoryUsage().heapUsed;
  };
  const running = await httpServer((_req, res) => res.end('{"ok":true}'));
  const requester = nodeHttpRequester();
  const signal = new AbortController().signal;
  const url = new URL(running.url);
  const loop = async (n: number): Promise<void> => {
    for (let i = 0; i < n; i++) {
      const response = await requester(url, { method: 'POST', headers: new Headers({ 'content-type': 'application/json' }), body: '{}', signal });
      await text(response);
    }
  };
  try {
    await Promise.all(Array.from({ length: 4 }, () => loop(2000)));
    // two windows of 10 000 requests: a leak of 100 bytes a request (the bound) grows both by
    // 1 MiB; a one-off growth (V8 tiering code up under a busy machine: up to 2.1 MiB seen in
    // CI over 20 000 requests, −0.2 to 1.1 MiB on a quiet one) lands in one of them
    const start = heap();
    await Promise.all(Array.from({ length: 4 }, () => loop(2500)));
    const middle = heap();
    await Promise.all(Array.from({ length: 4 }, () => loop(2500)));
    const windows = [middle - start, heap() - middle];
    assert.ok(
      Math.min(...windows) < 1024 * 1024,
      `the heap grew by ${windows.map((w) => Math.round(w / 1024)).join(' and ')} KiB over two windows of 10 000 requests`,
    );
  } finally {
    requester.close();
    await running.close();
  }
});
