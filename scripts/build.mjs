// Builds the TypeScript projects: `library` (tsconfig.json: src/ without its tests, to
// dist/, what the package ships and bin/mcpkit.js runs) and `test` (tsconfig.test.json:
// src/ with its tests, test/, bench/, conformance/ and examples/, to build/).
//
// The library's declarations come from the compiler (tsc type-checks src/ and emits only
// the .d.ts files, one per source); its JavaScript comes from esbuild: one bundle per entry
// point (every export of package.json, the CLI bin/mcpkit.js imports, and the script
// `mcpkit dev` starts) at the path the export names, with the code two or more entry points
// share split into dist/chunks/ (so a class is one class whichever entry point it is
// imported from) and each `import()` inside the library a lazily loaded chunk. Loading a
// handful of files instead of one per source is what keeps cold start near a bare Node
// server. Packages (ajv, the optional peers) and Node built-ins stay imports; the code is
// not minified, and classes keep their names (without esbuild's costly `keepNames`: see
// restoreClassNames).
//
// Both compiler builds are incremental, and their build info lives in build/, outside the
// output folder of the library: when an output folder is gone, its build info is removed
// first, so the compiler emits everything again instead of trusting the stale record. After
// each build, outputs no source accounts for any more (a file moved or deleted, a test file,
// a source map or a chunk of an older build) are removed, so dist/ is exactly what the
// package ships.
//
// Usage: node scripts/build.mjs [library] [test]   (no argument: library only)
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
/** The compiler's command-line script. */
export const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

/**
 * Each project (as its tsconfig says): the tsconfig, a file its build always emits, its build
 * info, its rootDir and outDir, the kinds of output the compiler emits per source, the
 * folders its sources are taken from (the tsconfig's include), which `.ts` files under them
 * it compiles, and whether esbuild bundles its JavaScript ({@link bundle}).
 */
export const PROJECTS = {
  library: {
    config: 'tsconfig.json',
    emits: 'dist/index.d.ts',
    buildInfo: 'build/library.tsbuildinfo',
    rootDir: 'src',
    outDir: 'dist',
    outputs: ['.d.ts'],
    folders: ['src'],
    compiles: (source) => !source.endsWith('.test.ts'),
    bundled: true,
  },
  test: {
    config: 'tsconfig.test.json',
    emits: 'build/src/index.js',
    buildInfo: 'build/test.tsbuildinfo',
    rootDir: '.',
    outDir: 'build',
    outputs: ['.js.map', '.js'],
    folders: ['src', 'test', 'bench', 'conformance', 'examples'],
    // as tsconfig.test.json's include and exclude say
    compiles: (source) =>
      /^(src|test|bench|conformance|examples)\//.test(source) &&
      !source.endsWith('.d.ts') &&
      source !== 'examples/third-party-auth-server.ts' &&
      !/^examples\/(bun|deno)\//.test(source),
    bundled: false,
  },
};

/**
 * Entry points of the library bundle beyond package.json's `exports`, relative to `src/`:
 * the CLI that bin/mcpkit.js imports, and the script `mcpkit dev` starts as a child process
 * (src/cli/serve/dev-command.ts finds it through src/cli/library-root.ts).
 */
export const EXTRA_ENTRIES = ['cli/main.ts', 'cli/serve/generation.ts'];

/** The core entry point's source (the `mcpkit` export), which every entry point's bundle carries. */
export const CORE_ENTRY = 'src/index.ts';

/**
 * Modules that join the core's chunk although the core entry point does not import them,
 * relative to `src/`: small modules that several entry points share in different
 * combinations (the schema's issue and dialect helpers, the SSE framing, the MCP HTTP
 * headers, the server's request context and logging, the elicitation schema). Left to
 * esbuild, each such combination is a chunk of its own: a minimal HTTP server loaded
 * seventeen files, six of them under 7 KB, and on Node 20 each file costs the ESM loader
 * about as much as compiling 20–30 KB of code (resolving, reading, linking its bindings). In
 * the core they load with it: ten files for that server, six for a stdio one instead of
 * eleven, the same bytes within 12 KB; a client loads some 35 KB it does not need (about
 * 1 ms). HTTP server modules stay out: a client loads no server code (entry-points.test.ts).
 * test/packaging/bundle.test.ts holds the file counts.
 */
