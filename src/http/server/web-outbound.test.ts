import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OutboundBudget, SLICE_CHARS, SlowReaderError } from './outbound.js';
import { sseReply } from './replies.js';
import { SseConnection } from './sse-connection.js';
import { toWebResponse } from './web.js';

/** An SSE connection whose owner counts the disconnects it hears, and keeps their reasons. */
function connection(): { conn: SseConnection; lost: () => number; reasons: Array<Error | undefined> } {
  const reasons: Array<Error | undefined> = [];
  const conn = new SseConnection({ connectionLost: (_conn, reason) => void reasons.push(reason) });
  return { conn, lost: () => reasons.length, reasons };
}

test('toWebResponse: a large SSE event is queued for the consumer one slice at a time, not encoded whole', async () => {
  const { conn } = connection();
  const response = toWebResponse(sseReply(conn), { budget: new OutboundBudget() });
  const text = `data: ${'é'.repeat(4 * 1024 * 1024)}\n\n`;
  conn.write(text);
  conn.end();
  const reader = response.body!.getReader();
  const first = await reader.read();
  // a pull-based stream holds about one slice (UTF-8: at most 3 bytes per UTF-16 unit)
  assert.ok(first.value!.byteLength <= 3 * SLICE_CHARS, `first chunk ${first.value!.byteLength} bytes`);
  const chunks = [first.value!];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
  }
  assert.equal(Buffer.concat(chunks).toString('utf8'), text);
});

test('toWebResponse: a consumer that stops pulling is cut after stallTimeoutMs, reported, and the core told', async () => {
  const { conn, lost, reasons } = connection();
  const errors: Error[] = [];
  const response = toWebResponse(sseReply(conn), { stallTimeoutMs: 30, budget: new OutboundBudget(), onError: (e) => errors.push(e) });
  conn.write(`data: ${'x'.repeat(8 * SLICE_CHARS)}\n\n`);
  const reader = response.body!.getReader();
  await reader.read(); // one chunk, then nothing
  for (let i = 0; i < 100 && lost() === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(lost(), 1);
  assert.equal(errors.length, 1);
  assert.ok(errors[0] instanceof SlowReaderError);
  assert.equal((errors[0] as SlowReaderError).reason, 'stalled');
  assert.equal(reasons[0], errors[0], 'the core learns why the client is gone');
  await assert.rejects(async () => {
    for (;;) if ((await reader.read()).done) break;
  });
});

test('toWebResponse: a consumer more than maxQueuedBytes behind is cut at the next event', async () => {
  const { conn, lost } = connection();
  const response = toWebResponse(sseReply(conn), { maxQueuedBytes: 4 * SLICE_CHARS, budget: new OutboundBudget() });
  void response;
  conn.write(`data: ${'a'.repeat(8 * SLICE_CHARS)}\n\n`);
  assert.equal(lost(), 0, 'one large event passes');
  conn.write('data: b\n\n');
  assert.equal(lost(), 1);
});
