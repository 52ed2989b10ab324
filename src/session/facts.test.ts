/**
 * What the JSON-RPC channel tells its transport (transport/types.ts): the facts of every
 * message it sends (`SendOptions`: kind, id, method, related request, the request a
 * cancellation concerns), in one reused options object; the read-only `ChannelView` handed
 * at start (negotiated revision, awaited and handled ids); `peerCancelled` for a peer's
 * cancellation of a request in progress. And a transport written before any of that (no
 * view, no options, no optional methods) still carries a whole MCP conversation.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { waitFor } from '../../test/helpers/wait.js';
import { Client } from '../client/client.js';
import type { JSONRPCMessage, RequestId } from '../jsonrpc/types.js';
import { McpServer } from '../server/server.js';
import { InMemoryTransport } from '../transport/memory.js';
import type { ChannelView, MessageKind, SendOptions, Transport, TransportReceiver } from '../transport/types.js';
import { RpcChannel, Session } from './session.js';

interface Seen {
  readonly message: unknown;
  readonly options: SendOptions | undefined;
  readonly kind: MessageKind | undefined;
  readonly id: RequestId | null | undefined;
  readonly method: string | undefined;
  readonly relatedRequestId: RequestId | undefined;
  readonly cancels: RequestId | undefined;
}

/** Wraps one end of an in-memory pair: records the facts of every send (copied during the call), the view, and peer cancellations. */
class Recording implements Transport {
  readonly sent: Seen[] = [];
  readonly cancelledByPeer: RequestId[] = [];
  view: ChannelView | undefined;
  constructor(readonly inner: InMemoryTransport) {}
  start(receiver: TransportReceiver, view?: ChannelView): void {
    this.view = view;
    this.inner.start(receiver);
  }
  send(message: JSONRPCMessage | JSONRPCMessage[] | string, options?: SendOptions): Promise<void> {
    this.sent.push({
      message,
      options,
      kind: options?.kind,
      id: options?.id,
      method: options?.method,
      relatedRequestId: options?.relatedRequestId,
      cancels: options?.cancels,
    });
    return this.inner.send(message);
  }
  peerCancelled(id: RequestId): void {
    this.cancelledByPeer.push(id);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

function channel(handler: (method: string) => unknown = () => ({})) {
  const [a, b] = InMemoryTransport.createPair();
  const transport = new Recording(a);
  const peerMessages: any[] = [];
  b.start({ message: (data) => void peerMessages.push(JSON.parse(data as string)), error: () => {}, closed: () => {} });
  const rpc = new RpcChannel(transport, {
    request: (ctx) => handler(ctx.method),
    notification: () => {},
    batchesAllowed: () => true,
    protocolVersion: () => '2025-11-25',
  });
  return { rpc, transport, peer: b, peerMessages };
}

test('send() is told the kind, id, method, related request and cancelled request of every message the channel builds', async () => {
  const { rpc, transport, peer, peerMessages } = channel((method) =>
    method === 'slow' ? new Promise(() => {}) : method === 'fail' ? Promise.reject(new Error('boom')) : { ok: true },
  );
  await rpc.start();
  const controller = new AbortController();
  const pending = rpc.request('tools/call', { name: 'x' }, { signal: controller.signal, relatedRequestId: 'in-1' });
  controller.abort('stop');
  await assert.rejects(pending);
  await rpc.notify('notifications/message', { level: 'info', data: 'x' }, { relatedRequestId: 7 });
  await peer.send(JSON.stringify({ jsonrpc: '2.0', id: 'r1', method: 'ping' }));
  await peer.send(JSON.stringify({ jsonrpc: '2.0', id: 'r2', method: 'fail' }));
  await peer.send(
    JSON.stringify([
      { jsonrpc: '2.0', id: 'b1', method: 'ping' },
      { jsonrpc: '2.0', id: 'b2', method: 'ping' },
    ]),
  );
  await waitFor(() => peerMessages.length >= 5, 'every message at the peer');
  const byKind = (kind: string) => transport.sent.filter((s) => s.kind === kind);
  assert.deepEqual(
    byKind('request').map((s) => [s.id, s.method, s.relatedRequestId]),
    [[1, 'tools/call', 'in-1']],
  );
  assert.deepEqual(
    byKind('notification').map((s) => [s.method, s.cancels, s.relatedRequestId]),
    [
      ['notifications/cancelled', 1, undefined],
      ['notifications/message', undefined, 7],
    ],
  );
  assert.deepEqual(
    byKind('response').map((s) => s.id),
    ['r1'],
  );
  assert.deepEqual(
    byKind('error').map((s) => s.id),
    ['r2'],
  );
  assert.deepEqual(
    byKind('batch').map((s) => s.id),
    ['b1'],
  );
  // one options object for every send: nothing allocated per message
  assert.equal(new Set(transport.sent.map((s) => s.options)).size, 1);
  await rpc.close();
});

test('an error answering no request (a parse error) has id null', async () => {
  const { rpc, transport, peer, peerMessages } = channel();
  await rpc.start();
  await peer.send('{"jsonrpc": "2.0", "id": 1, "method": ');
  await waitFor(() => peerMessages.length === 1, 'the parse error');
  assert.deepEqual([transport.sent[0]!.kind, transport.sent[0]!.id], ['error', null]);
  await rpc.close();
});

test('the view handed at start answers the revision, awaited and handled ids; peerCancelled names a cancelled request in progress', async () => {
  let release: () => void = () => {};
  const { rpc, transport, peer, peerMessages } = channel(() => new Promise<object>((resolve) => (release = () => resolve({}))));
  await rpc.start();
  const view = transport.view!;
  assert.equal(view.protocolVersion, '2025-11-25');
  const asked = rpc.request('ping', undefined);
  assert.equal(view.awaits(1), true);
  assert.equal(view.awaits(2), false);
  await peer.send(JSON.stringify({ jsonrpc: '2.0', id: 1, result: {} }));
  await asked;
  assert.equal(view.awaits(1), false);
  await peer.send(JSON.stringify({ jsonrpc: '2.0', id: 'slow', method: 'slow' }));
  await waitFor(() => view.handles('slow'), 'the request in progress');
  await peer.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'slow' } }));
  await peer.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'unknown' } }));
  await waitFor(() => transport.cancelledByPeer.length === 1, 'the cancellation told to the transport');
  assert.deepEqual(transport.cancelledByPeer, ['slow'], 'only a request in progress');
  release();
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(view.handles('slow'), false);
  assert.deepEqual(
    peerMessages.filter((m) => m.id === 'slow'),
    [],
    'no response for the cancelled request',
  );
  await rpc.close();
});

