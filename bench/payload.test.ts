/**
 * The payload section's pieces (payload.ts): its message text, and the drivers echoing a
 * large message — the stdio driver against the bare stdio server, the HTTP driver against
 * the bare HTTP server in both modes — with a wrong echo of a large message caught.
 */

import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { buildEchoRequests, checkEchoResponse, StdioDriver } from './driver.js';
import { HttpDriver } from './http-driver.js';
import { payloadText } from './payload.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const TIMEOUT = 20_000;

test('payloadText: the exact length, printable ASCII needing no JSON escape, varied, the same every time', () => {
  for (const n of [1, 100, 64 * 1024]) {
    const text = payloadText(n);
    assert.equal(text.length, n);
    assert.equal(JSON.stringify(text), `"${text}"`);
    assert.match(text, /^[\x20-\x7e]*$/);
    assert.equal(payloadText(n), text);
  }
  assert.ok(new Set(payloadText(1000)).size > 10);
});

test('the stdio driver carries a large message and checks its echo', { timeout: 60_000 }, async () => {
  const message = payloadText(64 * 1024);
  const [line] = buildEchoRequests(7, 1, message);
  assert.equal((JSON.parse(line!) as { params: { arguments: { message: string } } }).params.arguments.message, message);
  assert.equal(checkEchoResponse({ result: { content: [{ type: 'text', text: message }] } }, message), null);
  assert.match(checkEchoResponse({ result: { content: [{ type: 'text', text: message.slice(1) }] } }, message)!, /unexpected echo content/);
  const spec = { name: 'bare', command: process.execPath, args: [join(HERE, 'servers', 'bare-stdio.js')] };
  const { driver } = await StdioDriver.start(spec, { timeoutMs: TIMEOUT });
  try {
    const r = await driver.run(5, 2, TIMEOUT, message);
    assert.equal(r.calls, 5);
    assert.ok(r.checked >= 1);
  } finally {
    await driver.close();
  }
});

for (const mode of ['json', 'sse'] as const) {
  test(`the HTTP driver carries a large message and checks its echo (${mode})`, { timeout: 60_000 }, async () => {
    const message = payloadText(200 * 1024);
    const spec = { name: 'bare', command: process.execPath, args: [join(HERE, 'servers', 'bare-http.js'), `--mode=${mode}`] };
    const { driver } = await HttpDriver.start(spec, { timeoutMs: TIMEOUT, client: 'raw' });
    try {
      const session = await driver.openSession(TIMEOUT);
      const r = await session.run(4, 2, TIMEOUT, mode, message);
      assert.equal(r.calls, 4);
      assert.ok(r.checked >= 1);
    } finally {
      await driver.close();
    }
  });
}
