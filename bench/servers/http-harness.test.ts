import assert from 'node:assert/strict';
import { test } from 'node:test';
import { listeningLine, oldGenerationGrowth, parseGcReport, parseServerArgs } from './http-harness.js';

test('parseServerArgs reads mode and port with defaults', () => {
  assert.deepEqual(parseServerArgs([]), { mode: 'json', port: 0 });
  assert.deepEqual(parseServerArgs(['--mode=sse', '--port=8080']), { mode: 'sse', port: 8080 });
  assert.throws(() => parseServerArgs(['--mode=xml']), /--mode must be json or sse/);
  assert.throws(() => parseServerArgs(['--port=70000']), /--port/);
  assert.throws(() => parseServerArgs(['--port=1.5']), /--port/);
  assert.throws(() => parseServerArgs(['--verbose']), /unknown argument "--verbose"/);
});

test('listeningLine is the line the driver waits for', () => {
  assert.equal(listeningLine(4321), 'LISTENING http://127.0.0.1:4321/mcp');
});

test('parseGcReport accepts only complete numeric reports', () => {
  const ok = { rssKb: 40000, heapUsedKb: 5000, heapTotalKb: 8000, externalKb: 1200 };
  assert.deepEqual(parseGcReport(JSON.stringify({ ...ok, extra: 'ignored' })), ok);
  assert.equal(parseGcReport('{"rssKb":1,"heapUsedKb":2,"heapTotalKb":3}'), null);
  assert.equal(parseGcReport('{"rssKb":"1","heapUsedKb":2,"heapTotalKb":3,"externalKb":4}'), null);
  assert.equal(parseGcReport('null'), null);
  assert.equal(parseGcReport('{"rssKb":1,'), null);
});

test('parseGcReport keeps the old-generation figures only when all three are numbers', () => {
  const base = { rssKb: 40000, heapUsedKb: 5000, heapTotalKb: 8000, externalKb: 1200 };
  const old = { oldBeforeGcKb: 900, oldAfterGcKb: 700, majorGcs: 2 };
  assert.deepEqual(parseGcReport(JSON.stringify({ ...base, ...old })), { ...base, ...old });
  assert.deepEqual(parseGcReport(JSON.stringify({ ...base, oldBeforeGcKb: 900, majorGcs: 2 })), base);
});

test('oldGenerationGrowth: promoted bytes per call between two reports, none across a mark-compact', () => {
  const report = (oldBeforeGcKb: number, oldAfterGcKb: number, majorGcs: number) => ({
    rssKb: 1,
    heapUsedKb: 1,
    heapTotalKb: 1,
    externalKb: 0,
    oldBeforeGcKb,
    oldAfterGcKb,
    majorGcs,
  });
  // 1000 KB after the first forced GC, 1100 KB before the second: 100 KB over 1000 calls
  assert.deepEqual(oldGenerationGrowth(report(5000, 1000, 3), report(1100, 1000, 3), 1000), { promotedBytesPerCall: 102.4, majorGcs: 0 });
  assert.deepEqual(oldGenerationGrowth(report(5000, 1000, 3), report(1100, 1000, 5), 1000), { promotedBytesPerCall: null, majorGcs: 2 });
  assert.deepEqual(oldGenerationGrowth({ rssKb: 1, heapUsedKb: 1, heapTotalKb: 1, externalKb: 0 }, report(1100, 1000, 5), 1000), {
    promotedBytesPerCall: null,
    majorGcs: null,
  });
});
