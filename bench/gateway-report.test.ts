import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ECHO_MESSAGE } from './driver.js';
import { pickTool, processCpuMs, responseFor, resultProblem } from './gateway-driver.js';
import { bestThirdParty, formatGatewayTable, gatewayTargets, latencyFigures, quantile, type RowSamples, summarizeRows } from './gateway-report.js';

const row = (upstream: 'stdio' | 'http', name: string, kind: RowSamples['kind'], p50: number[], c1: number[], c32: number[]): RowSamples => ({
  upstream,
  name,
  kind,
  p50Ms1: p50,
  callsPerSec1: c1,
  callsPerSec32: c32,
});

test('quantile takes the nearest rank and leaves its input alone', () => {
  const xs = [5, 1, 4, 2, 3];
  assert.equal(quantile(xs, 0.5), 3);
  assert.equal(quantile(xs, 0), 1);
  assert.equal(quantile(xs, 1), 5);
  assert.equal(quantile([1, 2, 3, 4], 0.5), 2);
  assert.equal(quantile([], 0.5), null);
  assert.deepEqual(xs, [5, 1, 4, 2, 3]);
});

test('ratios against direct are medians of per-repetition ratios, within the same upstream', () => {
  const rows = [
    row('http', 'direct', 'direct', [1, 2, 4], [1000, 500, 1000], [1000, 2000, 4000]),
    row('http', 'mcpkit proxy', 'mcpkit', [1.2, 3, 4.4], [800, 300, 900], [900, 1000, 3600]),
    row('stdio', 'direct', 'direct', [10, 10, 10], [1, 1, 1], [1, 1, 1]),
  ];
  const [, proxy] = summarizeRows(rows);
  // per-repetition latency ratios 1.2, 1.5, 1.1 → 1.2 (the ratio of the medians would be 3 / 2 = 1.5)
  assert.ok(Math.abs(proxy!.latencyVsDirect! - 1.2) < 1e-9);
  // per-repetition throughput ratios 0.9, 0.5, 0.9 → 0.9 (the ratio of the medians would be 1000 / 2000 = 0.5)
  assert.ok(Math.abs(proxy!.throughput32VsDirect! - 0.9) < 1e-9);
  assert.equal(proxy!.p50Ms1, 3);
  assert.equal(proxy!.callsPerSec32, 1000);
});

test('a row without a direct row beside it has no ratios', () => {
  const [s] = summarizeRows([row('http', 'mcpkit proxy', 'mcpkit', [1], [1], [1])]);
  assert.equal(s!.latencyVsDirect, null);
  assert.equal(s!.throughput32VsDirect, null);
});

test('the best third-party proxy is the fastest measured at 32 in flight, per upstream; the targets use it', () => {
  const summaries = summarizeRows([
    row('stdio', 'direct', 'direct', [0.1], [9000], [20000]),
    row('stdio', 'mcpkit proxy', 'mcpkit', [0.2], [4000], [9000]),
    row('stdio', 'slow', 'third-party', [2], [400], [1000]),
    row('stdio', 'fast', 'third-party', [1], [800], [2000]),
    { ...row('stdio', 'broken', 'third-party', [], [], []), unavailable: 'cannot start' },
    row('http', 'direct', 'direct', [1], [1000], [5000]),
    row('http', 'mcpkit proxy', 'mcpkit', [1.25], [800], [4000]),
    row('http', 'other', 'third-party', [3], [300], [2000]),
  ]);
  assert.equal(bestThirdParty(summaries, 'stdio')?.name, 'fast');
  assert.equal(bestThirdParty(summaries, 'http')?.name, 'other');
  const [latency, stdio, http] = gatewayTargets(summaries, 'mcpkit proxy');
  assert.equal(latency!.measured, 1.25);
  assert.equal(latency!.met, true);
  assert.equal(stdio!.measured, 4.5);
  assert.equal(stdio!.met, true);
  assert.equal(http!.measured, 2);
  assert.equal(http!.met, false);
  const table = formatGatewayTable(summaries);
  assert.match(table, /stdio: broken\s+n\/a \(1\)/);
  assert.match(table, /\(1\) stdio: broken: not measured: cannot start/);
  assert.match(table, /stdio: mcpkit proxy\s+0\.200\s+4,000\s+9,000\s+2\.00×\s+0\.45×\s+4\.50×/);
});

test('targets are not met, but n/a, when the rows were not measured', () => {
  const targets = gatewayTargets(summarizeRows([row('http', 'direct', 'direct', [1], [1], [1])]), 'mcpkit gateway');
  assert.deepEqual(
    targets.map((t) => t.met),
    [null, null, null],
  );
});

test('responseFor finds the answer in a JSON body or among the events of a stream', () => {
  const answer = { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: ECHO_MESSAGE }] } };
  assert.deepEqual(responseFor('application/json', JSON.stringify(answer), 7), answer);
  assert.equal(responseFor('application/json', JSON.stringify(answer), 8), undefined);
  const stream = `id: 1\ndata: \n\nevent: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: {} })}\n\ndata: ${JSON.stringify(answer)}\n\n`;
  assert.deepEqual(responseFor('text/event-stream', stream, 7), answer);
  // a batch body, and CRLF line ends
  assert.deepEqual(responseFor('application/json', JSON.stringify([answer]), 7), answer);
  assert.deepEqual(responseFor('text/event-stream; charset=utf-8', `data: ${JSON.stringify(answer)}\r\n\r\n`, 7), answer);
  assert.throws(() => responseFor('application/json', '{not json', 7), SyntaxError);
});

