/**
 * Security rows of /work/shared/notes/security.md that apply to JSON-RPC over stdio-like
 * transports: exact-case keys, `__proto__`, id discipline, per-connection state, bounded
 * input, quiet cancellation races.
 * Spec: 2025-03-26 › Basic › Messages ("The request ID MUST NOT have been previously used
 * by the requestor within the same session"; ids never null), › Basic › Utilities ›
 * Cancellation (Timing Considerations), › Server Features › Tools › Security.
 */

import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { Client } from '../../src/client/client.js';
import { LocalError } from '../../src/jsonrpc/errors.js';
import type { RecordingTransport } from '../../src/testing/recording-transport.js';
import { InMemoryTransport } from '../../src/transport/memory.js';
import { delay, error, eventually, harnessTest, matches, notification, request, result } from './harness.js';

/** Ids of the requests a recorded side sent. */
function sentRequestIds(wire: RecordingTransport): unknown[] {
  return wire.transcript
    .filter((e) => e.dir === 'send')
    .flatMap((e) => (Array.isArray(e.message) ? e.message : [e.message]))
    .filter((m: { method?: unknown; id?: unknown }) => typeof m.method === 'string' && 'id' in m)
    .map((m: { id?: unknown }) => m.id);
}

describe('message smuggling', () => {
  // JSON keys match exactly: `Method` is not `method`.
  harnessTest('exact-case keys: a "Method" key is -32600, not a call', async (h) => {
    const server = h.demo();
    let called = 0;
    server.registerTool('spy', {}, () => (called++, 'called'));
    const c = await h.raw(server);
    await c.init();
    await c.run([
      { send: { jsonrpc: '2.0', id: 1, Method: 'tools/call', params: { name: 'spy' } } },
      { expect: error(1, -32600) },
      { send: { JSONRPC: '2.0', jsonrpc: '1.0', id: 2, method: 'tools/call', params: { name: 'spy' } } },
      { expect: error(2, -32600) },
      { send: { jsonrpc: '2.0', id: 3, method: 'Tools/Call', params: { name: 'spy' } } },
      { expect: error(3, -32601) },
      { send: { jsonrpc: '2.0', id: 4, method: 'tools/call', Params: { name: 'spy' } } },
      { expect: error(4, -32602) },
    ]);
    assert.equal(called, 0);
    h.allowViolation(/response to id 1, which no received request carries/);
  });

  // Duplicate keys: JSON.parse keeps the last one, and every layer sees that same value.
  harnessTest('duplicate keys are read consistently (the last one wins)', async (h) => {
    const c = await h.raw();
    await c.init();
    await c.run([
      {
        send: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"first","message":"second"}},"method":"tools/call"}',
      },
      { expect: result(1, { content: [{ type: 'text', text: 'second' }] }) },
    ]);
  });

  // `__proto__` is an ordinary key: it neither pollutes Object.prototype nor changes how
  // arguments are read.
  harnessTest('__proto__ in params does not pollute', async (h) => {
    const c = await h.raw();
    await c.init();
    await c.run([
      {
        send: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"safe","__proto__":{"polluted":true,"message":"evil"}}}}',
      },
      { expect: result(1, { content: [{ type: 'text', text: 'safe' }] }) },
      {
        send: '{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"test_prompt_with_arguments","arguments":{"arg1":"a","arg2":"b","__proto__":{"polluted":"yes"}}}}',
      },
      { expect: error(2, -32602, { message: matches(/__proto__/) }) },
      // context.arguments values are strings (schema): an object under any key, `__proto__`
      // included, is -32602; a string under `__proto__` is an ordinary argument.
      {
        send: '{"jsonrpc":"2.0","id":3,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"arg2","value":""},"context":{"arguments":{"__proto__":{"arg1":"evil"}}}}}',
      },
      { expect: error(3, -32602, { message: matches(/context\.arguments\.__proto__/) }) },
      {
        send: '{"jsonrpc":"2.0","id":6,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"arg2","value":""},"context":{"arguments":{"__proto__":"evil"}}}}',
      },
      { expect: result(6, { completion: { values: ['x-suffix', 'testValue2'] } }) },
      { send: '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2,"__proto__":{"a":100}}}}' },
      { expect: result(4, { structuredContent: { sum: 3 } }) },
      { send: '{"jsonrpc":"2.0","id":5,"__proto__":{"method":"tools/call"},"method":"ping"}' },
      { expect: result(5, {}) },
    ]);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(({} as Record<string, unknown>).message, undefined);
    assert.equal(({} as Record<string, unknown>).arg1, undefined);
  });
});

