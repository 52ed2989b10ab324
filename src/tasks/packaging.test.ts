/**
 * Packaging of the tasks feature: `mcpkit/tasks` is runtime-neutral and depends only on what
 * the server and client entry points do (ajv, through the schema layer); `mcpkit/tasks/sqlite`
 * is the one module that imports better-sqlite3; both subpaths are exported.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { DIST } from '../../test/helpers/repo.js';

const dist = DIST;
const IMPORT = /(?:^|[;\s])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^import\s*['"]([^'"]+)['"]/gm;

function imports(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(IMPORT)].map((m) => m[1] ?? m[2] ?? m[3]!);
}

/** Every bare specifier reachable from `entry` through relative imports. */
function bareImports(entry: string): Map<string, string> {
  const bare = new Map<string, string>();
  const queue = [resolve(dist, entry)];
  const seen = new Set<string>();
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const spec of imports(file)) {
      if (spec.startsWith('.')) queue.push(join(dirname(file), spec));
      else bare.set(spec, file.slice(dist.length + 1));
    }
  }
  return bare;
}

test('mcpkit/tasks imports no Node built-in and no package beyond ajv', () => {
  const builtins = new Set(builtinModules);
  for (const [spec, from] of bareImports('tasks/index.js')) {
    assert.ok(!spec.startsWith('node:') && !builtins.has(spec), `${from} imports ${spec}`);
    assert.match(spec, /^ajv(-formats)?(\/|$)/, `${from} pulls in ${spec}`);
  }
});

test('only tasks/sqlite-store.js imports better-sqlite3, and nothing loads it statically', () => {
  // the bundle (scripts/build.mjs): entry points and the chunks in dist/chunks/
  const files: string[] = [];
  (function walk(dir: string) {
    for (const name of readdirSync(dir, { withFileTypes: true })) {
      if (name.isDirectory()) walk(join(dir, name.name));
      else if (name.name.endsWith('.js')) files.push(join(dir, name.name));
    }
  })(dist);
  const importers = files
    .filter((f) => imports(f).includes('better-sqlite3'))
    .map((f) =>
      f
        .slice(dist.length + 1)
        .split('\\')
        .join('/'),
    );
  assert.deepEqual(importers, ['tasks/sqlite-store.js']);
  // the demo (in a chunk of the CLI) reaches the store by import() only, so it stays runtime-neutral
  const STATIC = /^(?:import|export)\s[^;'"]*?\bfrom\s*['"]([^'"]+)['"]|^import\s*['"]([^'"]+)['"]/gm;
  const staticImporters = files.filter((f) =>
    [...readFileSync(f, 'utf8').matchAll(STATIC)].some((m) => resolve(dirname(f), m[1] ?? m[2]!) === join(dist, 'tasks', 'sqlite-store.js')),
  );
  assert.deepEqual(staticImporters, [], 'a static import of tasks/sqlite-store.js');
});

test('package.json exports mcpkit/tasks and mcpkit/tasks/sqlite', () => {
  const pkg = JSON.parse(readFileSync(join(dist, '..', 'package.json'), 'utf8')) as {
    exports: Record<string, { import: string; types: string }>;
    peerDependenciesMeta: Record<string, { optional: boolean }>;
  };
  assert.equal(pkg.exports['./tasks']?.import, './dist/tasks/index.js');
  assert.equal(pkg.exports['./tasks']?.types, './dist/tasks/index.d.ts');
  assert.equal(pkg.exports['./tasks/sqlite']?.import, './dist/tasks/sqlite-store.js');
  assert.equal(pkg.peerDependenciesMeta['better-sqlite3']?.optional, true);
});
