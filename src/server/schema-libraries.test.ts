/**
 * One end-to-end test per schema library (zod 4, zod 3, valibot, arktype) through a real
 * server and client (in memory, every message checked against the official schema): the tool
 * is listed with a 2020-12 object schema (SEP-1613), valid arguments reach the handler parsed,
 * invalid ones are a tool error naming the field (SEP-1303), and the output schema is enforced.
 * Then the registration checks: schemas that are not object schemas, raw shapes and broken
 * JSON Schemas are refused when registered, with the JSON Pointer of the problem.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type } from 'arktype';
import * as v from 'valibot';
import * as z from 'zod';
import { z as z3 } from 'zod3';
import { SchemaError } from '../schema/types.js';
import { connectInMemory } from '../testing/index.js';
import { McpServer } from './server.js';

type Lib = 'zod 4' | 'zod 3' | 'valibot' | 'arktype';

function register(server: McpServer, lib: Lib): void {
  const text = (city: string, days: number) => ({ structuredContent: { summary: `${city} for ${days} days` } });
  switch (lib) {
    case 'zod 4':
      server.registerTool(
        'forecast',
        { inputSchema: z.object({ city: z.string().min(2), days: z.number().int().default(3) }), outputSchema: z.object({ summary: z.string() }) },
        ({ city, days }) => text(city, days),
      );
      return;
    case 'zod 3':
      server.registerTool(
        'forecast',
        { inputSchema: z3.object({ city: z3.string().min(2), days: z3.number().int().default(3) }), outputSchema: z3.object({ summary: z3.string() }) },
        ({ city, days }) => text(city, days),
      );
      return;
    case 'valibot':
      server.registerTool(
        'forecast',
        {
          inputSchema: v.object({ city: v.pipe(v.string(), v.minLength(2)), days: v.optional(v.pipe(v.number(), v.integer()), 3) }),
          outputSchema: v.object({ summary: v.string() }),
        },
        ({ city, days }) => text(city, days),
      );
      return;
    case 'arktype':
      server.registerTool(
        'forecast',
        { inputSchema: type({ city: 'string >= 2', days: 'number.integer = 3' }), outputSchema: type({ summary: 'string' }) },
        ({ city, days }) => text(city, days),
      );
      return;
  }
}

describe('schema libraries end to end', () => {
  for (const lib of ['zod 4', 'zod 3', 'valibot', 'arktype'] as const) {
    it(`${lib}: listed as an object schema, validated, parsed, output enforced`, async () => {
      const server = new McpServer({ name: 'weather', version: '1.0.0' });
      register(server, lib);
      const pair = await connectInMemory(server);
      try {
        const [tool] = await pair.client.listAllTools();
        assert.equal(tool?.inputSchema['type'], 'object');
        assert.equal(tool?.inputSchema['$schema'], undefined);
        assert.deepEqual(tool?.inputSchema['required'], ['city']);
        assert.equal((tool?.outputSchema?.['properties'] as Record<string, { type: string }> | undefined)?.['summary']?.type, 'string');

        const ok = await pair.client.callTool({ name: 'forecast', arguments: { city: 'Oslo' } });
        assert.equal(ok.isError, undefined);
        assert.deepEqual(ok.structuredContent, { summary: 'Oslo for 3 days' }, 'the default was applied by the library');

        const bad = await pair.client.callTool({ name: 'forecast', arguments: { city: 'O', days: 1.5 } });
        assert.equal(bad.isError, true);
        const message = JSON.stringify(bad.content);
        assert.match(message, /Invalid arguments for tool forecast/);
        assert.match(message, /city/);
      } finally {
        await pair.close();
      }
    });
  }
});

describe('checks at registration', () => {
  const server = new McpServer({ name: 'checks', version: '1.0.0' });
  const refuses = (fn: () => unknown, pattern: RegExp) =>
    assert.throws(fn, (error: unknown) => error instanceof SchemaError && pattern.test(error.message), `expected a SchemaError matching ${pattern}`);

  it('refuses input and output schemas that are not object schemas', () => {
    refuses(() => server.registerTool('a', { inputSchema: z.string() }, () => 'x'), /inputSchema of tool "a" must describe an object/);
    refuses(
      () => server.registerTool('b', { inputSchema: { type: 'array' } }, () => 'x'),
      /inputSchema of tool "b" must describe an object .* has type "array"/,
    );
    refuses(
      () => server.registerTool('c', { outputSchema: v.string() }, () => ({ structuredContent: 'x' })),
      /outputSchema of tool "c" must describe an object/,
    );
  });

  it('refuses a raw shape of zod schemas with what to write', () => {
    refuses(() => server.registerTool('d', { inputSchema: { city: z.string() } as never }, () => 'x'), /raw shape.*"city" is a zod schema.*z\.object/);
  });

  it('refuses broken JSON Schemas with the JSON Pointer, before the first call', () => {
    refuses(
      () => server.registerTool('e', { inputSchema: { type: 'object', properties: { city: { type: 'strin' } } } as never }, () => 'x'),
      /"\/properties\/city\/type" "strin" is not a JSON Schema type \(did you mean "string"\?\)/,
    );
    refuses(
      () => server.registerTool('f', { inputSchema: { type: 'object', properties: { name: { type: 'string', minLenght: 2 } } } }, () => 'x'),
      /"\/properties\/name\/minLenght" .*did you mean "minLength"/,
    );
    refuses(() => server.registerTool('g', { inputSchema: { type: 'object', requird: ['name'] } }, () => 'x'), /"\/requird" .*did you mean "required"/);
    assert.equal(server.tools.size, 0, 'nothing was registered');
  });

  it('a conversion that fails after registration fails connect() and is reported', async () => {
    const errors: Error[] = [];
    const late = new McpServer({ name: 'late', version: '1.0.0' }, { onError: (e) => errors.push(e) });
    late.registerTool('fn', { inputSchema: v.object({ callback: v.function() }) }, () => 'x');
    await assert.rejects(connectInMemory(late), /valibot schema cannot be expressed as JSON Schema/);
    assert.equal(errors.length, 1);
    assert.equal(late.tools.size, 0, 'the tool was dropped');
  });
});
