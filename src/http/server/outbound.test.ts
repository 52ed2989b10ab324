import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  budgetRefusal,
  jsonLengthAtLeast,
  OutboundBudget,
  type OutboundOptions,
  type PacedOutput,
  PacedWriter,
  refusedResponseId,
  resolveOutbound,
  SLICE_CHARS,
  type SlowReaderError,
} from './outbound.js';

/** An output that takes `room` slices before it reports itself full, until `drain()`. */
class FakeOutput implements PacedOutput {
  readonly chunks: string[] = [];
  ended = false;
  aborted: SlowReaderError | undefined = undefined;
  room: number;
  constructor(room = Infinity) {
    this.room = room;
  }
  write(chunk: string): boolean {
    assert.ok(!this.ended && this.aborted === undefined, 'no write after the end');
    this.chunks.push(chunk);
    return --this.room > 0;
  }
  end(): void {
    this.ended = true;
  }
  abort(error: SlowReaderError): void {
    this.aborted = error;
  }
  get text(): string {
    return this.chunks.join('');
  }
}

function writerOn(output: FakeOutput, options: OutboundOptions = {}): { writer: PacedWriter; cuts: SlowReaderError[] } {
  const cuts: SlowReaderError[] = [];
  const writer = new PacedWriter(output, resolveOutbound({ budget: new OutboundBudget(), ...options }), (e) => cuts.push(e));
  return { writer, cuts };
}

test('PacedWriter: a large text leaves in slices that never split a surrogate pair, then the output ends', () => {
  const output = new FakeOutput();
  const { writer } = writerOn(output);
  // a surrogate pair straddles the first slice boundary
  const text = 'a'.repeat(SLICE_CHARS - 1) + '😀' + 'b'.repeat(3 * SLICE_CHARS);
  writer.write(text);
  writer.end();
  assert.ok(output.ended);
  assert.equal(output.text, text);
  assert.ok(output.chunks.every((c) => c.length <= SLICE_CHARS));
  assert.equal(output.chunks[0]!.length, SLICE_CHARS - 1, 'the slice stops before the high surrogate');
  for (const chunk of output.chunks) assert.equal(Buffer.from(chunk, 'utf8').toString('utf8'), chunk, 'each slice is well-formed UTF-16');
});

test('PacedWriter: honours backpressure — nothing more is handed over until drained(), and end waits too', () => {
  const output = new FakeOutput(1);
  const { writer } = writerOn(output);
  writer.write('x'.repeat(3 * SLICE_CHARS));
  writer.end();
  assert.equal(output.chunks.length, 1);
  assert.equal(writer.queued, 2 * SLICE_CHARS);
  assert.equal(output.ended, false);
  output.room = 1;
  writer.drained();
  assert.equal(output.chunks.length, 2);
  output.room = 10;
  writer.drained();
  assert.equal(output.text.length, 3 * SLICE_CHARS);
  assert.equal(output.ended, true);
  assert.equal(writer.done, true);
});

test('PacedWriter: a reader more than maxQueuedBytes behind is cut at its next message; one large message passes', () => {
  const output = new FakeOutput(1);
  const budget = new OutboundBudget();
  const { writer, cuts } = writerOn(output, { maxQueuedBytes: 100, budget });
  writer.write('y'.repeat(10 * SLICE_CHARS)); // larger than the limit, but nothing else waits
  assert.equal(cuts.length, 0);
  writer.write('z');
  assert.equal(cuts.length, 1);
  assert.equal(cuts[0]!.code, 'slow_reader');
  assert.equal(cuts[0]!.reason, 'behind');
  assert.equal(output.aborted, cuts[0]);
  assert.equal(writer.queued, 0, 'the queue is let go of');
  assert.equal(budget.total, 0);
  writer.write('ignored');
  assert.equal(output.chunks.length, 1);
});

