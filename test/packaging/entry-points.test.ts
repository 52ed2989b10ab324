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

import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { test } from 'node:test';
import { distGraph } from '../helpers/dist-graph.js';
import { DIST } from '../helpers/repo.js';

const dist = DIST;
const builtins = new Set(builtinModules);

/** The runtime-neutral entry points (the framing codecs are in their bundles: the core's, the transports'). */
const NEUTRAL = [
  'index.js',
  'server/index.js',
  'client/index.js',
  'schema/index.js',
  'http/index.js',
  'http/server/index.js',
  'http/client/index.js',
  'auth/web.js',
];

for (const entry of NEUTRAL) {
  test(`${entry} imports no node:* or Node built-in module`, () => {
    assert.ok(existsSync(join(dist, entry)), `${entry} was not built`);
    const { bare } = distGraph([entry]);
    for (const [spec, from] of bare) {
      assert.ok(!spec.startsWith('node:') && !builtins.has(spec), `${from} imports ${spec}`);
    }
  });
}

test('the core entry point has no runtime dependency', () => {
  const { bare, files } = distGraph(['index.js']);
  // sanity: the walk reached past the entry file into the core's chunk
  assert.ok(files.length >= 2, `only ${files.length} file(s) reached from index.js`);
  assert.deepEqual([...bare.keys()], [], 'the core imports packages');
});

test('the server and client entry points depend only on ajv and re2js (through the schema layer), and the client on minisearch (tool search) and jsonc-parser (the mcpServers config reader)', () => {
  for (const [entry, allowed] of [
    ['server/index.js', /^(ajv(-formats)?|re2js)(\/|$)/],
    ['client/index.js', /^(ajv(-formats)?|re2js|minisearch|jsonc-parser)(\/|$)/],
  ] as const) {
    const { bare } = distGraph([entry]);
    for (const spec of bare.keys()) assert.match(spec, allowed, `${entry} pulls in ${spec}`);
  }
});

/**
 * The source modules whose code the files of `files` hold: esbuild's unminified output marks
 * each module's code with a `// src/<path>.ts` line (paths relative to the repository).
 */
function sourcesIn(files: string[]): Set<string> {
  const sources = new Set<string>();
  for (const file of files) for (const m of readFileSync(file, 'utf8').matchAll(/^\/\/ (src\/\S+\.ts)$/gm)) sources.add(m[1]!);
  return sources;
}

/**
 * The server-only and client-only entry points load nothing of the other side: what each
 * loads statically and by `import()` holds no module under the other side's folders.
 */
const HALVES: ReadonlyArray<readonly [entry: string, foreign: RegExp, means: string]> = [
  ['http/server/index.js', /^src\/http\/(client|node-client)\//, 'HTTP client code'],
  ['http/node-server.js', /^src\/http\/(client|node-client)\//, 'HTTP client code'],
  ['http/client/index.js', /^src\/http\/(server\/|node-server\.ts$)/, 'HTTP server code'],
  ['http/node-client/index.js', /^src\/http\/(server\/|node-server\.ts$)/, 'HTTP server code'],
];

for (const [file, foreign, means] of HALVES) {
  test(`${file} loads no ${means}`, () => {
    assert.ok(existsSync(join(dist, file)), `${file} was not built`);
    const sources = sourcesIn(distGraph([file]).files);
    // sanity: the markers are there to read (the entry's own side is found)
    assert.ok(sources.size >= 2, `only ${sources.size} source marker(s) found from ${file}: is the bundle still unminified?`);
    const loaded = [...sources].filter((s) => foreign.test(s));
    assert.deepEqual(loaded, [], `${file} loads ${means}`);
  });
}

/** The entry points that export both halves, and the halves: the whole is exactly their union. */
const UNIONS: ReadonlyArray<readonly [whole: string, server: string, client: string]> = [
  ['mcpkit/http', 'mcpkit/http/server', 'mcpkit/http/client'],
  ['mcpkit/node', 'mcpkit/node/server', 'mcpkit/node/client'],
];

for (const [whole, server, client] of UNIONS) {
  test(`${whole} exports exactly what ${server} and ${client} export, and the halves share no name`, async () => {
    const [w, s, c] = (await Promise.all([import(whole), import(server), import(client)])) as Array<Record<string, unknown>>;
    const shared = Object.keys(s!).filter((name) => name in c!);
    assert.deepEqual(shared, [], `names exported by both halves`);
    assert.deepEqual(Object.keys(w!).sort(), [...Object.keys(s!), ...Object.keys(c!)].sort());
    for (const [name, value] of Object.entries({ ...s, ...c })) assert.equal(w![name], value, `${name} of ${whole} is not the one of its half`);
  });
}
