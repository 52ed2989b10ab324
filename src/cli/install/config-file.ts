/**
 * Reading and changing a client's config file without losing anything:
 *
 * - The file is read as JSON with comments and trailing commas (JSONC, as VS Code and Cursor
 *   allow), after a bounded scan (size, nesting depth, number of values) so that a hostile
 *   file cannot exhaust the stack or memory. A file that is not UTF-8, or does not parse, is
 *   refused with the line and column of the problem (never quoting its text).
 * - A change edits the text (jsonc-parser's `modify` + `applyEdits`, as VS Code does): only the
 *   entry added, replaced or removed changes. Comments, key order, duplicate keys elsewhere,
 *   numbers beyond double precision, a byte-order mark, CRLF line ends, indentation and compact
 *   entries all stay as they were. The new entry is laid out like its neighbours (one line in a
 *   one-line map, indented otherwise). The result is parsed again and must equal the old
 *   content with exactly that change, or nothing is written.
 * - A key the change depends on that occurs twice (two `mcpServers` maps, or the server's name
 *   twice in one map) is refused: which one a client reads is not defined.
 * - Writing (see safe-write.ts) never follows a link: the config path itself may be a link (the
 *   consent screen names the real file, which is what changes), but the backup, temporary and
 *   lock files are created with `O_EXCL` and renamed into place. Under an exclusive lock file
 *   the file is read again; if it changed since the consent screen, the change is made again on
 *   the new content when what the user agreed to still holds (the server is still absent, or
 *   still the same entry), and refused otherwise.
 */
import { lstat, mkdir, readlink, realpath } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { checkJsoncShape, jsonc, parseJsonc } from '../../client/jsonc.js';
import { isObject } from '../../jsonrpc/values.js';
import { InstallInputError } from './entry.js';
import { type LockOptions, readNoFollow, replaceFile, withLock } from './safe-write.js';

/** The config file changed between reading and writing it in a way that matters; nothing was written. */
export class ConfigChangedError extends Error {
  override name = 'ConfigChangedError';
}

/** Default for {@link ConfigLimits.maxConfigBytes}. */
export const DEFAULT_MAX_CONFIG_BYTES = 16 * 1024 * 1024;
/** Default for {@link ConfigLimits.maxConfigDepth}. */
export const DEFAULT_MAX_CONFIG_DEPTH = 100;
/** Default for {@link ConfigLimits.maxConfigValues}. */
export const DEFAULT_MAX_CONFIG_VALUES = 1_000_000;

/** Limits on the config files read, and how long to wait for the lock. */
export interface ConfigLimits extends LockOptions {
  /** Largest config file read, in bytes (default 16 MiB); a larger file is refused before it is parsed and left untouched. */
  maxConfigBytes?: number;
  /** Deepest nesting of objects and arrays (default 100); deeper is refused before parsing. */
  maxConfigDepth?: number;
  /** Most values (strings, numbers, literals, objects, arrays) in the file (default 1,000,000); more is refused before parsing. */
  maxConfigValues?: number;
}

/** A config file as read. */
export interface ConfigFile {
  /** The path given. */
  path: string;
  /** The file that is read and changed: `path` with symbolic links resolved. */
  target: string;
  /** The exact bytes read, or null when the file does not exist yet. */
  original: Buffer | null;
  /** The text, without a byte-order mark. */
  text: string;
  /** Whether the file starts with a UTF-8 byte-order mark (kept). */
  bom: boolean;
  /** The parsed top-level object (`{}` for a missing or blank file); keys never reach a prototype. */
  data: Record<string, unknown>;
  /** Key paths (JSON of the path array) that occur more than once in their object. */
  duplicates: Set<string>;
  /** The file mode to keep, or 0o600 for a new file (it may hold secrets). */
  mode: number;
  /** Indentation unit found in the file (two spaces when none is found). */
  indent: string;
  /** Line ending found in the file. */
  eol: '\n' | '\r\n';
}

/**
 * Reads and parses a config file. Throws {@link InstallInputError} when it cannot be used
 * (see the module note), including a link to a missing file.
 */
