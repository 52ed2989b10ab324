/**
 * The Streamable HTTP session transport gets facts, not the role: it routes what it sends by
 * the facts its session hands it (`SendOptions`), learns of a client's cancellation from the
 * session (`peerCancelled`), answers the handler's questions about the connection through
 * the view it got at start, and has no field an outsider writes (its owner is a constructor
 * argument, its activity and connection count read-only, no server connection on it).
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChannelView } from '../../transport/types.js';
import { StreamableSessionTransport } from './session-transport.js';

const host = { store: undefined, retryMs: 1000, reportError: (e: Error) => assert.fail(e), released: () => {} };
const receiver = { message: () => {}, error: () => {}, closed: () => {} };

test('a response is routed by the id its session states, not by reading the message', async () => {
  const transport = new StreamableSessionTransport(host, 'session-1');
  transport.start(receiver);
  const stream = transport.openPost([7], false, false, 'json');
  // the body names another id: the facts are what count
  await transport.send({ jsonrpc: '2.0', id: 999, error: { code: -1, message: 'x' } }, { kind: 'error', id: 7 });
  const outcome = transport.answeredNow(stream);
  assert.ok(outcome !== undefined, 'the POST of request 7 is answered');
  assert.equal(outcome.isError, true, 'the kind says error');
  assert.equal(JSON.parse(outcome.body!).id, 999);
  await transport.close();
});

test('a message without facts (text, or no options) is read for them', async () => {
  const transport = new StreamableSessionTransport(host, 'session-1');
  transport.start(receiver);
  const a = transport.openPost([1], false, false, 'json');
  const b = transport.openPost([2], false, false, 'json');
  await transport.send(JSON.stringify({ jsonrpc: '2.0', id: 1, result: {} }));
  await transport.send({ jsonrpc: '2.0', id: 2, result: {} });
  assert.ok(transport.answeredNow(a) !== undefined && transport.answeredNow(b) !== undefined);
  await transport.close();
});

test('peerCancelled completes the POST stream of the cancelled request once none of its requests is open', async () => {
  const transport = new StreamableSessionTransport(host, 'session-1');
  transport.start(receiver);
  const single = transport.openPost([1], false, false, 'json');
  transport.peerCancelled(1);
  const outcome = transport.answeredNow(single);
  assert.ok(outcome !== undefined, 'completed at once');
  assert.equal(outcome.body, undefined, 'without a response');
  assert.equal(transport.isOpenRequest(1), false);
  const batch = transport.openPost([2, 3], true, false, 'json');
  transport.peerCancelled(2);
  assert.equal(transport.answeredNow(batch), undefined, 'request 3 is still open');
  transport.peerCancelled(3);
  assert.ok(transport.answeredNow(batch) !== undefined);
  await transport.close();
});

test('the handler asks the connection through the view given at start; no outsider writes a field', async () => {
  const transport = new StreamableSessionTransport(host, 'session-1', undefined, 'principal-a');
  assert.equal(transport.owner, 'principal-a');
  assert.equal(transport.protocolVersion, undefined, 'not started');
  assert.equal(transport.awaits(1), false);
  const view: ChannelView = { protocolVersion: '2025-06-18', awaits: (id) => id === 'srv-1', handles: () => false };
  transport.start(receiver, view);
  assert.equal(transport.protocolVersion, '2025-06-18');
  assert.equal(transport.awaits('srv-1'), true);
  assert.equal(transport.awaits('srv-2'), false);
  assert.ok(!('server' in transport), 'the transport holds no server connection');
  const writable = transport as unknown as Record<string, unknown>;
  for (const field of ['owner', 'lastActivity', 'connections']) {
    assert.throws(
      () => {
        writable[field] = 0;
      },
      TypeError,
      `${field} is read-only`,
    );
  }
  await transport.close();
});
