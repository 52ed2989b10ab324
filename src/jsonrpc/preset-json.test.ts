import assert from 'node:assert/strict';
import { test } from 'node:test';
import { presetJson, stringifyResponse } from './preset-json.js';

const identity = () => presetJson({ 'io.modelcontextprotocol/serverInfo': { name: 'srv', version: '1.0.0' } });

test('a preset _meta is spliced in: the text parses to the same response, the result is unchanged', () => {
  const meta = identity();
  const result = { _meta: meta, resultType: 'complete', content: [{ type: 'text', text: 'he said "}}"' }] };
  const text = stringifyResponse(7, result);
  assert.ok(text.endsWith(',"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"srv","version":"1.0.0"}}}}'), 'spliced at the end of the result');
  assert.deepEqual(JSON.parse(text), {
    jsonrpc: '2.0',
    id: 7,
    result: {
      resultType: 'complete',
      content: [{ type: 'text', text: 'he said "}}"' }],
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'srv', version: '1.0.0' } },
    },
  });
  assert.equal(result._meta, meta, 'the result gets its _meta back');
  assert.deepEqual(Object.keys(result), ['_meta', 'resultType', 'content']);
});

test('a result holding only the preset _meta, and string ids', () => {
  const meta = identity();
  assert.deepEqual(JSON.parse(stringifyResponse('a', { _meta: meta })), {
    jsonrpc: '2.0',
    id: 'a',
    result: { _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'srv', version: '1.0.0' } } },
  });
});

test('everything else is plain JSON.stringify', () => {
  const meta = identity();
  const cases: unknown[] = [
    { content: [] }, // no _meta
    { _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'srv', version: '1.0.0' } } }, // an equal object that is not the preset one
    // below, `_meta` comes first: a splice would move it last, so these compare the text
    Object.freeze({ _meta: meta, x: 1 }), // cannot be written: not spliced, still right
    { _meta: meta, x: 1, toJSON: () => ({ replaced: true }) }, // its own serialization wins
    Object.assign(Object.create({ inherited: 1 }) as object, { _meta: meta, x: 1 }), // not a plain object
    {},
  ];
  for (const result of cases) assert.equal(stringifyResponse(1, result), JSON.stringify({ jsonrpc: '2.0', id: 1, result }));
});

test('a preset object is deeply frozen, so its text cannot go stale', () => {
  const meta = identity();
  assert.ok(Object.isFrozen(meta));
  assert.ok(Object.isFrozen(meta['io.modelcontextprotocol/serverInfo']));
  assert.throws(() => {
    (meta['io.modelcontextprotocol/serverInfo'] as { name: string }).name = 'other';
  }, TypeError);
});

test('serializeMessage is the one seam: responses splice the preset on every transport (stdio line, in-memory, HTTP)', async () => {
  const { encodeLine } = await import('../framing/ndjson.js');
  const { serializeMessage } = await import('./preset-json.js');
  // The `_meta` member's position proves which serializer ran: JSON.stringify keeps it first,
  // the splice writes it last.
  const response = { jsonrpc: '2.0', id: 3, result: { _meta: identity(), content: [] } };
  const spliced = '{"jsonrpc":"2.0","id":3,"result":{"content":[],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"srv","version":"1.0.0"}}}}';
  assert.equal(serializeMessage(response), spliced);
  assert.equal(encodeLine(response), spliced + '\n', 'the stdio line writer goes through the seam');
  // requests, notifications, errors and batches are plain JSON.stringify
  for (const m of [
    { jsonrpc: '2.0', id: 1, method: 'x', params: { result: 1 } },
    { jsonrpc: '2.0', method: 'n' },
    { jsonrpc: '2.0', id: 2, error: { code: 1, message: 'm' } },
    [response],
  ]) {
    assert.equal(serializeMessage(m), JSON.stringify(m));
  }
});
