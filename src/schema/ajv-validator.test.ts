import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AjvJsonSchemaValidator, canonicalJson, defaultJsonSchemaValidator } from './ajv-validator.js';
import { type CompiledValidator, SchemaError, type ValidationIssue } from './types.js';

const DRAFT07 = 'http://json-schema.org/draft-07/schema#';

function issues(validate: CompiledValidator, value: unknown): ValidationIssue[] {
  const outcome = validate(value);
  assert.equal(outcome.valid, false, `expected ${JSON.stringify(value)} to be rejected`);
  return outcome.valid ? [] : outcome.errors;
}

function accepts(validate: CompiledValidator, value: unknown): void {
  assert.deepEqual(validate(value), { valid: true });
}

function compileError(schema: object, code: SchemaError['code']): SchemaError {
  let caught: unknown;
  try {
    new AjvJsonSchemaValidator().compile(schema);
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof SchemaError, `expected a SchemaError, got ${String(caught)}`);
  assert.equal(caught.code, code);
  return caught;
}

describe('AjvJsonSchemaValidator dialects', () => {
  it('treats a schema without $schema as 2020-12: prefixItems applies, array-form items is invalid', () => {
    const v = new AjvJsonSchemaValidator();
    const tuple = v.compile({ type: 'array', prefixItems: [{ type: 'string' }], items: false });
    accepts(tuple, ['a']);
    assert.deepEqual(issues(tuple, ['a', 'b']), [{ path: '', message: 'value must have at most 1 item' }]);
    assert.deepEqual(issues(tuple, [1]), [{ path: '/0', message: 'value[0] must be a string' }]);
    const error = compileError({ type: 'array', items: [{ type: 'string' }] }, 'invalid_schema');
    assert.match(error.message, /\/items/);
  });

  it('uses draft-07 when declared: array-form items works, prefixItems is an unknown keyword', () => {
    const v = new AjvJsonSchemaValidator();
    const tuple = v.compile({ $schema: DRAFT07, type: 'array', items: [{ type: 'string' }], additionalItems: false });
    accepts(tuple, ['a']);
    assert.deepEqual(issues(tuple, ['a', 'b']), [{ path: '', message: 'value must have at most 1 item' }]);
    // Under draft-07, prefixItems means nothing and `items: false` forbids every item.
    const noItems = v.compile({ $schema: DRAFT07, type: 'array', prefixItems: [{ type: 'string' }], items: false });
    accepts(noItems, []);
    assert.deepEqual(issues(noItems, ['a']), [{ path: '/0', message: 'value[0] is not allowed' }]);
  });

  it('accepts every common spelling of the draft-07 and 2020-12 URIs', () => {
    const v = new AjvJsonSchemaValidator();
    for (const uri of [
      'http://json-schema.org/draft-07/schema#',
      'http://json-schema.org/draft-07/schema',
      'https://json-schema.org/draft-07/schema#',
      'https://json-schema.org/draft-07/schema',
    ]) {
      const tuple = v.compile({ $schema: uri, type: 'array', items: [{ type: 'integer' }] });
      accepts(tuple, [1, 'extra']);
      assert.equal(tuple(['x']).valid, false, uri);
    }
    for (const uri of [
      'https://json-schema.org/draft/2020-12/schema',
      'https://json-schema.org/draft/2020-12/schema#',
      'http://json-schema.org/draft/2020-12/schema',
    ]) {
      const closed = v.compile({ $schema: uri, type: 'object', properties: { a: {} }, unevaluatedProperties: false });
      accepts(closed, { a: 1 });
      assert.equal(closed({ a: 1, b: 2 }).valid, false, uri);
    }
  });

  it('applies unevaluatedProperties under 2020-12, across allOf, but not under draft-07', () => {
    const v = new AjvJsonSchemaValidator();
    const body = {
      type: 'object',
      allOf: [{ properties: { name: { type: 'string' } } }],
      properties: { id: { type: 'integer' } },
      unevaluatedProperties: false,
    };
    const strict = v.compile(body);
    accepts(strict, { id: 1, name: 'n' });
    assert.deepEqual(issues(strict, { id: 1, name: 'n', extra: true }), [{ path: '/extra', message: 'extra is not an allowed property' }]);
    accepts(v.compile({ $schema: DRAFT07, ...body }), { id: 1, name: 'n', extra: true });
  });

  it('resolves $defs + $ref (2020-12) and definitions + $ref (draft-07) locally', () => {
    const v = new AjvJsonSchemaValidator();
    const modern = v.compile({
      type: 'object',
      $defs: { zip: { type: 'string', pattern: '^\\d{5}$' } },
      properties: { address: { type: 'object', properties: { zip: { $ref: '#/$defs/zip' } }, required: ['zip'] } },
    });
    accepts(modern, { address: { zip: '12345' } });
    assert.deepEqual(issues(modern, { address: { zip: 'abc' } }), [{ path: '/address/zip', message: 'address.zip must match the pattern /^\\d{5}$/' }]);
    assert.deepEqual(issues(modern, { address: {} }), [{ path: '/address/zip', message: 'address.zip is required' }]);
    const legacy = v.compile({
      $schema: DRAFT07,
      definitions: { n: { type: 'number', minimum: 0 } },
      type: 'object',
      properties: { n: { $ref: '#/definitions/n' } },
    });
    accepts(legacy, { n: 1 });
    assert.deepEqual(issues(legacy, { n: -1 }), [{ path: '/n', message: 'n must be at least 0' }]);
  });

  it('refuses other declared dialects with a clear error', () => {
    for (const uri of ['https://json-schema.org/draft/2019-09/schema', 'http://json-schema.org/draft-04/schema#', 'urn:example:mine']) {
      const error = compileError({ $schema: uri, type: 'object' }, 'unsupported_dialect');
      assert.match(error.message, /Unsupported JSON Schema dialect/);
      assert.ok(error.message.includes(uri));
    }
    compileError({ $schema: 7 }, 'unsupported_dialect');
  });

  it('never fetches a remote $ref: compiling fails at once', () => {
    const originalFetch = globalThis.fetch;
    let fetched = 0;
    globalThis.fetch = (() => {
      fetched++;
      return Promise.reject(new Error('no network in tests'));
    }) as typeof fetch;
    try {
      const error = compileError({ type: 'object', properties: { a: { $ref: 'https://schemas.example.com/a.json' } } }, 'unresolved_ref');
      assert.match(error.message, /https:\/\/schemas\.example\.com\/a\.json/);
      assert.match(error.message, /never fetched/);
      compileError({ $ref: '#/$defs/missing' }, 'unresolved_ref');
    } finally {
      globalThis.fetch = originalFetch;
    }
    assert.equal(fetched, 0);
  });

  it('lets unknown keywords and unknown formats through', () => {
    const v = new AjvJsonSchemaValidator();
    const validate = v.compile({
      type: 'object',
      'x-mcp-header': 'X-Region',
      properties: { region: { type: 'string', format: 'region-code', 'x-title-i18n': { fr: 'Région' } } },
    });
    accepts(validate, { region: 'eu' });
  });

  it('checks formats through ajv-formats', () => {
    const v = new AjvJsonSchemaValidator();
    const validate = v.compile({
      type: 'object',
      properties: {
        email: { type: 'string', format: 'email' },
        when: { type: 'string', format: 'date-time' },
        site: { type: 'string', format: 'uri' },
      },
    });
    accepts(validate, { email: 'a@example.com', when: '2025-01-31T12:00:00Z', site: 'https://example.com/x' });
    assert.deepEqual(issues(validate, { email: 'nope' }), [{ path: '/email', message: 'email must be a valid email address' }]);
    assert.deepEqual(issues(validate, { when: '2025-02-30T12:00:00Z' }), [
      { path: '/when', message: 'when must be a valid date-time (RFC 3339, e.g. 2025-01-31T12:00:00Z)' },
    ]);
    assert.deepEqual(issues(validate, { site: 'not a uri' }), [{ path: '/site', message: 'site must be a valid URI' }]);
  });

  it('reports meta-schema violations with the offending location', () => {
    const error = compileError({ type: 'object', properties: { x: { type: 'strin' } } }, 'invalid_schema');
    assert.match(error.message, /\/properties\/x\/type/);
  });

  it('refuses $async schemas and non-JSON schemas', () => {
    compileError({ $async: true, type: 'object' }, 'invalid_schema');
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic['properties'] = { self: cyclic };
    compileError(cyclic, 'invalid_schema');
    assert.throws(() => new AjvJsonSchemaValidator().compile([] as unknown as object), SchemaError);
  });

  it('compiles boolean schemas', () => {
    const v = new AjvJsonSchemaValidator();
    accepts(v.compile(true), { anything: 1 });
    assert.equal(v.compile(false)(1).valid, false);
    accepts(v.compile({}), 'anything');
  });

  it('checks own properties only: inherited names do not satisfy required', () => {
    const validate = new AjvJsonSchemaValidator().compile({ type: 'object', required: ['constructor', 'toString'] });
    assert.deepEqual(issues(validate, {}), [{ path: '/constructor', message: 'constructor is required' }]);
    accepts(validate, JSON.parse('{"constructor": 1, "toString": 2}'));
  });

  it('treats an own __proto__ key as an ordinary key for required and additionalProperties', () => {
    const v = new AjvJsonSchemaValidator();
    const required = v.compile({ type: 'object', required: ['__proto__'] });
    accepts(required, JSON.parse('{"__proto__": 1}'));
    assert.deepEqual(issues(required, {}), [{ path: '/__proto__', message: '__proto__ is required' }]);
    const typed = v.compile({ type: 'object', additionalProperties: { type: 'string' } });
    assert.deepEqual(issues(typed, JSON.parse('{"__proto__": 1}')), [{ path: '/__proto__', message: '__proto__ must be a string' }]);
    const closed = v.compile({ type: 'object', properties: { a: {} }, additionalProperties: false });
    assert.deepEqual(issues(closed, JSON.parse('{"__proto__": {}}')), [{ path: '/__proto__', message: '__proto__ is not an allowed property' }]);
  });
});

