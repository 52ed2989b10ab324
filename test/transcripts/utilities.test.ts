/**
 * Utility transcripts: logging, pagination, list_changed, progress, cancellation.
 * Spec: 2025-03-26 › Server Features › Utilities › Logging and › Pagination;
 * › Basic › Utilities › Progress and › Cancellation; list_changed notifications in
 * › Server Features › Tools / Resources / Prompts.
 */

import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { McpServer } from '../../src/server/server.js';
import { error, eventually, harnessTest, matches, named, notification, request, result } from './harness.js';

describe('logging', () => {
  // Utilities › Logging: without logging/setLevel the server decides what to send; after
  // it, only messages at or above the level are sent.
  harnessTest('logging/setLevel filters notifications/message', async (h) => {
    const c = await h.raw();
    await c.init();
    await c.run([
      { send: request(1, 'tools/call', { name: 'test_tool_with_logging', arguments: {} }) },
      { expect: notification('notifications/message', { level: 'info', data: 'Tool execution started' }) },
      { expect: notification('notifications/message', { level: 'info', data: 'Tool processing data' }) },
      { expect: notification('notifications/message', { level: 'info', data: 'Tool execution completed' }) },
      { expect: result(1, { content: [{ type: 'text', text: 'Tool with logging executed successfully' }] }) },
      { send: request(2, 'logging/setLevel', { level: 'warning' }) },
      { expect: result(2, {}) },
      { send: request(3, 'tools/call', { name: 'test_tool_with_logging', arguments: {} }) },
      { expect: result(3, { content: [{ type: 'text', text: 'Tool with logging executed successfully' }] }) },
    ]);
    await c.server.log('info', 'dropped');
    await c.server.log('error', { disk: 'full' }, 'storage');
    await c.run([{ expect: notification('notifications/message', { level: 'error', data: { disk: 'full' }, logger: 'storage' }) }]);
  });

  // Utilities › Logging › Error Handling: "Invalid log levels: -32602".
  harnessTest('an unknown log level is -32602', async (h) => {
    const c = await h.raw();
    await c.init();
    await c.run([{ send: request(1, 'logging/setLevel', { level: 'loud' }) }, { expect: error(1, -32602, { message: matches(/"level"/) }) }]);
  });
});

describe('pagination', () => {
  function manyTools(pageSize: number, count: number): McpServer {
    const server = new McpServer({ name: 'paged', version: '1.0.0' }, { pageSize });
    for (let i = 0; i < count; i++) server.registerTool(`tool_${i}`, { description: `Tool ${i}` }, () => `${i}`);
    return server;
  }

  // Utilities › Pagination: the server decides the page size; `nextCursor` is present
  // while more results exist and absent on the last page; cursors are opaque.
  harnessTest('configurable page size and opaque cursors', async (h) => {
    const c = await h.raw(manyTools(2, 5));
    await c.init();
    const isCursor = (v: unknown) => typeof v === 'string' && !/^\d+$/.test(v);
    const first = await c.run([{ send: request(1, 'tools/list') }, { expect: result(1, { tools: [named('tool_0'), named('tool_1')], nextCursor: isCursor }) }]);
    const cursor1 = (first.received[0] as { result: { nextCursor: string } }).result.nextCursor;
    const second = await c.run([
      { send: request(2, 'tools/list', { cursor: cursor1 }) },
      { expect: result(2, { tools: [named('tool_2'), named('tool_3')], nextCursor: isCursor }) },
    ]);
    const cursor2 = (second.received[0] as { result: { nextCursor: string } }).result.nextCursor;
    assert.notEqual(cursor1, cursor2);
    await c.run([{ send: request(3, 'tools/list', { cursor: cursor2 }) }, { expect: result(3, { tools: [named('tool_4')], nextCursor: undefined }) }]);
  });

  // Utilities › Pagination › Error Handling: "Invalid cursors SHOULD result in an error
  // with code -32602."
  harnessTest('an invalid cursor is -32602', async (h) => {
    const c = await h.raw(manyTools(2, 3));
    await c.init();
    await c.run([
      { send: request(1, 'tools/list', { cursor: 'not-a-cursor' }) },
      { expect: error(1, -32602, { message: matches(/"cursor"/) }) },
      { send: request(2, 'tools/list', { cursor: btoa('mcpkit:-1') }) },
      { expect: error(2, -32602) },
      { send: request(3, 'tools/list', { cursor: 7 }) },
      { expect: error(3, -32602, { message: matches(/"cursor"/) }) },
    ]);
  });

  // The demo server honours the pageSize option too; the client helper follows cursors.
  harnessTest('the demo server pages its lists and the client follows the cursors', async (h) => {
    const server = h.demo({ pageSize: 3 });
    const { client, clientWire } = await h.client(server);
    const all = await client.listAllTools();
    assert.equal(all.length, server.tools.list().length);
    const calls = clientWire.transcript.filter((e) => e.dir === 'send' && (e.message as { method?: string }).method === 'tools/list');
    assert.equal(calls.length, Math.ceil(all.length / 3));
  });
});

