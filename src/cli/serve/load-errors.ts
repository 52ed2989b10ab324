/**
 * Making a module's load failure say where and what to do:
 *
 * - a JavaScript syntax error: Node's `import()` rejects with a bare `SyntaxError` (the
 *   file:line and the caret Node prints for an uncaught one are lost), so the module and its
 *   local imports are checked with `node --check` and the first failing file's report
 *   (file:line, the source line, the caret, the message) is shown;
 * - an esbuild (tsx) error naming `file:line:column`: the source line and a caret are added;
 * - a TypeScript or CommonJS module that `import`s mcpkit from a package without
 *   `"type": "module"`: mcpkit is ESM-only, so the message says which package.json to change
 *   (or to name the file `.mts`).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { localDependencies } from './dependencies.js';

/** Most files `node --check`ed to find a syntax error. */
const MAX_CHECKED_FILES = 50;

/** Longest source line shown under a location, in characters. */
const MAX_SOURCE_LINE = 200;

const JS_EXTENSIONS = new Set(['.js', '.mjs', '.cjs', '.jsx']);

/**
 * For a `SyntaxError` without a location: Node's own report (file:line, source line, caret,
 * message) for the first of `file` and its local imports that does not compile, or undefined.
 */
export function locateSyntaxError(file: string): string | undefined {
  const files = [file, ...localDependencies(file).filter((f) => f !== file)].filter((f) => JS_EXTENSIONS.has(extname(f))).slice(0, MAX_CHECKED_FILES);
  for (const f of files) {
    const r = spawnSync(process.execPath, ['--check', f], { encoding: 'utf8', timeout: 10_000 });
    if (r.status !== 0 && typeof r.stderr === 'string' && r.stderr.includes('SyntaxError')) {
      // Node's report ends with the stack of its own checker and its version line: keep the report
      const lines = r.stderr.split('\n');
      const end = lines.findIndex((line) => /SyntaxError/.test(line));
      return lines
        .slice(0, end + 1)
        .join('\n')
        .trim();
    }
  }
  return undefined;
}

/**
 * The file esbuild meant by `named`: itself when it exists, else the same name with another
 * TypeScript extension (tsx reports an `.mts` file under a `.ts` name), else undefined.
 */
function existingSource(named: string): string | undefined {
  if (existsSync(named)) return named;
  const stem = named.slice(0, named.length - extname(named).length);
  return ['.mts', '.cts', '.tsx', '.ts'].map((ext) => stem + ext).find((candidate) => existsSync(candidate));
}

/**
 * `text` with the source line and a caret added under the first `file:line:column: ` it
 * names (esbuild's form), that file name corrected when tsx reported it with another
 * extension.
 */
export function addCaret(text: string): string {
  const m = /^(.*?\S):(\d+):(\d+): /m.exec(text);
  if (m === null) return text;
  const file = existingSource(m[1]!);
  if (file === undefined) return text;
  let source: string;
  try {
    source = readFileSync(file, 'utf8').split('\n')[Number(m[2]) - 1] ?? '';
  } catch {
    return text;
  }
  const column = Number(m[3]);
  const located = file === m[1] ? text : `${text.slice(0, m.index)}${file}${text.slice(m.index + m[1]!.length)}`;
  if (source === '' || source.length > MAX_SOURCE_LINE || column > source.length) return located;
  const shift = file.length - m[1]!.length;
  const start = m.index + m[0].length + shift;
  const end = start + located.slice(start).search(/\n|$/);
  return `${located.slice(0, end)}\n    ${source.replace(/\t/g, ' ')}\n    ${' '.repeat(column)}^${located.slice(end)}`;
}

/** The nearest package.json above `file`, or undefined. */
export function nearestPackageJson(file: string): string | undefined {
  let dir = dirname(file);
  for (let i = 0; i < 100; i++) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) return candidate;
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
  return undefined;
}

/** True when `packageJson` declares `"type": "module"`. */
function isModulePackage(packageJson: string): boolean {
  try {
    return (JSON.parse(readFileSync(packageJson, 'utf8')) as { type?: unknown }).type === 'module';
  } catch {
    return false;
  }
}

/** Signs that a file was compiled as CommonJS while it is written as an ES module. */
const COMMONJS_SIGNS = [
  /ERR_PACKAGE_PATH_NOT_EXPORTED/,
  /No "exports" main defined/,
  /ERR_REQUIRE_ESM/,
  /Top-level await is currently not supported with the "cjs" output format/,
  /mcpkit is an ES module package/,
  /Cannot use import statement outside a module/,
];

/**
 * What to do when `file` failed with `message` because it was loaded as CommonJS (a `.ts` or
 * `.js` file in a package without `"type": "module"`, or a `.cts`/`.cjs` file), or undefined
 * when that is not the cause.
 */
export function commonJsHint(file: string, message: string): string | undefined {
  if (!COMMONJS_SIGNS.some((sign) => sign.test(message))) return undefined;
  const ext = extname(file);
  if (ext === '.mts' || ext === '.mjs') return undefined;
  if (ext === '.cts' || ext === '.cjs')
    return `${file} is a CommonJS module, and mcpkit is ESM-only: name it ${file.slice(0, -ext.length)}${ext === '.cts' ? '.mts' : '.mjs'} (or load mcpkit with await import('mcpkit/server'))`;
  const pkg = nearestPackageJson(file);
  if (pkg !== undefined && isModulePackage(pkg)) return undefined;
  const where = pkg === undefined ? 'there is no package.json above it' : `${pkg} has no "type": "module"`;
  return `${file} was loaded as CommonJS because ${where}, and mcpkit is ESM-only (import, not require). Add "type": "module" to ${pkg ?? 'a package.json beside it'}, or name the file ${file.slice(0, -ext.length)}${ext === '.ts' || ext === '.tsx' ? '.mts' : '.mjs'}`;
}
