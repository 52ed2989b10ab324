// Compiles the TypeScript projects: `library` (tsconfig.json: src/ without its tests, to
// dist/, what the package ships and bin/mcpkit.js runs) and `test` (tsconfig.test.json:
// src/ with its tests, test/, bench/, conformance/ and examples/, to build/).
// Both builds are incremental, and their build info lives in build/, outside the output
// folder of the library: when an output folder is gone, its build info is removed first, so
// the compiler emits everything again instead of trusting the stale record. After each
// build, outputs no source accounts for any more (a file moved or deleted, a test file, a
// source map of an older layout) are removed, so dist/ is exactly what the package ships.
//
// Usage: node scripts/build.mjs [library] [test]   (no argument: library only)
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, rmdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

/**
 * Each project (as its tsconfig says): the tsconfig, a file its build always emits, its build
 * info, its rootDir and outDir, the kinds of output it emits per source, and which `.ts`
 * files under rootDir it compiles.
 */
export const PROJECTS = {
  library: {
    config: 'tsconfig.json',
    emits: 'dist/index.js',
    buildInfo: 'build/library.tsbuildinfo',
    rootDir: 'src',
    outDir: 'dist',
    outputs: ['.d.ts', '.js'],
    compiles: (source) => !source.endsWith('.test.ts'),
  },
  test: {
    config: 'tsconfig.test.json',
    emits: 'build/src/index.js',
    buildInfo: 'build/test.tsbuildinfo',
    rootDir: '.',
    outDir: 'build',
    outputs: ['.js.map', '.js'],
    compiles: (source) => /^(src|test|bench|conformance|examples)\//.test(source) && source !== 'examples/third-party-auth-server.ts',
  },
};

/**
 * Removes the files under `project.outDir` (relative to `root`) that no source it compiles
 * accounts for, and the folders that leaves empty; every project's build info stays.
 * Returns the removed files, relative to `root`, `/`-separated.
 */
export function prune(root, project) {
  const keep = new Set(Object.values(PROJECTS).map((p) => join(root, p.buildInfo)));
  const removed = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) {
        walk(path);
        if (readdirSync(path).length === 0) rmdirSync(path);
        continue;
      }
      if (keep.has(path)) continue;
      const output = relative(join(root, project.outDir), path).split('\\').join('/');
      const kind = project.outputs.find((ext) => output.endsWith(ext));
      const source = kind === undefined ? undefined : join(project.rootDir, output.slice(0, -kind.length) + '.ts').split('\\').join('/');
      if (source !== undefined && project.compiles(source) && existsSync(join(root, source))) continue;
      rmSync(path);
      removed.push(relative(root, path).split('\\').join('/'));
    }
  };
  if (existsSync(join(root, project.outDir))) walk(join(root, project.outDir));
  return removed;
}

/** Builds the named projects in the order given (the library before the tests); throws when the compiler reports errors. */
export function build(names) {
  for (const name of names) {
    const project = PROJECTS[name];
    if (project === undefined) throw new Error(`unknown project ${name} (known: ${Object.keys(PROJECTS).join(', ')})`);
    if (!existsSync(join(ROOT, project.emits))) rmSync(join(ROOT, project.buildInfo), { force: true });
    execFileSync(process.execPath, [TSC, '-p', project.config], { cwd: ROOT, stdio: 'inherit' });
    const removed = prune(ROOT, project);
    if (removed.length > 0) console.log(`build: removed ${removed.length} stale file(s) from ${project.outDir}/`);
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
