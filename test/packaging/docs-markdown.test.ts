/**
 * Docs that render as written: every Markdown table of README.md and docs/**.md is whole (a
 * row cut off from its table by a blank line renders as a stray paragraph of pipes, as the
 * optional-dependency table of getting-started.md once did), and the deployment guide keeps
 * the settings its nginx configuration and Dockerfile exist for.
 */

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { markdownFiles } from '../helpers/markdown-files.js';
import { REPO_ROOT } from '../helpers/repo.js';

const ROW = /^\s*\|.*\|\s*$/;
const DELIMITER = /^\s*\|(\s*:?-{3,}:?\s*\|)+\s*$/;

/** The cells of a table row (escaped pipes and pipes inside backticks are not separators). */
function cellCount(row: string): number {
  const bare = row
    .trim()
    .replace(/\\\|/g, '')
    .replace(/`[^`]*`/g, '');
  return bare.slice(1, -1).split('|').length;
}

/** Problems of the tables in `text`: rows that start no table and continue none, header and delimiter of different widths. */
export function tableProblems(text: string): string[] {
  const problems: string[] = [];
  const lines = text.split('\n');
  let fence: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const open = /^\s*(```+|~~~+)/.exec(line);
    if (open) {
      if (fence === undefined) fence = open[1]!;
      else if (line.trimStart().startsWith(fence)) fence = undefined;
      continue;
    }
    if (fence !== undefined || !ROW.test(line) || DELIMITER.test(line)) continue;
    const previous = lines[i - 1] ?? '';
    if (ROW.test(previous)) continue;
    const next = lines[i + 1] ?? '';
    if (!DELIMITER.test(next))
      problems.push(`line ${i + 1}: a table row outside any table (a blank line or text cuts it off from its table): ${line.trim().slice(0, 60)}`);
    else if (cellCount(line) !== cellCount(next)) problems.push(`line ${i + 1}: the header has ${cellCount(line)} cells, its delimiter row ${cellCount(next)}`);
  }
  return problems;
}

test('a table row cut off by a blank line is found (the check can fail)', () => {
  const broken = '| package | needed for |\n|---|---|\n| `jose` | JWT |\n\n| `tsx` | .ts files |\n';
  assert.deepEqual(tableProblems(broken), ['line 5: a table row outside any table (a blank line or text cuts it off from its table): | `tsx` | .ts files |']);
  assert.deepEqual(tableProblems(broken.replace('\n\n', '\n')), []);
});

test('every Markdown table of the docs is whole', () => {
  const problems = markdownFiles().flatMap((file) => tableProblems(readFileSync(file, 'utf8')).map((p) => `${relative(REPO_ROOT, file)} ${p}`));
  assert.deepEqual(problems, []);
});

test('deploying.md: the nginx configuration and the Dockerfile keep what an MCP server needs', () => {
  const text = readFileSync(join(REPO_ROOT, 'docs', 'deploying.md'), 'utf8');
  const block = (lang: string) => new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(text)?.[1] ?? '';
  const nginx = block('nginx');
  for (const directive of [
    'proxy_buffering off;',
    'proxy_request_buffering off;',
    'proxy_read_timeout',
    'proxy_http_version 1.1;',
    'proxy_set_header Host $host;',
    'hash $mcp_route consistent;',
    '$http_mcp_session_id',
    'client_max_body_size',
  ]) {
    assert.ok(nginx.includes(directive), `the nginx block has ${directive}`);
  }
  const dockerfile = block('dockerfile');
  for (const line of ['FROM node:20-slim', 'npm ci --omit=dev', 'USER node']) assert.ok(dockerfile.includes(line), `the Dockerfile has ${line}`);
  assert.ok(text.includes('MCPKIT_DEBUG=1') && text.includes('ToolHandlerError'), 'it says how to see tool exceptions');
});
