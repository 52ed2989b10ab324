// The inner loop's build (what `node scripts/test.mjs <filter>` and `npm run test:unit` run
// before their tests): it redoes only what changed since the last build of either kind, and
// leaves the type check to a compiler process beside the tests.
//
// - The test project (build/): each source whose output is missing or older than the source
//   (or than a tsconfig) is transpiled alone with TypeScript's own `transpileModule` and the
//   project's options, to the path the compiler writes it to, with its source map. The
//   project compiles with `isolatedModules`, so each file's output depends on that file only,
//   and it is the compiler's to the byte (test/scripts/quick-build.test.ts checks): the full
//   build after a quick one has nothing to correct. No types are read, so a file takes
//   milliseconds. Outputs whose source is gone are removed (build.mjs prune).
// - The library (dist/): bundled again (build.mjs bundle) only when its inputs changed
//   since the last bundle (build.mjs fingerprint of the sources, package.json, tsconfig.json
//   and build.mjs). Its declarations stay as the last full build wrote them: the tests that
//   read them (test/packaging/) run after a full build (scripts/test.mjs).
// - The type check: `tsc --noEmit` over the test project (which holds the library's sources
//   too) with build info of its own (build.mjs CHECK_BUILD_INFO), started at low priority
//   beside the tests, and skipped when its inputs are those it last passed on.
//
// The loop trusts modification times; the full build (build.mjs build, which `npm test`
// runs) does not: the compiler compares contents.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { dirname, join } from 'node:path';
import {
  bundle,
  bundleInputs,
  CHECK_BUILD_INFO,
  filesUnder,
  fingerprint,
  PROJECTS,
  projectSources,
  prune,
  readLoopState,
  TSC,
  updateLoopState,
} from './build.mjs';

/** The compiled JavaScript of `source` in the test project (`src/a.ts` → `build/src/a.js`). */
export function outputOf(source) {
  return `${PROJECTS.test.outDir}/${source.replace(/\.ts$/, '.js')}`;
}

/**
 * The sources of the test project at `root` whose output is missing or older than the
 * source or than either tsconfig: sorted root-relative paths.
 */
export function staleSources(root) {
  const mtime = (file) => statSync(join(root, file), { throwIfNoEntry: false })?.mtimeMs;
  const configs = Math.max(mtime(PROJECTS.library.config) ?? 0, mtime(PROJECTS.test.config) ?? 0);
  return projectSources(root, PROJECTS.test).filter((source) => {
    const built = mtime(outputOf(source));
    return built === undefined || built < Math.max(mtime(source) ?? Infinity, configs);
  });
}

/**
 * Transpiles `sources` (root-relative) of the test project at `root` to their outputs under
 * build/, each alone, as the compiler writes them: JavaScript and source map. Resolves with
 * the JavaScript files written; throws an error listing the syntax errors when a source has
 * any (none of the files is written then).
 */
export async function transpile(root, sources) {
  if (sources.length === 0) return [];
  const { default: ts } = await import('typescript');
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, PROJECTS.test.config),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  // `.ts` in a `"type": "module"` package: NodeNext emits ECMAScript modules, as ESNext does
  // (transpileModule cannot see package.json)
  const compilerOptions = { ...config.options, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler };
  const outputs = [];
  const errors = [];
  for (const source of sources) {
    const fileName = join(root, source);
    const result = ts.transpileModule(readFileSync(fileName, 'utf8'), { compilerOptions, fileName, reportDiagnostics: true });
    for (const diagnostic of result.diagnostics ?? []) {
      if (diagnostic.category !== ts.DiagnosticCategory.Error) continue;
      const at = diagnostic.file !== undefined && diagnostic.start !== undefined ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start) : undefined;
      errors.push(
        `${source}${at === undefined ? '' : `(${at.line + 1},${at.character + 1})`}: error TS${diagnostic.code}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`,
      );
    }
    outputs.push({ file: outputOf(source), text: result.outputText, map: result.sourceMapText });
  }
  if (errors.length > 0) throw new Error(`syntax errors:\n${errors.join('\n')}`);
  for (const { file, text, map } of outputs) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), text);
    if (map !== undefined) writeFileSync(join(root, `${file}.map`), map);
  }
  return outputs.map((output) => output.file);
}

/**
 * The quick build at `root`: bundles the library when its inputs changed, transpiles the
 * stale sources of the test project, removes outputs whose source is gone. Resolves with what
 * it did (`bundled`: whether it bundled; `transpiled`: the JavaScript files written).
 */
export async function quickBuild(root) {
  const state = readLoopState(root);
  const inputs = fingerprint(root, bundleInputs(root));
  const bundleStale = state.bundled !== inputs || statSync(join(root, PROJECTS.library.outDir, 'index.js'), { throwIfNoEntry: false }) === undefined;
  if (bundleStale) {
    prune(root, PROJECTS.library, await bundle(root));
    updateLoopState(root, { bundled: inputs });
  }
  const transpiled = await transpile(root, staleSources(root));
  prune(root, PROJECTS.test);
  return { bundled: bundleStale, transpiled };
}

/** What the type check reads: the test project's folders' TypeScript, the scripts' declarations, the tsconfigs and the installed versions. */
export function checkInputs(root) {
  return [
    ...filesUnder(root, PROJECTS.test.folders, (name) => /\.[cm]?ts$/.test(name)),
    ...filesUnder(root, ['scripts'], (name) => name.endsWith('.d.mts')),
    PROJECTS.library.config,
    PROJECTS.test.config,
    'package-lock.json',
  ];
}

/**
 * Starts the type check of the test project at `root` (`tsc --noEmit`, at low priority), or
 * nothing when its inputs are those it last passed on. Returns `undefined` when skipped, else
 * a promise of `{ ok, output }`: whether the compiler found no error, and what it printed.
 */
export function startTypeCheck(root) {
  const inputs = fingerprint(root, checkInputs(root));
  if (readLoopState(root).checked === inputs) return undefined;
  const child = spawn(process.execPath, [TSC, '-p', PROJECTS.test.config, '--noEmit', '--tsBuildInfoFile', CHECK_BUILD_INFO], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    setPriority(child.pid, 10);
  } catch {
    // a lower priority is a courtesy to the tests; without it the check still runs
  }
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (text) => (output += text));
  child.stderr.setEncoding('utf8').on('data', (text) => (output += text));
  return new Promise((resolve) => {
    child.on('error', (err) => resolve({ ok: false, output: `${output}could not start the compiler: ${err.message}\n` }));
    child.on('close', (code) => {
      if (code === 0) updateLoopState(root, { checked: inputs });
      resolve({ ok: code === 0, output });
    });
  });
}
