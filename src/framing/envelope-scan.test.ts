import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EnvelopeScanner, type EnvelopeSummary, MAX_ID_BYTES } from './envelope-scan.js';

function scan(text: string, split = 0): EnvelopeSummary {
  const scanner = new EnvelopeScanner();
  const bytes = new TextEncoder().encode(text);
  if (split === 0) scanner.pushBytes(bytes);
  else for (let i = 0; i < bytes.length; i += split) scanner.pushBytes(bytes, i, Math.min(bytes.length, i + split));
  return scanner.summary();
}

test('kinds and ids of whole messages, in any key order and any byte split', () => {
  const cases: Array<[string, EnvelopeSummary]> = [
    ['{"jsonrpc":"2.0","id":1,"method":"ping"}', { kind: 'request', id: 1 }],
    ['{"method":"tools/call","params":{"a":["}",{"b":"\\"]}"}]},"jsonrpc":"2.0","id":"x\\u00e9"}', { kind: 'request', id: 'xé' }],
    [' {"id" : "é😀" , "method":"m"} ', { kind: 'request', id: 'é😀' }],
    ['{"jsonrpc":"2.0","method":"notifications/progress","params":{"id":3}}', { kind: 'notification', id: null }],
    ['{"jsonrpc":"2.0","id":5,"result":{"id":6}}', { kind: 'response', id: 5 }],
    ['{"error":{"code":1,"message":"m"},"id":null}', { kind: 'response', id: null }],
    ['{"jsonrpc":"2.0","id":7}', { kind: 'other', id: 7 }],
    ['{"id":1.5,"method":"m"}', { kind: 'request', id: null }],
    ['{"id":true,"method":"m"}', { kind: 'request', id: null }],
    ['[{"id":1,"method":"m"}]', { kind: 'batch', id: null }],
    ['not json', { kind: 'not-json', id: null }],
    ['{"id":1 "method":"m"}', { kind: 'not-json', id: null }],
    ['{"method":"m","params":{"a":1}', { kind: 'not-json', id: null }],
    ['{"\\u0069d":1,"method":"m"}', { kind: 'other', id: null }],
    ['{"a":"raw\u0001control","id":1,"method":"m"}', { kind: 'not-json', id: null }],
    ['', { kind: 'not-json', id: null }],
  ];
  for (const [text, expected] of cases) {
    for (const split of [0, 1, 2, 7]) assert.deepEqual(scan(text, split), expected, `${text} split ${split}`);
  }
});

test('stops as soon as the id and the kind are known; an over-long id is not kept', () => {
  const scanner = new EnvelopeScanner();
  scanner.pushText('{"id":9,"method":"tools/call","params":{"x":"');
  assert.equal(scanner.done, true);
  scanner.pushText('garbage that is never looked at');
  assert.deepEqual(scanner.summary(), { kind: 'request', id: 9 });
  assert.deepEqual(scan(`{"method":"m","id":"${'i'.repeat(MAX_ID_BYTES)}"}`), { kind: 'request', id: null });
  scanner.reset();
  scanner.pushText(`{"method":"m","id":"${'é'.repeat(100)}"}`);
  assert.deepEqual(scanner.summary(), { kind: 'request', id: 'é'.repeat(100) });
});
