/**
 * Helpers of the HTTP abuse tests: start http-abuse-server.js as a child process, read its
 * RSS, collect what it reports, and speak raw HTTP/1.1 over `node:net`. Not part of the package.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';

/** A running child server. */
export interface ChildServer {
  readonly child: ChildProcess;
  readonly url: string;
  readonly port: number;
  /** `ONERROR` lines seen so far: `<code> <message>`. */
  readonly errors: string[];
  /** `ANSWERED` lines seen so far (with `traceAnswers`): the methods of the requests answered. */
  readonly answered: string[];
  /** Stops the child (SIGTERM, then SIGKILL after 5 s) and waits for its exit. */
  stop(): Promise<void>;
}

/** Starts the abuse server with `config` (see http-abuse-server.ts) and waits for its LISTENING line. */
export async function startChild(config: unknown): Promise<ChildServer> {
  const script = fileURLToPath(new URL('./http-abuse-server.js', import.meta.url));
  const child = spawn(process.execPath, ['--expose-gc', script, JSON.stringify(config)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const errors: string[] = [];
  const answered: string[] = [];
  let buffer = '';
  child.stdout!.setEncoding('utf8');
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no LISTENING line within 20 s')), 20_000);
    child.stdout!.on('data', (chunk: string) => {
      buffer += chunk;
      let nl;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        if (line.startsWith('LISTENING ')) {
          clearTimeout(timer);
          resolve(line.slice('LISTENING '.length));
        } else if (line.startsWith('ONERROR ')) errors.push(line.slice('ONERROR '.length));
        else if (line.startsWith('ANSWERED ')) answered.push(line.slice('ANSWERED '.length));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the child exited with ${code}`));
    });
  });
  return {
    child,
    url,
    port: Number(new URL(url).port),
    errors,
    answered,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The resident set size of process `pid` in bytes (VmRSS of /proc/<pid>/status). */
export function rssOf(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  assert.ok(match, 'VmRSS not found');
  return Number(match[1]) * 1024;
}

/** Polls `check` every 100 ms until it returns true; false when `timeoutMs` passed first. */
export async function eventually(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The head of a raw HTTP/1.1 POST to `url` carrying `length` body bytes. */
export function postHead(url: string, length: number, headers: Record<string, string> = {}): string {
  const target = new URL(url);
  let head = `POST ${target.pathname} HTTP/1.1\r\nHost: ${target.host}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n`;
  for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
  return head + '\r\n';
}

/**
 * Opens a raw connection that POSTs `body` and then never reads: the socket is paused at
 * once, so the reply piles up in the kernel buffers and, past them, in the server.
 */
export async function neverReadingPost(url: string, body: string, headers: Record<string, string> = {}): Promise<Socket> {
  const target = new URL(url);
  const socket = connect(Number(target.port), target.hostname);
  socket.pause();
  socket.on('error', () => {}); // the server may cut it
  await once(socket, 'connect');
  socket.write(postHead(url, Buffer.byteLength(body), headers) + body);
  return socket;
}

/** The media types a Streamable HTTP POST accepts. */
export const ACCEPT_BOTH = 'application/json, text/event-stream';
/** The protocol revision the abuse tests speak. */
export const REVISION = '2025-11-25';

/** Initializes a session over fetch (initialize, then notifications/initialized); resolves with its id. */
export async function openSession(url: string): Promise<string> {
  const headers = { accept: ACCEPT_BOTH, 'content-type': 'application/json' };
  const init = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: REVISION, capabilities: {}, clientInfo: { name: 'abuse-test', version: '1' } },
    }),
  });
  assert.equal(init.status, 200);
  await init.text();
  const sessionId = init.headers.get('mcp-session-id')!;
  const ack = await fetch(url, {
    method: 'POST',
    headers: { ...headers, 'mcp-session-id': sessionId },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  assert.equal(ack.status, 202);
  return sessionId;
}
