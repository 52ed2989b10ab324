/**
 * Abuse: a hostile HTTP server streams one enormous, unterminated SSE line to the client.
 * The parser must stay linear in the input (no re-scanning or re-joining of the buffered line
 * per chunk), keep its buffer within `maxEventChars`, drop the event and report it, and go on
 * parsing the events after it.
 *
 * Spec: WHATWG HTML, Server-sent events, "Parsing an event stream" (lines end at CR, LF or
 * CRLF; an event is dispatched at a blank line). The bound is ours (a dropped event is
 * reported as `message_too_large`).
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_MAX_EVENT_CHARS, type SseEvent, SseParser } from '../../src/framing/sse.js';

const enc = new TextEncoder();

function parser(maxEventChars?: number) {
  const events: SseEvent[] = [];
  let oversized = 0;
  const p = new SseParser({ event: (e) => events.push(e), oversized: () => oversized++ }, maxEventChars === undefined ? {} : { maxEventChars });
  return { p, events, oversized: () => oversized };
}

test('a 100 MB event fed in 4-16 KiB chunks is dropped and reported once, memory stays bounded, and the next event arrives', () => {
  const { p, events, oversized } = parser();
  const filler = enc.encode('x'.repeat(16 * 1024));
  const total = 100 * 1024 * 1024;
  p.push(enc.encode('data: '));
  let peak = 0;
  let sizes = 0;
  for (let fed = 0; fed < total; ) {
    const size = 4096 + ((sizes++ * 4099) % (12 * 1024 + 1)); // 4-16 KiB, varying
    p.push(filler.subarray(0, size));
    fed += size;
    peak = Math.max(peak, p.bufferedChars);
  }
  p.push(enc.encode('\n\ndata: after\n\n'));
  assert.ok(peak <= DEFAULT_MAX_EVENT_CHARS + 8, `buffered ${peak} characters`); // the bound, plus room for a field name
  assert.equal(oversized(), 1);
  assert.deepEqual(
    events.map((e) => e.data),
    ['after'],
  );
  assert.equal(p.bufferedChars, 0);
});

/** CPU time (µs) of feeding `events` events of one `lineChars`-long data line, in `chunk`-byte chunks. */
function feedCost(lineChars: number, chunk: number, events: number): number {
  const { p, events: got } = parser(64 * 1024 * 1024);
  const piece = enc.encode('y'.repeat(chunk));
  const start = process.cpuUsage();
  for (let e = 0; e < events; e++) {
    p.push(enc.encode('data: '));
    for (let fed = 0; fed < lineChars; fed += chunk) p.push(piece);
    p.push(enc.encode('\n\n'));
  }
  const used = process.cpuUsage(start);
  assert.equal(got.length, events);
  return used.user + used.system;
}

test('the cost of a long line does not depend on how finely it is chunked (no per-chunk re-scan)', (t) => {
  // A parser that re-scans or re-joins the buffered line on every chunk does work
  // proportional to line length / chunk size per chunk: 32 times more with 2 KiB chunks
  // than with 64 KiB ones. A linear parser does about the same work for both. The bound (8x)
  // is far from both, so machine load cannot flip the outcome.
  const line = 4 * 1024 * 1024;
  feedCost(line, 64 * 1024, 1); // warm up
  // Minimum of a few runs each: a GC pause or a descheduled moment only ever adds time.
  const coarse = Math.min(feedCost(line, 64 * 1024, 12), feedCost(line, 64 * 1024, 12), feedCost(line, 64 * 1024, 12));
  const fine = Math.min(feedCost(line, 2 * 1024, 12), feedCost(line, 2 * 1024, 12));
  t.diagnostic(`2 KiB chunks: ${fine} µs, 64 KiB chunks: ${coarse} µs (${(fine / coarse).toFixed(2)}x)`);
  assert.ok(fine < coarse * 8, `2 KiB chunks cost ${fine} µs, 64 KiB chunks ${coarse} µs: ${(fine / coarse).toFixed(1)}x`);
});
