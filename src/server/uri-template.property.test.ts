/**
 * Property tests of RFC 6570 URI templates (https://www.rfc-editor.org/rfc/rfc6570): a
 * client sends the URI of `resources/read`, so `match` sees peer-controlled input.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { check } from '../../test/abuse/chunk-splits.js';
import { UriTemplate, type UriTemplateVariables } from './uri-template.js';

test('construction and matching never throw on arbitrary input (construction only a TypeError)', () => {
  const templateText = fc
    .array(
      fc.oneof(
        fc.constantFrom('{', '}', '{x}', '{+p}', '{?q,r}', '{/s*}', '{.t}', '{;u}', '{#f}', '{&a}', '{x:3}', ',', '*', ':'),
        fc.string({ maxLength: 4 }),
      ),
      { maxLength: 12 },
    )
    .map((p) => p.join(''));
  check(
    fc.property(templateText, fc.string({ unit: 'binary', maxLength: 60 }), (text, uri) => {
      let t: UriTemplate;
      try {
        t = new UriTemplate(text);
      } catch (error) {
        assert.ok(error instanceof TypeError, String(error));
        return;
      }
      const result = t.match(uri);
      if (result !== null)
        for (const v of Object.values(result)) assert.ok(typeof v === 'string' || (Array.isArray(v) && v.every((s) => typeof s === 'string')));
      t.match(t.expand({}));
    }),
    500,
  );
});

const OPS = ['', '+', '#', '.', '/', ';', '?', '&'] as const;
type Op = (typeof OPS)[number];
/** Literal text put between expressions: reserved characters that no expansion below produces ('*' may stand for none, see below). */
const SEPARATORS = ['!', '@', '$', ':', '!x', '@@', "'", '(', '*'];

/** Characters a value may hold. `+` and `#` pass reserved characters through, so theirs are unreserved (and non-ASCII). */
const anyChar = fc.string({ unit: 'binary', minLength: 0, maxLength: 6 });
const plainChar = fc.string({ unit: fc.constantFrom('a', 'Z', '0', '-', '_', '~', '.', 'é', '😀'), maxLength: 6 });

function valueFor(op: Op): fc.Arbitrary<string> {
  if (op === '+' || op === '#') return plainChar;
  if (op === '.') return anyChar.map((s) => s.replace(/\./g, '')); // '.' is both unreserved and this operator's separator
  return anyChar;
}

interface Spec {
  template: string;
  variables: Record<string, string | string[]>;
}

/** A template of 1-5 expressions (1-3 variables each, the last possibly exploded) between literals, and values for it. */
const templateAndValues: fc.Arbitrary<Spec> = fc
  .record({
    head: fc.constantFrom('test://', 'x:', 'file:///'),
    exprs: fc.array(fc.record({ op: fc.constantFrom(...OPS), count: fc.integer({ min: 1, max: 3 }), explode: fc.boolean() }), { minLength: 1, maxLength: 5 }),
    seps: fc.array(fc.constantFrom(...SEPARATORS), { minLength: 5, maxLength: 5 }),
    tail: fc.constantFrom('', '!end', '$'),
  })
  .chain(({ head, exprs, seps, tail }) => {
    let n = 0;
    const parts: string[] = [head];
    const arbs: Record<string, fc.Arbitrary<string | string[]>> = {};
    exprs.forEach(({ op, count, explode }, i) => {
      const specs: string[] = [];
      for (let k = 0; k < count; k++) {
        const name = `v${n++}`;
        const exploded = explode && k === count - 1;
        specs.push(exploded ? `${name}*` : name);
        arbs[name] = exploded ? fc.array(valueFor(op), { minLength: 1, maxLength: 3 }) : valueFor(op);
      }
      parts.push(`{${op}${specs.join(',')}}`);
      if (i < exprs.length - 1) {
        // No literal at all where the next expression's leading character delimits this one
        // unambiguously: no value here can contain it, and it is not this operator's own.
        const next = exprs[i + 1]!.op;
        const adjacent = seps[i] === '*' && (next === '/' || next === '?' || next === '#') && next !== op;
        parts.push(adjacent ? '' : seps[i]!);
      }
    });
    parts.push(tail);
    return fc.record(arbs).map((variables) => ({ template: parts.join(''), variables: { ...variables } }));
  });

test('round trip: expanding values and matching the result gives the values back', () => {
  check(
    fc.property(templateAndValues, ({ template, variables }) => {
      const t = new UriTemplate(template);
      const uri = t.expand(variables as UriTemplateVariables);
      assert.deepEqual(t.match(uri), variables, `${template} expanded to ${uri}`);
    }),
    1000,
  );
});

test('linear work on adversarial URIs: character inspections stay within 8 x (URI + template length)', () => {
  const noise = fc.array(fc.constantFrom('a', '/', '?', '&', '=', ';', '.', ',', '#', '!', '@', '%', '%4', '%41', '-'), { minLength: 1, maxLength: 8 });
  check(
    fc.property(templateAndValues, noise, fc.integer({ min: 100, max: 4000 }), ({ template }, pattern, repeat) => {
      const t = new UriTemplate(template, { maxUriLength: 1 << 20 });
      const head = template.slice(0, template.indexOf('{'));
      const uri = head + pattern.join('').repeat(repeat);
      const { steps } = t.measureMatch(uri);
      assert.ok(steps <= 8 * (uri.length + template.length), `${steps} steps for ${uri.length} characters of ${template}`);
    }),
    200,
  );
});
