/**
 * Type tests: handler argument and result types inferred from schemas. These are checked by
 * the compiler (`npm test` builds first): an inference that regresses to `any` or to a wrong
 * type fails the build through the `expect<...>()` assertions and the `@ts-expect-error` cases.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type } from 'arktype';
import * as v from 'valibot';
import * as z from 'zod';
import { z as z3 } from 'zod3';
import { registerAppTool } from '../extensions/apps/server.js';
import type { CallToolResult } from '../types.js';
import type { FromJsonSchema, PromptArgs, ToolArgs, ToolStructured } from './infer.js';
import { McpServer } from './server.js';
import type { ToolContentResult, ToolReturn, ToolStructuredResult } from './tool-return.js';

type IsAny<T> = 0 extends 1 & T ? true : false;
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** Compiles only when `T` is `true`: a type assertion written as a statement, so nothing is left unused. */
function expect<_T extends true>(): void {}
type NotAny<T> = IsAny<T> extends true ? false : true;

const server = new McpServer({ name: 'types', version: '1.0.0' });

// ── zod 4: the handler gets the schema's output (defaults applied) ──
server.registerTool('z4', { inputSchema: z.object({ city: z.string(), days: z.number().default(1) }) }, (args) => {
  expect<Equal<typeof args, { city: string; days: number }>>();
  // @ts-expect-error city is a string
  const n: number = args.city;
  return `${args.city} ${args.days} ${n}`;
});
// @ts-expect-error a handler declaring other arguments than the schema does not compile
server.registerTool('z4-wrong', { inputSchema: z.object({ city: z.string() }) }, (args: { town: number }) => String(args.town));

// ── zod 3, valibot, arktype ──
server.registerTool('z3', { inputSchema: z3.object({ city: z3.string(), n: z3.number().optional() }) }, (args) => {
  expect<Equal<typeof args, { city: string; n?: number | undefined }>>();
  return args.city;
});
server.registerTool('valibot', { inputSchema: v.object({ city: v.string() }) }, (args) => {
  expect<Equal<typeof args, { city: string }>>();
  return args.city;
});
server.registerTool('arktype', { inputSchema: type({ city: 'string', 'n?': 'number' }) }, (args) => {
  expect<Equal<typeof args, { city: string; n?: number }>>();
  return args.city;
});

// ── plain JSON Schema literals, no `as const` needed ──
server.registerTool(
  'json',
  {
    inputSchema: {
      type: 'object',
      properties: {
        city: { type: 'string' },
        days: { type: 'integer' },
        unit: { enum: ['c', 'f'] },
        tags: { type: 'array', items: { type: 'string' } },
        at: { type: 'object', properties: { lat: { type: 'number' } }, required: ['lat'] },
        note: { type: ['string', 'null'] },
      },
      required: ['city', 'unit'],
    },
    outputSchema: { type: 'object', properties: { temp: { type: 'number' } }, required: ['temp'] },
  },
  (args) => {
    expect<Equal<typeof args, { city: string; unit: 'c' | 'f'; days?: number; tags?: string[]; at?: { lat: number }; note?: string | null }>>();
    return { structuredContent: { temp: args.days ?? 20 } };
  },
);
server.registerTool(
  'json-out',
  { outputSchema: { type: 'object', properties: { temp: { type: 'number' } }, required: ['temp'] } },
  // @ts-expect-error structuredContent must match the output schema
  () => ({ structuredContent: { temp: 'warm' } }),
);
server.registerTool('z-out', { outputSchema: z.object({ temp: z.number() }) }, () => ({ structuredContent: { temp: 3 } }));
// @ts-expect-error a zod output schema types structuredContent too
server.registerTool('z-out-wrong', { outputSchema: z.object({ temp: z.number() }) }, () => ({ structuredContent: { temp: '3' } }));

// ── no schema: no arguments; a schema of unknown shape: unknown values, never any ──
server.registerTool('none', {}, (args) => {
  expect<Equal<typeof args, Record<string, never>>>();
  return 'ok';
});
const dynamic: Record<string, unknown> = { type: 'object' };
server.registerTool('dynamic', { inputSchema: dynamic }, (args) => {
  expect<Equal<typeof args, Record<string, unknown>>>();
  expect<NotAny<(typeof args)[string]>>();
  return 'ok';
});

