import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatNumber, formatRatio, formatTable, median, medianDifference, medianRatio } from './stats.js';

test('median ignores missing values and averages the middle pair', () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.equal(median([null, 5, undefined, Number.NaN]), 5);
  assert.equal(median([]), null);
  const input = [3, 1, 2];
  median(input);
  assert.deepEqual(input, [3, 1, 2]);
});

test('medianRatio takes the median of per-repetition ratios', () => {
  // per-rep ratios 1, 2, 0.3 -> 1, whereas the ratio of medians would be 3 / 5 = 0.6
  assert.equal(medianRatio([1, 10, 3], [1, 5, 10]), 1);
  // a repetition missing on either side is skipped, as is a zero denominator
  assert.equal(medianRatio([4, null, 9, 5], [2, 3, 0, 1]), 3.5);
  assert.equal(medianRatio([1], [null]), null);
  assert.equal(medianRatio([1, 2, 3], [1]), 1);
});

test('medianDifference takes the median of per-repetition differences', () => {
  // per-rep differences 0, 5, -7 -> 0, whereas the difference of medians would be 3 - 5 = -2
  assert.equal(medianDifference([1, 10, 3], [1, 5, 10]), 0);
  // a repetition missing on either side is skipped; a zero is a value like any
  assert.equal(medianDifference([4, null, 9, Number.NaN], [2, 3, 0, 1]), 5.5);
  assert.equal(medianDifference([1], [null]), null);
});

test('formatting helpers', () => {
  assert.equal(formatNumber(null), '—');
  assert.equal(formatNumber(12345.6), '12,346');
  assert.equal(formatNumber(1.234), '1.2');
  assert.equal(formatNumber(1.234, 2), '1.23');
  assert.equal(formatRatio(2.5), '2.50×');
  assert.equal(formatRatio(null), '—');
  assert.equal(
    formatTable([
      ['', 'a', 'bb'],
      ['row', '1', '22'],
      ['longer row', '333'],
    ]),
    ['              a  bb', '----------  ---  --', 'row           1  22', 'longer row  333'].join('\n'),
  );
});
