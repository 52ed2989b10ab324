import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { ServerSpec } from './driver.js';
import { ECHO_MESSAGE } from './driver.js';
import { buildEchoBodies, echoBodyTexts, HttpDriver, parseMessages, responseKind, sseDataPayloads, sseSingleData } from './http-driver.js';
import type { ResponseMode } from './servers/http-harness.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const TIMEOUT = 15000;

function bare(mode: ResponseMode, gc = false): ServerSpec {
  return {
    name: `bare-${mode}`,
    command: process.execPath,
    args: [...(gc ? ['--expose-gc'] : []), join(HERE, 'servers', 'bare-http.js'), `--mode=${mode}`],
    env: gc ? { ...process.env, BENCH_GC: '1' } : process.env,
  };
}

/**
 * A throw-away HTTP server written inline: prints the LISTENING line, answers
 * initialize (with session id `s1` unless `noSession`) and notifications itself, and
 * runs `answer` (JavaScript statements over `m`, `req` and `res`) for every request.
 */
function fakeServer(name: string, answer: string, noSession = false): ServerSpec {
  const source = `
    const http = require('http');
    const s = http.createServer((req, res) => {
      let b = '';
      req.setEncoding('utf8');
      req.on('data', (c) => { b += c; });
      req.on('end', () => {
        const m = JSON.parse(b);
        if (m.method === 'initialize') {
          const h = { 'content-type': 'application/json' };
          if (!${noSession}) h['mcp-session-id'] = 's1';
          res.writeHead(200, h);
          res.end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'fake', version: '1' } } }));
          return;
        }
        if (m.id === undefined) { res.writeHead(202); res.end(); return; }
        ${answer}
      });
    });
    s.listen(0, '127.0.0.1', () => process.stdout.write('LISTENING http://127.0.0.1:' + s.address().port + '/mcp\\n'));
    process.stdin.on('end', () => process.exit(0));
    process.stdin.resume();`;
  return { name, command: process.execPath, args: ['-e', source] };
}

const ECHO_JSON = `JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: m.params.arguments.message }] } })`;

/**
 * A throw-away server on raw `node:net`, so a test controls every byte and every write:
 * it parses requests (Content-Length bodies, several per connection), answers
 * initialize (session `s1`) and notifications itself, and runs `answer` (JavaScript
 * statements over `m`, the request message, `sock`, `n`, the number of calls so far,
 * `echo`, the echo response text, and `send(pieces, then)`, which writes the pieces a
 * timer tick apart and then runs `then`) for every call.
 */
function rawServer(name: string, answer: string): ServerSpec {
  const source = String.raw`
    const net = require('net');
    let n = 0;
    const send = (sock, pieces, then) => {
      let i = 0;
      const step = () => {
        if (sock.destroyed) return;
        if (i < pieces.length) { sock.write(pieces[i++]); setTimeout(step, 1); }
        else if (then) then();
      };
      step();
    };
    const head = (status, headers) => 'HTTP/1.1 ' + status + ' X\r\n' + headers.map((h) => h + '\r\n').join('') + '\r\n';
    const s = net.createServer((sock) => {
      sock.setNoDelay(true);
      sock.on('error', () => {});
      let buf = Buffer.alloc(0);
      sock.on('data', (d) => {
        buf = Buffer.concat([buf, d]);
        for (;;) {
          const end = buf.indexOf('\r\n\r\n');
          if (end < 0) return;
          const cl = /content-length: *(\d+)/i.exec(buf.subarray(0, end).toString('latin1'));
          const len = cl ? Number(cl[1]) : 0;
          if (buf.length < end + 4 + len) return;
          const m = JSON.parse(buf.subarray(end + 4, end + 4 + len).toString('utf8'));
          buf = buf.subarray(end + 4 + len);
          if (m.method === 'initialize') {
            const b = JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'raw', version: '1' } } });
            sock.write(head(200, ['Content-Type: application/json', 'Mcp-Session-Id: s1', 'Content-Length: ' + Buffer.byteLength(b)]) + b);
          } else if (m.id === undefined) {
            sock.write(head(202, ['Content-Length: 0']));
          } else {
            n++;
            const echo = ${ECHO_JSON};
            ${answer}
          }
        }
      });
    });
    s.listen(0, '127.0.0.1', () => process.stdout.write('LISTENING http://127.0.0.1:' + s.address().port + '/mcp\n'));
    process.stdin.on('end', () => process.exit(0));
    process.stdin.resume();`;
  return { name, command: process.execPath, args: ['-e', source] };
}

