/**
 * Fault and abuse suite, server: resource subscriptions are bounded. The attack run held
 * 100k `resources/subscribe` to unknown URIs in one session (+166 MB); now a session keeps
 * at most `subscriptions.maxPerSession` URIs of at most `subscriptions.maxUriLength`
 * characters, and a 2026-07-28 `subscriptions/listen` names at most as many.
 *
 * Codes: an over-long URI or an over-long `resourceSubscriptions` list is a parameter the
 * server refuses, -32602 (JSON-RPC 2.0 §5.1 "Invalid method parameter(s)"); a session
 * whose subscription set is full is neither a bad parameter nor an internal failure, so it
 * gets an implementation-defined server error from the range JSON-RPC 2.0 §5.1 reserves for
 * them (-32000 to -32099): -32030 (`SUBSCRIPTION_LIMIT_CODE`). MCP names no code for either
 * (2025-11-25 › Server › Resources › Error Handling lists only -32002 and -32603).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { JSONObject } from '../../src/jsonrpc/types.js';
import { McpServer, type ServerOptions, SUBSCRIPTION_LIMIT_CODE } from '../../src/server/index.js';
import { connectPeer, errorOf, STATELESS } from './server-peer.js';

function server(options: ServerOptions = {}): McpServer {
  const s = new McpServer({ name: 'abuse', version: '1.0.0' }, options);
  s.registerResource('test://known', { name: 'known' }, () => ({ contents: [{ uri: 'test://known', text: 'k' }] }));
  return s;
}

const onlySession = (s: McpServer) => [...s.connections][0]!;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Heap in use after a full collection (what is retained, not garbage). */
function retainedHeap(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

describe('abuse: resource subscriptions', () => {
  it('one session holds at most maxPerSession subscriptions (default 1000); more answer -32030 and cost nothing', async () => {
    const s = server();
    const peer = await connectPeer(s, { record: false });
    for (let i = 0; i < 1000; i++) await peer.call('resources/subscribe', { uri: `test://unknown/${i}` });
    const before = retainedHeap();
    let refused = 0;
    for (let i = 1000; i < 6000; i++) {
      const e = errorOf(await peer.request('resources/subscribe', { uri: `test://unknown/${i}/${'x'.repeat(2000)}` }));
      assert.equal(e.code, SUBSCRIPTION_LIMIT_CODE);
      assert.match(e.message, /limit 1000/);
      refused++;
    }
    assert.equal(refused, 5000);
    assert.equal(onlySession(s).subscriptions.size, 1000);
    // 5000 refused URIs of ~2 KB each would hold ~10 MB; none of it is kept.
    const grown = retainedHeap() - before;
    assert.ok(grown < 3 * 1024 * 1024, `refused subscriptions are not retained (heap grew ${grown} bytes)`);
    // Subscribing again to a held URI is no new subscription; unsubscribing frees a slot.
    await peer.call('resources/subscribe', { uri: 'test://unknown/7' });
    await peer.call('resources/unsubscribe', { uri: 'test://unknown/7' });
    await peer.call('resources/subscribe', { uri: 'test://known' });
    assert.equal(onlySession(s).subscriptions.size, 1000);
    await peer.close();
  });

  it('a URI longer than maxUriLength (default 4096) answers -32602 on subscribe and unsubscribe', async () => {
    const s = server({ subscriptions: { maxPerSession: 10 } });
    const peer = await connectPeer(s);
    const long = `test://${'a'.repeat(4096)}`;
    for (const method of ['resources/subscribe', 'resources/unsubscribe']) {
      const e = errorOf(await peer.request(method, { uri: long }));
      assert.equal(e.code, -32602, method);
      assert.match(e.message, /4096/);
    }
    await peer.call('resources/subscribe', { uri: `test://${'a'.repeat(4089)}` }); // 4096 exactly
    assert.equal(onlySession(s).subscriptions.size, 1);
    for (let i = 1; i < 10; i++) await peer.call('resources/subscribe', { uri: `test://${i}` });
    assert.equal(errorOf(await peer.request('resources/subscribe', { uri: 'test://one-more' })).code, SUBSCRIPTION_LIMIT_CODE);
    peer.recorder!.assertNoViolations();
    await peer.close();
  });

  it('2026-07-28 subscriptions/listen: resourceSubscriptions is bounded the same way (-32602), nothing is held', async () => {
    const s = server();
    const peer = await connectPeer(s, { revision: STATELESS });
    const tooMany = Array.from({ length: 1001 }, (_, i) => `test://r/${i}`);
    let e = errorOf(await peer.request('subscriptions/listen', { notifications: { resourceSubscriptions: tooMany } }));
    assert.equal(e.code, -32602);
    assert.match(e.message, /resourceSubscriptions.*1000/);
    e = errorOf(await peer.request('subscriptions/listen', { notifications: { resourceSubscriptions: ['test://ok', `test://${'b'.repeat(5000)}`] } }));
    assert.equal(e.code, -32602);
    assert.match(e.message, /4096/);
    assert.equal(s.statelessSubscriptionCount, 0, 'a refused listen holds no subscription');
    // At the limit it is accepted and acknowledged in full.
    const atLimit = tooMany.slice(0, 1000);
    void peer.request('subscriptions/listen', { notifications: { resourceSubscriptions: atLimit } });
    for (let i = 0; i < 100 && s.statelessSubscriptionCount === 0; i++) await new Promise((r) => setTimeout(r, 10));
    const ack = peer.received.find((m) => m.method === 'notifications/subscriptions/acknowledged');
    assert.equal(((ack!.params as JSONObject).notifications as JSONObject).resourceSubscriptions !== undefined, true);
    assert.equal((((ack!.params as JSONObject).notifications as JSONObject).resourceSubscriptions as string[]).length, 1000);
    peer.recorder!.assertNoViolations();
    await s.close();
  });
});
