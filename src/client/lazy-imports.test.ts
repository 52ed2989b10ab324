/**
 * The client's entry point loads only what a connection and its first requests need: the
 * schema layer (JSON Schema adapters, Ajv, the elicitation form checks) is imported on first
 * use, when a tool with an `outputSchema` is called or a form elicitation is answered.
 * Checked on the static import graph of the built files (dynamic `import()` is first use).
 */

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const dist = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const STATIC = /(?:^|[;\s])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|^import\s*['"]([^'"]+)['"]/gm;

/** The files `entry` loads through static imports, relative to dist. */
function staticGraph(entry: string): Set<string> {
  const seen = new Set<string>();
  const queue = [join(dist, entry)];
  while (queue.length > 0) {
    const file = queue.pop()!;
    const name = relative(dist, file);
    if (seen.has(name)) continue;
    seen.add(name);
    for (const m of readFileSync(file, 'utf8').matchAll(STATIC)) {
      const spec = m[1] ?? m[2]!;
      if (spec.startsWith('.')) queue.push(join(dirname(file), spec));
    }
  }
  return seen;
}

test('client/index.js does not load the schema layer statically', () => {
  const files = staticGraph('client/index.js');
  for (const heavy of ['schema/index.js', 'schema/standard-schema.js', 'schema/ajv-validator.js', 'schema/elicitation.js', 'schema/strict-check.js']) {
    assert.ok(!files.has(heavy), `client/index.js loads ${heavy}`);
  }
});
