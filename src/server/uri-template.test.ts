import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULT_MAX_URI_LENGTH,
  MAX_TEMPLATE_EXPRESSIONS,
  MAX_TEMPLATE_LENGTH,
  UriTemplate,
  type UriTemplateMatch,
  type UriTemplateVariables,
} from './uri-template.js';

/** The variable set of RFC 6570's examples (section 3.2.1), without the associative `keys`. */
const RFC_VARIABLES: UriTemplateVariables = {
  count: ['one', 'two', 'three'],
  dom: ['example', 'com'],
  dub: 'me/too',
  hello: 'Hello World!',
  half: '50%',
  var: 'value',
  who: 'fred',
  base: 'http://example.com/home/',
  path: '/foo/bar',
  list: ['red', 'green', 'blue'],
  v: '6',
  x: '1024',
  y: '768',
  empty: '',
  empty_keys: [],
  undef: undefined,
};

function expand(template: string, variables: UriTemplateVariables = RFC_VARIABLES): string {
  return new UriTemplate(template).expand(variables);
}

function match(template: string, uri: string): UriTemplateMatch | null {
  return new UriTemplate(template).match(uri);
}

describe('UriTemplate.expand', () => {
  it('expands the level 1 examples', () => {
    assert.equal(expand('{var}'), 'value');
    assert.equal(expand('{hello}'), 'Hello%20World%21');
  });

  it('expands the level 2 examples (reserved and fragment expansion)', () => {
    assert.equal(expand('{+var}'), 'value');
    assert.equal(expand('{+hello}'), 'Hello%20World!');
    assert.equal(expand('{+path}/here'), '/foo/bar/here');
    assert.equal(expand('here?ref={+path}'), 'here?ref=/foo/bar');
    assert.equal(expand('{#var}'), '#value');
    assert.equal(expand('{#hello}'), '#Hello%20World!');
  });

  it('expands the level 3 examples (multiple variables, every operator)', () => {
    const cases: [string, string][] = [
      ['map?{x,y}', 'map?1024,768'],
      ['{x,hello,y}', '1024,Hello%20World%21,768'],
      ['{+x,hello,y}', '1024,Hello%20World!,768'],
      ['{+path,x}/here', '/foo/bar,1024/here'],
      ['{#x,hello,y}', '#1024,Hello%20World!,768'],
      ['{#path,x}/here', '#/foo/bar,1024/here'],
      ['X{.var}', 'X.value'],
      ['X{.x,y}', 'X.1024.768'],
      ['{/var}', '/value'],
      ['{/var,x}/here', '/value/1024/here'],
      ['{;x,y}', ';x=1024;y=768'],
      ['{;x,y,empty}', ';x=1024;y=768;empty'],
      ['{?x,y}', '?x=1024&y=768'],
      ['{?x,y,empty}', '?x=1024&y=768&empty='],
      ['?fixed=yes{&x}', '?fixed=yes&x=1024'],
      ['{&x,y,empty}', '&x=1024&y=768&empty='],
    ];
    for (const [template, expected] of cases) assert.equal(expand(template), expected, template);
  });

  it('expands the level 4 examples (prefix, explode, lists)', () => {
    const cases: [string, string][] = [
      ['{var:3}', 'val'],
      ['{var:30}', 'value'],
      ['{list}', 'red,green,blue'],
      ['{list*}', 'red,green,blue'],
      ['{+path:6}/here', '/foo/b/here'],
      ['{+list}', 'red,green,blue'],
      ['{+list*}', 'red,green,blue'],
      ['{#path:6}/here', '#/foo/b/here'],
      ['{#list}', '#red,green,blue'],
      ['{#list*}', '#red,green,blue'],
      ['X{.var:3}', 'X.val'],
      ['X{.list}', 'X.red,green,blue'],
      ['X{.list*}', 'X.red.green.blue'],
      ['{/var:1,var}', '/v/value'],
      ['{/list}', '/red,green,blue'],
      ['{/list*}', '/red/green/blue'],
      ['{/list*,path:4}', '/red/green/blue/%2Ffoo'],
      ['{;hello:5}', ';hello=Hello'],
      ['{;list}', ';list=red,green,blue'],
      ['{;list*}', ';list=red;list=green;list=blue'],
      ['{?var:3}', '?var=val'],
      ['{?list}', '?list=red,green,blue'],
      ['{?list*}', '?list=red&list=green&list=blue'],
      ['{&var:3}', '&var=val'],
      ['{&list}', '&list=red,green,blue'],
      ['{&list*}', '&list=red&list=green&list=blue'],
    ];
    for (const [template, expected] of cases) assert.equal(expand(template), expected, template);
  });

  it('expands the section 3.2 examples (undefined, empty and list values)', () => {
    const cases: [string, string][] = [
      ['{count}', 'one,two,three'],
      ['{count*}', 'one,two,three'],
      ['{/count}', '/one,two,three'],
      ['{/count*}', '/one/two/three'],
      ['{;count}', ';count=one,two,three'],
      ['{;count*}', ';count=one;count=two;count=three'],
      ['{?count}', '?count=one,two,three'],
      ['{?count*}', '?count=one&count=two&count=three'],
      ['{&count*}', '&count=one&count=two&count=three'],
      ['{var}', 'value'],
      ['{hello}', 'Hello%20World%21'],
      ['{half}', '50%25'],
      ['O{empty}X', 'OX'],
      ['O{undef}X', 'OX'],
      ['{x,y}', '1024,768'],
      ['{x,hello,y}', '1024,Hello%20World%21,768'],
      ['?{x,empty}', '?1024,'],
      ['?{x,undef}', '?1024'],
      ['?{undef,y}', '?768'],
      ['{var:3}', 'val'],
      ['{+half}', '50%25'],
      ['{base}index', 'http%3A%2F%2Fexample.com%2Fhome%2Findex'],
      ['{+base}index', 'http://example.com/home/index'],
      ['O{+empty}X', 'OX'],
      ['O{+undef}X', 'OX'],
      ['{+path}/here', '/foo/bar/here'],
      ['{+path:6}/here', '/foo/b/here'],
      ['{+dub}/here', 'me/too/here'],
      ['X{#var}', 'X#value'],
      ['X{#hello}', 'X#Hello%20World!'],
      ['{.who}', '.fred'],
      ['{.who,who}', '.fred.fred'],
      ['{.half,who}', '.50%25.fred'],
      ['www{.dom*}', 'www.example.com'],
      ['X{.empty}', 'X.'],
      ['X{.undef}', 'X'],
      ['{/who}', '/fred'],
      ['{/who,who}', '/fred/fred'],
      ['{/half,who}', '/50%25/fred'],
      ['{/who,dub}', '/fred/me%2Ftoo'],
      ['{/var,empty}', '/value/'],
      ['{/var,undef}', '/value'],
      ['{/var,x}/here', '/value/1024/here'],
      ['{/var:1,var}', '/v/value'],
      ['{;who}', ';who=fred'],
      ['{;half}', ';half=50%25'],
      ['{;empty}', ';empty'],
      ['{;v,empty,who}', ';v=6;empty;who=fred'],
      ['{;v,bar,who}', ';v=6;who=fred'],
      ['{;x,y,undef}', ';x=1024;y=768'],
      ['{?who}', '?who=fred'],
      ['{?half}', '?half=50%25'],
      ['{?x,y,empty}', '?x=1024&y=768&empty='],
      ['{?x,y,undef}', '?x=1024&y=768'],
      ['{?var:3}', '?var=val'],
      ['{&who}', '&who=fred'],
      ['{&half}', '&half=50%25'],
      ['?fixed=yes{&x}', '?fixed=yes&x=1024'],
      ['{list}{empty_keys}{undef}', 'red,green,blue'],
      ['X{.empty_keys}{/empty_keys*}{?empty_keys}', 'X'],
    ];
    for (const [template, expected] of cases) assert.equal(expand(template), expected, template);
  });

  it('percent-encodes UTF-8, keeps existing triplets only in reserved expansion, and encodes literals', () => {
    assert.equal(expand('{v}', { v: 'café ☕ 😀' }), 'caf%C3%A9%20%E2%98%95%20%F0%9F%98%80');
    assert.equal(expand('{+v}', { v: '%41%zz/ü' }), '%41%25zz/%C3%BC');
    assert.equal(expand('{v}', { v: '%41' }), '%2541');
    assert.equal(expand('{v}', { v: 'a\ud800b' }), 'a%EF%BF%BDb');
    assert.equal(expand('{v}', { v: "-._~!*'()" }), '-._~%21%2A%27%28%29');
    assert.equal(expand('my file/{v}', { v: 'x' }), 'my%20file/x');
    assert.equal(expand('é/{v}', {}), '%C3%A9/');
  });

  it('counts prefix lengths in characters, never splitting a surrogate pair or a reserved triplet', () => {
    assert.equal(expand('{v:2}', { v: '😀😀😀' }), '%F0%9F%98%80%F0%9F%98%80');
    assert.equal(expand('{+v:2}', { v: '%20%21abc' }), '%20%21');
    assert.equal(expand('{v:2}', { v: '%20%21abc' }), '%252');
  });

  it('reads only own properties of the variables object', () => {
    assert.equal(expand('{constructor}{toString}{__proto__}', {}), '');
    const own = JSON.parse('{"__proto__":"p"}') as UriTemplateVariables;
    assert.equal(expand('{__proto__}', own), 'p');
  });

  it('throws TypeError for values that are neither strings nor lists of strings, and for prefixed lists', () => {
    const bad = { n: 42 } as unknown as UriTemplateVariables;
    assert.throws(() => expand('{n}', bad), TypeError);
    const badItem = { l: ['a', 1] } as unknown as UriTemplateVariables;
    assert.throws(() => expand('{l*}', badItem), TypeError);
    assert.throws(() => expand('{list:1}'), /prefix modifier applies to strings only/);
    assert.equal(expand('{n}', { n: null } as unknown as UriTemplateVariables), '');
  });
});

