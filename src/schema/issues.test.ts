import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dialectOf, dialectOfUri } from './dialect.js';
import { appendPointer, fieldLabel, formatIssues, pointerFromSegments, showChoices, showValue } from './issues.js';
import { SchemaError } from './types.js';

describe('issue paths and labels', () => {
  it('builds escaped JSON Pointers', () => {
    assert.equal(appendPointer('', 'a/b~c'), '/a~1b~0c');
    assert.equal(appendPointer('/list', 3), '/list/3');
    assert.equal(pointerFromSegments(['a', 0, 'b c']), '/a/0/b c');
    assert.equal(pointerFromSegments([]), '');
  });

  it('names fields the way people write them', () => {
    assert.equal(fieldLabel(''), 'value');
    assert.equal(fieldLabel('/address/zip'), 'address.zip');
    assert.equal(fieldLabel('/items/2/name'), 'items[2].name');
    assert.equal(fieldLabel('/0'), 'value[0]');
    assert.equal(fieldLabel('/first name'), '"first name"');
    assert.equal(fieldLabel('/a~1b/c~0d'), '"a/b"."c~d"');
    assert.equal(fieldLabel('/x-mcp/$ref'), 'x-mcp.$ref');
  });

  it('joins messages one per line', () => {
    assert.equal(formatIssues([]), '');
    assert.equal(
      formatIssues([
        { path: '/a', message: 'a is required' },
        { path: '/b', message: 'b must be a string' },
      ]),
      'a is required\nb must be a string',
    );
  });

  it('renders values and choices compactly', () => {
    assert.equal(showValue('x'), '"x"');
    assert.equal(showValue('y'.repeat(100)).length, 60);
    assert.equal(showValue(10n), '10');
    assert.equal(showChoices(['a', 1, null]), '"a", 1, null');
    assert.match(showChoices(Array.from({ length: 12 }, (_, i) => i)), /, … \(12 in all\)$/);
  });
});

describe('dialects', () => {
  it('maps $schema URIs', () => {
    assert.equal(dialectOfUri('https://json-schema.org/draft/2020-12/schema'), 'draft-2020-12');
    assert.equal(dialectOfUri('http://json-schema.org/draft-07/schema#'), 'draft-07');
    assert.equal(dialectOfUri('https://json-schema.org/draft-07/schema'), 'draft-07');
    assert.equal(dialectOfUri('https://json-schema.org/draft/2019-09/schema'), undefined);
    assert.equal(dialectOfUri('ftp://json-schema.org/draft-07/schema'), undefined);
    assert.equal(dialectOfUri('http://json-schema.org/draft-07/schema#/definitions'), undefined);
  });

  it('defaults to 2020-12 and refuses the rest', () => {
    assert.equal(dialectOf({}), 'draft-2020-12');
    assert.equal(dialectOf(true), 'draft-2020-12');
    assert.equal(dialectOf({ $schema: 'http://json-schema.org/draft-07/schema#' }), 'draft-07');
    assert.throws(
      () => dialectOf({ $schema: 'https://example.com/my-dialect' }),
      (e: unknown) => e instanceof SchemaError && e.code === 'unsupported_dialect',
    );
    assert.throws(() => dialectOf({ $schema: null }), SchemaError);
  });
});
