/**
 * The frontmatter reader and writer: what `renderFrontmatter` writes reads back identically
 * both here and with a full YAML 1.2 parser (the `yaml` package, the kind hosts use:
 * SEP-2640 › the entry's frontmatter MUST be identical to the file's), hand-written
 * frontmatter in the supported subset reads as the full parser reads it, and what leaves
 * the subset is refused with the line, never misread.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parse as yamlParse } from 'yaml';
import {
  FrontmatterError,
  type FrontmatterValue,
  parseFrontmatter,
  parseWork,
  parseYamlSubset,
  renderFrontmatter,
  renderSkillMd,
  splitSkillMd,
} from './frontmatter.js';

const key = fc.oneof(fc.stringMatching(/^[a-z][a-z0-9_-]{0,12}$/), fc.string({ minLength: 1, maxLength: 8 }));
const scalar: fc.Arbitrary<FrontmatterValue> = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.constantFrom('true', 'null', '1', '-', '#x', 'a: b', ' lead', 'trail ', '"q"', "it's", 'line\nbreak', '---', '- item', '[x]', '{y}', '~', '0x1F', '1e3'),
  fc.integer({ min: -1e9, max: 1e9 }),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }).filter((n) => !Object.is(n, -0)),
  fc.boolean(),
  fc.constant(null),
);
const value: fc.Arbitrary<FrontmatterValue> = fc.letrec<{ v: FrontmatterValue }>((tie) => ({
  v: fc.oneof({ depthSize: 'small', maxDepth: 3 }, scalar, fc.array(tie('v'), { maxLength: 4 }), fc.dictionary(key, tie('v'), { maxKeys: 4 })),
})).v;
const frontmatter = fc.dictionary(key, value, { minKeys: 1, maxKeys: 6 });

describe('frontmatter', () => {
  it('renders what it and a full YAML parser read back identically (property)', () => {
    fc.assert(
      fc.property(frontmatter, (fm) => {
        const yaml = renderFrontmatter(fm);
        // the generated objects have no prototype; compare as JSON values
        const expected = JSON.parse(JSON.stringify(fm)) as Record<string, FrontmatterValue>;
        assert.deepEqual(parseYamlSubset(yaml), expected, yaml);
        assert.deepEqual(yamlParse(yaml), expected, yaml);
        assert.deepEqual(parseFrontmatter(renderSkillMd(fm, '# Body\n')), { frontmatter: expected, body: '# Body\n' });
      }),
      { numRuns: 400 },
    );
  });

  it('reads hand-written frontmatter as a full YAML parser does', () => {
    const samples = [
      'name: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n',
      'name: x\ndescription: >\n  Folded text\n  on two lines.\n\n  New paragraph.\nlicense: MIT # trailing comment\n',
      'name: x\ndescription: |-\n  literal\n    indented\n  text\nkeep: |+\n  a\n\nafter: 1\n',
      "# comment\nname: \"quoted \\\"name\\\" \\u00e9\"\ndescription: 'single ''quoted'''\n",
      'allowed-tools:\n  - Bash(git:*)\n  - Read\nmetadata:\n  author: someone\n  tags: [a, "b c", 3]\n  nested: {k: v, n: 2}\n',
      'list:\n- one\n- two: 2\n  three: 3\n-\n  - deep\nempty:\nnum: -0.5e2\nhex: 0x1f\nbools: [true, False, ~]\n',
      'description: a plain scalar\n  that continues here\nname: x\n',
      'name: x\ndescription: "multi\n  line quoted"\n',
      'colon: http://example.com/path\nwith-hash: a#b\n',
    ];
    for (const sample of samples) assert.deepEqual(parseYamlSubset(sample), yamlParse(sample), sample);
  });

  it('refuses what leaves the subset, naming the line', () => {
    const refused: Array<[string, RegExp]> = [
      ['name: &a x\nother: *a\n', /anchors, aliases and tags.*line 1/],
      ['name: !!str x\n', /tags/],
      ['name: x\nname: y\n', /duplicate key "name".*line 2/],
      ['name: x\nmeta: {a: 1, b: 2, a: 3}\n', /duplicate key "a".*line 2/],
      ['meta: {"a": 1, \'a\': 2}\n', /duplicate key "a"/],
      ['meta: [{k: 1, k: 1}]\n', /duplicate key "k"/],
      ['name: x\n\tdescription: y\n', /tabs.*line 2/],
      ['name: [a, b\n', /malformed flow sequence/],
      ['name: "open\n', /unterminated/],
      ['a: b\n  c: d\n', /bad indentation|expected/],
      ['value: .inf\n', /no JSON form/],
      ['list:\n- - nested\n', /not supported.*line 2/],
      [`deep: ${'['.repeat(100)}${']'.repeat(100)}\n`, /deeper than 64 levels/],
      [Array.from({ length: 100 }, (_, i) => `${' '.repeat(2 * i)}k${i}:`).join('\n') + ' x\n', /deeper than 64 levels/],
      [`big: ${'x'.repeat(70_000)}\n`, /longer than 65536 characters/],
    ];
    for (const [text, message] of refused)
      assert.throws(
        () => parseYamlSubset(text),
        (e: unknown) => e instanceof FrontmatterError && message.test(e.message),
        text,
      );
  });

  it('attack round 2: a key with invisible or control characters (a duplicate in disguise) is refused, block and flow', () => {
    for (const body of [
      'name: x\ndescription: d\nna\u200bme: y',
      'name: x\ndescription: d\n\ufeffname: y',
      'name: x\ndescription: d\n"name\\0": y',
      'name: x\ndescription: d\nm: {a: 1, "a\\u200d": 2}',
      'name: x\ndescription: d\nm: {a\u2066: 1}',
    ]) {
      assert.throws(
        () => parseFrontmatter(`---\n${body}\n---\n`),
        (e: unknown) => e instanceof FrontmatterError && /look-alike of another key/.test(e.message),
        JSON.stringify(body),
      );
    }
    assert.deepEqual(parseFrontmatter('---\nname: x\ndescription: d\nclé: y\n---\n').frontmatter, { name: 'x', description: 'd', clé: 'y' });
  });

  it('stays linear on hostile input (bounded work, not bounded time)', () => {
    // lines that once made a regex backtrack: many colons, long flow collections, a long quoted scalar over many lines
    const colons = `k: ${'a:b'.repeat(20_000)}\n`;
    assert.equal((parseYamlSubset(colons, 0, 100_000) as { k: string }).k, 'a:b'.repeat(20_000));
    const flow = `k: [${Array.from({ length: 10_000 }, (_, i) => i).join(', ')}]\n`;
    assert.equal((parseYamlSubset(flow) as { k: number[] }).k.length, 10_000);
    const quoted = `k: "${'word\n  '.repeat(8_000)}end"\n`;
    assert.match((parseYamlSubset(quoted) as { k: string }).k, /end$/);
  });

  it('a quoted scalar of 60 000 spaces (or of words, or over many lines) is read with linear work', () => {
    for (const q of ['"', "'"]) {
      for (const [inner, folded] of [
        [' '.repeat(60_000), ' '.repeat(60_000)],
        ['a '.repeat(30_000), 'a '.repeat(30_000)],
        ['a\n  '.repeat(12_000), `${'a '.repeat(11_999)}a `],
      ] as const) {
        const text = `k: ${q}${inner}${q}\n`;
        parseWork.steps = 0;
        assert.equal((parseYamlSubset(text) as { k: string }).k, folded);
        assert.ok(parseWork.steps <= 30 * text.length, `${parseWork.steps} steps for ${text.length} characters`);
      }
    }
  });

  it('does work linear in the input whatever its shape (property: characters visited counted, not time)', () => {
    const unit = fc
      .array(
        fc.constantFrom(' ', '\t', '\n', '\n  ', '"', "'", ':', ': ', '#', ' #', '-', '- ', '[', ']', '{', '}', ',', '\\', 'a', '|', '>', '?', '&', '1', '.'),
        { minLength: 1, maxLength: 10 },
      )
      .map((parts) => parts.join(''));
    const prefix = fc.constantFrom('k: "', "k: '", 'k: ', 'k: [', 'k: {', '- ', '"', 'k: |\n  ', 'k: >-\n  ', 'k:\n  - ', 'k: [{a: "', '');
    // what closes the prefix, so that the input also reads to its end (not only fails early)
    const suffix = fc.constantFrom('', '"', "'", ']', '}', '"}]', '\n');
    const perCharacter = (text: string): number => {
      parseWork.steps = 0;
      try {
        parseYamlSubset(text, 0, 1_000_000);
      } catch (err) {
        if (!(err instanceof FrontmatterError)) throw err;
      }
      return parseWork.steps / text.length;
    };
    fc.assert(
      fc.property(prefix, unit, suffix, (start, repeated, end) => {
        const sized = (n: number) => start + repeated.repeat(Math.ceil(n / repeated.length)) + end;
        const small = perCharacter(sized(1_000));
        const large = perCharacter(sized(32_000));
        // the cost per character must not grow with the input (quadratic work would grow it 32-fold)
        assert.ok(
          large <= small * 1.5 + 4,
          `${JSON.stringify(start)} + ${JSON.stringify(repeated)}… + ${JSON.stringify(end)}: ${small.toFixed(1)} steps per character at 1k, ${large.toFixed(1)} at 32k`,
        );
        assert.ok(large <= 100, `${large} steps per character`);
      }),
      { numRuns: 300 },
    );
  });

  it('splits SKILL.md (BOM, CRLF) and refuses a file without frontmatter', () => {
    assert.deepEqual(parseFrontmatter('\ufeff---\r\nname: x\r\ndescription: y\r\n---\r\nBody\r\n'), {
      frontmatter: { name: 'x', description: 'y' },
      body: 'Body\r\n',
    });
    assert.equal(splitSkillMd('# no frontmatter\n'), undefined);
    assert.equal(splitSkillMd('---\nname: x\n'), undefined);
    assert.throws(() => parseFrontmatter('---\n- a list\n---\n'), /not a YAML mapping/);
    assert.throws(() => renderFrontmatter({ n: Number.NaN }), TypeError);
  });
});
