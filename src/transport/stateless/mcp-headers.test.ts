import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { argumentAt, decodeHeaderValue, encodeHeaderValue, headerMatches, mcpNameSource, paramHeaders } from './mcp-headers.js';

describe('stateless-era request headers', () => {
  it('encodes unsafe values with the base64 sentinel (the spec examples)', () => {
    assert.equal(encodeHeaderValue('us-west1'), 'us-west1');
    assert.equal(encodeHeaderValue('us west 1'), 'us west 1');
    assert.equal(encodeHeaderValue(''), '');
    assert.equal(encodeHeaderValue('Hello, 世界'), '=?base64?SGVsbG8sIOS4lueVjA==?=');
    assert.equal(encodeHeaderValue(' padded '), '=?base64?IHBhZGRlZCA=?=');
    assert.equal(encodeHeaderValue('line1\nline2'), '=?base64?bGluZTEKbGluZTI=?=');
    assert.equal(encodeHeaderValue('=?base64?literal?='), '=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=');
    assert.equal(encodeHeaderValue('\tindented'), `=?base64?${Buffer.from('\tindented').toString('base64')}?=`);
  });

  it('decodes strictly: whitespace trimmed, padding and alphabet checked, UTF-8 required', () => {
    for (const text of ['us-west1', 'Hello, 世界', ' padded ', 'line1\r\nline2', '=?base64?literal?=', ''])
      assert.equal(decodeHeaderValue(encodeHeaderValue(text)), text);
    assert.equal(decodeHeaderValue('  echo  '), 'echo');
    assert.equal(decodeHeaderValue('SGVsbG8='), 'SGVsbG8=', 'no sentinel: literal');
    assert.equal(decodeHeaderValue('=?base64?SGVsbG8='), '=?base64?SGVsbG8=', 'no suffix: literal');
    assert.equal(decodeHeaderValue('=?base64?SGVsbG8?='), undefined, 'missing padding');
    assert.equal(decodeHeaderValue('=?base64?SGVs!!!bG8=?='), undefined, 'bad alphabet');
    assert.equal(decodeHeaderValue(`=?base64?${btoa('\xff\xfe')}?=`), undefined, 'not UTF-8');
    assert.equal(decodeHeaderValue('caf\u00e9'), undefined, 'raw non-ASCII');
  });

  it('compares header text with body values by type', () => {
    assert.ok(headerMatches('42', 42));
    assert.ok(headerMatches('42.0', 42));
    assert.ok(!headerMatches('', 0));
    assert.ok(headerMatches('true', true) && !headerMatches('True', true));
    assert.ok(headerMatches('x', 'x') && !headerMatches('X', 'x'));
  });

  it('finds the Mcp-Name source and argument paths', () => {
    assert.equal(mcpNameSource('tools/call', { name: 't' }), 't');
    assert.equal(mcpNameSource('prompts/get', { name: 'p' }), 'p');
    assert.equal(mcpNameSource('resources/read', { uri: 'u://x' }), 'u://x');
    assert.equal(mcpNameSource('tools/list', { name: 't' }), undefined);
    assert.equal(argumentAt({ a: { b: 1 } }, ['a', 'b']), 1);
    assert.equal(argumentAt({ a: null }, ['a']), undefined);
    assert.equal(argumentAt({ a: 1 }, ['a', 'b']), undefined);
  });

  it('reads valid x-mcp-header annotations, nested through properties', () => {
    assert.deepEqual(
      paramHeaders({
        type: 'object',
        properties: {
          region: { type: 'string', 'x-mcp-header': 'Region' },
          n: { type: 'object', properties: { z: { type: 'integer', 'x-mcp-header': 'Zone' } } },
          q: { type: 'string' },
        },
      }),
      [
        { name: 'Region', path: ['region'], type: 'string' },
        { name: 'Zone', path: ['n', 'z'], type: 'integer' },
      ],
    );
  });

  it('refuses every invalid annotation of the conformance suite', () => {
    const bad = [
      { value: { type: 'string', 'x-mcp-header': '' } },
      { data: { type: 'object', 'x-mcp-header': 'Data' } },
      { items: { type: 'array', items: { type: 'string' }, 'x-mcp-header': 'Items' } },
      { nil: { type: 'null', 'x-mcp-header': 'Nil' } },
      { score: { type: 'number', 'x-mcp-header': 'Score' } },
      { f1: { type: 'string', 'x-mcp-header': 'Region' }, f2: { type: 'string', 'x-mcp-header': 'Region' } },
      { f1: { type: 'string', 'x-mcp-header': 'MyField' }, f2: { type: 'string', 'x-mcp-header': 'myfield' } },
      { v: { type: 'string', 'x-mcp-header': 'My Field' } },
      { v: { type: 'string', 'x-mcp-header': 'My:Field' } },
      { v: { type: 'string', 'x-mcp-header': 'Régión' } },
      { v: { type: 'string', 'x-mcp-header': 'A\r\nB' } },
    ];
    for (const properties of bad) assert.throws(() => paramHeaders({ type: 'object', properties }), TypeError, JSON.stringify(properties));
    // not statically reachable: under items, a composition keyword or $defs
    assert.throws(
      () =>
        paramHeaders({
          type: 'object',
          properties: { list: { type: 'array', items: { type: 'object', properties: { a: { type: 'string', 'x-mcp-header': 'A' } } } } },
        }),
      TypeError,
    );
    assert.throws(() => paramHeaders({ type: 'object', anyOf: [{ properties: { a: { type: 'string', 'x-mcp-header': 'A' } } }] }), TypeError);
    assert.throws(() => paramHeaders({ type: 'object', $defs: { a: { type: 'string', 'x-mcp-header': 'A' } } }), TypeError);
    assert.deepEqual(
      paramHeaders({ type: 'object', properties: { a: { type: 'string', enum: [{ 'x-mcp-header': 'ignored' }] } } }),
      [],
      'values of enum are data, not schemas',
    );
  });
});
