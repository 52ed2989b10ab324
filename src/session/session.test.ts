import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { exceedsDepth } from '../jsonrpc/decode.js';
import { LocalError, McpError } from '../jsonrpc/errors.js';
import { InMemoryTransport } from '../transport/memory.js';
import type { Transport, TransportReceiver } from '../transport/types.js';
import type { RequestContext } from './context.js';
import { RpcChannel, type RpcChannelHooks } from './session.js';

/** A raw peer: records every message it receives and lets the test write raw text. */
function rawPeer(t: InMemoryTransport) {
  const received: any[] = [];
  let waiters: Array<() => void> = [];
  const receiver: TransportReceiver = {
    message(data) {
      received.push(JSON.parse(data as string));
      const w = waiters;
      waiters = [];
      for (const f of w) f();
    },
    error() {},
    closed() {},
  };
  t.start(receiver);
  return {
    received,
    send: (m: unknown) => t.send(typeof m === 'string' ? m : JSON.stringify(m)),
    async next(predicate: (m: any) => boolean = () => true, timeoutMs = 2000): Promise<any> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const i = received.findIndex(predicate);
        if (i >= 0) return received.splice(i, 1)[0];
        if (Date.now() > deadline) throw new Error(`no matching message; have ${JSON.stringify(received)}`);
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, 20);
        });
      }
    },
  };
}

function setup(hooks: Partial<RpcChannelHooks> = {}, options = {}) {
  const [a, b] = InMemoryTransport.createPair();
  const errors: Error[] = [];
  const session = new RpcChannel(
    a,
    {
      request: hooks.request ?? ((ctx: RequestContext) => ({ echo: ctx.method })),
      notification: hooks.notification ?? (() => {}),
      batchesAllowed: hooks.batchesAllowed ?? (() => false),
      error: (e) => errors.push(e),
    },
    options,
  );
  session.start();
  return { session, peer: rawPeer(b), errors };
}

test('-32700 with id null for text that is not JSON', async () => {
  const { peer } = setup();
  await peer.send('{"jsonrpc": "2.0", "id": 1, "method": ');
  const m = await peer.next();
  assert.deepEqual(m, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the message is not valid JSON' } });
});

test('-32600 for jsonrpc "1.0" (with its id) and for an object id (with id null)', async () => {
  const { peer } = setup();
  await peer.send({ jsonrpc: '1.0', id: 3, method: 'x' });
  const a = await peer.next();
  assert.equal(a.id, 3);
  assert.equal(a.error.code, -32600);
  await peer.send({ jsonrpc: '2.0', id: { n: 1 }, method: 'x' });
  const b = await peer.next();
  assert.equal(b.id, null);
  assert.equal(b.error.code, -32600);
});

test('a thrown non-MCP error becomes -32603 without internals', async () => {
  const { peer, errors } = setup({
    request: () => {
      throw new Error('secret stack detail at /home/x');
    },
  });
  await peer.send({ jsonrpc: '2.0', id: 1, method: 'x' });
  const m = await peer.next();
  assert.deepEqual(m.error, { code: -32603, message: 'Internal error' });
  assert.equal(errors.length, 1);
});

test('an McpError thrown by the handler is answered as is', async () => {
  const { peer } = setup({
    request: () => {
      throw new McpError(-32602, 'Invalid params: "name" must be a string');
    },
  });
  await peer.send({ jsonrpc: '2.0', id: 'r1', method: 'x' });
  assert.deepEqual((await peer.next()).error, { code: -32602, message: 'Invalid params: "name" must be a string' });
});

test('a duplicate in-flight id is refused; the first request still completes', async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const { peer } = setup({
    request: async () => {
      await gate;
      return { ok: true };
    },
  });
  await peer.send({ jsonrpc: '2.0', id: 9, method: 'x' });
  await peer.send({ jsonrpc: '2.0', id: 9, method: 'x' });
  const dup = await peer.next();
  assert.equal(dup.error.code, -32600);
  release();
  assert.deepEqual(await peer.next(), { jsonrpc: '2.0', id: 9, result: { ok: true } });
});

