/**
 * Every method of both eras, over the in-memory transport, stdio (a spawned server process
 * exporting over OTLP/HTTP to a receiver the test starts) and Streamable HTTP (JSON and SSE),
 * produces the spans the MCP semantic conventions describe, on both sides: the table below is
 * the conventions' attribute list (docs/gen-ai/mcp.md@0393513), each row saying when the
 * attribute must be present and with which value. The real OpenTelemetry SDK records (an
 * in-memory exporter and a metric reader per side).
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { AttributeValue } from '@opentelemetry/api';
import {
  fixtureAnswers,
  fixtureServer,
  OTEL_SERVER_MAIN,
  type OtlpReceiver,
  otlpReceiver,
  type Sdk,
  type SpanView,
  sdk,
  viewOf,
  w3c,
} from '../../test/helpers/otel.js';
import { Client, type ClientOptions } from '../client/index.js';
import { StreamableHttpClientTransport } from '../http/index.js';
import { type NodeServerHandle, serveNode } from '../http/node.js';
import { createStreamableHttpHandler } from '../http/server/handler.js';
import type { JSONObject } from '../jsonrpc/types.js';
import { McpServer } from '../server/index.js';
import { StdioClientTransport } from '../stdio/index.js';
import { TaskClient, TaskServer, tasksExtension } from '../tasks/index.js';
import { InMemoryTransport } from '../transport/memory.js';
import { DURATION_BUCKETS } from './conventions.js';
import { instrument } from './index.js';

type Transport = 'memory' | 'stdio' | 'http-json' | 'http-sse';
type Era = '2025' | '2026-07-28';

/** One operation a side records: what the conventions' attributes must then say. */
interface Op {
  readonly method: string;
  readonly name: string;
  /** `sent`: a CLIENT span; `received`: a SERVER span. */
  readonly direction: 'sent' | 'received';
  /** Which side records it. */
  readonly side: 'client' | 'server';
  readonly request: boolean;
  readonly tool?: string;
  readonly prompt?: string;
  readonly uri?: string;
  readonly error?: { type: string; code?: string };
  readonly era: Era;
  readonly transport: Transport;
  readonly version: string;
  readonly captured: boolean;
}

const ANY = Symbol('any value');
const SKIP = Symbol('not checked');
type Expect = AttributeValue | typeof ANY | typeof SKIP | undefined;

/** The conventions' attribute list (CLIENT and SERVER spans), with when each applies. */
const ATTRIBUTES: readonly { key: string; level: string; expect: (op: Op) => Expect }[] = [
  { key: 'mcp.method.name', level: 'Required', expect: (op) => op.method },
  { key: 'error.type', level: 'Conditionally Required: iff the operation fails', expect: (op) => op.error?.type },
  { key: 'gen_ai.prompt.name', level: 'Conditionally Required: a prompt operation', expect: (op) => op.prompt },
  { key: 'gen_ai.tool.name', level: 'Conditionally Required: a tool operation', expect: (op) => op.tool },
  { key: 'jsonrpc.request.id', level: 'Conditionally Required: a request', expect: (op) => (op.request ? ANY : undefined) },
  { key: 'mcp.resource.uri', level: 'Conditionally Required: a request with a resource URI', expect: (op) => op.uri },
  { key: 'rpc.response.status_code', level: 'Conditionally Required: the response has an error code', expect: (op) => op.error?.code },
  {
    key: 'gen_ai.operation.name',
    level: 'Recommended: execute_tool for tool calls only',
    expect: (op) => (op.method === 'tools/call' ? 'execute_tool' : undefined),
  },
  { key: 'mcp.protocol.version', level: 'Recommended', expect: (op) => (op.method === 'initialize' || op.method === 'server/discover' ? SKIP : op.version) },
  {
    key: 'mcp.session.id',
    level: 'Recommended: part of a session (never on 2026-07-28)',
    expect: (op) =>
      op.era === '2026-07-28' ? undefined : op.transport === 'memory' || op.transport === 'stdio' ? undefined : op.method === 'initialize' ? SKIP : ANY,
  },
  {
    key: 'network.transport',
    level: 'Recommended: tcp for HTTP, pipe for stdio',
    expect: (op) => (op.transport === 'memory' ? undefined : op.transport === 'stdio' ? 'pipe' : 'tcp'),
  },
  { key: 'network.protocol.name', level: 'Recommended: when applicable', expect: (op) => (op.transport.startsWith('http') ? 'http' : undefined) },
  {
    key: 'server.address',
    level: 'Recommended: client side',
    expect: (op) => (op.side === 'client' && op.direction === 'sent' && op.transport.startsWith('http') ? '127.0.0.1' : undefined),
  },
  {
    key: 'server.port',
    level: 'Recommended: with server.address',
    expect: (op) => (op.side === 'client' && op.direction === 'sent' && op.transport.startsWith('http') ? ANY : undefined),
  },
  {
    key: 'gen_ai.tool.call.arguments',
    level: 'Opt-In',
    expect: (op) =>
      op.captured && op.method === 'tools/call' && op.tool === 'weather' && op.direction === (op.side === 'client' ? 'sent' : 'received')
        ? '{"city":"Oslo"}'
        : undefined,
  },
  {
    key: 'gen_ai.tool.call.result',
    level: 'Opt-In: successful tool calls',
    expect: (op) => (op.captured && op.method === 'tools/call' && op.error === undefined ? ANY : undefined),
  },
];

