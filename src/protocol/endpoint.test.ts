import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LocalError } from '../jsonrpc/errors.js';
import type { JSONRPCMessage } from '../jsonrpc/types.js';
import { InMemoryTransport } from '../transport/memory.js';
import type { SendOptions, Transport, TransportReceiver } from '../transport/types.js';
import { Endpoint } from './endpoint.js';
import type { Middleware } from './middleware.js';

/** One end of an in-memory pair that remembers the options of every send. */
function capturing(): { transport: Transport; sent: Array<{ message: unknown; options: SendOptions | undefined }>; peer: InMemoryTransport } {
  const [a, b] = InMemoryTransport.createPair();
  const sent: Array<{ message: unknown; options: SendOptions | undefined }> = [];
  const transport: Transport = {
    start: (receiver: TransportReceiver) => a.start(receiver),
    send: (message: JSONRPCMessage | JSONRPCMessage[] | string, options?: SendOptions) => {
      sent.push({ message, options: options && { ...options } }); // the channel reuses its options object: read it during send
      return a.send(message, options);
    },
    close: () => a.close(),
  };
  return { transport, sent, peer: b };
}

async function initializedServer(middleware?: Middleware) {
  const { transport, sent, peer } = capturing();
  const ep = new Endpoint('server', transport);
  ep.setOwnCapabilities({ logging: {} });
  ep.negotiated('2025-11-25', { roots: {} });
  ep.markInitialized();
  if (middleware) ep.use(middleware, 'outgoing');
  await ep.session.start();
  return { ep, sent, peer };
}

const passThrough: Middleware = (next) => (method, params, ctx) => next(method, params, ctx);

// HTTP transports route a notification to the stream of the request it belongs to by
// `relatedRequestId`; outgoing middleware must not lose it.
test('a notification keeps its relatedRequestId through outgoing middleware', async () => {
  for (const mw of [undefined, passThrough]) {
    const { ep, sent, peer } = await initializedServer(mw);
    await ep.notify('notifications/message', { level: 'info', data: 'x' }, { relatedRequestId: 7 });
    assert.equal(sent.length, 1);
    assert.equal(sent[0]!.options?.relatedRequestId, 7, mw ? 'with middleware' : 'without middleware');
    await peer.close();
  }
});

test('a request keeps its relatedRequestId through outgoing middleware', async () => {
  const { ep, sent, peer } = await initializedServer(passThrough);
  const pending = ep.request('roots/list', undefined, { relatedRequestId: 3, timeoutMs: 50 });
  await assert.rejects(pending, (e) => e instanceof LocalError && e.code === 'timeout');
  assert.equal(sent[0]!.options?.relatedRequestId, 3);
  await peer.close();
});

test('outgoing middleware sees notifications with kind and direction', async () => {
  const seen: string[] = [];
  const { ep, peer } = await initializedServer((next) => (method, params, ctx) => {
    seen.push(`${ctx.direction} ${ctx.kind} ${method}`);
    return next(method, params, ctx);
  });
  await ep.notify('notifications/message', { level: 'info', data: 'x' });
  assert.deepEqual(seen, ['outgoing notification notifications/message']);
  await peer.close();
});

test('gating happens before middleware: a refused send never reaches it', async () => {
  let calls = 0;
  const { ep, peer } = await initializedServer((next) => (method, params, ctx) => {
    calls++;
    return next(method, params, ctx);
  });
  await assert.rejects(ep.request('sampling/createMessage', { messages: [], maxTokens: 1 }), (e) => e instanceof LocalError && e.code === 'capability_missing');
  await assert.rejects(ep.notify('notifications/tools/list_changed'), (e) => e instanceof LocalError && e.code === 'capability_missing');
  await assert.rejects(ep.request('tools/list', undefined), (e) => e instanceof LocalError && e.code === 'method_unsupported');
  assert.equal(calls, 0);
  await peer.close();
});

test('peerInitialized: set by notifications/initialized once it passes the middleware, before its listeners run', async () => {
  const drop: Middleware = (next) => (method, params, ctx) => (method === 'notifications/initialized' ? Promise.resolve(undefined) : next(method, params, ctx));
  for (const [name, mw, expected] of [
    ['no middleware', undefined, true],
    ['pass-through middleware', passThrough, true],
    ['middleware that drops it', drop, false],
  ] as const) {
    const [a, b] = InMemoryTransport.createPair();
    const ep = new Endpoint('server', a);
    ep.negotiated('2025-11-25', {});
    ep.markInitialized();
    ep.setRequestHandler('ping', () => ({}));
    if (mw) ep.use(mw);
    let seenByListener: boolean | undefined;
    ep.on('notifications/initialized', () => {
      seenByListener = ep.peerInitialized;
    });
    await ep.session.start();
    const peer = new Endpoint('client', b);
    await peer.session.start();
    assert.equal(ep.peerInitialized, false, name);
    await peer.session.notify('notifications/initialized');
    // a ping answered after the notification: it was delivered (messages keep their order)
    await peer.session.request('ping', undefined);
    assert.equal(ep.peerInitialized, expected, name);
    assert.equal(seenByListener, expected ? true : undefined, name);
    await peer.session.close();
  }
});

test('every close listener runs, one or several', async () => {
  for (const n of [1, 2, 3]) {
    const [a, b] = InMemoryTransport.createPair();
    const ep = new Endpoint('server', a);
    const calls: number[] = [];
    for (let i = 0; i < n; i++) ep.onClose(() => calls.push(i));
    await ep.session.start();
    await b.start({ message: () => {}, error: () => {}, closed: () => {} });
    await ep.session.close();
    assert.deepEqual(calls, [...Array(n).keys()]);
  }
});