test('the in-flight limit refuses extra requests with -32600', async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const { peer } = setup(
    {
      request: async () => {
        await gate;
        return {};
      },
    },
    { maxInFlight: 2 },
  );
  for (let i = 1; i <= 3; i++) await peer.send({ jsonrpc: '2.0', id: i, method: 'x' });
  const refused = await peer.next();
  assert.equal(refused.id, 3);
  assert.equal(refused.error.code, -32600);
  release();
  await peer.next((m) => m.id === 1);
  await peer.next((m) => m.id === 2);
});

test('oversized and over-nested messages are refused', async () => {
  const { peer } = setup({}, { limits: { maxMessageChars: 100, maxDepth: 5 } });
  await peer.send({ jsonrpc: '2.0', id: 1, method: 'x', params: { s: 'y'.repeat(200) } });
  assert.equal((await peer.next()).error.code, -32600);
  await peer.send({ jsonrpc: '2.0', id: 2, method: 'x', params: { a: { b: { c: { d: {} } } } } });
  const m = await peer.next();
  assert.equal(m.id, 2);
  assert.equal(m.error.code, -32600);
});

test('the nesting limit holds for text of any length: a short text skips the walk only where it cannot nest too deep', async () => {
  // keys a, b, c: no value is a valid message, so each text gets exactly one error back
  const { tree } = fc.letrec((tie) => ({
    tree: fc.oneof(
      { depthSize: 'small', maxDepth: 9 },
      fc.constant(0),
      fc.array(tie('tree'), { maxLength: 2 }),
      fc.dictionary(fc.constantFrom('a', 'b', 'c'), tie('tree'), { maxKeys: 2 }),
    ),
  }));
  await fc.assert(
    fc.asyncProperty(tree, fc.integer({ min: 1, max: 8 }), async (value, maxDepth) => {
      const { peer } = setup({}, { limits: { maxDepth } });
      await peer.send(JSON.stringify(value));
      const reply = await peer.next();
      assert.equal(
        /nests deeper/.test(reply.error?.message ?? ''),
        exceedsDepth(value, maxDepth),
        `${JSON.stringify(value)} at maxDepth ${maxDepth}: ${JSON.stringify(reply)}`,
      );
    }),
    { numRuns: 400 },
  );
  // the boundary: 2 × maxDepth characters hold maxDepth levels at most, one more level needs two more
  const { peer } = setup({}, { limits: { maxDepth: 3 } });
  await peer.send('[[[]]]');
  assert.doesNotMatch((await peer.next()).error.message, /nests deeper/);
  await peer.send('[[[[]]]]');
  assert.match((await peer.next()).error.message, /nests deeper than 3/);
});

test('batches are answered as a batch when allowed, refused otherwise', async () => {
  const allowed = setup({ batchesAllowed: () => true });
  await allowed.peer.send([
    { jsonrpc: '2.0', id: 1, method: 'a' },
    { jsonrpc: '2.0', method: 'n' },
    { jsonrpc: '1.0', id: 2, method: 'b' },
    { jsonrpc: '2.0', id: 3, method: 'c' },
  ]);
  const batch = await allowed.peer.next();
  assert.ok(Array.isArray(batch));
  assert.equal(batch.length, 3);
  const byId = Object.fromEntries(batch.map((r: any) => [r.id, r]));
  assert.deepEqual(byId[1].result, { echo: 'a' });
  assert.equal(byId[2].error.code, -32600);
  assert.deepEqual(byId[3].result, { echo: 'c' });

  const refused = setup({ batchesAllowed: () => false });
  await refused.peer.send([{ jsonrpc: '2.0', id: 1, method: 'a' }]);
  const r = await refused.peer.next();
  assert.equal(r.id, null);
  assert.equal(r.error.code, -32600);

  const empty = setup({ batchesAllowed: () => true });
  await empty.peer.send([]);
  assert.equal((await empty.peer.next()).error.code, -32600);
});

