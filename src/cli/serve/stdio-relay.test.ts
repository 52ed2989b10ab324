// The stdio relay of `mcpkit dev` in isolation. JSON-RPC 2.0 (section 5): every request gets
// exactly one response with its id — so a request in flight at a retiring generation is
// answered by that generation, and one whose generation died gets an error response
// (InternalError, -32603) instead of none.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode } from '../../jsonrpc/types.js';
import { type RelayGeneration, StdioRelay } from './stdio-relay.js';

function setup(options: { maxHeldLines?: number; replayTimeoutMs?: number } = {}) {
  const toClient: unknown[] = [];
  const relay = new StdioRelay({ toClient: (line) => toClient.push(JSON.parse(line)), log: () => {}, ...options });
  const gen = (id: number) => {
    const got: Record<string, unknown>[] = [];
    const g: RelayGeneration & { got: typeof got } = { id, got, write: (line) => void got.push(JSON.parse(line)) };
    return g;
  };
  const send = (msg: unknown) => relay.fromClient(JSON.stringify(msg));
  const reply = (g: RelayGeneration, msg: unknown) => relay.fromGeneration(g, JSON.stringify(msg));
  return { relay, gen, send, reply, toClient };
}

const INIT = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
};

test('a switch replays initialize + initialized, swallows the replay answer, announces list_changed', async () => {
  const { relay, gen, send, reply, toClient } = setup();
  const one = gen(1);
  await relay.switchTo(one);
  send(INIT);
  reply(one, {
    jsonrpc: '2.0',
    id: 0,
    result: { protocolVersion: '2025-06-18', capabilities: { tools: { listChanged: true }, prompts: {} }, serverInfo: { name: 's', version: '1' } },
  });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const two = gen(2);
  const switching = relay.switchTo(two);
  send({ jsonrpc: '2.0', id: 5, method: 'tools/list' }); // held during the replay
  assert.deepEqual(
    two.got.map((m) => [m.id, m.method]),
    [['mcpkit-dev-replay', 'initialize']],
  );
  reply(two, { jsonrpc: '2.0', id: 'mcpkit-dev-replay', result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 's', version: '2' } } });
  assert.equal(await switching, true);
  assert.deepEqual(
    two.got.map((m) => [m.id, m.method]),
    [
      ['mcpkit-dev-replay', 'initialize'],
      [undefined, 'notifications/initialized'],
      [5, 'tools/list'],
    ],
  );
  assert.equal(toClient.length, 2, 'the replay answer is not shown to the client');
  assert.deepEqual(toClient[1], { jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
  assert.equal(one.got.length, 2, 'nothing more goes to the old generation');
});

test('in flight at the old generation: answered by it, cancellation routed to it, error if it dies', async () => {
  const { relay, gen, send, reply, toClient } = setup();
  const one = gen(1);
  await relay.switchTo(one);
  send({ jsonrpc: '2.0', id: 'slow', method: 'tools/call', params: { name: 'x' } });
  send({ jsonrpc: '2.0', id: 'dies', method: 'tools/call', params: { name: 'y' } });
  const two = gen(2);
  assert.equal(await relay.switchTo(two), true);
  assert.equal(relay.pendingAt(one), 2);
  send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'slow' } });
  assert.equal(one.got.at(-1)!.method, 'notifications/cancelled');
  assert.equal(two.got.length, 0);
  reply(one, { jsonrpc: '2.0', id: 'slow', result: { content: [] } });
  assert.equal(relay.pendingAt(one), 1);
  relay.exited(one);
  assert.deepEqual(toClient.at(-1), {
    jsonrpc: '2.0',
    id: 'dies',
    error: { code: ErrorCode.InternalError, message: 'the server process exited before answering (mcpkit dev)' },
  });
});

test('a server request is answered to the generation that asked', async () => {
  const { relay, gen, send, reply } = setup();
  const one = gen(1);
  await relay.switchTo(one);
  reply(one, { jsonrpc: '2.0', id: 77, method: 'roots/list' });
  const two = gen(2);
  await relay.switchTo(two);
  send({ jsonrpc: '2.0', id: 77, result: { roots: [] } });
  assert.deepEqual(one.got.at(-1), { jsonrpc: '2.0', id: 77, result: { roots: [] } });
  assert.equal(two.got.length, 0);
});

test('a replay the new code rejects (or never answers) keeps the old generation current', async () => {
  const { relay, gen, send, reply } = setup({ replayTimeoutMs: 50 });
  const one = gen(1);
  await relay.switchTo(one);
  send(INIT);
  const two = gen(2);
  const switching = relay.switchTo(two);
  reply(two, { jsonrpc: '2.0', id: 'mcpkit-dev-replay', error: { code: -32602, message: 'no' } });
  assert.equal(await switching, false);
  assert.equal(relay.current, one);
  assert.equal(await relay.switchTo(gen(3)), false, 'timed out');
  assert.equal(relay.current, one);
});

test('with no generation, client lines are held up to the limit; past it requests get an error at once', async () => {
  const { relay, gen, send, toClient } = setup({ maxHeldLines: 2 });
  send({ jsonrpc: '2.0', id: 1, method: 'ping' });
  send({ jsonrpc: '2.0', id: 2, method: 'ping' });
  send({ jsonrpc: '2.0', id: 3, method: 'ping' });
  assert.deepEqual(toClient, [
    { jsonrpc: '2.0', id: 3, error: { code: ErrorCode.InternalError, message: 'no server is loaded: too many messages are waiting (mcpkit dev)' } },
  ]);
  const one = gen(1);
  await relay.switchTo(one);
  assert.deepEqual(
    one.got.map((m) => m.id),
    [1, 2],
  );
});
