import assert from 'node:assert/strict';
import { test } from 'node:test';
import { makeHandler } from '../../../test/helpers/http/server-harness.js';
import { type SseEvent, SseParser } from '../../framing/sse.js';
import { InMemoryEventStore } from './event-store.js';
import { HOST_FORBIDDEN, HOST_MALFORMED, HOST_OK, hasContentCoding, RequestGuard, targetPath } from './request-guard.js';
import { StreamableSessionTransport } from './session-transport.js';
import { SseConnection } from './sse-connection.js';
import type { HttpPlainReply, SseSink } from './types.js';

test('InMemoryEventStore: replays after a sequence number, per stream, in order', () => {
  const store = new InMemoryEventStore();
  for (let i = 1; i <= 5; i++) store.append('s/1', i, `a${i}`);
  store.append('s/2', 1, 'b1');
  assert.deepEqual(store.replay('s/1', 3), [
    { seq: 4, data: 'a4' },
    { seq: 5, data: 'a5' },
  ]);
  assert.deepEqual(
    store.replay('s/1', 0).map((e) => e.data),
    ['a1', 'a2', 'a3', 'a4', 'a5'],
  );
  assert.deepEqual(store.replay('s/1', 5), []);
  assert.deepEqual(store.replay('s/2', 0), [{ seq: 1, data: 'b1' }]);
  assert.deepEqual(store.replay('unknown', 0), []);
  store.delete('s/1');
  assert.deepEqual(store.replay('s/1', 0), []);
  assert.equal(store.streamCount, 1);
  assert.equal(store.totalChars, 2);
});

test('InMemoryEventStore: bounded per stream, in total characters and in streams', () => {
  const perStream = new InMemoryEventStore({ maxEventsPerStream: 3 });
  for (let i = 1; i <= 10; i++) perStream.append('s', i, 'x');
  assert.deepEqual(
    perStream.replay('s', 0).map((e) => e.seq),
    [8, 9, 10],
  );
  assert.equal(perStream.totalChars, 3);

  const chars = new InMemoryEventStore({ maxTotalChars: 10 });
  chars.append('old', 1, '12345');
  chars.append('mid', 1, '1234');
  chars.append('new', 1, '123');
  assert.deepEqual(chars.replay('old', 0), [], 'the oldest stream is evicted first');
  assert.equal(chars.replay('mid', 0).length, 1);
  assert.equal(chars.totalChars, 7);
  chars.append('huge', 1, 'a'.repeat(8));
  chars.append('huge', 2, 'b'.repeat(8));
  assert.equal(chars.streamCount, 1);
  assert.deepEqual(
    chars.replay('huge', 0).map((e) => e.seq),
    [2],
    'a single stream over the bound keeps its newest event',
  );
  assert.ok(chars.totalChars <= 10);

  const streams = new InMemoryEventStore({ maxStreams: 2 });
  streams.append('a', 1, 'x');
  streams.append('b', 1, 'x');
  streams.append('c', 1, 'x');
  assert.equal(streams.streamCount, 2);
  assert.deepEqual(streams.replay('a', 0), []);
  assert.throws(() => new InMemoryEventStore({ maxStreams: 0 }), RangeError);
});

test('RequestGuard: host names with and without ports, IPv6, case', () => {
  const guard = new RequestGuard();
  for (const host of ['localhost', 'localhost:1', 'LocalHost:65535', '127.0.0.1:3000', '[::1]', '[::1]:8080']) assert.ok(guard.hostAllowed(host), host);
  for (const host of [null, '', 'localhost.evil.com', 'evil.com:80', '127.0.0.2', '[::2]:80', '0.0.0.0']) assert.ok(!guard.hostAllowed(host), String(host));
  const exact = new RequestGuard(['api.example.com:8443', 'Plain.Example.com'], []);
  assert.ok(exact.hostAllowed('api.example.com:8443'));
  assert.ok(!exact.hostAllowed('api.example.com'));
  assert.ok(exact.hostAllowed('plain.example.com:1234'));
  assert.ok(new RequestGuard('*').hostAllowed(null));
});

