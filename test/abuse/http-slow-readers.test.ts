/**
 * Fault and abuse suite, HTTP server: clients that POST a request with a large result and
 * then never read the reply. The server must not buffer for them without limit: its writes
 * honour backpressure, a reader that makes no progress for `stallTimeoutMs` (or falls too far
 * behind) is disconnected and reported through `onError`, and the server keeps serving.
 *
 * A reply that does not fit in the process-wide budget is refused before it is queued (its
 * client gets a JSON-RPC error; see http-unread-budget.test.ts).
 *
 * The expectations: RFC 9112 § 9.6 lets a server close a connection at any time; MCP
 * 2025-11-25 › Transports › Streamable HTTP ("the server MAY close the stream"; a disconnect
 * is not a cancellation) — the lost replies are the price of the laggard, not of the others.
 */

import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { Socket } from 'node:net';
import { test } from 'node:test';
import { ACCEPT_BOTH, type ChildServer, eventually, neverReadingPost, openSession, REVISION, rssOf, startChild } from './http-child.js';

const MiB = 1024 * 1024;
const LAGGARDS = 8;
const BLOB = 16 * MiB;
/** What the server may still hold once the laggards are gone: far below LAGGARDS × BLOB. */
const SETTLED_GROWTH = 48 * MiB;

async function callTool(url: string, sessionId: string, id: number, name: string, args: Record<string, unknown>): Promise<{ status: number; text: string }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { accept: ACCEPT_BOTH, 'content-type': 'application/json', 'mcp-session-id': sessionId, 'mcp-protocol-version': REVISION },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }),
  });
  const body = await res.text();
  // JSON mode answers with the response; SSE mode with events whose last data line is it
  const json =
    res.headers.get('content-type') === 'application/json'
      ? body
      : body
          .split('\n')
          .filter((l) => l.startsWith('data: {'))
          .at(-1)!
          .slice(6);
  return { status: res.status, text: JSON.parse(json).result.content[0].text };
}

/** Resumes a laggard's socket and reads it to its end: the byte count it got before the cut. */
async function drainCut(socket: Socket): Promise<number> {
  let bytes = 0;
  socket.on('data', (chunk: Buffer) => (bytes += chunk.length));
  const closed = socket.closed ? Promise.resolve() : once(socket, 'close');
  socket.resume();
  await closed;
  return bytes;
}

async function slowReaders(t: { diagnostic(message: string): void }, responseMode: 'json' | 'sse'): Promise<void> {
  const child: ChildServer = await startChild({ responseMode, serve: { stallTimeoutMs: 1000 }, maxTotalQueuedBytes: 32 * MiB });
  const pid = child.child.pid!;
  try {
    const sessionId = await openSession(child.url);
    assert.equal((await callTool(child.url, sessionId, 1, 'echo', { message: 'warm' })).text, 'warm');
    await new Promise((resolve) => setTimeout(resolve, 500));
    const base = rssOf(pid);

    const headers = { 'mcp-session-id': sessionId, 'mcp-protocol-version': REVISION };
    const laggards: Socket[] = [];
    for (let i = 0; i < LAGGARDS; i++) {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 100 + i, method: 'tools/call', params: { name: 'blob', arguments: { size: BLOB } } });
      laggards.push(await neverReadingPost(child.url, body, headers));
    }
    let peak = 0;
    const cuts = (): number => child.errors.filter((line) => line.startsWith('slow_reader')).length;
    const allCut = await eventually(() => {
      peak = Math.max(peak, rssOf(pid) - base);
      return cuts() >= LAGGARDS;
    }, 60_000);
    t.diagnostic(`${responseMode}: peak growth ${(peak / MiB).toFixed(0)} MiB, ${cuts()} laggards reported, errors: ${child.errors.slice(0, 3).join(' | ')}`);
    assert.ok(allCut, `every laggard is disconnected and reported (${cuts()} of ${LAGGARDS}; RSS +${((rssOf(pid) - base) / MiB).toFixed(0)} MiB)`);
    // the process-wide budget (32 MiB) admitted the first reply (nothing waited) and refused
    // the later ones before queueing them (a third of it is the share new replies may fill);
    // the one held fell to the stall timeout (1 s)
    assert.ok(
      child.errors.some((line) => line.includes('refused a reply')),
      'the budget refused replies past it',
    );
    assert.ok(
      child.errors.some((line) => line.includes('no progress')),
      'the stall timeout cut a laggard',
    );

    let growth = 0;
    const settled = await eventually(() => (growth = rssOf(pid) - base) < SETTLED_GROWTH, 30_000);
    assert.ok(settled, `RSS settles below base + ${SETTLED_GROWTH / MiB} MiB once the laggards are gone (+${(growth / MiB).toFixed(0)} MiB)`);

    for (const socket of laggards) {
      const got = await drainCut(socket);
      assert.ok(got < BLOB, `a laggard got only part of its reply before the cut, or the refusal (${got} bytes)`);
    }

    // the server still serves a normal client, large replies included
    assert.equal((await callTool(child.url, sessionId, 2, 'echo', { message: 'still here' })).text, 'still here');
    assert.equal((await callTool(child.url, sessionId, 3, 'blob', { size: 2 * MiB })).text.length, 2 * MiB);
  } finally {
    await child.stop();
  }
}

test('abuse: readers that never read a large JSON reply are cut and memory stays bounded', async (t) => {
  await slowReaders(t, 'json');
});

test('abuse: readers that never read a large SSE reply are cut and memory stays bounded', async (t) => {
  await slowReaders(t, 'sse');
});
