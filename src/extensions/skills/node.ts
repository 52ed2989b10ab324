/**
 * `mcpkit/skills/node`: skills read from folders (Node only). A skill folder holds a
 * `SKILL.md` at its root and any other files below it; the folder's name must be the
 * skill's name.
 */
import { constants, existsSync } from 'node:fs';
import { type FileHandle, lstat, open, readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { SkillDefinition } from './server.js';
import { SKILL_LIMITS, SKILL_MD } from './wire.js';

/** Options of {@link loadSkillDirectory}. */
export interface LoadSkillDirectoryOptions {
  /** Most files read (SKILL.md included). Default 512 ({@link SKILL_LIMITS}); past it a RangeError, before reading more. */
  maxFiles?: number;
  /** Most bytes read, summed over the files. Default 16 MiB ({@link SKILL_LIMITS}); past it a RangeError, before reading more. */
  maxBytes?: number;
  /**
   * Which files are served as text (the others as bytes). Default: a file is text when it
   * is valid UTF-8 without NUL bytes.
   */
  isText?: (path: string, bytes: Uint8Array) => boolean;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

function looksLikeText(_path: string, bytes: Uint8Array): boolean {
  if (bytes.includes(0)) return false;
  try {
    decoder.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * Reads the skill in `dir` into a {@link SkillDefinition} for `SkillsServer.add`. Hidden
 * entries (names starting with `.`) are skipped; symbolic links, hard links (a file with
 * more than one link may be a file outside the folder), files on another device and other
 * special files are refused (a TypeError naming the path), so a skill never serves what
 * lies outside its folder. `dir` itself may be a symbolic link (the operator names it).
 *
 * Race-free against a writer changing the folder while it is read: every file and folder
 * is opened once without following a symbolic link (`O_NOFOLLOW`) and checked through the
 * open handle (`fstat`), never by a path checked first and opened later; on Linux the
 * entries of a folder are opened through its open handle (`/proc/self/fd`), so a folder
 * swapped for a link mid-walk is not followed either (elsewhere folders are checked with
 * `lstat` before they are listed, and the files in them still on their handles). Throws TypeError when `SKILL.md` is
 * missing or the folder's name differs from the frontmatter's `name` (checked by `add`),
 * RangeError past the limits (checked before reading more).
 */
export async function loadSkillDirectory(dir: string, options: LoadSkillDirectoryOptions = {}): Promise<SkillDefinition> {
  const maxFiles = options.maxFiles ?? SKILL_LIMITS.files;
  const maxBytes = options.maxBytes ?? SKILL_LIMITS.bytes;
  const isText = options.isText ?? looksLikeText;
  const files: Record<string, string | Uint8Array> = {};
  let count = 0;
  let total = 0;
  // folders are held open (and their entries reached through the handle) where the platform allows it
  const top = PROC_FD ? await open(dir, constants.O_RDONLY | DIRECTORY) : undefined;
  const device = (top !== undefined ? await top.stat() : await stat(dir)).dev;
  async function walk(handle: FileHandle | undefined, fallback: string, rel: string): Promise<void> {
    const base = handle !== undefined ? `/proc/self/fd/${handle.fd}` : fallback;
    const entries = (await readdir(base, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const path = rel === '' ? entry.name : `${rel}/${entry.name}`;
      // lstat only to avoid opening a FIFO or device; what is read is decided on the handle
      const seen = await lstat(join(base, entry.name));
      if (!seen.isDirectory() && !seen.isFile()) throw notRegular(path);
      if (seen.isFile() && ++count > maxFiles) throw new RangeError(`The skill in ${dir} has more than ${maxFiles} files`);
      if (seen.isDirectory() && !PROC_FD) {
        if (seen.dev !== device) throw new TypeError(`Skill folder ${path} is on another device than the skill folder and is not served`);
        await walk(undefined, join(fallback, entry.name), path);
        continue;
      }
      const child = await openNoFollow(join(base, entry.name), path, seen.isDirectory());
      try {
        const info = await child.stat();
        if (info.dev !== device) throw new TypeError(`Skill file ${path} is on another device than the skill folder and is not served`);
        if (info.isDirectory()) {
          if (!seen.isDirectory()) throw notRegular(path);
          await walk(child, join(fallback, entry.name), path);
          continue;
        }
        if (!info.isFile() || !seen.isFile()) throw notRegular(path);
        if (info.nlink > 1)
          throw new TypeError(
            `Skill file ${path} has ${info.nlink} hard links; a hard-linked file may lie outside the skill folder and is not served (copy it instead)`,
          );
        if (total + info.size > maxBytes) throw new RangeError(`The skill in ${dir} has more than ${maxBytes} bytes`);
        const bytes = await readAll(child, info.size, path);
        total += bytes.length;
        files[path] = isText(path, bytes) ? decoder.decode(bytes) : bytes;
      } finally {
        await child.close();
      }
    }
  }
  try {
    await walk(top, dir, '');
  } finally {
    await top?.close();
  }
  if (typeof files[SKILL_MD] !== 'string') throw new TypeError(`${join(dir, SKILL_MD)} is missing or not text`);
  return { name: basename(dir), files };
}

/** `O_NOFOLLOW` / `O_DIRECTORY` / `O_NONBLOCK` where the platform has them (0 elsewhere, e.g. Windows). */
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const DIRECTORY = constants.O_DIRECTORY ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;
/** Linux: a folder's entries are reached through its open handle, not its path. */
const PROC_FD = process.platform === 'linux' && existsSync('/proc/self/fd');

const notRegular = (path: string): TypeError => new TypeError(`Skill file ${path} is not a regular file (symbolic links and special files are not served)`);

/** Opens `full` without following a final symbolic link (a link there: TypeError naming `path`). */
async function openNoFollow(full: string, path: string, directory: boolean): Promise<FileHandle> {
  try {
    return await open(full, constants.O_RDONLY | NOFOLLOW | NONBLOCK | (directory ? DIRECTORY : 0));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'ENOTDIR' || code === 'EMLINK') throw notRegular(path);
    throw err;
  }
}

/** The whole file behind `handle`, which `fstat` said has `size` bytes; a file growing meanwhile is refused. */
async function readAll(handle: FileHandle, size: number, path: string): Promise<Uint8Array> {
  const buffer = new Uint8Array(size + 1);
  let length = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
    if (bytesRead === 0) return buffer.subarray(0, length);
    length += bytesRead;
    if (length > size) throw new RangeError(`Skill file ${path} grew while it was read; load the skill once it is written`);
  }
}
