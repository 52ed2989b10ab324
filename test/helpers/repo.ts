/**
 * Paths of the checkout the tests run in. Compiled tests live under `build/` (one folder
 * deeper than their sources), so a test never counts `..` to reach the repository: it uses
 * these instead.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The nearest folder above `start` whose package.json names the `mcpkit` package; throws when there is none. */
function findRoot(start: string): string {
  for (let dir = start; ; ) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === 'mcpkit') return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no mcpkit package.json above ${start}`);
    dir = parent;
  }
}

/** The repository root (the folder holding mcpkit's package.json). */
export const REPO_ROOT: string = findRoot(dirname(fileURLToPath(import.meta.url)));
/** The library build that ships (`tsconfig.json`'s outDir), which `bin/mcpkit.js` runs. */
export const DIST: string = join(REPO_ROOT, 'dist');
/** The `mcpkit` command's script. */
export const MCPKIT_BIN: string = join(REPO_ROOT, 'bin', 'mcpkit.js');
