/**
 * The 2026-07-28 tasks extension (SEP-2663, `io.modelcontextprotocol/tasks`) through an
 * McpProxy: a real mcpkit upstream with a TaskServer, the proxy in front of it, and mcpkit
 * 2026-07-28 clients as callers (in memory). The conformance suite runs the same through
 * `mcpkit proxy` (scripts/conformance.mjs --via proxy).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SUITE_TIMEOUT_MS } from '../../test/helpers/bounds.js';
import { inMemory } from '../../test/helpers/memory-upstream.js';
import { waitFor } from '../../test/helpers/wait.js';
import { ALL_REVISIONS, Client } from '../client/index.js';
import { McpError } from '../jsonrpc/errors.js';
import type { JSONObject } from '../jsonrpc/types.js';
import type { ServerRequestContext } from '../server/connection.js';
import { McpServer } from '../server/server.js';
import { TaskServer, tasksExtension } from '../tasks/index.js';
import { type RecordingTransport, recordTransport } from '../testing/recording-transport.js';
import { InMemoryTransport } from '../transport/memory.js';
import type { ElicitResult } from '../types.js';
import { McpProxy } from './proxy.js';
import { TaskOwners } from './proxy-tasks.js';

const T = { timeout: 20_000 };
const EXT = 'io.modelcontextprotocol/tasks';

function text(result: unknown): string {
  const content = (result as { content?: Array<{ text?: string }> }).content ?? [];
  return content.map((c) => c.text ?? '').join('\n');
}

const askName = { type: 'object' as const, properties: { name: { type: 'string' as const } }, required: ['name'] };

describe('McpProxy passes the 2026-07-28 tasks extension through', { timeout: SUITE_TIMEOUT_MS }, () => {
  let proxy: McpProxy;
  let blockStarted = false;
  let blockAborted = false;
  before(async () => {
    const upstream = new McpServer({ name: 'upstream', version: '1' });
    new TaskServer(upstream, { pollIntervalMs: 20 });
    upstream.registerTool(
      'greet_later',
      { description: 'a task that asks for a name, then greets', execution: { taskSupport: 'required' } },
      async (_args, ctx) => {
        await new Promise((resolve) => setTimeout(resolve, 20)); // a task by now: the input is the task's
        const r = await ctx.elicitForm({ message: 'Your name?', requestedSchema: askName });
        return `Hello, ${r.action === 'accept' ? String(r.content?.name) : 'stranger'}!`;
      },
    );
    upstream.registerTool(
      'ask_first',
      { description: 'asks at once (multi round-trip), then finishes as a task', execution: { taskSupport: 'required' } },
      async (_args, ctx) => {
        const r = await ctx.elicitForm({ message: 'Your name?', requestedSchema: askName }, { inputKey: 'user_name' });
        await new Promise((resolve) => setTimeout(resolve, 50));
        return `Hi, ${r.action === 'accept' ? String(r.content?.name) : 'stranger'}`;
      },
    );
    upstream.registerTool('block', { description: 'runs until cancelled', execution: { taskSupport: 'required' } }, async (_args, ctx) => {
      blockStarted = true;
      await new Promise((_resolve, reject) =>
        ctx.signal.addEventListener('abort', () => {
          blockAborted = true;
          reject(ctx.signal.reason);
        }),
      );
      return 'never';
    });
    proxy = await McpProxy.open({ upstream: inMemory(upstream) });
    assert.equal(proxy.upstream?.era, 'stateless');
  });
  after(async () => {
    await proxy?.close();
  });

  async function caller(tasks: boolean): Promise<{ client: Client; recorder: RecordingTransport }> {
    const [a, b] = InMemoryTransport.createPair();
    await proxy.server.connect(a);
    const client = new Client(
      { name: 'caller', version: '1' },
      {
        protocolVersions: ALL_REVISIONS,
        stateless: { tasks },
        elicitation: { form: (): ElicitResult => ({ action: 'accept', content: { name: 'Ada' } }) },
      },
    );
    client.extend(tasksExtension());
    const recorder = recordTransport(b, { side: 'client', revision: () => client.protocolVersion });
    await client.connect(recorder);
    return { client, recorder };
  }

  const received = (r: RecordingTransport) => r.transcript.filter((e) => e.dir === 'recv').map((e) => e.message as JSONObject);
  const sent = (r: RecordingTransport) => r.transcript.filter((e) => e.dir === 'send').map((e) => e.message as JSONObject);

  it('declares the extension to its callers; a call becomes a task the caller polls and answers (tasks/get, tasks/update)', T, async () => {
    const { client, recorder } = await caller(true);
    try {
      assert.equal(client.protocolVersion, '2026-07-28');
      assert.deepEqual((client.serverCapabilities as { extensions?: JSONObject }).extensions?.[EXT], {});
      assert.equal(text(await client.callTool({ name: 'greet_later', arguments: {} })), 'Hello, Ada!');
      const handle = received(recorder).find((m) => (m.result as JSONObject | undefined)?.resultType === 'task');
      assert.ok(handle, 'the caller got the upstream task handle (CreateTaskResult)');
      const taskId = (handle.result as JSONObject).taskId;
      const methods = sent(recorder).map((m) => m.method);
      assert.ok(methods.includes('tasks/get') && methods.includes('tasks/update'), `the caller polled and answered (sent ${methods.join(', ')})`);
      const update = sent(recorder).find((m) => m.method === 'tasks/update')!;
      assert.equal((update.params as JSONObject).taskId, taskId);
      assert.deepEqual(Object.values((update.params as JSONObject).inputResponses as JSONObject), [{ action: 'accept', content: { name: 'Ada' } }]);
    } finally {
      await client.close();
    }
  });

  it('input asked before the task exists (multi round-trip) is answered by the caller, then the task runs', T, async () => {
    const { client, recorder } = await caller(true);
    try {
      assert.equal(text(await client.callTool({ name: 'ask_first', arguments: {} })), 'Hi, Ada');
      const types = received(recorder).map((m) => (m.result as JSONObject | undefined)?.resultType);
      assert.ok(types.includes('input_required') && types.includes('task'), `input round, then a task (got ${types.join(', ')})`);
    } finally {
      await client.close();
    }
  });

  it("aborting the call sends tasks/cancel through the proxy: the upstream task's work stops", T, async () => {
    const { client, recorder } = await caller(true);
    try {
      const controller = new AbortController();
      const call = client.callTool({ name: 'block', arguments: {} }, { signal: controller.signal });
      await waitFor(() => blockStarted && received(recorder).some((m) => (m.result as JSONObject | undefined)?.resultType === 'task'), 'the task');
      controller.abort(new Error('caller gave up'));
      await assert.rejects(call);
      await waitFor(() => blockAborted, 'the upstream task cancelled');
      const cancel = sent(recorder).find((m) => m.method === 'tasks/cancel');
      assert.ok(cancel, 'tasks/cancel sent');
      const taskId = (cancel.params as JSONObject).taskId as string;
      const task = await client.request<JSONObject>('tasks/get', { taskId }, { returnTasks: true });
      assert.equal(task.status, 'cancelled');
    } finally {
      await client.close();
    }
  });

  it('a caller without the extension: tasks/* answer -32021, a task-only tool is refused -32021; unknown task ids -32602', T, async () => {
    const { client } = await caller(false);
    const { client: other } = await caller(true);
    try {
      const code = (p: Promise<unknown>) =>
        p.then(
          () => 'resolved',
          (e: unknown) => (e instanceof McpError ? e.code : String(e)),
        );
      assert.equal(await code(client.request('tasks/get', { taskId: 'x' })), -32021);
      assert.equal(await code(client.callTool({ name: 'block', arguments: {} })), -32021);
      assert.equal(await code(other.request('tasks/get', { taskId: 'not-a-task' })), -32602);
      assert.equal(await code(other.request('tasks/cancel', { taskId: 'not-a-task' })), -32602);
    } finally {
      await client.close();
      await other.close();
    }
  });
});

describe('TaskOwners: a task created through the proxy is reached only by its creator principal', () => {
  const ctx = (authInfo: unknown) => ({ authInfo }) as unknown as ServerRequestContext;

  it('the same principal reaches it; another principal, or an unknown id, gets -32602', async () => {
    const owners = new TaskOwners();
    await owners.created('t1', ctx({ token: 'alice-token', clientId: 'app', subject: 'alice' }));
    await owners.check('t1', ctx({ token: 'alice-token-2', clientId: 'app', subject: 'alice' }));
    await assert.rejects(owners.check('t1', ctx({ token: 'bob-token', clientId: 'app', subject: 'bob' })), (e: unknown) => (e as McpError).code === -32602);
    await assert.rejects(owners.check('t1', ctx(undefined)), (e: unknown) => (e as McpError).code === -32602);
    await assert.rejects(owners.check('t2', ctx({ clientId: 'app', subject: 'alice' })), (e: unknown) => (e as McpError).code === -32602);
  });

  it('an unauthenticated task is a bearer token for unauthenticated callers; the bound forgets the oldest', async () => {
    const owners = new TaskOwners(2);
    await owners.created('a', ctx(undefined));
    await owners.created('b', ctx(undefined));
    await owners.check('a', ctx(undefined));
    await owners.created('c', ctx(undefined));
    await assert.rejects(owners.check('a', ctx(undefined)));
    await owners.check('b', ctx(undefined));
    await owners.check('c', ctx(undefined));
  });
});
