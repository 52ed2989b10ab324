/**
 * Declared peer ranges against what the tests run with: every optional peer dependency of
 * package.json is optional in peerDependenciesMeta, is pinned exactly as a dev dependency, and
 * that installed dev version lies inside the declared peer range - so `npm test` proves the
 * range on at least one real version. Installing the lowest and highest version of each range
 * needs the registry and takes minutes, so it is not part of `npm test`: the release script's
 * `--peers` option does it (docs/dependencies.md).
 */

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '../helpers/repo.js';

const ROOT = REPO_ROOT;
// scripts/ is not compiled: load the helpers from the checkout (typed from their .d.mts)
const { compareVersions, parseVersion, rangeEnds, satisfies } = (await import(
  pathToFileURL(join(ROOT, 'scripts', 'semver-range.mjs')).href
)) as typeof import('../../scripts/semver-range.mjs');
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
  devDependencies: Record<string, string>;
};

/** The optional peers the docs promise (docs/dependencies.md); a new peer must be added here and there. */
const PEERS = [
  '@opentelemetry/api',
  '@valibot/to-json-schema',
  'better-sqlite3',
  'ioredis',
  'jose',
  'json-schema-to-typescript',
  'oauth4webapi',
  'tsx',
  'zod-to-json-schema',
];

describe('the range check itself', () => {
  it('reads the comparator ranges package.json uses', () => {
    assert.equal(satisfies('12.11.1', '>=11 <14'), true);
    assert.equal(satisfies('11.0.0', '>=11 <14'), true);
    assert.equal(satisfies('14.0.0', '>=11 <14'), false);
    assert.equal(satisfies('10.9.9', '>=11 <14'), false);
    assert.equal(satisfies('4.7.0', '>=4.7 <5'), true);
    assert.equal(satisfies('4.6.9', '>=4.7 <5'), false);
    assert.equal(satisfies('3.24.0', '>= 3.24 < 4'), true);
  });

  it('reads ^, ~, || and exact versions, and keeps prereleases out unless named', () => {
    assert.equal(satisfies('8.20.1', '^8.20.0'), true);
    assert.equal(satisfies('9.0.0', '^8.20.0'), false);
    assert.equal(satisfies('0.2.5', '^0.2.1'), true);
    assert.equal(satisfies('0.3.0', '^0.2.1'), false);
    assert.equal(satisfies('1.2.9', '~1.2.3'), true);
    assert.equal(satisfies('1.3.0', '~1.2.3'), false);
    assert.equal(satisfies('2.0.0', '<1 || >=2'), true);
    assert.equal(satisfies('1.5.0', '<1 || >=2'), false);
    assert.equal(satisfies('1.0.0', '=1.0.0'), true);
    assert.equal(satisfies('20.19.0', '20.x || 22.x'), true);
    assert.equal(satisfies('21.0.0', '20.x || 22.x'), false);
    assert.equal(satisfies('22.3.0', '22'), true);
    assert.equal(satisfies('1.3.0', '1.2.x'), false);
    assert.equal(satisfies('20.20.2', '>=22'), false);
    assert.equal(satisfies('5.0.0-rc.1', '>=4.7 <5'), false);
    assert.equal(satisfies('5.0.0-rc.2', '>=5.0.0-rc.1'), true);
    assert.ok(compareVersions('1.0.0-alpha', '1.0.0') < 0);
    assert.throws(() => parseVersion('latest'), /not a version/);
  });

  it('finds the lowest and highest version inside a range', () => {
    assert.deepEqual(rangeEnds(['10.1.0', '11.0.0', '11.3.0', '13.9.1', '14.0.0', '13.10.0-beta.1'], '>=11 <14'), { lowest: '11.0.0', highest: '13.9.1' });
  });
});

describe('the declared optional peer ranges', () => {
  it('are exactly the peers the dependency policy lists, all optional', () => {
    assert.deepEqual(Object.keys(manifest.peerDependencies).sort(), [...PEERS].sort());
    for (const name of PEERS) assert.equal(manifest.peerDependenciesMeta[name]?.optional, true, `${name} is optional`);
  });

  for (const name of PEERS) {
    it(`${name}: the installed dev version is pinned and inside ${manifest.peerDependencies[name]}`, () => {
      const range = manifest.peerDependencies[name]!;
      const pinned = manifest.devDependencies[name];
      assert.ok(pinned, `${name} is a dev dependency, so the tests run with it`);
      assert.doesNotThrow(() => parseVersion(pinned), `${name} is pinned to one exact version, not ${pinned}`);
      const installed = (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
      assert.equal(installed, pinned, `${name}: installed ${installed}, package.json pins ${pinned}`);
      assert.ok(satisfies(installed, range), `${name}@${installed} is outside the declared peer range ${range}`);
    });
  }
});
