import assert from 'node:assert/strict';
import type { AddressInfo, Server, Socket } from 'node:net';
import { createServer } from 'node:net';
import { test } from 'node:test';
import type { RawConnectionEvents } from './raw-http.js';
import { buildRequests, HttpParseError, HttpResponseParser, latin1ToUtf8, RawHttpConnection, requestHeadPrefix } from './raw-http.js';

interface Seen {
  status: number;
  contentType: string;
  body: string;
  close: boolean;
}

/** Feeds `pieces` in order and returns the responses seen. */
function parse(pieces: readonly string[]): { seen: Seen[]; parser: HttpResponseParser } {
  const seen: Seen[] = [];
  const parser = new HttpResponseParser((status, contentType, body, close) => seen.push({ status, contentType, body, close }));
  for (const p of pieces) parser.feed(p);
  return { seen, parser };
}

/** A chunked SSE response like mcpkit's: a priming event, then the message. */
const CHUNKED =
  'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n' +
  '1c\r\nid: 2:0\nretry: 1000\ndata: \n\n\r\n' +
  '18;ext=1\r\nid: 2:1\ndata: {"id":5}\n\n\r\n' +
  '0\r\nX-Trailer: yes\r\n\r\n';
const CHUNKED_BODY = 'id: 2:0\nretry: 1000\ndata: \n\nid: 2:1\ndata: {"id":5}\n\n';
const FIXED = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\ncontent-length: 8\r\nConnection: keep-alive\r\n\r\n{"id":6}';
const INTERIM_THEN_EMPTY = 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n';
const STREAM = CHUNKED + FIXED + INTERIM_THEN_EMPTY;
const EXPECTED: Seen[] = [
  { status: 200, contentType: 'text/event-stream', body: CHUNKED_BODY, close: false },
  { status: 200, contentType: 'application/json', body: '{"id":6}', close: false },
  { status: 204, contentType: '', body: '', close: true },
];

test('HttpResponseParser frames chunked, Content-Length, interim and empty responses', () => {
  const whole = parse([STREAM]);
  assert.deepEqual(whole.seen, EXPECTED);
  assert.equal(whole.parser.inResponse, false);
  assert.equal(whole.parser.end(), true);
});

test('HttpResponseParser gives the same result however the bytes are split', () => {
  // one byte at a time: every CRLF, chunk-size line and terminator is split
  assert.deepEqual(parse([...STREAM]).seen, EXPECTED);
  // every single split point, and every pair of split points in the chunked response
  for (let i = 1; i < STREAM.length; i++) {
    assert.deepEqual(parse([STREAM.slice(0, i), STREAM.slice(i)]).seen, EXPECTED, `split at ${i}`);
  }
  for (let i = 1; i < CHUNKED.length; i += 3) {
    for (let j = i + 1; j < CHUNKED.length; j += 2) {
      const { seen } = parse([CHUNKED.slice(0, i), CHUNKED.slice(i, j), CHUNKED.slice(j)]);
      assert.deepEqual(seen, [EXPECTED[0]], `splits at ${i}, ${j}`);
    }
  }
});

test('HttpResponseParser reads header names in any case and honours Connection', () => {
  const a = parse(['HTTP/1.1 200 OK\r\nCONTENT-LENGTH: 2\r\nCONNECTION: Keep-Alive, Close\r\ncontent-TYPE:  text/plain  \r\n\r\nok']).seen;
  assert.deepEqual(a, [{ status: 200, contentType: 'text/plain', body: 'ok', close: true }]);
  // HTTP/1.0 closes unless it says keep-alive
  assert.equal(parse(['HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n']).seen[0]!.close, true);
  assert.equal(parse(['HTTP/1.0 200 OK\r\nContent-Length: 0\r\nConnection: keep-alive\r\n\r\n']).seen[0]!.close, false);
  // a status line without a reason phrase
  assert.equal(parse(['HTTP/1.1 202\r\nContent-Length: 0\r\n\r\n']).seen[0]!.status, 202);
});

test('HttpResponseParser reads a body delimited by the end of the connection', () => {
  const { seen, parser } = parse(['HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{"a"', ':1}']);
  assert.deepEqual(seen, []);
  assert.equal(parser.inResponse, true);
  assert.match(parser.describe(), /end of the connection/);
  assert.equal(parser.end(), true);
  assert.deepEqual(seen, [{ status: 200, contentType: 'application/json', body: '{"a":1}', close: true }]);
  // a transfer coding other than a final chunked also leaves the framing to the close
  const other = parse(['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\nxyz']);
  assert.equal(other.parser.end(), true);
  assert.deepEqual(other.seen[0], { status: 200, contentType: '', body: 'xyz', close: true });
  // a final chunked after another coding is dechunked (the body stays encoded)
  assert.equal(parse(['HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, Chunked\r\n\r\n2\r\nab\r\n0\r\n\r\n']).seen[0]!.body, 'ab');
});

