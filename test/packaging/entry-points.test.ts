/**
 * Public-surface checks: runtime-neutral entry points never pull in `node:*` modules, and
 * the core entry point (`mcpkit`) has no runtime dependency at all.
 *
 * Design note: the checks read what ships, the bundled dist/ (scripts/build.mjs): an entry
 * point's file and every chunk it loads, statically or by `import()`, followed through their
 * relative imports; a module of src/ is checked through every entry point whose bundle holds
 * it. (test/packaging/layering.test.ts checks the import direction on the sources, which the
 * bundle only concatenates.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { builtinModules } from 'node:module';
import { DIST } from '../helpers/repo.js';

const dist = DIST;
const IMPORT = /(?:^|[;\s])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^import\s*['"]([^'"]+)['"]/gm;
const builtins = new Set(builtinModules);

/** Every module reachable from `entry` through relative imports, and the bare specifiers they use. */
function graph(entry: string): { files: string[]; bare: Map<string, string> } {
  const files: string[] = [];
  const bare = new Map<string, string>();
  const queue = [resolve(dist, entry)];
  const seen = new Set<string>();
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    files.push(file);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(IMPORT)) {
      const spec = m[1] ?? m[2] ?? m[3]!;
      if (spec.startsWith('.')) queue.push(join(dirname(file), spec));
      else bare.set(spec, file.slice(dist.length + 1));
    }
  }
  return { files, bare };
}

/** The runtime-neutral entry points (the framing codecs are in their bundles: the core's, the transports'). */
const NEUTRAL = ['index.js', 'server/index.js', 'client/index.js', 'schema/index.js', 'http/index.js'];

for (const entry of NEUTRAL) {
  test(`${entry} imports no node:* or Node built-in module`, () => {
    assert.ok(existsSync(join(dist, entry)), `${entry} was not built`);
    const { bare } = graph(entry);
    for (const [spec, from] of bare) {
      assert.ok(!spec.startsWith('node:') && !builtins.has(spec), `${from} imports ${spec}`);
    }
  });
}

test('the core entry point has no runtime dependency', () => {
  const { bare, files } = graph('index.js');
  // sanity: the walk reached past the entry file into the core's chunk
  assert.ok(files.length >= 2, `only ${files.length} file(s) reached from index.js`);
  assert.deepEqual([...bare.keys()], [], 'the core imports packages');
});

test('the server and client entry points depend only on ajv (through the schema layer)', () => {
  for (const entry of ['server/index.js', 'client/index.js']) {
    const { bare } = graph(entry);
    for (const spec of bare.keys()) assert.match(spec, /^ajv(-formats)?(\/|$)/, `${entry} pulls in ${spec}`);
  }
});
