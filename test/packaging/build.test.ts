/**
 * scripts/build.mjs removes what no source (or, for the bundled library, the bundle just
 * written) accounts for any more, so the library build is exactly the package
 * (test/packaging/tarball.test.ts checks dist/ against the tarball) and a compiled test whose
 * source moved does not linger in build/. test/packaging/bundle.test.ts checks the bundle
 * itself.
 */

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '../helpers/repo.js';

// scripts/ is not compiled: load the script from the checkout (typed from its .d.mts)
const { EXTRA_ENTRIES, PROJECTS, libraryEntries, prune } = (await import(
  pathToFileURL(join(REPO_ROOT, 'scripts', 'build.mjs')).href
)) as typeof import('../../scripts/build.mjs');

/** A temporary root holding `files` (empty content). */
function tree(files: readonly string[]): string {
  const root = mkdtempSync(join(tmpdir(), 'mcpkit-build-'));
  for (const file of files) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), '');
  }
  return root;
}

test('library: declarations of existing sources and the bundle just written stay; everything else goes', () => {
  const kept = ['dist/a.d.ts', 'dist/sub/b.d.ts'];
  // what esbuild reported writing: entry points at their paths, shared chunks
  const bundled = ['dist/a.js', 'dist/chunks/chunk-NEW.js', 'dist/chunks/b-NEW.js'];
  const stale = [
    'dist/.tsbuildinfo',
    'dist/a.js.map',
    'dist/a.test.js',
    'dist/a.test.d.ts',
    'dist/gone.d.ts',
    'dist/gone.js',
    'dist/old/x.js',
    'dist/notes.txt',
    // a per-source output of an older, unbundled build, and a chunk of an older bundle
    'dist/sub/b.js',
    'dist/chunks/chunk-OLD.js',
  ];
  const root = tree(['src/a.ts', 'src/a.test.ts', 'src/sub/b.ts', 'build/library.tsbuildinfo', ...kept, ...bundled, ...stale]);
  try {
    assert.deepEqual(prune(root, PROJECTS.library, bundled).sort(), [...stale].sort());
    for (const file of [...kept, ...bundled]) assert.ok(existsSync(join(root, file)), `${file} was removed`);
    assert.ok(!existsSync(join(root, 'dist', 'old')), 'a folder left empty is removed');
    assert.ok(existsSync(join(root, 'build', 'library.tsbuildinfo')));
    // without the bundle's list, no JavaScript of the library is accounted for
    assert.deepEqual(prune(root, PROJECTS.library).sort(), [...bundled].sort());
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("the bundle's entry points: every export of package.json at its path, the CLI and the dev generation script", () => {
  const entries = libraryEntries(REPO_ROOT);
  const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { exports: Record<string, { import: string }> };
  for (const [name, target] of Object.entries(manifest.exports))
    assert.ok(entries.includes(target.import.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts')), `export ${name}`);
  for (const extra of EXTRA_ENTRIES) assert.ok(entries.includes(extra), extra);
  assert.equal(entries.length, new Set([...Object.keys(manifest.exports), ...EXTRA_ENTRIES]).size);
});

test('an export the bundle cannot build is an error that names it', () => {
  const root = tree(['src/a.ts']);
  try {
    writeFileSync(join(root, 'package.json'), JSON.stringify({ exports: { '.': { import: './dist/a.js' }, './b': { import: './dist/b.js' } } }));
    assert.throws(() => libraryEntries(root), /export "\.\/b" names \.\/dist\/b\.js, but src\/b\.ts does not exist/);
    writeFileSync(join(root, 'package.json'), JSON.stringify({ exports: { '.': { import: './lib/a.mjs' } } }));
    assert.throws(() => libraryEntries(root), /export "\." has no "import" of the form \.\/dist\/<path>\.js/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('test project: compiled tests and their maps stay while their source exists; build info stays', () => {
  // the inner loop's record and type-check build info (scripts/quick-build.mjs) stay too
  const kept = [
    'build/library.tsbuildinfo',
    'build/test.tsbuildinfo',
    'build/loop-state.json',
    'build/check.tsbuildinfo',
    'build/src/a.js',
    'build/src/a.js.map',
    'build/src/a.test.js',
    'build/test/t.test.js',
  ];
  const stale = ['build/bench/gone.js', 'build/src/moved.test.js', 'build/src/moved.test.js.map', 'build/examples/third-party-auth-server.js'];
  const root = tree(['src/a.ts', 'src/a.test.ts', 'test/t.test.ts', 'examples/third-party-auth-server.ts', ...kept, ...stale]);
  try {
    assert.deepEqual(prune(root, PROJECTS.test).sort(), [...stale].sort());
    for (const file of kept) assert.ok(existsSync(join(root, file)), `${file} was removed`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('the project table matches the tsconfig files', () => {
  for (const project of Object.values(PROJECTS)) {
    // the tsconfig files carry whole-line `//` comments only
    const text = readFileSync(join(REPO_ROOT, project.config), 'utf8').replace(/^\s*\/\/.*$/gm, '');
    let config = JSON.parse(text) as { extends?: string; include?: string[]; compilerOptions: Record<string, unknown> };
    assert.deepEqual(project.folders, config.include, `${project.config}: include`);
    const options = { ...config.compilerOptions };
    while (config.extends !== undefined) {
      config = JSON.parse(readFileSync(join(REPO_ROOT, config.extends), 'utf8').replace(/^\s*\/\/.*$/gm, '')) as typeof config;
      for (const [key, value] of Object.entries(config.compilerOptions)) if (!(key in options)) options[key] = value;
    }
    assert.equal(options.outDir, project.outDir, project.config);
    assert.equal(options.rootDir, project.rootDir, project.config);
    assert.equal(options.tsBuildInfoFile, project.buildInfo, project.config);
    assert.equal(options.declaration === true, project.outputs.includes('.d.ts'), `${project.config}: declaration`);
    assert.equal(options.sourceMap === true, project.outputs.includes('.js.map'), `${project.config}: sourceMap`);
    // a bundled project's compiler emits declarations only; esbuild writes its JavaScript
    assert.equal(options.emitDeclarationOnly === true, project.bundled, `${project.config}: emitDeclarationOnly`);
    assert.equal(project.outputs.includes('.js'), !project.bundled, `${project.config}: .js outputs`);
  }
});
