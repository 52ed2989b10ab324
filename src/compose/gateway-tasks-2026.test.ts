/**
 * The 2026-07-28 tasks extension (SEP-2663, `io.modelcontextprotocol/tasks`) through a
 * gateway with two upstreams that offer it (mcpkit servers with a TaskServer, in memory),
 * callers: mcpkit 2026-07-28 clients over HTTP with bearer tokens (alice, bob). Shows: the
 * gateway declares the extension; a call becomes a task whose id is a gateway id naming its
 * upstream; tasks/get and tasks/update reach the right upstream with its own id; an id
 * forged, edited to the other upstream, or another principal's answers -32602; a request
 * without the extension -32021. The conformance suite runs the same through
 * `mcpkit gateway` (scripts/conformance.mjs --via gateway).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SUITE_TIMEOUT_MS } from '../../test/helpers/bounds.js';
import { ALL_REVISIONS, Client } from '../client/index.js';
import { StreamableHttpClientTransport } from '../http/index.js';
import { type NodeServerHandle, serveNode } from '../http/node.js';
import type { HttpAuthorizer } from '../http/server/types.js';
import { McpError } from '../jsonrpc/errors.js';
import type { JSONObject } from '../jsonrpc/types.js';
import { McpServer } from '../server/server.js';
import { TaskServer, tasksExtension } from '../tasks/index.js';
import { type RecordingTransport, recordTransport } from '../testing/recording-transport.js';
import { InMemoryTransport } from '../transport/memory.js';
import type { ElicitResult } from '../types.js';
import { createGateway, type Gateway } from './gateway.js';

const T = { timeout: 30_000 };
const EXT = 'io.modelcontextprotocol/tasks';
const TOKENS: Record<string, string> = { 'alice-token-0123456789': 'alice', 'bob-token-0123456789ab': 'bob' };
const authorize: HttpAuthorizer = {
  async authenticate(req) {
    const match = /^Bearer (\S+)$/.exec(req.headers('authorization') ?? '');
    const who = match === null ? undefined : TOKENS[match[1]!];
    if (who === undefined) return { reply: { status: 401, headers: { 'www-authenticate': 'Bearer' }, body: 'unauthorized' } };
    return { authInfo: { subject: who, clientId: who, scopes: [] } };
  },
};
const askName = { type: 'object' as const, properties: { name: { type: 'string' as const } }, required: ['name'] };
const b64 = (text: string) => Buffer.from(text).toString('base64url');

function text(result: unknown): string {
  const content = (result as { content?: Array<{ text?: string }> }).content ?? [];
  return content.map((c) => c.text ?? '').join('\n');
}

/** An upstream offering the extension: `greet` (a task that asks for a name) and `block` (runs until cancelled). */
function upstream(label: string, seen: { ids: string[]; cancelled: number }): () => InMemoryTransport {
  const server = new McpServer({ name: label, version: '1' });
  new TaskServer(server, { pollIntervalMs: 20 });
  server.registerTool('greet', { description: 'greets by name, as a task', execution: { taskSupport: 'required' } }, async (_args, ctx) => {
    await new Promise((resolve) => setTimeout(resolve, 20));
    const r = await ctx.elicitForm({ message: 'Your name?', requestedSchema: askName });
    return `${label} greets ${r.action === 'accept' ? String(r.content?.name) : 'nobody'}`;
  });
  server.registerTool('block', { description: 'runs until cancelled', execution: { taskSupport: 'required' } }, async (_args, ctx) => {
    await new Promise((_resolve, reject) =>
      ctx.signal.addEventListener('abort', () => {
        seen.cancelled++;
        reject(ctx.signal.reason);
      }),
    );
    return 'never';
  });
  server.use({
    name: 'seen',
    intercept: (call, next) => {
      if (call.method.startsWith('tasks/') && typeof call.params?.taskId === 'string') seen.ids.push(call.params.taskId);
      return next();
    },
  });
  return () => {
    const [mine, theirs] = InMemoryTransport.createPair();
    void server.connect(theirs);
    return mine;
  };
}

