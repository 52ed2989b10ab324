// Release checks, and publishing when asked. Runs, in order, stopping at the first failure:
//   1. CHANGELOG.md has a section for package.json's version
//   2. build (scripts/build.mjs: the library into dist/, the tests into build/)
//   3. the public API report in api/ is current (scripts/api-report.mjs --check)
//   4. the full test suite (scripts/test.mjs), unless --skip-tests
//   5. `npm pack --dry-run --json`: the tarball's file list holds every entry point's
//      JavaScript and declarations, the CLI, the schemas, LICENSE, README.md, CHANGELOG.md and
//      SECURITY.md, and nothing test-only
//   6. with --peers: for each optional peer, the lowest and highest registry versions inside
//      its declared range are installed into a temporary folder and the tests of the entry
//      point that uses it run against them (needs the registry; minutes); --peers=a,b picks
//      some of them
// then prints a summary. A dry run (the default) stops there. `--publish` additionally
// requires a clean git tree and a dated changelog heading, then runs `npm publish`: only a
// maintainer runs it, by hand; CI never passes --publish.
//
// Usage: node scripts/release.mjs [--dry-run | --publish] [--skip-tests] [--peers[=name,...]]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEST_ONLY } from './package-rules.mjs';
import { rangeEnds, satisfies } from './semver-range.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const NPM_CLI = join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js');
/** Paths the tarball must hold (as test/packaging/tarball.test.ts requires). */
const REQUIRED = [
  'LICENSE',
  'README.md',
  'CHANGELOG.md',
  'SECURITY.md',
  'package.json',
  'bin/mcpkit.js',
  'dist/cli/main.js',
  'spec/schema/2025-11-25/schema.json',
];
/** For --peers: the compiled test files (under build/src/) that exercise each optional peer. */
const PEER_TESTS = {
  'better-sqlite3': ['tasks/sqlite-store.test.js', 'tasks/restart.test.js'],
  ioredis: [
    'redis/connection.test.js',
    'redis/task-store.test.js',
    'redis/event-store.test.js',
    'redis/bus.test.js',
    'redis/failure.test.js',
    'redis/tasks-across-instances.test.js',
    'redis/http-resume.test.js',
    'redis/redis.property.test.js',
    'redis/stateless-tasks.test.js',
  ],
  jose: ['auth/server/jwt-verifier.test.js', 'auth/client/dpop.test.js'],
  oauth4webapi: ['auth/client/oauth-client.test.js', 'auth/client/token-endpoint.test.js', 'auth/server/third-party.test.js'],
  '@valibot/to-json-schema': ['schema/schema-libraries.test.js'],
  'zod-to-json-schema': ['schema/schema-libraries.test.js'],
  tsx: ['cli/serve/run.test.js'],
  '@opentelemetry/api': ['otel/conventions.test.js', 'otel/propagation.test.js'],
};
/** Bound on each child step; a step that takes longer fails. */
const STEP_TIMEOUT_MS = 30 * 60_000;

const argv = process.argv.slice(2);
/** `--peers` alone: every optional peer; `--peers=a,b`: only those. */
const peersArg = argv.find((a) => a === '--peers' || a.startsWith('--peers='));
const onlyPeers = peersArg?.startsWith('--peers=') ? new Set(peersArg.slice('--peers='.length).split(',')) : undefined;
const args = new Set(argv.map((a) => (a.startsWith('--peers=') ? '--peers' : a)));
const known = new Set(['--dry-run', '--publish', '--skip-tests', '--peers']);
for (const a of args)
  if (!known.has(a)) fail(`unknown option ${a} (usage: node scripts/release.mjs [--dry-run | --publish] [--skip-tests] [--peers[=name,...]])`);
if (args.has('--publish') && args.has('--dry-run')) fail('--publish and --dry-run exclude each other');
const publish = args.has('--publish');
if (publish && process.env.CI) fail('refusing to publish from CI: publishing is a maintainer step run by hand');

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const summary = [];

function fail(message) {
  console.error(`release: ${message}`);
  process.exit(1);
}

function step(name, run) {
  process.stdout.write(`\n== ${name}\n`);
  const detail = run();
  summary.push(`ok    ${name}${detail ? `: ${detail}` : ''}`);
}