test('sseDataPayloads extracts event data the way SSE defines it', () => {
  assert.deepEqual(sseDataPayloads('event: message\ndata: {"id":1}\n\n'), ['{"id":1}']);
  assert.deepEqual(sseDataPayloads('data:{"a":1}\r\n\r\n: comment\r\nid: 7\r\ndata: x\r\ndata: y\r\n\r\n'), ['{"a":1}', 'x\ny']);
  // a priming event (empty data) is left out; an unterminated last event is dropped
  assert.deepEqual(sseDataPayloads('id: 1\nretry: 10\ndata: \n\nevent: message\ndata: z\n\ndata: cut'), ['z']);
  assert.deepEqual(sseDataPayloads(''), []);
});

test('sseSingleData finds the one data payload of simple SSE bodies only', () => {
  assert.equal(sseSingleData('event: message\ndata: {"id":1}\n\n'), '{"id":1}');
  // a priming event (empty data) before the message, CRLF line ends
  assert.equal(sseSingleData('id: 2:0\nretry: 1000\ndata: \n\nid: 2:1\ndata: {"id":2}\n\n'), '{"id":2}');
  assert.equal(sseSingleData('data:{"id":3}\r\n\r\n'), '{"id":3}');
  assert.equal(sseSingleData('data: x data: y\n\n'), 'x data: y');
  // anything else goes to the slow path
  for (const body of [
    '',
    'event: message\n\n',
    'data: a\n\ndata: b\n\n', // two messages
    'data: a\ndata: b\n\n', // multi-line data
    'data: \ndata: b\n\n', // an empty first line makes the data "\nb"
    'data: a\nid: 7\n\n', // a field after the data
    'data: a\n', // unterminated event
    'data: a',
  ]) {
    assert.equal(sseSingleData(body), null, JSON.stringify(body));
  }
});

test('responseKind classifies content types', () => {
  assert.equal(responseKind('application/json'), 'json');
  assert.equal(responseKind('application/json; charset=utf-8'), 'json');
  assert.equal(responseKind('text/event-stream'), 'sse');
  assert.equal(responseKind('text/plain'), null);
  assert.equal(responseKind(undefined), null);
});

test('parseMessages reads JSON bodies, batches and SSE bodies', () => {
  assert.deepEqual(parseMessages('json', '{"id":1}'), [{ id: 1 }]);
  assert.deepEqual(parseMessages('json', '[{"id":1},{"id":2}]'), [{ id: 1 }, { id: 2 }]);
  assert.deepEqual(parseMessages('sse', 'data: {"method":"n"}\n\ndata: {"id":3}\n\n'), [{ method: 'n' }, { id: 3 }]);
  assert.throws(() => parseMessages('sse', 'data: nope\n\n'), SyntaxError);
});

test('buildEchoBodies and echoBodyTexts yield one tools/call body per id', () => {
  const bodies = buildEchoBodies(5, 2);
  assert.equal(bodies.length, 2);
  assert.deepEqual(
    echoBodyTexts(5, 2),
    bodies.map((b) => b.toString('utf8')),
  );
  bodies.forEach((b, i) => {
    assert.deepEqual(JSON.parse(b.toString('utf8')), {
      jsonrpc: '2.0',
      id: 5 + i,
      method: 'tools/call',
      params: { name: 'echo', arguments: { message: ECHO_MESSAGE } },
    });
  });
});

