// Which test files are the library's unit tests: what `npm run test:unit` runs.
//
// The rule: a unit test is a `*.test.ts` file under src/ none of whose imports, followed
// through every module of the checkout it loads (the library's sources, test/helpers/,
// scripts/), reaches a module that starts processes or needs a service: `node:child_process`
// (every child process: redis-server, tmux, the `mcpkit` CLI, a stdio server, `npm pack`, the
// Bun, Deno and workerd binaries), `node:cluster`, `ioredis` (a Redis server) or
// `playwright-core` (a browser). Nothing to declare: a test that starts using Redis or a
// process leaves the unit set by the import that does it. Type-only imports
// (`import type`, `export type`) load nothing and are not followed. Servers in tests bind
// 127.0.0.1 (a rule of the house), so loopback networking is allowed.
//
// The rule reads sources, so it is decided before anything is built. scripts/unit-guard.mjs
// holds it at run time: in a unit run, a test that starts a process anyway (through a
// package the scan does not enter) fails with a message naming this file.
//
// Usage: node scripts/unit-tests.mjs [--why FILE]   (lists the unit tests, or says why FILE is not one)
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder whose tests can be unit tests, relative to the root. */
export const UNIT_ROOT = 'src';

/** Module specifiers a unit test must not reach, each with what it stands for. */
export const OUTSIDE = {
  'node:child_process': 'starts processes',
  child_process: 'starts processes',
  'node:cluster': 'starts processes',
  cluster: 'starts processes',
  ioredis: 'needs a Redis server',
  'playwright-core': 'drives a browser',
};

/**
 * The module specifiers `text` (TypeScript or JavaScript) loads: static imports and
 * re-exports, side-effect imports and `import()` of a string literal; type-only imports and
 * re-exports are left out.
 */
export function importsOf(text) {
  const specifiers = [];
  for (const m of text.matchAll(/(?:^|[;}\n])[ \t]*(?:import|export)\b([^'";]*?)\bfrom[ \t]*['"]([^'"\n]+)['"]/g)) {
    if (!/^\s*type\b/.test(m[1])) specifiers.push(m[2]);
  }
  for (const m of text.matchAll(/(?:^|[;}\n])[ \t]*import[ \t]*['"]([^'"\n]+)['"]/g)) specifiers.push(m[1]);
  for (const m of text.matchAll(/\bimport\(\s*['"]([^'"\n]+)['"]\s*\)/g)) specifiers.push(m[1]);
  return specifiers;
}

/**
 * The checkout file (root-relative, `/`-separated) that `specifier`, imported from `from`
 * (root-relative), loads; `undefined` for a package or a Node built-in. A compiled `.js`
 * path stands for its `.ts` source; `mcpkit` and `mcpkit/...` stand for the source of the
 * export (as package.json maps it to dist/).
 */
export function resolveInCheckout(root, from, specifier, exportsMap = readExports(root)) {
  let target;
  if (specifier.startsWith('.')) target = join(dirname(from), specifier);
  else if (specifier === 'mcpkit' || specifier.startsWith('mcpkit/')) {
    const built = exportsMap['.' + specifier.slice('mcpkit'.length)];
    if (built === undefined) return undefined;
    target = built.replace(/^\.\/dist\//, 'src/');
  } else return undefined;
  target = target.split('\\').join('/');
  for (const candidate of [target.replace(/\.js$/, '.ts').replace(/\.mjs$/, '.mts'), target, `${target}.ts`, `${target}/index.ts`]) {
    if (existsSync(join(root, candidate)) && !candidate.endsWith('/')) return candidate;
  }
  return undefined;
}

/** package.json's exports, each as its `import` path. */
function readExports(root) {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const map = {};
  for (const [name, target] of Object.entries(manifest.exports ?? {})) {
    const built = typeof target === 'string' ? target : target?.import;
    if (typeof built === 'string') map[name] = built;
  }
  return map;
}

/**
 * Why `file` (root-relative) is not a unit test: the chain of modules from it to the first
 * {@link OUTSIDE} specifier it reaches, ending in that specifier and its reason
 * (`['src/a.test.ts', 'test/helpers/x.ts', 'node:child_process (starts processes)']`);
 * `undefined` when it reaches none.
 */
export function outsideChain(root, file, exportsMap = readExports(root)) {
  const seen = new Set([file]);
  const queue = [[file]];
  while (queue.length > 0) {
    const chain = queue.shift();
    const current = chain[chain.length - 1];
    for (const specifier of importsOf(readFileSync(join(root, current), 'utf8'))) {
      if (specifier in OUTSIDE) return [...chain, `${specifier} (${OUTSIDE[specifier]})`];
      const next = resolveInCheckout(root, current, specifier, exportsMap);
      if (next === undefined || seen.has(next)) continue;
      seen.add(next);
      queue.push([...chain, next]);
    }
  }
  return undefined;
}

/** The unit tests of the checkout at `root`: sorted root-relative source paths (`src/x/y.test.ts`). */
export function unitTests(root) {
  const exportsMap = readExports(root);
  return readdirSync(join(root, UNIT_ROOT), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.test.ts'))
    .map((entry) =>
      relative(root, join(entry.parentPath ?? entry.path, entry.name))
        .split('\\')
        .join('/'),
    )
    .filter((file) => outsideChain(root, file, exportsMap) === undefined)
    .sort();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = dirname(dirname(fileURLToPath(import.meta.url)));
  const why = process.argv.indexOf('--why');
  if (why !== -1) {
    const file = process.argv[why + 1];
    if (file === undefined || !existsSync(join(root, file))) {
      console.error('usage: node scripts/unit-tests.mjs --why src/path/to/file.test.ts');
      process.exit(1);
    }
    const chain = outsideChain(root, file);
    console.log(
      chain === undefined
        ? `${file} reaches no module outside the unit rule${file.startsWith(`${UNIT_ROOT}/`) ? ': a unit test' : `, but only tests under ${UNIT_ROOT}/ are unit tests`}`
        : `${file} is not a unit test:\n  ${chain.join('\n  → ')}`,
    );
  } else for (const file of unitTests(root)) console.log(file);
}
