/**
 * ToolSearch: word splitting and term folding, ranking by the indexed fields, updates (add,
 * replace by group, remove), and the bounds on hostile input (huge descriptions, too many
 * tools, long queries, out-of-range limits). Recall on the real catalog is in
 * test/search/tool-search-recall.test.ts.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Tool } from '../types.js';
import { normalizeTerm, splitWords, TOOL_SEARCH_DEFAULTS, ToolSearch } from './tool-search.js';

const tool = (name: string, description = '', properties: Record<string, { description?: string }> = {}, extra: Partial<Tool> = {}): Tool => ({
  name,
  description,
  inputSchema: { type: 'object', properties },
  ...extra,
});

describe('splitWords', () => {
  it('splits snake, camel, kebab, dotted and acronym names', () => {
    assert.deepEqual(splitWords('create_pull_request'), ['create', 'pull', 'request']);
    assert.deepEqual(splitWords('getPullRequestFiles'), ['get', 'pull', 'request', 'files']);
    assert.deepEqual(splitWords('API-post-search'), ['api', 'post', 'search']);
    assert.deepEqual(splitWords('github.create_issue'), ['github', 'create', 'issue']);
    assert.deepEqual(splitWords('HTTPServerLogs'), ['http', 'server', 'logs']);
    assert.deepEqual(splitWords('take_heapsnapshot2'), ['take', 'heapsnapshot', '2']);
    assert.deepEqual(splitWords('  --  '), []);
  });

  it('keeps letters of any script', () => {
    assert.deepEqual(splitWords('Größe_ändern'), ['größe', 'ändern']);
  });
});

describe('normalizeTerm', () => {
  it('drops stop words and folds plurals and verb endings', () => {
    assert.equal(normalizeTerm('the'), null);
    assert.equal(normalizeTerm('files'), 'file');
    assert.equal(normalizeTerm('queries'), 'query');
    assert.equal(normalizeTerm('searching'), 'search');
    assert.equal(normalizeTerm('created'), 'create');
    assert.equal(normalizeTerm('addresses'), 'address');
    assert.equal(normalizeTerm('status'), 'status');
    assert.equal(normalizeTerm('branches'), 'branch');
  });
});

describe('ToolSearch', () => {
  const catalog = [
    tool('create_issue', 'Create a new issue in a repository', { title: { description: 'Issue title' }, body: {} }),
    tool('list_directory', 'List the entries of a folder'),
    tool('takeScreenshot', 'Capture the visible page as PNG'),
    tool('maps-geocode', 'Convert an address into coordinates', { address: { description: 'The street address' } }),
    tool('send', 'Sends something', { recipientEmail: { description: 'Who receives the mail' } }),
  ];

  it('ranks by name words, description and arguments, with scores', () => {
    const search = new ToolSearch();
    search.add(catalog);
    assert.equal(search.size, 5);
    const byName = search.search('screenshot');
    assert.equal(byName[0]?.key, 'takeScreenshot');
    assert.ok(byName[0]!.score > 0);
    assert.equal(search.search('new issues')[0]?.key, 'create_issue');
    assert.equal(search.search('coordinates of a street')[0]?.key, 'maps-geocode');
    // an argument name, split at its case change
    assert.equal(search.search('email recipient')[0]?.key, 'send');
    // a word of the description of an argument only
    assert.equal(search.search('receives')[0]?.key, 'send');
    assert.deepEqual(search.search('the of a'), [], 'stop words alone match nothing');
    assert.deepEqual(search.search('zebra'), []);
  });

  it('orders results best first and honours limit', () => {
    const search = new ToolSearch();
    search.add(Array.from({ length: 30 }, (_, i) => tool(`page_tool_${i}`, i === 7 ? 'page page page page' : 'page')));
    const hits = search.search('page', { limit: 5 });
    assert.equal(hits.length, 5);
    for (let i = 1; i < hits.length; i++) assert.ok(hits[i - 1]!.score >= hits[i]!.score);
    assert.equal(hits[0]?.key, 'page_tool_7');
  });

  it('holds tools under keys and groups: replace one group, remove, removeGroup', () => {
    const search = new ToolSearch();
    search.add([tool('create_issue', 'Create an issue')], { group: 'github', key: (t) => `github.${t.name}` });
    search.add([tool('create_issue', 'Create an issue')], { group: 'gitlab', key: (t) => `gitlab.${t.name}` });
    assert.deepEqual(
      search
        .search('issue')
        .map((h) => h.key)
        .sort(),
      ['github.create_issue', 'gitlab.create_issue'],
    );
    assert.equal(search.search('issue', { groups: ['gitlab'] })[0]?.group, 'gitlab');
    assert.equal(search.search('issue', { groups: ['gitlab'] }).length, 1);

    // the gitlab server's list changed: its tools are replaced, github's stay
    search.replace([tool('create_merge_request', 'Open a merge request')], { group: 'gitlab', key: (t) => `gitlab.${t.name}` });
    assert.deepEqual(search.keys().sort(), ['github.create_issue', 'gitlab.create_merge_request']);
    assert.deepEqual(
      search.search('issue').map((h) => h.key),
      ['github.create_issue'],
    );
    assert.equal(search.search('merge')[0]?.key, 'gitlab.create_merge_request');

    // adding a held key replaces the definition
    search.add([tool('create_issue', 'File a ticket')], { group: 'github', key: (t) => `github.${t.name}` });
    assert.equal(search.size, 2);
    assert.equal(search.search('ticket')[0]?.key, 'github.create_issue');

    assert.equal(search.remove(['github.create_issue', 'nope']), 1);
    assert.deepEqual(search.search('ticket'), []);
    assert.equal(search.removeGroup('gitlab'), 1);
    assert.equal(search.size, 0);
    assert.deepEqual(search.search('merge'), []);
  });

  it('replace without a group replaces everything', () => {
    const search = new ToolSearch();
    search.add(catalog);
    search.replace([tool('echo', 'Echo the input')]);
    assert.deepEqual(search.keys(), ['echo']);
    assert.deepEqual(search.search('screenshot'), []);
  });

  it('indexes at most maxFieldChars of a field and maxArguments arguments', () => {
    const search = new ToolSearch({ maxFieldChars: 100, maxArguments: 2 });
    const huge = `${'padding '.repeat(1000)} needle`;
    const many = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`arg${'x'.repeat(i)}${i === 9 ? 'Hidden' : ''}`, {}]));
    search.add([tool('big', huge, many)]);
    assert.deepEqual(search.search('needle'), [], 'text past maxFieldChars is not indexed');
    assert.deepEqual(search.search('hidden'), [], 'arguments past maxArguments are not indexed');
    assert.equal(search.search('padding')[0]?.key, 'big');
  });

  it('bounds the number of tools: add past maxTools throws and adds nothing', () => {
    const search = new ToolSearch({ maxTools: 3 });
    search.add([tool('a1'), tool('a2')]);
    assert.throws(
      () => search.add([tool('b1'), tool('b2')]),
      (err: Error) => err instanceof RangeError && /more than 3 tools \(maxTools\)/.test(err.message),
    );
    assert.deepEqual(search.keys(), ['a1', 'a2']);
    // replacing held keys does not count twice
    search.add([tool('a1', 'again'), tool('a2', 'again'), tool('a3')]);
    assert.equal(search.size, 3);
    assert.throws(() => search.replace([tool('c1'), tool('c2'), tool('c3'), tool('c4')]), RangeError);
    assert.deepEqual(search.keys(), ['a1', 'a2', 'a3'], 'a refused replace changes nothing');
    // an endless iterable is refused, not drained
    function* endless() {
      for (let i = 0; ; i++) yield tool(`t${i}`);
    }
    assert.throws(() => new ToolSearch({ maxTools: 10 }).add(endless()), RangeError);
    function* same() {
      for (;;) yield tool('again');
    }
    assert.throws(() => new ToolSearch({ maxTools: 10 }).add(same()), /more than 10 tools given/);
    assert.throws(() => new ToolSearch({ maxTools: 10 }).replace(same()), /more than 10 tools given/);
  });

  it('bounds the query: length, terms, limit', () => {
    const search = new ToolSearch({ maxQueryChars: 50, maxQueryTerms: 2, maxLimit: 5 });
    search.add(catalog);
    assert.throws(
      () => search.search('x'.repeat(51)),
      (err: Error) => err instanceof RangeError && /51 characters; the most is 50/.test(err.message),
    );
    assert.throws(() => search.search('issue', { limit: 6 }), /limit must be an integer from 1 to 5/);
    assert.throws(() => search.search('issue', { limit: 0 }), RangeError);
    assert.throws(() => search.search('issue', { limit: 1.5 }), RangeError);
    assert.throws(() => search.search(42 as unknown as string), TypeError);
    // only the first two distinct terms count: 'screenshot' is the third
    assert.deepEqual(
      search
        .search('issue issue folder screenshot')
        .map((h) => h.key)
        .includes('takeScreenshot'),
      false,
    );
    assert.ok(search.search('screenshot issue').some((h) => h.key === 'takeScreenshot'));
  });

  it('refuses malformed tools and options with clear errors', () => {
    const search = new ToolSearch();
    assert.throws(() => search.add([{ description: 'no name' } as unknown as Tool]), /needs a string "name"/);
    assert.throws(() => search.add([tool('x')], { key: () => '' }), /must be a non-empty string/);
    // a refused replace changes nothing, whatever the reason
    search.add([tool('kept')], { group: 'g' });
    assert.throws(() => search.replace([tool('ok'), tool('bad')], { group: 'g', key: (t) => (t.name === 'bad' ? '' : t.name) }), /must be a non-empty string/);
    assert.throws(() => search.replace([tool('ok'), null as unknown as Tool], { group: 'g' }), /ToolSearch.replace: every tool needs a string "name"/);
    assert.deepEqual(search.keys(), ['kept']);
    search.remove(['kept']);
    assert.throws(() => new ToolSearch({ maxTools: 0 }), /maxTools must be a positive integer/);
    assert.throws(() => new ToolSearch({ bogus: 1 } as never), /unknown option "bogus"/);
    assert.equal(search.size, 0);
  });

  it('tolerates odd definitions: no inputSchema properties, non-string fields, prototype names', () => {
    const search = new ToolSearch();
    search.add([
      { name: 'odd', description: 42, inputSchema: { type: 'object', properties: [] } } as unknown as Tool,
      { name: '__proto__', inputSchema: { type: 'object', properties: { constructor: { description: 'proto trap' } } } } as unknown as Tool,
      { name: 'titled', inputSchema: { type: 'object' }, annotations: { title: 'Launch rocket' } } as unknown as Tool,
    ]);
    assert.equal(search.search('proto trap')[0]?.key, '__proto__');
    assert.equal(search.search('rocket')[0]?.key, 'titled');
    assert.equal(search.size, 3);
  });

  it('indexes thousands of tools with long descriptions within the defaults', () => {
    const search = new ToolSearch();
    const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'];
    const tools = Array.from({ length: 3000 }, (_, i) => tool(`tool_${i}_${words[i % 8]}`, `${words[(i * 3) % 8]} `.repeat(2000)));
    search.add(tools);
    assert.equal(search.size, 3000);
    const hits = search.search('golf hotel', { limit: TOOL_SEARCH_DEFAULTS.maxLimit });
    assert.equal(hits.length, TOOL_SEARCH_DEFAULTS.maxLimit);
  });
});
