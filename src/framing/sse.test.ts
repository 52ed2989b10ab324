import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeSseEvent, type SseEvent, SseParser } from './sse.js';

function collect(chunks: Array<string | Uint8Array>, max?: number) {
  const events: SseEvent[] = [];
  const retries: number[] = [];
  let oversized = 0;
  const p = new SseParser({ event: (e) => events.push(e), retry: (ms) => retries.push(ms), oversized: () => oversized++ }, max ? { maxEventChars: max } : {});
  for (const c of chunks) p.push(c);
  return { events, retries, oversized, parser: p };
}

test('parses events, ids, event types, comments and retry', () => {
  const { events, retries, parser } = collect([': comment\nretry: 500\nid: 1\ndata: \n\nevent: message\nid: 2\ndata: {"a":1}\n\n']);
  assert.deepEqual(retries, [500]);
  assert.deepEqual(events, [
    { event: 'message', data: '', id: '1' },
    { event: 'message', data: '{"a":1}', id: '2' },
  ]);
  assert.equal(parser.lastEventId, '2');
});

test('every chunk split, with CRLF, CR and LF line ends, gives the same events', () => {
  const text = 'id: a\r\ndata: one\r\ndata: two\r\n\r\nid: b\rdata: é€😀\r\rdata: x\n\n';
  const bytes = new TextEncoder().encode(text);
  const whole = collect([bytes]).events;
  assert.deepEqual(whole, [
    { event: 'message', data: 'one\ntwo', id: 'a' },
    { event: 'message', data: 'é€😀', id: 'b' },
    { event: 'message', data: 'x', id: 'b' },
  ]);
  for (let i = 1; i < bytes.length; i++) {
    for (const j of [i + 1, i + 3]) {
      if (j >= bytes.length) continue;
      const split = collect([bytes.slice(0, i), bytes.slice(i, j), bytes.slice(j)]).events;
      assert.deepEqual(split, whole, `split at ${i}/${j}`);
    }
  }
});

test('a priming event (id, empty data) is dispatched with empty data', () => {
  const { events } = collect(['id: s1-0\ndata:\n\n']);
  assert.deepEqual(events, [{ event: 'message', data: '', id: 's1-0' }]);
});

test('an id-only block updates lastEventId without dispatching', () => {
  const { events, parser } = collect(['id: 7\n\n']);
  assert.equal(events.length, 0);
  assert.equal(parser.lastEventId, '7');
});

test('oversized events are dropped, the next ones delivered, memory bounded', () => {
  const big = 'data: ' + 'x'.repeat(5000) + '\n\n';
  const { events, oversized } = collect([big.slice(0, 2000), big.slice(2000), 'data: ok\n\n'], 1000);
  assert.equal(oversized, 1);
  assert.deepEqual(
    events.map((e) => e.data),
    ['ok'],
  );
});

test('encode round-trips and refuses field smuggling', () => {
  const text = encodeSseEvent({ id: 's-1', event: 'message', data: 'line1\nline2', retry: 1000 });
  assert.equal(text, 'id: s-1\nevent: message\nretry: 1000\ndata: line1\ndata: line2\n\n');
  const { events, retries } = collect([text]);
  assert.deepEqual(events, [{ event: 'message', data: 'line1\nline2', id: 's-1' }]);
  assert.deepEqual(retries, [1000]);
  assert.throws(() => encodeSseEvent({ id: 'a\nevent: x' }), TypeError);
  assert.throws(() => encodeSseEvent({ event: 'x\r\ndata: y' }), TypeError);
});

test('the bound does not depend on chunking, and data of exactly maxEventChars is delivered', () => {
  // Found by the property tests: a long line was dropped only when it arrived in pieces,
  // and the first data line was charged one character for a join it does not have.
  const longComment = ':' + 'c'.repeat(30) + '\n';
  for (const chunks of [[longComment + 'data: ok\n\n'], [longComment.slice(0, 15), longComment.slice(15) + 'data: ok\n\n']]) {
    const { events, oversized } = collect(chunks, 20);
    assert.equal(oversized, 1, 'a 31-character line is over 20 + 8 however it arrives');
    assert.deepEqual(
      events.map((e) => e.data),
      [],
    );
  }
  assert.deepEqual(
    collect(['data: ' + 'd'.repeat(20) + '\n\n'], 20).events.map((e) => e.data.length),
    [20],
  );
  assert.deepEqual(
    collect(['data: ' + 'd'.repeat(10) + '\ndata: ' + 'd'.repeat(9) + '\n\n'], 20).events.map((e) => e.data.length),
    [20],
  );
  assert.equal(collect(['data: ' + 'd'.repeat(21) + '\n\n'], 20).oversized, 1);
  assert.throws(() => new SseParser({ event: () => {} }, { maxEventChars: 0 }), RangeError);
});

test('a dropped event split over several data lines: its id is recovered from the joined data, in any chunking, reported once', () => {
  const big = 'z'.repeat(3000);
  const shapes: Array<[string, string, unknown]> = [
    // the limit is crossed by one long line, and the message closes on a later line
    ['pretty-printed', `data: {\ndata:  "jsonrpc": "2.0",\ndata:  "id": 7,\ndata:  "result": {"t": "${big}"}\ndata: }\n\n`, 7],
    // the limit is crossed by the sum of short lines
    ['many short lines', `data: {"jsonrpc":"2.0","id":"a-8",\ndata: "result":{"a":[\n${'data: "zzzzzzzzzz",\n'.repeat(400)}data: 1]}}\n\n`, 'a-8'],
    // the long line that crosses the limit is followed by more long data lines
    ['long lines after the drop', `data: {"jsonrpc":"2.0","id":9,"result":{"a":[\ndata: "${big}",\ndata: "${big}"\ndata: ]}}\n\n`, 9],
    // a request (with a method) is not taken for a response
    ['request', `data: {"jsonrpc":"2.0",\ndata: "id":10,\ndata: "method":"sampling/createMessage","params":{"t":"${big}"}}\n\n`, 10],
  ];
  for (const [name, text, id] of shapes) {
    for (const size of [text.length, 997, 7]) {
      const reports: unknown[] = [];
      const events: SseEvent[] = [];
      const p = new SseParser({ event: (e) => events.push(e), oversized: (_err, envelope) => reports.push(envelope) }, { maxEventChars: 1000 });
      for (let i = 0; i < text.length; i += size) p.push(text.slice(i, i + size));
      p.push('data: after\n\n');
      const kind = name === 'request' ? 'request' : 'response';
      assert.deepEqual(reports, [{ kind, id }], `${name}, chunks of ${size}`);
      assert.deepEqual(
        events.map((e) => e.data),
        ['after'],
        `${name}, chunks of ${size}: the next event is delivered`,
      );
      assert.ok(p.bufferedChars <= 1008);
    }
  }
  // an event dropped and never closed is reported when the stream ends
  const reports: unknown[] = [];
  const p = new SseParser({ event: () => {}, oversized: (_err, envelope) => reports.push(envelope) }, { maxEventChars: 100 });
  p.push(`data: {"jsonrpc":"2.0","id":3,\ndata: "result":"${'q'.repeat(200)}`);
  p.push('\ndata: and more');
  assert.equal(reports.length, 0, 'the scan waits for the event to go on');
  p.end();
  assert.equal(reports.length, 1);
});
