// What `mcpkit dev` watches: the module and its local imports, resolved as tsx / Node do
// (a `./x.js` specifier may name `x.ts`; a folder specifier means its index file).

import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../../../test/helpers/cli/install.js';
import { localDependencies } from './dependencies.js';

test('transitive local imports of every form; packages, node: modules and missing files left out', () => {
  const dir = tempDir('mcpkit-deps-');
  const file = (name: string, text: string) => {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  const entry = file(
    'main.ts',
    `import { a } from './a.js';\nexport * from "./lib";\nimport 'zod';\nimport fs from 'node:fs';\nconst c = await import('./c.mjs');\nimport './missing.js';\n`,
  );
  const a = file('a.ts', `import type { T } from '../outside/t.js';\nexport const a = require('./b.cjs');\n`);
  const lib = file('lib/index.ts', `export {} from './deep/d.js';\n`);
  const d = file('lib/deep/d.tsx', `this is { not valid typescript\nimport('./e.json')\n`);
  const e = file('lib/deep/e.json', '{}');
  const c = file('c.mjs', 'export const c = 1;');
  const b = file('b.cjs', `module.exports = require('./main.ts');`);
  const t = file('../outside/t.ts', 'export type T = 1;');
  file('node_modules/pkg/index.js', '');
  const deps = localDependencies(entry);
  assert.equal(deps[0], entry);
  assert.deepEqual(new Set(deps), new Set([entry, a, lib, d, e, c, b, t]));
});

test('the number of files followed is bounded', () => {
  const dir = tempDir('mcpkit-deps-');
  for (let i = 0; i < 20; i++) writeFileSync(join(dir, `f${i}.ts`), `import './f${i + 1}.js';\n`);
  assert.equal(localDependencies(join(dir, 'f0.ts'), { maxFiles: 5 }).length, 5);
  assert.equal(localDependencies(join(dir, 'f0.ts')).length, 20);
});
