/**
 * The unit set (`npm run test:unit`): scripts/unit-tests.mjs chooses the src/ tests whose
 * imports reach no process, Redis or browser, and scripts/unit-guard.mjs holds a unit run to
 * that at run time.
 */

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '../helpers/repo.js';

// scripts/ is not compiled: load the script from the checkout (typed from its .d.mts)
const { importsOf, outsideChain, unitTests } = (await import(
  pathToFileURL(join(REPO_ROOT, 'scripts', 'unit-tests.mjs')).href
)) as typeof import('../../scripts/unit-tests.mjs');

/** A temporary checkout holding `files` (path → text) and an mcpkit package.json. */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'mcpkit-unit-'));
  files['package.json'] ??= JSON.stringify({ name: 'mcpkit', exports: { './server': { import: './dist/server/index.js' } } });
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), text);
  }
  return root;
}

test('the checkout: tests that need Redis, tmux, a browser or a child process are not unit tests; plain ones are', () => {
  const units = unitTests(REPO_ROOT);
  for (const outside of [
    'src/redis/bus.test.ts', // a Redis server (ioredis, redis-server)
    'src/redis/task-store.test.ts',
    'src/cli/terminal-pty.test.ts', // tmux
    'src/cli/client-commands.test.ts', // the mcpkit CLI as a process
    'src/stdio/client-transport.test.ts', // a stdio server process
    'src/auth/server/conformance-authorization.test.ts', // a browser and the conformance suite
  ]) {
    assert.ok(!units.includes(outside), `${outside} is in the unit set`);
    assert.ok(outsideChain(REPO_ROOT, outside) !== undefined, outside);
  }
  for (const inside of ['src/jsonrpc/decode.test.ts', 'src/server/tools.test.ts', 'src/http/server/streamable.test.ts', 'src/client/client.test.ts'])
    assert.ok(units.includes(inside), `${inside} is not in the unit set`);
  assert.ok(units.every((file) => file.startsWith('src/') && file.endsWith('.test.ts')));
  // the chain names how a test reaches Redis
  assert.match(
    outsideChain(REPO_ROOT, 'src/redis/bus.test.ts')!.join(' → '),
    /^src\/redis\/bus\.test\.ts → .* → (ioredis \(needs a Redis server\)|node:child_process \(starts processes\))$/,
  );
});

test('imports: static, re-exports, side effects and import() count; type-only imports do not', () => {
  const text = [
    "import { a } from './a.js';",
    "import type { B } from './b.js';",
    'import {',
    '  type C,',
    '  d,',
    "} from './c.js';",
    "export { e } from './e.js';",
    "export type { F } from './f.js';",
    "export * from './g.js';",
    "import './h.js';",
    "const i = await import('./i.js');",
    "import * as j from 'node:child_process';",
  ].join('\n');
  assert.deepEqual(importsOf(text).sort(), ['./a.js', './c.js', './e.js', './g.js', './h.js', './i.js', 'node:child_process'].sort());
});

test('the rule follows helpers, library modules and mcpkit/... imports, and only src/ tests are unit tests', () => {
  const root = tree({
    'src/server/index.ts': "export * from './spawner.js';",
    'src/server/spawner.ts': "import { spawn } from 'node:child_process';\nexport const go = spawn;",
    'src/plain.ts': 'export const x = 1;',
    'src/direct.test.ts': "import { spawnSync } from 'node:child_process';",
    'src/helper.test.ts': "import { redis } from '../test/helpers/redis.js';",
    'test/helpers/redis.ts': "import Redis from 'ioredis';\nexport const redis = Redis;",
    'src/library.test.ts': "import { go } from './server/index.js';",
    'src/self.test.ts': "import { go } from 'mcpkit/server';",
    'src/lazy.test.ts': "const browser = await import('playwright-core');",
    'src/types-only.test.ts': "import type { go } from './server/spawner.js';\nimport { x } from './plain.js';",
    'src/pure.test.ts': "import { x } from './plain.js';\nimport { test } from 'node:test';",
    'test/pure.test.ts': "import { x } from '../src/plain.js';",
  });
  try {
    assert.deepEqual(unitTests(root), ['src/pure.test.ts', 'src/types-only.test.ts']);
    assert.deepEqual(outsideChain(root, 'src/helper.test.ts'), ['src/helper.test.ts', 'test/helpers/redis.ts', 'ioredis (needs a Redis server)']);
    assert.deepEqual(outsideChain(root, 'src/self.test.ts'), [
      'src/self.test.ts',
      'src/server/index.ts',
      'src/server/spawner.ts',
      'node:child_process (starts processes)',
    ]);
    assert.deepEqual(outsideChain(root, 'src/lazy.test.ts'), ['src/lazy.test.ts', 'playwright-core (drives a browser)']);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a unit run refuses a test that starts a process anyway, and says why', () => {
  const root = tree({
    'sneaky.test.mjs':
      "import { test } from 'node:test';\nimport { execFileSync } from 'node:child_process';\ntest('sneaky', () => { execFileSync(process.execPath, ['--version']); });\n",
  });
  try {
    const guard = pathToFileURL(join(REPO_ROOT, 'scripts', 'unit-guard.mjs')).href;
    // a runner of its own: inside a test file, NODE_TEST_CONTEXT would make `node --test` run nothing
    const env = { ...process.env };
    delete env.NODE_TEST_CONTEXT;
    const run = spawnSync(process.execPath, ['--import', guard, '--test', join(root, 'sneaky.test.mjs')], { encoding: 'utf8', timeout: 60_000, env });
    assert.equal(run.status, 1, run.stdout);
    assert.match(run.stdout, /a unit test called child_process\.execFileSync\(\), but unit tests start no processes/);
    // the same test outside a unit run passes: the guard is what refused it
    const free = spawnSync(process.execPath, ['--test', join(root, 'sneaky.test.mjs')], { encoding: 'utf8', timeout: 60_000, env });
    assert.equal(free.status, 0, free.stdout);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('test.mjs --list: --unit lists the unit set; a filter narrows it; a filter that leaves nothing fails', () => {
  const list = (...args: string[]) =>
    spawnSync(process.execPath, [join(REPO_ROOT, 'scripts', 'test.mjs'), '--list', ...args], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 });
  const units = list('--unit');
  assert.equal(units.status, 0, units.stderr);
  assert.deepEqual(
    units.stdout.trim().split('\n'),
    unitTests(REPO_ROOT).map((file) => `build/${file.replace(/\.ts$/, '.js')}`),
  );
  const narrowed = list('--unit', 'src/jsonrpc/');
  assert.ok(
    narrowed.stdout
      .trim()
      .split('\n')
      .every((file) => file.startsWith('build/src/jsonrpc/')),
  );
  const redis = list('--unit', 'src/redis/');
  assert.equal(redis.status, 1);
  assert.match(redis.stderr, /no test files matched among the unit tests/);
  // without --unit the same filter finds them
  assert.ok(list('src/redis/bus').stdout.includes('build/src/redis/bus.test.js'));
  // the whole gate: every test file of the project, src/, test/, bench/, conformance/, examples/
  const all = list().stdout.trim().split('\n');
  assert.ok(all.length > units.stdout.trim().split('\n').length);
  assert.ok(all.includes('build/test/packaging/build.test.js') && all.includes('build/src/redis/bus.test.js'));
});
