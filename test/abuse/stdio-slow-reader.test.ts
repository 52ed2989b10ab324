/**
 * Abuse: a stdio client that floods the server with requests and never reads its stdout.
 * The server must stop reading stdin while its replies pile up (bounded memory), and answer
 * every request once the client starts reading (nothing lost).
 *
 * Spec: Transports → stdio (messages are newline-delimited JSON-RPC on stdin/stdout); JSON-RPC
 * 2.0 section 4 (every request with an id gets exactly one response).
 */

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { StdioClientTransport } from '../../src/stdio/index.js';
import { initializeLine, sleep, spawnDemo, stopChild } from './stdio-demo-child.js';

const REQUESTS = 60_000;
/** Far below what the unfixed server grows by for this flood (hundreds of MB), far above the bound's cost. */
const RSS_GROWTH_BOUND_MB = 64;

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /VmRSS:\s+(\d+) kB/.exec(status);
  assert.ok(match, 'VmRSS is readable');
  return Number(match[1]) / 1024;
}

test('a client that never reads stdout: the server stops reading, memory stays bounded, every request is answered once reading starts', {
  timeout: 240_000,
}, async (t) => {
  const child = spawnDemo();
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4096);
  });
  try {
    const pid = child.pid!;
    // Handshake first (read its answer), so the baseline includes a warmed-up server.
    child.stdin.write(initializeLine('flood'));
    const [first] = (await new Promise<Buffer[]>((resolve) => child.stdout.once('data', (chunk: Buffer) => resolve([chunk])))) as Buffer[];
    assert.match(first!.toString(), /"id":0,"result"/);
    child.stdout.pause(); // from here on, nobody reads the server's stdout
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
    await sleep(200);
    const baseMb = rssMb(pid);

    // The flood: small tools/call requests (bounded count), written without waiting.
    const message = 'm'.repeat(1000);
    let written = 0;
    for (let id = 1; id <= REQUESTS; id++) {
      const line = JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { message } } }) + '\n';
      written += line.length;
      child.stdin.write(line);
    }

    // Watch the server while it reads what it is willing to read: until it has taken all the
    // input, or it has taken nothing more for a while (it stopped reading, as it should).
    let peakMb = rssMb(pid);
    let lastLeft = child.stdin.writableLength;
    let still = 0;
    for (let i = 0; i < 1200 && child.stdin.writableLength > 0 && still < 40; i++) {
      await sleep(50);
      peakMb = Math.max(peakMb, rssMb(pid));
      const left = child.stdin.writableLength;
      still = left === lastLeft ? still + 1 : 0;
      lastLeft = left;
    }
    peakMb = Math.max(peakMb, rssMb(pid));
    const growth = peakMb - baseMb;
    t.diagnostic(`server RSS growth while unread: ${growth.toFixed(1)} MB; ${child.stdin.writableLength} of ${written} bytes left unread`);
    assert.ok(
      growth < RSS_GROWTH_BOUND_MB,
      `server RSS grew by ${growth.toFixed(1)} MB (bound ${RSS_GROWTH_BOUND_MB} MB) while its stdout was not read; ${child.stdin.writableLength} of ${written} bytes still unread`,
    );

    // Now read: every request gets its answer.
    const answered = new Set<number>();
    let errors = 0;
    let tail = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      const lines = (tail + chunk).split('\n');
      tail = lines.pop()!;
      for (const line of lines) {
        if (line.length === 0) continue;
        const msg = JSON.parse(line) as { id?: number; result?: { content?: Array<{ text?: string }> }; error?: unknown };
        if (typeof msg.id !== 'number') continue;
        if (msg.result?.content?.[0]?.text === message) answered.add(msg.id);
        else errors++;
      }
    });
    child.stdout.resume();
    for (let i = 0; i < 2400 && answered.size + errors < REQUESTS; i++) await sleep(50);
    assert.equal(errors, 0, 'no request was refused');
    assert.equal(answered.size, REQUESTS, `every request answered (stderr: ${stderr})`);
  } finally {
    await stopChild(child);
  }
});

/**
 * A hostile server: floods the client with ping requests, reads nothing from its stdin until
 * SIGUSR1, then counts the replies and exits 0 once it has them all.
 */
const FLOOD_SERVER = `
  const N = Number(process.argv[2]);
  process.stdin.pause();
  process.on('SIGUSR1', () => {
    let seen = 0, tail = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (chunk) => {
      const lines = (tail + chunk).split('\\n');
      tail = lines.pop();
      for (const line of lines) if (line.includes('"result"')) seen++;
      if (seen >= N) process.exit(0);
    });
    process.stdin.resume();
  });
  setInterval(() => {}, 1000);
  let out = '';
  for (let id = 1; id <= N; id++) out += JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' }) + '\\n';
  process.stdout.write(out);
`;

test('a server that never reads stdin: the client stops reading its stdout while replies pile up, and delivers them all later', {
  timeout: 120_000,
}, async () => {
  const PINGS = 20_000;
  const BOUND = 100_000;
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-flood-'));
  const script = join(dir, 'flood.mjs');
  writeFileSync(script, FLOOD_SERVER);
  const transport = new StdioClientTransport({ command: process.execPath, args: [script, String(PINGS)], maxQueuedOutputChars: BOUND, stderr: 'ignore' });
  let received = 0;
  let sendFailures = 0;
  let closed: Error | undefined | null = null;
  try {
    await transport.start({
      message: (data) => {
        received++;
        const { id } = JSON.parse(data as string) as { id: number };
        // JSON-RPC 2.0 section 5: every request gets a response (the result of ping is {}).
        transport.send({ jsonrpc: '2.0', id, result: {} }).catch(() => sendFailures++);
      },
      error: () => {},
      closed: (reason) => {
        closed = reason;
      },
    });
    // Wait until the client has read all it is willing to read.
    let last = -1;
    let still = 0;
    for (let i = 0; i < 1200 && received < PINGS && still < 40; i++) {
      await sleep(50);
      still = received === last ? still + 1 : 0;
      last = received;
    }
    assert.ok(received < PINGS / 2, `the client kept reading (${received} of ${PINGS} requests read) while its replies were not taken`);
    process.kill(transport.pid!, 'SIGUSR1');
    for (let i = 0; i < 2400 && transport.exitStatus === undefined; i++) await sleep(50);
    assert.deepEqual(transport.exitStatus, { code: 0, signal: null }, 'the server got every reply');
    assert.equal(received, PINGS);
    assert.equal(sendFailures, 0);
  } finally {
    await transport.close();
    rmSync(dir, { recursive: true, force: true });
  }
  // The server exited on its own once it had everything: reported as such, not as a failure to read.
  assert.equal((closed as { code?: string } | null | undefined)?.code, 'process_exited');
});
