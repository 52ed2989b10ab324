/**
 * The registration-time check of plain JSON Schemas (JSON Schema 2020-12 Core and
 * Validation, draft-07 for schemas that declare it): unknown keywords, wrong keyword types and
 * dangling `$ref`s are refused with the JSON Pointer of the problem.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { requireObjectSchema, toSchemaAdapter } from './standard-schema.js';
import { checkJsonSchema } from './strict-check.js';
import { SchemaError } from './types.js';

function refused(schema: unknown, code: SchemaError['code'], pattern: RegExp, dialect: 'draft-2020-12' | 'draft-07' = 'draft-2020-12'): void {
  assert.throws(
    () => checkJsonSchema(schema, dialect),
    (error: unknown) => error instanceof SchemaError && error.code === code && pattern.test(error.message),
    `expected ${code} matching ${pattern}`,
  );
}

describe('checkJsonSchema', () => {
  it('accepts the schemas people and generators write', () => {
    checkJsonSchema(
      { type: 'object', properties: { city: { type: 'string', minLength: 1, description: 'City' } }, required: ['city'], additionalProperties: false },
      'draft-2020-12',
    );
    checkJsonSchema({ type: ['string', 'null'], enum: ['a', null], default: 'a', examples: ['a'] }, 'draft-2020-12');
    checkJsonSchema({ $defs: { node: { type: 'object', properties: { next: { $ref: '#/$defs/node' } } } }, $ref: '#/$defs/node' }, 'draft-2020-12');
    checkJsonSchema({ $defs: { n: { $anchor: 'n', type: 'number' } }, properties: { a: { $ref: '#n' } } }, 'draft-2020-12');
    checkJsonSchema({ type: 'array', prefixItems: [{ type: 'string' }], items: false, unevaluatedItems: false }, 'draft-2020-12');
    checkJsonSchema({ type: 'array', items: [{ type: 'string' }], additionalItems: false, dependencies: { a: ['b'], c: { required: ['d'] } } }, 'draft-07');
    // the legacy titled enum of elicitation forms, and vendor annotations
    checkJsonSchema({ type: 'string', enum: ['a', 'b'], enumNames: ['A', 'B'], 'x-order': 1 }, 'draft-2020-12');
    checkJsonSchema(true, 'draft-2020-12');
  });

  it('refuses a misspelled keyword and suggests the right one', () => {
    refused(
      { type: 'object', properties: { name: { type: 'string', minLenght: 2 } } },
      'invalid_schema',
      /"\/properties\/name\/minLenght" is not a draft-2020-12 keyword \(did you mean "minLength"\?\)/,
    );
    refused({ type: 'object', requird: ['a'] }, 'invalid_schema', /"\/requird" .*did you mean "required"/);
    // a 2020-12 keyword in a draft-07 schema
    refused({ prefixItems: [] }, 'invalid_schema', /"\/prefixItems" is not a draft-07 keyword/, 'draft-07');
  });

  it('refuses wrong keyword values with their pointer', () => {
    refused(
      { type: 'object', properties: { city: { type: 'strin' } } },
      'invalid_schema',
      /"\/properties\/city\/type" "strin" is not a JSON Schema type \(did you mean "string"\?\)/,
    );
    refused({ type: ['string', 'string'] }, 'invalid_schema', /names the type "string" twice/);
    refused({ required: 'name' }, 'invalid_schema', /"\/required" must be an array of property names/);
    refused({ required: ['a', 'a'] }, 'invalid_schema', /must not list a name twice/);
    refused({ minLength: -1 }, 'invalid_schema', /"\/minLength" must be a whole number/);
    refused({ multipleOf: 0 }, 'invalid_schema', /"\/multipleOf" must be a number greater than 0/);
    refused({ properties: [] }, 'invalid_schema', /"\/properties" must be an object of subschemas/);
    refused({ anyOf: [] }, 'invalid_schema', /"\/anyOf" must be a non-empty array/);
    refused({ properties: { a: 'string' } }, 'invalid_schema', /"\/properties\/a" must be a schema/);
    refused({ pattern: '([a-z' }, 'invalid_schema', /"\/pattern" is not a valid regular expression/);
    refused({ maximum: Infinity }, 'invalid_schema', /"\/maximum" must be a number/);
  });

  it('refuses $refs that do not resolve inside the schema', () => {
    refused({ properties: { a: { $ref: '#/$defs/missing' } } }, 'unresolved_ref', /"\/properties\/a\/\$ref": "#\/\$defs\/missing" points to nothing/);
    refused({ $ref: 'https://example.com/a.json' }, 'unresolved_ref', /remote references are never fetched/);
  });

  it('refuses a schema that contains itself and one nested past the bound, without overflowing the stack', () => {
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic['properties'] = { self: cyclic };
    refused(cyclic, 'invalid_schema', /contains itself/);
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 10_000; i++) deep = { not: deep };
    refused(deep, 'invalid_schema', /nests deeper than 64 levels/);
  });

  it('lets library metadata through when unknown keywords are allowed, but still checks types', () => {
    checkJsonSchema({ type: 'object', 'zod-meta': 1, id: 'x' }, 'draft-2020-12', { unknownKeywords: false });
    assert.throws(() => checkJsonSchema({ type: 'strin' }, 'draft-2020-12', { unknownKeywords: false }), SchemaError);
  });
});

describe('toSchemaAdapter at registration', () => {
  it('runs the strict check on plain JSON Schemas', () => {
    assert.throws(() => toSchemaAdapter({ type: 'object', properties: { n: { type: 'strin' } } }), /"\/properties\/n\/type" "strin" is not a JSON Schema type/);
  });

  it('refuses a raw shape of zod-like schemas with what to write', () => {
    const fakeZod = { '~standard': { version: 1, vendor: 'zod', validate: (v: unknown) => ({ value: v }) } };
    assert.throws(() => toSchemaAdapter({ city: fakeZod }), /a "raw shape": "city" is a zod schema.*z\.object\(\{ city: \.\.\. \}\)/);
  });

  it('requires an object schema when asked (tool input and output schemas)', () => {
    assert.throws(
      () => toSchemaAdapter({ type: 'string' }, undefined, { requireObject: 'inputSchema of tool "t"' }),
      /The inputSchema of tool "t" must describe an object \(type "object"\), but it has type "string"/,
    );
    assert.throws(() => requireObjectSchema({ properties: {} }, 'outputSchema of tool "t"'), /declares no "type"/);
    toSchemaAdapter({ type: 'object' }, undefined, { requireObject: 'inputSchema of tool "t"' });
  });
});

describe('schemas from a peer', () => {
  it('are not checked strictly: unknown keywords are ignored, as JSON Schema 2020-12 Core section 6.5 allows', () => {
    const adapter = toSchemaAdapter({ type: 'object', nullable: true, properties: { a: { type: 'string' } } }, undefined, { strict: false });
    assert.equal((adapter.validate({ a: 'x' }) as { valid: boolean }).valid, true);
  });
});
