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

/** Characters that need no quoting in a shell word. */
const BARE = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * Characters that must never be shown raw: C0/C1 controls and DEL (Cc), format characters such
 * as bidi overrides, zero-width joiners and tag characters (Cf), lone surrogates (Cs),
 * private-use and unassigned code points (Co, Cn), line and paragraph separators (Zl, Zp), and
 * every space other than U+0020 (Zs).
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}]|(?! )\p{Zs}/u;

const NAMED_ESCAPES: Record<string, string> = {
  '\\': '\\\\', "'": "\\'", '\n': '\\n', '\r': '\\r', '\t': '\\t', '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\v': '\\v', '\x1b': '\\E',
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
  for (const ch of text) {
    const named = NAMED_ESCAPES[ch];
    if (named !== undefined) out += named;
    else if (HIDDEN.test(ch)) out += escapeCodePoint(ch.codePointAt(0)!);
    else out += ch;
  }
  return `${out}'`;
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

/**
 * Environment variables that change which code a process runs or loads: shown with their
 * value, never masked, and flagged, since a link can use them to run code even when the
 * command itself looks harmless.
 */
const CODE_LOADING_ENV = /^(LD_[A-Z_]+|DYLD_[A-Z_]+|NODE_OPTIONS|NODE_PATH|PATH|PYTHONPATH|PYTHONSTARTUP|PYTHONHOME|PERL5OPT|PERL5LIB|RUBYOPT|RUBYLIB|BASH_ENV|ENV|ZDOTDIR|GIT_SSH_COMMAND|GIT_EXEC_PATH|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|CLASSPATH|npm_config_[a-z_]+|NPM_CONFIG_[A-Z_]+)$/;

/** True when an environment variable named `name` changes what code a process runs. */
export function isCodeLoadingEnv(name: string): boolean {
  return CODE_LOADING_ENV.test(name);
}

/**
 * Shows `name=value` for the consent screen: the value masked (with its length) when the
 * name looks like it holds a secret, unless the name loads code (always shown) or the value
 * is a placeholder; both name and value quoted with {@link quote}.
 */
export function describeVariable(name: string, value: string): string {
  if (isCodeLoadingEnv(name)) return `${quote(name)}=${quote(value)}   <- changes which code runs`;
  if (SECRET_NAME.test(name) && !isPlaceholder(value)) return `${quote(name)}=******** (secret, ${[...value].length} characters, not shown)`;
  return `${quote(name)}=${quote(value)}`;
}
