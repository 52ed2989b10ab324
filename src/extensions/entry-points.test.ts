/**
 * The extension entry points `mcpkit/skills` and `mcpkit/apps` are runtime-neutral: nothing
 * they reach imports a `node:*` or Node built-in module (Node-only code lives in
 * `mcpkit/skills/node`), and their only package imports are the server's (ajv).
 */

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const dist = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const IMPORT = /(?:^|[;\s])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^import\s*['"]([^'"]+)['"]/gm;

/** The bare specifiers used by every module reachable from `entry` through relative imports. */
function bareImports(entry: string): Map<string, string> {
  const bare = new Map<string, string>();
  const seen = new Set<string>();
  const queue = [resolve(dist, entry)];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const spec = m[1] ?? m[2] ?? m[3]!;
      if (spec.startsWith('.')) queue.push(join(dirname(file), spec));
      else bare.set(spec, file.slice(dist.length + 1));
    }
  }
  return bare;
}

for (const entry of ['extensions/skills/index.js', 'extensions/apps/index.js']) {
  test(`${entry} imports no node:* module and no package but ajv`, () => {
    for (const [spec, from] of bareImports(entry)) {
      assert.ok(!spec.startsWith('node:') && !builtinModules.includes(spec), `${from} imports ${spec}`);
      assert.match(spec, /^ajv(-formats)?(\/|$)/, `${from} imports ${spec}`);
    }
  });
}
