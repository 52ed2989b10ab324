/**
 * The tasks extension of the stateless era (`io.modelcontextprotocol/tasks`, SEP-2663) on the
 * wire: a raw JSON-RPC peer talks to an McpServer with a TaskServer over an in-memory pair,
 * and over Streamable HTTP for the routing headers. Every core message is checked against the
 * 2026-07-28 schema; the extension's own shapes (CreateTaskResult, DetailedTask, the empty
 * acknowledgements) against the extension's types (`checkTask`).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { makeHandler, post, rpc } from '../../../test/helpers/http/server-harness.js';
import { ALL_REVISIONS, Client, type ClientOptions } from '../../client/index.js';
import { LocalError, McpError } from '../../jsonrpc/errors.js';
import type { JSONObject, RequestId } from '../../jsonrpc/types.js';
import type { ServerRequestContext } from '../../server/context.js';
import { McpServer } from '../../server/server.js';
import { type RecordingTransport, recordTransport } from '../../testing/recording-transport.js';
import { InMemoryTransport } from '../../transport/memory.js';
import type { ElicitResult } from '../../types.js';
import { TASKS_EXTENSION_ID, TaskServer, type TaskServerOptions } from '../index.js';

const V = '2026-07-28';
const EXT = { extensions: { [TASKS_EXTENSION_ID]: {} } };
const WITH_TASKS = { elicitation: {}, sampling: {}, ...EXT };
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/;

function meta(caps: JSONObject = WITH_TASKS, client = 't'): JSONObject {
  return {
    'io.modelcontextprotocol/protocolVersion': V,
    'io.modelcontextprotocol/clientCapabilities': caps,
    'io.modelcontextprotocol/clientInfo': { name: client, version: '1' },
  };
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        reject(signal.reason);
      },
      { once: true },
    );
  });

/** The extension's `Task` fields (SEP-2663 as the suite checks it). Returns the problems. */
function checkTask(t: JSONObject): string[] {
  const out: string[] = [];
  if (typeof t.taskId !== 'string' || t.taskId === '') out.push('taskId');
  if (!['working', 'input_required', 'completed', 'failed', 'cancelled'].includes(t.status as string)) out.push(`status ${String(t.status)}`);
  if (typeof t.createdAt !== 'string' || !ISO.test(t.createdAt)) out.push('createdAt');
  if (typeof t.lastUpdatedAt !== 'string' || !ISO.test(t.lastUpdatedAt)) out.push('lastUpdatedAt');
  if (!(t.ttlMs === null || (Number.isInteger(t.ttlMs) && (t.ttlMs as number) > 0))) out.push('ttlMs');
  if (t.pollIntervalMs !== undefined && !(Number.isInteger(t.pollIntervalMs) && (t.pollIntervalMs as number) > 0)) out.push('pollIntervalMs');
  for (const legacy of ['ttl', 'pollInterval', 'requestState', 'task']) if (legacy in t) out.push(`has ${legacy}`);
  return out;
}

interface Wire {
  recorder: RecordingTransport;
  request(method: string, params?: JSONObject): Promise<JSONObject>;
  /** The result, or throws an McpError built from the error response. */
  call(method: string, params?: JSONObject): Promise<JSONObject>;
}

let nextId = 1;

async function connect(server: McpServer): Promise<Wire> {
  const [serverEnd, peer] = InMemoryTransport.createPair();
  const recorder = recordTransport(serverEnd, { side: 'server', revision: () => undefined });
  await server.connect(recorder);
  const waiting = new Map<RequestId, (m: JSONObject) => void>();
  peer.start({
    message: (data) => {
      const m = JSON.parse(data as string) as JSONObject;
      if (m.method === undefined) waiting.get(m.id as RequestId)?.(m);
    },
    error: () => {},
    closed: () => {},
  });
  const request = (method: string, params: JSONObject = {}) =>
    new Promise<JSONObject>((resolve) => {
      const id = nextId++;
      waiting.set(id, resolve);
      void peer.send({ jsonrpc: '2.0', id, method, params: { _meta: meta(), ...params } } as never);
    });
  return {
    recorder,
    request,
    async call(method, params) {
      const m = await request(method, params);
      if (m.error !== undefined) {
        const e = m.error as JSONObject;
        throw new McpError(e.code as number, e.message as string, e.data);
      }
      return m.result as JSONObject;
    },
  };
}

