#!/usr/bin/env node
// The mcpkit command. The compiled code lives in dist/ (built by `npm install` via the
// prepare script, or by `npm run build`).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write('mcpkit: dist/ is missing; run `npm install` (or `npm run build`) first\n');
  process.exit(1);
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
