import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { ServerSpec } from './driver.js';
import {
  buildEchoRequests,
  checkEchoResponse,
  ECHO_MESSAGE,
  parseProcStatTicks,
  parseProcStatusKb,
  StdioDriver,
  scanResponseId,
  withGcHook,
} from './driver.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const TIMEOUT = 15000;

/**
 * A throw-away stdio server written inline: answers initialize properly and every
 * other request with `answer(msg)` (a JS expression over `m`, or `null` for silence).
 */
function fakeServer(name: string, answer: string): ServerSpec {
  const source = `
    const rl = require('readline').createInterface({ input: process.stdin });
    rl.on('line', (l) => {
      const m = JSON.parse(l);
      if (m.id === undefined) return;
      const r = m.method === 'initialize'
        ? { jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'fake', version: '1' } } }
        : (${answer});
      if (r !== null) process.stdout.write(JSON.stringify(r) + '\\n');
    });
    rl.on('close', () => process.exit(0));`;
  return { name, command: process.execPath, args: ['-e', source] };
}

test('scanResponseId reads the id of compact response lines', () => {
  assert.equal(scanResponseId('{"result":{"content":[]},"jsonrpc":"2.0","id":1234}'), 1234);
  assert.equal(scanResponseId('{"jsonrpc":"2.0","id":7,"result":{}}'), 7);
  assert.equal(scanResponseId('{"jsonrpc":"2.0","id": 0 ,"result":{}}'), 0);
  assert.equal(scanResponseId('{"jsonrpc":"2.0","id":"7","result":{}}'), -1);
  assert.equal(scanResponseId('{"jsonrpc":"2.0","id":-3,"result":{}}'), -1);
  assert.equal(scanResponseId('{"jsonrpc":"2.0","id":1.5,"result":{}}'), -1);
  assert.equal(scanResponseId('{"jsonrpc":"2.0","method":"notifications/message"}'), -1);
});

test('parseProcStatTicks sums utime and stime, even with odd command names', () => {
  const tail = 'S 1 2 3 0 -1 4194560 500 0 0 0 1234 56 0 0 20 0 11 0 100 1000 200';
  assert.equal(parseProcStatTicks(`42 (node) ${tail}`), 1290);
  assert.equal(parseProcStatTicks(`42 (a b) (c)) ${tail}`), 1290);
  assert.throws(() => parseProcStatTicks('garbage'), /unrecognised/);
});

test('parseProcStatusKb finds kB fields', () => {
  const status = 'Name:\tnode\nVmHWM:\t   51200 kB\nVmRSS:\t   40960 kB\nThreads:\t11\n';
  assert.equal(parseProcStatusKb(status, 'VmRSS'), 40960);
  assert.equal(parseProcStatusKb(status, 'VmHWM'), 51200);
  assert.equal(parseProcStatusKb(status, 'VmSwap'), null);
});

test('buildEchoRequests yields one valid tools/call line per id', () => {
  const lines = buildEchoRequests(10, 3);
  assert.equal(lines.length, 3);
  lines.forEach((line, i) => {
    assert.ok(line.endsWith('\n'));
    assert.deepEqual(JSON.parse(line), {
      jsonrpc: '2.0',
      id: 10 + i,
      method: 'tools/call',
      params: { name: 'echo', arguments: { message: ECHO_MESSAGE } },
    });
  });
});

test('checkEchoResponse accepts only a proper echo result', () => {
  const ok = { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: ECHO_MESSAGE }] } };
  assert.equal(checkEchoResponse(ok), null);
  assert.match(checkEchoResponse({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'bad' } })!, /error response/);
  assert.match(checkEchoResponse({ id: 1, result: { content: [{ type: 'text', text: 'x' }], isError: true } })!, /tool error/);
  assert.match(checkEchoResponse({ id: 1, result: { content: [{ type: 'text', text: 'other' }] } })!, /unexpected echo/);
  assert.match(checkEchoResponse({ id: 1 })!, /no result/);
  assert.match(checkEchoResponse(null)!, /not an object/);
});

test('drives the bare server at 1 and 32 in flight and reads its /proc figures', async () => {
  const spec: ServerSpec = { name: 'bare', command: process.execPath, args: [join(HERE, 'servers', 'bare-stdio.js')] };
  const { driver, coldStartMs } = await StdioDriver.start(spec, { timeoutMs: TIMEOUT });
  try {
    assert.ok(coldStartMs > 0);
    await driver.verifyEcho(TIMEOUT);
    const one = await driver.run(300, 1, TIMEOUT);
    assert.equal(one.calls, 300);
    assert.equal(one.inFlight, 1);
    const many = await driver.run(2100, 32, TIMEOUT);
    assert.equal(many.calls, 2100);
    assert.equal(many.checked, 3); // indexes 0, 1024 and 2048 are parsed in full
    assert.ok(many.callsPerSec > 0 && many.elapsedMs > 0);
    if (process.platform === 'linux') {
      assert.equal(typeof many.serverCpuUsPerCall, 'number');
      assert.ok(driver.rssKb()! > 1000);
      assert.ok(driver.peakRssKb()! > 1000);
      // compared within one snapshot of /proc/<pid>/status: the kernel reports VmHWM as at least
      // the VmRSS it reports beside it, but two reads a moment apart can disagree (its RSS
      // counters are per-CPU and summed when read; CI once saw the later peak below the earlier RSS)
      const status = readFileSync(`/proc/${driver.pid}/status`, 'latin1');
      assert.ok(parseProcStatusKb(status, 'VmHWM')! >= parseProcStatusKb(status, 'VmRSS')!);
    }
  } finally {
    await driver.close();
  }
});

