import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { LocalError } from '../jsonrpc/errors.js';
import type { TransportReceiver } from '../transport/types.js';
import { defaultEnvironment, ProcessExitedError, StdioClientTransport, type StdioClientTransportOptions } from './client-transport.js';

let dir = '';

/** Child scripts, written once to a temp dir. Each is a tiny "server". */
const scripts: Record<string, string> = {
  // Echoes every stdin line through mcpkit's own server transport.
  'echo.mjs': `
    import { StdioServerTransport } from ${JSON.stringify(new URL('./server-transport.js', import.meta.url).href)};
    const t = new StdioServerTransport();
    t.start({ message: (text) => { t.send(text).catch(() => {}); }, error: () => {}, closed: () => process.exit(0) });
  `,
  'env.mjs': `
    process.stdout.write(JSON.stringify({ env: process.env }) + '\\n');
    process.stdin.resume();
  `,
  'argv.mjs': `
    process.stdout.write(JSON.stringify({ argv: process.argv.slice(2) }) + '\\n');
    process.stdin.resume();
  `,
  'stderr.mjs': `
    process.stderr.write('hello from stderr ✓\\n');
    process.stderr.write('x'.repeat(200 * 1024) + '\\n', () => {
      process.stderr.write('END-MARK\\n', () => process.stdout.write('{"ready":true}\\n'));
    });
    process.stdin.resume();
  `,
  'garbage.mjs': `
    process.stdout.write('Starting server on stdio...\\n');
    process.stdout.write('{"jsonrpc":"2.0","method":"one"}\\n');
    process.stdout.write('plain log line\\n\\n');
    process.stdout.write('  [{"jsonrpc":"2.0","method":"two"}]\\r\\n');
    process.stdout.write('{"jsonrpc":"2.0","method":"three"}\\n');
    process.stdin.resume();
  `,
  'big.mjs': `
    const chunk = 'x'.repeat(1024 * 1024);
    process.stdout.write('{"big":"');
    for (let i = 0; i < 8; i++) process.stdout.write(chunk);
    process.stdout.write('"}\\n{"jsonrpc":"2.0","method":"after"}\\n');
    process.stdin.resume();
  `,
  'crash.mjs': `
    process.stdin.once('data', () => {
      process.stderr.write('fatal: the database is on fire\\n', () => process.exit(3));
    });
  `,
  'last-words.mjs': `
    process.stdout.write('{"jsonrpc":"2.0","id":1,"result":{}}', () => process.exit(0));
  `,
  'ignore-eof.mjs': `
    setInterval(() => {}, 1000);
    process.stdout.write('{"ready":true}\\n');
  `,
  // Reads nothing; after the first SIGUSR2, writes 2000 notifications and then a marker.
  'deaf-talker.mjs': `
    process.stdin.pause();
    process.on('SIGUSR2', () => {
      let out = '';
      for (let i = 0; i < 2000; i++) out += JSON.stringify({ jsonrpc: '2.0', method: 'n', params: { i } }) + '\\n';
      process.stdout.write(out + '{"jsonrpc":"2.0","method":"done"}\\n');
    });
    setInterval(() => {}, 1000);
    process.stdout.write('{"ready":true}\\n');
  `,
  'ignore-term.mjs': `
    process.on('SIGTERM', () => {});
    setInterval(() => {}, 1000);
    process.stdout.write('{"ready":true}\\n');
  `,
};

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcpkit-stdio-'));
  for (const [name, body] of Object.entries(scripts)) writeFileSync(join(dir, name), body);
});
after(() => rmSync(dir, { recursive: true, force: true }));

interface Recorded {
  messages: string[];
  errors: Error[];
  closed: Array<Error | undefined>;
  receiver: TransportReceiver;
  whenClosed: Promise<Error | undefined>;
  /** Resolves with the first message satisfying `predicate` (already received or future). */
  waitFor(predicate: (text: string) => boolean): Promise<string>;
}