describe('prototype keys', () => {
  // Names from the wire are looked up among a registration's own entries only: an
  // argument called "constructor" or "__proto__" has no completer (empty completion),
  // it does not call Object.prototype members with the caller's input.
  harnessTest('inherited property names are not completers', async (h) => {
    const errors: Error[] = [];
    const c = await h.raw(h.demo({ onError: (e) => errors.push(e) }));
    await c.init();
    const steps = ['constructor', '__proto__', 'toString', 'hasOwnProperty'].flatMap((name, i) => [
      { send: request(2 * i + 1, 'completion/complete', { ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name, value: 'v' } }) },
      { expect: result(2 * i + 1, { completion: { values: [] } }) },
      { send: request(2 * i + 2, 'completion/complete', { ref: { type: 'ref/resource', uri: 'test://template/{id}/data' }, argument: { name, value: 'v' } }) },
      { expect: result(2 * i + 2, { completion: { values: [] } }) },
    ]);
    await c.run(steps);
    assert.deepEqual(errors, []);
  });
});

describe('id discipline', () => {
  // Basic › Requests: ids are strings or integers, never null, never reused by the
  // requestor in a session — including after timeouts and cancellations.
  harnessTest('the server never reuses an id of its own requests', async (h) => {
    const server = h.demo();
    const { client, session, serverWire, clientWire } = await h.client(server, {
      roots: { list: () => delay(30).then(() => [{ uri: 'file:///r' }]) },
      sampling: { createMessage: () => ({ role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'm' }) },
    });
    await session.ping();
    await session.listRoots();
    await assert.rejects(session.listRoots({ timeoutMs: 5 }), (e) => e instanceof LocalError && e.code === 'timeout');
    const controller = new AbortController();
    const cancelled = session.createMessage(
      { messages: [{ role: 'user', content: { type: 'text', text: 'x' } }], maxTokens: 1 },
      { signal: controller.signal },
    );
    controller.abort();
    await assert.rejects(cancelled, (e) => e instanceof LocalError && e.code === 'cancelled');
    await Promise.all([client.callTool({ name: 'test_sampling', arguments: { prompt: 'a' } }), client.callTool({ name: 'list_roots' }), session.ping()]);
    await client.ping();
    await client.listTools();
    for (const wire of [serverWire, clientWire]) {
      const ids = sentRequestIds(wire);
      assert.ok(ids.length >= 4);
      assert.ok(
        ids.every((id) => Number.isInteger(id)),
        `integer ids: ${JSON.stringify(ids)}`,
      );
      assert.equal(new Set(ids).size, ids.length, `no id reused: ${JSON.stringify(ids)}`);
    }
  });

  // An id already in use by a request in progress is refused; the first one still completes.
  harnessTest('a duplicate in-flight id is refused without disturbing the first request', async (h) => {
    const c = await h.raw();
    await c.init();
    await c.run([
      { send: request(1, 'tools/call', { name: 'slow', arguments: { ms: 50 } }) },
      { send: request(1, 'ping') },
      { expect: error(1, -32600, { message: matches(/already in use/) }) },
      { expect: result(1, { content: [{ type: 'text', text: 'waited 50 ms' }] }) },
    ]);
    // The recorder pairs the refusal with the first request, so the real answer looks unpaired.
    h.allowViolation(/response to id 1, which no received request carries/);
  });
});

