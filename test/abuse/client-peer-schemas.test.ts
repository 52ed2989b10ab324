/**
 * The client against a server whose tool `outputSchema` is built to stall it: catastrophic
 * backtracking patterns, patterns in `patternProperties`, exponential `$ref`/`anyOf` chains,
 * patterns RE2 cannot run, and the slow `url` format. Each call must answer quickly (the
 * event loop is never blocked for long) and either check the value or refuse the schema with
 * a clear LocalError.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client } from '../../src/client/client.js';
import { LocalError } from '../../src/jsonrpc/errors.js';
import type { JSONObject } from '../../src/jsonrpc/types.js';
import { hostileServer } from './hostile-server.js';

/** Well above what the checks take, far below what the attacks cost on a backtracking engine. */
const QUICK_MS = 1500;

async function callWith(outputSchema: JSONObject, structuredContent: JSONObject): Promise<{ ms: number; outcome: unknown }> {
  const transport = hostileServer({
    tools: [{ name: 't', inputSchema: { type: 'object' }, outputSchema }],
    call: () => ({ content: [], structuredContent }),
  });
  const client = new Client({ name: 'c', version: '1' });
  await client.connect(transport);
  try {
    await client.listTools();
    const started = performance.now();
    const outcome = await client.callTool({ name: 't', arguments: {} }).then(
      (r) => r,
      (e: unknown) => e,
    );
    return { ms: performance.now() - started, outcome };
  } finally {
    await client.close();
  }
}

describe('peer output schemas cannot stall the client', () => {
  it('a catastrophic pattern runs in linear time and still checks the value', async () => {
    const schema = { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } };
    const bad = await callWith(schema, { s: 'a'.repeat(27) + '!' });
    assert.ok(bad.ms < QUICK_MS, `took ${bad.ms} ms`);
    assert.ok(bad.outcome instanceof LocalError && bad.outcome.code === 'invalid_result', String(bad.outcome));
    assert.match((bad.outcome as Error).message, /does not match its output schema/);
    const good = await callWith(schema, { s: 'a'.repeat(40) });
    assert.ok(!(good.outcome instanceof Error), String(good.outcome));
  });

  it('patternProperties run on the same engine', async () => {
    const schema = { type: 'object', patternProperties: { '^(a|a)+$': { type: 'integer' } } };
    const { ms, outcome } = await callWith(schema, { ['a'.repeat(27) + '!']: 'x', ['a'.repeat(10)]: 'not an integer' });
    assert.ok(ms < QUICK_MS, `took ${ms} ms`);
    assert.ok(outcome instanceof LocalError && outcome.code === 'invalid_result');
  });

  it('an exponential $ref chain under anyOf is refused before it runs', async () => {
    const defs: JSONObject = {};
    for (let i = 0; i < 24; i++) defs[`a${i}`] = { anyOf: [{ $ref: `#/$defs/a${i + 1}` }, { $ref: `#/$defs/a${i + 1}` }, { type: 'number' }] };
    defs['a24'] = { type: 'string', maxLength: 0 };
    const schema = { type: 'object', properties: { v: { $ref: '#/$defs/a0' } }, $defs: defs };
    const { ms, outcome } = await callWith(schema, { v: 'x' });
    assert.ok(ms < QUICK_MS, `took ${ms} ms`);
    assert.ok(outcome instanceof LocalError && outcome.code === 'invalid_result', String(outcome));
    assert.match((outcome as Error).message, /declares an output schema this client refuses.*subschemas/);
  });

  it('a recursive $ref reached twice for the same property is refused', async () => {
    const r = { $ref: '#/$defs/r' };
    const schema = {
      $ref: '#/$defs/r',
      $defs: { r: { type: 'object', anyOf: [{ properties: { x: r } }, { properties: { x: r } }, { required: ['never'] }] } },
    };
    let value: JSONObject = {};
    for (let i = 0; i < 24; i++) value = { x: value };
    const { ms, outcome } = await callWith(schema, value);
    assert.ok(ms < QUICK_MS, `took ${ms} ms`);
    assert.ok(outcome instanceof LocalError && outcome.code === 'invalid_result', String(outcome));
  });

  it('ordinary recursive schemas (trees, any JSON value) are still checked', async () => {
    const json = {
      $defs: {
        v: {
          anyOf: [
            { type: ['string', 'number', 'boolean', 'null'] },
            { type: 'array', items: { $ref: '#/$defs/v' } },
            { type: 'object', additionalProperties: { $ref: '#/$defs/v' } },
          ],
        },
      },
    };
    const node = { type: 'object', properties: { left: { $ref: '#/$defs/node' }, right: { $ref: '#/$defs/node' }, data: { $ref: '#/$defs/v' } } };
    const tree = { $ref: '#/$defs/node', $defs: { ...json.$defs, node } };
    const ok = await callWith(tree, { left: { right: { data: [1, { a: ['x'] }] } } });
    assert.ok(!(ok.outcome instanceof Error), String(ok.outcome));
    const bad = await callWith(tree, { left: { right: { left: 3 } } });
    assert.ok(bad.outcome instanceof LocalError && /does not match/.test(bad.outcome.message), String(bad.outcome));
  });

  it('a pattern RE2 cannot run (backreference, lookahead) refuses the schema with a clear error', async () => {
    for (const pattern of ['^(a)\\1$', '^(?=a)a$']) {
      const { outcome } = await callWith({ type: 'object', properties: { s: { type: 'string', pattern } } }, { s: 'aa' });
      assert.ok(outcome instanceof LocalError && outcome.code === 'invalid_result', String(outcome));
      assert.match((outcome as Error).message, /pattern .* is refused: .*linear-time engine \(RE2\)/);
    }
  });

  it('the url format (quadratic in ajv-formats) is an annotation only', async () => {
    const { ms, outcome } = await callWith({ type: 'object', properties: { u: { type: 'string', format: 'url' } } }, { u: 'http://' + '::'.repeat(60_000) });
    assert.ok(ms < QUICK_MS, `took ${ms} ms`);
    assert.ok(!(outcome instanceof Error), String(outcome));
  });
});

describe('maxOutputSchemaWork', () => {
  it('tightens the bound: a modest fan-out is refused under a small limit', async () => {
    const defs: JSONObject = {};
    for (let i = 0; i < 6; i++) defs[`a${i}`] = { anyOf: [{ $ref: `#/$defs/a${i + 1}` }, { $ref: `#/$defs/a${i + 1}` }] };
    defs['a6'] = { type: 'string' };
    const schema = { type: 'object', properties: { v: { $ref: '#/$defs/a0' } }, $defs: defs };
    const transport = hostileServer({
      tools: [{ name: 't', inputSchema: { type: 'object' }, outputSchema: schema }],
      call: () => ({ content: [], structuredContent: { v: 'x' } }),
    });
    const client = new Client({ name: 'c', version: '1' }, { maxOutputSchemaWork: 32 });
    await client.connect(transport);
    try {
      await assert.rejects(client.callTool({ name: 't', arguments: {} }), (e: unknown) => e instanceof LocalError && /more than 32 subschemas/.test(e.message));
    } finally {
      await client.close();
    }
  });
});
