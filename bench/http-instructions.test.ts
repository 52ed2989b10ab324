import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callgrindTotal } from './callgrind.js';

test('callgrindTotal reads the summary (or totals) line of a callgrind dump', () => {
  const dump =
    '# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\npid: 42\nevents: Ir\nfl=(1) main.c\nfn=(1) main\n5 10\nsummary: 123456789\ntotals: 123456789\n';
  assert.equal(callgrindTotal(dump), 123456789);
  assert.equal(callgrindTotal('events: Ir\ntotals: 77\n'), 77);
  assert.throws(() => callgrindTotal('events: Ir\n'), /no summary/);
});
