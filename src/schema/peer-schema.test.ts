import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultJsonSchemaValidator } from './ajv-validator.js';
import { loadPeerSchemaEngine, PeerSchemaValidator, peerSchemaAdapter } from './peer-schema.js';
import { checkSchemaWork, MAX_SUBSCHEMAS } from './schema-work.js';
import { SchemaError } from './types.js';

test("the application's own schemas keep the native engine (lookaround works there)", () => {
  const check = defaultJsonSchemaValidator().compile({ type: 'string', pattern: '^(?=a)a+$' });
  assert.equal(check('aaa').valid, true);
  assert.equal(check('b').valid, false);
});

test('a peer schema: RE2 patterns check values; lookaround is refused with a clear SchemaError', async () => {
  await loadPeerSchemaEngine();
  const peer = new PeerSchemaValidator();
  const check = peer.compile({
    type: 'object',
    patternProperties: { '^x-[a-z]+$': { type: 'integer' } },
    properties: { s: { type: 'string', pattern: '^[0-9]{3}$' } },
  });
  assert.equal(check({ s: '123', 'x-a': 1 }).valid, true);
  assert.equal(check({ s: '12' }).valid, false);
  assert.equal(check({ 'x-a': 'no' }).valid, false);
  assert.throws(
    () => peer.compile({ type: 'string', pattern: '(?<=a)b' }),
    (e: unknown) => e instanceof SchemaError && e.code === 'invalid_schema' && /linear-time engine \(RE2\)/.test(e.message),
  );
  // case-insensitive and unicode flags as Ajv passes them
  assert.equal(peer.compile({ type: 'string', pattern: '^é+$' })('ééé').valid, true);
});

test('peerSchemaAdapter refuses what the validator refuses, before any value is checked', async () => {
  await assert.rejects(peerSchemaAdapter({ type: 'string', pattern: '(a)\\1' }), (e: unknown) => e instanceof SchemaError);
  const adapter = await peerSchemaAdapter({ type: 'object', properties: { u: { type: 'string', format: 'url' } } });
  assert.equal((await adapter.validate({ u: 'not a url at all' })).valid, true, 'url is an annotation in a peer schema');
});

test('checkSchemaWork: linear recursive schemas pass, fan-out per place is refused, $ref must resolve', () => {
  checkSchemaWork({ $defs: { n: { type: 'object', properties: { left: { $ref: '#/$defs/n' }, right: { $ref: '#/$defs/n' } } } }, $ref: '#/$defs/n' });
  checkSchemaWork({ type: 'array', prefixItems: [{ $ref: '#' }, { $ref: '#' }] });
  assert.throws(
    () =>
      checkSchemaWork(
        {
          $defs: {
            a: { anyOf: [{ $ref: '#/$defs/b' }, { $ref: '#/$defs/b' }] },
            b: { anyOf: [{ $ref: '#/$defs/c' }, { $ref: '#/$defs/c' }] },
            c: { type: 'string' },
          },
          $ref: '#/$defs/a',
        },
        3,
      ),
    /more than 3 subschemas/,
  );
  assert.throws(
    () => checkSchemaWork({ $ref: '#/$defs/missing' }),
    (e: unknown) => e instanceof SchemaError && e.code === 'unresolved_ref',
  );
  assert.throws(() => checkSchemaWork({ $defs: { a: { allOf: [{ $ref: '#/$defs/a' }] } }, $ref: '#/$defs/a' }), /never goes into the value/);
});

test('attack round 2: uniqueItems in a peer schema is linear (50 000 distinct objects: Ajv compares every pair, ~1.25e9 comparisons) and still finds duplicates as JSON compares them', async () => {
  await loadPeerSchemaEngine();
  const check = new PeerSchemaValidator().compile({ type: 'object', properties: { x: { type: 'array', uniqueItems: true } } });
  const items = Array.from({ length: 50_000 }, (_, i) => ({ a: i, b: [i, { c: String(i) }] }));
  const started = performance.now();
  assert.equal(check({ x: items }).valid, true);
  // generous: the pairwise check takes tens of seconds here, the linear one tens of milliseconds
  assert.ok(performance.now() - started < 5000, `took ${performance.now() - started} ms`);
  const dup = check({ x: [{ a: 1, b: { c: [1, 2] } }, 'x', { b: { c: [1, 2] }, a: 1.0 }] });
  assert.equal(dup.valid, false);
  assert.match(dup.valid ? '' : dup.errors[0]!.message, /must not contain duplicates \(items 0 and 2 are equal\)/);
  for (const distinct of [
    [1, '1'],
    [
      [1, 2],
      [2, 1],
    ],
    [{ a: 1 }, { a: 1, b: null }],
    [null, 'null'],
    [{ a: '1' }, { a: 1 }],
    [true, 1],
  ]) {
    assert.equal(check({ x: distinct }).valid, true, JSON.stringify(distinct));
  }
  assert.equal(check({ x: [0, -0] }).valid, false, '0 and -0 are the same JSON number');
  assert.equal(new PeerSchemaValidator().compile({ type: 'array', uniqueItems: false })([1, 1]).valid, true);
});

test('attack round 2: a peer schema with more subschemas than Ajv compiles quickly is refused before compiling (2 000 patternProperties took 5 s, 4 000 overflowed the stack)', async () => {
  const many = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`^p${i}$`, { type: 'string' }]));
  for (const schema of [
    { type: 'object', patternProperties: many(MAX_SUBSCHEMAS) },
    { type: 'object', dependentSchemas: Object.fromEntries(Array.from({ length: 4000 }, (_, i) => [`k${i}`, { required: ['a'] }])) },
    { allOf: Array.from({ length: 1500 }, (_, i) => ({ properties: { [`k${i}`]: { type: 'string' } } })) },
  ]) {
    await assert.rejects(
      peerSchemaAdapter(schema),
      (e: unknown) => e instanceof SchemaError && e.code === 'invalid_schema' && /more than 2000 subschemas/.test(e.message),
    );
  }
  // a large real-world shape stays accepted, and enum values are data, not subschemas
  await peerSchemaAdapter({
    type: 'object',
    properties: Object.fromEntries(
      Array.from({ length: 300 }, (_, i) => [`k${i}`, { type: 'string', enum: Array.from({ length: 20 }, (_, j) => ({ v: j })) }]),
    ),
  });
});
