/**
 * The stdio client ends the server's whole process group: `close()` leaves no grandchild of
 * the server running, and Ctrl-C (SIGINT to our process, as a terminal sends it to the
 * foreground group, which a detached child is not in) still ends the server and its children
 * along with us. Real processes: a server script that spawns a grandchild and reports its pid.
 */

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { hasTmux, shellQuote, TmuxSession } from '../../test/helpers/cli/cli-run.js';
import { Client } from '../client/client.js';
import { StdioClientTransport } from './client-transport.js';

const dir = mkdtempSync(join(tmpdir(), 'mcpkit-group-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A minimal MCP server that starts a long-lived grandchild, reports its pid on stderr, and exits when stdin ends. */
const SERVER = join(dir, 'server-with-grandchild.mjs');
writeFileSync(
  SERVER,
  `import { spawn } from 'node:child_process';
const grandchild = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
process.stderr.write('grandchild ' + grandchild.pid + '\\n');
let buffered = '';
process.stdin.on('data', (chunk) => {
  buffered += chunk;
  for (let i = buffered.indexOf('\\n'); i >= 0; i = buffered.indexOf('\\n')) {
    const m = JSON.parse(buffered.slice(0, i));
    buffered = buffered.slice(i + 1);
    if (m.method === 'initialize') process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: {}, serverInfo: { name: 'g', version: '1' } } }) + '\\n');
  }
});
process.stdin.on('end', () => process.exit(0));
`,
);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits until `pid` is gone (a reparented zombie is reaped by init promptly); false after `ms`. */
async function gone(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (alive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

async function grandchildOf(transport: StdioClientTransport): Promise<number> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const m = /grandchild (\d+)/.exec(transport.stderrTail());
    if (m) return Number(m[1]);
    if (Date.now() > deadline) throw new Error(`no grandchild pid on stderr: ${transport.stderrTail()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('close() ends the server and its grandchild', { skip: process.platform === 'win32' }, async () => {
  const transport = new StdioClientTransport({ command: process.execPath, args: [SERVER], closeTimeouts: { stdinMs: 2000, termMs: 1000 } });
  const client = new Client({ name: 'c', version: '1' });
  await client.connect(transport);
  const grandchild = await grandchildOf(transport);
  assert.ok(alive(grandchild));
  await client.close();
  const leftOver = !(await gone(grandchild, 3000));
  if (leftOver) process.kill(grandchild, 'SIGKILL');
  assert.equal(leftOver, false, `grandchild ${grandchild} still runs after close()`);
});

test('SIGINT to the client process (Ctrl-C) ends it, the server and the grandchild', { skip: process.platform === 'win32' }, async () => {
  const parentScript = join(dir, 'parent.mjs');
  writeFileSync(
    parentScript,
    `import { StdioClientTransport } from ${JSON.stringify(new URL('./client-transport.js', import.meta.url).href)};
const transport = new StdioClientTransport({ command: process.execPath, args: [${JSON.stringify(SERVER)}] });
await transport.start({ message() {}, error() {}, closed() {} });
const timer = setInterval(() => {
  const m = /grandchild (\\d+)/.exec(transport.stderrTail());
  if (m) { clearInterval(timer); process.stdout.write(transport.pid + ' ' + m[1] + '\\n'); }
}, 20);
`,
  );
  const parent = spawn(process.execPath, [parentScript], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    let text = '';
    parent.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('\n')) resolve(text.trim());
    });
    parent.once('exit', () => reject(new Error(`parent exited early: ${text}`)));
  });
  const [server, grandchild] = line.split(' ').map(Number) as [number, number];
  const exited = new Promise<NodeJS.Signals | null>((resolve) => parent.once('exit', (_code, signal) => resolve(signal)));
  parent.kill('SIGINT');
  assert.equal(await exited, 'SIGINT', 'the client process ends by SIGINT, as without the transport');
  const leftOver = [server, grandchild].filter((pid) => alive(pid));
  const stillThere = [];
  for (const pid of leftOver) if (!(await gone(pid, 3000))) stillThere.push(pid);
  for (const pid of stillThere) process.kill(pid, 'SIGKILL');
  assert.deepEqual(stillThere, [], 'processes left running after Ctrl-C');
});

test('Ctrl-C in a terminal (tmux) ends the client, the server and the grandchild', { skip: process.platform === 'win32' || !hasTmux() }, async () => {
  const pidFile = join(dir, 'pids.txt');
  const parentScript = join(dir, 'terminal-parent.mjs');
  writeFileSync(
    parentScript,
    `import { writeFileSync } from 'node:fs';
import { StdioClientTransport } from ${JSON.stringify(new URL('./client-transport.js', import.meta.url).href)};
const transport = new StdioClientTransport({ command: process.execPath, args: [${JSON.stringify(SERVER)}] });
await transport.start({ message() {}, error() {}, closed() {} });
const timer = setInterval(() => {
  const m = /grandchild (\\d+)/.exec(transport.stderrTail());
  if (m) { clearInterval(timer); writeFileSync(${JSON.stringify(pidFile)}, process.pid + ' ' + transport.pid + ' ' + m[1]); console.log('READY'); }
}, 20);
`,
  );
  const tmux = new TmuxSession('stdio-ctrl-c', `${shellQuote(process.execPath)} ${shellQuote(parentScript)}`);
  let pids: number[] = [];
  try {
    await tmux.waitFor((pane) => pane.includes('READY') && existsSync(pidFile), 'the client to start its server');
    pids = readFileSync(pidFile, 'utf8').trim().split(' ').map(Number);
    assert.equal(pids.length, 3);
    tmux.send('C-c');
    const stillThere: number[] = [];
    for (const pid of pids) if (!(await gone(pid, 5000))) stillThere.push(pid);
    assert.deepEqual(stillThere, [], `left running after Ctrl-C (client, server, grandchild: ${pids.join(' ')})`);
  } finally {
    for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
    tmux.kill();
  }
});