function child(command, argv, options = {}) {
  const result = spawnSync(command, argv, { cwd: ROOT, encoding: 'utf8', timeout: STEP_TIMEOUT_MS, stdio: options.capture ? 'pipe' : 'inherit', ...options });
  if (result.status !== 0) {
    if (options.capture) process.stderr.write(`${result.stdout ?? ''}${result.stderr ?? ''}`);
    summary.push(`FAIL  ${[command === process.execPath ? 'node' : command, ...argv].join(' ')}`);
    console.log(`\n${summary.join('\n')}`);
    fail(`step failed (exit ${result.status ?? result.signal})`);
  }
  return result.stdout ?? '';
}

const npm = (argv, options) => child(process.execPath, [NPM_CLI, ...argv], { capture: true, ...options });

step(`changelog has a section for ${manifest.version}`, () => {
  const text = readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8');
  const escaped = manifest.version.replace(/\./g, '\\.');
  const heading = new RegExp(`^## \\[?${escaped}\\]?(?: - (.*))?$`, 'm').exec(text);
  if (!heading) fail(`CHANGELOG.md has no "## [${manifest.version}]" section`);
  const date = heading[1] ?? '';
  if (/^\d{4}-\d{2}-\d{2}$/.test(date)) return `dated ${date}`;
  if (publish) fail(`CHANGELOG.md's ${manifest.version} heading needs the release date (YYYY-MM-DD), not "${date}"`);
  return `heading says "${date || 'no date'}"; --publish needs the release date`;
});

// the build is asynchronous (esbuild) and the steps are not: it runs as its own process
step('build', () => void child(process.execPath, [join(ROOT, 'scripts', 'build.mjs'), 'library', 'test']));

step('API report is current', () => {
  child(process.execPath, [join(ROOT, 'scripts', 'api-report.mjs'), '--check']);
  return `${readdirSync(join(ROOT, 'api')).filter((f) => f.endsWith('.api.md')).length} entry points`;
});

if (args.has('--skip-tests')) summary.push('skip  tests (--skip-tests)');
else step('tests', () => void child(process.execPath, [join(ROOT, 'scripts', 'test.mjs')]));