/** What the client does, as the operations each side records. */
interface Scenario {
  readonly era: Era;
  readonly transport: Transport;
  readonly captured: boolean;
}

const opened: Array<() => Promise<void>> = [];
after(async () => {
  for (const close of opened.splice(0).reverse()) await close().catch(() => {});
});

async function connect(s: Scenario, clientSdk: Sdk, serverSdk: Sdk, receiver: OtlpReceiver | undefined): Promise<{ client: Client; version: string }> {
  const server = instrument(fixtureServer(), {
    tracerProvider: serverSdk.tracerProvider,
    meterProvider: serverSdk.meterProvider,
    propagator: w3c,
    captureArguments: s.captured,
    captureResults: s.captured,
  });
  const version = s.era === '2025' ? '2025-11-25' : '2026-07-28';
  const options: ClientOptions = { protocolVersion: version, ...fixtureAnswers };
  const client = instrument(new Client({ name: 'otel-test', version: '1.0.0' }, options), {
    tracerProvider: clientSdk.tracerProvider,
    meterProvider: clientSdk.meterProvider,
    propagator: w3c,
    captureArguments: s.captured,
    captureResults: s.captured,
  });
  if (s.transport === 'stdio') {
    // the server is another process: its spans reach the test through the OTLP receiver
    const env = { ...process.env, OTLP_URL: receiver!.url, OTEL_SERVICE: 'stdio-server' } as Record<string, string>;
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [OTEL_SERVER_MAIN], env }), { timeoutMs: 20_000 });
  } else if (s.transport === 'memory') {
    const [a, b] = InMemoryTransport.createPair();
    await server.connect(a);
    await client.connect(b);
  } else {
    const handle: NodeServerHandle = await serveNode(createStreamableHttpHandler({ server, responseMode: s.transport === 'http-json' ? 'json' : 'sse' }));
    opened.push(() => handle.close());
    await client.connect(new StreamableHttpClientTransport({ url: handle.url }));
  }
  return { client, version };
}

