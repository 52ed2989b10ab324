/**
 * `mcpkit/skills/node`: skills read from folders (Node only). A skill folder holds a
 * `SKILL.md` at its root and any other files below it; the folder's name must be the
 * skill's name.
 */
import { lstat, readFile, readdir } from 'node:fs/promises';
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
 * entries (names starting with `.`) are skipped; symbolic links and other special files
 * are refused (a TypeError naming the path), so a skill never serves what lies outside its
 * folder. Throws TypeError when `SKILL.md` is missing or the folder's name differs from the
 * frontmatter's `name` (checked by `add`), RangeError past the limits.
 */
export async function loadSkillDirectory(dir: string, options: LoadSkillDirectoryOptions = {}): Promise<SkillDefinition> {
  const maxFiles = options.maxFiles ?? SKILL_LIMITS.files;
  const maxBytes = options.maxBytes ?? SKILL_LIMITS.bytes;
  const isText = options.isText ?? looksLikeText;
  const files: Record<string, string | Uint8Array> = {};
  let count = 0;
  let total = 0;
  async function walk(rel: string): Promise<void> {
    const entries = (await readdir(join(dir, rel), { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const path = rel === '' ? entry.name : `${rel}/${entry.name}`;
      const info = await lstat(join(dir, path));
      if (info.isDirectory()) {
        await walk(path);
        continue;
      }
      if (!info.isFile()) throw new TypeError(`Skill file ${path} is not a regular file (symbolic links and special files are not served)`);
      if (++count > maxFiles) throw new RangeError(`The skill in ${dir} has more than ${maxFiles} files`);
      total += info.size;
      if (total > maxBytes) throw new RangeError(`The skill in ${dir} has more than ${maxBytes} bytes`);
      const bytes = new Uint8Array(await readFile(join(dir, path)));
      files[path] = isText(path, bytes) ? decoder.decode(bytes) : bytes;
    }
  }
  await walk('');
  if (typeof files[SKILL_MD] !== 'string') throw new TypeError(`${join(dir, SKILL_MD)} is missing or not text`);
  return { name: basename(dir), files };
}
