import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StatelessExchanges } from './exchange.js';

test('a 2026-07-28 exchange joins the open ones only when its POST is answered while it still runs', async () => {
  const exchanges = new StatelessExchanges(0);
  // answered within its dispatch: the reply comes without a promise, and the set never holds it
  const atOnce = exchanges.open(1, 'json', false);
  atOnce.result(1, { ok: true });
  assert.equal(exchanges.size, 0);
  const answered = atOnce.reply();
  assert.ok(!(answered instanceof Promise));
  assert.equal(answered.status, 200);
  assert.equal(exchanges.size, 0, 'a request answered at once is never in progress');
  // still running when its POST is answered: counted until it finishes
  const running = exchanges.open(2, 'json', false);
  assert.equal(exchanges.size, 0);
  const waiting = running.reply();
  assert.ok(waiting instanceof Promise);
  assert.equal(exchanges.size, 1);
  running.result(2, {});
  assert.equal(exchanges.size, 0);
  assert.equal((await waiting).status, 200);
  // a stream still open is counted too, and shutdown ends it
  const stream = exchanges.open(3, 'sse', false);
  const streamed = stream.reply();
  assert.ok(!(streamed instanceof Promise) && streamed.stream !== undefined);
  assert.equal(exchanges.size, 1);
  await exchanges.close();
  assert.equal(exchanges.size, 0);
  assert.equal(stream.closed, true, 'shutdown ended the open stream');
});

test('a 2026-07-28 request still running when the handler closed during its dispatch is answered 503 at once', async () => {
  const exchanges = new StatelessExchanges(0);
  const exchange = exchanges.open(7, 'json', false);
  let cancelled: unknown;
  exchange.dispatch = { cancel: (reason) => (cancelled = reason) };
  await exchanges.close(); // e.g. its handler closed the server
  const reply = exchange.reply();
  assert.ok(!(reply instanceof Promise));
  assert.equal(reply.status, 503);
  assert.match(String(reply.body), /shutting down/);
  assert.ok(cancelled instanceof Error, 'its dispatch was cancelled');
  assert.equal(exchanges.size, 0);
});
