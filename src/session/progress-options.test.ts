/**
 * `RequestContext.sendProgress` tells the channel which request each progress notification
 * belongs to (`relatedRequestId`, so an HTTP transport puts it on that request's stream) in
 * one options object per request, made by the first notification and only read by the
 * channel — not one per notification. Over a real channel the transport sees the fact.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JSONObject, JSONRPCMessage } from '../jsonrpc/types.js';
import { InMemoryTransport } from '../transport/memory.js';
import type { SendOptions, Transport, TransportReceiver } from '../transport/types.js';
import { type RequestChannel, RequestContext } from './context.js';
import { RpcChannel } from './session.js';

test('sendProgress names the related request in one options object per request', async () => {
  const sent: { method: string; params: JSONObject | undefined; options: SendOptions | undefined }[] = [];
  const channel: RequestChannel = {
    closed: false,
    transportSessionId: undefined,
    notify: (method, params, options) => {
      sent.push({ method, params, options });
      return Promise.resolve();
    },
  };
  const ctx = new RequestContext(channel, 7, 'tools/call', { _meta: { progressToken: 'tok' } }, undefined);
  await ctx.sendProgress(1, 3);
  await ctx.sendProgress(2, 3, 'half');
  await ctx.sendProgress(2); // not increasing: not sent
  await ctx.sendProgress(3);
  assert.deepEqual(
    sent.map((s) => s.params),
    [
      { progressToken: 'tok', progress: 1, total: 3 },
      { progressToken: 'tok', progress: 2, total: 3, message: 'half' },
      { progressToken: 'tok', progress: 3 },
    ],
  );
  assert.ok(sent.every((s) => s.method === 'notifications/progress' && s.options?.relatedRequestId === 7));
  assert.equal(new Set(sent.map((s) => s.options)).size, 1, "one options object for all of the request's progress");
  const other = new RequestContext(channel, 8, 'tools/call', { _meta: { progressToken: 'other' } }, undefined);
  await other.sendProgress(1);
  assert.equal(sent[3]!.options?.relatedRequestId, 8, 'each request has its own');
});

test("over an RpcChannel the transport is told each progress notification's related request", async () => {
  const [a, b] = InMemoryTransport.createPair();
  const facts: { method: string | undefined; related: unknown }[] = [];
  const recording: Transport = {
    start: (receiver: TransportReceiver) => a.start(receiver),
    send: (message: JSONRPCMessage | JSONRPCMessage[] | string, options?: SendOptions) => {
      facts.push({ method: options?.method, related: options?.relatedRequestId });
      return a.send(message);
    },
    close: () => a.close(),
  };
  const rpc = new RpcChannel(recording, {
    request: async (ctx) => {
      await ctx.sendProgress(1);
      await ctx.sendProgress(2);
      return {};
    },
    notification: () => {},
    batchesAllowed: () => false,
  });
  rpc.start();
  const answered = new Promise<void>((resolve) => {
    b.start({ message: (data) => void ((JSON.parse(data as string) as JSONObject).id === 'r1' && resolve()), error: () => {}, closed: () => {} });
  });
  await b.send({ jsonrpc: '2.0', id: 'r1', method: 'tools/call', params: { _meta: { progressToken: 'p' } } } as JSONRPCMessage);
  await answered;
  assert.deepEqual(
    facts.filter((f) => f.method === 'notifications/progress'),
    [
      { method: 'notifications/progress', related: 'r1' },
      { method: 'notifications/progress', related: 'r1' },
    ],
  );
  await rpc.close();
});