describe('list_changed', () => {
  // Tools/Resources/Prompts › List Changed Notification: sent when the list changes,
  // here by registering after the client connected.
  harnessTest('registering or removing after connect announces list_changed', async (h) => {
    const c = await h.raw();
    await c.init();
    const tool = c.server.registerTool('added_later', { description: 'new' }, () => 'new');
    await c.run([{ expect: notification('notifications/tools/list_changed') }]);
    await c.run([
      { send: request(1, 'tools/list') },
      { expect: result(1, { tools: (tools: Array<{ name: string }>) => tools.some((t) => t.name === 'added_later') }) },
    ]);
    c.server.registerResource('test://later', { name: 'later' }, (uri) => ({ uri, text: 'later' }));
    c.server.registerPrompt('later_prompt', {}, () => ({ messages: [] }));
    await c.run([{ expectAnyOrder: [notification('notifications/resources/list_changed'), notification('notifications/prompts/list_changed')] }]);
    // several changes in one tick are announced once
    tool.remove();
    c.server.registerTool('other', {}, () => 'x');
    await c.run([{ expect: notification('notifications/tools/list_changed') }, { expectSilence: 30 }]);
  });

  // Tools › List Changed Notification, triggered from inside a tool call.
  harnessTest('a tool that changes the list announces it before its result', async (h) => {
    const c = await h.raw();
    await c.init();
    await c.run([
      { send: request(1, 'tools/call', { name: 'toggle_extra_tool', arguments: {} }) },
      { expectAnyOrder: [notification('notifications/tools/list_changed'), result(1, { content: [{ type: 'text', text: 'added extra' }] })] },
      { send: request(2, 'tools/call', { name: 'extra', arguments: {} }) },
      { expect: result(2, { content: [{ type: 'text', text: 'extra' }] }) },
    ]);
  });
});

describe('progress', () => {
  // Basic › Utilities › Progress: with a progressToken the receiver MAY send progress
  // notifications carrying that token; progress increases; total and message optional.
  harnessTest('progress notifications carry the token and increase', async (h) => {
    const c = await h.raw();
    await c.init();
    await c.run([
      { send: request(1, 'tools/call', { name: 'test_tool_with_progress', arguments: {}, _meta: { progressToken: 'tok-1' } }) },
      { expect: notification('notifications/progress', { progressToken: 'tok-1', progress: 0, total: 100, message: 'Started' }) },
      { expect: notification('notifications/progress', { progressToken: 'tok-1', progress: 50, total: 100, message: 'Half way' }) },
      { expect: notification('notifications/progress', { progressToken: 'tok-1', progress: 100, total: 100, message: 'Done' }) },
      // the answer follows progress sent moments ago only once a ping confirms the client read
      // it (the official TypeScript clients drop a last progress read with the response)
      { expect: { jsonrpc: '2.0', id: 1, method: 'ping' } },
      { send: { jsonrpc: '2.0', id: 1, result: {} } },
      { expect: result(1, { content: [{ type: 'text', text: 'tok-1' }] }) },
    ]);
  });

  // Progress: notifications are only sent for requests that carried a progressToken.
  harnessTest('no progress without a token', async (h) => {
    const c = await h.raw();
    await c.init();
    await c.run([
      { send: request(1, 'tools/call', { name: 'test_tool_with_progress', arguments: {} }) },
      { expect: result(1, { content: [{ type: 'text', text: 'no progress token' }] }) },
    ]);
  });

  // The client helper: onProgress receives them and the token is the request id.
  harnessTest('the client receives progress for its request', async (h) => {
    const { client } = await h.client(h.demo());
    const seen: number[] = [];
    await client.callTool({ name: 'slow', arguments: { ms: 30 } }, { onProgress: (p) => seen.push(p.progress) });
    assert.deepEqual(seen, [1]);
  });
});

