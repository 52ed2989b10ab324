import { test } from 'node:test';
import assert from 'node:assert/strict';
import { listeningLine, parseGcReport, parseServerArgs } from './http-harness.js';

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