export const CORE_COMPANIONS = [
  'schema/issues.ts',
  'schema/types.ts',
  'schema/dialect.ts',
  'schema/elicitation.ts',
  'framing/sse.ts',
  'transport/stateless/mcp-headers.ts',
  'transport/facts.ts',
  'server/middleware.ts',
  'server/connection.ts',
  'server/client-answers.ts',
  'server/stateless/mrtr.ts',
  'server/logging.ts',
];

/** The name of the virtual module that imports {@link CORE_COMPANIONS} for their place in the core's chunk. */
const COMPANIONS_MODULE = 'mcpkit:core-companions';

/** The folder of dist/ that holds the chunks shared between entry points. */
export const CHUNKS_DIR = 'chunks';

/**
 * The library bundle's entry points, as source paths relative to `src/` (`server/index.ts`),
 * sorted: the `import` target of every export in `root`'s package.json (`./dist/X.js` is built
 * from `src/X.ts`, at the same path) and {@link EXTRA_ENTRIES}. Throws when an export does not
 * name a `./dist/*.js` file with a source, since the package would then ship a broken export.
 */
export function libraryEntries(root) {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const entries = Object.entries(manifest.exports ?? {}).map(([name, target]) => {
    const built = typeof target === 'string' ? target : target?.import;
    const match = typeof built === 'string' ? /^\.\/dist\/(.+)\.js$/.exec(built) : null;
    if (match === null)
      throw new Error(
        `package.json export ${JSON.stringify(name)} has no "import" of the form ./dist/<path>.js; point it at the built file of a module in src/`,
      );
    const source = `${match[1]}.ts`;
    if (!existsSync(join(root, 'src', source)))
      throw new Error(`package.json export ${JSON.stringify(name)} names ${built}, but src/${source} does not exist; fix the export or add the module`);
    return source;
  });
  return [...new Set([...entries, ...EXTRA_ENTRIES])].sort();
}

/** The esbuild plugin that serves {@link COMPANIONS_MODULE}: one side-effect import per companion. */
function companionsPlugin(root) {
  return {
    name: 'core-companions',
    setup(build) {
      build.onResolve({ filter: new RegExp(`^${COMPANIONS_MODULE}$`) }, () => ({ path: COMPANIONS_MODULE, namespace: 'companions' }));
      build.onLoad({ filter: /.*/, namespace: 'companions' }, () => ({
        contents: CORE_COMPANIONS.map((source) => `import ${JSON.stringify(join(root, 'src', source))};`).join('\n'),
        resolveDir: root,
        loader: 'js',
      }));
    },
  };
}

/**
 * Bundles the library's JavaScript into `root`/dist with esbuild (see the top of this file):
 * each entry point of {@link libraryEntries} at `dist/<path>.js`, shared code in
 * `dist/chunks/`. Resolves with every file written, relative to `root`, `/`-separated; throws
 * when esbuild reports an error (it prints the errors itself).
 */
export async function bundle(root) {
  const { build: esbuild } = await import('esbuild');
  const result = await esbuild({
    absWorkingDir: root,
    entryPoints: libraryEntries(root).map((entry) => `src/${entry}`),
    outbase: 'src',
    outdir: 'dist',
    entryNames: '[dir]/[name]',
    chunkNames: `${CHUNKS_DIR}/[name]-[hash]`,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // ajv, ajv-formats and the optional peers are the user's installs: imported, not copied
    packages: 'external',
    // Every entry point carries the core (the `mcpkit` entry: JSON-RPC, types, framing,
    // transport, session, protocol), so the core is one shared chunk. Without it esbuild cuts
    // the core into a chunk per distinct set of entry points that use each part, and a
    // minimal server loads some twenty files instead of about a dozen, each costing the
    // loader as much as a whole module did. (inject also lets the core's exports stand in for
    // undeclared globals of the same name; no library module uses such a global:
    // test/packaging/bundle.test.ts checks.) The companions join it the same way; their
    // module imports them for effect only, so it stands in for no global.
    inject: [CORE_ENTRY, COMPANIONS_MODULE],
    plugins: [companionsPlugin(root)],
    tsconfig: 'tsconfig.json',
    // readable output: users debug it, and names show in errors
    minify: false,
    // Not `keepNames`: it wraps every function and class in `__name()`, an
    // Object.defineProperty each time a closure is created (six per HTTP tool call: 25k of
    // its 166k instructions) and at start-up for every class. The names it would keep are
    // those esbuild renames when two modules' top-level names collide in one chunk (and of
    // classes whose body names them: restoreClassNames); test/packaging/bundle.test.ts
    // fails when an exported class or function is renamed.
    keepNames: false,
    sourcemap: false,
    legalComments: 'inline',
    metafile: true,
    logLevel: 'warning',
  });
  const files = Object.keys(result.metafile.outputs).map((file) => file.split('\\').join('/'));
  restoreClassNames(root, files);
  return files;
}