/** Runs every method of the era; returns the operations both sides must have recorded. */
async function exercise(s: Scenario, client: Client, version: string): Promise<Op[]> {
  const ops: Op[] = [];
  const base = { era: s.era, transport: s.transport, version, captured: s.captured };
  /** A request the client sends and the server receives. */
  const both = (method: string, extra: Partial<Op> = {}, name = method): void => {
    const request = extra.request ?? true;
    ops.push({ ...base, method, name, direction: 'sent', side: 'client', request, ...extra });
    ops.push({ ...base, method, name, direction: 'received', side: 'server', request, ...extra });
  };
  /** A request the server sends and the client receives (2025 only). */
  const back = (method: string, request = true): void => {
    ops.push({ ...base, method, name: method, direction: 'sent', side: 'server', request });
    ops.push({ ...base, method, name: method, direction: 'received', side: 'client', request });
  };
  if (s.era === '2025') {
    both('initialize');
    both('notifications/initialized', { request: false });
  } else {
    // the client's era probe, before any revision is agreed
    both('server/discover');
  }
  if (s.era === '2025') {
    await client.ping();
    both('ping');
  }
  await client.listTools();
  both('tools/list');
  assert.equal((await client.callTool({ name: 'weather', arguments: { city: 'Oslo' } })).isError, undefined);
  both('tools/call', { tool: 'weather' }, 'tools/call weather');
  assert.equal((await client.callTool({ name: 'broken' })).isError, true);
  both('tools/call', { tool: 'broken', error: { type: 'tool_error' } }, 'tools/call broken');
  await assert.rejects(client.callTool({ name: 'refuse' }), { code: -32042 });
  both('tools/call', { tool: 'refuse', error: { type: '-32042', code: '-32042' } }, 'tools/call refuse');
  await client.listPrompts();
  both('prompts/list');
  await client.getPrompt('greet', { who: 'you' });
  both('prompts/get', { prompt: 'greet' }, 'prompts/get greet');
  await assert.rejects(client.getPrompt('nope', {}), { code: -32602 });
  both('prompts/get', { prompt: 'nope', error: { type: '-32602', code: '-32602' } }, 'prompts/get nope');
  await client.listResources();
  both('resources/list');
  await client.listResourceTemplates();
  both('resources/templates/list');
  await client.readResource('test://doc');
  both('resources/read', { uri: 'test://doc' });
  await client.complete({ type: 'ref/prompt', name: 'greet' }, { name: 'who', value: 'w' });
  both('completion/complete');
  if (s.era === '2025') {
    await client.subscribeResource('test://doc');
    both('resources/subscribe', { uri: 'test://doc' });
    await client.unsubscribeResource('test://doc');
    both('resources/unsubscribe', { uri: 'test://doc' });
    await client.setLoggingLevel('info');
    both('logging/setLevel');
    assert.equal(((await client.callTool({ name: 'ask' })).content[0] as { text: string }).text, 'm1|1');
    both('tools/call', { tool: 'ask' }, 'tools/call ask');
    back('notifications/message', false);
    back('sampling/createMessage');
    back('roots/list');
    // (no progress: notifications/progress is sent and consumed by the JSON-RPC sessions, beneath the interceptors and middleware)
    const more = await client.callTool({ name: 'more' });
    assert.equal((more.content[0] as { text: string }).text, 'accept');
    both('tools/call', { tool: 'more' }, 'tools/call more');
    back('elicitation/create');
    back('ping');
    await client.sendRootsListChanged();
    both('notifications/roots/list_changed', { request: false });
  }
  return ops;
}

function check(op: Op, span: SpanView): void {
  for (const row of ATTRIBUTES) {
    const want = row.expect(op);
    if (want === SKIP) continue;
    const got = span.attributes[row.key];
    const where = `${op.side} ${op.direction} "${op.name}" (${op.transport}, ${op.era}): ${row.key} [${row.level}]`;
    if (want === undefined) assert.equal(got, undefined, `${where} must be absent`);
    else if (want === ANY) assert.ok(got !== undefined && got !== '', `${where} must be present`);
    else assert.deepEqual(got, want, where);
  }
  assert.equal(span.kind, op.direction === 'sent' ? 'client' : 'server', `${op.side} "${op.name}": span kind`);
  assert.equal(span.error, op.error !== undefined, `${op.side} "${op.name}": status ERROR iff error.type`);
  if (op.error?.code !== undefined)
    assert.ok(span.statusMessage !== undefined && span.statusMessage !== '', 'the status description is the JSON-RPC error message');
}

const scenarios: Scenario[] = [];
for (const transport of ['memory', 'stdio', 'http-json', 'http-sse'] as const)
  for (const era of ['2025', '2026-07-28'] as const) scenarios.push({ era, transport, captured: false });
scenarios.push({ era: '2025', transport: 'memory', captured: true }, { era: '2026-07-28', transport: 'http-json', captured: true });

