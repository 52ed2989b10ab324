/**
 * Reading and rewriting a client's JSON config file without losing anything:
 *
 * - The file is parsed as plain JSON; a file with comments or trailing commas (JSONC, as VS
 *   Code allows) is refused with a clear message rather than rewritten without its comments.
 * - Only one key of the servers map changes; every other key of the file and of the map keeps
 *   its value and its order. The file's indentation and line ending are kept.
 * - Before the change the previous content is copied to `<file>.bak` (same mode), then the new
 *   content is written to a temporary file in the same folder with the same mode and renamed
 *   over the original (an atomic replace on POSIX), following a symlink to its target.
 * - Right before the rename the file is read again: if it changed since it was read (another
 *   program wrote it while the user was answering), nothing is written.
 */
import { randomBytes } from 'node:crypto';
import { chmod, copyFile, mkdir, open, readFile, realpath, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { InstallInputError } from './entry.js';
import { isObject } from '../../jsonrpc/values.js';

/** The config file changed between reading and writing it (another program wrote it); nothing was written. */
export class ConfigChangedError extends Error {
  override name = 'ConfigChangedError';
}

/** Default for {@link ConfigLimits.maxConfigBytes}. */
export const DEFAULT_MAX_CONFIG_BYTES = 16 * 1024 * 1024;

/** Limits on the config files read. */
export interface ConfigLimits {
  /**
   * Largest config file read, in bytes (default {@link DEFAULT_MAX_CONFIG_BYTES}, 16 MiB). A
   * larger file is refused before it is parsed and left untouched.
   */
  maxConfigBytes?: number;
}

/** A config file as read: its exact bytes (to compare before writing) and its parsed content. */
export interface ConfigFile {
  /** The path given (a symlink is followed when writing). */
  path: string;
  /** The exact content read, or null when the file does not exist yet. */
  original: Buffer | null;
  /** The parsed top-level object (`{}` for a missing or blank file). */
  data: Record<string, unknown>;
  /** The file mode to keep, or 0o600 for a new file (it may hold secrets). */
  mode: number;
  /** Indentation unit found in the file (two spaces when none is found). */
  indent: string;
  /** Line ending found in the file. */
  eol: '\n' | '\r\n';
}

/** Reads and parses a config file; throws {@link InstallInputError} when it cannot be used. */
export async function readConfigFile(path: string, limits: ConfigLimits = {}): Promise<ConfigFile> {
  const max = limits.maxConfigBytes ?? DEFAULT_MAX_CONFIG_BYTES;
  let original: Buffer;
  let mode: number;
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new InstallInputError(`${path} is not a regular file`);
    if (info.size > max) throw new InstallInputError(`${path} is larger than ${max} bytes; not touching it`);
    mode = info.mode & 0o7777;
    original = await readFile(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { path, original: null, data: {}, mode: 0o600, indent: '  ', eol: '\n' };
    throw err;
  }
  if (original.length > max) throw new InstallInputError(`${path} is larger than ${max} bytes; not touching it`);
  const text = original.toString('utf8');
  let data: unknown = {};
  if (text.trim() !== '') {
    try {
      data = JSON.parse(text.replace(/^\uFEFF/, ''));
    } catch (err) {
      if (looksLikeJsonc(text)) {
        throw new InstallInputError(`${path} has comments or trailing commas (JSONC); mcpkit does not rewrite it, so that they are not lost: remove them, or add the server by hand`);
      }
      throw new InstallInputError(`${path} is not valid JSON (${(err as Error).message}); fix it first`);
    }
  }
  if (!isObject(data)) throw new InstallInputError(`${path} does not hold a JSON object at the top level`);
  const indent = /\n([ \t]+)\S/.exec(text)?.[1] ?? '  ';
  return { path, original, data, mode, indent, eol: text.includes('\r\n') ? '\r\n' : '\n' };
}

/**
 * The servers map of `file` under `key`, created (empty, at the end of the file's keys) when
 * missing. Throws {@link InstallInputError} when the key holds something other than an object.
 */
export function serversOf(file: ConfigFile, key: string, create: boolean): Record<string, unknown> | undefined {
  const servers = file.data[key];
  if (servers === undefined) {
    if (!create) return undefined;
    const fresh: Record<string, unknown> = {};
    file.data[key] = fresh;
    return fresh;
  }
  if (!isObject(servers)) throw new InstallInputError(`${file.path}: "${key}" is not an object; not touching the file`);
  return servers;
}

/** Sets or deletes one key of a map without going through `__proto__` setters. */
export function setKey(map: Record<string, unknown>, key: string, value: unknown): void {
  if (value === undefined) delete map[key];
  else Object.defineProperty(map, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * Writes `file.data` back: checks the file still holds `file.original`, copies it to
 * `<path>.bak`, writes a temporary file with the same mode in the same folder, and renames it
 * over the target. Returns the backup path (undefined for a new file). Throws
 * {@link ConfigChangedError} if the file changed meanwhile; on any failure the original is
 * left as it was and the temporary file is removed.
 */
export async function writeConfigFile(file: ConfigFile): Promise<string | undefined> {
  const target = file.original === null ? file.path : await realpath(file.path);
  const current = await readFile(target).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return null;
    throw err;
  });
  const unchanged = current === null ? file.original === null : file.original !== null && current.equals(file.original);
  if (!unchanged) throw new ConfigChangedError(`${file.path} changed while mcpkit was waiting; nothing was written, run the command again`);
  let text = JSON.stringify(file.data, null, file.indent) + '\n';
  if (file.eol === '\r\n') text = text.replaceAll('\n', '\r\n');
  await mkdir(dirname(target), { recursive: true, mode: 0o700 });
  let backup: string | undefined;
  if (file.original !== null) {
    backup = `${target}.bak`;
    await copyFile(target, backup);
    await chmod(backup, file.mode);
  }
  const temp = join(dirname(target), `.${basename(target)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const handle = await open(temp, 'wx', file.mode);
    try {
      await handle.chmod(file.mode);
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, target);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
  return backup;
}

/** True when stripping `//` and `/* *\/` comments and trailing commas makes `text` parse. */
function looksLikeJsonc(text: string): boolean {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '"') {
      const end = endOfString(text, i);
      out += text.slice(i, end);
      i = end - 1;
    } else if (ch === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (ch === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) return false;
      i = end + 1;
      out += ' ';
    } else {
      out += ch;
    }
  }
  try {
    JSON.parse(out.replace(/,(\s*[}\]])/g, '$1'));
    return true;
  } catch {
    return false;
  }
}

function endOfString(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i + 1;
  }
  return text.length;
}