step('tarball', () => {
  const packed = JSON.parse(npm(['pack', '--dry-run', '--json', '--ignore-scripts']))[0];
  const files = packed.files.map((f) => f.path);
  const problems = [];
  const testOnly = files.filter((f) => TEST_ONLY.test(f));
  if (testOnly.length > 0) problems.push(`test-only files: ${testOnly.slice(0, 10).join(', ')}${testOnly.length > 10 ? ', ...' : ''}`);
  for (const required of REQUIRED) if (!files.includes(required)) problems.push(`missing ${required}`);
  for (const [entry, target] of Object.entries(manifest.exports)) {
    for (const file of [target.import, target.types]) if (!files.includes(file.replace(/^\.\//, ''))) problems.push(`${entry}: missing ${file}`);
  }
  if (problems.length > 0) fail(`the tarball is wrong:\n  ${problems.join('\n  ')}`);
  console.log(
    `${packed.filename}: ${files.length} files, ${(packed.size / 1024).toFixed(0)} KiB packed, ${(packed.unpackedSize / 1024).toFixed(0)} KiB unpacked`,
  );
  return `${packed.filename}, ${files.length} files, ${(packed.size / 1024).toFixed(0)} KiB`;
});

if (args.has('--peers')) {
  for (const [name, range] of Object.entries(manifest.peerDependencies ?? {})) {
    if (onlyPeers && !onlyPeers.has(name)) continue;
    step(`peer ${name} ${range}: lowest and highest`, () => {
      const tests = PEER_TESTS[name];
      if (!tests) fail(`no tests listed for peer ${name} in PEER_TESTS`);
      const versions = JSON.parse(npm(['view', name, 'versions', '--json']));
      const { lowest, highest } = rangeEnds(Array.isArray(versions) ? versions : [versions], range);
      if (!lowest || !highest) fail(`no published version of ${name} satisfies ${range}`);
      for (const version of new Set([lowest, highest])) peerRun(name, version, tests);
      return `${lowest} and ${highest} pass`;
    });
  }
}

/**
 * Runs `tests` against `name@version`: a temporary project whose dist/, build/ and other
 * dependencies link to this checkout's, with only that peer installed fresh; Node keeps the
 * links' paths (--preserve-symlinks) so `import name` resolves to the fresh copy.
 */
function peerRun(name, version, tests) {
  const work = mkdtempSync(join(tmpdir(), 'mcpkit-peer-'));
  // fail() exits the process, which skips `finally`: remove the folder on exit as well
  const cleanUp = () => rmSync(work, { recursive: true, force: true });
  process.once('exit', cleanUp);
  try {
    const install = join(work, 'install');
    mkdirSync(install);
    writeFileSync(join(install, 'package.json'), '{"private":true}');
    npm(['install', `${name}@${version}`, '--no-save', '--no-package-lock', '--no-audit', '--no-fund'], { cwd: install });
    const project = join(work, 'project');
    const modules = join(project, 'node_modules');
    mkdirSync(modules, { recursive: true });
    for (const entry of readdirSync(join(ROOT, 'node_modules'))) {
      if (entry.startsWith('.')) continue;
      const scoped = entry.startsWith('@') && statSync(join(ROOT, 'node_modules', entry)).isDirectory();
      for (const inner of scoped ? readdirSync(join(ROOT, 'node_modules', entry)).map((n) => `${entry}/${n}`) : [entry]) {
        if (inner === name) continue;
        mkdirSync(dirname(join(modules, inner)), { recursive: true });
        symlinkSync(join(ROOT, 'node_modules', inner), join(modules, inner));
      }
    }
    mkdirSync(dirname(join(modules, name)), { recursive: true });
    symlinkSync(join(install, 'node_modules', name), join(modules, name));
    // the fresh peer's own dependencies, where npm put them beside it
    for (const dep of readdirSync(join(install, 'node_modules')))
      if (!existsSync(join(modules, dep)) && !dep.startsWith('.')) symlinkSync(join(install, 'node_modules', dep), join(modules, dep));
    for (const linked of ['dist', 'build', 'scripts', 'spec', 'bin', 'conformance'])
      if (existsSync(join(ROOT, linked))) symlinkSync(join(ROOT, linked), join(project, linked));
    writeFileSync(join(project, 'package.json'), readFileSync(join(ROOT, 'package.json')));
    const installed = JSON.parse(readFileSync(join(modules, name, 'package.json'), 'utf8'));
    if (installed.version !== version) fail(`${name}: installed ${installed.version}, wanted ${version}`);
    // a peer version inside the range that cannot run on a Node mcpkit supports makes the range too wide
    const needs = installed.engines?.node;
    if (needs && !satisfies(process.version, needs)) {
      fail(
        `${name}@${version} (inside the peer range) needs Node ${needs}, but mcpkit supports Node ${manifest.engines.node} and this is ${process.version}: narrow the peer range or raise engines`,
      );
    }
    // prove the tests will load the fresh copy: resolve the peer as the linked dist/ does
    const probe = join(project, 'peer-probe.mjs');
    writeFileSync(
      probe,
      `import { realpathSync } from 'node:fs'; import { fileURLToPath } from 'node:url'; console.log(realpathSync(fileURLToPath(import.meta.resolve(${JSON.stringify(name)}))));`,
    );
    let resolved;
    try {
      resolved = child(process.execPath, ['--preserve-symlinks', '--preserve-symlinks-main', probe], { cwd: project, capture: true }).trim();
    } finally {
      rmSync(probe, { force: true });
    }
    if (!resolved.startsWith(realpathSync(install) + '/')) fail(`${name} resolves to ${resolved}, not to the ${version} copy under test`);
    console.log(`${name}@${version} (${resolved}): ${tests.join(', ')}`);
    // children the tests spawn keep the links' paths too
    const env = { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --preserve-symlinks --preserve-symlinks-main`.trim() };
    child(process.execPath, ['--preserve-symlinks', '--preserve-symlinks-main', '--test', ...tests.map((t) => join(project, 'build', 'src', t))], {
      cwd: project,
      env,
    });
  } finally {
    cleanUp();
    process.removeListener('exit', cleanUp);
  }
}

if (publish) {
  step('git tree is clean', () => {
    const status = child('git', ['status', '--porcelain'], { capture: true });
    if (status.trim()) fail(`uncommitted changes:\n${status}`);
  });
  step(`npm publish ${manifest.name}@${manifest.version}`, () => void npm(['publish'], { capture: false, stdio: 'inherit' }));
}

console.log(`\n== summary (${publish ? 'published' : 'dry run: nothing published'})\n${summary.join('\n')}`);
