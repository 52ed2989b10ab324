/**
 * The response head reader on its own: what it takes from good heads (names lower-cased,
 * optional whitespace dropped, framing fields read in their common and rarer forms) and
 * the clear error each kind of bad head gets.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FieldCache, isToken, parseHead } from './response-head.js';

test('a usual head: status, reason, fields in order with lower-case names, framing read', () => {
  const head = parseHead(
    'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nContent-Length: 42\r\nDate: x\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\n\r\n',
  );
  assert.equal(head.status, 200);
  assert.equal(head.statusText, 'OK');
  assert.deepEqual(head.headers, [
    'content-type',
    'application/json',
    'content-length',
    '42',
    'date',
    'x',
    'connection',
    'keep-alive',
    'keep-alive',
    'timeout=5',
  ]);
  assert.equal(head.length, 42);
  assert.equal(head.close, false);
  assert.equal(head.keepAliveMs, 5000);
  assert.equal(head.encoded, false);
});

test('bare LF line ends, no reason, spaces and tabs around values, HTTP/1.0 means close', () => {
  const head = parseHead('HTTP/1.0 204\nX-A: \t spaced out \t\nx-b:\n\n');
  assert.equal(head.status, 204);
  assert.equal(head.statusText, '');
  assert.deepEqual(head.headers, ['x-a', 'spaced out', 'x-b', '']);
  assert.equal(head.close, true);
  assert.equal(head.length, -1);
});

test('rarer framing forms: Content-Length lists, Connection lists, Keep-Alive with several parameters, chunked', () => {
  assert.equal(parseHead('HTTP/1.1 200 OK\r\ncontent-length: 7, 7\r\n\r\n').length, 7);
  assert.equal(parseHead('HTTP/1.1 200 OK\r\nconnection: Upgrade, CLOSE\r\n\r\n').close, true);
  assert.equal(parseHead('HTTP/1.1 200 OK\r\nkeep-alive: max=100, timeout=3\r\n\r\n').keepAliveMs, 3000);
  const chunked = parseHead('HTTP/1.1 200 OK\r\ntransfer-encoding: gzip, Chunked\r\n\r\n');
  assert.equal(chunked.encoded, true);
  assert.equal(chunked.chunked, true);
  assert.equal(parseHead('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked, gzip\r\n\r\n').chunked, false);
});

test('bad heads get clear errors', () => {
  const cases: Array<[string, RegExp]> = [
    ['HTTP/2 200 OK\r\n\r\n', /status line "HTTP\/2 200 OK" is not/],
    ['HTTP/1.1 20 OK\r\n\r\n', /status line/],
    ['HTTP/1.1 200OK\r\n\r\n', /status line/],
    ['HTTP/1.1 200 O\x01K\r\n\r\n', /status line/],
    ['HTTP/1.1 200 OK\r\r\n\r\n', /status line/],
    ['\r\n\r\n', /status line "" is not/],
    ['HTTP/1.1 200 OK\r\nbad header: x\r\n\r\n', /header name "bad header" is not a token/],
    ['HTTP/1.1 200 OK\r\nx-a: 1\r\n  folded\r\n\r\n', /folded header line/],
    ['HTTP/1.1 200 OK\r\n: x\r\n\r\n', /header line ": x" has no name/],
    ['HTTP/1.1 200 OK\r\nnocolon\r\n\r\n', /header line "nocolon" has no name/],
    ['HTTP/1.1 200 OK\r\nx-a: a\x00b\r\n\r\n', /value of header x-a holds control characters/],
    ['HTTP/1.1 200 OK\r\nx-a: a\rb\r\n\r\n', /value of header x-a holds control characters/],
    ['HTTP/1.1 200 OK\r\nx-a: ab\x0b\r\n\r\n', /value of header x-a holds control characters/],
    ['HTTP/1.1 200 OK\r\nx-\xe9: 1\r\n\r\n', /header name "x-\u00e9" is not a token/],
    ['HTTP/1.1 200 OK\r\ncontent-length: 5\r\ncontent-length: 7\r\n\r\n', /conflicting Content-Length values \(5 and 7\)/],
    ['HTTP/1.1 200 OK\r\ncontent-length: 5, 6\r\n\r\n', /conflicting Content-Length values \(5 and 6\)/],
    ['HTTP/1.1 200 OK\r\ncontent-length: -5\r\n\r\n', /Content-Length "-5" is not a number/],
    ['HTTP/1.1 200 OK\r\ncontent-length: 1234567890123456\r\n\r\n', /is not a number/],
  ];
  for (const [text, expected] of cases) {
    assert.throws(
      () => parseHead(text),
      (err: Error & { code?: string }) => err.code === 'invalid_message' && expected.test(err.message),
      JSON.stringify(text),
    );
  }
});

test("a connection's field cache: repeated lines come from it with the same results, bad lines are never kept, and it stays bounded", () => {
  const cache = new FieldCache();
  const text = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\ncontent-length: 12\r\nX-Spaced:  \t v \r\nConnection: close\r\n\r\n';
  const first = parseHead(text, cache);
  assert.equal(cache.lines.length, 4);
  const again = parseHead(text, cache);
  assert.deepEqual(again, first);
  assert.deepEqual(again.headers, ['content-type', 'application/json', 'content-length', '12', 'x-spaced', 'v', 'connection', 'close']);
  assert.equal(again.length, 12);
  assert.equal(again.close, true);
  // a line that differs from the one in its place, even by its length only, is read afresh
  assert.equal(parseHead(text.replace('content-length: 12', 'content-length: 123'), cache).length, 123);
  assert.equal(parseHead(text.replace('content-length: 12', 'content-length: 13'), cache).length, 13);
  assert.equal(parseHead(text, cache).length, 12);
  // a cached line still sets framing: the same content-length twice is a conflict only when it differs
  assert.throws(
    () => parseHead('HTTP/1.1 200 OK\r\ncontent-length: 12\r\ncontent-length: 13\r\n\r\n', cache),
    /conflicting Content-Length values \(12 and 13\)/,
  );
  // a malformed line is refused every time and never remembered
  for (let i = 0; i < 2; i++) assert.throws(() => parseHead('HTTP/1.1 200 OK\r\nx-a: a\x00b\r\n\r\n', cache), /holds control characters/);
  assert.ok(!cache.lines.some((line) => line?.includes('\x00')));
  // a server sending ever more lines cannot grow it past its bound
  const many = Array.from({ length: 100 }, (_, i) => `x-n${i}: ${i}\r\n`).join('');
  assert.equal(parseHead(`HTTP/1.1 200 OK\r\n${many}\r\n`, cache).headers.length, 200);
  assert.equal(parseHead(`HTTP/1.1 200 OK\r\n${many}\r\n`, cache).headers[199], '99');
  assert.ok(cache.lines.length <= 32, `${cache.lines.length} cached lines`);
  // a head without its empty line is refused, not looped over
  assert.throws(() => parseHead('HTTP/1.1 200 OK\r\nx-a: 1\r\n', cache), /does not end with an empty line/);
});

test("a connection's head memo: the same bytes give the same reading, any changed byte a new one, a bad head is never remembered", () => {
  const cache = new FieldCache();
  const text = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ndate: Thu, 03 Dec 2026 22:00:00 GMT\r\ncontent-length: 12\r\n\r\n';
  // the head sits at the start of a packet that also holds body bytes
  const packet = (head: string): Buffer => Buffer.from(head + '{"a":"body"}', 'latin1');
  const bytes = packet(text);
  const first = cache.head(bytes, text.length);
  assert.equal(first.length, 12);
  assert.deepEqual(first.headers, ['content-type', 'application/json', 'date', 'Thu, 03 Dec 2026 22:00:00 GMT', 'content-length', '12']);
  // the packet's memory is reused for the next read: the memo kept its own copy
  const reused = packet(text);
  bytes.fill(0);
  assert.equal(cache.head(reused, text.length), first);
  // one second later the Date differs (same length): read afresh
  const later = text.replace('22:00:00', '22:00:01');
  const second = cache.head(packet(later), later.length);
  assert.notEqual(second, first);
  assert.equal(second.headers[3], 'Thu, 03 Dec 2026 22:00:01 GMT');
  // a different length, and a different status, are new readings too
  const longer = text.replace('content-length: 12', 'content-length: 120');
  assert.equal(cache.head(packet(longer), longer.length).length, 120);
  const notFound = text.replace('200 OK', '404 No');
  assert.equal(cache.head(packet(notFound), notFound.length).status, 404);
  // a malformed head throws every time and does not replace what is remembered
  const bad = 'HTTP/1.1 200 OK\r\nx-a: a\x00b\r\n\r\n';
  for (let i = 0; i < 2; i++) assert.throws(() => cache.head(packet(bad), bad.length), /holds control characters/);
  const again = cache.head(packet(notFound), notFound.length);
  assert.equal(cache.head(packet(notFound), notFound.length), again);
  // a head longer than the memo takes is read every time, correctly
  const big = `HTTP/1.1 200 OK\r\nx-big: ${'v'.repeat(3000)}\r\ncontent-length: 5\r\n\r\n`;
  const b1 = cache.head(packet(big), big.length);
  const b2 = cache.head(packet(big), big.length);
  assert.notEqual(b1, b2);
  assert.deepEqual(b1, b2);
  assert.equal(b2.length, 5);
});

test('isToken accepts tchar only', () => {
  assert.equal(isToken("Mcp-Session-Id!#$%&'*+.^_`|~09"), true);
  for (const bad of ['', 'a b', 'a:b', 'a\u00e9', 'a(b)', 'a\tb']) assert.equal(isToken(bad), false, JSON.stringify(bad));
});