test('Session is a deprecated alias of RpcChannel', () => {
  assert.equal(Session, RpcChannel);
});

/**
 * A transport as a third party wrote it against the interface before facts and views:
 * `start(receiver)`, `send(message)` (no options read), `close()`; nothing optional.
 */
class OldStyleTransport {
  #receiver: TransportReceiver | undefined;
  other: OldStyleTransport | undefined;
  start(receiver: TransportReceiver): Promise<void> {
    this.#receiver = receiver;
    return Promise.resolve();
  }
  send(message: JSONRPCMessage | JSONRPCMessage[] | string): Promise<void> {
    const text = typeof message === 'string' ? message : JSON.stringify(message);
    const other = this.other!;
    setTimeout(() => other.#receiver?.message(text), 0);
    return Promise.resolve();
  }
  async close(): Promise<void> {
    this.#receiver?.closed();
  }
}

test('a third-party transport without the new parameters carries a whole conversation (call, progress, cancellation)', async () => {
  const server = new McpServer({ name: 'old-style', version: '1.0.0' });
  let cancelled = false;
  server.registerTool('echo', { description: 'echo' }, () => 'echoed');
  server.registerTool('wait', { description: 'waits until cancelled' }, async (_args, ctx) => {
    await ctx.sendProgress(1, 2);
    await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
    cancelled = true;
    return 'late';
  });
  const a = new OldStyleTransport();
  const b = new OldStyleTransport();
  a.other = b;
  b.other = a;
  await server.connect(a);
  const client = new Client({ name: 'c', version: '1' });
  await client.connect(b);
  const result = await client.callTool({ name: 'echo', arguments: {} });
  assert.deepEqual(result.content, [{ type: 'text', text: 'echoed' }]);
  const controller = new AbortController();
  const progress: number[] = [];
  const waiting = client.callTool({ name: 'wait', arguments: {} }, { signal: controller.signal, onProgress: (p) => void progress.push(p.progress) });
  await waitFor(() => progress.length === 1, 'the progress');
  controller.abort();
  await assert.rejects(waiting);
  await waitFor(() => cancelled, 'the cancellation at the server');
  await client.close();
  await server.close();
});
