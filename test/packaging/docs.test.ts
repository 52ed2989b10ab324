/**
 * Docs that run: every TypeScript code block of README.md and docs/**.md is extracted and
 * type-checked against the built package (imports by the package's own name, `mcpkit/...`,
 * resolve through its `exports`), under strict consumer settings. Blocks whose info string
 * says `run` (```ts run) are then executed with Node and must exit 0.
 */

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { markdownFiles } from '../helpers/markdown-files.js';
import { REPO_ROOT } from '../helpers/repo.js';

const ROOT = REPO_ROOT;
const WORK = join(ROOT, '.docs-check');
const RUN_TIMEOUT_MS = 60_000;

/** One fenced TypeScript block. */
interface Block {
  file: string;
  line: number;
  run: boolean;
  code: string;
  /** Name of the extracted file, without extension. */
  name: string;
}

/** The ```ts / ```typescript blocks of a Markdown file, with the line each starts on. */
export function extractBlocks(file: string, text: string): Block[] {
  const out: Block[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(```+)\s*(ts|typescript)\b(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const fence = open[2]!;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !lines[j]!.trimStart().startsWith(fence); j++) body.push(lines[j]!.slice(open[1]!.length));
    const rel = relative(ROOT, file).replace(/[^\w]+/g, '_');
    out.push({ file, line: i + 1, run: /\brun\b/.test(open[4]!), code: body.join('\n') + '\n', name: `${rel}_L${i + 1}` });
    i = j;
  }
  return out;
}

const blocks = markdownFiles().flatMap((file) => extractBlocks(file, readFileSync(file, 'utf8')));

test('the docs have TypeScript blocks to check', () => {
  assert.ok(blocks.length >= 2, `found ${blocks.length} blocks`);
});

test('every TypeScript block of the docs compiles under strict consumer settings', { timeout: 180_000 }, () => {
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(join(WORK, 'src'), { recursive: true });
  for (const block of blocks) writeFileSync(join(WORK, 'src', `${block.name}.ts`), `export {};\n${block.code}`);
  writeFileSync(
    join(WORK, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        lib: ['ES2023'],
        types: ['node'],
        strict: true,
        exactOptionalPropertyTypes: true,
        noUncheckedIndexedAccess: true,
        noImplicitOverride: true,
        skipLibCheck: true,
        rootDir: 'src',
        outDir: 'out',
      },
      include: ['src'],
    }),
  );
  const tsc = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', WORK], { cwd: WORK, encoding: 'utf8' });
  // point each diagnostic back at the Markdown line it came from
  const located = (tsc.stdout + tsc.stderr).replace(/src\/(\S+?)\.ts\((\d+),(\d+)\)/g, (all, name: string, line: string) => {
    const block = blocks.find((b) => b.name === name);
    return block ? `${relative(ROOT, block.file)}:${block.line + Number(line) - 1}` : all;
  });
  assert.equal(tsc.status, 0, `docs code blocks do not compile:\n${located}`);
});

for (const block of blocks.filter((b) => b.run)) {
  test(`runs ${relative(ROOT, block.file)}:${block.line}`, { timeout: RUN_TIMEOUT_MS + 10_000 }, () => {
    const script = join(WORK, 'out', `${block.name}.js`);
    assert.ok(existsSync(script), 'compiled by the previous test');
    const run = spawnSync(process.execPath, [script], { cwd: ROOT, encoding: 'utf8', timeout: RUN_TIMEOUT_MS, stdio: ['ignore', 'pipe', 'pipe'] });
    assert.equal(run.status, 0, `exit ${run.status} (${run.signal ?? 'no signal'})\n--- stdout ---\n${run.stdout}\n--- stderr ---\n${run.stderr}`);
  });
}
