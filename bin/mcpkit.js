#!/usr/bin/env node
// The mcpkit command. The compiled code lives in dist/ (shipped in the package; in a checkout,
// built by `npm run build`).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write('mcpkit: dist/ is missing; run `npm run build` first\n');
  process.exit(1);
}
const { main } = await import(entry.href);
const code = await main(process.argv.slice(2));
process.exitCode = code;
// A finished command ends now: an idle keep-alive socket (HTTP targets) must not hold the
// process for seconds. Flush what stdout and stderr still hold first (pipes are async).
await Promise.all([process.stdout, process.stderr].map((s) => new Promise((resolve) => s.write('', () => resolve()))));
process.exit(code);
