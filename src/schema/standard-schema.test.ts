import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as z from 'zod';
import { AjvJsonSchemaValidator } from './ajv-validator.js';
import {
  fromStandardIssue,
  isStandardJSONSchema,
  isStandardSchema,
  type StandardJSONSchemaV1,
  type StandardSchemaV1,
  toSchemaAdapter,
} from './standard-schema.js';
import { SchemaError, type ValidationResult } from './types.js';

function failure<T>(result: ValidationResult<T>) {
  assert.equal(result.valid, false, 'expected a failure');
  return result.valid ? [] : result.errors;
}

function success<T>(result: ValidationResult<T>): T {
  assert.equal(result.valid, true, `expected success, got ${JSON.stringify(result)}`);
  return (result as { value: T }).value;
}

function schemaError(fn: () => unknown, code: SchemaError['code']): SchemaError {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof SchemaError, `expected a SchemaError, got ${String(caught)}`);
  assert.equal(caught.code, code);
  return caught;
}

/** A minimal Standard Schema written by hand: a positive number, doubled on output. */
function doubledPositive(options: { jsonSchema?: boolean; async?: boolean } = {}) {
  const validate = (value: unknown): StandardSchemaV1.Result<number> =>
    typeof value === 'number' && value > 0 ? { value: value * 2 } : { issues: [{ message: 'must be a positive number' }] };
  const props: Record<string, unknown> = {
    version: 1,
    vendor: 'handmade',
    validate: options.async ? (value: unknown) => Promise.resolve(validate(value)) : validate,
  };
  if (options.jsonSchema) {
    props['jsonSchema'] = {
      input: (o: { target: string }) => ({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'number',
        exclusiveMinimum: 0,
        'x-target': o.target,
      }),
      output: () => ({ type: 'number' }),
    };
  }
  return { '~standard': props } as unknown as StandardSchemaV1<number, number>;
}

describe('toSchemaAdapter with zod 4', () => {
  const person = z.object({
    name: z.string().min(1),
    tags: z.array(z.string()).default([]),
    address: z.object({ zip: z.string().regex(/^\d{5}$/, 'must be five digits') }),
  });

  it('produces a 2020-12 JSON Schema for the input side', () => {
    const adapter = toSchemaAdapter(person);
    assert.deepEqual(adapter.jsonSchema, {
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 1 },
        tags: { default: [], type: 'array', items: { type: 'string' } },
        address: { type: 'object', properties: { zip: { type: 'string', pattern: '^\\d{5}$' } }, required: ['zip'] },
      },
      required: ['name', 'address'],
    });
    // The wire schema is valid 2020-12: our own validator compiles it and agrees with zod.
    const validate = new AjvJsonSchemaValidator().compile(adapter.jsonSchema);
    assert.equal(validate({ name: 'a', address: { zip: '12345' } }).valid, true);
    assert.equal(validate({ name: 'a', address: { zip: 'x' } }).valid, false);
  });

  it('describes the output side on request', () => {
    const adapter = toSchemaAdapter(person, undefined, { io: 'output' });
    assert.deepEqual(adapter.jsonSchema['required'], ['name', 'tags', 'address']);
    assert.equal(adapter.jsonSchema['additionalProperties'], false);
  });

  it('validates with zod and returns the parsed value', async () => {
    const adapter = toSchemaAdapter(person);
    const result = await adapter.validate({ name: 'Ada', address: { zip: '02139' }, ignored: true });
    const value = success(result);
    assert.deepEqual(value, { name: 'Ada', tags: [], address: { zip: '02139' } });
    // Compile-time check: the output type flows through.
    const name: string = value.name;
    assert.equal(name, 'Ada');
  });

  it('reports failures with JSON Pointer paths and field-named messages', async () => {
    const adapter = toSchemaAdapter(person);
    const errors = failure(await adapter.validate({ name: '', address: { zip: 'abc' } }));
    assert.deepEqual(
      errors.map((e) => e.path),
      ['/name', '/address/zip'],
    );
    assert.match(errors[0]!.message, /^name: /);
    assert.equal(errors[1]!.message, 'address.zip: must be five digits');
    const rootErrors = failure(await adapter.validate('nope'));
    assert.equal(rootErrors[0]!.path, '');
    assert.doesNotMatch(rootErrors[0]!.message, /^: /);
  });

  it('answers asynchronously for async refinements', async () => {
    const code = z.object({ code: z.string().refine(async (v) => v === 'open-sesame', 'wrong code') });
    const adapter = toSchemaAdapter(code);
    const pending = adapter.validate({ code: 'nope' });
    assert.ok(pending instanceof Promise);
    assert.deepEqual(failure(await pending), [{ path: '/code', message: 'code: wrong code' }]);
    success(await adapter.validate({ code: 'open-sesame' }));
  });

  it('refuses schemas zod cannot express as JSON Schema', () => {
    const error = schemaError(() => toSchemaAdapter(z.object({ when: z.date() })), 'no_json_schema');
    assert.match(error.message, /zod/);
    assert.match(error.message, /plain JSON Schema/);
  });

  it('zod schemas satisfy the declared interfaces', () => {
    assert.equal(isStandardSchema(person), true);
    assert.equal(isStandardJSONSchema(person), true);
    const typed: StandardJSONSchemaV1 = person;
    assert.equal(typed['~standard'].vendor, 'zod');
  });
});