describe('AjvJsonSchemaValidator caching', () => {
  const schema = () => ({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'integer' } }, required: ['a'] });

  it('compiles one schema object once', () => {
    const v = new AjvJsonSchemaValidator();
    const s = schema();
    const first = v.compile(s);
    assert.equal(v.compile(s), first);
    assert.equal(v.compiledCount, 1);
  });

  it('compiles equal schemas once, whatever their key order', () => {
    const v = new AjvJsonSchemaValidator();
    const first = v.compile(schema());
    const again = v.compile({ required: ['a'], properties: { b: { type: 'integer' }, a: { type: 'string' } }, type: 'object' });
    assert.equal(again, first);
    assert.equal(v.compiledCount, 1);
    v.compile({ ...schema(), required: ['b'] });
    assert.equal(v.compiledCount, 2);
  });

  it('keeps at most cacheSize schemas by text, evicting the least recently used', () => {
    const v = new AjvJsonSchemaValidator({ cacheSize: 2 });
    const text = (n: number) => ({ type: 'string', maxLength: n });
    v.compile(text(1));
    v.compile(text(2));
    v.compile(text(1)); // refresh 1: now 2 is the oldest
    v.compile(text(3)); // evicts 2
    assert.equal(v.compiledCount, 3);
    v.compile(text(1));
    assert.equal(v.compiledCount, 3);
    v.compile(text(2));
    assert.equal(v.compiledCount, 4);
  });

  it('compiles per call when cacheSize is 0 and the object is new', () => {
    const v = new AjvJsonSchemaValidator({ cacheSize: 0 });
    v.compile(schema());
    v.compile(schema());
    assert.equal(v.compiledCount, 2);
    assert.throws(() => new AjvJsonSchemaValidator({ cacheSize: -1 }), RangeError);
  });

  it('does not remember a failed compilation', () => {
    const v = new AjvJsonSchemaValidator();
    const bad = { $ref: '#/$defs/nope' };
    assert.throws(() => v.compile(bad), SchemaError);
    assert.throws(() => v.compile(bad), SchemaError);
    assert.equal(v.compiledCount, 0);
  });

  it('lets different schemas reuse one $id (nothing stays registered in the shared engine)', () => {
    const v = new AjvJsonSchemaValidator({ cacheSize: 0 });
    const a = v.compile({ $id: 'https://example.com/s', type: 'string' });
    const b = v.compile({ $id: 'https://example.com/s', type: 'number', $defs: { inner: { $id: 'https://example.com/inner', type: 'string' } } });
    const c = v.compile({ $id: 'https://example.com/s', type: 'boolean', $defs: { inner: { $id: 'https://example.com/inner', type: 'number' } } });
    accepts(a, 'x');
    accepts(b, 1);
    accepts(c, true);
    // A schema cannot reach another schema's $id either.
    assert.throws(
      () => v.compile({ $ref: 'https://example.com/inner' }),
      (e: unknown) => e instanceof SchemaError && e.code === 'unresolved_ref',
    );
  });

  it('survives a schema that reuses the $id of a meta-schema', () => {
    const v = new AjvJsonSchemaValidator({ cacheSize: 0 });
    accepts(v.compile({ $id: 'https://json-schema.org/draft/2020-12/schema', type: 'string' }), 'x');
    accepts(v.compile({ $schema: DRAFT07, $id: 'http://json-schema.org/draft-07/schema#', type: 'string' }), 'x');
    const later = v.compile({ type: 'object', properties: { a: { type: 'integer' } } });
    assert.equal(later({ a: 'x' }).valid, false);
    assert.equal(v.compile({ $schema: DRAFT07, type: 'integer' })(1.5).valid, false);
    compileError({ type: 'object', properties: { a: { type: 'strin' } } }, 'invalid_schema');
  });

  it('shares one default validator', () => {
    assert.equal(defaultJsonSchemaValidator(), defaultJsonSchemaValidator());
  });

  it('canonical text sorts keys and drops undefined members', () => {
    assert.equal(canonicalJson({ b: 1, a: [{ d: 1, c: undefined }], e: 'x' }), '{"a":[{"d":1}],"b":1,"e":"x"}');
  });
});