describe('UriTemplate construction', () => {
  it('rejects malformed templates with a TypeError naming the problem', () => {
    const cases: [string, RegExp][] = [
      ['{/id*', /unclosed "\{"/],
      ['/id*}', /unmatched "\}"/],
      ['x{a{b}}', /"\{" inside an expression/],
      ['{}', /empty expression/],
      ['{+}', /operator without variables/],
      ['{a,}', /empty variable/],
      ['{a,,b}', /empty variable/],
      ['{=path}', /reserved operator/],
      ['{!hello}', /reserved operator/],
      ['{|var*}', /reserved operator/],
      ['{@x}', /reserved operator/],
      ['{,x}', /reserved operator/],
      ['{$var}', /invalid character "\$"/],
      ['{/?id}', /invalid character "\?"/],
      ['{??hello}', /invalid character "\?"/],
      ['{*keys?}', /invalid character/],
      ['{?empty=default,var}', /invalid character "="/],
      ['/resolution{?x, y}', /invalid character " "/],
      ['{user-id}', /invalid character "-"/],
      ['{var:prefix}', /prefix length/],
      ['{var:0}', /prefix length/],
      ['{var:10000}', /prefix length/],
      ['{var:}', /prefix length/],
      ['{hello:2*}', /cannot be combined/],
      ['{a..b}', /misplaced "\."/],
      ['{.a.}', /ends with "\."/],
      ['{%2}', /invalid character "%"/],
    ];
    for (const [template, message] of cases) {
      assert.throws(
        () => new UriTemplate(template),
        (error: unknown) => {
          assert.ok(error instanceof TypeError, template);
          assert.match(error.message, message, template);
          assert.match(error.message, /at offset \d+/, template);
          return true;
        },
      );
    }
  });

  it('accepts valid varnames with dots, digits, underscores and pct-encoded characters', () => {
    const t = new UriTemplate('{a.b,_1,x%20y}{?Z9}');
    assert.deepEqual(t.variableNames, ['a.b', '_1', 'x%20y', 'Z9']);
  });

  it('enforces the template length and expression count limits at their exact boundaries', () => {
    assert.equal(MAX_TEMPLATE_LENGTH, 8192);
    assert.equal(MAX_TEMPLATE_EXPRESSIONS, 64);
    new UriTemplate('x'.repeat(MAX_TEMPLATE_LENGTH));
    assert.throws(() => new UriTemplate('x'.repeat(MAX_TEMPLATE_LENGTH + 1)), /longer than 8192/);
    const expressions = (count: number): string => Array.from({ length: count }, (_, i) => `{v${i}}`).join('/');
    assert.equal(new UriTemplate(expressions(64)).variableNames.length, 64);
    assert.throws(() => new UriTemplate(expressions(65)), /more than 64 expressions/);
  });

  it('rejects a maxUriLength that is not a positive integer with a RangeError', () => {
    for (const maxUriLength of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.throws(() => new UriTemplate('{x}', { maxUriLength }), RangeError);
    }
  });

  it('reports distinct variable names in order of first appearance and returns the original text', () => {
    const text = 'repo://{owner}/{repo}/issues{?state,page}{&owner}';
    const t = new UriTemplate(text);
    assert.deepEqual(t.variableNames, ['owner', 'repo', 'state', 'page']);
    t.variableNames.push('mutated');
    assert.deepEqual(t.variableNames, ['owner', 'repo', 'state', 'page']);
    assert.equal(t.toString(), text);
    assert.equal(`${t}`, text);
    assert.deepEqual(new UriTemplate('static://x').variableNames, []);
  });
});