export async function readConfigFile(path: string, limits: ConfigLimits = {}): Promise<ConfigFile> {
  const target = await resolveTarget(path);
  const read = await readNoFollow(target, limits.maxConfigBytes ?? DEFAULT_MAX_CONFIG_BYTES).catch((err: Error) => {
    if (err.name === 'NotARegularFileError') throw new InstallInputError(err.message);
    throw err;
  });
  if (read === null) return emptyConfig(path, target);
  return parseConfig(path, target, read.bytes, read.mode, limits);
}

/** `path` with every symbolic link resolved; a link to a missing file is refused. */
async function resolveTarget(path: string): Promise<string> {
  const absolute = resolve(path);
  const info = await lstat(absolute).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (info === undefined) {
    // a new file: resolve the folder, if it exists
    return realpath(dirname(absolute)).then(
      (folder) => join(folder, basename(absolute)),
      () => absolute,
    );
  }
  try {
    return await realpath(absolute);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    const to = await readlink(absolute).catch(() => '?');
    throw new InstallInputError(
      `${path} is a symbolic link to a missing file (${to}); mcpkit does not create files through links: remove the link or point it at an existing file`,
    );
  }
}

function emptyConfig(path: string, target: string): ConfigFile {
  return { path, target, original: null, text: '', bom: false, data: {}, duplicates: new Set(), mode: 0o600, indent: '  ', eol: '\n' };
}

function parseConfig(path: string, target: string, bytes: Buffer, mode: number, limits: ConfigLimits): ConfigFile {
  let decoded: string;
  try {
    decoded = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new InstallInputError(`${path} is not UTF-8 text; not touching it`);
  }
  const bom = decoded.startsWith('\uFEFF');
  const text = bom ? decoded.slice(1) : decoded;
  let data: unknown = {};
  let duplicates = new Set<string>();
  if (text.trim() !== '') {
    checkShape(text, path, limits);
    ({ value: data, duplicates } = parseText(text, path));
  }
  if (!isObject(data)) throw new InstallInputError(`${path} does not hold a JSON object at the top level`);
  const indent = /\n([ \t]+)\S/.exec(text)?.[1] ?? '  ';
  return { path, target, original: bytes, text, bom, data, duplicates, mode, indent, eol: text.includes('\r\n') ? '\r\n' : '\n' };
}

/** Refuses too deep a nesting or too many values before anything recursive runs. */
function checkShape(text: string, path: string, limits: ConfigLimits): void {
  checkJsoncShape(text, limits.maxConfigDepth ?? DEFAULT_MAX_CONFIG_DEPTH, limits.maxConfigValues ?? DEFAULT_MAX_CONFIG_VALUES, (problem) => {
    throw new InstallInputError(
      problem.kind === 'depth'
        ? `${path} nests objects and arrays deeper than ${problem.limit} levels; not touching it`
        : `${path} holds more than ${problem.limit} values; not touching it`,
    );
  });
}

/** {@link parseJsonc} with the installer's error. */
function parseText(text: string, where: string): { value: unknown; duplicates: Set<string> } {
  return parseJsonc(text, (error) => {
    throw new InstallInputError(`${where} is not valid JSON or JSONC (${error}); fix it first`);
  });
}

/**
 * The servers map of `file` under `key` (undefined when missing). Throws
 * {@link InstallInputError} when the key holds something other than an object, or occurs twice.
 */
export function serversOf(file: ConfigFile, key: string): Record<string, unknown> | undefined {
  if (file.duplicates.has(JSON.stringify([key]))) {
    throw new InstallInputError(
      `${file.path} has the key "${key}" more than once; which one a client reads is not defined, so mcpkit does not guess: merge them by hand first`,
    );
  }
  const servers = file.data[key];
  if (servers === undefined) return undefined;
  if (!isObject(servers)) throw new InstallInputError(`${file.path}: "${key}" is not an object; not touching the file`);
  return servers;
}

/** Throws {@link InstallInputError} when `name` occurs twice in the servers map `key`. */
export function checkUniqueName(file: ConfigFile, key: string, name: string): void {
  if (file.duplicates.has(JSON.stringify([key, name]))) {
    throw new InstallInputError(
      `${file.path} has the server ${JSON.stringify(name)} more than once in "${key}"; which one a client reads is not defined: remove one by hand first`,
    );
  }
}

