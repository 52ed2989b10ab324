/**
 * The files of dist/ an entry point loads, read from the bundle's own import statements
 * (esbuild's unminified output: `import … from "./x.js"`, `export … from`, `import "./x.js"`,
 * and `import("./x.js")` for the lazily loaded chunks).
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { DIST } from './repo.js';

const IMPORT = /(?:^|[;\s])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^import\s*['"]([^'"]+)['"]/gm;

/**
 * Every file reachable from `entries` (paths relative to dist/) through relative imports,
 * as absolute paths, and the bare specifiers (packages, built-ins) they import, each with
 * the first file (relative to dist/) that does. `dynamic: false` leaves out what `import()`
 * loads: the files a process reads before the entry point's code runs.
 */
export function distGraph(entries: readonly string[], { dynamic = true } = {}): { files: string[]; bare: Map<string, string> } {
  const files: string[] = [];
  const bare = new Map<string, string>();
  const queue = entries.map((entry) => resolve(DIST, entry));
  const seen = new Set<string>();
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    files.push(file);
    for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      if (m[2] !== undefined && !dynamic) continue;
      const spec = m[1] ?? m[2] ?? m[3]!;
      if (spec.startsWith('.')) queue.push(join(dirname(file), spec));
      else if (!bare.has(spec)) bare.set(spec, file.slice(DIST.length + 1));
    }
  }
  return { files, bare };
}