describe('otel: the conventions attribute table, every method, both eras, every transport', () => {
  for (const s of scenarios) {
    it(`${s.transport}, ${s.era}${s.captured ? ', arguments and results captured' : ''}`, async () => {
      const clientSdk = sdk();
      const serverSdk = sdk();
      const receiver = s.transport === 'stdio' ? await otlpReceiver() : undefined;
      if (receiver !== undefined) opened.push(() => receiver.close());
      const { client, version } = await connect(s, clientSdk, serverSdk, receiver);
      const ops = await exercise(s, client, version);
      if (receiver !== undefined) {
        const wanted = ops.filter((op) => op.side === 'server');
        const kindOf = (op: Op): string => (op.direction === 'sent' ? 'client' : 'server');
        await receiver.until(
          (spans) => wanted.every((op) => spans.some((sp) => sp.name === op.name && sp.kind === kindOf(op))),
          'every span of the server process',
        );
      } else {
        // a notification the server receives last may still be on its way when the client's call settled
        const missing = (): string[] => ops.filter((op) => op.side === 'server' && !serverSdk.spans().some((sp) => sp.name === op.name)).map((op) => op.name);
        for (const deadline = Date.now() + 10_000; missing().length > 0; ) {
          assert.ok(Date.now() < deadline, `every server span within 10 s (missing: ${missing().join(', ')})`);
          await new Promise((r) => setTimeout(r, 10));
        }
      }
      await client.close();
      const sides = { client: clientSdk.spans().map(viewOf), server: receiver?.spans ?? serverSdk.spans().map(viewOf) };
      for (const op of ops) {
        const kind = op.direction === 'sent' ? 'client' : 'server';
        const found = sides[op.side].filter((sp) => sp.name === op.name && sp.kind === kind);
        assert.ok(found.length >= 1, `${op.side} has a ${kind} span "${op.name}" (spans: ${sides[op.side].map((x) => `${x.kind}:${x.name}`).join(', ')})`);
        for (const span of found) check(op, span);
      }
      // the receiving span's parent is the sending span (SEP-414 context in params._meta)
      for (const received of [...sides.server, ...sides.client].filter((sp) => sp.kind === 'server')) {
        const senders = [...sides.client, ...sides.server].filter((sp) => sp.kind === 'client' && sp.name === received.name);
        assert.ok(
          senders.some((sp) => sp.spanId === received.parentSpanId && sp.traceId === received.traceId),
          `the server span "${received.name}" is a child of the client span that sent it (parent ${received.parentSpanId}; senders ${senders.map((sp) => sp.spanId).join(', ')}; ${JSON.stringify(received.attributes)})`,
        );
      }
      // metrics: the operation histograms, with the conventions' bucket advice and attributes
      const clientHistograms = await clientSdk.histograms();
      const serverHistograms = await serverSdk.histograms();
      for (const [histograms, name] of [
        [clientHistograms, 'mcp.client.operation.duration'],
        [serverHistograms, 'mcp.server.operation.duration'],
        [clientHistograms, 'mcp.client.session.duration'],
      ] as const) {
        if (s.transport === 'stdio' && histograms === serverHistograms) continue; // the server process records its own
        const metric = histograms.get(name);
        assert.ok(metric !== undefined && metric.dataPoints.length > 0, `${name} recorded`);
        assert.equal(metric.descriptor.unit, 's');
        assert.deepEqual(metric.dataPoints[0]!.value.buckets.boundaries, [...DURATION_BUCKETS], `${name} uses the advised buckets`);
        for (const point of metric.dataPoints) {
          assert.equal(point.attributes['jsonrpc.request.id'], undefined, 'no request id on metrics');
          assert.equal(point.attributes['mcp.session.id'], undefined, 'no session id on metrics');
        }
      }
      const refused = clientHistograms.get('mcp.client.operation.duration')!.dataPoints.find((p) => p.attributes['gen_ai.tool.name'] === 'refuse');
      assert.equal(refused?.attributes['error.type'], '-32042');
      if (s.transport !== 'stdio') {
        const tools = serverHistograms.get('mcp.server.operation.duration')!.dataPoints.find((p) => p.attributes['gen_ai.tool.name'] === 'broken');
        assert.equal(tools?.attributes['error.type'], 'tool_error');
      }
      if (s.era === '2025' && s.transport === 'memory') {
        const session = serverHistograms.get('mcp.server.session.duration');
        assert.ok(session !== undefined && session.dataPoints.length === 1, 'the server recorded the session when it ended');
        assert.equal(session.dataPoints[0]!.attributes['mcp.protocol.version'], '2025-11-25');
      }
      await clientSdk.shutdown();
      await serverSdk.shutdown();
    });
  }
});

