import assert from 'node:assert/strict';
import { test } from 'node:test';
import { counterText, isObject } from './values.js';

// JSON-RPC 2.0 (section 4) and MCP require `params` and `result` to be objects, never arrays
// or null: the one test every layer uses for "a JSON object".
test('isObject accepts objects and nothing else', () => {
  for (const yes of [{}, { a: 1 }, Object.create(null), new Map()]) assert.equal(isObject(yes), true);
  for (const no of [null, undefined, [], [1], 'x', 0, true, () => ({})]) assert.equal(isObject(no), false, String(no));
});

// Event ids embed stream numbers (Streamable HTTP § Resumability): the text must be the
// plain decimal form `String(n)` gives, whatever way it is produced.
test('counterText writes the decimal text of a counter, as String does', () => {
  for (const n of [0, 1, 9, 10, 255, 65_536, 2 ** 31, 2 ** 32 + 7, Number.MAX_SAFE_INTEGER]) assert.equal(counterText(n), String(n));
});