for (const [mode, client] of [
  ['json', 'raw'],
  ['sse', 'raw'],
  ['json', 'node-http'],
  ['sse', 'node-http'],
] as const) {
  test(`drives the bare server in ${mode} mode at 1 and 32 in flight (${client} client)`, async () => {
    const { driver, startMs } = await HttpDriver.start(bare(mode), { timeoutMs: TIMEOUT, client });
    try {
      assert.equal(driver.client, client);
      assert.ok(startMs > 0);
      assert.equal(driver.url.hostname, '127.0.0.1');
      assert.equal(driver.url.pathname, '/mcp');
      const session = await driver.openSession(TIMEOUT);
      assert.equal(session.protocolVersion, '2025-06-18');
      assert.equal(session.initializeKind, mode);
      assert.match(session.id, /^[0-9a-f-]{36}$/);
      assert.equal(await session.verifyEcho(TIMEOUT), mode);
      const one = await session.run(200, 1, TIMEOUT, mode);
      assert.equal(one.calls, 200);
      assert.equal(one.inFlight, 1);
      const many = await session.run(2100, 32, TIMEOUT, mode);
      assert.equal(many.calls, 2100);
      assert.equal(many.checked, 3); // indexes 0, 1024 and 2048 are parsed in full
      assert.equal(mode === 'sse' ? many.sseResponses : many.jsonResponses, 2100);
      assert.equal(mode === 'sse' ? many.jsonResponses : many.sseResponses, 0);
      assert.ok(many.callsPerSec > 0 && many.elapsedMs > 0 && many.driverCpuUsPerCall >= 0);
      if (process.platform === 'linux') {
        assert.equal(typeof many.serverCpuUsPerCall, 'number');
        assert.ok(driver.rssKb()! > 1000);
        assert.ok(driver.peakRssKb()! >= driver.rssKb()!);
      }
      const other = mode === 'json' ? 'sse' : 'json';
      await assert.rejects(session.run(10, 2, TIMEOUT, other), new RegExp(`where ${other} was expected`));
    } finally {
      await driver.close();
    }
  });
}

test('opens many sessions and reads forced-GC reports', async () => {
  const { driver } = await HttpDriver.start(bare('json', true), { timeoutMs: TIMEOUT });
  try {
    const sessions = await driver.openSessions(50, 8, TIMEOUT);
    assert.equal(sessions.length, 50);
    assert.equal(new Set(sessions.map((s) => s.id)).size, 50);
    const report = await driver.gcReport(TIMEOUT);
    assert.ok(report.heapUsedKb > 0 && report.rssKb > report.heapUsedKb && report.externalKb >= 0);
    const again = await driver.gcReport(TIMEOUT);
    assert.ok(again.heapUsedKb > 0);
    // the sessions still work
    await sessions[49]!.run(20, 4, TIMEOUT, 'json');
  } finally {
    await driver.close();
  }
});

test('a server without the GC hook dies of the signal and the report says so', async () => {
  const { driver } = await HttpDriver.start(bare('json'), { timeoutMs: TIMEOUT });
  try {
    await assert.rejects(driver.gcReport(TIMEOUT), /bare-json: server exited \(SIGUSR2\)/);
  } finally {
    await driver.close();
  }
});

test('SSE bodies with a notification before the response take the slow path and pass', async () => {
  const spec = fakeServer(
    'notifies',
    `res.writeHead(200, { 'content-type': 'text/event-stream' });
     res.write('event: message\\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}\\n\\n');
     res.end('event: message\\ndata: ' + ${ECHO_JSON} + '\\n\\n');`,
  );
  const { driver } = await HttpDriver.start(spec, { timeoutMs: TIMEOUT });
  try {
    const r = await (await driver.openSession(TIMEOUT)).run(40, 4, TIMEOUT, 'sse');
    assert.equal(r.checked, 40);
    assert.equal(r.sseResponses, 40);
  } finally {
    await driver.close();
  }
});