/**
 * The task methods of both eras (2025-11-25: `tasks/get`, `tasks/result`, `tasks/list`,
 * `tasks/cancel`; 2026-07-28, the tasks extension SEP-2663: `tasks/get`, `tasks/update`,
 * `tasks/cancel`) checked against the same attribute table, and every request about a task
 * linked to the span of the `tools/call` that created it, on both sides.
 */
describe('otel: the conventions attribute table, the tasks/* methods of both eras', () => {
  const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(resolve, ms);
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(signal.reason);
      });
    });
  for (const [transport, era] of [
    ['memory', '2025'],
    ['memory', '2026-07-28'],
    ['http-json', '2025'],
    ['http-json', '2026-07-28'],
  ] as const) {
    it(`${transport}, ${era}`, async () => {
      const clientSdk = sdk();
      const serverSdk = sdk();
      const server = instrument(new McpServer({ name: 'otel-tasks', version: '1.0.0' }), {
        tracerProvider: serverSdk.tracerProvider,
        meterProvider: serverSdk.meterProvider,
        propagator: w3c,
      });
      const taskServer = new TaskServer(server, { pollIntervalMs: 10, sweepIntervalMs: 0 });
      opened.push(() => taskServer.close());
      server.registerTool(
        'job',
        {
          description: 'works for ms milliseconds, as a task',
          inputSchema: { type: 'object', properties: { ms: { type: 'number' } } },
          execution: { taskSupport: 'required' },
        },
        async (args: { ms?: number }, ctx) => {
          await sleep(args.ms ?? 0, ctx.signal);
          return 'done';
        },
      );
      const version = era === '2025' ? '2025-11-25' : '2026-07-28';
      const client = instrument(
        new Client(
          { name: 'otel-test', version: '1.0.0' },
          era === '2025' ? { protocolVersion: version } : { protocolVersion: version, stateless: { tasks: true } },
        ),
        { tracerProvider: clientSdk.tracerProvider, meterProvider: clientSdk.meterProvider, propagator: w3c },
      );
      const tasks = era === '2025' ? new TaskClient(client, { sweepIntervalMs: 0 }) : undefined;
      if (era === '2026-07-28') client.extend(tasksExtension());
      if (transport === 'memory') {
        const [a, b] = InMemoryTransport.createPair();
        await server.connect(a);
        await client.connect(b);
      } else {
        const handle = await serveNode(createStreamableHttpHandler({ server, responseMode: 'json' }));
        opened.push(() => handle.close());
        await client.connect(new StreamableHttpClientTransport({ url: handle.url }));
      }
      const base = { era, transport, version, captured: false } as const;
      const ops: Op[] = [];
      const both = (method: string, extra: Partial<Op> = {}, name = method): void => {
        ops.push({ ...base, method, name, direction: 'sent', side: 'client', request: true, ...extra });
        ops.push({ ...base, method, name, direction: 'received', side: 'server', request: true, ...extra });
      };
      /** Task id → the methods sent about it (each of their spans must link to the creating one). */
      const about = new Map<string, string[]>();
      if (tasks !== undefined) {
        const quick = await tasks.callToolAsTask({ name: 'job', arguments: { ms: 5 } });
        const id = quick.taskId!;
        both('tools/call', { tool: 'job' }, 'tools/call job');
        await tasks.getTask(id);
        assert.equal(((await tasks.getTaskResult<{ content: { text: string }[] }>(id)).content[0] as { text: string }).text, 'done');
        await tasks.listTasks();
        const slow = await tasks.callToolAsTask({ name: 'job', arguments: { ms: 60_000 } });
        assert.equal((await tasks.cancelTask(slow.taskId!)).status, 'cancelled');
        // its handle stops polling once it reads the cancellation (no tasks/get left in flight at close)
        await slow.result().catch(() => {});
        for (const method of ['tasks/get', 'tasks/result', 'tasks/list', 'tasks/cancel']) both(method);
        about.set(id, ['tasks/get', 'tasks/result']);
        about.set(slow.taskId!, ['tasks/cancel']);
      } else {
        const created = await client.request<JSONObject>('tools/call', { name: 'job', arguments: { ms: 5 } }, { returnTasks: true });
        const id = created.taskId as string;
        assert.equal(created.resultType, 'task', 'the call became a task');
        both('tools/call', { tool: 'job' }, 'tools/call job');
        for (let status = 'working', deadline = Date.now() + 10_000; status !== 'completed'; ) {
          assert.ok(Date.now() < deadline && status !== 'failed' && status !== 'cancelled', `the task completes within 10 s (status ${status})`);
          status = (await client.request<JSONObject>('tasks/get', { taskId: id }, { returnTasks: true })).status as string;
          // (a poll loop over the in-memory transport must let the task's timer run)
          if (status === 'working') await new Promise((r) => setTimeout(r, 10));
        }
        const slow = await client.request<JSONObject>('tools/call', { name: 'job', arguments: { ms: 60_000 } }, { returnTasks: true });
        await client.request('tasks/update', { taskId: slow.taskId as string, inputResponses: {} }, { returnTasks: true });
        await client.request('tasks/cancel', { taskId: slow.taskId as string }, { returnTasks: true });
        for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) both(method);
        about.set(id, ['tasks/get']);
        about.set(slow.taskId as string, ['tasks/update', 'tasks/cancel']);
      }
      await client.close();
      const sides = { client: clientSdk.spans().map(viewOf), server: serverSdk.spans().map(viewOf) };
      for (const op of ops) {
        const kind = op.direction === 'sent' ? 'client' : 'server';
        const found = sides[op.side].filter((sp) => sp.name === op.name && sp.kind === kind);
        assert.ok(found.length >= 1, `${op.side} has a ${kind} span "${op.name}" (spans: ${sides[op.side].map((x) => `${x.kind}:${x.name}`).join(', ')})`);
        for (const span of found) check(op, span);
      }
      // every request about a task links to the span of the tools/call that created it, on both sides
      for (const [side, spans] of Object.entries(sides)) {
        const creating = spans.filter((sp) => sp.name === 'tools/call job');
        assert.equal(creating.length, 2, `${side}: two task-creating spans`);
        for (const [taskId, methods] of about) {
          for (const method of methods) {
            const followUps = spans.filter((sp) => sp.name === method && sp.attributes['jsonrpc.request.id'] !== undefined);
            assert.ok(followUps.length >= 1, `${side}: a ${method} span`);
            const linked = followUps.filter((sp) => sp.links.some((l) => creating.some((c) => c.spanId === l.spanId && c.traceId === l.traceId)));
            assert.ok(linked.length >= 1, `${side}: ${method} (task ${taskId}) links to the span that created the task`);
          }
        }
        // tasks/list names no task: no link
        for (const sp of spans.filter((x) => x.name === 'tasks/list')) assert.deepEqual(sp.links, [], `${side}: tasks/list has no task link`);
      }
      await clientSdk.shutdown();
      await serverSdk.shutdown();
    });
  }
});