describe('toSchemaAdapter with other Standard Schemas', () => {
  it('uses a hand-written Standard Schema for validation and its JSON Schema for the wire', async () => {
    const adapter = toSchemaAdapter(doubledPositive({ jsonSchema: true }));
    assert.deepEqual(adapter.jsonSchema, { type: 'number', exclusiveMinimum: 0, 'x-target': 'draft-2020-12' });
    assert.equal(success(await adapter.validate(21)), 42);
    assert.deepEqual(failure(await adapter.validate(-1)), [{ path: '', message: 'must be a positive number' }]);
    adapter.prepare();
  });

  it('supports promise-returning validate functions', async () => {
    const adapter = toSchemaAdapter(doubledPositive({ jsonSchema: true, async: true }));
    assert.equal(success(await adapter.validate(2)), 4);
  });

  it('refuses a Standard Schema that cannot describe itself', () => {
    const error = schemaError(() => toSchemaAdapter(doubledPositive()), 'no_json_schema');
    assert.match(error.message, /handmade/);
    assert.match(error.message, /plain JSON Schema/);
  });

  it('wraps converter failures and non-object results', () => {
    const throwing = {
      '~standard': {
        version: 1,
        vendor: 'v',
        validate: () => ({ value: 1 }),
        jsonSchema: {
          input: () => {
            throw new Error('target unsupported');
          },
          output: () => ({}),
        },
      },
    };
    assert.match(schemaError(() => toSchemaAdapter(throwing), 'no_json_schema').message, /target unsupported/);
    const empty = { '~standard': { ...throwing['~standard'], jsonSchema: { input: () => null, output: () => null } } };
    schemaError(() => toSchemaAdapter(empty), 'no_json_schema');
  });

  it('falls back to toJSONSchema for zod versions without Standard JSON Schema', () => {
    const calls: unknown[] = [];
    const legacyZod = {
      '~standard': { version: 1, vendor: 'zod', validate: (value: unknown) => ({ value }) },
      toJSONSchema(options: unknown) {
        calls.push(options);
        return { $schema: 'https://json-schema.org/draft/2020-12/schema', properties: { a: { type: 'string' } } };
      },
    };
    const adapter = toSchemaAdapter(legacyZod);
    assert.deepEqual(calls, [{ target: 'draft-2020-12', io: 'input' }]);
    assert.deepEqual(adapter.jsonSchema, { type: 'object', properties: { a: { type: 'string' } } });
  });

  it('adds type "object" to object-like schemas that omit it, keeps non-default dialects', () => {
    const make = (schema: Record<string, unknown>) =>
      toSchemaAdapter({
        '~standard': { version: 1, vendor: 'v', validate: (value: unknown) => ({ value }), jsonSchema: { input: () => schema, output: () => schema } },
      }).jsonSchema;
    const union = {
      anyOf: [
        { type: 'object', properties: {} },
        { type: 'object', required: ['x'] },
      ],
    };
    assert.deepEqual(make(union), { type: 'object', ...union });
    assert.deepEqual(make({ anyOf: [{ type: 'object' }, { type: 'string' }] }), { anyOf: [{ type: 'object' }, { type: 'string' }] });
    assert.deepEqual(make({ required: ['a'] }), { type: 'object', required: ['a'] });
    const draft07 = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' };
    assert.deepEqual(make(draft07), draft07);
    const produced = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'string' };
    make(produced);
    assert.equal(produced.$schema, 'https://json-schema.org/draft/2020-12/schema', 'the library result is copied, not edited');
  });

  it('validates a Standard JSON Schema without validate through JSON Schema', () => {
    const onlyJson = {
      '~standard': {
        version: 1,
        vendor: 'describer',
        jsonSchema: { input: () => ({ type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] }), output: () => ({}) },
      },
    };
    assert.equal(isStandardSchema(onlyJson), false);
    assert.equal(isStandardJSONSchema(onlyJson), true);
    const adapter = toSchemaAdapter(onlyJson);
    assert.deepEqual(adapter.validate({ n: 1 }), { valid: true, value: { n: 1 } });
    assert.deepEqual(failure(adapter.validate({}) as ValidationResult), [{ path: '/n', message: 'n is required' }]);
  });

  it('recognises Standard Schemas by shape, including function-valued schemas', () => {
    const callable = Object.assign(() => undefined, { '~standard': { version: 1, vendor: 'fn', validate: (value: unknown) => ({ value }) } });
    assert.equal(isStandardSchema(callable), true);
    assert.equal(isStandardSchema({ type: 'object' }), false);
    assert.equal(isStandardSchema(null), false);
    assert.equal(isStandardSchema({ '~standard': { version: 2, vendor: 'x', validate: () => ({ value: 1 }) } }), false);
    assert.equal(isStandardSchema({ '~standard': { version: 1, vendor: 'x' } }), false);
  });

  it('converts issue paths made of keys, path segments and symbols', () => {
    assert.deepEqual(fromStandardIssue({ message: 'bad', path: ['items', { key: 2 }, 'a/b'] }), {
      path: '/items/2/a~1b',
      message: 'items[2]."a/b": bad',
    });
    assert.deepEqual(fromStandardIssue({ message: 'bad', path: [Symbol('secret')] }), { path: '/secret', message: 'secret: bad' });
    assert.deepEqual(fromStandardIssue({ message: '' }), { path: '', message: 'is invalid' });
  });
});