test('bad answers and silence fail the run', async () => {
  const json = (body: string): string => `res.writeHead(200, { 'content-type': 'application/json' }); res.end(${body});`;
  const cases: [ServerSpec, RegExp][] = [
    [fakeServer('errors', json(`JSON.stringify({ jsonrpc: '2.0', id: m.id, error: { code: -32603, message: 'nope' } })`)), /errors: error response/],
    [fakeServer('wrong', json(`JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'hi' }] } })`)), /wrong: unexpected echo/],
    [fakeServer('other-id', json(`JSON.stringify({ jsonrpc: '2.0', id: m.id + 1000, result: {} })`)), /other-id: no response with id \d+/],
    [fakeServer('status', `res.writeHead(500); res.end('boom');`), /status: call answered HTTP 500: boom/],
    [fakeServer('ctype', `res.writeHead(200, { 'content-type': 'text/plain' }); res.end('x');`), /ctype: call answered Content-Type "text\/plain"/],
    [fakeServer('garbage', json(`'{not json'`)), /garbage: unparseable json response body/],
    [fakeServer('silent', ``), /silent: no end of run \(20 calls, 4 in flight\) within 300 ms/],
  ];
  for (const [spec, expected] of cases) {
    const { driver } = await HttpDriver.start(spec, { timeoutMs: TIMEOUT });
    try {
      const session = await driver.openSession(TIMEOUT);
      await assert.rejects(session.run(20, 4, 300), expected);
    } finally {
      await driver.close();
    }
  }
});

test('a failed run quotes the server stderr, without GC reports', async () => {
  const spec = fakeServer(
    'complains',
    // the 500 leaves after the stderr text has been handed over (and a margin)
    `process.stderr.write('BENCH_GC {}\\nsomething broke\\n', () => setTimeout(() => { res.writeHead(500); res.end(); }, 100));`,
  );
  const { driver } = await HttpDriver.start(spec, { timeoutMs: TIMEOUT });
  try {
    const session = await driver.openSession(TIMEOUT);
    await assert.rejects(session.run(4, 1, TIMEOUT), (error: Error) => {
      assert.match(error.message, /^complains: call answered HTTP 500: ; server stderr:\nsomething broke$/);
      return true;
    });
  } finally {
    await driver.close();
  }
});

test('the raw client handles awkward chunk splits, Content-Length bodies and Connection: close', async () => {
  // Call n answers: a chunked SSE body (priming event, then the message) cut at awkward
  // places (inside the status code, between CR and LF, inside the chunk size, between
  // data and its CRLF, inside the final terminator); every third call a JSON body with
  // Content-Length, also cut; every fifth call adds Connection: close and ends the
  // connection, so the driver must reconnect to go on.
  const spec = rawServer(
    'awkward',
    `const close = n % 5 === 0;
     const extra = close ? ['Connection: close'] : [];
     let pieces;
     if (n % 3 === 0) {
       const h = head(200, ['Content-Type: application/json', 'Content-Length: ' + Buffer.byteLength(echo), ...extra]);
       pieces = [h.slice(0, 10), h.slice(10, h.length - 1), h.slice(h.length - 1) + echo.slice(0, 7), echo.slice(7)];
     } else {
       const prime = 'id: 1:0\\nretry: 1000\\ndata: \\n\\n';
       const event = 'id: 1:1\\nevent: message\\ndata: ' + echo + '\\n\\n';
       const size = Buffer.byteLength(event).toString(16);
       const h = head(200, ['Content-Type: text/event-stream', 'Transfer-Encoding: chunked', ...extra]);
       pieces = [
         h.slice(0, 10), h.slice(10, h.length - 3), h.slice(h.length - 3, h.length - 1), h.slice(h.length - 1),
         prime.length.toString(16) + '\\r', '\\n' + prime, '\\r\\n' + size.slice(0, 1), size.slice(1) + ';x=y\\r\\n' + event.slice(0, 30),
         event.slice(30), '\\r', '\\n0\\r\\n\\r', '\\n',
       ];
     }
     send(sock, pieces, close ? () => sock.end() : null);`,
  );
  const { driver } = await HttpDriver.start(spec, { timeoutMs: TIMEOUT });
  try {
    const session = await driver.openSession(TIMEOUT);
    const r = await session.run(60, 4, TIMEOUT);
    assert.equal(r.calls, 60);
    assert.equal(r.jsonResponses, 20);
    assert.equal(r.sseResponses, 40);
    assert.equal(r.checked, 1); // index 0 only
  } finally {
    await driver.close();
  }
});