function recorder(): Recorded {
  let resolveClosed!: (reason: Error | undefined) => void;
  const waiters: Array<{ predicate: (text: string) => boolean; resolve: (text: string) => void }> = [];
  const rec: Recorded = {
    messages: [],
    errors: [],
    closed: [],
    whenClosed: new Promise((resolve) => (resolveClosed = resolve)),
    receiver: {
      message: (data) => {
        const text = data as string;
        rec.messages.push(text);
        for (let i = waiters.length - 1; i >= 0; i--) {
          if (waiters[i]!.predicate(text)) waiters.splice(i, 1)[0]!.resolve(text);
        }
      },
      error: (error) => rec.errors.push(error),
      closed: (reason) => {
        rec.closed.push(reason);
        resolveClosed(reason);
      },
    },
    waitFor: (predicate) => {
      const found = rec.messages.find(predicate);
      if (found !== undefined) return Promise.resolve(found);
      return new Promise((resolve) => waiters.push({ predicate, resolve }));
    },
  };
  return rec;
}

function node(script: string, extra: Partial<StdioClientTransportOptions> = {}): StdioClientTransport {
  return new StdioClientTransport({ command: process.execPath, args: [join(dir, script)], ...extra });
}

/** Fails the test instead of hanging when `promise` takes longer than `ms`. */
async function within<T>(ms: number, promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out: ${what}`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

test('round trip through a child running the stdio server transport, in order, under backpressure', async () => {
  const transport = node('echo.mjs');
  const rec = recorder();
  assert.equal(transport.pid, undefined);
  await assert.rejects(transport.send({ jsonrpc: '2.0', method: 'early' }), (e: unknown) => e instanceof LocalError && e.code === 'not_connected');
  await transport.start(rec.receiver);
  assert.equal(typeof transport.pid, 'number');
  const pad = 'p'.repeat(10_000);
  const sends: Array<Promise<void>> = [];
  for (let i = 0; i < 300; i++) sends.push(transport.send({ jsonrpc: '2.0', id: i, method: 'echo', params: { text: `héllo ${i} 🎉`, pad } }));
  await within(10_000, Promise.all(sends), 'sends');
  await within(
    10_000,
    rec.waitFor((t) => (JSON.parse(t) as { id: number }).id === 299),
    'echoes',
  );
  assert.equal(rec.messages.length, 300);
  rec.messages.forEach((text, i) => {
    const msg = JSON.parse(text) as { id: number; params: { text: string } };
    assert.equal(msg.id, i);
    assert.equal(msg.params.text, `héllo ${i} 🎉`);
  });
  assert.deepEqual(rec.errors, []);
  const t0 = Date.now();
  await transport.close();
  assert.ok(Date.now() - t0 < 1500, 'a server that exits on stdin EOF is not signalled');
  assert.deepEqual(transport.exitStatus, { code: 0, signal: null });
  assert.deepEqual(rec.closed, [undefined]);
  await assert.rejects(transport.send({ jsonrpc: '2.0', method: 'late' }), (e: unknown) => e instanceof LocalError && e.code === 'connection_closed');
  await assert.rejects(
    Promise.resolve().then(() => transport.start(recorder().receiver)),
    LocalError,
  );
});

test('the child sees only the default environment plus what the caller passed', async () => {
  const saved = { secret: process.env.MCPKIT_TEST_SECRET, shell: process.env.SHELL, term: process.env.TERM };
  process.env.MCPKIT_TEST_SECRET = 'do-not-leak';
  process.env.SHELL = '() { echo exported function; }';
  process.env.TERM = 'xterm-test';
  let transport: StdioClientTransport;
  try {
    transport = node('env.mjs', { env: { MCPKIT_CALLER: 'yes', PATH: '/caller/bin' } });
  } finally {
    for (const [key, value] of [
      ['MCPKIT_TEST_SECRET', saved.secret],
      ['SHELL', saved.shell],
      ['TERM', saved.term],
    ] as const) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
  const rec = recorder();
  await transport.start(rec.receiver);
  const { env } = JSON.parse(
    await within(
      5000,
      rec.waitFor(() => true),
      'env line',
    ),
  ) as { env: Record<string, string> };
  await transport.close();
  const expected: Record<string, string> = {};
  for (const key of ['HOME', 'LOGNAME', 'USER']) if (process.env[key] !== undefined) expected[key] = process.env[key]!;
  expected.TERM = 'xterm-test';
  expected.PATH = '/caller/bin';
  expected.MCPKIT_CALLER = 'yes';
  assert.deepEqual(env, expected);
});

test('defaultEnvironment picks the platform list and skips exported shell functions', () => {
  const source = {
    PATH: '/bin',
    HOME: '/home/u',
    SHELL: '() { :; }',
    AWS_SECRET_ACCESS_KEY: 'x',
    SYSTEMROOT: 'C:\\Windows',
    USERPROFILE: 'C:\\Users\\u',
    TEMP: '() nope',
  };
  assert.deepEqual(defaultEnvironment(source, 'linux'), { PATH: '/bin', HOME: '/home/u' });
  assert.deepEqual(defaultEnvironment(source, 'win32'), { PATH: '/bin', SYSTEMROOT: 'C:\\Windows', USERPROFILE: 'C:\\Users\\u' });
});

test('no shell: metacharacters in the command or arguments are never interpreted', async () => {
  const marker = join(dir, 'pwned');
  const args = [`; touch ${marker}`, '$(touch ' + marker + ')', '`id`', 'a && b | c > d'];
  const transport = node('argv.mjs', { args: [join(dir, 'argv.mjs'), ...args] });
  const rec = recorder();
  await transport.start(rec.receiver);
  const { argv } = JSON.parse(
    await within(
      5000,
      rec.waitFor(() => true),
      'argv line',
    ),
  ) as { argv: string[] };
  await transport.close();
  assert.deepEqual(argv, args);

  const bad = new StdioClientTransport({ command: `${process.execPath} -e 1; touch ${marker}` });
  const rec2 = recorder();
  const failure = await bad.start(rec2.receiver).then(
    () => assert.fail('spawn should fail'),
    (e: unknown) => e,
  );
  assert.ok(failure instanceof ProcessExitedError);
  assert.equal(failure.code, 'process_exited');
  assert.match(failure.message, /could not be started/);
  assert.equal(await rec2.whenClosed, failure);
  assert.equal(rec2.closed.length, 1);
  await bad.close();
  assert.equal(rec2.closed.length, 1);
  const { existsSync } = await import('node:fs');
  assert.equal(existsSync(marker), false);
});

test('stderr is captured: a stream for the log, and a bounded tail', async () => {
  const transport = node('stderr.mjs');
  assert.ok(transport.stderr, 'stream exists before start');
  let streamed = '';
  transport.stderr.setEncoding('utf8');
  transport.stderr.on('data', (chunk: string) => (streamed += chunk));
  const rec = recorder();
  await transport.start(rec.receiver);
  await within(
    5000,
    rec.waitFor((t) => t.includes('ready')),
    'ready',
  );
  const tail = transport.stderrTail();
  assert.ok(tail.length <= 64 * 1024, `tail is ${tail.length} chars`);
  assert.ok(tail.length > 60 * 1024);
  assert.ok(tail.endsWith('END-MARK\n'));
  assert.ok(!tail.includes('hello from stderr'), 'older output has rotated out');
  await transport.close();
  assert.ok(streamed.startsWith('hello from stderr ✓\n'));
  assert.ok(streamed.endsWith('END-MARK\n'));

  const quiet = node('stderr.mjs', { stderr: 'ignore' });
  assert.equal(quiet.stderr, null);
  const rec2 = recorder();
  await quiet.start(rec2.receiver);
  await within(
    5000,
    rec2.waitFor((t) => t.includes('ready')),
    'ready',
  );
  assert.equal(quiet.stderrTail(), '');
  await quiet.close();
});

test('lines that are not JSON are skipped and reported; JSON-looking lines are delivered', async () => {
  const transport = node('garbage.mjs');
  const rec = recorder();
  await transport.start(rec.receiver);
  await within(
    5000,
    rec.waitFor((t) => t.includes('three')),
    'third message',
  );
  await transport.close();
  assert.deepEqual(rec.messages, ['{"jsonrpc":"2.0","method":"one"}', '  [{"jsonrpc":"2.0","method":"two"}]', '{"jsonrpc":"2.0","method":"three"}']);
  assert.equal(rec.errors.length, 2);
  for (const error of rec.errors) assert.ok(error instanceof LocalError && error.code === 'invalid_message');
  assert.match(rec.errors[0]!.message, /Starting server on stdio/);
});

test('an 8 MiB line with a 1 MiB cap is dropped and reported; the next line arrives', async () => {
  const transport = node('big.mjs', { maxLineBytes: 1024 * 1024 });
  const rec = recorder();
  await transport.start(rec.receiver);
  await within(
    10_000,
    rec.waitFor((t) => t.includes('after')),
    'line after the big one',
  );
  await transport.close();
  assert.deepEqual(rec.messages, ['{"jsonrpc":"2.0","method":"after"}']);
  assert.equal(rec.errors.length, 1);
  assert.ok(rec.errors[0] instanceof LocalError && rec.errors[0].code === 'message_too_large');
});

test('a crashing child closes the transport at once with process_exited, exit code and stderr', async () => {
  const transport = node('crash.mjs', { closeTimeouts: { stdinMs: 5000, termMs: 5000 } });
  const rec = recorder();
  await transport.start(rec.receiver);
  const t0 = Date.now();
  await transport.send({ jsonrpc: '2.0', id: 1, method: 'tools/call' });
  const reason = await within(3000, rec.whenClosed, 'closed after crash');
  assert.ok(Date.now() - t0 < 1000, `closed after ${Date.now() - t0} ms`);
  assert.ok(reason instanceof ProcessExitedError);
  assert.equal(reason.code, 'process_exited');
  assert.equal(reason.exitCode, 3);
  assert.equal(reason.signal, null);
  assert.match(reason.message, /exited with code 3/);
  assert.match(reason.message, /the database is on fire/);
  assert.match(reason.stderr, /the database is on fire/);
  await assert.rejects(transport.send({ jsonrpc: '2.0', method: 'x' }), (e: unknown) => e instanceof LocalError && e.code === 'connection_closed');
  await within(1000, transport.close(), 'close after exit');
  assert.equal(rec.closed.length, 1);
});

test('a final unterminated message written just before exiting is delivered before closed', async () => {
  const transport = node('last-words.mjs');
  const order: string[] = [];
  const rec = recorder();
  await transport.start({
    message: (data) => {
      order.push('message');
      rec.receiver.message(data);
    },
    error: rec.receiver.error,
    closed: (reason) => {
      order.push('closed');
      rec.receiver.closed(reason);
    },
  });
  const reason = await within(3000, rec.whenClosed, 'closed');
  assert.deepEqual(order, ['message', 'closed']);
  assert.ok(reason instanceof ProcessExitedError && reason.exitCode === 0);
});

test('close(): a child that ignores stdin EOF gets SIGTERM after stdinMs', async () => {
  const transport = node('ignore-eof.mjs', { closeTimeouts: { stdinMs: 200, termMs: 5000 } });
  const rec = recorder();
  await transport.start(rec.receiver);
  await within(
    5000,
    rec.waitFor(() => true),
    'ready',
  );
  const t0 = Date.now();
  const closing = transport.close();
  assert.equal(transport.close(), closing, 'idempotent');
  await within(5000, closing, 'close');
  const elapsed = Date.now() - t0;
  assert.ok(elapsed >= 190 && elapsed < 3000, `took ${elapsed} ms`);
  assert.deepEqual(transport.exitStatus, { code: null, signal: 'SIGTERM' });
  assert.deepEqual(rec.closed, [undefined], 'an exit we asked for is not an error');
});

test('close(): a child that ignores SIGTERM gets SIGKILL after termMs', async () => {
  const transport = node('ignore-term.mjs', { closeTimeouts: { stdinMs: 100, termMs: 200 } });
  const rec = recorder();
  await transport.start(rec.receiver);
  await within(
    5000,
    rec.waitFor(() => true),
    'ready',
  ); // the SIGTERM handler is installed
  const t0 = Date.now();
  await within(5000, transport.close(), 'close');
  const elapsed = Date.now() - t0;
  assert.ok(elapsed >= 290 && elapsed < 3000, `took ${elapsed} ms`);
  assert.deepEqual(transport.exitStatus, { code: null, signal: 'SIGKILL' });
  assert.deepEqual(rec.closed, [undefined]);
});

test('close() before start() and option validation', async () => {
  const transport = node('echo.mjs');
  await transport.close();
  await assert.rejects(transport.start(recorder().receiver), (e: unknown) => e instanceof LocalError && e.code === 'connection_closed');
  assert.throws(() => new StdioClientTransport({ command: '' }), TypeError);
  assert.throws(() => new StdioClientTransport({ command: 'x', closeTimeouts: { termMs: -1 } }), RangeError);
  assert.throws(() => new StdioClientTransport({ command: 'x', maxLineBytes: 0 }), RangeError);
});

test('our own requests piling up for a server that does not read never pause reading its output (no deadlock)', async () => {
  const transport = node('deaf-talker.mjs', { maxQueuedOutputChars: 10_000 });
  const rec = recorder();
  await transport.start(rec.receiver);
  try {
    await within(
      10_000,
      rec.waitFor((t) => t.includes('ready')),
      'ready',
    );
    // Requests and notifications (not replies) far over the bound: they wait, unsent.
    const pad = 'q'.repeat(1000);
    for (let i = 0; i < 500; i++) transport.send({ jsonrpc: '2.0', id: i, method: 'm', params: { pad } }).catch(() => {});
    process.kill(transport.pid!, 'SIGUSR2');
    await within(
      20_000,
      rec.waitFor((t) => t.includes('"done"')),
      'the server output after our backlog',
    );
    assert.equal(rec.messages.filter((t) => t.includes('"method":"n"')).length, 2000);
  } finally {
    await transport.close();
  }
});

test('messages sent in one turn of the event loop go to the server in one write', async () => {
  // Each write to the child's stdin is a system call; a client with many requests in flight
  // sends a burst of them whenever responses arrive, so the burst is handed over at once.
  const { Socket } = await import('node:net');
  const proto = Socket.prototype as unknown as { _write: (...a: unknown[]) => unknown; _writev: (...a: unknown[]) => unknown };
  const original = { write: proto._write, writev: proto._writev };
  const transport = node('echo.mjs');
  const rec = recorder();
  await transport.start(rec.receiver);
  // only the writes carrying our messages count (the test runner writes to its own pipes too)
  let writes = 0;
  const ours = (chunk: unknown): boolean => String((chunk as { chunk?: unknown })?.chunk ?? chunk).includes('"method":"echo"');
  proto._write = function (this: unknown, ...a: unknown[]) {
    if (ours(a[0])) writes++;
    return original.write.apply(this, a);
  };
  proto._writev = function (this: unknown, ...a: unknown[]) {
    if ((a[0] as unknown[]).some(ours)) writes++;
    return original.writev.apply(this, a);
  };
  try {
    const sends: Array<Promise<void>> = [];
    for (let i = 0; i < 32; i++) sends.push(transport.send({ jsonrpc: '2.0', id: i, method: 'echo' }));
    await within(10_000, Promise.all(sends), 'sends');
    await within(
      10_000,
      rec.waitFor((t) => (JSON.parse(t) as { id: number }).id === 31),
      'echoes',
    );
  } finally {
    proto._write = original.write;
    proto._writev = original.writev;
  }
  assert.equal(rec.messages.length, 32);
  rec.messages.forEach((text, i) => {
    assert.equal((JSON.parse(text) as { id: number }).id, i);
  });
  assert.ok(writes <= 2, `32 messages took ${writes} writes`);
  await transport.close();
});