/** The recorder's schema violations, without those of the extension's methods (not in the core schema). */
function coreViolations(w: Wire): string[] {
  return w.recorder.violations().filter((v) => !/tasks\/(get|update|cancel|result|list)/.test(v));
}

function taskServer(options: TaskServerOptions = {}): { server: McpServer; tasks: TaskServer; events: string[] } {
  const server = new McpServer({ name: 'tasks-2026', version: '1.0.0' });
  const events: string[] = [];
  server.registerTool(
    'greet',
    { description: 'sync', inputSchema: { type: 'object', properties: { name: { type: 'string' } } } },
    (a: { name?: string }) => `Hello, ${a.name ?? 'you'}!`,
  );
  server.registerTool(
    'work',
    {
      description: 'sleeps ms (cancellable)',
      inputSchema: { type: 'object', properties: { ms: { type: 'number' } } },
      execution: { taskSupport: 'optional' },
    },
    async (a: { ms?: number }, ctx) => {
      try {
        await sleep(a.ms ?? 0, ctx.signal);
      } catch (err) {
        events.push('aborted');
        throw err;
      }
      return `slept ${a.ms ?? 0}`;
    },
  );
  server.registerTool('must_task', { description: 'required', execution: { taskSupport: 'required' } }, () => 'quick, but always a task');
  server.registerTool('tool_error', { description: 'tool error', execution: { taskSupport: 'optional' } }, async () => {
    await sleep(60);
    return { content: [{ type: 'text', text: 'no luck' }], isError: true };
  });
  server.registerTool('rpc_error', { description: 'protocol error', execution: { taskSupport: 'optional' } }, async () => {
    await sleep(60);
    throw new McpError(-32603, 'it broke');
  });
  server.registerTool('confirm', { description: 'asks after a while', execution: { taskSupport: 'optional' } }, async (_a, ctx) => {
    await sleep(60);
    const r = await ctx.elicitForm({ message: 'Sure?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } });
    return `answer: ${r.action} ${String(r.content?.ok)}`;
  });
  server.registerTool('two', { description: 'two questions at once', execution: { taskSupport: 'optional' } }, async (_a, ctx) => {
    await sleep(60);
    const schema = { type: 'object' as const, properties: { name: { type: 'string' as const } } };
    const [a, b] = await Promise.all([
      ctx.elicitForm({ message: 'A?', requestedSchema: schema }, { inputKey: 'a' }),
      ctx.elicitForm({ message: 'B?', requestedSchema: schema }, { inputKey: 'b' }),
    ]);
    return `${String(a.content?.name)}+${String(b.content?.name)}`;
  });
  server.registerTool('mrtr_then_task', { description: 'asks first, then a task', execution: { taskSupport: 'required' } }, async (_a, ctx) => {
    const r = await ctx.elicitForm(
      { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
      { inputKey: 'user_name' },
    );
    await sleep(60);
    return `Hello, ${String(r.content?.name)} (task ${String((ctx as ServerRequestContext & { taskId?: string }).taskId !== undefined)})`;
  });
  const tasks = new TaskServer(server, { pollIntervalMs: 20, sweepIntervalMs: 0, immediateResultMs: 30, ...options });
  return { server, tasks, events };
}

async function until(w: Wire, taskId: string, done: (t: JSONObject) => boolean, ms = 20_000): Promise<JSONObject> {
  const start = Date.now();
  for (;;) {
    const t = await w.call('tasks/get', { taskId });
    if (done(t)) return t;
    if (Date.now() - start > ms) throw new Error(`task ${taskId} stayed ${String(t.status)}`);
    await sleep(10);
  }
}
const terminal = (t: JSONObject) => ['completed', 'failed', 'cancelled'].includes(t.status as string);

describe('tasks extension (2026-07-28): capabilities and gating', () => {
  it('server/discover declares the extension under capabilities.extensions, not the 2025 tasks member', async () => {
    const { server } = taskServer();
    const w = await connect(server);
    const caps = (await w.call('server/discover')).capabilities as JSONObject;
    assert.deepEqual((caps.extensions as JSONObject)[TASKS_EXTENSION_ID], {});
    assert.equal(caps.tasks, undefined);
    // the 2025 era still declares `tasks` (and no extensions)
    assert.ok((server.capabilities() as JSONObject).tasks);
    assert.deepEqual(coreViolations(w), []);
  });

  it('tasks/get, tasks/update and tasks/cancel answer -32021 naming the extension when the request did not declare it', async () => {
    const { server } = taskServer();
    const w = await connect(server);
    for (const [method, params] of [
      ['tasks/get', { taskId: 'x' }],
      ['tasks/update', { taskId: 'x', inputResponses: {} }],
      ['tasks/cancel', { taskId: 'x' }],
    ] as const) {
      const r = await w.request(method, { ...params, _meta: meta({ elicitation: {} }) });
      const error = r.error as JSONObject;
      assert.equal(error.code, -32021, method);
      assert.deepEqual((error.data as JSONObject).requiredCapabilities, EXT);
    }
  });

  it('tasks/result and tasks/list do not exist on this wire (-32601); unknown task ids are -32602', async () => {
    const { server } = taskServer();
    const w = await connect(server);
    assert.equal(((await w.request('tasks/result', { taskId: 'x' })).error as JSONObject).code, -32601);
    assert.equal(((await w.request('tasks/list')).error as JSONObject).code, -32601);
    for (const method of ['tasks/get', 'tasks/cancel']) assert.equal(((await w.request(method, { taskId: 'nope' })).error as JSONObject).code, -32602, method);
    assert.equal(((await w.request('tasks/update', { taskId: 'nope', inputResponses: {} })).error as JSONObject).code, -32602);
    assert.equal(((await w.request('tasks/update', { taskId: 'nope', inputResponses: 3 })).error as JSONObject).code, -32602);
  });

  it('a required tool answers -32021 to a client without the extension; an optional one runs synchronously', async () => {
    const { server } = taskServer();
    const w = await connect(server);
    const r = await w.request('tools/call', { name: 'must_task', arguments: {}, _meta: meta({}) });
    assert.equal((r.error as JSONObject).code, -32021);
    assert.deepEqual(((r.error as JSONObject).data as JSONObject).requiredCapabilities, EXT);
    const sync = await w.call('tools/call', { name: 'work', arguments: { ms: 80 }, _meta: meta({}) });
    assert.equal(sync.resultType, 'complete');
    assert.equal(sync.taskId, undefined);
    assert.deepEqual(sync.content, [{ type: 'text', text: 'slept 80' }]);
    assert.deepEqual(coreViolations(w), []);
  });
});

describe('tasks extension (2026-07-28): server-decided tasks', () => {
  it('wraps the tools/call handler set after it too (server.handle, both eras): that handler answers, and may become a task', async () => {
    const { server } = taskServer();
    server.handle('tools/call', async (p) => {
      const ms = ((p?.arguments as JSONObject | undefined)?.ms as number | undefined) ?? 0;
      await sleep(ms);
      return { content: [{ type: 'text', text: `custom ${ms}` }] };
    });
    const w = await connect(server);
    const fast = await w.call('tools/call', { name: 'work', arguments: { ms: 0 } });
    assert.equal(fast.resultType, 'complete');
    assert.deepEqual(fast.content, [{ type: 'text', text: 'custom 0' }]);
    const slow = await w.call('tools/call', { name: 'work', arguments: { ms: 3_000 } });
    assert.equal(slow.resultType, 'task', 'the later handler is still wrapped by the tasks extension');
    await w.call('tasks/cancel', { taskId: slow.taskId as string });
  });

  it('fast calls and task-less tools answer normally (a legacy `task` param changes nothing)', async () => {
    const { server } = taskServer();
    const w = await connect(server);
    const fast = await w.call('tools/call', { name: 'work', arguments: { ms: 0 } });
    assert.equal(fast.resultType, 'complete');
    assert.equal(fast.taskId, undefined);
    const legacy = await w.call('tools/call', { name: 'greet', arguments: { name: 'x' }, task: { ttl: 1000 } });
    assert.equal(legacy.resultType, 'complete');
    assert.equal(legacy.taskId, undefined);
    assert.deepEqual(coreViolations(w), []);
  });

  it('a slow call becomes a flat CreateTaskResult, durable at once, whose result tasks/get inlines', async () => {
    const { server } = taskServer();
    const w = await connect(server);
    const created = await w.call('tools/call', { name: 'work', arguments: { ms: 150 } });
    assert.equal(created.resultType, 'task');
    assert.deepEqual(checkTask(created), []);
    assert.equal(created.status, 'working');
    for (const absent of ['result', 'error', 'inputRequests', 'content']) assert.ok(!(absent in created), absent);
    assert.equal(created.pollIntervalMs, 20);
    assert.equal(created.ttlMs, 3_600_000);
    const now = await w.call('tasks/get', { taskId: created.taskId as string });
    assert.equal(now.resultType, 'complete');
    assert.equal(now.taskId, created.taskId);
    assert.equal(now.status, 'working');
    assert.ok(!('result' in now));
    const done = await until(w, created.taskId as string, terminal);
    assert.deepEqual(checkTask(done), []);
    assert.equal(done.status, 'completed');
    const result = done.result as JSONObject;
    assert.equal(result.resultType, 'complete');
    assert.deepEqual(result.content, [{ type: 'text', text: 'slept 150' }]);
    assert.equal((result._meta as JSONObject | undefined)?.['io.modelcontextprotocol/related-task'], undefined);
    assert.deepEqual(coreViolations(w), []);
  });

  it('a required tool is always a task, even when it finishes at once', async () => {
    const { server } = taskServer();
    const w = await connect(server);
    const created = await w.call('tools/call', { name: 'must_task', arguments: {} });
    assert.equal(created.resultType, 'task');
    const done = await until(w, created.taskId as string, terminal);
    assert.equal(done.status, 'completed');
    assert.deepEqual((done.result as JSONObject).content, [{ type: 'text', text: 'quick, but always a task' }]);
  });

  it('a tool error completes the task (isError); a JSON-RPC error fails it with the error inline', async () => {
    const { server } = taskServer();
    const w = await connect(server);
    const t1 = await w.call('tools/call', { name: 'tool_error', arguments: {} });
    const d1 = await until(w, t1.taskId as string, terminal);
    assert.equal(d1.status, 'completed');
    assert.equal((d1.result as JSONObject).isError, true);
    const t2 = await w.call('tools/call', { name: 'rpc_error', arguments: {} });
    const d2 = await until(w, t2.taskId as string, terminal);
    assert.equal(d2.status, 'failed');
    assert.deepEqual(d2.error, { code: -32603, message: 'it broke' });
    assert.ok(!('result' in d2));
    assert.equal(d2.statusMessage, 'it broke');
  });

  it('tasks/cancel acknowledges with an empty result, settles the task as cancelled and aborts its work; again on a terminal task', async () => {
    const { server, events } = taskServer();
    const w = await connect(server);
    const created = await w.call('tools/call', { name: 'work', arguments: { ms: 10_000 } });
    const ack = await w.call('tasks/cancel', { taskId: created.taskId as string });
    assert.equal(ack.resultType, 'complete');
    for (const absent of ['taskId', 'status', 'result', 'error', 'inputRequests']) assert.ok(!(absent in ack), absent);
    const after = await w.call('tasks/get', { taskId: created.taskId as string });
    assert.equal(after.status, 'cancelled');
    for (const absent of ['result', 'error']) assert.ok(!(absent in after), absent);
    await sleep(20);
    assert.deepEqual(events, ['aborted']);
    const again = await w.call('tasks/cancel', { taskId: created.taskId as string });
    assert.deepEqual(
      Object.keys(again).filter((k) => k !== '_meta'),
      ['resultType'],
    );
    assert.equal((await w.call('tasks/get', { taskId: created.taskId as string })).status, 'cancelled');
  });

  it("tasks are bound to their owner: another owner's lookups find nothing", async () => {
    const { server } = taskServer({ ownerOf: (ctx) => ({ auth: (ctx as ServerRequestContext).clientInfo?.name }) });
    const w = await connect(server);
    const created = await w.call('tools/call', { name: 'work', arguments: { ms: 200 }, _meta: meta(WITH_TASKS, 'alice') });
    const bob = await w.request('tasks/get', { taskId: created.taskId as string, _meta: meta(WITH_TASKS, 'bob') });
    assert.equal((bob.error as JSONObject).code, -32602);
    const alice = await w.call('tasks/get', { taskId: created.taskId as string, _meta: meta(WITH_TASKS, 'alice') });
    assert.equal(alice.taskId, created.taskId);
  });
});

describe('tasks extension (2026-07-28): input while a task', () => {
  it("an elicitation becomes the task's inputRequests; tasks/update answers it and the work resumes", async () => {
    const { server } = taskServer();
    const w = await connect(server);
    const created = await w.call('tools/call', { name: 'confirm', arguments: {} });
    assert.equal(created.resultType, 'task');
    const waiting = await until(w, created.taskId as string, (t) => t.status === 'input_required');
    assert.deepEqual(checkTask(waiting), []);
    const requests = waiting.inputRequests as JSONObject;
    assert.deepEqual(Object.keys(requests), ['elicitation-1']);
    assert.deepEqual(requests['elicitation-1'], {
      method: 'elicitation/create',
      params: { mode: 'form', message: 'Sure?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } },
    });
    // a malformed answer is refused and changes nothing; unknown keys are ignored
    const bad = await w.request('tasks/update', {
      taskId: created.taskId as string,
      inputResponses: { 'elicitation-1': { action: 'accept', content: { ok: 'yes' } } },
    });
    assert.equal((bad.error as JSONObject).code, -32602);
    const ignored = await w.call('tasks/update', { taskId: created.taskId as string, inputResponses: { 'never-issued': { x: 1 } } });
    assert.equal(ignored.resultType, 'complete');
    assert.equal((await w.call('tasks/get', { taskId: created.taskId as string })).status, 'input_required');
    const ack = await w.call('tasks/update', {
      taskId: created.taskId as string,
      inputResponses: { 'elicitation-1': { action: 'accept', content: { ok: true } } },
    });
    assert.deepEqual(
      Object.keys(ack).filter((k) => k !== '_meta'),
      ['resultType'],
    );
    const done = await until(w, created.taskId as string, terminal);
    assert.equal(done.status, 'completed');
    assert.deepEqual((done.result as JSONObject).content, [{ type: 'text', text: 'answer: accept true' }]);
    assert.deepEqual(coreViolations(w), []);
  });

  it('answers may come one at a time: the task stays input_required with only the unanswered key', async () => {
    const { server } = taskServer();
    const w = await connect(server);
    const created = await w.call('tools/call', { name: 'two', arguments: {} });
    const id = created.taskId as string;
    const waiting = await until(w, id, (t) => t.status === 'input_required' && Object.keys(t.inputRequests as JSONObject).length === 2);
    assert.deepEqual(Object.keys(waiting.inputRequests as JSONObject).sort(), ['a', 'b']);
    await w.call('tasks/update', { taskId: id, inputResponses: { a: { action: 'accept', content: { name: 'one' } } } });
    const half = await w.call('tasks/get', { taskId: id });
    assert.equal(half.status, 'input_required');
    assert.deepEqual(Object.keys(half.inputRequests as JSONObject), ['b']);
    // an answered key answered again is ignored
    await w.call('tasks/update', { taskId: id, inputResponses: { a: { action: 'accept', content: { name: 'again' } } } });
    await w.call('tasks/update', { taskId: id, inputResponses: { b: { action: 'accept', content: { name: 'two' } } } });
    const done = await until(w, id, terminal);
    assert.deepEqual((done.result as JSONObject).content, [{ type: 'text', text: 'one+two' }]);
  });

  it('multi round-trip input first, then a task: no taskId in the round, no requestState in the task, the answer reaches the result', async () => {
    const { server } = taskServer();
    const w = await connect(server);
    const round = await w.call('tools/call', { name: 'mrtr_then_task', arguments: {} });
    assert.equal(round.resultType, 'input_required');
    assert.ok(!('taskId' in round));
    assert.deepEqual(Object.keys(round.inputRequests as JSONObject), ['user_name']);
    const created = await w.call('tools/call', {
      name: 'mrtr_then_task',
      arguments: {},
      inputResponses: { user_name: { action: 'accept', content: { name: 'Alice' } } },
      requestState: round.requestState as string,
    });
    assert.equal(created.resultType, 'task');
    assert.ok(!('requestState' in created));
    assert.ok(!('inputRequests' in created));
    const done = await until(w, created.taskId as string, terminal);
    assert.deepEqual((done.result as JSONObject).content, [{ type: 'text', text: 'Hello, Alice (task true)' }]);
    assert.deepEqual(coreViolations(w), []);
  });

  it('closing the TaskServer fails the tasks still running and aborts their work', async () => {
    const { server, tasks, events } = taskServer();
    const w = await connect(server);
    const created = await w.call('tools/call', { name: 'work', arguments: { ms: 10_000 } });
    assert.equal(tasks.stateless.running, 1);
    await tasks.close();
    const record = await tasks.store.get(created.taskId as string);
    assert.equal(record?.status, 'failed');
    await sleep(10);
    assert.deepEqual(events, ['aborted']);
    assert.equal(tasks.stateless.running, 0);
  });
});

describe('tasks extension (2026-07-28) over Streamable HTTP', () => {
  it('tasks/get needs Mcp-Name = taskId (missing or different: 400 with -32020)', async () => {
    const { server } = taskServer();
    const handler = makeHandler({ server });
    const headers = (method: string, name?: string): Record<string, string> =>
      name === undefined ? { 'mcp-method': method } : { 'mcp-method': method, 'mcp-name': name };
    const res = await post(handler, rpc(1, 'tools/call', { name: 'work', arguments: { ms: 200 }, _meta: meta() }), {
      protocolVersion: V,
      headers: headers('tools/call', 'work'),
    });
    const created = ((await res.json()) as JSONObject).result as JSONObject;
    assert.equal(created.resultType, 'task');
    const taskId = created.taskId as string;
    const ok = await post(handler, rpc(2, 'tasks/get', { taskId, _meta: meta() }), { protocolVersion: V, headers: headers('tasks/get', taskId) });
    assert.equal(ok.status, 200);
    assert.equal((((await ok.json()) as JSONObject).result as JSONObject).taskId, taskId);
    for (const name of [undefined, 'another-task']) {
      const bad = await post(handler, rpc(3, 'tasks/get', { taskId, _meta: meta() }), { protocolVersion: V, headers: headers('tasks/get', name) });
      assert.equal(bad.status, 400);
      assert.equal((((await bad.json()) as JSONObject).error as JSONObject).code, -32020);
    }
    await handler.close();
  });
});

describe('tasks extension (2026-07-28): the mcpkit client waits for tasks', () => {
  async function client(server: McpServer, options: ClientOptions = {}): Promise<{ client: Client; recorder: RecordingTransport }> {
    const [a, b] = InMemoryTransport.createPair();
    await server.connect(a);
    const c = new Client(
      { name: 'cli', version: '1.0.0' },
      {
        protocolVersions: ALL_REVISIONS,
        stateless: { tasks: true },
        elicitation: {
          form: (p): ElicitResult => ({ action: 'accept', content: p.message === 'Sure?' ? { ok: true } : { name: p.message === 'A?' ? 'x' : 'y' } }),
        },
        ...options,
      },
    );
    const recorder = recordTransport(b, { side: 'client', revision: () => c.protocolVersion });
    await c.connect(recorder);
    return { client: c, recorder };
  }
  const textOf = (r: { content: unknown }) => ((r.content as JSONObject[])[0] as { text: string }).text;

  it('declares the extension, polls a task to its result and answers its input requests through its handlers', async () => {
    const { server } = taskServer();
    const { client: c, recorder } = await client(server);
    assert.equal(c.protocolVersion, V);
    assert.equal(textOf(await c.callTool({ name: 'work', arguments: { ms: 80 } })), 'slept 80');
    assert.equal(textOf(await c.callTool({ name: 'confirm', arguments: {} })), 'answer: accept true');
    assert.equal(textOf(await c.callTool({ name: 'two', arguments: {} })), 'x+y');
    assert.equal(textOf(await c.callTool({ name: 'mrtr_then_task', arguments: {} })), 'Hello, y (task true)');
    const sentMessages = recorder.transcript.filter((e) => e.dir === 'send').map((e) => e.message as JSONObject);
    const sent = sentMessages.map((m) => m.method);
    assert.ok(sent.includes('tasks/get') && sent.includes('tasks/update'));
    const tool = sentMessages.find((m) => m.method === 'tools/call')!;
    const caps = ((tool.params as JSONObject)._meta as JSONObject)['io.modelcontextprotocol/clientCapabilities'] as JSONObject;
    assert.deepEqual((caps.extensions as JSONObject)[TASKS_EXTENSION_ID], {});
    assert.deepEqual(
      recorder.violations().filter((v) => !/tasks\//.test(v)),
      [],
    );
    await c.close();
  });

  it('a failed task rejects with its JSON-RPC error; aborting the call cancels the task', async () => {
    const { server, tasks, events } = taskServer();
    const { client: c } = await client(server);
    await assert.rejects(
      c.callTool({ name: 'rpc_error', arguments: {} }),
      (e: unknown) => e instanceof McpError && e.code === -32603 && e.message.includes('it broke'),
    );
    const controller = new AbortController();
    const call = c.callTool({ name: 'work', arguments: { ms: 10_000 } }, { signal: controller.signal });
    await sleep(80);
    controller.abort(new Error('enough'));
    await assert.rejects(call);
    await sleep(50);
    assert.deepEqual(events, ['aborted']);
    assert.equal(tasks.stateless.running, 0);
    await c.close();
  });

  it('timeoutMs bounds the whole call, the task included: it rejects with the timeout at the deadline and cancels the task', async () => {
    const { server, tasks, events } = taskServer({ pollIntervalMs: 100 });
    const { client: c, recorder } = await client(server);
    const t0 = Date.now();
    // each tasks/get is answered at once, so only a bound on the whole call can end this wait
    const outcome = await c.callTool({ name: 'work', arguments: { ms: 5_000 } }, { timeoutMs: 500 }).then(
      (r) => `resolved after ${Date.now() - t0} ms with ${textOf(r)}`,
      (e: unknown) => e,
    );
    const elapsed = Date.now() - t0;
    assert.ok(outcome instanceof LocalError && outcome.code === 'timeout', `expected the timeout, got ${String(outcome)}`);
    assert.match(outcome.message, /timed out after 500 ms/);
    assert.ok(elapsed >= 450 && elapsed < 1_500, `rejected after ${elapsed} ms`);
    for (let i = 0; i < 100 && events.length === 0; i++) await sleep(10);
    assert.deepEqual(events, ['aborted'], 'the task was cancelled on the server');
    assert.ok(
      recorder.transcript.some((e) => e.dir === 'send' && (e.message as JSONObject).method === 'tasks/cancel'),
      'tasks/cancel was sent',
    );
    assert.equal(tasks.stateless.running, 0);
    await c.close();
  });

  it('without the option the client does not declare the extension, and the server answers itself', async () => {
    const { server } = taskServer();
    const { client: c } = await client(server, { stateless: {} });
    assert.equal(textOf(await c.callTool({ name: 'work', arguments: { ms: 80 } })), 'slept 80');
    await assert.rejects(c.callTool({ name: 'must_task', arguments: {} }), (e: unknown) => e instanceof McpError && e.code === -32021);
    await c.close();
  });
});