test('resultProblem accepts only a result with the expected text', () => {
  assert.equal(resultProblem({ result: { content: [{ type: 'text', text: ECHO_MESSAGE }] } }, ECHO_MESSAGE), undefined);
  assert.match(resultProblem({ error: { code: -32601, message: 'nope' } }, ECHO_MESSAGE)!, /^error/);
  assert.match(resultProblem({ result: { isError: true, content: [{ type: 'text', text: ECHO_MESSAGE }] } }, ECHO_MESSAGE)!, /^isError/);
  assert.match(resultProblem({ result: { content: [{ type: 'text', text: 'other' }] } }, ECHO_MESSAGE)!, /^unexpected result/);
  assert.equal(resultProblem({ result: { content: [{ type: 'text', text: 'waited 1 ms' }] } }, 'waited 1 ms'), undefined);
});

test('pickTool takes the tool itself, else a namespaced one', () => {
  assert.equal(pickTool(['add', 'echo', 'up_echo'], 'echo'), 'echo');
  assert.equal(pickTool(['add', 'up_echo'], 'echo'), 'up_echo');
  assert.equal(pickTool(['add', 'echoes', 'myecho'], 'echo'), undefined);
  assert.equal(pickTool(['demo_echo', 'demo_slow'], 'slow'), 'demo_slow');
});

test('the bare relay and the work rows: ms added, ratios against the relay within one group, no third-party best from them', () => {
  const work = (r: RowSamples): RowSamples => ({ ...r, tool: 'slow 1 ms' });
  const summaries = summarizeRows([
    row('http', 'direct', 'direct', [0.2, 0.3], [1], [1000]),
    { ...row('http', 'bare relay', 'floor', [0.3, 0.5], [1], [800]), cpuUsPerCall1: [200, 300] },
    { ...row('http', 'mcpkit gateway', 'mcpkit', [0.45, 0.6], [1], [700]), cpuUsPerCall1: [240, null] },
    row('http', 'other', 'third-party', [1], [1], [200]),
    work(row('http', 'direct', 'direct', [1.2, 1.4], [1], [10])),
    work(row('http', 'bare relay', 'floor', [1.3, 1.6], [1], [10])),
    work(row('http', 'mcpkit gateway', 'mcpkit', [1.44, 1.75], [1], [10])),
    work(row('http', 'fast', 'third-party', [1], [1], [99999])),
  ]);
  const gateway = summaries[2]!;
  // per-repetition differences 0.25, 0.3 → 0.275; ratios against the relay 1.5, 1.2 → 1.35
  assert.ok(Math.abs(gateway.addedMs1! - 0.275) < 1e-9);
  assert.ok(Math.abs(gateway.latencyVsFloor! - 1.35) < 1e-9);
  // CPU: the repetition without a reading is left out of the median and of the ratio
  assert.equal(gateway.cpuUsPerCall1, 240);
  assert.ok(Math.abs(gateway.cpuVsFloor! - 1.2) < 1e-9);
  assert.equal(summaries[0]!.cpuUsPerCall1, null);
  const workGateway = summaries[6]!;
  // compared with the work rows only: 1.2, 1.25 → 1.225
  assert.ok(Math.abs(workGateway.latencyVsDirect! - 1.225) < 1e-9);
  assert.equal(bestThirdParty(summaries, 'http')?.name, 'other');
  const { targets, notes } = latencyFigures(summaries, 'mcpkit gateway');
  assert.equal(targets.length, 1);
  assert.match(targets[0]!.description, /slow 1 ms/);
  assert.ok(Math.abs(targets[0]!.measured! - 1.225) < 1e-9);
  assert.equal(targets[0]!.met, true);
  assert.equal(notes.length, 2);
  assert.match(notes[0]!, /HTTP upstream, echo: mcpkit gateway adds 0\.275 ms/);
  assert.match(notes[0]!, /CPU per call of the middle process 240 µs against the relay's 250 µs \(1\.20×\)/);
  const table = formatGatewayTable(summaries);
  assert.match(table, /http \(slow 1 ms\): mcpkit gateway/);
  assert.match(table, /http: bare relay\s+0\.400/);
  assert.match(table, /http: mcpkit gateway .*\s1\.35×\s+240\s+1\.20×/);
});

test('processCpuMs reads a live process, and is null for none', { skip: process.platform !== 'linux' && 'reads /proc (Linux)' }, () => {
  const before = processCpuMs(process.pid);
  assert.equal(typeof before, 'number');
  let x = 0;
  for (let i = 0; i < 3e7; i++) x += i % 7;
  assert.ok(x > 0);
  assert.ok(processCpuMs(process.pid)! >= before!);
  assert.equal(processCpuMs(undefined), null);
  assert.equal(processCpuMs(2 ** 30), null);
});
