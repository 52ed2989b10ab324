/**
 * Where the running mcpkit library's own files are, for the code that finds files relative
 * to itself (the script `mcpkit dev` starts, the folders whose stack frames are not the
 * user's).
 *
 * Design note: a module cannot count `../` from its own URL. The package ships its
 * JavaScript bundled (dist/: each entry point at its export path, code shared between entry
 * points in dist/chunks/), so a module's code may sit in a chunk at another depth than its
 * source; the test build (build/src/) runs the same modules file for file. Both layouts hold
 * the CLI's entry point at `cli/main.js` below the library root, and nothing else holds one,
 * so the root is the nearest folder at or above the module that has `cli/main.js`.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The file, relative to the library root, whose presence marks the root. */
export const ROOT_MARKER = join('cli', 'main.js');

/**
 * The library root (dist/ in the package, build/src/ in the test build) of the module at
 * `moduleUrl` (its `import.meta.url`): the nearest folder at or above the module's own that
 * holds {@link ROOT_MARKER}. `undefined` when there is none (a broken install); callers say
 * what that means for them.
 */
export function libraryRoot(moduleUrl: string): string | undefined {
  for (let dir = dirname(fileURLToPath(moduleUrl)); ; ) {
    if (existsSync(join(dir, ROOT_MARKER))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}
