/**
 * The inner loop's build (scripts/quick-build.mjs): it rewrites only the outputs whose source
 * changed, and what it writes is the compiler's output to the byte, so the full build after it
 * has nothing to correct.
 */

import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '../helpers/repo.js';

// scripts/ is not compiled: load the scripts from the checkout (typed from their .d.mts)
const { fingerprint, PROJECTS, projectSources, TSC } = (await import(
  pathToFileURL(join(REPO_ROOT, 'scripts', 'build.mjs')).href
)) as typeof import('../../scripts/build.mjs');
const { outputOf, staleSources, transpile } = (await import(
  pathToFileURL(join(REPO_ROOT, 'scripts', 'quick-build.mjs')).href
)) as typeof import('../../scripts/quick-build.mjs');

/** The TypeScript a project may hold that a transpiler must get right, in one module. */
const FEATURES = `import { EventEmitter } from 'node:events';
import type { Server } from 'node:http';
import { type Socket, createServer } from 'node:net';
export type { Server };
export enum Kind { A = 1, B = A * 2, C = 'c' }
export const enum Inline { X = 7 }
export abstract class Base<T> extends EventEmitter {
  static count = 0;
  static { Base.count += 1; }
  #secret = Inline.X;
  declare readonly tag: string;
  field = new Map<string, T>();
  constructor(protected readonly name: string, public value?: T) { super(); }
  abstract run(): Promise<T>;
  get secret(): number { return this.#secret; }
  override emit(event: string | symbol, ...args: unknown[]): boolean { return super.emit(event, ...args); }
}
export function pick<const K extends string>(keys: readonly K[]): K[];
export function pick(keys: readonly string[]): string[] { return [...keys]; }
export const config = { port: 0 } satisfies Record<string, number>;
export namespace Shapes { export const unit = 1; }
export async function* lines(socket: Socket): AsyncGenerator<string> { for await (const chunk of socket) yield String(chunk as Buffer); }
export function dispose(): number {
  using handle = { [Symbol.dispose]() {} };
  void handle;
  return createServer().listenerCount('x');
}
`;

/** A project in a temporary folder: the real tsconfigs, src/jsonrpc with its tests, and the feature module with a test of its own. */
function project(): string {
  const root = mkdtempSync(join(tmpdir(), 'mcpkit-quick-'));
  for (const file of ['package.json', PROJECTS.library.config, PROJECTS.test.config]) cpSync(join(REPO_ROOT, file), join(root, file));
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(root, 'node_modules'), 'dir');
  cpSync(join(REPO_ROOT, 'src', 'jsonrpc'), join(root, 'src', 'jsonrpc'), { recursive: true });
  // the tests that import outside the folder
  for (const file of ['decode.property.test.ts', 'preset-json.test.ts']) rmSync(join(root, 'src', 'jsonrpc', file));
  writeFileSync(join(root, 'src', 'features.ts'), FEATURES);
  mkdirSync(join(root, 'test'));
  writeFileSync(
    join(root, 'test', 'features.test.ts'),
    "import { test } from 'node:test';\nimport { Kind, pick } from '../src/features.js';\ntest('kinds', () => { void pick(['a']); void Kind.B; });\n",
  );
  return root;
}