test('PacedWriter: a reader with no drain progress for stallTimeoutMs is cut', async () => {
  const output = new FakeOutput(1);
  const { writer, cuts } = writerOn(output, { stallTimeoutMs: 30 });
  writer.write('w'.repeat(2 * SLICE_CHARS));
  for (let i = 0; i < 100 && cuts.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(cuts.length, 1);
  assert.equal(cuts[0]!.reason, 'stalled');
  assert.equal(writer.done, true);
});

test('PacedWriter: a reader that keeps draining is never cut for stalling', async () => {
  const output = new FakeOutput(1);
  const { writer, cuts } = writerOn(output, { stallTimeoutMs: 1000 });
  writer.write('v'.repeat(20 * SLICE_CHARS));
  writer.end();
  while (!output.ended) {
    output.room = 1;
    writer.drained();
    await new Promise((resolve) => setImmediate(resolve));
  }
  assert.deepEqual(cuts, []);
  assert.equal(output.text.length, 20 * SLICE_CHARS);
});

test('OutboundBudget: crossing the process bound cuts the writer with the oldest progress first', async () => {
  const budget = new OutboundBudget(5 * SLICE_CHARS);
  const outputs = [new FakeOutput(1), new FakeOutput(1), new FakeOutput(1)];
  const writers = outputs.map((o) => writerOn(o, { budget }));
  writers[0]!.writer.write('a'.repeat(3 * SLICE_CHARS));
  await new Promise((resolve) => setTimeout(resolve, 5));
  writers[1]!.writer.write('b'.repeat(3 * SLICE_CHARS));
  assert.equal(budget.total, 4 * SLICE_CHARS);
  assert.equal(budget.waitingWriters, 2);
  // writer 1 drains once: its progress is now the most recent
  outputs[1]!.room = 1;
  writers[1]!.writer.drained();
  await new Promise((resolve) => setTimeout(resolve, 5));
  writers[2]!.writer.write('c'.repeat(4 * SLICE_CHARS));
  assert.equal(writers[0]!.cuts.length, 1, 'the stalest is cut');
  assert.equal(writers[0]!.cuts[0]!.reason, 'budget');
  assert.equal(writers[1]!.cuts.length, 0);
  assert.equal(writers[2]!.cuts.length, 0);
  assert.ok(budget.total <= budget.maxTotalQueuedBytes);
  for (const { writer } of writers) writer.closed();
  assert.equal(budget.total, 0);
  assert.equal(budget.waitingWriters, 0);
});

test('outbound limits: a limit that is not positive is a RangeError', () => {
  assert.throws(() => resolveOutbound({ maxQueuedBytes: 0 }), RangeError);
  assert.throws(() => resolveOutbound({ stallTimeoutMs: -1 }), RangeError);
  assert.throws(() => new OutboundBudget(0), RangeError);
  assert.equal(resolveOutbound().budget, OutboundBudget.shared);
});

test('OutboundBudget.admits: a new reply fits while nothing waits, or within a third of the bound', () => {
  const budget = new OutboundBudget(210_000);
  assert.equal(budget.admits(1000), true, 'nothing waits: even a reply past the bound is admitted (the bound then cuts it)');
  const writer = new PacedWriter({ write: () => false, end: () => {}, abort: () => {} }, { maxQueuedBytes: 1000, stallTimeoutMs: 60_000, budget }, () => {});
  writer.write('x'.repeat(SLICE_CHARS + 50)); // the first slice leaves, 50 wait
  assert.equal(budget.total, 50);
  assert.equal(budget.admits(69_950), true, '50 + 69 950 is within a third of 210 000');
  assert.equal(budget.admits(69_951), false);
  writer.closed();
  assert.equal(budget.total, 0);
});

test('refusedResponseId finds the response a refused reply carries; budgetRefusal answers it with -32000', () => {
  assert.equal(refusedResponseId('{"jsonrpc":"2.0","id":7,"result":{}}', false), '7');
  assert.equal(refusedResponseId('{"jsonrpc":"2.0","id":"a\\"b","error":{}}', false), '"a\\"b"');
  assert.equal(refusedResponseId('[{"jsonrpc":"2.0","id":7,"result":{}}]', false), undefined, 'a batch has no one id');
  assert.equal(refusedResponseId('{"jsonrpc":"2.0","id":7,"method":"sampling/createMessage"}', false), undefined, 'a server request is no response');
  const sse =
    'id: s/1/0\nretry: 1000\ndata: \n\n' +
    'id: s/1/1\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{"message":"data: {\\"jsonrpc\\":\\"2.0\\",\\"id\\":9,\\"result\\":1}"}}\n\n' +
    'id: s/1/2\ndata: {"jsonrpc":"2.0","id":"req-1","result":{"content":[]}}\n\n';
  assert.equal(refusedResponseId(sse, true), '"req-1"', 'the response event, not text inside a notification');
  assert.equal(refusedResponseId('data: {"jsonrpc":"2.0","method":"notifications/message"}\n\n', true), undefined);
  const budget = new OutboundBudget(1024);
  const { body, error } = budgetRefusal(budget, '"req-1"', 5000);
  assert.deepEqual(JSON.parse(body).id, 'req-1');
  assert.equal(JSON.parse(body).error.code, -32000);
  assert.match(JSON.parse(body).error.message, /The result of this request \(5000 bytes\) was not sent: .*maxTotalQueuedBytes.*retry it later/);
  assert.equal(error.code, 'slow_reader');
  assert.equal(error.reason, 'refused');
});

test('jsonLengthAtLeast: never more than JSON.stringify makes, close to it for plain values, and stops past the cap', () => {
  const values: unknown[] = [
    null,
    7,
    'text',
    'é\n"quoted"',
    [],
    {},
    [1, 'a', null, true, [2, [3]]],
    { a: 1, b: 'two', c: [null, false], d: { e: {} } },
    { skipped: undefined, fn: () => 1, kept: 'x' },
    [undefined, () => 1],
    { date: new Date(0), nested: { toJSON: () => 'a much longer replacement text' } },
    { content: [{ type: 'text', text: 'y'.repeat(10_000) }], structuredContent: { n: 12345.678, list: Array.from({ length: 100 }, (_, i) => ({ i })) } },
  ];
  for (const value of values) {
    const real = JSON.stringify(value).length;
    const measured = jsonLengthAtLeast(value, Infinity);
    assert.ok(measured <= real, `${JSON.stringify(value).slice(0, 60)}: ${measured} <= ${real}`);
  }
  // exact for values without escapes, numbers past one digit or toJSON
  for (const value of [{ a: 'b', c: [1, null, true, 'd'], e: {} }, ['x', ['y'], { z: 'w' }]])
    assert.equal(jsonLengthAtLeast(value, Infinity), JSON.stringify(value).length);
  // stops soon after the cap: a huge array is not walked to its end
  let reads = 0;
  const huge = new Proxy(
    Array.from({ length: 1_000_000 }, () => 'abcdefgh'),
    {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
        return Reflect.get(target, key, receiver);
      },
    },
  );
  assert.ok(jsonLengthAtLeast(huge, 1000) > 1000);
  assert.ok(reads < 200, `${reads} elements read`);
  // deep nesting is bounded (counted as nothing past 64 levels), cycles end
  let deep: unknown = 'leaf';
  for (let i = 0; i < 10_000; i++) deep = [deep];
  assert.ok(jsonLengthAtLeast(deep, Infinity) >= 128);
  const cycle: Record<string, unknown> = { name: 'c' };
  cycle.self = cycle;
  assert.ok(Number.isFinite(jsonLengthAtLeast(cycle, Infinity)));
});

