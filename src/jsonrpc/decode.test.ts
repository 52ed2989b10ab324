import assert from 'node:assert/strict';
import { test } from 'node:test';
import { classify, describeInvalid, exceedsDepth, KIND_ERROR, KIND_INVALID, KIND_NOTIFICATION, KIND_REQUEST, KIND_RESULT } from './decode.js';

test('classifies the four message kinds', () => {
  assert.equal(classify({ jsonrpc: '2.0', id: 1, method: 'ping' }), KIND_REQUEST);
  assert.equal(classify({ jsonrpc: '2.0', id: 'a', method: 'ping', params: {} }), KIND_REQUEST);
  assert.equal(classify({ jsonrpc: '2.0', method: 'notifications/initialized' }), KIND_NOTIFICATION);
  assert.equal(classify({ jsonrpc: '2.0', id: 1, result: {} }), KIND_RESULT);
  assert.equal(classify({ jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'x' } }), KIND_ERROR);
  assert.equal(classify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'x' } }), KIND_ERROR);
});

test('refuses invalid envelopes', () => {
  const bad = [
    null,
    42,
    'text',
    [],
    { jsonrpc: '1.0', id: 1, method: 'ping' },
    { id: 1, method: 'ping' },
    { jsonrpc: '2.0', id: { x: 1 }, method: 'ping' },
    { jsonrpc: '2.0', id: null, method: 'ping' },
    { jsonrpc: '2.0', id: 1.5, method: 'ping' },
    { jsonrpc: '2.0', id: true, method: 'ping' },
    { jsonrpc: '2.0', id: 1, method: '' },
    { jsonrpc: '2.0', id: 1, method: 5 },
    { jsonrpc: '2.0', id: 1, method: 'x', params: [1, 2] },
    { jsonrpc: '2.0', id: 1, method: 'x', params: 'p' },
    { jsonrpc: '2.0', id: 1, result: {}, error: { code: 1, message: 'x' } },
    { jsonrpc: '2.0', id: 1, result: 5 },
    { jsonrpc: '2.0', id: 1, error: { code: 'x', message: 'x' } },
    { jsonrpc: '2.0', id: 1 },
    // exact-case keys: "Method" is not "method"
    { jsonrpc: '2.0', id: 1, Method: 'tools/call' },
    { JSONRPC: '2.0', id: 1, method: 'ping' },
  ];
  for (const m of bad) assert.equal(classify(m), KIND_INVALID, JSON.stringify(m));
});

test('an invalid message is answered with its id only when the id is valid', () => {
  assert.deepEqual(describeInvalid({ jsonrpc: '1.0', id: 7, method: 'ping' }).id, 7);
  assert.match(describeInvalid({ jsonrpc: '1.0', id: 7, method: 'ping' }).reason, /"jsonrpc"/);
  assert.equal(describeInvalid({ jsonrpc: '2.0', id: { a: 1 }, method: 'ping' }).id, null);
  assert.match(describeInvalid({ jsonrpc: '2.0', id: { a: 1 }, method: 'ping' }).reason, /"id"/);
  assert.equal(describeInvalid([1]).id, null);
});

test('__proto__ is an ordinary key', () => {
  const m = JSON.parse('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"__proto__":{"polluted":true}}}');
  assert.equal(classify(m), KIND_REQUEST);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test('nesting depth is bounded without recursion blow-up', () => {
  let deep: unknown = 1;
  for (let i = 0; i < 100_000; i++) deep = [deep];
  assert.equal(exceedsDepth(deep, 64), true);
  let ok: unknown = {};
  for (let i = 0; i < 63; i++) ok = { a: ok };
  assert.equal(exceedsDepth(ok, 64), false);
  assert.equal(exceedsDepth({ a: ok }, 64), true);
});