test('RequestGuard: origins', () => {
  const guard = new RequestGuard();
  assert.ok(guard.originAllowed(null), 'no Origin header: not a browser');
  for (const origin of ['http://localhost:5173', 'https://127.0.0.1', 'http://[::1]:3000', 'HTTP://LOCALHOST']) assert.ok(guard.originAllowed(origin), origin);
  for (const origin of ['null', 'http://evil.com', 'file://', 'chrome-extension://abc', 'not a url', 'http://localhost.evil.com'])
    assert.ok(!guard.originAllowed(origin), origin);
  const listed = new RequestGuard(undefined, ['https://app.example.com', 'https://other.example.com:8443', 'null']);
  assert.ok(listed.originAllowed('https://app.example.com'));
  assert.ok(listed.originAllowed('https://app.example.com:443'), 'default port normalized');
  assert.ok(!listed.originAllowed('http://app.example.com'));
  assert.ok(listed.originAllowed('https://other.example.com:8443'));
  assert.ok(!listed.originAllowed('https://other.example.com'));
  assert.ok(listed.originAllowed('null'));
  assert.ok(!listed.originAllowed('http://localhost'), 'a list replaces the defaults');
});

test('RequestGuard: in a sequence of checks, no verdict depends on an earlier one', () => {
  const guard = new RequestGuard();
  for (let round = 0; round < 3; round++) {
    for (const host of ['localhost:3000', 'evil.com', 'localhost:3000', '127.0.0.1', 'localhost.evil.com']) {
      assert.equal(guard.hostAllowed(host), !host.includes('evil'), `${host}, round ${round}`);
    }
    for (const origin of ['http://localhost:5173', 'http://evil.com', 'http://localhost:5173', 'not a url', 'https://127.0.0.1']) {
      assert.equal(guard.originAllowed(origin), origin.startsWith('http://localhost') || origin.startsWith('https://127'), `${origin}, round ${round}`);
    }
  }
});

class Recorder implements SseSink {
  text = '';
  ended = 0;
  write(text: string): void {
    this.text += text;
  }
  end(): void {
    this.ended++;
  }
}

test('SseConnection: buffers until attached, then writes through; end after buffer', () => {
  const conn = new SseConnection();
  conn.write('a');
  conn.write('b');
  const sink = new Recorder();
  conn.attach(sink);
  assert.equal(sink.text, 'ab');
  conn.write('c');
  assert.equal(sink.text, 'abc');
  conn.end();
  conn.end();
  conn.write('d');
  assert.equal(sink.text, 'abc');
  assert.equal(sink.ended, 1);
  assert.equal(conn.open, false);
  assert.throws(() => conn.attach(new Recorder()));

  const early = new SseConnection();
  early.write('x');
  early.end();
  const later = new Recorder();
  early.attach(later);
  assert.deepEqual([later.text, later.ended], ['x', 1]);
});

test('SseConnection: a disconnect tells the owner once; never after the core ended it', () => {
  const lost: SseConnection[] = [];
  const owner = { connectionLost: (c: SseConnection) => lost.push(c) };
  const conn = new SseConnection(owner);
  conn.attach(new Recorder());
  conn.disconnected();
  conn.disconnected();
  assert.deepEqual(lost, [conn]);
  conn.write('ignored');
  const ended = new SseConnection(owner);
  ended.end();
  ended.disconnected();
  assert.equal(lost.length, 1);
  const gone = new SseConnection();
  gone.write('x');
  gone.disconnected();
  const sink = new Recorder();
  gone.attach(sink);
  assert.deepEqual([sink.text, sink.ended], ['', 1]);
});

