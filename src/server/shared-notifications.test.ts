/**
 * `ServerOptions.notifier` (shared-notifications.ts) on its own, without Redis: two servers
 * joined by a small in-process {@link SharedNotifier} (every member hears the others, never
 * itself), each with a raw 2025-11-25 client over an in-memory pair. Shows the server's side
 * of the contract: a change raised on one server reaches the other's subscribers and is
 * delivered once on the raising one; registrations before the server serves are not
 * published, later ones are, batched like local list_changed; a notifier that rejects is
 * reported to `onError` and `notifyResourceUpdated` still resolves, the local subscriber
 * served; `close()` removes the server's handler from the notifier. (The Redis notifier and Streamable HTTP: src/redis/subscriptions-across-instances.test.ts.)
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { waitFor } from '../../test/helpers/wait.js';
import type { JSONObject } from '../jsonrpc/types.js';
import { InMemoryTransport } from '../transport/memory.js';
import type { Transport } from '../transport/types.js';
import { McpServer } from './server.js';
import type { SharedChange, SharedListChangedMethod, SharedNotifier } from './shared-notifications.js';

/** An in-process notifier hub: a member's announcements reach every other member, in order. */
class Hub {
  readonly #members = new Set<Member>();
  join(): Member {
    const member = new Member(this.#members);
    this.#members.add(member);
    return member;
  }
}

class Member implements SharedNotifier {
  /** What this member published. */
  readonly published: SharedChange[] = [];
  /** When set, publishing rejects with it. */
  failing: Error | undefined;
  readonly #handlers = new Set<(change: SharedChange) => void>();
  constructor(readonly members: ReadonlySet<Member>) {}
  async resourceUpdated(uri: string): Promise<void> {
    this.#publish({ method: 'notifications/resources/updated', uri });
  }
  async listChanged(method: SharedListChangedMethod): Promise<void> {
    this.#publish({ method });
  }
  get handlerCount(): number {
    return this.#handlers.size;
  }
  onNotification(handler: (change: SharedChange) => void): () => void {
    this.#handlers.add(handler);
    return () => this.#handlers.delete(handler);
  }
  #publish(change: SharedChange): void {
    if (this.failing !== undefined) throw this.failing;
    this.published.push(change);
    for (const m of this.members) if (m !== this) for (const h of m.#handlers) h(change);
  }
}

function server(notifier: SharedNotifier, errors: Error[]): McpServer {
  const s = new McpServer({ name: 'shared', version: '1.0.0' }, { notifier, onError: (e) => void errors.push(e) });
  s.registerResource('note://a', { name: 'a' }, () => ({ contents: [{ uri: 'note://a', text: 'a' }] }));
  s.registerTool('echo', { description: 'echo' }, () => 'echo');
  return s;
}

/** A raw 2025-11-25 client of `s`, initialized; `seen` holds the notification methods (with the URI for resources/updated). */
async function client(s: McpServer): Promise<{ request: (method: string, params?: JSONObject) => Promise<JSONObject>; seen: string[] }> {
  const [serverEnd, peer] = InMemoryTransport.createPair();
  await s.connect(serverEnd);
  const seen: string[] = [];
  const waiting = new Map<unknown, (m: JSONObject) => void>();
  await peer.start({
    message: (data) => {
      const m = (typeof data === 'string' ? JSON.parse(data) : data) as JSONObject;
      if (m.method === undefined) waiting.get(m.id)?.(m);
      else if (m.id === undefined) seen.push(m.method === 'notifications/resources/updated' ? `updated ${(m.params as JSONObject).uri}` : (m.method as string));
    },
    error: () => {},
    closed: () => {},
  });
  let next = 1;
  const request = (method: string, params?: JSONObject) =>
    new Promise<JSONObject>((resolve, reject) => {
      const id = next++;
      waiting.set(id, (m) => (m.error === undefined ? resolve(m.result as JSONObject) : reject(new Error(JSON.stringify(m.error)))));
      void peer.send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) } as never);
    });
  await request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } });
  await peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' } as never);
  await request('ping');
  return { request, seen };
}

