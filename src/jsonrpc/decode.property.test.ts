/**
 * Property tests of JSON-RPC envelope classification (JSON-RPC 2.0 sections 4 and 5, as MCP
 * narrows them: ids are strings or integers, params an object). The values are what a peer
 * sends, after JSON.parse.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { check } from '../../test/abuse/chunk-splits.js';
import { classify, describeInvalid, exceedsDepth, KIND_ERROR, KIND_INVALID, KIND_NOTIFICATION, KIND_REQUEST, KIND_RESULT, type MessageKind } from './decode.js';
import { isRequestId } from './types.js';

const requestId = fc.oneof(fc.string({ unit: 'binary', maxLength: 16 }), fc.integer(), fc.maxSafeInteger());
const object = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 });
const method = fc.string({ unit: 'binary', minLength: 1, maxLength: 24 });

/** Valid messages of each kind, with the kind they must classify as. */
const valid: fc.Arbitrary<[Record<string, unknown>, MessageKind]> = fc.oneof(
  fc
    .record({ id: requestId, method, params: fc.option(object, { nil: undefined }) })
    .map(
      ({ id, method, params }) =>
        [params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params }, KIND_REQUEST] as [
          Record<string, unknown>,
          MessageKind,
        ],
    ),
  fc
    .record({ method, params: fc.option(object, { nil: undefined }) })
    .map(
      ({ method, params }) =>
        [params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params }, KIND_NOTIFICATION] as [Record<string, unknown>, MessageKind],
    ),
  fc.record({ id: requestId, result: object }).map(({ id, result }) => [{ jsonrpc: '2.0', id, result }, KIND_RESULT] as [Record<string, unknown>, MessageKind]),
  fc
    .record({ id: fc.option(requestId, { nil: null }), code: fc.integer(), message: fc.string(), data: fc.option(fc.jsonValue(), { nil: undefined }) })
    .map(
      ({ id, code, message, data }) =>
        [{ jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } }, KIND_ERROR] as [Record<string, unknown>, MessageKind],
    ),
);

/** Arbitrary values shaped like envelopes often enough to reach every branch. */
const envelopeLike = fc.record(
  {
    jsonrpc: fc.oneof(fc.constant('2.0'), fc.anything()),
    id: fc.oneof(requestId, fc.anything()),
    method: fc.oneof(method, fc.anything()),
    params: fc.oneof(object, fc.anything()),
    result: fc.oneof(object, fc.anything()),
    error: fc.oneof(fc.record({ code: fc.integer(), message: fc.string() }), fc.anything()),
    __proto__: fc.anything(),
  },
  { requiredKeys: [] },
);

test('never throws on anything; an invalid value always gets a reason and an id that is null or valid', () => {
  check(
    fc.property(fc.oneof(fc.anything({ withNullPrototype: true, withObjectString: true }), envelopeLike), (value) => {
      const kind = classify(value);
      assert.ok([KIND_INVALID, KIND_REQUEST, KIND_NOTIFICATION, KIND_RESULT, KIND_ERROR].includes(kind));
      exceedsDepth(value, 4);
      if (kind === KIND_INVALID) {
        const { id, reason } = describeInvalid(value);
        assert.ok(id === null || isRequestId(id));
        assert.ok(reason.length > 0);
      }
    }),
    500,
  );
});

test('valid messages classify as their kind, before and after a JSON round trip', () => {
  check(
    fc.property(valid, ([message, kind]) => {
      assert.equal(classify(message), kind);
      assert.equal(classify(JSON.parse(JSON.stringify(message))), kind);
    }),
    500,
  );
});

test('breaking one rule of a valid message makes it invalid', () => {
  const breakIt = fc.constantFrom(
    (m: Record<string, unknown>) => ({ ...m, jsonrpc: '1.0' }),
    (m: Record<string, unknown>) => {
      const { jsonrpc: _, ...rest } = m;
      return rest;
    },
    (m: Record<string, unknown>) => ('id' in m && m.id !== null ? { ...m, id: typeof m.id === 'number' ? 1.5 : { id: m.id } } : { ...m, id: true }),
    (m: Record<string, unknown>) => ('method' in m ? { ...m, method: '' } : { ...m, result: {}, error: { code: 1, message: 'x' } }),
    (m: Record<string, unknown>) =>
      'method' in m ? { ...m, params: [1] } : 'result' in m ? { ...m, result: [] } : { ...m, error: { code: 1.5, message: 'x' } },
  );
  check(
    fc.property(valid, breakIt, ([message], mutate) => {
      assert.equal(classify(mutate(message)), KIND_INVALID);
    }),
    500,
  );
});

/** Nesting depth of a JSON value: 0 for a scalar, 1 for an empty object or array. */
function depth(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  let deepest = 0;
  for (const v of Object.values(value)) deepest = Math.max(deepest, depth(v));
  return deepest + 1;
}

test('exceedsDepth agrees with the nesting depth, and is stack-safe on very deep input', () => {
  check(
    fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 0, max: 10 }), (value, max) => {
      assert.equal(exceedsDepth(value, max), depth(value) > max);
    }),
    500,
  );
  // 200 000 levels, as JSON.parse would build them from a hostile line.
  const deep = JSON.parse('['.repeat(200_000) + ']'.repeat(200_000)) as unknown;
  assert.equal(exceedsDepth(deep, 64), true);
  assert.equal(classify(deep), KIND_INVALID);
});
