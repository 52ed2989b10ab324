/**
 * Property tests of the envelope scanner: on any input it never throws and its answer does
 * not depend on chunking; on real JSON-RPC messages (any member order) it names the same
 * kind and id as parsing the message would (JSON-RPC 2.0 sections 4, 4.1, 5).
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { check, cut, offsets } from '../../test/abuse/chunk-splits.js';
import { EnvelopeScanner, type EnvelopeSummary } from './envelope-scan.js';

function scan(chunks: Uint8Array[]): EnvelopeSummary {
  const scanner = new EnvelopeScanner();
  for (const chunk of chunks) scanner.pushBytes(chunk);
  return scanner.summary();
}

const enc = new TextEncoder();

test('arbitrary bytes, arbitrary chunks: never throws, same answer as in one piece', () => {
  const bytes = fc
    .array(fc.oneof(fc.constantFrom(...enc.encode('{}[]":,\\ ida0-.'), 0xc3, 0xa9), fc.integer({ min: 0, max: 255 })), { maxLength: 300 })
    .map((b) => Uint8Array.from(b));
  check(
    fc.property(bytes, offsets(), (input, cuts) => {
      assert.deepEqual(scan(cut(input, cuts)), scan([input]));
    }),
    400,
  );
});

const id = fc.oneof(fc.string({ unit: 'binary', maxLength: 20 }), fc.integer());
const params = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 });

/** A JSON-RPC message as an ordered list of members, and what it is. */
const message: fc.Arbitrary<{ members: Array<[string, unknown]>; expected: EnvelopeSummary }> = fc.oneof(
  fc.tuple(id, fc.string({ minLength: 1, maxLength: 12 }), params).map(([i, method, p]) => ({
    members: [
      ['jsonrpc', '2.0'],
      ['id', i],
      ['method', method],
      ['params', p],
    ] as Array<[string, unknown]>,
    expected: { kind: 'request' as const, id: i },
  })),
  fc.tuple(fc.string({ minLength: 1, maxLength: 12 }), params).map(([method, p]) => ({
    members: [
      ['jsonrpc', '2.0'],
      ['method', method],
      ['params', p],
    ] as Array<[string, unknown]>,
    expected: { kind: 'notification' as const, id: null },
  })),
  fc.tuple(id, params).map(([i, result]) => ({
    members: [
      ['jsonrpc', '2.0'],
      ['id', i],
      ['result', result],
    ] as Array<[string, unknown]>,
    expected: { kind: 'response' as const, id: i },
  })),
  fc.tuple(id, fc.integer(), fc.string()).map(([i, code, text]) => ({
    members: [
      ['jsonrpc', '2.0'],
      ['id', i],
      ['error', { code, message: text }],
    ] as Array<[string, unknown]>,
    expected: { kind: 'response' as const, id: i },
  })),
);

test('real messages, members in any order, any whitespace and chunking: the kind and id parsing would give', () => {
  check(
    fc.property(message, fc.array(fc.nat()), fc.constantFrom('', ' ', '\t', ' \r\n '), offsets(), ({ members, expected }, order, space, cuts) => {
      // Shuffle the members deterministically by the generated keys.
      const keyed = members.map((m, i) => ({ m, k: order[i] ?? i }));
      keyed.sort((a, b) => a.k - b.k);
      const text = `${space}{${keyed.map(({ m: [k, v] }) => `${space}${JSON.stringify(k)}${space}:${space}${JSON.stringify(v)}`).join(',')}${space}}${space}`;
      const parsed = JSON.parse(text) as Record<string, unknown>;
      assert.deepEqual(parsed.id ?? null, expected.id);
      assert.deepEqual(scan(cut(enc.encode(text), cuts)), expected);
    }),
    400,
  );
});