/**
 * Gives back their names to the classes whose body names the class itself. esbuild writes
 * `class X { … X … }` as `var X = class _X { … _X … }` (the inner, constant binding), and
 * without `keepNames` such a class is named `_X`: in `name`, in `util.inspect` and in stack
 * traces. Each `_X` of such a file becomes `X` again: inside the class body the inner binding
 * `X` then shadows the outer `var X`, which holds the same class, as in the source. esbuild
 * made `_X` up, and nothing else in the file can be named so unless a source is: that throws.
 * Only a class whose outer name is `X` as well: when esbuild renamed the outer binding
 * (`var X2 = class _X`), another `X` lives in the chunk and an inner `X` could shadow it, so
 * such a class keeps `_X` (and bundle.test.ts reports it if the package exports it).
 */
function restoreClassNames(root, files) {
  let sources;
  for (const file of files.filter((f) => f.endsWith('.js'))) {
    const path = join(root, file);
    const text = readFileSync(path, 'utf8');
    const names = [...text.matchAll(/\bvar ([A-Za-z$][\w$]*) = class _\1\b/g)].map((m) => m[1]);
    if (names.length === 0) continue;
    sources ??= sourceTexts(join(root, 'src'));
    let out = text;
    for (const name of names) {
      const inner = new RegExp(`(?<![\\w$.])_${name.replace(/\$/g, '\\$')}(?![\\w$])`);
      const clash = sources.find((source) => inner.test(source.text));
      if (clash !== undefined) throw new Error(`${clash.path} uses the name _${name}, which esbuild gives class ${name}'s own binding; rename it`);
      out = out.replace(new RegExp(inner.source, 'g'), name);
    }
    writeFileSync(path, out);
  }
}

/** The text of every `.ts` file under `dir`, with its path. */
function sourceTexts(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => {
      const path = join(entry.parentPath ?? entry.path, entry.name);
      return { path, text: readFileSync(path, 'utf8') };
    });
}

/**
 * The inner loop's record (scripts/quick-build.mjs), a JSON object beside the build info:
 * `bundled`, the {@link fingerprint} of the library's inputs the JavaScript in dist/ was last
 * bundled from (by either build); `checked`, that of the inputs the loop's type check last
 * passed on.
 */
export const LOOP_STATE = 'build/loop-state.json';

/** The build info of the inner loop's type check (the test project, checked without emitting). */
export const CHECK_BUILD_INFO = 'build/check.tsbuildinfo';

/** The inner loop's record at `root` ({@link LOOP_STATE}); an empty one when there is none or it is unreadable. */
export function readLoopState(root) {
  try {
    const state = JSON.parse(readFileSync(join(root, LOOP_STATE), 'utf8'));
    return state !== null && typeof state === 'object' ? state : {};
  } catch {
    return {};
  }
}

/** Sets the fields of `changes` in the inner loop's record at `root`, keeping the others. */
export function updateLoopState(root, changes) {
  mkdirSync(dirname(join(root, LOOP_STATE)), { recursive: true });
  writeFileSync(join(root, LOOP_STATE), JSON.stringify({ ...readLoopState(root), ...changes }, null, 1) + '\n');
}

