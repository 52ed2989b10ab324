#!/usr/bin/env node
// The mcpkit command. The compiled code lives in dist/ (shipped in the package; in a checkout,
// built by `npm run build`).
import { existsSync } from 'node:fs';
import module from 'node:module';

// Node 22.1+ keeps the compiled code of the modules it loads in a cache directory (the
// system's temporary one; NODE_COMPILE_CACHE=dir chooses it, NODE_DISABLE_COMPILE_CACHE=1
// turns it off), so each later start compiles less: a pool starting many `mcpkit demo`
// children pays less CPU each. Node 20 has no such cache: nothing happens there.
module.enableCompileCache?.();

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
