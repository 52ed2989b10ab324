/** The Markdown files the docs tests read: README.md, then every `.md` under docs/ in name order. */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './repo.js';

/** Absolute paths of README.md and of every `.md` file below docs/, sorted within each folder. */
export function markdownFiles(): string[] {
  const files = [join(REPO_ROOT, 'README.md')];
  (function walk(dir: string) {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir).sort()) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (entry.endsWith('.md')) files.push(path);
    }
  })(join(REPO_ROOT, 'docs'));
  return files;
}
