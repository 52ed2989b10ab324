import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import * as entry from './index.js';

/** Every module specifier imported by `file` and, recursively, by the local files it imports. */
function importGraph(file: URL, seen = new Set<string>(), external = new Set<string>()): Set<string> {
  if (seen.has(file.href)) return external;
  seen.add(file.href);
  const source = readFileSync(fileURLToPath(file), 'utf8');
  const specifiers = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g;
  for (const match of source.matchAll(specifiers)) {
    const specifier = match[1]!;
    if (specifier.startsWith('.')) importGraph(new URL(specifier, file), seen, external);
    else external.add(specifier);
  }
  return external;
}

describe('mcpkit/schema entry point', () => {
  it('pulls in no node: modules and no schema library', () => {
    const external = importGraph(new URL('./index.js', import.meta.url));
    const builtins = new Set(builtinModules);
    for (const specifier of external) {
      assert.ok(!specifier.startsWith('node:') && !builtins.has(specifier), `runtime-specific import: ${specifier}`);
      assert.ok(!specifier.startsWith('zod') && !specifier.startsWith('@standard-schema/'), `dev-only import: ${specifier}`);
    }
    assert.deepEqual([...external].sort(), ['ajv', 'ajv-formats', 'ajv/dist/2020.js']);
  });

  it('exports the public surface', () => {
    for (const name of [
      'AjvJsonSchemaValidator',
      'SchemaError',
      'applyElicitationDefaults',
      'defaultJsonSchemaValidator',
      'dialectOf',
      'formatIssues',
      'isStandardSchema',
      'isValidRequestedSchema',
      'toSchemaAdapter',
      'validateElicitationContent',
    ]) {
      assert.equal(typeof (entry as Record<string, unknown>)[name], 'function', name);
    }
  });
});