// ── what a handler returns: exactly a string, a result with content, or structuredContent ──
// @ts-expect-error a result needs "content" or "structuredContent"
server.registerTool('ret-text', {}, () => ({ text: 'hi' }));
// @ts-expect-error content is an array of content blocks
server.registerTool('ret-content-string', {}, () => ({ content: 'hello' }));
// @ts-expect-error "contents" is not a member of a tool result
server.registerTool('ret-contents', {}, () => ({ contents: [{ type: 'text', text: 'x' }] }));
// @ts-expect-error nor is "result", also from an async handler
server.registerTool('ret-result', {}, async () => ({ result: 42 }));
// @ts-expect-error a content block has a known type and its members
server.registerTool('ret-block', {}, () => ({ content: [{ type: 'txt', text: 'x' }] }));
// @ts-expect-error a tool with an output schema returns structuredContent, not text
server.registerTool('ret-out-text', { outputSchema: z.object({ n: z.number() }) }, () => 'text');
// @ts-expect-error ... nor content without isError: true
server.registerTool('ret-out-content', { outputSchema: v.object({ n: v.number() }) }, () => ({ content: [{ type: 'text', text: 'x' }] }));
// @ts-expect-error structuredContent typed from an arktype output schema
server.registerTool('ret-ark', { outputSchema: type({ n: 'number' }) }, () => ({ structuredContent: { n: 'one' } }));
// @ts-expect-error structuredContent typed from a zod 3 output schema
server.registerTool('ret-z3', { outputSchema: z3.object({ n: z3.number() }) }, async () => ({ structuredContent: { m: 1 } }));
const full: CallToolResult = { content: [{ type: 'text', text: 'x' }] };
server.registerTool('ret-ok', {}, async (_args, ctx) => (ctx === undefined ? 'text' : Math.random() > 0.5 ? full : { structuredContent: { any: 1 } }));
server.registerTool('ret-out-ok', { outputSchema: z3.object({ n: z3.number() }) }, async () =>
  Math.random() > 0.5 ? { structuredContent: { n: 1 } } : { content: [{ type: 'text', text: 'failed' }], isError: true },
);
expect<Equal<ToolReturn, string | ToolContentResult | ToolStructuredResult>>();
// the same through mcpkit/apps' registerAppTool (ToolHandlerFor: the output schema's type comes from the config alone)
registerAppTool(server, 'app-ok', { ui: { resourceUri: 'ui://a' } }, async () => full);
registerAppTool(server, 'app-out', { ui: { resourceUri: 'ui://a' }, outputSchema: z.object({ n: z.number() }) }, () => ({ structuredContent: { n: 1 } }));
registerAppTool(
  server,
  'app-out-wrong',
  { ui: { resourceUri: 'ui://a' }, outputSchema: z.object({ n: z.number() }) },
  // @ts-expect-error structuredContent typed from the app tool's output schema
  () => ({ structuredContent: { n: '1' } }),
);

// ── prompts: arguments typed from their declaration ──
server.registerPrompt('greet', { arguments: [{ name: 'name', required: true }, { name: 'tone' }] }, (args) => {
  expect<Equal<typeof args, { name: string; tone?: string }>>();
  return { messages: [{ role: 'user', content: { type: 'text', text: `Hello ${args.name}` } }] };
});
server.registerPrompt('greet-wrong', { arguments: [{ name: 'name', required: true }] }, (args) => {
  // @ts-expect-error tone is not declared
  const tone: string = args.tone;
  return { messages: [{ role: 'user', content: { type: 'text', text: tone } }] };
});

// ── the building blocks ──
expect<Equal<FromJsonSchema<{ type: 'array'; prefixItems: [{ type: 'string' }, { type: 'number' }] }>, [string, number]>>();
expect<Equal<FromJsonSchema<{ anyOf: [{ type: 'string' }, { const: 1 }] }>, string | 1>>();
expect<Equal<FromJsonSchema<{ $ref: '#/x' }>, unknown>>();
expect<NotAny<ToolArgs<{ type: 'object' }>>>();
expect<Equal<ToolStructured<undefined>, Record<string, unknown>>>();
expect<Equal<PromptArgs<readonly { name: string; required?: boolean }[]>, Record<string, string | undefined>>>();

test('the type assertions of this file compiled (npm test builds before it runs)', () => {
  assert.equal(server.tools.size, 25);
});