test('StreamableSessionTransport.isIdle: never while a request is in flight; the clock restarts when it finishes', async () => {
  const host = { store: undefined, retryMs: 1000, reportError: () => {}, released: () => {} };
  for (const mode of ['json', 'sse'] as const) {
    const transport = new StreamableSessionTransport(host, 'session-1');
    transport.start({ message: () => {}, error: () => {}, closed: () => {} });
    const stream = transport.openPost([1], false, false, mode);
    if (mode === 'sse') {
      // the client went away: a disconnect is not a cancellation, the request still runs
      transport.replyFor(stream).stream!.disconnected();
    }
    assert.equal(transport.connections, 0, mode);
    const farFuture = Date.now() + 3_600_000;
    assert.equal(transport.isIdle(farFuture, 1000), false, `${mode}: a request in flight keeps the session busy`);
    const before = Date.now();
    await transport.send({ jsonrpc: '2.0', id: 1, result: {} });
    assert.ok(transport.lastActivity >= before, `${mode}: finishing the request counts as activity`);
    assert.equal(transport.isIdle(transport.lastActivity + 999, 1000), false, mode);
    assert.equal(transport.isIdle(transport.lastActivity + 1000, 1000), true, mode);
    await transport.close();
  }
});

test('StreamableSessionTransport: pre-serialized text with line breaks leaves as one data line per event, the same JSON (with and without an event store)', async () => {
  // JSON may hold CR and LF as whitespace between tokens; the events are written without a
  // per-event scan, so the transport makes such text one line when it receives it
  const message = '{\r\n  "jsonrpc": "2.0",\n  "id": 1,\r  "result": {"text": "a\\nb"}\n}';
  const note = '{"jsonrpc":"2.0",\n"method":"notifications/progress","params":{"progressToken":1,"progress":1}}';
  for (const store of [new InMemoryEventStore(), undefined]) {
    const host = { store, retryMs: 1000, reportError: (e: Error) => assert.fail(e), released: () => {} };
    const transport = new StreamableSessionTransport(host, 'session-1');
    transport.start({ message: () => {}, error: () => {}, closed: () => {} });
    const stream = transport.openPost([1], false, false, 'sse');
    const sink = new Recorder();
    transport.replyFor(stream).stream!.attach(sink);
    await transport.send(note, { relatedRequestId: 1 });
    await transport.send(message);
    assert.equal(sink.ended, 1);
    const events: SseEvent[] = [];
    new SseParser({ event: (e) => events.push(e) }).push(sink.text);
    const data = events.map((e) => e.data).filter((d) => d !== '');
    assert.deepEqual(
      data.map((d) => JSON.parse(d)),
      [JSON.parse(note), JSON.parse(message)],
    );
    for (const d of data) assert.ok(!/[\r\n]/.test(d), `an event's data spans lines: ${JSON.stringify(d)}`);
    for (const block of sink.text.split('\n\n').filter((b) => b.includes('data: {'))) assert.equal(block.match(/^data:/gm)!.length, 1, block);
    await transport.close();
  }
});

