/**
 * Packaging of the tasks feature: `mcpkit/tasks` is runtime-neutral and depends only on what
 * the server and client entry points do (ajv, through the schema layer); `mcpkit/tasks/sqlite`
 * is the one module that imports better-sqlite3; both subpaths are exported.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
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

test('only tasks/sqlite-store.js imports better-sqlite3, and the demo loads it lazily', () => {
  const importers = readdirSync(join(dist, 'tasks'))
    .filter((f) => f.endsWith('.js') && !f.endsWith('.test.js'))
    .filter((f) => imports(join(dist, 'tasks', f)).includes('better-sqlite3'));
  assert.deepEqual(importers, ['sqlite-store.js']);
  assert.ok(!bareImports('demo/server.js').has('better-sqlite3'), 'the demo server stays runtime-neutral');
});

test('package.json exports mcpkit/tasks and mcpkit/tasks/sqlite', () => {
  const pkg = JSON.parse(readFileSync(join(dist, '..', 'package.json'), 'utf8')) as { exports: Record<string, { import: string; types: string }>; peerDependenciesMeta: Record<string, { optional: boolean }> };
  assert.equal(pkg.exports['./tasks']?.import, './dist/tasks/index.js');
  assert.equal(pkg.exports['./tasks']?.types, './dist/tasks/index.d.ts');
  assert.equal(pkg.exports['./tasks/sqlite']?.import, './dist/tasks/sqlite-store.js');
  assert.equal(pkg.peerDependenciesMeta['better-sqlite3']?.optional, true);
});