describe('UriTemplate.match: typical MCP templates', () => {
  it('matches test://template/{id}/data', () => {
    const t = 'test://template/{id}/data';
    assert.deepEqual(match(t, 'test://template/42/data'), { id: '42' });
    assert.deepEqual(match(t, 'test://template/a%2Fb/data'), { id: 'a/b' });
    assert.deepEqual(match(t, 'test://template//data'), { id: '' });
    assert.equal(match(t, 'test://template/42/data/extra'), null);
    assert.equal(match(t, 'test://template/4/2/data'), null);
    assert.equal(match(t, 'test://template/42'), null);
    assert.equal(match(t, 'test://template/42/dat'), null);
    assert.equal(match(t, 'test://other/42/data'), null);
    assert.equal(match(t, 'test://template/42?x/data'), null);
    assert.equal(match(t, 'test://template/42#x/data'), null);
    assert.equal(match(t, 'prefix-test://template/42/data'), null);
  });

  it('matches file:///{+path} across slashes', () => {
    const t = 'file:///{+path}';
    assert.deepEqual(match(t, 'file:///home/user/notes.md'), { path: 'home/user/notes.md' });
    assert.deepEqual(match(t, 'file:///dir%20name/caf%C3%A9.txt'), { path: 'dir name/café.txt' });
    assert.deepEqual(match(t, 'file:///'), { path: '' });
    assert.equal(match(t, 'file://host/x'), null);
    assert.equal(match('file:///{path}', 'file:///a/b'), null);
  });

  it('matches repo://{owner}/{repo}/issues{?state,page} with query pairs in any order', () => {
    const t = 'repo://{owner}/{repo}/issues{?state,page}';
    assert.deepEqual(match(t, 'repo://octo/hello/issues'), { owner: 'octo', repo: 'hello' });
    assert.deepEqual(match(t, 'repo://octo/hello/issues?state=open'), { owner: 'octo', repo: 'hello', state: 'open' });
    assert.deepEqual(match(t, 'repo://octo/hello/issues?state=open&page=2'), { owner: 'octo', repo: 'hello', state: 'open', page: '2' });
    assert.deepEqual(match(t, 'repo://octo/hello/issues?page=2&state=open'), { owner: 'octo', repo: 'hello', state: 'open', page: '2' });
    assert.deepEqual(match(t, 'repo://octo/hello/issues?state=&page'), { owner: 'octo', repo: 'hello', state: '', page: '' });
    assert.deepEqual(match(t, 'repo://octo/hello/issues?state=a%26b%3Dc'), { owner: 'octo', repo: 'hello', state: 'a&b=c' });
    assert.deepEqual(match(t, 'repo://octo/hello/issues?state=x/y?z'), { owner: 'octo', repo: 'hello', state: 'x/y?z' });
    assert.deepEqual(match(t, 'repo://octo/hello/issues?state=open&state=open'), { owner: 'octo', repo: 'hello', state: 'open' });
    assert.equal(match(t, 'repo://octo/hello/issues?state=open&state=closed'), null);
    assert.equal(match(t, 'repo://octo/hello/issues?sort=asc'), null);
    assert.equal(match(t, 'repo://octo/hello/issues?state=open#frag'), null);
    assert.equal(match(t, 'repo://octo/hello/pulls?state=open'), null);
    assert.equal(match(t, 'repo://octo/hello/world/issues'), null);
    assert.equal(match(t, 'repo://octo/issues'), null);
  });

  it('matches users/{id}{.format} with and without the extension', () => {
    const t = 'users/{id}{.format}';
    assert.deepEqual(match(t, 'users/42.json'), { id: '42', format: 'json' });
    assert.deepEqual(match(t, 'users/42'), { id: '42' });
    assert.deepEqual(match(t, 'users/42.tar.gz'), { id: '42', format: 'tar.gz' });
    assert.deepEqual(match(t, 'users/42.'), { id: '42', format: '' });
    assert.equal(match(t, 'users/42/x.json'), null);
    assert.equal(match(t, 'user/42.json'), null);
  });

  it('matches a template without expressions only by exact equality', () => {
    assert.deepEqual(match('config://app', 'config://app'), {});
    assert.equal(match('config://app', 'config://app/'), null);
    assert.deepEqual(match('my file', 'my%20file'), {});
  });
});