/** Every file under `root`'s `folders` whose name passes `keep`: sorted root-relative, `/`-separated paths. */
export function filesUnder(root, folders, keep) {
  const files = [];
  for (const folder of folders) {
    if (!existsSync(join(root, folder))) continue;
    for (const entry of readdirSync(join(root, folder), { recursive: true, withFileTypes: true })) {
      if (entry.isFile() && keep(entry.name))
        files.push(
          relative(root, join(entry.parentPath ?? entry.path, entry.name))
            .split('\\')
            .join('/'),
        );
    }
  }
  return files.sort();
}

/** The sources `project` compiles at `root`: sorted root-relative, `/`-separated paths. */
export function projectSources(root, project) {
  return filesUnder(root, project.folders, (name) => name.endsWith('.ts')).filter((source) => project.compiles(source));
}

/**
 * A digest of the paths, sizes and modification times of `files` (root-relative; a missing
 * one counts as missing): two builds from inputs with the same digest had the same inputs,
 * as far as a build that trusts modification times can tell.
 */
export function fingerprint(root, files) {
  const hash = createHash('sha1');
  for (const file of files) {
    const stats = statSync(join(root, file), { throwIfNoEntry: false });
    hash.update(`${file}\0${stats === undefined ? '-' : `${stats.size}\0${stats.mtimeMs}`}\n`);
  }
  return hash.digest('hex');
}

/** What the library's JavaScript is bundled from: its sources, and the files that say how. */
export function bundleInputs(root) {
  return [...projectSources(root, PROJECTS.library), 'package.json', PROJECTS.library.config, 'scripts/build.mjs'];
}

/**
 * Removes the files under `project.outDir` (relative to `root`) that no source it compiles
 * accounts for, and the folders that leaves empty; every project's build info stays, and so
 * do the files of `bundled` (the bundle just written, paths relative to `root`, `/`-separated:
 * a bundled project's JavaScript is not one file per source). Returns the removed files,
 * relative to `root`, `/`-separated.
 */
export function prune(root, project, bundled = []) {
  const keep = new Set([
    ...Object.values(PROJECTS).map((p) => join(root, p.buildInfo)),
    join(root, LOOP_STATE),
    join(root, CHECK_BUILD_INFO),
    ...bundled.map((file) => join(root, file)),
  ]);
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
      const source =
        kind === undefined
          ? undefined
          : join(project.rootDir, output.slice(0, -kind.length) + '.ts')
              .split('\\')
              .join('/');
      if (source !== undefined && project.compiles(source) && existsSync(join(root, source))) continue;
      rmSync(path);
      removed.push(relative(root, path).split('\\').join('/'));
    }
  };
  if (existsSync(join(root, project.outDir))) walk(join(root, project.outDir));
  return removed;
}

/**
 * Builds the named projects in the order given (the library before the tests); rejects when
 * the compiler or the bundler reports errors.
 */
export async function build(names) {
  for (const name of names) {
    const project = PROJECTS[name];
    if (project === undefined) throw new Error(`unknown project ${name} (known: ${Object.keys(PROJECTS).join(', ')})`);
    if (!existsSync(join(ROOT, project.emits))) rmSync(join(ROOT, project.buildInfo), { force: true });
    execFileSync(process.execPath, [TSC, '-p', project.config], { cwd: ROOT, stdio: 'inherit' });
    const inputs = project.bundled ? fingerprint(ROOT, bundleInputs(ROOT)) : undefined;
    const bundled = project.bundled ? await bundle(ROOT) : [];
    if (inputs !== undefined) updateLoopState(ROOT, { bundled: inputs });
    const removed = prune(ROOT, project, bundled);
    if (removed.length > 0) console.log(`build: removed ${removed.length} stale file(s) from ${project.outDir}/`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const names = process.argv.slice(2);
  try {
    await build(names.length === 0 ? ['library'] : ['library', 'test'].filter((n) => names.includes(n)).concat(names.filter((n) => !(n in PROJECTS))));
  } catch (err) {
    console.error(
      err.status !== undefined
        ? 'build: the compiler reported errors'
        : err.errors !== undefined
          ? 'build: the bundler reported errors'
          : `build: ${err.message}`,
    );
    process.exit(1);
  }
}
