// Compiles the TypeScript projects: `library` (tsconfig.json: src/ without its tests, to
// dist/, what the package ships and bin/mcpkit.js runs) and `test` (tsconfig.test.json:
// src/ with its tests, test/, bench/, conformance/ and examples/, to build/).
// Both builds are incremental, and their build info lives in build/, outside the output
// folder of the library: when an output folder is gone, its build info is removed first, so
// the compiler emits everything again instead of trusting the stale record.
//
// Usage: node scripts/build.mjs [library] [test]   (no argument: library only)
import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

/** Each project: its tsconfig, a file its build always emits, and its build info (as in the tsconfig). */
export const PROJECTS = {
  library: { config: 'tsconfig.json', emits: 'dist/index.js', buildInfo: 'build/library.tsbuildinfo' },
  test: { config: 'tsconfig.test.json', emits: 'build/src/index.js', buildInfo: 'build/test.tsbuildinfo' },
};

/** Builds the named projects in order (library first); throws when the compiler reports errors. */
export function build(names) {
  for (const name of names) {
    const project = PROJECTS[name];
    if (project === undefined) throw new Error(`unknown project ${name} (known: ${Object.keys(PROJECTS).join(', ')})`);
    if (!existsSync(join(ROOT, project.emits))) rmSync(join(ROOT, project.buildInfo), { force: true });
    execFileSync(process.execPath, [TSC, '-p', project.config], { cwd: ROOT, stdio: 'inherit' });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const names = process.argv.slice(2);
  try {
    build(names.length === 0 ? ['library'] : ['library', 'test'].filter((n) => names.includes(n)).concat(names.filter((n) => !(n in PROJECTS))));
  } catch (err) {
    console.error(err.status === undefined ? `build: ${err.message}` : 'build: the compiler reported errors');
    process.exit(1);
  }
}