test('the raw client fails the run cleanly on a connection cut mid-body, an early close or malformed HTTP', async () => {
  const cases: [ServerSpec, RegExp][] = [
    [
      rawServer(
        'cut-chunked',
        `send(sock, [head(200, ['Content-Type: text/event-stream', 'Transfer-Encoding: chunked']) + '40\\r\\ndata: {'], () => sock.destroy());`,
      ),
      /^Error: cut-chunked: request \d+: server closed the connection inside a chunked body$/,
    ],
    [
      rawServer('cut-length', `send(sock, [head(200, ['Content-Type: application/json', 'Content-Length: 500']) + echo], () => sock.destroy());`),
      /^Error: cut-length: request \d+: server closed the connection inside a Content-Length body \(\d+ bytes missing\)$/,
    ],
    [
      rawServer(
        'hangs-up',
        `if (n === 3) sock.end(); else sock.write(head(200, ['Content-Type: application/json', 'Content-Length: ' + echo.length]) + echo);`,
      ),
      /^Error: hangs-up: request \d+: server closed the connection before any byte of the response \(after \d+ responses on it\)$/,
    ],
    [
      rawServer('bad-length', `sock.write(head(200, ['Content-Length: 1x']) + 'x');`),
      /^Error: bad-length: request \d+: malformed response: bad Content-Length "1x"$/,
    ],
  ];
  for (const [spec, expected] of cases) {
    const { driver } = await HttpDriver.start(spec, { timeoutMs: TIMEOUT });
    try {
      const session = await driver.openSession(TIMEOUT);
      await assert.rejects(session.run(20, 4, TIMEOUT), expected);
      assert.equal(driver.exitError, null); // the server is still up: the driver's own error
    } finally {
      await driver.close();
    }
  }
});

test('a server dying mid-run fails the run', async () => {
  const { driver } = await HttpDriver.start(fakeServer('crash', 'process.exit(5);'), { timeoutMs: TIMEOUT });
  try {
    const session = await driver.openSession(TIMEOUT);
    await assert.rejects(session.run(20, 4, TIMEOUT), /crash: (server exited \(code 5\)|request \d+: )/);
  } finally {
    await driver.close();
  }
});

test('an initialize answer without a session id fails openSession', async () => {
  const { driver } = await HttpDriver.start(fakeServer('stateless', `res.end();`, true), { timeoutMs: TIMEOUT });
  try {
    await assert.rejects(driver.openSession(TIMEOUT), /stateless: initialize response has no Mcp-Session-Id header/);
  } finally {
    await driver.close();
  }
});

test('servers that exit, cannot spawn or print something else fail start', async () => {
  await assert.rejects(
    HttpDriver.start({ name: 'dies', command: process.execPath, args: ['-e', 'console.error("boom"); process.exit(3)'] }, { timeoutMs: TIMEOUT }),
    /dies: server exited \(code 3\).*boom/s,
  );
  await assert.rejects(
    HttpDriver.start({ name: 'missing', command: '/nonexistent/mcpkit-bench-binary', args: [] }, { timeoutMs: TIMEOUT }),
    /missing: cannot start/,
  );
  const chatty = 'console.log("hello"); process.stdin.on("end", () => process.exit(0)); process.stdin.resume();';
  await assert.rejects(
    HttpDriver.start({ name: 'chatty', command: process.execPath, args: ['-e', chatty] }, { timeoutMs: TIMEOUT }),
    /chatty: expected a LISTENING line first, got "hello"/,
  );
  const mute = 'process.stdin.on("end", () => process.exit(0)); process.stdin.resume();';
  await assert.rejects(
    HttpDriver.start({ name: 'mute', command: process.execPath, args: ['-e', mute] }, { timeoutMs: 300 }),
    /mute: no LISTENING line within 300 ms/,
  );
});