test('withGcHook adds the node options and BENCH_GC=1 without touching the spec', () => {
  const spec: ServerSpec = { name: 's', command: process.execPath, args: ['server.js', '--x'], env: { A: '1' } };
  const hooked = withGcHook(spec);
  assert.equal(hooked.args[0], '--expose-gc');
  assert.equal(hooked.args[1], '--import');
  assert.match(hooked.args[2]!, /^file:\/\/.*\/bench\/servers\/gc-preload\.js$/);
  assert.deepEqual(hooked.args.slice(3), ['server.js', '--x']);
  assert.deepEqual(hooked.env, { A: '1', BENCH_GC: '1' });
  assert.deepEqual(spec.args, ['server.js', '--x']);
  assert.deepEqual(spec.env, { A: '1' });
});

test('gcReport reads the forced-GC report of the bare stdio server started through the preload', async () => {
  const spec = withGcHook({ name: 'bare', command: process.execPath, args: [join(HERE, 'servers', 'bare-stdio.js')] });
  const { driver } = await StdioDriver.start(spec, { timeoutMs: TIMEOUT });
  try {
    const first = await driver.gcReport(TIMEOUT);
    for (const v of Object.values(first)) assert.ok(Number.isInteger(v) && v >= 0);
    assert.ok(first.heapUsedKb > 0 && first.heapTotalKb >= first.heapUsedKb && first.rssKb > first.heapUsedKb);
    // The server still works after the signal, and a second report is a fresh one.
    await driver.verifyEcho(TIMEOUT);
    await driver.run(200, 8, TIMEOUT);
    const second = await driver.gcReport(TIMEOUT);
    assert.ok(second.heapUsedKb > 0);
    assert.doesNotMatch(driver.stderrTail, /without --expose-gc/);
  } finally {
    await driver.close();
  }
});

test('gcReport against a server without the hook rejects with the exit error', async () => {
  const spec: ServerSpec = { name: 'nohook', command: process.execPath, args: [join(HERE, 'servers', 'bare-stdio.js')] };
  const { driver } = await StdioDriver.start(spec, { timeoutMs: TIMEOUT });
  try {
    await assert.rejects(driver.gcReport(TIMEOUT), /nohook: server exited \(SIGUSR2\)/);
  } finally {
    await driver.close();
  }
});

test('drives the official SDK server', async () => {
  const spec: ServerSpec = { name: 'official', command: process.execPath, args: [join(HERE, 'servers', 'official-stdio.js')] };
  const { driver } = await StdioDriver.start(spec, { timeoutMs: TIMEOUT });
  try {
    await driver.verifyEcho(TIMEOUT);
    const r = await driver.run(500, 8, TIMEOUT);
    assert.equal(r.calls, 500);
  } finally {
    await driver.close();
  }
});

test('reassembles responses split across stdout chunks', async () => {
  const spec = fakeServer(
    'split',
    // Responses are queued and dribbled out 37 bytes per write, so lines are cut anywhere.
    `(() => {
      globalThis.out = (globalThis.out ?? '') + JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: m.params.arguments.message }] } }) + '\\n';
      globalThis.pump ??= setInterval(() => {
        if (globalThis.out.length === 0) return;
        process.stdout.write(globalThis.out.slice(0, 37));
        globalThis.out = globalThis.out.slice(37);
      }, 1);
      return null;
    })()`,
  );
  const { driver } = await StdioDriver.start(spec, { timeoutMs: TIMEOUT });
  try {
    const r = await driver.run(50, 4, TIMEOUT);
    assert.equal(r.calls, 50);
  } finally {
    await driver.close();
  }
});

test('a server that exits at once or cannot be spawned fails start', async () => {
  await assert.rejects(
    StdioDriver.start({ name: 'dies', command: process.execPath, args: ['-e', 'console.error("boom"); process.exit(3)'] }, { timeoutMs: TIMEOUT }),
    /dies: server exited \(code 3\).*boom/s,
  );
  await assert.rejects(
    StdioDriver.start({ name: 'missing', command: '/nonexistent/mcpkit-bench-binary', args: [] }, { timeoutMs: TIMEOUT }),
    /missing: cannot start/,
  );
});

test('error responses, wrong echoes and silence fail the run', async () => {
  const cases: [ServerSpec, RegExp][] = [
    [fakeServer('errors', `{ jsonrpc: '2.0', id: m.id, error: { code: -32603, message: 'nope' } }`), /errors: error response/],
    [fakeServer('wrong', `{ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'hi' }] } }`), /wrong: unexpected echo content/],
    [fakeServer('tool-error', `{ jsonrpc: '2.0', id: m.id, result: { content: [], isError: true } }`), /tool-error: tool error/],
    [fakeServer('silent', 'null'), /silent: run timed out after 300 ms \(0\/20 answered/],
  ];
  for (const [spec, expected] of cases) {
    const { driver } = await StdioDriver.start(spec, { timeoutMs: TIMEOUT });
    try {
      await assert.rejects(driver.run(20, 4, 300), expected);
    } finally {
      await driver.close();
    }
  }
});

test('a server dying mid-run fails the run', async () => {
  const spec = fakeServer('crash', `process.exit(5)`);
  const { driver } = await StdioDriver.start(spec, { timeoutMs: TIMEOUT });
  try {
    await assert.rejects(driver.run(20, 4, TIMEOUT), /crash: server exited \(code 5\)/);
  } finally {
    await driver.close();
  }
});