describe('the 2026-07-28 tasks extension through a gateway (two upstreams)', { timeout: SUITE_TIMEOUT_MS }, () => {
  let gateway: Gateway;
  let http: NodeServerHandle;
  const seenA = { ids: [] as string[], cancelled: 0 };
  const seenB = { ids: [] as string[], cancelled: 0 };
  const clients: Client[] = [];

  before(async () => {
    gateway = createGateway({
      upstreams: { a: { transport: upstream('A', seenA) }, b: { transport: upstream('B', seenB) } },
      http: { authorize },
      healthCheck: false,
      onError: () => {},
    });
    await gateway.whenReady(20_000);
    http = await serveNode(gateway.handler, { port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    for (const client of clients) await client.close().catch(() => {});
    await http?.close();
    await gateway?.close();
  });

  async function caller(token: string, tasks: boolean): Promise<{ client: Client; recorder: RecordingTransport }> {
    const client = new Client(
      { name: 'caller', version: '1' },
      {
        protocolVersions: ALL_REVISIONS,
        stateless: { tasks },
        elicitation: { form: (): ElicitResult => ({ action: 'accept', content: { name: 'Ada' } }) },
      },
    );
    client.extend(tasksExtension());
    const transport = new StreamableHttpClientTransport({ url: http.url, headers: { authorization: `Bearer ${token}` } });
    const recorder = recordTransport(transport, { side: 'client', revision: () => client.protocolVersion });
    await client.connect(recorder);
    clients.push(client);
    return { client, recorder };
  }

  const handles = (r: RecordingTransport) =>
    r.transcript
      .filter((e) => e.dir === 'recv')
      .map((e) => (e.message as JSONObject).result as JSONObject | undefined)
      .filter((result) => result?.resultType === 'task')
      .map((result) => result!.taskId as string);
  const code = (p: Promise<unknown>) =>
    p.then(
      () => 'resolved',
      (e: unknown) => (e instanceof McpError ? e.code : String(e)),
    );

  it('declares the extension; each call becomes a task with a gateway id, polled and answered on its own upstream', T, async () => {
    const { client, recorder } = await caller('alice-token-0123456789', true);
    assert.equal(client.protocolVersion, '2026-07-28');
    assert.deepEqual((client.serverCapabilities as { extensions?: JSONObject }).extensions?.[EXT], {});
    assert.equal(text(await client.callTool({ name: 'a_greet', arguments: {} })), 'A greets Ada');
    assert.equal(text(await client.callTool({ name: 'b_greet', arguments: {} })), 'B greets Ada');
    const [idA, idB] = handles(recorder);
    assert.ok(idA !== undefined && idB !== undefined, 'two task handles');
    assert.equal(idA.split('.')[0], b64('a'));
    assert.equal(idA.split('.')[1], b64('a_greet'));
    assert.equal(idB.split('.')[0], b64('b'));
    // each upstream saw its own ids only (tasks/get, tasks/update), never the gateway's
    const upstreamA = Buffer.from(idA.split('.')[2]!, 'base64url').toString();
    const upstreamB = Buffer.from(idB.split('.')[2]!, 'base64url').toString();
    assert.ok(seenA.ids.length > 0 && seenA.ids.every((id) => id === upstreamA), `upstream a saw ${seenA.ids.join(', ')}`);
    assert.ok(seenB.ids.length > 0 && seenB.ids.every((id) => id === upstreamB), `upstream b saw ${seenB.ids.join(', ')}`);
    // the caller reads its task again by the gateway id
    const task = await client.request<JSONObject>('tasks/get', { taskId: idB }, { returnTasks: true });
    assert.equal(task.taskId, idB);
    assert.equal(task.status, 'completed');
  });

  it('forged, edited and foreign ids answer -32602; without the extension -32021; tasks/cancel reaches the upstream', T, async () => {
    const { client: alice, recorder } = await caller('alice-token-0123456789', true);
    const { client: bob } = await caller('bob-token-0123456789ab', true);
    const { client: plain } = await caller('alice-token-0123456789', false);
    const controller = new AbortController();
    const call = alice.callTool({ name: 'b_block', arguments: {} }, { signal: controller.signal });
    const deadline = Date.now() + 10_000;
    while (handles(recorder).length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    const id = handles(recorder)[0]!;
    const [, tool, inner, mac] = id.split('.');
    const get = (c: Client, taskId: string) => code(c.request('tasks/get', { taskId }, { returnTasks: true }));
    assert.equal((await alice.request<JSONObject>('tasks/get', { taskId: id }, { returnTasks: true })).status, 'working');
    assert.equal(await get(bob, id), -32602, "another principal's id");
    assert.equal(await get(alice, [b64('a'), tool, inner, mac].join('.')), -32602, 'an id edited to the other upstream');
    assert.equal(await get(alice, 'not-a-task'), -32602, 'a forged id');
    assert.equal(await get(alice, [b64('b'), tool, b64('other'), mac].join('.')), -32602, 'an id edited to another task');
    assert.equal(await code(plain.request('tasks/get', { taskId: id })), -32021, 'a request without the extension');
    assert.equal(await code(bob.request('tasks/cancel', { taskId: id }, { returnTasks: true })), -32602, "cancelling another's task");
    assert.equal(seenB.cancelled, 0);
    controller.abort(new Error('caller gave up'));
    await assert.rejects(call);
    while (seenB.cancelled === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(seenB.cancelled, 1, 'the caller cancelled it through the gateway');
    assert.equal((await alice.request<JSONObject>('tasks/get', { taskId: id }, { returnTasks: true })).status, 'cancelled');
  });
});
