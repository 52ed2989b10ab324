// Quoting for the consent screen (SEP-1024: "the exact command that will be executed, without
// truncation", "all arguments"). The strongest check that a quoted form is exact: a POSIX
// shell (bash) reading it back gets the original string, for any string without NUL.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import fc from 'fast-check';
import { describeVariable, hasHiddenCharacters, quote, quoteCommandLine, safeJson, safeText } from './display.js';

/** What bash makes of `quoted` as one word: each byte, read back as UTF-8. */
function bashReads(quotedWords: string): string[] {
  const out = execFileSync('bash', ['-c', `for w in ${quotedWords}; do printf '%s\\0' "$w"; done`], {
    env: { LC_ALL: 'C.UTF-8', PATH: process.env.PATH },
    encoding: 'utf8',
  });
  return out.split('\0').slice(0, -1);
}

test('examples: bare words, single quotes, $-escapes for hidden characters', () => {
  assert.equal(quote('npx'), 'npx');
  assert.equal(quote('@scope/pkg@1.2.3'), '@scope/pkg@1.2.3');
  assert.equal(quote(''), "''");
  assert.equal(quote('a b'), "'a b'");
  assert.equal(quote("it's"), `'it'\\''s'`);
  assert.equal(quote('; rm -rf ~ $(touch /tmp/pwned)'), "'; rm -rf ~ $(touch /tmp/pwned)'");
  assert.equal(quote('line\nbreak'), "$'line\\nbreak'");
  assert.equal(quote('\x1b[2J'), "$'\\E[2J'");
  assert.equal(quote('a\u202Eb'), "$'a\\u202eb'");
  assert.equal(quote('zero\u200Bwidth'), "$'zero\\u200bwidth'");
  assert.equal(quote('nb\u00A0sp'), "$'nb\\u00a0sp'");
  assert.equal(quote('tag\u{E0041}'), "$'tag\\U000e0041'");
  assert.equal(quote("q'\x7f"), "$'q\\'\\x7f'");
  assert.equal(quote('héllo wörld'), "'héllo wörld'");
  assert.equal(hasHiddenCharacters('plain text'), false);
  assert.equal(hasHiddenCharacters('bidi\u2066'), true);
  assert.equal(quoteCommandLine('sh', ['-c', 'echo hi']), "sh -c 'echo hi'");
});

test('the quoted form is exact: bash reads back every string (no NUL), one word each', () => {
  const text = fc.string({ unit: 'binary', maxLength: 40 }).filter((s) => !s.includes('\0'));
  fc.assert(
    fc.property(fc.array(text, { minLength: 1, maxLength: 5 }), (words) => {
      const quoted = words.map(quote).join(' ');
      assert.deepEqual(bashReads(quoted), words);
      assert.ok(!hasHiddenCharacters(quoted), 'the quoted form itself shows no hidden character');
    }),
    { numRuns: 60 },
  );
});

test('variables: secret-looking names masked with their length, code-loading names always shown', () => {
  assert.equal(describeVariable('API_KEY', 'sk-123'), 'API_KEY=******** (secret, 6 characters, not shown)');
  assert.equal(describeVariable('GITHUB_TOKEN', '${input:token}'), "GITHUB_TOKEN='${input:token}'");
  assert.equal(describeVariable('DEBUG', '1'), 'DEBUG=1');
  assert.equal(
    describeVariable('NODE_OPTIONS', '--require /tmp/x.js'),
    "NODE_OPTIONS='--require /tmp/x.js'   <- changes which code runs: loads code into the program",
  );
  assert.equal(describeVariable('LD_PRELOAD', '/tmp/evil.so'), 'LD_PRELOAD=/tmp/evil.so   <- changes which code runs: loads code into the program');
});

test('placeholders are not secrets; a secret next to a placeholder still is', () => {
  assert.equal(describeVariable('Authorization', 'Bearer ${input:token}'), "Authorization='Bearer ${input:token}'");
  assert.match(describeVariable('Authorization', 'Bearer sk-1 ${input:x}'), /\*{8} \(secret/);
  assert.match(describeVariable('API_KEY', '${input:a}sk-live'), /\*{8} \(secret/);
});

test('invisible and confusable code points beyond Cf/Zs are escaped: Hangul fillers, braille blank, CGJ, variation selectors, tags', () => {
  const cases: [string, string][] = [
    ['a\u3164b', "$'a\\u3164b'"],
    ['a\u115Fb', "$'a\\u115fb'"],
    ['a\uFFA0b', "$'a\\uffa0b'"],
    ['a\u2800b', "$'a\\u2800b'"],
    ['a\u034Fb', "$'a\\u034fb'"],
    ['a\uFE0Fb', "$'a\\ufe0fb'"],
    ['a\u{E0100}b', "$'a\\U000e0100b'"],
    ['a\u{E0061}b', "$'a\\U000e0061b'"],
    ['a\u180Eb', "$'a\\u180eb'"],
    ['a\u17B4b', "$'a\\u17b4b'"],
    ['a\u2061b', "$'a\\u2061b'"],
  ];
  for (const [text, shown] of cases) {
    assert.equal(quote(text), shown, JSON.stringify(text));
    assert.equal(hasHiddenCharacters(text), true);
  }
});

test('safeText escapes ESC, OSC, C1 controls and bidi in any line (keeping line feeds); safeJson keeps the JSON value', () => {
  const hostile = 'x\x1b]0;pwned\x07 \x1b[2J \u009b31m \u202Eevil\u2066 \u3164 end\nnext';
  const safe = safeText(hostile);
  assert.ok(!/[\x1b\x07\u009b\u202e\u2066\u3164]/.test(safe), safe);
  assert.equal(safe, 'x\\x1b]0;pwned\\x07 \\x1b[2J \\u009b31m \\u202eevil\\u2066 \\u3164 end\nnext');
  const json = JSON.stringify({ name: hostile, astral: '\u{E0041}' });
  const safeJ = safeJson(json);
  assert.ok(!/[\x1b\u009b\u202e\u2066\u3164\u{E0041}]/u.test(safeJ), safeJ);
  assert.deepEqual(JSON.parse(safeJ), JSON.parse(json));
});

test('attack round 2: combining marks that disguise are escaped (on a quote or space, stacked over other lines); marks on letters stay', () => {
  const onQuote = "a' \u0338b";
  assert.equal(quote(onQuote), "$'a\\' \\u0338b'");
  assert.equal(quote('\u20DDx'), "$'\\u20ddx'", 'an enclosing mark is always escaped');
  const zalgo = `npx${'\u0336\u0301\u0353'.repeat(40)}`;
  assert.ok(hasHiddenCharacters(zalgo));
  assert.ok(!/\p{M}/u.test(quote(zalgo)), quote(zalgo));
  assert.ok(!/\p{M}/u.test(safeText(`line ${zalgo}\n`)));
  assert.ok(!/\p{M}/u.test(safeJson(JSON.stringify({ a: zalgo }))));
  assert.deepEqual(JSON.parse(safeJson(JSON.stringify({ a: zalgo }))), { a: zalgo });
  assert.equal(quote('cafe\u0301 x'), "'cafe\u0301 x'", 'a decomposed é is text');
  assert.equal(hasHiddenCharacters('re\u0301sume\u0301'), false);
});
