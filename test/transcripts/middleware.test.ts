/**
 * Middleware transcripts: the per-connection rate limit, the audit hook, and one
 * middleware type for both directions.
 * Spec: 2025-03-26 › Server Features › Tools › Security Considerations ("Servers MUST …
 * Rate limit tool invocations"; "Clients SHOULD … Log tool usage for audit purposes").
 */

import assert from 'node:assert/strict';
import { describe } from 'node:test';
import type { Middleware } from '../../src/protocol/middleware.js';
import { type AuditEvent, audit, RATE_LIMITED_CODE, rateLimit } from '../../src/server/middleware.js';
import { McpServer } from '../../src/server/server.js';
import { error, eventually, harnessTest, matches, notification, request, result } from './harness.js';

const call = (id: number, name = 'hello') => request(id, 'tools/call', { name, arguments: {} });

describe('rateLimit', () => {
  // Each connection has its own bucket; the refusal is a clear JSON-RPC error with the
  // numbers a client needs to back off.
  harnessTest('per connection, with a clear error, on a fake clock', async (h) => {
    let now = 1_000_000;
    const server = new McpServer({ name: 'limited', version: '1.0.0' });
    server.registerTool('hello', {}, () => 'hi');
    server.use(rateLimit({ limit: 2, windowMs: 1000, now: () => now }));
    const a = await h.raw(server);
    const b = await h.raw(server);
    await a.init();
    await b.init();
    await a.run([
      { send: call(1) },
      { expect: result(1, { content: [{ type: 'text', text: 'hi' }] }) },
      { send: call(2) },
      { expect: result(2) },
      { send: call(3) },
      {
        expect: error(3, RATE_LIMITED_CODE, {
          message: matches(/^Rate limit exceeded: at most 2 tools\/call per 1000 ms$/),
          data: { limit: 2, windowMs: 1000, retryAfterMs: 500 },
        }),
      },
      // other methods are not counted
      { send: request(4, 'tools/list') },
      { expect: result(4, { tools: [{ name: 'hello' }] }) },
    ]);
    // another connection to the same server object has its own budget
    await b.run([{ send: call(1) }, { expect: result(1) }, { send: call(2) }, { expect: result(2) }]);
    now += 250; // half a token back: still refused, and the wait shrank
    await a.run([{ send: call(5) }, { expect: error(5, RATE_LIMITED_CODE, { data: { retryAfterMs: 250 } }) }]);
    now += 250;
    await a.run([{ send: call(6) }, { expect: result(6) }, { send: call(7) }, { expect: error(7, RATE_LIMITED_CODE) }]);
    assert.equal(RATE_LIMITED_CODE, -32029);
  });

  // Tools › Security Considerations: the demo server applies the limit by default.
  harnessTest('the demo server limits tool calls per minute', async (h) => {
    const c = await h.raw(h.demo({ toolCallsPerMinute: 1 }));
    await c.init();
    await c.run([
      { send: request(1, 'tools/call', { name: 'echo', arguments: { message: 'a' } }) },
      { expect: result(1) },
      { send: request(2, 'tools/call', { name: 'echo', arguments: { message: 'b' } }) },
      { expect: error(2, RATE_LIMITED_CODE, { data: { limit: 1, windowMs: 60000 } }) },
    ]);
  });
});

