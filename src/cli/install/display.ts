/**
 * How `mcpkit install` shows what it is about to write: strings quoted so a reader can tell
 * exactly where each argument starts and ends, with every character that could hide or
 * disguise text (control characters, bidirectional overrides, zero-width and other format
 * characters, unusual spaces, unassigned code points) written as an escape, and environment
 * or header values masked when their name says they hold a secret.
 *
 * The quoting follows POSIX shell conventions so that what is shown can also be pasted into a
 * shell: plain words stay bare, other text is single-quoted, and text with characters that
 * must be escaped uses the `$'...'` form (bash, zsh, ksh, and POSIX.1-2024 sh).
 */
import { codeEnvRow } from './code-env.js';

/** Characters that need no quoting in a shell word. */
const BARE = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * Characters that must never be shown raw: C0/C1 controls and DEL (Cc), format characters such
 * as bidi overrides, zero-width joiners and tag characters (Cf), lone surrogates (Cs),
 * private-use and unassigned code points (Co, Cn), line and paragraph separators (Zl, Zp),
 * every space other than U+0020 (Zs), every code point Unicode marks as default-ignorable
 * (drawn as nothing: U+034F COMBINING GRAPHEME JOINER, the Hangul fillers U+115F, U+1160,
 * U+3164 and U+FFA0, variation selectors, tags, ...), and the blank-looking U+2800 BRAILLE
 * PATTERN BLANK.
 */
const HIDDEN_CHAR = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\u2800\p{Me}]|(?! )\p{Zs}/u;
/**
 * Combining marks that disguise rather than spell: a mark not after a letter or digit (it
 * would draw over a quote, a space or a sign: `'` with U+0338 reads as another character),
 * and marks stacked more than {@link MAX_MARKS} deep (they draw over the lines above and below
 * the text, hiding a DANGER line). Marks on letters, as in `é` written decomposed, stay.
 */
const MAX_MARKS = 2;
const DISGUISING_MARKS = new RegExp(`(?<![\\p{L}\\p{N}\\p{M}])\\p{M}+|(?<=[\\p{L}\\p{N}])\\p{M}{${MAX_MARKS + 1},}`, 'u');
const HIDDEN = new RegExp(`${HIDDEN_CHAR.source}|${DISGUISING_MARKS.source}`, 'u');
const HIDDEN_ALL = new RegExp(HIDDEN.source, 'gu');

const NAMED_ESCAPES: Record<string, string> = {
  '\\': '\\\\',
  "'": "\\'",
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\v': '\\v',
  '\x1b': '\\E',
};

/** True when `text` holds a character that {@link quote} writes as an escape. */
export function hasHiddenCharacters(text: string): boolean {
  return HIDDEN.test(text);
}

/**
 * Quotes one string for display, unambiguously and untruncated: bare when it is a plain
 * shell word, `'...'` when it holds only visible characters, `$'...'` with escapes (`\n`,
 * `\x1b` style `\E`, `\xHH`, `\uHHHH`, `\UHHHHHHHH`) when it holds any hidden character.
 * The empty string is shown as `''`.
 */
export function quote(text: string): string {
  if (BARE.test(text)) return text;
  if (!HIDDEN.test(text)) return `'${text.replaceAll("'", `'\\''`)}'`;
  let out = "$'";
  let last = 0;
  for (const match of text.matchAll(HIDDEN_ALL)) {
    out += text.slice(last, match.index).replace(/[\\']/g, (ch) => NAMED_ESCAPES[ch]!);
    for (const ch of match[0]) out += NAMED_ESCAPES[ch] ?? escapeCodePoint(ch.codePointAt(0)!);
    last = match.index + match[0].length;
  }
  return `${out}${text.slice(last).replace(/[\\']/g, (ch) => NAMED_ESCAPES[ch]!)}'`;
}

function escapeCodePoint(cp: number): string {
  if (cp < 0x80) return `\\x${cp.toString(16).padStart(2, '0')}`;
  if (cp <= 0xffff) return `\\u${cp.toString(16).padStart(4, '0')}`;
  return `\\U${cp.toString(16).padStart(8, '0')}`;
}

/** A whole command line, each part quoted with {@link quote} and separated by one space. */
export function quoteCommandLine(command: string, args: readonly string[]): string {
  return [command, ...args].map(quote).join(' ');
}

/** Names of environment variables and headers whose values are treated as secrets. */
const SECRET_NAME = /KEY|TOKEN|SECRET|PASS|PWD|AUTH|CRED|PRIVATE|COOKIE|SESSION|SIGNATURE|CERT/i;

/**
 * A value that only points at another place (`${input:id}`, `${env:NAME}`), possibly after an
 * authorization scheme (`Bearer ${input:token}`), holds no secret itself.
 */
function isPlaceholder(value: string): boolean {
  const rest = value.replace(/\$\{[^}]*\}/g, '').trim();
  return value.includes('${') && (rest === '' || /^(Bearer|Basic|Token)$/i.test(rest));
}

/** True when an environment variable named `name` (any letter case) changes what code a process runs (see {@link CODE_ENV}). */
export function isCodeLoadingEnv(name: string): boolean {
  return codeEnvRow(name) !== undefined;
}

/**
 * Shows `name=value` for the consent screen: the value masked (with its length) when the
 * name looks like it holds a secret, unless the name loads code (always shown) or the value
 * is a placeholder; both name and value quoted with {@link quote}.
 */
export function describeVariable(name: string, value: string): string {
  const row = codeEnvRow(name);
  if (row !== undefined) return `${quote(name)}=${quote(value)}   <- changes which code runs: ${row.effect}`;
  if (SECRET_NAME.test(name) && !isPlaceholder(value)) return `${quote(name)}=******** (secret, ${[...value].length} characters, not shown)`;
  return `${quote(name)}=${quote(value)}`;
}

/**
 * Text safe to print on a terminal, for every line the install commands write that is not
 * built from {@link quote}d parts (error messages, which may quote input, paths, names):
 * each character {@link quote} would escape, except the line feed, is written as `\xHH`,
 * `\uHHHH` or `\UHHHHHHHH`, so no escape sequence, bidi override or invisible
 * character reaches the terminal raw.
 */
export function safeText(text: string): string {
  return text.replace(HIDDEN_ALL, (run) => [...run].map((ch) => (ch === '\n' ? ch : escapeCodePoint(ch.codePointAt(0)!))).join(''));
}

/**
 * JSON text with every character {@link quote} would escape written as a `\uHHHH` escape
 * (a pair for code points above U+FFFF): the same JSON value, safe to print on a terminal.
 * Valid for JSON without indentation, where such characters occur only inside strings.
 */
export function safeJson(json: string): string {
  return json.replace(HIDDEN_ALL, (run) => [...Array(run.length).keys()].map((i) => `\\u${run.charCodeAt(i).toString(16).padStart(4, '0')}`).join(''));
}

/** Every character outside printable ASCII as an escape: shows what a look-alike name really is. */
export function escapeNonAscii(text: string): string {
  let out = '';
  for (const ch of text) out += /[\x20-\x7e]/.test(ch) ? ch : escapeCodePoint(ch.codePointAt(0)!);
  return out;
}