test('a batch of notifications gets no answer', async () => {
  const seen: string[] = [];
  const { peer } = setup({ batchesAllowed: () => true, notification: (m) => seen.push(m) });
  await peer.send([
    { jsonrpc: '2.0', method: 'n1' },
    { jsonrpc: '2.0', method: 'n2' },
  ]);
  await peer.send({ jsonrpc: '2.0', id: 1, method: 'after' });
  await peer.next((m) => m.id === 1);
  assert.deepEqual(seen, ['n1', 'n2']);
  assert.equal(peer.received.length, 0);
});

test('outgoing requests: ids count up, responses are correlated, errors become McpError', async () => {
  const { session, peer } = setup();
  const p1 = session.request('one', undefined);
  const p2 = session.request('two', { x: 1 });
  const r1 = await peer.next((m) => m.method === 'one');
  const r2 = await peer.next((m) => m.method === 'two');
  assert.equal(r1.id, 1);
  assert.equal(r2.id, 2);
  await peer.send({ jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'nope' } });
  await peer.send({ jsonrpc: '2.0', id: 1, result: { v: 1 } });
  assert.deepEqual(await p1, { v: 1 });
  await assert.rejects(p2, (e: unknown) => e instanceof McpError && e.code === -32601);
});

test('timeout sends notifications/cancelled and rejects with LocalError timeout', async () => {
  const { session, peer } = setup();
  const p = session.request('slow', undefined, { timeoutMs: 30 });
  const req = await peer.next((m) => m.method === 'slow');
  await assert.rejects(p, (e: unknown) => e instanceof LocalError && e.code === 'timeout');
  const cancel = await peer.next((m) => m.method === 'notifications/cancelled');
  assert.equal(cancel.params.requestId, req.id);
  // a late response is ignored quietly
  await peer.send({ jsonrpc: '2.0', id: req.id, result: {} });
});

test('progress resets the timeout, up to the hard maximum', async () => {
  const { session, peer } = setup();
  const updates: number[] = [];
  const started = Date.now();
  // progress every 40 ms against a 250 ms timeout: only a stall of 200+ ms could let the
  // per-request timeout win, so a loaded machine does not turn this into the other error
  const p = session.request('long', {}, { timeoutMs: 250, maxTotalTimeoutMs: 700, onProgress: (pr) => updates.push(pr.progress) });
  const req = await peer.next((m) => m.method === 'long');
  assert.equal(req.params._meta.progressToken, req.id);
  let n = 0;
  const ticker = setInterval(() => void peer.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: req.id, progress: ++n } }), 40);
  try {
    await assert.rejects(p, (e: unknown) => e instanceof LocalError && e.code === 'timeout' && /maximum total/.test(e.message));
  } finally {
    clearInterval(ticker); // a failed assertion must not leave the interval keeping the test process alive
  }
  const elapsed = Date.now() - started;
  assert.ok(elapsed >= 680, `ended after ${elapsed} ms, before the hard maximum`);
  assert.ok(updates.length >= 3);
});

test('aborting an outgoing request cancels it on the wire', async () => {
  const { session, peer } = setup();
  const ac = new AbortController();
  const p = session.request('x', undefined, { signal: ac.signal });
  const req = await peer.next((m) => m.method === 'x');
  ac.abort('user gave up');
  await assert.rejects(p, (e: unknown) => e instanceof LocalError && e.code === 'cancelled');
  const cancel = await peer.next((m) => m.method === 'notifications/cancelled');
  assert.deepEqual(cancel.params, { requestId: req.id, reason: 'user gave up' });
});