describe('cancellation', () => {
  function cancellableServer(h: { demo: () => McpServer }) {
    const server = h.demo();
    const aborted: string[] = [];
    server.registerTool('wait_for_cancel', { description: 'Runs until cancelled' }, async (_args, ctx) => {
      await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
      aborted.push(String((ctx.signal.reason as Error).message));
      return 'finished after cancellation';
    });
    server.registerTool('progress_after_cancel', { description: 'Reports progress once cancelled' }, async (_args, ctx) => {
      await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
      await ctx.sendProgress(1, 1, 'too late');
      aborted.push('progress attempted');
      return 'done';
    });
    return { server, aborted };
  }

  // Basic › Utilities › Cancellation: the receiver SHOULD stop processing and MUST NOT
  // send a response for the cancelled request.
  harnessTest('a cancelled request fires the handler signal and gets no response', async (h) => {
    const { server, aborted } = cancellableServer(h);
    const c = await h.raw(server);
    await c.init();
    await c.run([
      { send: request(7, 'tools/call', { name: 'wait_for_cancel', arguments: {} }) },
      { expectSilence: 20 },
      { send: notification('notifications/cancelled', { requestId: 7, reason: 'user pressed stop' }) },
      { expectSilence: 100 },
      // the connection is fine, and id 7 may be used again now that its request is over
      { send: request(8, 'ping') },
      { expect: result(8, {}) },
    ]);
    assert.deepEqual(aborted, ['user pressed stop']);
  });

  // Progress: notifications refer to an active request; once it is cancelled the
  // requester has forgotten the token, so a handler's late progress is not sent.
  harnessTest('progress reported after cancellation is not sent', async (h) => {
    const { server, aborted } = cancellableServer(h);
    const c = await h.raw(server);
    await c.init();
    await c.run([
      { send: request(1, 'tools/call', { name: 'progress_after_cancel', arguments: {}, _meta: { progressToken: 1 } }) },
      { expectSilence: 10 },
      { send: notification('notifications/cancelled', { requestId: 1 }) },
    ]);
    await eventually(() => aborted.length === 1, 20_000, 'the handler to finish');
    await c.run([{ expectSilence: 30 }]);
  });

  // Cancellation with Progress: no progress for a request after its cancellation.
  harnessTest('a cancelled slow tool stops reporting progress', async (h) => {
    const c = await h.raw();
    await c.init();
    await c.run([
      { send: request('s', 'tools/call', { name: 'slow', arguments: { ms: 1000 }, _meta: { progressToken: 'p' } }) },
      { expect: notification('notifications/progress', { progressToken: 'p', progress: 1, total: 10 }) },
      { send: notification('notifications/cancelled', { requestId: 's' }) },
      { expectSilence: 250 },
    ]);
  });

  // Cancellation › Timing Considerations: late or unknown cancellations are ignored.
  harnessTest('late and unknown cancellations are ignored', async (h) => {
    const errors: Error[] = [];
    const c = await h.raw(h.demo({ onError: (e) => errors.push(e) }));
    await c.init();
    await c.run([
      { send: request(1, 'tools/call', { name: 'echo', arguments: { message: 'done' } }) },
      { expect: result(1, { content: [{ type: 'text', text: 'done' }] }) },
      { send: notification('notifications/cancelled', { requestId: 1 }) },
      { send: notification('notifications/cancelled', { requestId: 999, reason: 'never sent' }) },
      { send: notification('notifications/cancelled', { requestId: 'unknown' }) },
      { expectSilence: 50 },
      { send: request(2, 'ping') },
      { expect: result(2, {}) },
    ]);
    assert.deepEqual(errors, []);
  });

  // Cancellation: "The initialize request MUST NOT be cancelled by clients" — the client
  // side never sends it; a request the client cancels is announced with its id.
  harnessTest('the client cancels with notifications/cancelled carrying the request id', async (h) => {
    const { server, aborted } = cancellableServer(h);
    const { client, clientWire } = await h.client(server);
    const controller = new AbortController();
    const call = client.callTool({ name: 'wait_for_cancel' }, { signal: controller.signal });
    await eventually(() => server.connections.size === 1 && [...server.connections][0]!.endpoint.session.inFlight === 1, 20_000, 'the call to arrive');
    controller.abort('stop');
    await assert.rejects(call, (e: Error & { code?: string }) => e.code === 'cancelled');
    await eventually(() => aborted.length === 1, 20_000, 'the handler to see the cancellation');
    assert.deepEqual(aborted, ['stop']);
    const sent = clientWire.transcript
      .filter((e) => e.dir === 'send')
      .map((e) => e.message as { id?: number; method?: string; params?: { requestId?: number; reason?: string } });
    const callId = sent.find((m) => m.method === 'tools/call')!.id;
    assert.deepEqual(sent.find((m) => m.method === 'notifications/cancelled')?.params, { requestId: callId, reason: 'stop' });
  });
});
