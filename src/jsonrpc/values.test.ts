import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isObject } from './values.js';

// JSON-RPC 2.0 (section 4) and MCP require `params` and `result` to be objects, never arrays
// or null: the one test every layer uses for "a JSON object".
test('isObject accepts objects and nothing else', () => {
  for (const yes of [{}, { a: 1 }, Object.create(null), new Map()]) assert.equal(isObject(yes), true);
  for (const no of [null, undefined, [], [1], 'x', 0, true, () => ({})]) assert.equal(isObject(no), false, String(no));
});