test('HttpResponseParser reports a response cut short', () => {
  const fixed = parse(['HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc']).parser;
  assert.equal(fixed.end(), false);
  assert.equal(fixed.describe(), 'inside a Content-Length body (7 bytes missing)');
  const chunked = parse(['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n']).parser;
  assert.equal(chunked.end(), false);
  assert.equal(chunked.describe(), 'inside a chunked body');
  const head = parse(['HTTP/1.1 200 OK\r\nContent-Le']).parser;
  assert.equal(head.end(), false);
  assert.equal(head.describe(), 'inside the response head (27 bytes received)');
  assert.equal(parse([]).parser.describe(), 'idle');
});

test('HttpResponseParser refuses malformed responses', () => {
  const bad: [string, RegExp][] = [
    ['HTTP/2 200 OK\r\n\r\n', /bad status line/],
    ['HTTP/1.1 2x0 OK\r\n\r\n', /bad status line/],
    ['HTTP/1.1 200 OK\r\nno colon here\r\n\r\n', /bad header line/],
    ['HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n', /bad Content-Length/],
    ['HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n', /conflicting Content-Length/],
    ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', /bad chunk-size line "zz"/],
    ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2 x\r\n', /bad chunk-size line/],
    ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabX', /chunk data not followed by CRLF/],
    ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\rX', /chunk data not followed by CRLF/],
    ['HTTP/1.1 101 Switching Protocols\r\n\r\n', /101/],
    ['HTTP/1.1 200 OK\r\n' + 'x'.repeat(70 * 1024), /longer than/],
  ];
  for (const [input, expected] of bad) {
    const parser = new HttpResponseParser(() => assert.fail('no response expected'));
    assert.throws(
      () => parser.feed(input),
      (e: unknown) => e instanceof HttpParseError && expected.test(e.message),
      input.slice(0, 60),
    );
    assert.throws(() => parser.feed('HTTP/1.1 200 OK\r\n\r\n'), /already failed/);
  }
});

test('requestHeadPrefix and buildRequests serialize whole requests', () => {
  const prefix = requestHeadPrefix('127.0.0.1:8080', '/mcp', { 'content-type': 'application/json', 'mcp-session-id': 'abc' });
  assert.equal(prefix, 'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:8080\r\ncontent-type: application/json\r\nmcp-session-id: abc\r\nContent-Length: ');
  const requests = buildRequests(prefix, ['{"id":1}', '{"t":"é"}']);
  assert.equal(requests.length, 2);
  assert.equal(requests[0]!.toString('utf8'), prefix + '8\r\n\r\n{"id":1}');
  // the length counts UTF-8 bytes
  assert.equal(requests[1]!.toString('utf8'), prefix + '10\r\n\r\n{"t":"é"}');
  assert.equal(requests[0]!.buffer, requests[1]!.buffer);
  assert.throws(() => requestHeadPrefix('h', '/', { 'Content-Length': '1' }), /set by the client/);
  assert.throws(() => requestHeadPrefix('h', '/', { 'x-a': 'b\r\nx-evil: 1' }), /line break/);
});

test('latin1ToUtf8 recovers the text of UTF-8 bytes read as latin1', () => {
  const text = '{"text":"héllo → ✓"}';
  assert.equal(latin1ToUtf8(Buffer.from(text, 'utf8').toString('latin1')), text);
});

