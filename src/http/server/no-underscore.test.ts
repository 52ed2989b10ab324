import assert from 'node:assert/strict';
import { test } from 'node:test';
import { smallServer } from '../../../test/helpers/http/server-harness.js';
import { createStreamableHttpHandler, StreamableHttpHandler } from './handler.js';
import { OutboundBudget, PacedWriter, resolveOutbound } from './outbound.js';
import { Exchange, StatelessExchanges } from './stateless/exchange.js';

/** The `_name` members of a class's prototype and of one instance of it. */
function underscored(instance: object): string[] {
  const names = [...Object.getOwnPropertyNames(Object.getPrototypeOf(instance)), ...Object.keys(instance)];
  return names.filter((name) => name.startsWith('_')).sort();
}

test('the HTTP server classes reach each other through module functions and private members, not public _members', async () => {
  const handler = createStreamableHttpHandler({ server: smallServer() });
  // `_outbound` is part of the transports' host contract (session-transport.ts), not of this area
  assert.deepEqual(underscored(handler), ['_outbound']);
  assert.ok(handler instanceof StreamableHttpHandler);
  const budget = new OutboundBudget(1024);
  assert.deepEqual(underscored(budget), []);
  const output = { write: () => true, end: () => {}, abort: () => {} };
  assert.deepEqual(underscored(new PacedWriter(output, resolveOutbound({ budget }), () => {})), []);
  const exchanges = new StatelessExchanges(0);
  const exchange = exchanges.open(1, 'json', false);
  assert.ok(exchange instanceof Exchange);
  assert.deepEqual(underscored(exchanges), []);
  assert.deepEqual(underscored(exchange), []);
  const waiting = exchange.reply();
  assert.equal(exchanges.size, 1);
  exchange.result(1, {});
  assert.equal((await waiting).status, 200);
  assert.equal(exchanges.size, 0, 'a finished exchange leaves the open ones');
  const open = exchanges.open(2, 'json', false);
  const reply = open.reply();
  await exchanges.close();
  assert.equal(exchanges.size, 0);
  assert.equal((await reply).status, 503, 'a pending JSON reply becomes a 503 at shutdown');
  await handler.close();
});
