/**
 * The library's JavaScript as it ships: esbuild bundles (scripts/build.mjs), one file per
 * entry point at the path its export names, with the code entry points share in dist/chunks/.
 * - dist/ holds as JavaScript exactly the entry points and the chunks they load;
 * - one class, however imported: a value several entry points export is the same value from
 *   each, and an error thrown by one entry point's code is an instance of the class another
 *   exports (imported as a user does, through the package's reference to itself);
 * - every `new URL('<relative>', import.meta.url)` left in the bundle names a file that
 *   exists from where that code now sits (a module's code may be in a chunk at another depth
 *   than its source: code that finds the library's files goes through src/cli/library-root.ts
 *   or walks up to package.json instead).
 * - the build injects the core into every entry point (one core chunk); no library module
 *   uses a global of the same name as a value the core exports, which inject would replace;
 * - the core's companions sit in the core's chunk, so a minimal server loads a handful of
 *   files (each file costs the ESM loader about as much as 20–30 KB of code: build.mjs).
 * The node:-free entry points are checked on the bundle by entry-points.test.ts.
 */

import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { distGraph } from '../helpers/dist-graph.js';
import { DIST, REPO_ROOT } from '../helpers/repo.js';

// scripts/ is not compiled: load it from the checkout (typed from its .d.mts)
const { CHUNKS_DIR, CORE_COMPANIONS, libraryEntries } = (await import(
  pathToFileURL(join(REPO_ROOT, 'scripts', 'build.mjs')).href
)) as typeof import('../../scripts/build.mjs');
const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { exports: Record<string, { import: string }> };

/** Every `.js` file under dist/, relative to it, `/`-separated. */
function scripts(dir = DIST): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return scripts(path);
    return name.endsWith('.js') ? [relative(DIST, path).split(sep).join('/')] : [];
  });
}

test('dist/ holds as JavaScript the entry points at their paths and the shared chunks, nothing else', () => {
  const entries = libraryEntries(REPO_ROOT).map((source) => source.replace(/\.ts$/, '.js'));
  const files = scripts();
  for (const entry of entries) assert.ok(files.includes(entry), `entry point dist/${entry} was not built`);
  const other = files.filter((f) => !entries.includes(f) && !f.startsWith(`${CHUNKS_DIR}/`));
  assert.deepEqual(other, [], 'JavaScript in dist/ that is neither an entry point nor a chunk (left from an unbundled build?)');
  assert.ok(files.length < 150, `${files.length} files: the bundle should be far fewer files than src/ has modules`);
});

/** The files of dist/ (relative to it, `/`-separated) a process reads to load `entries`, before their code runs. */
function staticGraph(entries: readonly string[]): Set<string> {
  return new Set(distGraph(entries, { dynamic: false }).files.map((file) => relative(DIST, file).split(sep).join('/')));
}

test("the core's companions are bundled in the core's chunk, and a minimal server loads a handful of files", () => {
  const core = [...staticGraph(['index.js'])].filter((file) => file.startsWith(`${CHUNKS_DIR}/`));
  assert.equal(core.length, 1, `the core entry point loads ${core.join(', ')}: expected exactly one chunk`);
  const coreText = readFileSync(join(DIST, core[0]!), 'utf8');
  for (const companion of CORE_COMPANIONS) assert.ok(coreText.includes(`// src/${companion}\n`), `src/${companion} is not in the core's chunk ${core[0]}`);
  const servers: Array<[string, string[], number]> = [
    ['a stdio server', ['server/index.js', 'stdio/index.js'], 6],
    ['a Streamable HTTP server on Node', ['server/index.js', 'http/server/index.js', 'http/node-server.js'], 10],
  ];
  for (const [what, entries, most] of servers) {
    const files = staticGraph(entries);
    assert.ok(
      files.size <= most,
      `${what} loads ${files.size} files, more than ${most}: ${[...files].join(', ')}. A module several entry points share in a new combination made a chunk of its own; add it to CORE_COMPANIONS in scripts/build.mjs when it is small`,
    );
  }
});

test('a name several entry points export is the same value from each', async () => {
  const byName = new Map<string, Array<{ entry: string; value: unknown }>>();
  for (const entry of Object.keys(manifest.exports)) {
    const specifier = entry === '.' ? 'mcpkit' : `mcpkit/${entry.slice(2)}`;
    const module = (await import(specifier)) as Record<string, unknown>;
    for (const [name, value] of Object.entries(module)) {
      const seen = byName.get(name) ?? [];
      seen.push({ entry: specifier, value });
      byName.set(name, seen);
    }
  }
  const shared = [...byName].filter(([, seen]) => seen.length > 1);
  assert.ok(shared.length >= 5, `only ${shared.length} names are exported by several entry points: is the check still looking?`);
  for (const [name, seen] of shared) {
    for (const other of seen.slice(1)) assert.equal(other.value, seen[0]!.value, `${name} from ${other.entry} is not the one from ${seen[0]!.entry}`);
  }
});