/**
 * `notifications/progress` and `notifications/cancelled` (well-known `mcp.method.name` values;
 * the conventions' CLIENT and SERVER spans describe "the MCP request or notification"): the
 * JSON-RPC channel sends and consumes them beneath the interceptors and middleware, and
 * records them through its control observer. Checked against the same attribute table, with
 * each receiver's span a child of the sender's (context in their `_meta`).
 */
describe('otel: the conventions attribute table, notifications/progress and notifications/cancelled', () => {
  for (const [transport, era] of [
    ['memory', '2025'],
    ['http-sse', '2025'],
    ['memory', '2026-07-28'],
  ] as const) {
    it(`${transport}, ${era}`, async () => {
      const clientSdk = sdk();
      const serverSdk = sdk();
      const server = instrument(new McpServer({ name: 'otel-notes', version: '1.0.0' }), {
        tracerProvider: serverSdk.tracerProvider,
        meterProvider: serverSdk.meterProvider,
        propagator: w3c,
      });
      let started!: () => void;
      const running = new Promise<void>((resolve) => {
        started = resolve;
      });
      let aborted!: (reason: unknown) => void;
      const cancelled = new Promise<unknown>((resolve) => {
        aborted = resolve;
      });
      server.registerTool('steps', { description: 'reports two steps of progress' }, async (_args, ctx) => {
        await ctx.sendProgress(1, 2, 'one');
        await ctx.sendProgress(2, 2, 'two');
        return 'done';
      });
      server.registerTool('hang', { description: 'waits until cancelled' }, async (_args, ctx) => {
        started();
        await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()));
        aborted(ctx.signal.reason);
        return 'cancelled';
      });
      const version = era === '2025' ? '2025-11-25' : '2026-07-28';
      const client = instrument(new Client({ name: 'otel-test', version: '1.0.0' }, { protocolVersion: version }), {
        tracerProvider: clientSdk.tracerProvider,
        meterProvider: clientSdk.meterProvider,
        propagator: w3c,
      });
      if (transport === 'memory') {
        const [a, b] = InMemoryTransport.createPair();
        await server.connect(a);
        await client.connect(b);
      } else {
        const handle = await serveNode(createStreamableHttpHandler({ server, responseMode: 'sse' }));
        opened.push(() => handle.close());
        await client.connect(new StreamableHttpClientTransport({ url: handle.url }));
      }
      const progress: number[] = [];
      await client.callTool({ name: 'steps' }, { onProgress: (p) => progress.push(p.progress) });
      assert.deepEqual(progress, [1, 2], 'the progress arrived');
      const controller = new AbortController();
      const call = client.callTool({ name: 'hang' }, { signal: controller.signal });
      await running;
      controller.abort('no longer needed');
      await assert.rejects(call);
      await cancelled;
      const base = { era, transport, version, captured: false, request: false } as const;
      const ops: Op[] = [
        { ...base, method: 'notifications/progress', name: 'notifications/progress', direction: 'sent', side: 'server' },
        { ...base, method: 'notifications/progress', name: 'notifications/progress', direction: 'received', side: 'client' },
        { ...base, method: 'notifications/cancelled', name: 'notifications/cancelled', direction: 'sent', side: 'client' },
        { ...base, method: 'notifications/cancelled', name: 'notifications/cancelled', direction: 'received', side: 'server' },
      ];
      // the server's span of the cancellation ends as it is handled; wait for it to be exported
      for (const deadline = Date.now() + 10_000; !serverSdk.spans().some((sp) => sp.name === 'notifications/cancelled'); ) {
        assert.ok(Date.now() < deadline, 'the server records notifications/cancelled within 10 s');
        await new Promise((r) => setTimeout(r, 10));
      }
      await client.close();
      const sides = { client: clientSdk.spans().map(viewOf), server: serverSdk.spans().map(viewOf) };
      for (const op of ops) {
        const kind = op.direction === 'sent' ? 'client' : 'server';
        const found = sides[op.side].filter((sp) => sp.name === op.name && sp.kind === kind);
        assert.equal(found.length, op.method === 'notifications/progress' ? 2 : 1, `${op.side} ${kind} spans "${op.name}"`);
        for (const span of found) check(op, span);
      }
      const all = [...sides.client, ...sides.server];
      for (const received of all.filter((sp) => sp.kind === 'server' && sp.name.startsWith('notifications/'))) {
        const sender = all.find((sp) => sp.kind === 'client' && sp.spanId === received.parentSpanId);
        assert.equal(sender?.name, received.name, `the received "${received.name}" is a child of the span that sent it`);
      }
      // progress is sent from the handler: a child of the server's tools/call span
      const steps = sides.server.find((sp) => sp.name === 'tools/call steps')!;
      for (const sp of sides.server.filter((x) => x.name === 'notifications/progress')) assert.equal(sp.parentSpanId, steps.spanId);
      // the progress and the cancellation are in the operation histograms
      const sent = (await clientSdk.histograms()).get('mcp.client.operation.duration')!.dataPoints;
      assert.ok(sent.some((p) => p.attributes['mcp.method.name'] === 'notifications/cancelled'));
      const handled = (await clientSdk.histograms()).get('mcp.server.operation.duration')!.dataPoints;
      assert.ok(handled.some((p) => p.attributes['mcp.method.name'] === 'notifications/progress'));
      await clientSdk.shutdown();
      await serverSdk.shutdown();
    });
  }
});
