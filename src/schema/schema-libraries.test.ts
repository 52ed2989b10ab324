/**
 * Every schema library the registries name: zod 4 and arktype describe themselves (Standard
 * JSON Schema); valibot 1.x and zod 3 are described by their own converter packages
 * (`@valibot/to-json-schema`, `zod-to-json-schema`), loaded on first use. The wire form is
 * JSON Schema 2020-12 (SEP-1613) and validation is the library's own.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type } from 'arktype';
import * as v from 'valibot';
import * as z4 from 'zod';
import { z as z3 } from 'zod3';
import { defaultJsonSchemaValidator } from './ajv-validator.js';
import { toSchemaAdapter } from './standard-schema.js';
import { checkJsonSchema } from './strict-check.js';
import type { SchemaAdapter } from './types.js';

const CITY = {
  zod4: () => z4.object({ city: z4.string().min(2), days: z4.number().int().default(1) }),
  zod3: () => z3.object({ city: z3.string().min(2), days: z3.number().int().default(1) }),
  valibot: () => v.object({ city: v.pipe(v.string(), v.minLength(2)), days: v.optional(v.pipe(v.number(), v.integer()), 1) }),
  arktype: () => type({ city: 'string >= 2', 'days?': 'number.integer' }),
};

async function wire(adapter: SchemaAdapter): Promise<Record<string, unknown>> {
  await adapter.ready;
  return adapter.jsonSchema;
}

describe('schema libraries', () => {
  for (const [library, make] of Object.entries(CITY)) {
    it(`${library}: an object schema goes on the wire as 2020-12 JSON Schema and validates with the library`, async () => {
      const adapter = toSchemaAdapter(make(), undefined, { requireObject: `inputSchema of tool "${library}"` });
      const json = await wire(adapter);
      assert.equal(json['type'], 'object');
      assert.equal(json['$schema'], undefined, 'the default dialect is not declared');
      const properties = json['properties'] as Record<string, { type?: unknown }>;
      assert.equal(properties['city']?.type, 'string');
      assert.deepEqual(json['required'], ['city']);
      checkJsonSchema(json, 'draft-2020-12', { unknownKeywords: false });
      // the wire schema agrees with the library on what is valid
      const compiled = defaultJsonSchemaValidator().compile(json);
      assert.equal(compiled({ city: 'Oslo' }).valid, true);
      assert.equal(compiled({ city: 7 }).valid, false);

      const good = await adapter.validate({ city: 'Oslo' });
      assert.equal(good.valid, true);
      const bad = await adapter.validate({ city: 'O' });
      assert.equal(bad.valid, false);
      assert.equal(bad.valid ? '' : bad.errors[0]?.path, '/city');
    });

    it(`${library}: a non-object schema is refused as a tool schema`, async () => {
      const scalar = library === 'zod4' ? z4.string() : library === 'zod3' ? z3.string() : library === 'valibot' ? v.string() : type('string');
      let error: unknown;
      try {
        await wire(toSchemaAdapter(scalar, undefined, { requireObject: 'inputSchema of tool "t"' }));
      } catch (caught) {
        error = caught;
      }
      assert.match(String(error), /The inputSchema of tool "t" must describe an object/);
    });
  }

  it('zod 3 and valibot: a value the library transforms reaches the handler transformed; output schemas describe the output side', async () => {
    const input = toSchemaAdapter(z3.object({ n: z3.string().transform((s) => s.length) }));
    const parsed = await input.validate({ n: 'abc' });
    assert.deepEqual(parsed.valid ? parsed.value : undefined, { n: 3 });
    const output = toSchemaAdapter(v.object({ total: v.number() }), undefined, { io: 'output', requireObject: 'outputSchema of tool "t"' });
    assert.deepEqual((await wire(output))['required'], ['total']);
  });

  it('a conversion the converter cannot express fails the ready promise with the reason', async () => {
    const adapter = toSchemaAdapter(v.object({ when: v.function() }));
    await assert.rejects(adapter.ready ?? Promise.resolve(), /cannot be expressed as JSON Schema|produced/);
  });
});
