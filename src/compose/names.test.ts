/**
 * Naming rules (names.ts): namespaced tool/prompt names and their split, prefix and separator
 * validation, and the reversible, collision-free rewrite of resource URIs and templates.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UriTemplate } from '../server/uri-template.js';
import { isValidToolName, namespaceName, namespaceUri, splitName, splitUri, validatePrefix, validateScheme, validateSeparator } from './names.js';

describe('compose/names: tool and prompt names', () => {
  it('prefix + separator + name, and back at the first separator (the name keeps its own separators)', () => {
    assert.equal(namespaceName('mem', 'read_graph'), 'mem_read_graph');
    assert.deepEqual(splitName('mem_read_graph'), { prefix: 'mem', name: 'read_graph' });
    assert.equal(namespaceName('fs', 'read.file', '.'), 'fs.read.file');
    assert.deepEqual(splitName('fs.read.file', '.'), { prefix: 'fs', name: 'read.file' });
    assert.deepEqual(splitName('a__b', '__'), { prefix: 'a', name: 'b' });
  });

  it('the empty prefix merges (names unchanged); names without a separator or with an empty side do not split', () => {
    assert.equal(namespaceName('', 'echo'), 'echo');
    assert.equal(splitName('echo'), undefined);
    assert.equal(splitName('_echo'), undefined);
    assert.equal(splitName('echo_'), undefined);
  });

  it('prefixes: the tool name alphabet, no separator inside, at most 64 characters', () => {
    for (const ok of ['', 'a', 'fs-1', 'A.b']) validatePrefix(ok);
    validatePrefix('a_b', '.');
    assert.throws(() => validatePrefix('a_b'), /contains the separator "_"/);
    assert.throws(() => validatePrefix('a.b', '.'), /contains the separator/);
    for (const bad of ['a b', 'a/b', 'é', 'a:b', 'x'.repeat(65)]) assert.throws(() => validatePrefix(bad), /must be 1-64 characters/, bad);
    assert.throws(() => validatePrefix(7 as unknown as string), /must be a string/);
  });

  it('separators: 1-8 characters of the tool name alphabet', () => {
    for (const ok of ['_', '.', '-', '__']) validateSeparator(ok);
    for (const bad of ['', '/', ' ', ':', '123456789']) assert.throws(() => validateSeparator(bad), /Separator/, bad);
    assert.throws(() => validatePrefix('a', '/'), /Separator/);
  });

  it('isValidToolName follows SEP-986 (1-128 of A-Z a-z 0-9 _ - .)', () => {
    assert.equal(isValidToolName('a'.repeat(128)), true);
    assert.equal(isValidToolName('a'.repeat(129)), false);
    assert.equal(isValidToolName(''), false);
    assert.equal(isValidToolName('a b'), false);
    assert.equal(isValidToolName(namespaceName('p', 'x.y-z')), true);
  });
});

describe('compose/names: resource URIs and templates', () => {
  it('rewrites and reverses exactly, hostile originals included', () => {
    const originals = [
      'file:///etc/passwd',
      'memory://graph',
      'a',
      '',
      '../../x',
      'mcpkit+mount://other/secret',
      'x://y/%2e%2e/%2F?q=1#f',
      'demo://{id}',
      'urn:é:\u0000',
    ];
    for (const uri of originals) {
      const outer = namespaceUri('mem', uri);
      assert.ok(outer.startsWith('mcpkit+mount://mem/'), outer);
      assert.deepEqual(splitUri(outer), { prefix: 'mem', name: uri }, uri);
    }
  });

  it('is collision-free across prefixes: no original under one prefix equals a URI under another', () => {
    const a = namespaceUri('a', 'b/x');
    const ab = namespaceUri('a.b', 'x');
    assert.notEqual(a, ab);
    assert.equal(splitUri(a)?.prefix, 'a');
    assert.equal(splitUri(namespaceUri('a', 'mcpkit+mount://b/x'))?.prefix, 'a', 'a nested rewritten URI stays with its own source');
  });

  it('not a rewritten URI: another scheme, no prefix, no slash, a prefix with other characters', () => {
    for (const uri of [
      'file:///x',
      'mcpkit+mount://',
      'mcpkit+mount:///x',
      'mcpkit+mount://mem',
      'mcpkit+mount://u@h/x',
      'mcpkit+mount://h:1/x',
      'mcpkit+mountx://a/b',
    ]) {
      assert.equal(splitUri(uri), undefined, uri);
    }
    assert.deepEqual(splitUri('MCPKIT+MOUNT://mem/x'), { prefix: 'mem', name: 'x' }, 'the scheme compares case-insensitively');
  });

  it('the empty prefix keeps URIs; the scheme is a parameter', () => {
    assert.equal(namespaceUri('', 'file:///x'), 'file:///x');
    assert.equal(namespaceUri('p', 'file:///x', 'pool'), 'pool://p/file:///x');
    assert.deepEqual(splitUri('pool://p/file:///x', 'pool'), { prefix: 'p', name: 'file:///x' });
    validateScheme('mcpkit+mount');
    for (const bad of ['', '1x', 'a b', 'a:']) assert.throws(() => validateScheme(bad), /URI scheme/, bad);
  });

  it('a rewritten template expands to the rewritten expansion (completion and read match the same URI)', () => {
    const template = 'demo://resource/{id}{?q}';
    const outer = new UriTemplate(namespaceUri('d', template));
    const vars = { id: 'a/b c', q: 'x' };
    const expanded = outer.expand(vars);
    assert.equal(expanded, namespaceUri('d', new UriTemplate(template).expand(vars)));
    assert.deepEqual(outer.match(expanded), { id: 'a/b c', q: 'x' }, 'the rewritten template matches its own expansion');
  });
});