describe('toSchemaAdapter with plain JSON Schema', () => {
  const schema = () => ({
    type: 'object',
    properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 } },
    required: ['city'],
    additionalProperties: false,
  });

  it('puts the very same object on the wire and never changes it', () => {
    const original = schema();
    const before = structuredClone(original);
    const adapter = toSchemaAdapter(original);
    assert.equal(adapter.jsonSchema, original);
    adapter.validate({ city: 'Paris' });
    adapter.validate({ days: 0 });
    assert.deepEqual(original, before);
  });

  it('returns the input value itself on success, and field-named issues on failure', () => {
    const adapter = toSchemaAdapter(schema());
    const input = { city: 'Paris', days: 3 };
    const result = adapter.validate(input);
    assert.equal(success(result as ValidationResult), input);
    assert.deepEqual(failure(adapter.validate({ city: 'Paris', days: 0 }) as ValidationResult), [{ path: '/days', message: 'days must be at least 1' }]);
    assert.deepEqual(failure(adapter.validate({ town: 'x' }) as ValidationResult), [{ path: '/city', message: 'city is required' }]);
  });

  it('compiles lazily, once, with the validator it was given', () => {
    const validator = new AjvJsonSchemaValidator();
    const adapter = toSchemaAdapter(schema(), validator);
    assert.equal(validator.compiledCount, 0);
    adapter.validate({ city: 'x' });
    adapter.validate({ city: 'y' });
    assert.equal(validator.compiledCount, 1);
    const eager = toSchemaAdapter({ type: 'string' }, validator);
    eager.prepare();
    assert.equal(validator.compiledCount, 2);
  });

  it('refuses a foreign dialect, a remote $ref and a non-schema at once (when registered, not on the first call)', () => {
    schemaError(() => toSchemaAdapter({ $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' }), 'unsupported_dialect');
    schemaError(() => toSchemaAdapter({ type: 'object', properties: { a: { $ref: 'https://example.com/a.json' } } }), 'unresolved_ref');
    schemaError(() => toSchemaAdapter([] as unknown as object), 'invalid_schema');
  });
});