test('every class and function the package exports keeps its source name in the bundle', async () => {
  // The bundle is built without esbuild's `keepNames` (which costs an Object.defineProperty
  // per closure created: build.mjs), so a top-level name two bundled modules share would be
  // renamed (`Foo2`) and show so in `name`, `instanceof` messages and stack traces. The tsc
  // output of the same sources (build/src/) has the names as written.
  let checked = 0;
  for (const { import: target } of Object.values(manifest.exports)) {
    const file = target.replace(/^\.\/dist\//, '');
    const bundled = (await import(pathToFileURL(join(DIST, file)).href)) as Record<string, unknown>;
    const compiled = (await import(pathToFileURL(join(REPO_ROOT, 'build', 'src', file)).href)) as Record<string, unknown>;
    for (const [name, value] of Object.entries(compiled)) {
      if (typeof value !== 'function') continue;
      const twin = bundled[name];
      assert.equal(typeof twin, 'function', `dist/${file} does not export the function ${name}`);
      assert.equal(
        (twin as { name: string }).name,
        value.name,
        `${name} from dist/${file} is named ${(twin as { name: string }).name}, not ${value.name}: esbuild renamed it (a top-level name two bundled modules share, or a class that names itself under a renamed binding: restoreClassNames in scripts/build.mjs); rename one`,
      );
      checked++;
    }
  }
  assert.ok(checked > 100, `only ${checked} exported functions checked: is the check still looking?`);
});

test("errors thrown by the server and client entry points are instances of the core entry point's classes", async () => {
  const core = await import('mcpkit');
  const { McpServer } = await import('mcpkit/server');
  const { Client } = await import('mcpkit/client');
  const [serverEnd, clientEnd] = core.InMemoryTransport.createPair();
  const server = new McpServer({ name: 'bundle-test', version: '1.0.0' });
  server.registerTool('echo', { description: 'echo', inputSchema: { type: 'object', properties: {} } }, async () => ({ content: [] }));
  await server.connect(serverEnd);
  const client = new Client({ name: 'bundle-test', version: '1.0.0' });
  try {
    await client.connect(clientEnd);
    // an unknown tool: a JSON-RPC error from the server's code, raised by the client's code
    await assert.rejects(client.callTool({ name: 'missing', arguments: {} }), (err: unknown) => err instanceof core.McpError && err.code === -32602);
    // refused locally by the client's code
    await assert.rejects(
      client.callTool({ name: 'echo', arguments: [] as unknown as Record<string, unknown> }),
      (err: unknown) => err instanceof core.LocalError,
    );
  } finally {
    await client.close();
  }
});

test('every `new URL(<relative>, import.meta.url)` in the bundle names a file that exists', () => {
  const BY_URL = /new URL\(\s*["'](\.\.?\/[^"']+)["']\s*,\s*import\.meta\.url\s*\)/g;
  const problems: string[] = [];
  for (const file of scripts()) {
    for (const m of readFileSync(join(DIST, file), 'utf8').matchAll(BY_URL)) {
      const target = fileURLToPath(new URL(m[1]!, pathToFileURL(join(DIST, file))));
      if (!existsSync(target) && !(m[1]!.endsWith('/') && existsSync(dirname(target))))
        problems.push(`dist/${file}: ${m[1]} is ${relative(REPO_ROOT, target)}, which does not exist`);
    }
  }
  assert.deepEqual(problems, []);
});

test('no library module uses a global named like a value the core exports (the build injects the core, whose exports would stand in for it)', async () => {
  const ts = (await import('typescript')).default;
  const names = new Set(Object.keys(await import('mcpkit')));
  const config = ts.getParsedCommandLineOfConfigFile(join(REPO_ROOT, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  assert.ok(config !== undefined, 'tsconfig.json could not be read');
  const program = ts.createProgram(config.fileNames, { ...config.options, noEmit: true });
  const checker = program.getTypeChecker();
  const src = join(REPO_ROOT, 'src') + sep;
  const problems: string[] = [];
  let seen = 0;
  for (const file of program.getSourceFiles()) {
    if (file.isDeclarationFile || !file.fileName.split('/').join(sep).startsWith(src)) continue;
    const visit = (node: import('typescript').Node): void => {
      if (ts.isIdentifier(node) && names.has(node.text)) {
        seen++;
        // a global: declared only in declaration files outside src/ (the lib files, @types/node), not imported
        const declarations = checker.getSymbolAtLocation(node)?.declarations ?? [];
        if (
          declarations.length > 0 &&
          declarations.every((d) => d.getSourceFile().isDeclarationFile && !d.getSourceFile().fileName.split('/').join(sep).startsWith(src))
        ) {
          problems.push(`${relative(REPO_ROOT, file.fileName)} uses the global ${node.text}`);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  assert.ok(seen > 100, `only ${seen} uses of the core's names found: is the check still looking?`);
  assert.deepEqual(problems, [], 'rename the export, or drop `inject` in scripts/build.mjs');
});