describe('ServerOptions.notifier', () => {
  it("delivers changes raised on another server to this one's subscribers, and its own once", async () => {
    const hub = new Hub();
    const errors: Error[] = [];
    const na = hub.join();
    const nb = hub.join();
    const a = server(na, errors);
    const b = server(nb, errors);
    const ca = await client(a);
    const cb = await client(b);
    await ca.request('resources/subscribe', { uri: 'note://a' });
    await cb.request('resources/subscribe', { uri: 'note://a' });

    await b.notifyResourceUpdated('note://a');
    await waitFor(() => ca.seen.length === 1 && cb.seen.length === 1, 'the update on both servers');
    assert.deepEqual(nb.published, [{ method: 'notifications/resources/updated', uri: 'note://a' }]);

    await a.notifyResourceUpdated('note://a');
    await a.notifyResourceUpdated('note://unwatched');
    await waitFor(() => ca.seen.length === 2 && cb.seen.length === 2, 'the second update on both servers');
    // a round trip on each session: anything still on its way would be ahead of the pong
    await ca.request('ping');
    await cb.request('ping');
    assert.deepEqual(ca.seen, ['updated note://a', 'updated note://a']);
    assert.deepEqual(cb.seen, ['updated note://a', 'updated note://a']);
    assert.deepEqual(errors, []);
  });

  it('publishes registry changes made once the server serves (batched), not those before', async () => {
    const hub = new Hub();
    const errors: Error[] = [];
    const na = hub.join();
    const nb = hub.join();
    const a = server(na, errors);
    const b = server(nb, errors);
    b.registerTool('boot', { description: 'registered at startup' }, () => 'boot');
    assert.deepEqual(nb.published, [], 'nothing is announced before the server serves');
    await b.ready();
    const ca = await client(a);
    b.registerTool('late1', { description: 'added later' }, () => 'late');
    b.registerTool('late2', { description: 'added later' }, () => 'late');
    await waitFor(() => nb.published.length > 0, 'the announcement');
    assert.deepEqual(nb.published, [{ method: 'notifications/tools/list_changed' }], 'one announcement for the batch');
    await waitFor(() => ca.seen.length === 1, 'list_changed on A');
    await ca.request('ping');
    assert.deepEqual(ca.seen, ['notifications/tools/list_changed']);
    assert.deepEqual(na.published, [], 'A only delivered it');
    assert.deepEqual(errors, []);
  });

  it('reports a notifier that cannot publish and still serves the local subscribers', async () => {
    const hub = new Hub();
    const errors: Error[] = [];
    const na = hub.join();
    const a = server(na, errors);
    const ca = await client(a);
    await ca.request('resources/subscribe', { uri: 'note://a' });
    na.failing = new Error('Redis at 127.0.0.1:1 is unreachable (disconnected)');
    await a.notifyResourceUpdated('note://a');
    assert.deepEqual(
      errors.map((e) => e.message),
      ['Redis at 127.0.0.1:1 is unreachable (disconnected)'],
    );
    await waitFor(() => ca.seen.length === 1, 'the local update');
    a.registerTool('late', { description: 'added later' }, () => 'late');
    await waitFor(() => errors.length === 2, 'the failed list_changed announcement reported');
    await waitFor(() => ca.seen.length === 2, 'the local list_changed');
    assert.deepEqual(ca.seen, ['updated note://a', 'notifications/tools/list_changed']);
  });

  it("relays through the transport's typed deliverHere capability where it has one, only there", async () => {
    const hub = new Hub();
    const errors: Error[] = [];
    const a = server(hub.join(), errors);
    const b = server(hub.join(), errors);
    const ca = await client(a);
    // B's client behind a transport that reaches its client only while `here` is true (a
    // Streamable HTTP session whose GET stream is attached to this instance or another)
    const [serverEnd, peer] = InMemoryTransport.createPair();
    const offered: string[] = [];
    let here = false;
    const local: Transport = {
      start: (receiver) => serverEnd.start(receiver),
      send: (message, options) => serverEnd.send(message, options),
      close: () => serverEnd.close(),
      deliverHere(text) {
        offered.push(text);
        if (here) void serverEnd.send(text);
        return here;
      },
    };
    await b.connect(local);
    const seen: string[] = [];
    let answered: (() => void) | undefined;
    await peer.start({
      message: (data) => {
        const m = JSON.parse(data as string) as JSONObject;
        if (m.id !== undefined) answered?.();
        else seen.push(m.method as string);
      },
      error: () => {},
      closed: () => {},
    });
    const ask = (message: JSONObject) => new Promise<void>((resolve) => ((answered = resolve), void peer.send(message as never)));
    await ask({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    await peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' } as never);
    await ask({ jsonrpc: '2.0', id: 2, method: 'ping' });

    a.registerTool('one', { description: 'added on A' }, () => 'one');
    await waitFor(() => offered.length === 1, "the change offered to B's transport");
    await ask({ jsonrpc: '2.0', id: 3, method: 'ping' });
    assert.deepEqual(seen, [], 'not reached from here: nothing sent through the session');
    assert.deepEqual(JSON.parse(offered[0]!), { jsonrpc: '2.0', method: 'notifications/tools/list_changed' });

    here = true;
    a.registerTool('two', { description: 'added on A' }, () => 'two');
    await waitFor(() => seen.length === 1, 'the change written through deliverHere');
    await ask({ jsonrpc: '2.0', id: 4, method: 'ping' });
    assert.deepEqual(seen, ['notifications/tools/list_changed'], 'exactly once');
    await waitFor(() => ca.seen.length === 2, "A's own client, served through its session (no deliverHere)");
    assert.deepEqual(errors, []);
  });

  it('stops hearing the notifier once closed', async () => {
    const na = new Hub().join();
    const a = server(na, []);
    assert.equal(na.handlerCount, 1);
    await a.close();
    assert.equal(na.handlerCount, 0);
  });
});
