/**
 * Tasks (2025-11-25 form) through a gateway with two upstreams that offer them — mcpkit's
 * demo (`mcpkit demo`, stdio: `long_running_job`, taskSupport optional) and the official
 * server-everything (stdio: `simulate-research-query`, taskSupport required) — and one that
 * does not (server-memory). Callers: the official SDK v1 client (2025-11-25) over HTTP, with
 * bearer tokens (alice, bob). Shows: the capability, gateway task ids (routed, namespaced,
 * not forgeable: an id edited to another upstream, another caller's id, or one of a tool the
 * policy now hides gets the unknown-task -32602), tasks/get, tasks/result, tasks/cancel,
 * status notifications with the gateway id, tasks/list merged over both upstreams with a
 * cursor that refuses tampering, -32601 for a task of a tool of an upstream without tasks.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  CancelTaskResultSchema,
  CreateTaskResultSchema,
  GetTaskResultSchema,
  ListTasksResultSchema,
  TaskStatusNotificationSchema,
  McpError as V1Error,
} from '@modelcontextprotocol/sdk/types.js';
import { SUITE_TIMEOUT_MS } from '../../test/helpers/bounds.js';
import { BIN } from '../../test/helpers/cli/cli-run.js';
import { replyMessage } from '../../test/helpers/http/server-harness.js';
import { REPO_ROOT } from '../../test/helpers/repo.js';
import { waitFor } from '../../test/helpers/wait.js';
import { type NodeServerHandle, serveNode } from '../http/node.js';
import type { HttpAuthorizer } from '../http/server/types.js';
import { McpServer } from '../server/server.js';
import { StdioClientTransport } from '../stdio/index.js';
import { TaskServer } from '../tasks/index.js';
import { InMemoryTransport } from '../transport/memory.js';
import { createGateway, type Gateway } from './gateway.js';

const pkg = (name: string) => join(REPO_ROOT, 'node_modules', '@modelcontextprotocol', name, 'dist', 'index.js');
const stdio = (args: string[]) => () => new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' });
const T = { timeout: 40_000 };

const TOKENS: Record<string, string> = { 'alice-token-0123456789': 'alice', 'bob-token-0123456789ab': 'bob' };
const authorize: HttpAuthorizer = {
  async authenticate(req) {
    const match = /^Bearer (\S+)$/.exec(req.headers('authorization') ?? '');
    const who = match === null ? undefined : TOKENS[match[1]!];
    if (who === undefined) return { reply: { status: 401, headers: { 'www-authenticate': 'Bearer' }, body: 'unauthorized' } };
    return { authInfo: { subject: who, clientId: who, scopes: [] } };
  },
  sessionOwner: (info) => (info as { subject: string }).subject,
};

const b64 = (text: string) => Buffer.from(text).toString('base64url');

describe('tasks through a gateway (2025-11-25 callers, two upstreams with tasks)', { timeout: SUITE_TIMEOUT_MS * 2 }, () => {
  let gateway: Gateway;
  let http: NodeServerHandle;
  let hideJob = false;
  const clients: V1Client[] = [];

  before(async () => {
    gateway = createGateway({
      upstreams: {
        // the demo serves both eras: its tasks pass through in the 2025-11-25 form
        demo: { transport: stdio([BIN, 'demo']), protocolVersions: ['2025-11-25'] },
        everything: { transport: stdio([pkg('server-everything'), 'stdio']) },
        memory: { transport: stdio([pkg('server-memory')]) },
      },
      policy: () => (hideJob ? { deny: ['demo_long_running_job'] } : undefined),
      http: { authorize },
      healthCheck: false,
      onError: () => {},
    });
    await gateway.whenReady(30_000);
    http = await serveNode(gateway.handler, { port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    for (const client of clients) await client.close().catch(() => {});
    await http?.close();
    await gateway?.close();
  });

  async function caller(token: string): Promise<V1Client> {
    const client = new V1Client({ name: 'tasks-caller', version: '1.0.0' });
    await client.connect(new V1Http(new URL(`http://127.0.0.1:${http.port}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    clients.push(client);
    return client;
  }

  const unknownTask = (error: unknown) => error instanceof V1Error && error.code === -32602 && /Task not found/.test(error.message);

  async function startTask(client: V1Client, name: string, args: Record<string, unknown>): Promise<string> {
    const created = await client.request({ method: 'tools/call', params: { name, arguments: args, task: { ttl: 60_000 } } }, CreateTaskResultSchema);
    return created.task.taskId;
  }

  it('declares tasks; a task of each upstream gets a gateway id and its result comes back through tasks/result', T, async () => {
    const alice = await caller('alice-token-0123456789');
    const caps = alice.getServerCapabilities() as { tasks?: { list?: unknown; cancel?: unknown; requests?: { tools?: { call?: unknown } } } };
    assert.ok(caps.tasks?.list && caps.tasks.cancel && caps.tasks.requests?.tools?.call, JSON.stringify(caps));
    const statuses: Array<{ taskId: string; status: string }> = [];
    alice.setNotificationHandler(TaskStatusNotificationSchema, (n) => void statuses.push(n.params));

    const job = await startTask(alice, 'demo_long_running_job', { ms: 300, steps: 3 });
    const [up, tool] = job.split('.');
    assert.equal(up, b64('demo'));
    assert.equal(tool, b64('demo_long_running_job'));
    const result = await alice.request({ method: 'tasks/result', params: { taskId: job } }, CallToolResultSchema, { timeout: 30_000 });
    assert.match(JSON.stringify(result.content), /finished 3 steps/);
    const related = (result._meta as Record<string, { taskId?: string }> | undefined)?.['io.modelcontextprotocol/related-task'];
    if (related !== undefined) assert.equal(related.taskId, job);
    const got = await alice.request({ method: 'tasks/get', params: { taskId: job } }, GetTaskResultSchema);
    assert.equal(got.taskId, job);
    assert.equal(got.status, 'completed');
    // the demo's status notifications reach the caller with the gateway id
    await waitFor(() => statuses.some((s) => s.taskId === job && s.status === 'completed'), 'the completed status notification', 10_000);
    assert.ok(statuses.every((s) => s.taskId === job));

    const research = await startTask(alice, 'everything_simulate-research-query', { topic: 'gateways' });
    assert.equal(research.split('.')[0], b64('everything'));
    const report = await alice.request({ method: 'tasks/result', params: { taskId: research } }, CallToolResultSchema, { timeout: 30_000 });
    assert.match(JSON.stringify(report.content), /gateways/);
  });

  it('tasks/list merges both upstreams (the caller\u2019s own tasks only); its cursor refuses tampering', T, async () => {
    const alice = await caller('alice-token-0123456789');
    const bob = await caller('bob-token-0123456789ab');
    const mine = [
      await startTask(alice, 'demo_long_running_job', { ms: 100, steps: 1 }),
      await startTask(alice, 'everything_simulate-research-query', { topic: 'lists' }),
    ];
    const theirs = await startTask(bob, 'demo_long_running_job', { ms: 100, steps: 1 });
    let cursors = 0;
    const listAll = async (client: V1Client): Promise<string[]> => {
      const ids: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 50; page++) {
        const result = await client.request({ method: 'tasks/list', params: cursor === undefined ? {} : { cursor } }, ListTasksResultSchema);
        ids.push(...result.tasks.map((t) => t.taskId));
        cursor = result.nextCursor;
        if (cursor === undefined) return ids;
        cursors++;
        // a cursor edited by one character, or replayed by another caller, is refused
        const edited = cursor.slice(0, -1) + (cursor.endsWith('A') ? 'B' : 'A');
        await assert.rejects(
          client.request({ method: 'tasks/list', params: { cursor: edited } }, ListTasksResultSchema),
          (e) => e instanceof V1Error && e.code === -32602,
        );
        await assert.rejects(
          (client === alice ? bob : alice).request({ method: 'tasks/list', params: { cursor } }, ListTasksResultSchema),
          (e) => e instanceof V1Error && e.code === -32602,
        );
      }
      throw new Error('tasks/list never ended');
    };
    const aliceIds = await listAll(alice);
    assert.ok(cursors > 0, 'the merged list took more than one page (one upstream after the other)');
    for (const id of mine) assert.ok(aliceIds.includes(id), `alice's ${id} listed`);
    assert.ok(!aliceIds.includes(theirs), "bob's task is not in alice's list");
    const bobIds = await listAll(bob);
    assert.ok(bobIds.includes(theirs));
    assert.ok(!mine.some((id) => bobIds.includes(id)));
    const forged = b64('everything') + '.' + b64('x') + '.' + b64('y') + '.' + 'A'.repeat(22);
    await assert.rejects(
      alice.request({ method: 'tasks/list', params: { cursor: forged } }, ListTasksResultSchema),
      (e) => e instanceof V1Error && e.code === -32602,
    );
  });

  it('an id edited to another upstream, another caller\u2019s id, a made-up id: each is an unknown task (-32602)', T, async () => {
    const alice = await caller('alice-token-0123456789');
    const bob = await caller('bob-token-0123456789ab');
    const job = await startTask(alice, 'demo_long_running_job', { ms: 100, steps: 1 });
    const parts = job.split('.');
    const elsewhere = [b64('everything'), parts[1], parts[2], parts[3]].join('.');
    for (const [client, taskId] of [
      [alice, elsewhere],
      [bob, job],
      [alice, 'nope'],
      [alice, `${b64('memory')}.${b64('memory_read_graph')}.${b64('1')}.${'A'.repeat(22)}`],
      [alice, 'x'.repeat(10_000)],
    ] as const) {
      for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel'] as const) {
        const schema = method === 'tasks/get' ? GetTaskResultSchema : method === 'tasks/cancel' ? CancelTaskResultSchema : CallToolResultSchema;
        await assert.rejects(client.request({ method, params: { taskId } }, schema), unknownTask, `${method} ${taskId.slice(0, 40)}`);
      }
    }
    // alice's own id still works
    assert.equal((await alice.request({ method: 'tasks/get', params: { taskId: job } }, GetTaskResultSchema)).taskId, job);
  });

  it('tasks/cancel reaches the upstream task; a task of a tool the policy now hides is unknown', T, async () => {
    const alice = await caller('alice-token-0123456789');
    const job = await startTask(alice, 'demo_long_running_job', { ms: 20_000, steps: 20 });
    const cancelled = await alice.request({ method: 'tasks/cancel', params: { taskId: job } }, CancelTaskResultSchema);
    assert.equal(cancelled.taskId, job);
    assert.equal(cancelled.status, 'cancelled');
    assert.equal((await alice.request({ method: 'tasks/get', params: { taskId: job } }, GetTaskResultSchema)).status, 'cancelled');
    hideJob = true;
    try {
      await assert.rejects(alice.request({ method: 'tasks/get', params: { taskId: job } }, GetTaskResultSchema), unknownTask);
    } finally {
      hideJob = false;
    }
  });

  it('a task of a tool of an upstream without tasks is refused with -32601', T, async () => {
    const alice = await caller('alice-token-0123456789');
    await assert.rejects(
      alice.request({ method: 'tools/call', params: { name: 'memory_read_graph', arguments: {}, task: {} } }, CreateTaskResultSchema),
      (e) => e instanceof V1Error && e.code === -32601 && /memory_read_graph.*cannot run as a task/.test(e.message),
    );
    // called without a task it works
    const plain = await alice.callTool({ name: 'memory_read_graph', arguments: {} });
    assert.match(JSON.stringify(plain.content), /entities/);
  });

  it('a 2026-07-28 caller that does not declare the tasks extension sees no tasks and its calls are answered in line', T, async () => {
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
    const post = async (id: number, method: string, params: Record<string, unknown>, name?: string) => {
      const response = await fetch(`http://127.0.0.1:${http.port}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: 'Bearer alice-token-0123456789',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': method,
          ...(name === undefined ? {} : { 'mcp-name': name }),
        },
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } }),
      });
      return (await replyMessage(response)) as { result?: Record<string, unknown>; error?: { code: number } };
    };
    const discovered = await post(1, 'server/discover', {});
    const caps = discovered.result?.capabilities as { tasks?: unknown; extensions?: Record<string, unknown> };
    assert.equal(caps.tasks, undefined);
    assert.equal(caps.extensions?.['io.modelcontextprotocol/tasks'], undefined);
    const called = await post(2, 'tools/call', { name: 'demo_long_running_job', arguments: { ms: 50, steps: 1 } }, 'demo_long_running_job');
    assert.match(JSON.stringify(called.result?.content), /finished 1 steps/);
    assert.equal((await post(3, 'tasks/get', { taskId: 'x' }, 'x')).error?.code, -32601);
  });
});

it('tasks/result keeps the visibility policy: output fields it drops from a tool stay dropped', { timeout: 30_000 }, async () => {
  // an mcpkit upstream with tasks, in process (one server per connection), spoken to in the 2025-11-25 form
  const upstream = (): InMemoryTransport => {
    const server = new McpServer({ name: 'secretive', version: '1.0.0' });
    new TaskServer(server);
    server.registerTool(
      'report',
      {
        description: 'A report with a secret field',
        outputSchema: { type: 'object', properties: { summary: { type: 'string' }, secret: { type: 'string' } } },
        execution: { taskSupport: 'optional' },
      },
      () => ({
        content: [{ type: 'text', text: JSON.stringify({ summary: 'fine', secret: 's3cr3t' }) }],
        structuredContent: { summary: 'fine', secret: 's3cr3t' },
      }),
    );
    const [near, far] = InMemoryTransport.createPair();
    void server.connect(far);
    return near;
  };
  const gateway = createGateway({
    upstreams: { up: { transport: upstream, protocolVersions: ['2025-11-25'] }, other: { transport: stdio([pkg('server-memory')]) } },
    policy: { tools: { up_report: { dropOutput: ['secret'] } } },
    healthCheck: false,
    onError: () => {},
  });
  const http = await serveNode(gateway.handler, { port: 0, host: '127.0.0.1' });
  const client = new V1Client({ name: 'tasks-caller', version: '1.0.0' });
  try {
    await gateway.whenReady(20_000);
    await client.connect(new V1Http(new URL(`http://127.0.0.1:${http.port}/mcp`)));
    const direct = await client.callTool({ name: 'up_report', arguments: {} });
    assert.deepEqual(direct.structuredContent, { summary: 'fine' });
    const created = await client.request({ method: 'tools/call', params: { name: 'up_report', arguments: {}, task: {} } }, CreateTaskResultSchema);
    const result = await client.request({ method: 'tasks/result', params: { taskId: created.task.taskId } }, CallToolResultSchema);
    assert.deepEqual(result.structuredContent, { summary: 'fine' });
    assert.doesNotMatch(JSON.stringify(result), /s3cr3t/);
  } finally {
    await client.close().catch(() => {});
    await http.close();
    await gateway.close();
  }
});