describe('audit', () => {
  // The audit hook sees every request that reaches the handlers, with its duration and
  // outcome: ok, tool_error (isError result), error (JSON-RPC error, with its code),
  // cancelled.
  harnessTest('sees every call with duration and outcome', async (h) => {
    const events: AuditEvent[] = [];
    const server = h.demo({ onAudit: (e) => events.push(e), toolCallsPerMinute: 5 });
    server.registerTool('wait_for_cancel', { description: 'Runs until cancelled' }, async (_args, ctx) => {
      await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
      return 'too late';
    });
    const c = await h.raw(server);
    await c.init();
    await c.run([
      { send: request(1, 'tools/call', { name: 'echo', arguments: { message: 'x' } }) },
      { expect: result(1) },
      { send: request(2, 'tools/call', { name: 'test_error_handling', arguments: {} }) },
      { expect: result(2, { isError: true }) },
      { send: request(3, 'tools/call', { name: 'nope', arguments: {} }) },
      { expect: error(3, -32602) },
      { send: request(4, 'resources/read', { uri: 'test://missing' }) },
      { expect: error(4, -32002) },
      { send: request(5, 'tools/call', { name: 'wait_for_cancel', arguments: {} }) },
      { expectSilence: 30 },
      { send: notification('notifications/cancelled', { requestId: 5 }) },
      { expectSilence: 20 },
      { send: request(6, 'tools/call', { name: 'echo', arguments: { message: 'y' } }) },
      { expect: result(6) },
      // the rate limit (registered after audit) refuses the sixth call: audit sees it
      { send: request(7, 'tools/call', { name: 'echo', arguments: { message: 'z' } }) },
      { expect: error(7, RATE_LIMITED_CODE) },
      // refused by the revision table: audit still sees them
      { send: request(8, 'no/such/method') },
      { expect: error(8, -32601) },
      { send: request(9, 'prompts/get', { name: 42 }) },
      { expect: error(9, -32602) },
    ]);
    await eventually(() => events.length === 10, 20_000, 'all audit events');
    const summary = events.map((e) => [e.direction, e.method, e.target, e.requestId, e.outcome, e.errorCode]);
    assert.deepEqual(summary, [
      ['incoming', 'initialize', undefined, 0, 'ok', undefined],
      ['incoming', 'tools/call', 'echo', 1, 'ok', undefined],
      ['incoming', 'tools/call', 'test_error_handling', 2, 'tool_error', undefined],
      ['incoming', 'tools/call', 'nope', 3, 'error', -32602],
      ['incoming', 'resources/read', 'test://missing', 4, 'error', -32002],
      ['incoming', 'tools/call', 'wait_for_cancel', 5, 'cancelled', undefined],
      ['incoming', 'tools/call', 'echo', 6, 'ok', undefined],
      ['incoming', 'tools/call', 'echo', 7, 'error', RATE_LIMITED_CODE],
      ['incoming', 'no/such/method', undefined, 8, 'error', -32601],
      ['incoming', 'prompts/get', undefined, 9, 'error', -32602],
    ]);
    for (const e of events) {
      assert.ok(e.durationMs >= 0 && Number.isFinite(e.durationMs));
      assert.ok(Math.abs(e.startedAt - Date.now()) < 10_000);
    }
    assert.ok(events[5]!.durationMs >= 25, 'the cancelled call lasted until its cancellation');
  });

  // The same middleware type audits outgoing requests when registered for both directions.
  harnessTest("audits the server's own requests when registered for both directions", async (h) => {
    const events: AuditEvent[] = [];
    const server = h.demo();
    server.use(
      audit((e) => events.push(e)),
      'both',
    );
    const { client } = await h.client(server, { roots: { list: () => [] } });
    await client.callTool({ name: 'list_roots' });
    const outgoing = events.filter((e) => e.direction === 'outgoing');
    assert.deepEqual(
      outgoing.map((e) => [e.method, e.outcome]),
      [['roots/list', 'ok']],
    );
  });
});

describe('one middleware type, both directions', () => {
  // The first registered middleware runs outermost, for outgoing and incoming messages.
  harnessTest('client middleware sees outgoing requests and incoming server requests, first registered outermost', async (h) => {
    const log: string[] = [];
    const tracer =
      (label: string): Middleware =>
      (next) =>
      async (method, params, ctx) => {
        log.push(`${label}> ${ctx.direction} ${ctx.kind} ${method}`);
        try {
          return await next(method, params, ctx);
        } finally {
          log.push(`${label}< ${ctx.direction} ${ctx.kind} ${method}`);
        }
      };
    const { client } = await h.client(
      h.demo(),
      { sampling: { createMessage: () => ({ role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'm' }) } },
      (c) => {
        c.use(tracer('A'), 'both');
        c.use(tracer('B'), 'both');
      },
    );
    assert.deepEqual(log.splice(0), [
      'A> outgoing request initialize',
      'B> outgoing request initialize',
      'B< outgoing request initialize',
      'A< outgoing request initialize',
      'A> outgoing notification notifications/initialized',
      'B> outgoing notification notifications/initialized',
      'B< outgoing notification notifications/initialized',
      'A< outgoing notification notifications/initialized',
    ]);
    await client.listTools();
    log.length = 0;
    await client.callTool({ name: 'test_sampling', arguments: { prompt: 'hi' } });
    assert.deepEqual(log, [
      'A> outgoing request tools/call',
      'B> outgoing request tools/call',
      'A> incoming request sampling/createMessage',
      'B> incoming request sampling/createMessage',
      'B< incoming request sampling/createMessage',
      'A< incoming request sampling/createMessage',
      'B< outgoing request tools/call',
      'A< outgoing request tools/call',
    ]);
  });

  // Outgoing middleware can change what is sent, and refuse to send.
  harnessTest('outgoing middleware can rewrite and refuse requests', async (h) => {
    const tag: Middleware = (next) => (method, params, ctx) =>
      method === 'tools/call' && (params as { name?: string }).name === 'forbidden'
        ? Promise.reject(new Error('blocked by policy'))
        : next(method, method === 'tools/call' ? { ...params, _meta: { traceId: 't-1' } } : params, ctx);
    const { client, clientWire } = await h.client(h.demo(), {}, (c) => c.use(tag, 'outgoing'));
    await client.callTool({ name: 'echo', arguments: { message: 'm' } });
    await assert.rejects(client.callTool({ name: 'forbidden' }), /blocked by policy/);
    const calls = clientWire.transcript.filter((e) => e.dir === 'send' && (e.message as { method?: string }).method === 'tools/call');
    assert.equal(calls.length, 1);
    assert.deepEqual((calls[0]!.message as { params: unknown }).params, { name: 'echo', arguments: { message: 'm' }, _meta: { traceId: 't-1' } });
  });
});