describe('UriTemplate.match: operators and disambiguation rules', () => {
  it('inverts expansion for the unambiguous RFC examples', () => {
    const cases: [string, UriTemplateVariables][] = [
      ['{var}', { var: 'value' }],
      ['{hello}', { hello: 'Hello World!' }],
      ['{+path}/here', { path: '/foo/bar' }],
      ['here?ref={+path}', { path: '/foo/bar' }],
      ['map?{x,y}', { x: '1024', y: '768' }],
      ['{x,hello,y}', { x: '1024', hello: 'Hello World!', y: '768' }],
      ['{#x,hello,y}', { x: '1024', hello: 'Hello World!', y: '768' }],
      ['X{.x,y}', { x: '1024', y: '768' }],
      ['{/var,x}/here', { var: 'value', x: '1024' }],
      ['{;x,y,empty}', { x: '1024', y: '768', empty: '' }],
      ['{?x,y,empty}', { x: '1024', y: '768', empty: '' }],
      ['?fixed=yes{&x}', { x: '1024' }],
      ['{&x,y,empty}', { x: '1024', y: '768', empty: '' }],
      ['{list*}', { list: ['red', 'green', 'blue'] }],
      ['X{.list*}', { list: ['red', 'green', 'blue'] }],
      ['{/list*}', { list: ['red', 'green', 'blue'] }],
      ['{;list*}', { list: ['red', 'green', 'blue'] }],
      ['{?list*}', { list: ['red', 'green', 'blue'] }],
      ['{&list*}', { list: ['red', 'green', 'blue'] }],
      ['{#list*}', { list: ['red', 'green', 'blue'] }],
      ['{/who,dub}', { who: 'fred', dub: 'me/too' }],
      ['{base}index', { base: 'http://example.com/home/' }],
      ['{var:3}', { var: 'val' }],
      ['{?q}', { q: 'ünïcødé & more' }],
    ];
    for (const [template, variables] of cases) {
      const t = new UriTemplate(template);
      assert.deepEqual(t.match(t.expand(variables)), variables, template);
    }
  });

  it('returns a non-exploded list as one comma-joined string', () => {
    assert.deepEqual(match('{list}', 'red,green,blue'), { list: 'red,green,blue' });
    assert.deepEqual(match('{?list}', '?list=red,green,blue'), { list: 'red,green,blue' });
    assert.deepEqual(match('{/list}', '/red,green,blue'), { list: 'red,green,blue' });
  });

  it('gives non-final variables one separator-delimited value and the final one the rest', () => {
    assert.deepEqual(match('{a,b}', '1,2,3'), { a: '1', b: '2,3' });
    assert.deepEqual(match('{a,b}', '1'), { a: '1' });
    assert.deepEqual(match('X{.a,b}', 'X.1.2.3'), { a: '1', b: '2.3' });
    assert.deepEqual(match('{/a,b}', '/1/2'), { a: '1', b: '2' });
    assert.equal(match('{/a,b}', '/1/2/3'), null);
    assert.deepEqual(match('{/a,b}{/c}', '/1/2/3'), { a: '1', b: '2', c: '3' });
  });

  it('anchors the final literal at the end but uses the first occurrence of other literals', () => {
    assert.deepEqual(match('file:///{+path}/meta', 'file:///a/meta/meta'), { path: 'a/meta' });
    assert.deepEqual(match('x:{+a}-{+b}.txt', 'x:1-2-3.txt.txt'), { a: '1', b: '2-3.txt' });
    assert.deepEqual(match('x:{+a}/m/{+b}/end', 'x:a/m/b/m/c/end'), { a: 'a', b: 'b/m/c' });
    // No backtracking: `a` stops at the first "/m/", so `b` would have to hold a "/".
    assert.equal(match('x:{+a}/m/{b}/end', 'x:p/m/q/r/m/s/end'), null);
    assert.deepEqual(match('x:{+a}/m/{+b}/end', 'x:a/b/m/c/m/d/end'), { a: 'a/b', b: 'c/m/d' });
  });

  it('lets an earlier adjacent expression without a delimiter be greedy', () => {
    assert.deepEqual(match('{a}{b}', 'xyz'), { a: 'xyz', b: '' });
    assert.deepEqual(match('X{.a}{.b}', 'X.1.2'), { a: '1.2' });
    assert.deepEqual(match('{/a}{/b}', '/1/2'), { a: '1', b: '2' });
    assert.deepEqual(match('{+a}{#b}', 'p/q#frag'), { a: 'p/q', b: 'frag' });
  });

  it('uses the leading character of the following expression, falling through to later ones', () => {
    assert.deepEqual(match('{a}{/b}{.c}', 'x.y/z'), { a: 'x.y', b: 'z' });
    assert.deepEqual(match('{a}{/b}{.c}', 'x.y'), { a: 'x', c: 'y' });
    assert.deepEqual(match('{a}{/b}{.c}', 'x/y.z'), { a: 'x', b: 'y', c: 'z' });
    assert.deepEqual(match('{+a}{?q}', 'p/q?q=1'), { a: 'p/q', q: '1' });
  });

  it('treats an optional expression as absent when the next literal starts at its position', () => {
    assert.deepEqual(match('x{/a}/end', 'x/end'), {});
    assert.deepEqual(match('x{/a}/end', 'x/seg/end'), { a: 'seg' });
    assert.deepEqual(match('x{/a}/end', 'x//end'), { a: '' });
    assert.deepEqual(match('x{/a}/mid/{b}', 'x/mid/7'), { b: '7' });
    assert.deepEqual(match('x{?a}?b', 'x?b'), {});
  });

  it('reads adjacent {?a}{&b} and {;a}{;b} expressions as one group', () => {
    assert.deepEqual(match('{?a}{&b}', '?b=2&a=1'), { a: '1', b: '2' });
    assert.deepEqual(match('{?a}{&b}', '&b=2'), { b: '2' });
    assert.deepEqual(match('x{;a}{;b}', 'x;b=2;a'), { a: '', b: '2' });
    assert.deepEqual(match('?fixed=yes{&x}', '?fixed=yes&x=1'), { x: '1' });
    assert.equal(match('?fixed=yes{&x}', '?fixed=no&x=1'), null);
  });

  it('collects exploded named pairs and skips empty pairs', () => {
    assert.deepEqual(match('{?list*,n}', '?list=a&n=1&&list=b&'), { list: ['a', 'b'], n: '1' });
    assert.deepEqual(match('x{;list*}', 'x;list=a;list;list=c'), { list: ['a', '', 'c'] });
  });

  it('checks prefix lengths and keeps repeated variables consistent', () => {
    assert.deepEqual(match('{var:3}', 'val'), { var: 'val' });
    assert.equal(match('{var:3}', 'value'), null);
    assert.deepEqual(match('{v:2}', '%F0%9F%98%80%F0%9F%98%80'), { v: '😀😀' });
    assert.deepEqual(match('{var:3}/{var}', 'val/value'), { var: 'value' });
    assert.deepEqual(match('{var}/{var:3}', 'value/val'), { var: 'value' });
    assert.equal(match('{var:3}/{var}', 'val/other'), null);
    assert.equal(match('{var:3}/{var}', 'va/value'), null);
    assert.deepEqual(match('{var:3}/{var}', 'va/va'), { var: 'va' });
    assert.deepEqual(match('{v:2}/{v:4}', 'ab/abcd'), { v: 'abcd' });
    assert.equal(match('{v:2}/{v:4}', 'ab/axcd'), null);
    assert.deepEqual(match('{x}/{x}', 'a/a'), { x: 'a' });
    assert.equal(match('{x}/{x}', 'a/b'), null);
    assert.deepEqual(match('{/l*}?{l*}', '/a/b?a,b'), { l: ['a', 'b'] });
    assert.equal(match('{/l*}?{l*}', '/a/b?a,c'), null);
    assert.equal(match('{/l}?{l*}', '/a?a'), null);
  });

  it('percent-decodes values as UTF-8, leaves "+" alone and refuses malformed escapes', () => {
    assert.deepEqual(match('{v}', 'caf%C3%A9'), { v: 'café' });
    assert.deepEqual(match('{v}', 'caf%c3%a9'), { v: 'café' });
    assert.deepEqual(match('{?q}', '?q=a+b%20c'), { q: 'a+b c' });
    assert.deepEqual(match('{v}', '%2E%2E'), { v: '..' });
    assert.equal(match('{v}', '%zz'), null);
    assert.equal(match('{v}', '%4'), null);
    assert.equal(match('{v}', '%E9'), null);
    assert.equal(match('{?q}', '?q=%C3'), null);
  });

  it('returns an own __proto__ property instead of touching the prototype', () => {
    const result = match('x/{__proto__}', 'x/polluted');
    assert.ok(result !== null);
    assert.equal(Object.getPrototypeOf(result), Object.prototype);
    assert.deepEqual(Object.keys(result), ['__proto__']);
    assert.equal(Object.getOwnPropertyDescriptor(result, '__proto__')?.value, 'polluted');
  });
});