test('an incoming cancel fires the handler signal and suppresses the response; unknown cancels are ignored', async () => {
  let aborted = false;
  const { peer } = setup({
    request: (ctx) =>
      new Promise((resolve) => {
        ctx.signal.addEventListener('abort', () => {
          aborted = true;
          resolve({ late: true });
        });
      }),
  });
  await peer.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'nobody' } });
  await peer.send({ jsonrpc: '2.0', id: 5, method: 'wait' });
  await new Promise((r) => setTimeout(r, 10));
  await peer.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5, reason: 'stop' } });
  await peer.send({ jsonrpc: '2.0', id: 6, method: 'probe-after' });
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(aborted, true);
  // id 6 is stuck waiting too, so nothing may have been answered for id 5
  assert.equal(peer.received.filter((m) => m.id === 5).length, 0);
});

test('closing fails pending requests at once with connection_closed', async () => {
  const { session, peer } = setup();
  const p = session.request('x', undefined);
  await peer.next();
  await session.close();
  await assert.rejects(p, (e: unknown) => e instanceof LocalError && e.code === 'connection_closed');
  await assert.rejects(session.request('y', undefined), (e: unknown) => e instanceof LocalError && e.code === 'connection_closed');
});

/** A transport whose `send` records synchronously, and whose receiver the test calls directly. */
function directTransport() {
  let receiver: TransportReceiver | undefined;
  const sent: any[] = [];
  const transport: Transport = {
    start(r) {
      receiver = r;
    },
    send(message) {
      sent.push(message);
    },
    close: () => Promise.resolve(),
  };
  return { transport, sent, deliver: (value: unknown) => receiver!.message(value) };
}

test('a handler that answers at once is answered within the delivery; a promise when it settles', async () => {
  const { transport, sent, deliver } = directTransport();
  let release: (value: unknown) => void = () => {};
  const session = new RpcChannel(transport, {
    request: (ctx: RequestContext) => {
      if (ctx.method === 'now') return { at: 'once' };
      if (ctx.method === 'nothing') return undefined;
      if (ctx.method === 'throws') throw new McpError(-32602, 'bad params');
      if (ctx.method === 'crashes') throw new Error('secret detail');
      return new Promise((resolve) => (release = resolve));
    },
    notification: () => {},
    batchesAllowed: () => true,
    error: () => {},
  });
  session.start();
  deliver({ jsonrpc: '2.0', id: 1, method: 'now' });
  assert.deepEqual(sent.slice(), [{ jsonrpc: '2.0', id: 1, result: { at: 'once' } }], 'sent before message() returned');
  deliver({ jsonrpc: '2.0', id: 2, method: 'nothing' });
  deliver({ jsonrpc: '2.0', id: 3, method: 'throws' });
  deliver({ jsonrpc: '2.0', id: 4, method: 'crashes' });
  assert.deepEqual(sent.slice(1), [
    { jsonrpc: '2.0', id: 2, result: {} },
    { jsonrpc: '2.0', id: 3, error: { code: -32602, message: 'bad params' } },
    { jsonrpc: '2.0', id: 4, error: { code: -32603, message: 'Internal error' } },
  ]);
  // a batch of synchronous answers leaves as one array, also within the delivery
  deliver([
    { jsonrpc: '2.0', id: 5, method: 'now' },
    { jsonrpc: '2.0', id: 6, method: 'nothing' },
  ]);
  assert.deepEqual(sent[4], [
    { jsonrpc: '2.0', id: 5, result: { at: 'once' } },
    { jsonrpc: '2.0', id: 6, result: {} },
  ]);
  // a promise: nothing until it settles; the id is in use meanwhile, free again after
  deliver({ jsonrpc: '2.0', id: 7, method: 'later' });
  assert.equal(sent.length, 5);
  deliver({ jsonrpc: '2.0', id: 7, method: 'now' });
  assert.equal(sent[5].error.code, -32600, 'the id of a request in progress is refused');
  release({ done: true });
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(sent[6], { jsonrpc: '2.0', id: 7, result: { done: true } });
  deliver({ jsonrpc: '2.0', id: 7, method: 'now' });
  assert.deepEqual(sent[7], { jsonrpc: '2.0', id: 7, result: { at: 'once' } });
});