test('RequestGuard.check: Host parsed strictly (400 malformed, 403 foreign); an absolute target is checked like Host', () => {
  const guard = new RequestGuard();
  // RFC 9112 § 3.2: a missing or invalid Host is 400
  for (const host of [
    null,
    '',
    '127.0.0.1:evil.com',
    'localhost:1:2',
    'localhost:65536',
    'localhost:8o',
    '[::1',
    '[::1]:x',
    '[v1.x]',
    'a@localhost',
    'local host',
    '::1',
  ]) {
    assert.equal(guard.check(host, '/mcp'), HOST_MALFORMED, String(host));
    assert.equal(guard.hostAllowed(host), false, String(host));
  }
  for (const host of ['localhost', 'localhost:', 'localhost:08080', '[::1]:1', '127.0.0.1:65535']) assert.equal(guard.check(host, '/mcp'), HOST_OK, host);
  assert.equal(guard.check('evil.com', '/mcp'), HOST_FORBIDDEN);
  // RFC 9112 § 3.2.2: the authority of an absolute-form target is the one that counts
  assert.equal(guard.check('localhost', 'http://evil.com/mcp'), HOST_FORBIDDEN);
  assert.equal(guard.check(null, 'http://evil.com'), HOST_FORBIDDEN);
  assert.equal(guard.check(null, 'HTTP://LOCALHOST:3000/mcp?x'), HOST_OK, 'no Host needed beside an absolute target');
  assert.equal(guard.check('evil.com', 'http://localhost/mcp'), HOST_FORBIDDEN, 'a Host beside it must pass too');
  for (const target of ['ftp://localhost/mcp', 'http://user@localhost/mcp', 'http:///mcp', 'http://localhost:x/mcp'])
    assert.equal(guard.check('localhost', target), HOST_MALFORMED, target);
  assert.equal(guard.check('localhost', '*'), HOST_OK, 'other forms are left to routing');
  // remembering the last allowed authority never admits a refused one
  for (let round = 0; round < 2; round++) {
    assert.equal(guard.check(null, 'http://localhost:1/mcp'), HOST_OK);
    assert.equal(guard.check(null, 'http://localhost:1@evil.com/mcp'), HOST_MALFORMED);
    assert.equal(guard.check(null, 'http://localhost:1.evil.com/mcp'), HOST_MALFORMED);
  }
  assert.equal(new RequestGuard('*').check('127.0.0.1:evil.com', 'http://evil.com/'), HOST_OK, '"*" turns the checks off');
  assert.throws(() => new RequestGuard(['example.com:http']), TypeError);
});

test('targetPath and hasContentCoding', () => {
  assert.equal(targetPath('/mcp'), '/mcp');
  assert.equal(targetPath('/mcp?x=1#f'), '/mcp');
  assert.equal(targetPath('http://h:1/mcp?x'), '/mcp');
  assert.equal(targetPath('http://h?/mcp'), '/', 'a slash in the query is not the path');
  assert.equal(targetPath('http://h'), '/');
  assert.equal(targetPath('*'), '');
  assert.equal(hasContentCoding(null), false);
  assert.equal(hasContentCoding('identity'), false);
  assert.equal(hasContentCoding(' Identity , '), false);
  assert.equal(hasContentCoding('gzip'), true);
  assert.equal(hasContentCoding('identity, br'), true);
});

test('StreamableHttpHandler.handle never rejects: a failure of its own is a 500 reported to onError; a body that throws is a 400', async () => {
  const errors: Error[] = [];
  const handler = makeHandler({ onError: (e) => errors.push(e) });
  const headers =
    (values: Record<string, string>) =>
    (name: string): string | null =>
      values[name] ?? null;
  // a synchronous throw on the way in (a header lookup that fails)
  const failing = await handler.handle({
    method: 'POST',
    url: '/mcp',
    headers: () => {
      throw new Error('lookup broke');
    },
  });
  assert.equal(failing.status, 500);
  assert.equal(JSON.parse((failing as HttpPlainReply).body!).error.message, 'Internal error');
  assert.deepEqual(
    errors.map((e) => e.message),
    ['lookup broke'],
  );
  // a body reader that throws at once, and one that rejects: the body could not be read
  const post = {
    method: 'POST',
    url: '/mcp',
    headers: headers({ host: '127.0.0.1', accept: 'application/json, text/event-stream', 'content-type': 'application/json' }),
  };
  for (const body of [
    () => {
      throw new Error('no body');
    },
    () => Promise.reject(new Error('no body')),
  ]) {
    const reply = await handler.handle({ ...post, body });
    assert.equal(reply.status, 400);
    assert.match(JSON.parse((reply as HttpPlainReply).body!).error.message, /could not be read/);
  }
  assert.equal(errors.length, 1);
  await handler.close();
});
