import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { PassThrough, Writable } from 'node:stream';
import { test } from 'node:test';
import { LocalError } from '../jsonrpc/errors.js';
import type { TransportReceiver } from '../transport/types.js';
import { StdioServerTransport } from './server-transport.js';

interface Recorded {
  messages: unknown[];
  errors: Error[];
  closed: Array<Error | undefined>;
  receiver: TransportReceiver;
  whenClosed: Promise<Error | undefined>;
}

function recorder(onMessage?: (data: unknown) => void): Recorded {
  let resolveClosed!: (reason: Error | undefined) => void;
  const rec: Recorded = {
    messages: [],
    errors: [],
    closed: [],
    whenClosed: new Promise((resolve) => (resolveClosed = resolve)),
    receiver: {
      message: (data) => {
        rec.messages.push(data);
        onMessage?.(data);
      },
      error: (error) => rec.errors.push(error),
      closed: (reason) => {
        rec.closed.push(reason);
        resolveClosed(reason);
      },
    },
  };
  return rec;
}

const isClosedError = (e: unknown): boolean => e instanceof LocalError && e.code === 'connection_closed';
const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A Writable that records what it gets and holds each write until `release()`. */
class SlowSink extends Writable {
  chunks: string[] = [];
  #pending: Array<() => void> = [];
  constructor(highWaterMark: number) {
    super({ highWaterMark, decodeStrings: false });
  }
  override _write(chunk: string, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.chunks.push(chunk);
    this.#pending.push(() => callback());
  }
  /** Completes every write held so far (and those that follow synchronously). */
  releaseAll(): void {
    while (this.#pending.length > 0) this.#pending.shift()!();
  }
}

test('lines reach the receiver as raw text, in order; garbage lines are passed through for the session to answer', async () => {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const transport = new StdioServerTransport({ stdin, stdout });
  const rec = recorder();
  stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\r\n\nnot json\n[{"jsonrpc":"2.0"');
  // Nothing is read before start().
  await tick();
  assert.equal(rec.messages.length, 0);
  transport.start(rec.receiver);
  stdin.write(',"method":"x"}]\n{"tail":true}');
  await tick();
  assert.deepEqual(rec.messages, ['{"jsonrpc":"2.0","id":1,"method":"ping"}', 'not json', '[{"jsonrpc":"2.0","method":"x"}]']);
  stdin.end();
  assert.equal(await rec.whenClosed, undefined);
  assert.deepEqual(rec.messages.at(-1), '{"tail":true}', 'a final unterminated line is still delivered');
  assert.equal(rec.closed.length, 1);
  await assert.rejects(Promise.resolve(transport.send({ jsonrpc: '2.0', method: 'late' })), isClosedError);
  await transport.close();
  assert.equal(rec.closed.length, 1, 'closed fires once');
  assert.throws(
    () => transport.start(recorder().receiver),
    (e: unknown) => e instanceof LocalError,
  );
});

test('send writes exactly one line per message and nothing else', async () => {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const transport = new StdioServerTransport({ stdin, stdout });
  transport.start(recorder().receiver);
  let written = '';
  stdout.on('data', (chunk: Buffer) => (written += chunk.toString('utf8')));
  await transport.send({ jsonrpc: '2.0', id: 1, result: { text: 'a\nb 🎉' } });
  await transport.send([{ jsonrpc: '2.0', method: 'n' }]);
  await transport.send('{"jsonrpc":"2.0","method":"pre"}');
  await assert.rejects(Promise.resolve(transport.send('{"a":\n1}')), (e: unknown) => e instanceof LocalError && e.code === 'invalid_message');
  await tick();
  assert.equal(written, '{"jsonrpc":"2.0","id":1,"result":{"text":"a\\nb 🎉"}}\n[{"jsonrpc":"2.0","method":"n"}]\n{"jsonrpc":"2.0","method":"pre"}\n');
  await transport.close();
});

test('an oversized line is reported as message_too_large and the next line still arrives', async () => {
  const stdin = new PassThrough();
  const transport = new StdioServerTransport({ stdin, stdout: new PassThrough(), maxLineBytes: 1024 });
  const rec = recorder();
  transport.start(rec.receiver);
  stdin.write('{"big":"');
  for (let i = 0; i < 64; i++) stdin.write('x'.repeat(1024));
  stdin.write('"}\n{"jsonrpc":"2.0","method":"after"}\n');
  await tick();
  assert.deepEqual(rec.messages, ['{"jsonrpc":"2.0","method":"after"}']);
  assert.equal(rec.errors.length, 1);
  assert.ok(rec.errors[0] instanceof LocalError && rec.errors[0].code === 'message_too_large');
  await transport.close();
});

test('backpressure: waits for drain, queues later sends, preserves order', async () => {
  const stdout = new SlowSink(64);
  const transport = new StdioServerTransport({ stdin: new PassThrough(), stdout });
  transport.start(recorder().receiver);
  const big = 'y'.repeat(100);
  const settled: number[] = [];
  const sends = [0, 1, 2, 3, 4].map((i) => Promise.resolve(transport.send({ jsonrpc: '2.0', method: `m${i}`, params: { big } })).then(() => settled.push(i)));
  await tick();
  // The first write overflowed the 64-byte buffer: the rest wait in the transport, not the stream.
  assert.equal(stdout.chunks.length, 1);
  assert.deepEqual(settled, []);
  for (let round = 0; round < 10 && settled.length < 5; round++) {
    stdout.releaseAll();
    await tick();
  }
  await Promise.all(sends);
  assert.deepEqual(settled, [0, 1, 2, 3, 4]);
  assert.deepEqual(
    stdout.chunks.map((c) => (JSON.parse(c) as { method: string }).method),
    ['m0', 'm1', 'm2', 'm3', 'm4'],
  );
  await transport.close();
});

test('stdin is paused while more than maxQueuedOutputChars wait for stdout, and resumed at half of it', async () => {
  const stdout = new SlowSink(16);
  const stdin = new PassThrough();
  const transport = new StdioServerTransport({ stdin, stdout, maxQueuedOutputChars: 250 });
  transport.start(recorder().receiver);
  const line = { jsonrpc: '2.0' as const, id: 1, result: { pad: 'p'.repeat(60) } }; // 86 characters encoded
  const sends = [0, 1, 2, 3, 4].map(() => transport.send(line));
  await tick();
  // One line is in the stream, four wait: 344 characters > 250.
  assert.equal(stdin.isPaused(), true);
  stdout.releaseAll(); // the stream drains: lines move from the queue into the stream one at a time
  await tick();
  for (let round = 0; round < 10 && stdin.isPaused(); round++) {
    stdout.releaseAll();
    await tick();
  }
  assert.equal(stdin.isPaused(), false, 'reading resumes once the queue is down to half the bound');
  for (let round = 0; round < 10; round++) {
    stdout.releaseAll();
    await tick();
  }
  await Promise.all(sends);
  assert.equal(stdout.chunks.length, 5);
  await transport.close();
  assert.throws(() => new StdioServerTransport({ stdin, stdout, maxQueuedOutputChars: 0 }), RangeError);
  assert.throws(() => new StdioServerTransport({ stdin, stdout, maxQueuedOutputChars: 1.5 }), RangeError);
  new StdioServerTransport({ stdin, stdout, maxQueuedOutputChars: Infinity });
});

test('close() hands messages still waiting for drain to stdout', async () => {
  const stdout = new SlowSink(16);
  const transport = new StdioServerTransport({ stdin: new PassThrough(), stdout });
  const rec = recorder();
  transport.start(rec.receiver);
  const a = transport.send({ jsonrpc: '2.0', method: 'a' });
  const b = transport.send({ jsonrpc: '2.0', method: 'b' });
  await tick();
  assert.equal(stdout.chunks.length, 1);
  await transport.close();
  await Promise.all([a, b]);
  stdout.releaseAll();
  await tick();
  stdout.releaseAll();
  assert.deepEqual(
    stdout.chunks.map((c) => (JSON.parse(c) as { method: string }).method),
    ['a', 'b'],
  );
  assert.deepEqual(rec.closed, [undefined]);
});

test('EPIPE on stdout never throws: the transport closes with the error', async () => {
  const epipe = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
  const stdout = new Writable({
    write(_chunk, _encoding, callback) {
      callback(epipe);
    },
  });
  const stdin = new PassThrough();
  const transport = new StdioServerTransport({ stdin, stdout });
  const rec = recorder();
  transport.start(rec.receiver);
  // The stream errors during the write: the send fails with connection_closed, caused by the EPIPE.
  await assert.rejects(Promise.resolve(transport.send({ jsonrpc: '2.0', method: 'x' })), (e: unknown) => isClosedError(e) && (e as Error).cause === epipe);
  assert.equal(await rec.whenClosed, epipe);
  await assert.rejects(Promise.resolve(transport.send({ jsonrpc: '2.0', method: 'y' })), isClosedError);
  // Input after the close is no longer delivered.
  stdin.write('{"late":1}\n');
  await tick();
  assert.equal(rec.messages.length, 0);
  assert.equal(rec.closed.length, 1);
});

test('a stdout whose write() throws, or that was already ended, does not throw out of send', async () => {
  const throwing = new PassThrough();
  throwing.write = () => {
    throw new Error('boom');
  };
  const t1 = new StdioServerTransport({ stdin: new PassThrough(), stdout: throwing });
  const rec1 = recorder();
  t1.start(rec1.receiver);
  await assert.rejects(Promise.resolve(t1.send({ jsonrpc: '2.0', method: 'x' })), /boom/);
  assert.equal((await rec1.whenClosed)?.message, 'boom');
  await assert.rejects(Promise.resolve(t1.send({ jsonrpc: '2.0', method: 'x' })), isClosedError);
  await t1.close();
  assert.equal(rec1.closed.length, 1);

  const ended = new PassThrough();
  ended.resume();
  ended.end();
  await once(ended, 'finish');
  const t2 = new StdioServerTransport({ stdin: new PassThrough(), stdout: ended });
  const rec2 = recorder();
  t2.start(rec2.receiver);
  await assert.rejects(Promise.resolve(t2.send({ jsonrpc: '2.0', method: 'x' })), isClosedError);
  const reason = await rec2.whenClosed;
  assert.ok(reason instanceof Error);
  assert.equal(rec2.closed.length, 1);
});

test('a receiver that closes the transport mid-chunk stops further delivery', async () => {
  const stdin = new PassThrough();
  let transport!: StdioServerTransport;
  const rec = recorder(() => void transport.close());
  transport = new StdioServerTransport({ stdin, stdout: new PassThrough() });
  transport.start(rec.receiver);
  stdin.write('{"a":1}\n{"b":2}\n{"c":3}\n');
  await tick();
  assert.deepEqual(rec.messages, ['{"a":1}']);
  assert.deepEqual(rec.closed, [undefined]);
});

test('a stdin error closes the transport with that error', async () => {
  const stdin = new PassThrough();
  const transport = new StdioServerTransport({ stdin, stdout: new PassThrough() });
  const rec = recorder();
  transport.start(rec.receiver);
  const failure = new Error('read failed');
  stdin.destroy(failure);
  assert.equal(await rec.whenClosed, failure);
  await transport.close();
  assert.equal(rec.closed.length, 1);
});

test('a real server process whose client stops reading survives the EPIPE and reports it', async () => {
  const moduleUrl = new URL('./server-transport.js', import.meta.url).href;
  const script = `
    import { StdioServerTransport } from ${JSON.stringify(moduleUrl)};
    const t = new StdioServerTransport();
    t.start({
      message: (text) => { for (let i = 0; i < 50; i++) t.send({ jsonrpc: '2.0', method: 'spam', params: { i, pad: 'z'.repeat(4096) } }).catch(() => {}); },
      error: () => {},
      closed: (reason) => { process.stderr.write('closed:' + (reason ? (reason.code ?? reason.message) : 'none') + '\\n'); setTimeout(() => process.exit(0), 20); },
    });
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.destroy(); // the client goes away without reading
  child.stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(timer);
  assert.equal(code, 0, `stderr: ${stderr}`);
  assert.match(stderr, /closed:EPIPE/);
  assert.doesNotMatch(stderr, /Unhandled|Error:/);
});