test('quick build: each file is what the compiler writes for it, JavaScript and source map', async () => {
  const root = project();
  try {
    const sources = projectSources(root, PROJECTS.test);
    assert.ok(sources.length > 5 && sources.includes('src/features.ts') && sources.includes('test/features.test.ts'));
    const compiler = spawnSync(process.execPath, [TSC, '-p', PROJECTS.test.config], { cwd: root, encoding: 'utf8' });
    assert.equal(compiler.status, 0, compiler.stdout);
    const compiled = new Map(
      sources.flatMap((source) => [outputOf(source), `${outputOf(source)}.map`]).map((file) => [file, readFileSync(join(root, file), 'utf8')]),
    );
    rmSync(join(root, 'build'), { recursive: true });
    assert.deepEqual(await transpile(root, sources), sources.map(outputOf));
    for (const [file, text] of compiled) assert.equal(readFileSync(join(root, file), 'utf8'), text, `${file} differs from the compiler's`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a quick-built edit that was undone is rebuilt after the full build, which saw no change', async () => {
  const root = project();
  try {
    const compile = () => {
      const compiler = spawnSync(process.execPath, [TSC, '-p', PROJECTS.test.config], { cwd: root, encoding: 'utf8' });
      assert.equal(compiler.status, 0, compiler.stdout);
    };
    const source = 'src/jsonrpc/errors.ts';
    const output = join(root, outputOf(source));
    compile();
    const original = readFileSync(join(root, source), 'utf8');
    const compiled = readFileSync(output, 'utf8');
    // an edit tried in the inner loop, then undone
    writeFileSync(join(root, source), `${original}\nexport const tried = 1;\n`);
    await transpile(root, [source]);
    assert.match(readFileSync(output, 'utf8'), /tried/);
    writeFileSync(join(root, source), original);
    const later = Date.now() / 1000 + 2;
    utimesSync(join(root, source), later, later);
    // the incremental compiler compares contents with its build info: no change, no emit
    compile();
    assert.match(readFileSync(output, 'utf8'), /tried/, 'the compiler rewrote the output: this test no longer shows the case');
    // the output is older than its source, so the quick build's rule finds it (scripts/test.mjs runs it after the full build)
    assert.deepEqual(staleSources(root), [source]);
    await transpile(root, staleSources(root));
    assert.equal(readFileSync(output, 'utf8'), compiled);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('quick build: only a source newer than its output (or a tsconfig newer than it) is transpiled again', () => {
  const root = mkdtempSync(join(tmpdir(), 'mcpkit-quick-'));
  try {
    const write = (file: string, seconds: number) => {
      mkdirSync(dirname(join(root, file)), { recursive: true });
      writeFileSync(join(root, file), '');
      utimesSync(join(root, file), seconds, seconds);
    };
    write(PROJECTS.library.config, 100);
    write(PROJECTS.test.config, 100);
    write('src/a.ts', 200);
    write('build/src/a.js', 300); // built after its source
    write('src/b.ts', 400);
    write('build/src/b.js', 300); // its source changed since
    write('test/c.test.ts', 200); // never built
    write('examples/bun/server.ts', 200); // not compiled by the test project
    assert.deepEqual(staleSources(root), ['src/b.ts', 'test/c.test.ts']);
    utimesSync(join(root, PROJECTS.test.config), 500, 500);
    assert.deepEqual(staleSources(root), ['src/a.ts', 'src/b.ts', 'test/c.test.ts']);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('quick build: a syntax error fails the build, names the file and line, and writes nothing', async () => {
  const root = mkdtempSync(join(tmpdir(), 'mcpkit-quick-'));
  try {
    for (const file of ['package.json', PROJECTS.library.config, PROJECTS.test.config]) cpSync(join(REPO_ROOT, file), join(root, file));
    mkdirSync(join(root, 'src'));
    writeFileSync(join(root, 'src', 'good.ts'), 'export const a: number = 1;\n');
    writeFileSync(join(root, 'src', 'bad.ts'), 'export const a = 1;\nexport const b = ;\n');
    await assert.rejects(transpile(root, ['src/good.ts', 'src/bad.ts']), /src\/bad\.ts\(2,18\): error TS1109: Expression expected/);
    assert.ok(!existsSync(join(root, 'build')));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('fingerprint: a change of size or time, a file added or removed changes it; nothing else does', () => {
  const root = mkdtempSync(join(tmpdir(), 'mcpkit-quick-'));
  try {
    writeFileSync(join(root, 'a.ts'), 'a');
    writeFileSync(join(root, 'b.ts'), 'b');
    utimesSync(join(root, 'a.ts'), 100, 100);
    const first = fingerprint(root, ['a.ts', 'b.ts']);
    assert.equal(fingerprint(root, ['a.ts', 'b.ts']), first);
    utimesSync(join(root, 'a.ts'), 101, 101);
    const touched = fingerprint(root, ['a.ts', 'b.ts']);
    assert.notEqual(touched, first);
    writeFileSync(join(root, 'a.ts'), 'aa');
    utimesSync(join(root, 'a.ts'), 101, 101);
    assert.notEqual(fingerprint(root, ['a.ts', 'b.ts']), touched);
    assert.notEqual(fingerprint(root, ['a.ts']), fingerprint(root, ['a.ts', 'b.ts']));
    assert.notEqual(fingerprint(root, ['a.ts', 'c.ts']), fingerprint(root, ['a.ts']));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("the test project's sources are what the compiler compiles (tsconfig.test.json include and exclude)", () => {
  const listed = execFileSync(process.execPath, [TSC, '-p', PROJECTS.test.config, '--listFilesOnly'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  })
    .split('\n')
    .map((line) => line.trim().split('\\').join('/'))
    .filter((line) => line.startsWith(`${REPO_ROOT.split('\\').join('/')}/`) && !line.includes('/node_modules/'))
    .map((line) => line.slice(REPO_ROOT.length + 1))
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'));
  assert.deepEqual(projectSources(REPO_ROOT, PROJECTS.test), listed.sort());
});