describe('AjvJsonSchemaValidator never mutates schemas', () => {
  it('leaves schemas deep-equal after compiling and validating', () => {
    const schemas: object[] = [
      {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        $id: 'https://example.com/person',
        type: 'object',
        $defs: { name: { type: 'string', minLength: 1, default: 'anon' } },
        properties: { name: { $ref: '#/$defs/name' }, tags: { type: 'array', items: { type: 'string' }, default: [] } },
        required: ['name'],
        additionalProperties: false,
      },
      {
        $schema: DRAFT07,
        definitions: { n: { type: 'integer' } },
        type: 'object',
        properties: { n: { $ref: '#/definitions/n' } },
        additionalProperties: { type: 'string' },
        dependencies: { n: ['m'] },
      },
    ];
    const v = new AjvJsonSchemaValidator();
    for (const schema of schemas) {
      const before = structuredClone(schema);
      const validate = v.compile(schema);
      validate({});
      validate({ name: 'x', n: 1, extra: 2 });
      validate('not an object');
      assert.deepEqual(schema, before);
      assert.deepEqual(Object.keys(schema), Object.keys(before));
    }
  });

  it('does not fill defaults into validated values', () => {
    const validate = new AjvJsonSchemaValidator().compile({ type: 'object', properties: { a: { type: 'string', default: 'x' } } });
    const value = {};
    accepts(validate, value);
    assert.deepEqual(value, {});
  });
});

