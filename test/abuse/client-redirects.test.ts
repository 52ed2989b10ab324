/**
 * Fault and abuse suite, HTTP client transports: redirects.
 *
 * Two real `node:http` servers on 127.0.0.1 on two ports are two origins (RFC 6454 § 4:
 * scheme, host and port). The first answers with redirects; the second records everything
 * that reaches it and would answer like a working MCP server, so any request the client
 * leaks there shows up as a count (and, unfixed, as a call that wrongly succeeds).
 *
 * Expected behaviour (RFC 9110 § 15.4): a redirect to another origin is never followed — the
 * JSON-RPC body, custom headers, `Authorization` and `Mcp-Session-Id` would all go there — and
 * the call fails with a `RedirectRefusedError` naming the target's origin. A same-origin 307
 * or 308 is followed with method and body intact (§ 15.4.8, § 15.4.9: the method must not
 * change); a 301, 302 or 303 to a POST is refused, since following it the way user agents do
 * turns the POST into a GET (§ 15.4.2, § 15.4.3, § 15.4.4) and drops the message.
 */

import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, test } from 'node:test';
import { Client } from '../../src/client/client.js';
import { FallbackTransport } from '../../src/http/client/fallback.js';
import { SseClientTransport } from '../../src/http/client/legacy-sse.js';
import { StreamableHttpClientTransport } from '../../src/http/client/streamable.js';
import { LocalError } from '../../src/jsonrpc/errors.js';
import { Collector, waitFor } from '../helpers/http/fake-server.js';
import { answerHandshake, HttpPeer, PEER_SESSION_ID, type PeerRequest } from './client-peer.js';

const SECRET_HEADERS = { 'x-custom': 'custom-secret', authorization: 'Bearer secret-token' };

/** The second origin: answers like a working server (so a followed redirect "succeeds"). */
let other: HttpPeer;

before(async () => {
  other = await HttpPeer.listen((r, res) => {
    if (answerHandshake(r, res)) return;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: r.message?.id ?? null, result: {} }));
  });
});

after(async () => {
  await other.close();
});

function redirect(res: ServerResponse, status: number, location: string): void {
  res.writeHead(status, { location, 'content-type': 'text/plain' }).end('moved');
}

function answerPing(r: PeerRequest, res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: r.message?.id, result: {} }));
}

/** Asserts `err` is the documented refusal, with the given reason. */
function assertRefused(err: unknown, refusal: string, targetOrigin?: string): true {
  assert.ok(err instanceof LocalError, `expected a LocalError, got ${String(err)}`);
  assert.equal(err.name, 'RedirectRefusedError');
  assert.equal(err.code, 'connection_closed');
  assert.equal((err as unknown as { refusal: string }).refusal, refusal);
  if (targetOrigin !== undefined) {
    assert.equal((err as unknown as { targetOrigin: string }).targetOrigin, targetOrigin);
    assert.ok(err.message.includes(targetOrigin), `the message names the target origin: ${err.message}`);
  }
  assert.ok(!/\n\s+at /.test(err.message), 'no stack in the message');
  return true;
}

function newClient(): Client {
  return new Client({ name: 'abuse-client', version: '1' });
}

test('a cross-origin 307, 308, 301, 302 or 303 is never followed: nothing reaches the other origin', { timeout: 60_000 }, async () => {
  for (const status of [307, 308, 301, 302, 303]) {
    const before = other.requests.length;
    const first = await HttpPeer.listen((r, res) => {
      // The handshake works; ping, the GET stream and the closing DELETE are redirected away.
      if (r.message?.method === 'initialize' || (r.method === 'POST' && r.message?.id === undefined)) {
        answerHandshake(r, res);
        return;
      }
      redirect(res, status, other.url('/mcp'));
    });
    const transport = new StreamableHttpClientTransport({ url: first.url('/mcp'), headers: SECRET_HEADERS });
    const client = newClient();
    try {
      await client.connect(transport);
      assert.equal(transport.sessionId, PEER_SESSION_ID);
      await assert.rejects(client.ping(), (err) => assertRefused(err, 'cross_origin', other.origin), `HTTP ${status}`);
      await waitFor(() => transport.getStreamState !== 'open', `the GET stream gives up after HTTP ${status}`, 10_000);
      assert.equal(transport.getStreamState, 'failed');
    } finally {
      await client.close();
      await first.close();
    }
    // No body, no Mcp-Session-Id, no custom header, no Authorization: no request at all.
    assert.deepEqual(other.requests.slice(before), [], `HTTP ${status}: the other origin received nothing`);
    assert.ok(first.withMethod('ping').length === 1, 'the ping went to the first origin once');
  }
});

test('a same-origin 307 or 308 is followed with the method, body and headers intact', { timeout: 60_000 }, async () => {
  for (const status of [307, 308]) {
    const server = await HttpPeer.listen((r, res) => {
      if (answerHandshake(r, res)) return;
      if (r.path === '/mcp') redirect(res, status, '/moved');
      else answerPing(r, res);
    });
    const transport = new StreamableHttpClientTransport({ url: server.url('/mcp'), headers: SECRET_HEADERS, openGetStream: false });
    const client = newClient();
    try {
      await client.connect(transport);
      assert.deepEqual(await client.ping(), {});
      const [original, moved] = server.withMethod('ping');
      assert.ok(original && moved, `HTTP ${status}: the ping was sent twice (original, then the target)`);
      assert.equal(original.path, '/mcp');
      assert.equal(moved.path, '/moved');
      assert.equal(moved.method, 'POST');
      assert.equal(moved.body, original.body);
      assert.equal(moved.headers['mcp-session-id'], PEER_SESSION_ID);
      assert.equal(moved.headers['x-custom'], 'custom-secret');
      assert.equal(moved.headers['content-type'], 'application/json');
    } finally {
      await client.close();
      await server.close();
    }
  }
});

