import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { libraryRoot, ROOT_MARKER } from './library-root.js';

/** A temporary folder holding `files` (empty), removed after `body`. */
function withTree(files: readonly string[], body: (root: string) => void): void {
  const root = mkdtempSync(join(tmpdir(), 'mcpkit-root-'));
  try {
    for (const file of files) {
      mkdirSync(dirname(join(root, file)), { recursive: true });
      writeFileSync(join(root, file), '');
    }
    body(root);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const url = (path: string): string => pathToFileURL(path).href;

test('the bundled layout: from an entry point or a chunk, the root is dist/', () => {
  withTree(['pkg/dist/cli/main.js', 'pkg/dist/cli/serve/generation.js', 'pkg/dist/chunks/chunk-A.js', 'pkg/dist/index.js'], (root) => {
    const dist = join(root, 'pkg', 'dist');
    assert.equal(libraryRoot(url(join(dist, 'chunks', 'chunk-A.js'))), dist);
    assert.equal(libraryRoot(url(join(dist, 'cli', 'serve', 'generation.js'))), dist);
    assert.equal(libraryRoot(url(join(dist, 'cli', 'main.js'))), dist);
  });
});

test('the file-for-file layout: from a module deep in it, the root is the folder holding cli/main.js', () => {
  withTree(['build/src/cli/main.js', 'build/src/cli/serve/dev-command.js'], (root) => {
    assert.equal(libraryRoot(url(join(root, 'build', 'src', 'cli', 'serve', 'dev-command.js'))), join(root, 'build', 'src'));
  });
});

test('no folder above holds the marker: undefined', () => {
  withTree(['lib/x.js'], (root) => {
    assert.equal(libraryRoot(url(join(root, 'lib', 'x.js'))), undefined);
  });
});

test('this module finds its own library root (the test build)', () => {
  const root = libraryRoot(import.meta.url);
  assert.ok(root !== undefined);
  assert.equal(libraryRoot(pathToFileURL(join(root, ROOT_MARKER)).href), root);
});
