// Quoting for the consent screen (SEP-1024: "the exact command that will be executed, without
// truncation", "all arguments"). The strongest check that a quoted form is exact: a POSIX
// shell (bash) reading it back gets the original string, for any string without NUL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describeVariable, hasHiddenCharacters, quote, quoteCommandLine } from './display.js';

/** What bash makes of `quoted` as one word: each byte, read back as UTF-8. */
function bashReads(quotedWords: string): string[] {
  const out = execFileSync('bash', ['-c', `for w in ${quotedWords}; do printf '%s\\0' "$w"; done`], { env: { LC_ALL: 'C.UTF-8', PATH: process.env.PATH }, encoding: 'utf8' });
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
  assert.equal(describeVariable('NODE_OPTIONS', '--require /tmp/x.js'), "NODE_OPTIONS='--require /tmp/x.js'   <- changes which code runs: loads code into the program");
  assert.equal(describeVariable('LD_PRELOAD', '/tmp/evil.so'), 'LD_PRELOAD=/tmp/evil.so   <- changes which code runs: loads code into the program');
});

test('placeholders are not secrets; a secret next to a placeholder still is', () => {
  assert.equal(describeVariable('Authorization', 'Bearer ${input:token}'), "Authorization='Bearer ${input:token}'");
  assert.match(describeVariable('Authorization', 'Bearer sk-1 ${input:x}'), /\*{8} \(secret/);
  assert.match(describeVariable('API_KEY', '${input:a}sk-live'), /\*{8} \(secret/);
});