test('a same-origin 301, 302 or 303 to a POST is refused, never turned into a GET', { timeout: 60_000 }, async () => {
  for (const status of [301, 302, 303]) {
    const server = await HttpPeer.listen((r, res) => {
      if (r.path === '/moved') {
        answerPing(r, res);
        return;
      }
      if (answerHandshake(r, res)) return;
      redirect(res, status, '/moved');
    });
    const transport = new StreamableHttpClientTransport({ url: server.url('/mcp'), openGetStream: false });
    const client = newClient();
    try {
      await client.connect(transport);
      await assert.rejects(client.ping(), (err) => assertRefused(err, 'method_change'), `HTTP ${status}`);
    } finally {
      await client.close();
      await server.close();
    }
    assert.deepEqual(
      server.requests.filter((r) => r.path === '/moved'),
      [],
      `HTTP ${status}: nothing (in particular no GET) went to the target`,
    );
  }
});

test('same-origin redirects are bounded by maxRedirects', { timeout: 60_000 }, async () => {
  let hop = 0;
  const server = await HttpPeer.listen((r, res) => {
    if (answerHandshake(r, res)) return;
    redirect(res, 307, `/hop-${++hop}`);
  });
  const transport = new StreamableHttpClientTransport({ url: server.url('/mcp'), openGetStream: false, maxRedirects: 3 });
  const client = newClient();
  try {
    await client.connect(transport);
    await assert.rejects(client.ping(), (err) => assertRefused(err, 'too_many_redirects'));
    // the original request and three followed hops
    assert.equal(server.withMethod('ping').length, 4);
  } finally {
    await client.close();
    await server.close();
  }
});

test('an injected fetch gets redirect: manual, and a redirect it follows anyway is refused', { timeout: 60_000 }, async () => {
  const first = await HttpPeer.listen((r, res) => {
    if (r.message?.method === 'initialize' || (r.method === 'POST' && r.message?.id === undefined)) {
      answerHandshake(r, res);
      return;
    }
    redirect(res, 307, other.url('/mcp'));
  });
  try {
    // A fetch that passes the transport's init through: the guard holds.
    const redirectModes: Array<RequestRedirect | undefined> = [];
    const passThrough: typeof fetch = (input, init) => {
      redirectModes.push(init?.redirect);
      return fetch(input, init);
    };
    const before = other.requests.length;
    const client = newClient();
    await client.connect(
      new StreamableHttpClientTransport({ url: first.url('/mcp'), fetch: passThrough, openGetStream: false, requestInit: { redirect: 'follow' } }),
    );
    await assert.rejects(client.ping(), (err) => assertRefused(err, 'cross_origin', other.origin));
    await client.close();
    assert.deepEqual(other.requests.slice(before), []);
    assert.ok(
      redirectModes.length > 0 && redirectModes.every((mode) => mode === 'manual'),
      `every request asked for redirect: manual (${redirectModes.join()})`,
    );

    // A fetch that follows redirects itself: the request left, but its answer is refused.
    const following: typeof fetch = (input, init) => fetch(input, { ...init, redirect: 'follow' });
    const client2 = newClient();
    await client2.connect(new StreamableHttpClientTransport({ url: first.url('/mcp'), fetch: following, openGetStream: false }));
    await assert.rejects(client2.ping(), (err) => assertRefused(err, 'followed_by_fetch', other.origin));
    await client2.close();
  } finally {
    await first.close();
  }
});

test('legacy HTTP+SSE: a redirected SSE GET or message POST never reaches the other origin', { timeout: 60_000 }, async () => {
  const before = other.requests.length;
  const first = await HttpPeer.listen((r, res) => {
    if (r.path === '/sse-moved-away') {
      redirect(res, 307, other.url('/sse'));
      return;
    }
    if (r.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: endpoint\ndata: /messages\n\n');
      return;
    }
    redirect(res, 307, other.url('/messages'));
  });
  try {
    const moved = new SseClientTransport({ url: first.url('/sse-moved-away'), headers: SECRET_HEADERS });
    await assert.rejects(moved.start(new Collector()), (err) => assertRefused(err, 'cross_origin', other.origin));

    const legacy = new SseClientTransport({ url: first.url('/sse'), headers: SECRET_HEADERS });
    await legacy.start(new Collector());
    await assert.rejects(Promise.resolve(legacy.send({ jsonrpc: '2.0', id: 1, method: 'ping' })), (err) => assertRefused(err, 'cross_origin', other.origin));
    await legacy.close();
  } finally {
    await first.close();
  }
  assert.deepEqual(other.requests.slice(before), []);
});

test('fallback transport: a redirected first POST fails with the refusal and does not fall back', { timeout: 60_000 }, async () => {
  const before = other.requests.length;
  const first = await HttpPeer.listen((_r, res) => redirect(res, 307, other.url('/mcp')));
  const transport = new FallbackTransport(first.url('/mcp'), { headers: SECRET_HEADERS });
  try {
    await assert.rejects(newClient().connect(transport), (err) => assertRefused(err, 'cross_origin', other.origin));
    assert.equal(first.requests.filter((r) => r.method === 'GET').length, 0, 'no legacy SSE GET: a redirect says nothing about the transport');
  } finally {
    await transport.close();
    await first.close();
  }
  assert.deepEqual(other.requests.slice(before), []);
});
