/**
 * Fault and abuse suite, tasks of the 2026-07-28 era (`io.modelcontextprotocol/tasks`):
 * without authentication every client used to share one owner, so one client holding 16
 * long tasks blocked task creation for everybody, and the 2025-era `tasks/list` of an
 * unauthenticated client showed stateless-era tasks it was never given.
 *
 * What the extension says (Security Considerations): "A server MAY use task IDs as bearer
 * tokens for a server's stored state. Servers MUST generate them with sufficient entropy
 * that a third party cannot enumerate or guess them", and there is no `tasks/list`, so a
 * caller only reaches tasks whose ids it holds. Given an id, `tasks/get` answers the task and
 * `tasks/cancel` answers an empty acknowledgement (Task Cancellation); an unknown id is
 * -32602 (Error Handling). With authentication, 2025-11-25 › Tasks › Security
 * Considerations applies: tasks are bound to the authorization context and a foreign one
 * answers like an unknown id.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONObject } from '../../src/jsonrpc/types.js';
import { McpServer } from '../../src/server/server.js';
import { TaskServer } from '../../src/tasks/index.js';
import { makeHandler, post, rpc } from '../helpers/http/server-harness.js';
import { assertCoreSchema, connectPeer, errorOf, type RawPeer, STATELESS, TASKS_EXTENSION } from './server-peer.js';

const WITH_TASKS = { extensions: { [TASKS_EXTENSION]: {} } };
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function fixture(): { server: McpServer; tasks: TaskServer } {
  const server = new McpServer({ name: 'abuse', version: '1.0.0' });
  const wait = (ms: number, signal: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      const t = setTimeout(resolve, ms);
      signal.addEventListener('abort', () => (clearTimeout(t), reject(signal.reason)), { once: true });
    });
  server.registerTool(
    'work',
    { inputSchema: { type: 'object', properties: { ms: { type: 'number' } }, required: ['ms'] }, execution: { taskSupport: 'optional' } },
    async (a: { ms: number }, ctx) => {
      await wait(a.ms, ctx.signal);
      return `slept ${a.ms}`;
    },
  );
  server.registerTool('long_job', { execution: { taskSupport: 'required' } }, async (_a, ctx) => {
    await wait(60_000, ctx.signal);
    return 'finished';
  });
  const tasks = new TaskServer(server, { sweepIntervalMs: 0, statusNotifications: false });
  return { server, tasks };
}

async function fillCap(peer: RawPeer): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < 16; i++) {
    const r = await peer.call('tools/call', { name: 'long_job', arguments: {} });
    assert.equal(r.resultType, 'task');
    ids.push(r.taskId as string);
  }
  return ids;
}

describe('abuse: stateless-era tasks without authentication', () => {
  it('two in-process clients: A at its cap does not block B; B reaches A’s tasks only with their ids', async () => {
    const { server, tasks } = fixture();
    const a = await connectPeer(server, { revision: STATELESS, capabilities: WITH_TASKS, name: 'A' });
    const b = await connectPeer(server, { revision: STATELESS, capabilities: WITH_TASKS, name: 'B' });
    const aIds = await fillCap(a);
    // A's own 17th task is refused (its cap, maxActiveTasksPerOwner = 16)...
    const refused = errorOf(await a.request('tools/call', { name: 'long_job', arguments: {} }));
    assert.equal(refused.code, -32600);
    assert.match(refused.message, /limit 16/);
    // ...but B, another connection, has its own.
    const bTask = await b.call('tools/call', { name: 'long_job', arguments: {} });
    assert.equal(bTask.resultType, 'task');
    // Ids come from a CSPRNG: random (version 4) UUIDs, 122 random bits each.
    const all = [...aIds, bTask.taskId as string];
    for (const id of all) assert.match(id, UUID_V4);
    assert.equal(new Set(all).size, all.length);
    // Without the id B finds nothing: there is no tasks/list, a guessed id is unknown.
    assert.equal(errorOf(await b.request('tasks/list', {})).code, -32601);
    for (const method of ['tasks/get', 'tasks/cancel']) assert.equal(errorOf(await b.request(method, { taskId: crypto.randomUUID() })).code, -32602, method);
    // Given an id, the extension's bearer semantics: B reads it and may cancel it.
    const seen = await b.call('tasks/get', { taskId: aIds[0]! });
    assert.equal(seen.status, 'working');
    const { _meta: _ignored, ...ack } = await b.call('tasks/cancel', { taskId: aIds[0]! });
    assert.deepEqual(ack, { resultType: 'complete' }, 'an empty acknowledgement');
    assert.equal((await a.call('tasks/get', { taskId: aIds[0]! })).status, 'cancelled');
    assertCoreSchema(a);
    assertCoreSchema(b);
    await tasks.close();
    await server.close();
  });

  it('an unauthenticated 2025-11-25 client on the same server neither lists nor reaches stateless-era tasks', async () => {
    const { server, tasks } = fixture();
    const a = await connectPeer(server, { revision: STATELESS, capabilities: WITH_TASKS, name: 'A' });
    const created = await a.call('tools/call', { name: 'long_job', arguments: {} });
    const old = await connectPeer(server, { revision: '2025-11-25', name: 'old' });
    const listed = await old.call('tasks/list', {});
    assert.deepEqual(listed.tasks, []);
    for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
      assert.equal(errorOf(await old.request(method, { taskId: created.taskId as string })).code, -32602, method);
    }
    assert.equal((await a.call('tasks/get', { taskId: created.taskId as string })).status, 'working');
    await tasks.close();
    await server.close();
  });

  it('over Streamable HTTP (no client identity): A holding its cap of long tasks does not block B', async () => {
    const { server, tasks } = fixture();
    const handler = makeHandler({ server });
    let id = 1;
    const call = async (client: string, method: string, params: JSONObject) => {
      const meta = {
        'io.modelcontextprotocol/protocolVersion': STATELESS,
        'io.modelcontextprotocol/clientCapabilities': WITH_TASKS,
        'io.modelcontextprotocol/clientInfo': { name: client, version: '1' },
      };
      const name = (params.name ?? params.taskId) as string;
      const res = await post(handler, rpc(id++, method, { ...params, _meta: meta }), {
        protocolVersion: STATELESS,
        headers: { 'mcp-method': method, 'mcp-name': name },
      });
      return (await res.json()) as JSONObject;
    };
    // Nothing tells unauthenticated HTTP clients apart: their tasks share one pool
    // (maxActiveAnonymousTasks, default 64), which A takes whole.
    for (let i = 0; i < 64; i++) assert.equal(((await call('A', 'tools/call', { name: 'long_job', arguments: {} })).result as JSONObject).resultType, 'task');
    const refused = (await call('A', 'tools/call', { name: 'long_job', arguments: {} })).error as JSONObject;
    assert.equal(refused.code, -32600);
    assert.match(refused.message as string, /unauthenticated requests \(limit 64\)/);
    // B's call of an optional tool is served: the server alone decides whether a call
    // becomes a task, and with no free slot it answers inline.
    const inline = await call('B', 'tools/call', { name: 'work', arguments: { ms: 150 } });
    assert.equal(inline.error, undefined, JSON.stringify(inline));
    const result = inline.result as JSONObject;
    assert.equal(result.resultType, 'complete');
    assert.deepEqual(result.content, [{ type: 'text', text: 'slept 150' }]);
    assert.equal(tasks.stateless.running, 64);
    await tasks.close();
    await handler.close();
  });
});

describe('abuse: stateless-era tasks with authentication', () => {
  it('tasks belong to the principal: another principal gets -32602 even with the id, and has its own cap', async () => {
    const { server, tasks } = fixture();
    const handler = makeHandler({
      server,
      authorize: { authenticate: async (req) => ({ authInfo: { clientId: 'app', subject: req.headers('authorization') ?? 'nobody' } }) },
    });
    let id = 1;
    const call = async (who: string, method: string, params: JSONObject) => {
      const meta = {
        'io.modelcontextprotocol/protocolVersion': STATELESS,
        'io.modelcontextprotocol/clientCapabilities': WITH_TASKS,
        'io.modelcontextprotocol/clientInfo': { name: who, version: '1' },
      };
      const name = (params.name ?? params.taskId) as string;
      const res = await post(handler, rpc(id++, method, { ...params, _meta: meta }), {
        protocolVersion: STATELESS,
        headers: { 'mcp-method': method, 'mcp-name': name, authorization: who },
      });
      return (await res.json()) as JSONObject;
    };
    const aliceIds: string[] = [];
    for (let i = 0; i < 16; i++)
      aliceIds.push(((await call('alice', 'tools/call', { name: 'long_job', arguments: {} })).result as JSONObject).taskId as string);
    assert.equal(((await call('alice', 'tools/call', { name: 'long_job', arguments: {} })).error as JSONObject).code, -32600);
    const bob = (await call('bob', 'tools/call', { name: 'long_job', arguments: {} })).result as JSONObject;
    assert.equal(bob.resultType, 'task');
    for (const method of ['tasks/get', 'tasks/cancel'])
      assert.equal(((await call('bob', method, { taskId: aliceIds[0]! })).error as JSONObject).code, -32602, method);
    assert.equal(((await call('alice', 'tasks/get', { taskId: aliceIds[0]! })).result as JSONObject).status, 'working');
    await tasks.close();
    await handler.close();
  });
});
