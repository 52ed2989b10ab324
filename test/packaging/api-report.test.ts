/**
 * The public API report (scripts/api-report.mjs, api/*.api.md): the recorded report matches the
 * exported surface of the build, and the check fails with a diff naming the change when an
 * export is added, removed or changed without regenerating the report. The unrecorded change
 * is made in a small temporary project (a package.json with "exports" and hand-written
 * declaration files), so the repository's own files are never touched.
 */

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { REPO_ROOT } from '../helpers/repo.js';

const ROOT = REPO_ROOT;
const SCRIPT = join(ROOT, 'scripts', 'api-report.mjs');

function report(args: string[]): { status: number | null; out: string; err: string } {
  const run = spawnSync(process.execPath, [SCRIPT, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  return { status: run.status, out: run.stdout, err: run.stderr };
}

describe('the recorded API report', () => {
  it('matches the exported surface of every entry point of the build', () => {
    const run = report(['--check']);
    assert.equal(
      run.status,
      0,
      `the API report is stale; if the change is intended run \`node scripts/api-report.mjs\` and commit api/:\n${run.out}${run.err}`,
    );
  });

  it('has one report per entry point, with the extension seams apart', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
    for (const entry of Object.keys(manifest.exports)) {
      const name = entry === '.' ? 'index' : entry.slice(2).replace(/\//g, '-');
      const text = readFileSync(join(ROOT, 'api', `${name}.api.md`), 'utf8');
      assert.match(text, /^## Public API$/m, name);
    }
    const core = readFileSync(join(ROOT, 'api', 'index.api.md'), 'utf8');
    const seams = core.slice(core.indexOf('## Extension seams (not covered by semver guarantees)'));
    assert.match(seams, /^### Endpoint \(class\)$/m);
    assert.match(seams, /^### ProtocolExtension \(/m);
    assert.doesNotMatch(core.slice(0, core.indexOf('## Extension seams')), /^### Endpoint \(/m);
  });
});

describe('an unrecorded change to an export', () => {
  let project: string;
  const dts = (): string => join(project, 'dist', 'index.d.ts');

  before(() => {
    project = mkdtempSync(join(tmpdir(), 'mcpkit-api-'));
    mkdirSync(join(project, 'dist'));
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'fixture', exports: { '.': { types: './dist/index.d.ts', import: './dist/index.js' } } }),
    );
    writeFileSync(dts(), '/** Greets. */\nexport declare function greet(name: string): string;\nexport interface Options {\n  loud?: boolean;\n}\n');
    const written = report(['--root', project]);
    assert.equal(written.status, 0, written.err);
    assert.equal(report(['--root', project, '--check']).status, 0, 'fresh report is current');
  });

  after(() => rmSync(project, { recursive: true, force: true }));

  it('fails the check when an export is added, and names it in the diff', () => {
    writeFileSync(dts(), readFileSync(dts(), 'utf8') + 'export declare const extra: number;\n');
    const run = report(['--root', project, '--check']);
    assert.equal(run.status, 1, run.out + run.err);
    assert.match(run.out, /^\+### extra \(variable\)$/m);
    assert.match(run.out, /^\+export declare const extra: number;$/m);
    assert.match(run.err, /node scripts\/api-report\.mjs/);
  });

  it('fails the check when a signature changes (a required parameter added)', () => {
    writeFileSync(
      dts(),
      '/** Greets. */\nexport declare function greet(name: string, punctuation: string): string;\nexport interface Options {\n  loud?: boolean;\n}\n',
    );
    const run = report(['--root', project, '--check']);
    assert.equal(run.status, 1, run.out + run.err);
    assert.match(run.out, /^-export declare function greet\(name: string\): string;$/m);
    assert.match(run.out, /^\+export declare function greet\(name: string, punctuation: string\): string;$/m);
  });

  it('fails the check when an export is removed, and passes again once the report is regenerated', () => {
    writeFileSync(dts(), 'export declare function greet(name: string): string;\n');
    const run = report(['--root', project, '--check']);
    assert.equal(run.status, 1, run.out + run.err);
    assert.match(run.out, /^-### Options \(interface\)$/m);
    assert.equal(report(['--root', project]).status, 0);
    assert.equal(report(['--root', project, '--check']).status, 0);
  });

  it('ignores doc comments: only the surface counts', () => {
    writeFileSync(dts(), '/** Greets someone by name, politely. */\nexport declare function greet(name: string): string;\n');
    assert.equal(report(['--root', project, '--check']).status, 0);
  });
});