describe('UriTemplate.match: limits and linear time', () => {
  it('refuses URIs longer than maxUriLength (default 64 KiB)', () => {
    assert.equal(DEFAULT_MAX_URI_LENGTH, 65536);
    const t = new UriTemplate('file:///{+path}');
    const prefix = 'file:///';
    assert.deepEqual(t.match(prefix + 'a'.repeat(DEFAULT_MAX_URI_LENGTH - prefix.length)), { path: 'a'.repeat(DEFAULT_MAX_URI_LENGTH - prefix.length) });
    assert.equal(t.match(prefix + 'a'.repeat(DEFAULT_MAX_URI_LENGTH - prefix.length + 1)), null);
    const small = new UriTemplate('file:///{+path}', { maxUriLength: 12 });
    assert.deepEqual(small.match('file:///abcd'), { path: 'abcd' });
    assert.equal(small.match('file:///abcde'), null);
    assert.equal(small.measureMatch('file:///abcde').steps, 0);
  });

  it('never builds a regular expression from the template', () => {
    const original = globalThis.RegExp;
    let constructed = 0;
    globalThis.RegExp = new Proxy(original, {
      construct(target, args: [string | RegExp, string?]) {
        constructed++;
        return new target(...args);
      },
      apply(target, _this, args: [string | RegExp, string?]) {
        constructed++;
        return target(...args);
      },
    });
    try {
      const t = new UriTemplate('repo://{owner}/{repo}/issues{?state,page}{#frag}');
      t.match('repo://a/b/issues?state=open#x');
      t.match('repo://a/b/nope');
    } finally {
      globalThis.RegExp = original;
    }
    assert.equal(constructed, 0);
  });

  it('reports the same result from measureMatch as from match', () => {
    const t = new UriTemplate('repo://{owner}/{repo}/issues{?state,page}');
    for (const uri of ['repo://o/r/issues?page=1', 'repo://o/r/x']) {
      const measured = t.measureMatch(uri);
      assert.deepEqual(measured.result, t.match(uri));
      assert.ok(measured.steps > 0);
    }
  });

  /**
   * Adversarial inputs against templates with many adjacent variables: the scanner's work
   * must grow linearly. The bound is on character inspections, not wall-clock time.
   */
  const names = (count: number): string[] => Array.from({ length: count }, (_, i) => `v${i}`);
  const adversarial: { label: string; template: string; uri: (n: number) => string }[] = [
    {
      label: '64 adjacent simple variables',
      template: `x:${names(64)
        .map((v) => `{${v}}`)
        .join('')}!`,
      uri: (n) => 'x:' + 'a'.repeat(n),
    },
    {
      label: '64 adjacent reserved variables',
      template: `x:${names(64)
        .map((v) => `{+${v}}`)
        .join('')}`,
      uri: (n) => 'x:' + 'a'.repeat(n) + '/',
    },
    {
      label: 'variables separated by a repeated literal, no final match',
      template: `x:${names(63)
        .map((v) => `{+${v}}`)
        .join('-')}!`,
      uri: (n) => 'x:' + '-'.repeat(n) + '?',
    },
    {
      label: 'simple variables separated by a literal that recurs everywhere',
      template: `x:${names(63)
        .map((v) => `{${v}}`)
        .join('-')}`,
      uri: (n) => 'x:' + '-'.repeat(n),
    },
    { label: 'self-overlapping literal (worst case for naive search)', template: `x:{+a}${'a'.repeat(300)}b{+b}`, uri: (n) => 'x:' + 'a'.repeat(n) },
    {
      label: 'path segments beyond the expressions',
      template: `x:${names(64)
        .map((v) => `{/${v}}`)
        .join('')}`,
      uri: (n) => 'x:' + '/a'.repeat(n / 2),
    },
    {
      label: 'all operators interleaved',
      template: `x:${names(64)
        .map((v, i) => `{${['', '.', '/', ';', '?', '+'][i % 6]}${v}}`)
        .join('')}`,
      uri: (n) => 'x:' + './;?&#='.repeat(Math.ceil(n / 7)),
    },
    {
      label: 'dots against adjacent {.x} expressions',
      template: `x:{a}${names(62)
        .map((v) => `{.${v}}`)
        .join('')}`,
      uri: (n) => 'x:' + 'a.'.repeat(n / 2),
    },
    { label: 'many repeated query pairs', template: `x:{?${names(60).join(',')}}`, uri: (n) => 'x:?' + 'v1=a&'.repeat(n / 5) },
    { label: 'exploded query list', template: `x:{?${names(59).join(',')},l*}`, uri: (n) => 'x:?' + 'l=a&'.repeat(n / 4) },
    { label: 'optional expressions whose delimiters appear late', template: `x:{a}{/b}{.c}{;d}{?e}/{f}`, uri: (n) => 'x:' + 'a'.repeat(n) + '#?;./' },
  ];

  for (const { label, template, uri } of adversarial) {
    it(`scans a 50 KB adversarial URI in linear work: ${label}`, () => {
      const t = new UriTemplate(template, { maxUriLength: 1 << 20 });
      const small = uri(12_500);
      const large = uri(50_000);
      assert.ok(large.length >= 50_000);
      const a = t.measureMatch(small);
      const b = t.measureMatch(large);
      assert.deepEqual(b.result === null, a.result === null, 'both sizes behave alike');
      assert.ok(b.steps <= 8 * (large.length + template.length), `steps ${b.steps} for ${large.length} characters`);
      assert.ok(b.steps <= 4.5 * a.steps + 10 * template.length, `steps grew from ${a.steps} to ${b.steps} for 4x input`);
    });
  }
});