test('OutboundBudget.refusesUnserialized: 0 while nothing waits or the reply fits; past the room a lower bound of its size', () => {
  const budget = new OutboundBudget(3 * SLICE_CHARS * 4);
  const big = { content: [{ type: 'text', text: 'x'.repeat(SLICE_CHARS * 5) }] };
  assert.equal(budget.refusesUnserialized(big), 0, 'nothing waits: admitted');
  const writer = new PacedWriter({ write: () => false, end: () => {}, abort: () => {} }, { maxQueuedBytes: 1 << 30, stallTimeoutMs: 60_000, budget }, () => {});
  writer.write('w'.repeat(SLICE_CHARS * 3 + 10)); // one slice leaves: 2 slices + 10 wait, the admitted share is 4 slices
  assert.equal(budget.refusesUnserialized({ content: [{ type: 'text', text: 'x'.repeat(SLICE_CHARS) }] }), 0, 'fits in the room left');
  const size = budget.refusesUnserialized(big);
  assert.ok(size > SLICE_CHARS * 2 && size <= JSON.stringify(big).length, `refused with a lower bound of its size (${size})`);
  assert.equal(budget.admits(JSON.stringify(big).length), false, 'the adapter would refuse it too');
  assert.equal(budget.refusesUnserialized({ text: 'x'.repeat(SLICE_CHARS - 100) }), 0, 'a reply within a slice is never refused');
  writer.closed();
});