describe('validation messages', () => {
  const v = new AjvJsonSchemaValidator();

  it('names the field for common keywords', () => {
    const validate = v.compile({
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 2, maxLength: 4 },
        age: { type: 'integer', minimum: 0, exclusiveMaximum: 150 },
        step: { type: 'number', multipleOf: 5 },
        color: { enum: ['red', 'green'] },
        kind: { const: 'fixed' },
        tags: { type: 'array', minItems: 1, maxItems: 2, uniqueItems: true },
        maybe: { type: ['string', 'null'] },
        'first name': { type: 'string' },
        list: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' } } } },
      },
      additionalProperties: false,
    });
    const cases: Array<[unknown, ValidationIssue]> = [
      [{ name: 'a' }, { path: '/name', message: 'name must be at least 2 characters long' }],
      [{ name: 'abcde' }, { path: '/name', message: 'name must be at most 4 characters long' }],
      [{ age: 1.5 }, { path: '/age', message: 'age must be an integer' }],
      [{ age: -1 }, { path: '/age', message: 'age must be at least 0' }],
      [{ age: 150 }, { path: '/age', message: 'age must be less than 150' }],
      [{ step: 7 }, { path: '/step', message: 'step must be a multiple of 5' }],
      [{ color: 'blue' }, { path: '/color', message: 'color must be one of: "red", "green"' }],
      [{ kind: 'other' }, { path: '/kind', message: 'kind must be "fixed"' }],
      [{ tags: [] }, { path: '/tags', message: 'tags must have at least 1 item' }],
      [{ tags: [1, 2, 3] }, { path: '/tags', message: 'tags must have at most 2 items' }],
      [{ tags: [1, 1] }, { path: '/tags', message: 'tags must not contain duplicates (items 0 and 1 are equal)' }],
      [{ maybe: 1 }, { path: '/maybe', message: 'maybe must be a string or null' }],
      [{ 'first name': 1 }, { path: '/first name', message: '"first name" must be a string' }],
      [{ list: [{ id: 1 }] }, { path: '/list/0/id', message: 'list[0].id must be a string' }],
      [{ unknown: 1 }, { path: '/unknown', message: 'unknown is not an allowed property' }],
      ['text', { path: '', message: 'value must be an object' }],
    ];
    for (const [value, expected] of cases) assert.deepEqual(issues(validate, value), [expected], JSON.stringify(value));
  });

  it('explains oneOf/anyOf through their alternatives', () => {
    const validate = v.compile({
      type: 'object',
      properties: {
        size: {
          oneOf: [
            { const: 's', title: 'Small' },
            { const: 'l', title: 'Large' },
          ],
        },
        id: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
        shape: {
          oneOf: [
            { type: 'object', properties: { kind: { const: 'circle' }, r: { type: 'number' } }, required: ['kind', 'r'] },
            { type: 'object', properties: { kind: { const: 'square' }, side: { type: 'number' } }, required: ['kind', 'side'] },
          ],
        },
        either: { oneOf: [{ type: 'number' }, { type: 'integer' }] },
      },
    });
    assert.deepEqual(issues(validate, { size: 'm' }), [{ path: '/size', message: 'size must be one of: "s", "l"' }]);
    assert.deepEqual(issues(validate, { id: true }), [{ path: '/id', message: 'id must be a string or an integer' }]);
    const [shapeIssue] = issues(validate, { shape: { kind: 'circle', r: 'big' } });
    assert.equal(shapeIssue!.path.startsWith('/shape/'), true);
    assert.match(shapeIssue!.message, /^shape\./);
    assert.deepEqual(issues(validate, { either: 3 }), [
      { path: '/either', message: 'either matches more than one of the allowed alternatives; it must match exactly one' },
    ]);
  });

  it('reports then/else branch failures, dependentRequired and propertyNames', () => {
    const validate = v.compile({
      type: 'object',
      if: { properties: { country: { const: 'US' } }, required: ['country'] },
      then: { required: ['zip'] },
      dependentRequired: { card: ['cvv'] },
      properties: { meta: { type: 'object', propertyNames: { pattern: '^[a-z]+$' } } },
    });
    assert.deepEqual(issues(validate, { country: 'US' }), [{ path: '/zip', message: 'zip is required' }]);
    assert.deepEqual(issues(validate, { card: '4111' }), [{ path: '/cvv', message: 'cvv is required when card is present' }]);
    assert.deepEqual(issues(validate, { meta: { Bad: 1 } }), [{ path: '/meta', message: 'meta has a property name that is not allowed: "Bad"' }]);
  });
});