describe('per-connection state', () => {
  // security.md › cross-client leak: two clients on one server object; the same request
  // ids on both connections; each answer reaches the client that asked.
  harnessTest('the same ids on two connections never cross', async (h) => {
    const server = h.demo();
    const a = await h.raw(server);
    const b = await h.raw(server);
    await a.init();
    await b.init('2025-06-18');
    const [ra, rb] = await Promise.all([
      a.run([
        { send: request(1, 'tools/call', { name: 'slow', arguments: { ms: 30 } }) },
        { send: request(2, 'tools/call', { name: 'echo', arguments: { message: 'from A' } }) },
        { expectAnyOrder: [result(1, { content: [{ text: 'waited 30 ms' }] }), result(2, { content: [{ text: 'from A' }] })] },
      ]),
      b.run([
        { send: request(1, 'tools/call', { name: 'echo', arguments: { message: 'from B' } }) },
        { send: request(2, 'tools/call', { name: 'slow', arguments: { ms: 10 } }) },
        { expectAnyOrder: [result(1, { content: [{ text: 'from B' }] }), result(2, { content: [{ text: 'waited 10 ms' }] })] },
      ]),
    ]);
    assert.equal(ra.received.length, 2);
    assert.equal(rb.received.length, 2);
    assert.equal(a.session.protocolVersion, '2025-11-25');
    assert.equal(b.session.protocolVersion, '2025-06-18');
  });

  // Server → client requests of two clients, interleaved: each client's answer goes to
  // its own pending request (ids restart at 1 per connection).
  harnessTest('server requests to two clients with the same ids get their own answers', async (h) => {
    const server = h.demo();
    const sampler = (answer: string, ms: number) => ({
      createMessage: async () => {
        await new Promise((r) => setTimeout(r, ms));
        return { role: 'assistant' as const, content: { type: 'text' as const, text: answer }, model: 'm' };
      },
    });
    const one = await h.client(server, { sampling: sampler('one', 30) });
    const two = await h.client(server, { sampling: sampler('two', 5) });
    const [r1, r2] = await Promise.all([
      one.client.callTool({ name: 'test_sampling', arguments: { prompt: 'p' } }),
      two.client.callTool({ name: 'test_sampling', arguments: { prompt: 'p' } }),
    ]);
    assert.deepEqual(
      [r1.content[0], r2.content[0]],
      [
        { type: 'text', text: 'LLM response: one' },
        { type: 'text', text: 'LLM response: two' },
      ],
    );
    assert.deepEqual(sentRequestIds(one.serverWire), sentRequestIds(two.serverWire), 'each connection numbers its own requests');
  });

  // Log level, subscriptions and elicitations belong to one connection.
  harnessTest('log levels and subscriptions are per connection', async (h) => {
    const server = h.demo();
    const a = await h.raw(server);
    const b = await h.raw(server);
    await a.init();
    await b.init();
    await a.run([
      { send: request(1, 'logging/setLevel', { level: 'error' }) },
      { expect: result(1, {}) },
      { send: request(2, 'resources/subscribe', { uri: 'test://watched-resource' }) },
      { expect: result(2, {}) },
    ]);
    await server.log('info', 'only for B');
    await b.run([
      { expect: notification('notifications/message', { level: 'info', data: 'only for B' }) },
      { send: request(1, 'tools/call', { name: 'touch_watched_resource', arguments: {} }) },
      { expect: result(1, { content: [{ text: 'version 1' }] }) },
    ]);
    await a.run([{ expect: notification('notifications/resources/updated', { uri: 'test://watched-resource' }) }, { expectSilence: 20 }]);
    await b.run([{ expectSilence: 10 }]);
  });

  // A transport carries one connection: connecting it twice is refused.
  harnessTest('a transport cannot be connected twice', async (h) => {
    const server = h.demo();
    const [, serverEnd] = InMemoryTransport.createPair();
    await server.connect(serverEnd);
    await assert.rejects(server.connect(serverEnd), (e) => e instanceof LocalError && e.code === 'already_connected');
    assert.equal(server.connections.size, 1);
    const { client } = await h.client(server);
    await assert.rejects(client.connect(InMemoryTransport.createPair()[0]), (e) => e instanceof LocalError && e.code === 'already_connected');
  });
});