/** A JSON path: keys and array indexes (-1 appends). */
export type JsonPath = (string | number)[];

/**
 * The text of `file` with the value at `path` set to `value` (or removed when undefined), as
 * one text edit laid out like its surroundings. Throws when the edited text would not parse
 * back to the old content with exactly that change.
 */
export function editText(file: ConfigFile, text: string, path: JsonPath, value: unknown): string {
  let next: string;
  if (text.trim() === '') {
    if (value === undefined) return text;
    let whole: unknown = value;
    for (const segment of [...path].reverse()) whole = typeof segment === 'number' ? [whole] : { [segment]: whole };
    next = layout(whole, '', file) + file.eol;
  } else {
    const edits = jsonc.modify(text, path, value, {});
    if (edits.length === 0) return text;
    next = jsonc.applyEdits(text, shape(text, edits[0]!, file));
  }
  const before = text.trim() === '' ? {} : parseText(text, file.path).value;
  const expected = applyToValue(before, path, value);
  const after = parseText(next, file.path).value;
  if (JSON.stringify(after) !== JSON.stringify(expected))
    throw new Error(`${file.path}: the edit did not give the expected content; nothing was written (please report this)`);
  return next;
}

/** `value` as JSON, indented with the file's unit and its line ending, continuing at `lineIndent`. */
function layout(value: unknown, lineIndent: string, file: ConfigFile): string {
  return JSON.stringify(value, null, file.indent)
    .split('\n')
    .join(file.eol + lineIndent);
}

/** Leading blanks of the line holding `offset`. */
function indentAt(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start, start + 256))![0];
}

/**
 * Lays out `modify`'s one compact edit like its surroundings: an insertion after a sibling
 * that is followed by a line break goes on a line of its own at the sibling's indentation; an
 * insertion into an empty container of a multi-line file opens it one level deeper; a
 * replaced value keeps the old value's style (one line stays one line).
 */
function shape(text: string, edit: Edit, file: ConfigFile): Edit[] {
  const { offset, length, content } = edit;
  if (content === '') {
    // removing a later entry: a // comment on the line of the entry before it stays there
    const comment = /^([ \t]*),([ \t]*\/\/[^\r\n]*)/.exec(text.slice(offset, offset + Math.min(length, 4096)));
    if (comment !== null)
      return [
        { offset: offset + comment[1]!.length, length: 1, content: '' },
        { offset: offset + comment[0].length, length: length - comment[0].length, content: '' },
      ];
    // removing the first entry: the line break and indentation after the brace stay
    if (!/[{[]/.test(text[offset - 1] ?? '')) return [edit];
    // the only entry: the container becomes empty, `{}`
    const tail = /^[ \t\r\n]*[}\]]/.exec(text.slice(offset + length, offset + length + 4096));
    if (tail !== null) return [{ offset, length: length + tail[0].length - 1, content }];
    const blanks = /^[ \t\r\n]*/.exec(text.slice(offset, offset + Math.min(length, 4096)))![0].length;
    return [{ offset: offset + blanks, length: length - blanks, content }];
  }
  if (length > 0) {
    if (!text.slice(offset, offset + length).includes('\n')) return [edit];
    return [{ offset, length, content: layout(JSON.parse(content), indentAt(text, offset), file) }];
  }
  const after = content.startsWith(',');
  const body = after ? content.slice(1) : content;
  const property = /^"(?:[^"\\]|\\.)*": /.exec(body);
  const head = property?.[0] ?? '';
  const value: unknown = JSON.parse(body.slice(head.length));
  if (after) {
    // the rest of the sibling's line (a comma, comments) ending in a line break means one entry
    // a line: the new one goes on a line of its own after it, and the comments stay put
    const rest = restOfLine(text, offset);
    if (rest === undefined) return [edit];
    const indent = indentAt(text, offset);
    const line = { offset: rest.end, length: 0, content: `${file.eol}${indent}${head}${layout(value, indent, file)}` };
    return rest.comma ? [line] : [{ offset, length: 0, content: ',' }, line];
  }
  if (!text.includes('\n')) return [edit];
  // an empty container: `{}`, `{ }` or `{\n}`; its blanks are replaced
  const blanks = /^[ \t\r\n]*/.exec(text.slice(offset, offset + 4096))![0];
  const outer = indentAt(text, offset);
  const inner = outer + file.indent;
  return [{ offset, length: blanks.length, content: `${file.eol}${inner}${head}${layout(value, inner, file)}${file.eol}${outer}` }];
}

