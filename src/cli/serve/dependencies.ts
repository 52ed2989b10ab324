/**
 * The local files a module depends on, found by reading the source (no evaluation, so it
 * also works on a file that does not compile): every relative specifier of `import ... from`,
 * `export ... from`, `import '...'`, `import('...')` and `require('...')`, resolved the way
 * tsx and Node resolve them (`./x.js` may name `x.ts`; a folder means its `index` file),
 * followed transitively. Bare specifiers (packages) and `node:` modules are not followed.
 * A specifier in a comment or a string may be picked up too: that only watches one file more.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, resolve } from 'node:path';

/** Default for {@link DependencyLimits.maxFiles}. */
export const DEFAULT_MAX_FILES = 2000;

/** Bounds of the scan. */
export interface DependencyLimits {
  /** Most files followed (default {@link DEFAULT_MAX_FILES}); files past it are not watched. */
  maxFiles?: number;
  /** Files larger than this many bytes are watched but not read for imports (default 4 MiB). */
  maxFileBytes?: number;
}

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)(['"])(\.{1,2}\/[^'"\n]*)\1/g;

const CANDIDATE_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.mjs', '.cjs', '.jsx', '.json'];

/** `spec` (relative to `from`'s folder) as a file that exists, or undefined. */
function resolveLocal(from: string, spec: string): string | undefined {
  const base = resolve(dirname(from), spec.split(/[?#]/)[0]!);
  const ext = extname(base);
  const stem = ['.js', '.mjs', '.cjs', '.jsx'].includes(ext) ? base.slice(0, -ext.length) : undefined;
  const tries = [base];
  if (stem !== undefined)
    tries.push(...({ '.js': ['.ts', '.tsx'], '.mjs': ['.mts'], '.cjs': ['.cts'], '.jsx': ['.tsx'] } as Record<string, string[]>)[ext]!.map((e) => stem + e));
  tries.push(...CANDIDATE_EXTENSIONS.map((e) => base + e), ...CANDIDATE_EXTENSIONS.map((e) => resolve(base, `index${e}`)));
  return tries.find((p) => existsSync(p) && statSync(p).isFile());
}

/** `entry` and every local file it imports, directly or not (absolute paths, `entry` first). */
export function localDependencies(entry: string, limits: DependencyLimits = {}): string[] {
  const maxFiles = limits.maxFiles ?? DEFAULT_MAX_FILES;
  const maxBytes = limits.maxFileBytes ?? 4 * 1024 * 1024;
  const seen = new Set<string>([resolve(entry)]);
  const queue = [resolve(entry)];
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (file.includes('/node_modules/') || extname(file) === '.json') continue;
    let text: string;
    try {
      if (statSync(file).size > maxBytes) continue;
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const match of text.matchAll(SPECIFIER)) {
      const found = resolveLocal(file, match[2]!);
      if (found !== undefined && !seen.has(found) && seen.size < maxFiles) {
        seen.add(found);
        queue.push(found);
      }
    }
  }
  return [...seen];
}