describe('bounded input', () => {
  // security.md › unbounded input: size, nesting and batch length are limited.
  harnessTest('an oversized message is -32600 and the connection survives', async (h) => {
    const c = await h.raw(h.demo({ limits: { maxMessageChars: 1000 } }));
    await c.init();
    await c.run([
      { send: request(1, 'tools/call', { name: 'echo', arguments: { message: 'x'.repeat(2000) } }) },
      { expect: error(null, -32600, { message: matches(/1000/) }) },
      { send: request(2, 'tools/call', { name: 'echo', arguments: { message: 'x'.repeat(100) } }) },
      { expect: result(2) },
    ]);
  });

  // security.md › unbounded input: the default limit, just above and well below it.
  harnessTest('the default size limit is 4 MiB', async (h) => {
    const c = await h.raw();
    await c.init();
    await c.run([
      { send: request(1, 'tools/call', { name: 'echo', arguments: { message: 'x'.repeat(4 * 1024 * 1024) } }) },
      { expect: error(null, -32600) },
      { send: request(2, 'tools/call', { name: 'echo', arguments: { message: 'x'.repeat(1024 * 1024) } }) },
      { expect: result(2, { content: [{ text: (t: string) => t.length === 1024 * 1024 }] }) },
    ]);
  });

  // security.md › unbounded input: nesting is bounded (64 levels) before any handler runs.
  harnessTest('deep nesting is -32600 without a stack overflow', async (h) => {
    const c = await h.raw();
    await c.init();
    const deep =
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"m","x":' +
      '['.repeat(100_000) +
      ']'.repeat(100_000) +
      '}}}';
    await c.run([
      { send: deep },
      { expect: error(1, -32600, { message: matches(/nests deeper than 64/) }) },
      { send: request(2, 'ping') },
      { expect: result(2, {}) },
    ]);
  });

  // 2025-03-26 › Basic › Batching with security.md › unbounded input: at most 256 elements.
  harnessTest('batch length is bounded (2025-03-26)', async (h) => {
    const c = await h.raw();
    await c.init('2025-03-26');
    await c.run([
      { send: Array.from({ length: 257 }, (_, i) => request(i + 1, 'ping')) },
      { expect: error(null, -32600, { message: matches(/at most 256/) }) },
      { send: Array.from({ length: 256 }, (_, i) => request(1000 + i, 'ping')) },
      { expect: (batch: unknown) => Array.isArray(batch) && batch.length === 256 },
    ]);
  });

  // security.md › unbounded input: concurrent requests per connection are bounded too.
  harnessTest('requests in progress are bounded', async (h) => {
    const c = await h.raw(h.demo({ maxInFlight: 2 }));
    await c.init();
    await c.run([
      { send: request(1, 'tools/call', { name: 'slow', arguments: { ms: 40 } }) },
      { send: request(2, 'tools/call', { name: 'slow', arguments: { ms: 40 } }) },
      { send: request(3, 'ping') },
      { expect: error(3, -32600, { message: matches(/Too many requests/) }) },
      { expectAnyOrder: [result(1), result(2)] },
      { send: request(4, 'ping') },
      { expect: result(4, {}) },
    ]);
  });
});

describe('cancellation races', () => {
  // Cancellation › Timing Considerations: cancelling a finished or unknown request, twice,
  // or with a malformed id, is ignored quietly: no response, no error report.
  harnessTest('races are quiet', async (h) => {
    const errors: Error[] = [];
    const c = await h.raw(h.demo({ onError: (e) => errors.push(e) }));
    await c.init();
    await c.run([
      { send: request(1, 'tools/call', { name: 'slow', arguments: { ms: 20 } }) },
      { expect: result(1) },
      { send: notification('notifications/cancelled', { requestId: 1 }) },
      { send: request(2, 'tools/call', { name: 'slow', arguments: { ms: 1000 } }) },
      { send: notification('notifications/cancelled', { requestId: 2 }) },
      { send: notification('notifications/cancelled', { requestId: 2 }) },
      { send: notification('notifications/cancelled', { requestId: 'never-sent' }) },
      { send: notification('notifications/cancelled', {}) },
      { send: notification('notifications/cancelled', { requestId: { evil: true } }) },
      { send: notification('notifications/cancelled') },
      { expectSilence: 50 },
      { send: request(3, 'ping') },
      { expect: result(3, {}) },
    ]);
    assert.deepEqual(errors, []);
  });

  // The client side: a response arriving after the client gave up is dropped quietly.
  harnessTest('a late response after a client timeout is ignored', async (h) => {
    const errors: Error[] = [];
    const { client } = await h.client(h.demo(), { onError: (e) => errors.push(e) });
    await assert.rejects(client.callTool({ name: 'slow', arguments: { ms: 60 } }, { timeoutMs: 10 }), (e) => e instanceof LocalError && e.code === 'timeout');
    await new Promise((r) => setTimeout(r, 80));
    assert.deepEqual(await client.ping(), {});
    assert.deepEqual(errors, []);
  });

  // Initialization: "The initialize request MUST NOT be cancelled by clients."
  harnessTest('a timed-out initialize is not cancelled on the wire', async () => {
    const [clientEnd, serverEnd] = InMemoryTransport.createPair();
    const seen: unknown[] = [];
    serverEnd.start({ message: (d) => seen.push(JSON.parse(d as string)), error() {}, closed() {} });
    const client = new Client({ name: 'c', version: '1' });
    await assert.rejects(client.connect(clientEnd, { timeoutMs: 10 }), (e) => e instanceof LocalError && e.code === 'timeout');
    await eventually(() => seen.length >= 1, 20_000, 'initialize to arrive');
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(
      seen.map((m) => (m as { method: string }).method),
      ['initialize'],
    );
    assert.equal((seen[0] as { params: { protocolVersion: string } }).params.protocolVersion, '2025-11-25');
  });
});