/** An in-process TCP server; `onData` gets every request chunk with its socket. */
async function tcpServer(onData: (socket: Socket, data: string, server: Server) => void): Promise<{ server: Server; port: number }> {
  const server = createServer((socket) => {
    socket.setNoDelay(true);
    socket.setEncoding('latin1');
    socket.on('data', (data: string) => onData(socket, data, server));
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

interface Recorder extends RawConnectionEvents {
  readonly responses: Seen[];
  readonly failures: string[];
  /** Resolves once `n` reports (responses and failures) have arrived in all. */
  reports(n: number): Promise<void>;
}

/** Events that record what happens. */
function recorder(): Recorder {
  let waiting: { n: number; resolve: () => void } | null = null;
  const fire = (): void => {
    if (waiting !== null && r.responses.length + r.failures.length >= waiting.n) {
      const w = waiting;
      waiting = null;
      w.resolve();
    }
  };
  const r: Recorder = {
    responses: [],
    failures: [],
    reports: (n) =>
      new Promise<void>((resolve) => {
        waiting = { n, resolve };
        fire();
      }),
    onResponse(_c, status, contentType, body, close) {
      r.responses.push({ status, contentType, body, close });
      fire();
    },
    onFailure(_c, error) {
      r.failures.push(error.message);
      fire();
    },
  };
  return r;
}

const REQUEST = buildRequests(requestHeadPrefix('127.0.0.1', '/mcp', {}), ['{}'])[0]!;

test('RawHttpConnection: awkwardly split chunked answers, keep-alive, then Connection: close', async () => {
  let requests = 0;
  const { server, port } = await tcpServer((socket, data) => {
    if (!data.endsWith('{}')) return; // the whole request fits one read on loopback
    const last = ++requests === 3;
    // pieces written a timer apart so they tend to arrive as separate reads
    const pieces = !last
      ? ['HTTP/1.1 2', '00 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r', '\n\r\n5', 'b\r\n', 'x'.repeat(91), '\r', '\n0\r\n\r', '\n']
      : ['HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\nb', 'ye'];
    let i = 0;
    const step = (): void => {
      if (i < pieces.length) {
        socket.write(pieces[i++]!);
        setTimeout(step, 2);
      } else if (last) {
        socket.end();
      }
    };
    step();
  });
  const events = recorder();
  const connection = new RawHttpConnection('127.0.0.1', port, events);
  try {
    await connection.open();
    for (let n = 1; n <= 3; n++) {
      connection.send(REQUEST);
      await events.reports(n);
    }
    assert.deepEqual(events.failures, []);
    assert.deepEqual(events.responses, [
      { status: 200, contentType: 'text/event-stream', body: 'x'.repeat(91), close: false },
      { status: 200, contentType: 'text/event-stream', body: 'x'.repeat(91), close: false },
      { status: 200, contentType: '', body: 'bye', close: true },
    ]);
    assert.equal(connection.responses, 3);
    assert.equal(connection.usable, false);
    assert.throws(() => connection.send(REQUEST), /connection closed/);
  } finally {
    connection.destroy();
    await closeServer(server);
  }
});

test('RawHttpConnection reports a server that dies mid-body, closes early or answers garbage', async () => {
  const cases: [string, (socket: Socket) => void, RegExp][] = [
    [
      'mid-body',
      (s) => s.end('HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n{"id":'),
      /^server closed the connection inside a Content-Length body \(44 bytes missing\)$/,
    ],
    ['mid-chunk', (s) => s.end('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nabc'), /^server closed the connection inside a chunked body$/],
    [
      'reset',
      (s) => s.resetAndDestroy(),
      /^(connection error: .*ECONNRESET.*|server closed the connection before any byte of the response \(after 0 responses on it\))$/,
    ],
    ['no answer', (s) => s.end(), /^server closed the connection before any byte of the response \(after 0 responses on it\)$/],
    ['garbage', (s) => s.write('SMTP ready\r\n\r\n'), /^malformed response: bad status line "SMTP ready"$/],
    ['extra', (s) => s.write('HTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n'), /^response \(HTTP 204\) without a request$/],
  ];
  for (const [label, answer, expected] of cases) {
    const { server, port } = await tcpServer((socket) => answer(socket));
    const events = recorder();
    const connection = new RawHttpConnection('127.0.0.1', port, events);
    try {
      await connection.open();
      connection.send(REQUEST);
      await events.reports(label === 'extra' ? 2 : 1);
      assert.equal(events.failures.length, 1, label);
      assert.match(events.failures[0]!, expected, label);
      assert.equal(connection.usable, false, label);
    } finally {
      connection.destroy();
      await closeServer(server);
    }
  }
});

test('RawHttpConnection.open rejects when nothing listens or the connection is destroyed first', async () => {
  const { server, port } = await tcpServer(() => {});
  await closeServer(server);
  const events = recorder();
  const connection = new RawHttpConnection('127.0.0.1', port, events);
  await assert.rejects(connection.open(), /^Error: cannot connect: .*ECONNREFUSED/);
  assert.deepEqual(events.failures, []);
  assert.equal(connection.usable, false);
  // destroyed while connecting: open() settles too
  const { server: live, port: livePort } = await tcpServer(() => {});
  try {
    const early = new RawHttpConnection('127.0.0.1', livePort, events);
    const opening = early.open();
    early.destroy();
    await assert.rejects(opening, /destroyed before it was open/);
    await assert.rejects(early.open(), /destroyed before it was open/);
    assert.deepEqual(events.failures, []);
  } finally {
    await closeServer(live);
  }
});