/**
 * From `offset` (just after a value), skips blanks, one comma and one-line comments; returns
 * where the line ends (before its line break) and whether a comma was seen, or undefined when
 * something else follows on the same line.
 */
function restOfLine(text: string, offset: number): { end: number; comma: boolean } | undefined {
  let comma = false;
  const limit = Math.min(text.length, offset + 4096);
  for (let i = offset; i < limit; ) {
    const ch = text[i]!;
    if (ch === ' ' || ch === '\t') i++;
    else if (ch === ',' && !comma) {
      comma = true;
      i++;
    } else if (text.startsWith('//', i)) {
      const next = text.slice(i, limit).search(/\r?\n/);
      return next < 0 ? undefined : { end: i + next, comma };
    } else if (text.startsWith('/*', i)) {
      const close = text.indexOf('*/', i + 2);
      if (close < 0 || close > limit || text.slice(i, close).includes('\n')) return undefined;
      i = close + 2;
    } else if (ch === '\n' || (ch === '\r' && text[i + 1] === '\n')) return { end: i, comma };
    else return undefined;
  }
  return undefined;
}

/** One text edit, as jsonc-parser's `modify` gives it. */
interface Edit {
  offset: number;
  length: number;
  content: string;
}

/** A copy of `root` with `value` set at `path` (removed when undefined), as `modify` does it. */
function applyToValue(root: unknown, path: JsonPath, value: unknown): unknown {
  const copy = structuredClone(root) as Record<string, unknown>;
  let node: unknown = copy;
  for (let i = 0; i < path.length - 1; i++) {
    const segment = path[i]!;
    const container = node as Record<string | number, unknown>;
    if (container[segment] === undefined)
      Object.defineProperty(container, segment, { value: typeof path[i + 1] === 'number' ? [] : {}, enumerable: true, writable: true, configurable: true });
    node = container[segment];
  }
  const last = path.at(-1)!;
  if (Array.isArray(node) && last === -1) node.push(value);
  else if (value === undefined) delete (node as Record<string | number, unknown>)[last];
  else Object.defineProperty(node, last, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

/** The full new content of `file` from its edited text: the byte-order mark kept. */
function finish(file: ConfigFile, text: string): string {
  return (file.bom ? '\uFEFF' : '') + text;
}

/**
 * Changes the file under its lock: reads it again (without following a link), and when it
 * changed since `file` was read, parses the new content; `change` gets the current file and
 * whether it is unchanged, and returns the new text (from {@link editText}) or throws
 * {@link ConfigChangedError} when what was agreed to no longer holds. The previous content is
 * kept as `<target>.bak` (same mode), then the new text replaces the file. Resolves with the
 * backup path (undefined for a new file).
 */
export async function commitChange(
  file: ConfigFile,
  change: (current: ConfigFile, unchanged: boolean) => string,
  limits: ConfigLimits = {},
): Promise<string | undefined> {
  await mkdir(dirname(file.target), { recursive: true, mode: 0o700 });
  return withLock(
    file.target,
    async () => {
      const read = await readNoFollow(file.target, limits.maxConfigBytes ?? DEFAULT_MAX_CONFIG_BYTES).catch((err: Error) => {
        if (err.name === 'NotARegularFileError') throw new ConfigChangedError(`${err.message}; nothing was written`);
        throw err;
      });
      const unchanged = read === null ? file.original === null : file.original !== null && read.bytes.equals(file.original);
      const current = unchanged
        ? file
        : read === null
          ? emptyConfig(file.path, file.target)
          : parseConfig(file.path, file.target, read.bytes, read.mode, limits);
      const text = finish(current, change(current, unchanged));
      let backup: string | undefined;
      if (current.original !== null) {
        backup = `${current.target}.bak`;
        await replaceFile(backup, current.original, current.mode);
      }
      await replaceFile(current.target, text, current.mode);
      return backup;
    },
    limits,
  );
}
