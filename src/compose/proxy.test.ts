/**
 * The proxy with real peers: `@modelcontextprotocol/server-everything` over stdio behind it,
 * driven by the official SDK clients (v1 at 2025-era revisions, v2 at 2026-07-28) over
 * Streamable HTTP; and mcpkit's demo over HTTP in the 2026-07-28 era behind it, reached by a
 * 2025-era v1 client that authenticates to the proxy with a token of its own (the upstream
 * must see the proxy's token, never the caller's).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client as V2Client, StreamableHTTPClientTransport as V2Http } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { SUITE_TIMEOUT_MS } from '../../test/helpers/bounds.js';
import { REPO_ROOT } from '../../test/helpers/repo.js';
import { waitFor } from '../../test/helpers/wait.js';
import { type AuthInfo, InvalidTokenError, requireBearerAuth } from '../auth/index.js';
import { ALL_REVISIONS, Client } from '../client/index.js';
import { createDemoServer } from '../demo/server.js';
import { StreamableHttpClientTransport } from '../http/client/streamable.js';
import { type NodeServerHandle, serveNode } from '../http/node.js';
import { createStreamableHttpHandler } from '../http/server/handler.js';
import type { JSONObject } from '../jsonrpc/types.js';
import { McpServer } from '../server/server.js';
import { StdioClientTransport } from '../stdio/index.js';
import { tasksExtension } from '../tasks/index.js';
import { InMemoryTransport } from '../transport/memory.js';
import type { Transport } from '../transport/types.js';
import { McpProxy } from './proxy.js';

const EVERYTHING = join(REPO_ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const T = { timeout: 20_000 };

/** Waits until the server lists `name` (server-everything registers some tools after initialize). */
async function waitForTool(client: Client, name: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if ((await client.listAllTools()).some((t) => t.name === name)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the tool ${name} never appeared`);
}

function text(result: unknown): string {
  const content = (result as { content?: Array<{ type?: string; text?: string }> }).content ?? [];
  return content.map((c) => c.text ?? '').join('\n');
}

/** Records what the proxy sends upstream (the messages as JSON). */
function recorded(transport: Transport, sent: JSONObject[]): Transport {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    const value = typeof message === 'string' ? (JSON.parse(message) as unknown) : message;
    for (const m of Array.isArray(value) ? value : [value]) sent.push(m as JSONObject);
    return send(message, options);
  };
  return transport;
}

describe('proxy in front of server-everything (stdio)', { timeout: SUITE_TIMEOUT_MS }, () => {
  let proxy: McpProxy;
  let http: NodeServerHandle;
  const upstreamSent: JSONObject[] = [];
  const errors: Error[] = [];
  before(async () => {
    proxy = await McpProxy.open({
      upstream: () => recorded(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING], stderr: 'ignore' }), upstreamSent),
      onError: (e) => errors.push(e),
    });
    http = await serveNode(createStreamableHttpHandler({ server: proxy.server }), { port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    await http?.close();
    await proxy?.close();
  });

  /** A v1 client (2025 era) that answers sampling and form elicitation. */
  async function v1(): Promise<V1Client> {
    const client = new V1Client({ name: 'v1-caller', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {} } });
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => ({
      model: 'caller-model',
      role: 'assistant',
      content: { type: 'text', text: `sampled: ${JSON.stringify(request.params.messages[0]?.content)}` },
    }));
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'Ada Lovelace', check: true } }));
    await client.connect(new V1Http(new URL(http.url)));
    return client;
  }

  it('mirrors the upstream: capabilities, tools (after its list_changed), resources, prompts, completions', T, async () => {
    const client = await v1();
    try {
      const caps = client.getServerCapabilities();
      assert.ok(caps?.tools && caps.resources?.subscribe === true && caps.prompts && caps.logging, JSON.stringify(caps));
      assert.deepEqual(client.getServerVersion()?.name, 'mcp-servers/everything');
      // the conditional tools appear once the upstream registered them (it announces list_changed)
      let names: string[] = [];
      for (let i = 0; i < 50 && !names.includes('trigger-sampling-request'); i++) {
        names = (await client.listTools()).tools.map((t) => t.name);
        if (!names.includes('trigger-sampling-request')) await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(names.includes('echo') && names.includes('trigger-sampling-request') && names.includes('trigger-elicitation-request'), names.join(','));
      assert.equal(text(await client.callTool({ name: 'echo', arguments: { message: 'through the proxy' } })), 'Echo: through the proxy');
      // resources: pagination passes through (every page, same total as the upstream's)
      const resources: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listResources(cursor === undefined ? {} : { cursor });
        resources.push(...page.resources.map((r) => r.uri));
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      const direct = await proxy.upstream!.listAllResources();
      assert.deepEqual(
        resources,
        direct.map((r) => r.uri),
      );
      assert.ok(resources.length > 0);
      const read = await client.readResource({ uri: resources[0]! });
      assert.equal(read.contents[0]?.uri, resources[0]);
      const templates = await client.listResourceTemplates();
      assert.ok(templates.resourceTemplates.length > 0);
      const prompt = await client.getPrompt({ name: 'simple-prompt' });
      assert.ok(prompt.messages.length > 0);
      const completion = await client.complete({ ref: { type: 'ref/prompt', name: 'completable-prompt' }, argument: { name: 'department', value: 'Eng' } });
      assert.ok(completion.completion.values.includes('Engineering'), JSON.stringify(completion));
      // an unknown tool: the upstream's answer reaches the caller as it is
      const unknown = await client.callTool({ name: 'no-such-tool', arguments: {} }).catch((e: unknown) => e);
      assert.ok(unknown instanceof Error || (unknown as { isError?: boolean }).isError === true);
    } finally {
      await client.close();
    }
  });

  it('sampling and form elicitation of the upstream are answered by the caller whose call is in flight', T, async () => {
    const client = await v1();
    try {
      const sampled = await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'hello upstream', maxTokens: 10 } });
      assert.match(text(sampled), /caller-model/);
      assert.match(text(sampled), /hello upstream/);
      const elicited = await client.callTool({ name: 'trigger-elicitation-request', arguments: {} });
      assert.match(text(elicited), /User provided the requested information/);
      assert.match(text(elicited), /Ada Lovelace/);
    } finally {
      await client.close();
    }
  });

  it('URL-mode elicitation and roots/list of the upstream are answered by the caller; -32042 reaches it as it is', T, async () => {
    const client = new V1Client(
      { name: 'v1-url-caller', version: '1.0.0' },
      { capabilities: { elicitation: { form: {}, url: {} }, roots: { listChanged: true } } },
    );
    const urls: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      if (request.params.mode === 'url') urls.push(request.params.url);
      return { action: 'accept' };
    });
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///work/project-through-proxy', name: 'project' }] }));
    await client.connect(new V1Http(new URL(http.url)));
    try {
      const done = await client.callTool({ name: 'trigger-url-elicitation', arguments: { url: 'https://example.com/consent', message: 'Please consent' } });
      assert.match(text(done), /User completed the URL elicitation flow/);
      assert.deepEqual(urls, ['https://example.com/consent']);
      const required = await client
        .callTool({ name: 'trigger-url-elicitation', arguments: { url: 'https://example.com/other', message: 'x', errorPath: true } })
        .catch((e: unknown) => e);
      assert.equal((required as { code?: number }).code, -32042, String(required));
      const roots = await client.callTool({ name: 'get-roots-list', arguments: {} });
      assert.match(text(roots), /project-through-proxy/);
      // the caller's roots/list_changed goes up
      await client.sendRootsListChanged();
      await waitFor(() => upstreamSent.some((m) => m.method === 'notifications/roots/list_changed'), 'notifications/roots/list_changed sent upstream');
    } finally {
      await client.close();
    }
  });

  it("progress flows down under the caller's token; the caller's cancel reaches the upstream", T, async () => {
    const client = await v1();
    try {
      const progress: number[] = [];
      const done = await client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } }, undefined, {
        onprogress: (p) => void progress.push(p.progress),
      });
      assert.match(text(done), /completed/i);
      assert.deepEqual(progress, [1, 2, 3]);
      // cancel: the proxy sends notifications/cancelled upstream for the request it made
      const controller = new AbortController();
      const seen: number[] = [];
      const call = client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 30, steps: 30 } }, undefined, {
        signal: controller.signal,
        onprogress: (p) => {
          seen.push(p.progress);
          controller.abort(new Error('caller gave up'));
        },
      });
      await assert.rejects(call);
      await waitFor(() => upstreamSent.some((m) => m.method === 'notifications/cancelled'), 'notifications/cancelled sent upstream');
      const cancelled = upstreamSent.find((m) => m.method === 'notifications/cancelled')!;
      const request = upstreamSent.find((m) => m.method === 'tools/call' && m.id === (cancelled.params as JSONObject).requestId)!;
      assert.equal(((request.params as JSONObject).arguments as JSONObject).steps, 30);
    } finally {
      await client.close();
    }
  });

  it("logging/setLevel goes upstream and the upstream's log messages reach the caller", T, async () => {
    const client = await v1();
    try {
      const logs: unknown[] = [];
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
      await client.setLoggingLevel('debug');
      assert.ok(upstreamSent.some((m) => m.method === 'logging/setLevel' && (m.params as JSONObject).level === 'debug'));
      await client.callTool({ name: 'toggle-simulated-logging', arguments: {} });
      await waitFor(() => logs.length > 0, 'a log message from the upstream', 20_000);
      await client.callTool({ name: 'toggle-simulated-logging', arguments: {} });
    } finally {
      await client.close();
    }
  });

  it('tasks, 2025 on both sides: a task-augmented tools/call and tasks/get, tasks/result pass through', T, async () => {
    const client = new Client(
      { name: 'mcpkit-2025-caller', version: '1' },
      { protocolVersion: '2025-11-25', elicitation: { form: async () => ({ action: 'decline' }) } },
    );
    client.extend(tasksExtension());
    await client.connect(new StreamableHttpClientTransport({ url: http.url }));
    try {
      assert.ok((client.serverCapabilities as { tasks?: unknown }).tasks, "the upstream's tasks capability is mirrored");
      await waitForTool(client, 'simulate-research-query');
      const created = await client.request<{ task: { taskId: string; status: string } }>('tools/call', {
        name: 'simulate-research-query',
        arguments: { topic: 'proxies' },
        task: {},
      });
      assert.equal(typeof created.task.taskId, 'string');
      const got = await client.request<{ taskId: string; status: string }>('tasks/get', { taskId: created.task.taskId });
      assert.equal(got.taskId, created.task.taskId);
      const result = await client.request('tasks/result', { taskId: created.task.taskId }, { timeoutMs: 30_000 });
      assert.match(text(result), /proxies/);
    } finally {
      await client.close();
    }
  });

  it('tasks bridged: a 2026-07-28 caller (no task capability) calls a tool that requires a task; the proxy runs it as a task upstream', T, async () => {
    const client = new V2Client({ name: 'v2-caller', version: '2.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new V2Http(new URL(http.url)));
    try {
      const result = await client.callTool({ name: 'simulate-research-query', arguments: { topic: 'bridges' } }, { timeout: 30_000 });
      assert.match(text(result), /bridges/);
      assert.ok(
        upstreamSent.some((m) => m.method === 'tasks/result'),
        'the proxy waited with tasks/result',
      );
    } finally {
      await client.close();
    }
  });

  it("a 2026-07-28 caller's subscriptions/listen on a resource subscribes the upstream; its updates reach the caller", T, async () => {
    const client = new Client({ name: 'mcpkit-2026-caller', version: '1' }, { protocolVersions: ALL_REVISIONS });
    await client.connect(new StreamableHttpClientTransport({ url: http.url }));
    try {
      assert.equal(client.era, 'stateless');
      const uri = 'demo://resource/static/document/architecture.md';
      const updates: string[] = [];
      const subscription = await client.listen(
        { resourceSubscriptions: [uri] },
        { onNotification: (method, params) => void (method === 'notifications/resources/updated' && updates.push(String(params?.uri))) },
      );
      assert.ok(
        upstreamSent.some((m) => m.method === 'resources/subscribe' && (m.params as JSONObject).uri === uri),
        'the upstream was subscribed',
      );
      await client.callTool({ name: 'toggle-subscriber-updates', arguments: {} });
      await waitFor(() => updates.includes(uri), 'an update of the subscribed resource', 20_000);
      await client.callTool({ name: 'toggle-subscriber-updates', arguments: {} });
      subscription.close();
    } finally {
      await client.close();
    }
  });

  it('era bridging: a 2026-07-28 v2 client through the proxy to the 2025-era stdio upstream, sampling as a multi round-trip input', T, async () => {
    const client = new V2Client(
      { name: 'v2-caller', version: '2.0.0' },
      { capabilities: { sampling: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    client.setRequestHandler('sampling/createMessage', async () => ({ model: 'v2-model', role: 'assistant', content: { type: 'text', text: 'from v2' } }));
    await client.connect(new V2Http(new URL(http.url)));
    try {
      const tools = await client.listTools();
      assert.ok(tools.tools.some((t) => t.name === 'echo'));
      assert.equal(text(await client.callTool({ name: 'echo', arguments: { message: 'stateless' } })), 'Echo: stateless');
      // the caller's era metadata stays with the proxy: the 2025 upstream gets a plain call
      const forwarded = upstreamSent.filter(
        (m) => m.method === 'tools/call' && ((m.params as JSONObject).arguments as JSONObject | undefined)?.message === 'stateless',
      );
      assert.equal(forwarded.length, 1);
      const meta = ((forwarded[0]!.params as JSONObject)._meta ?? {}) as JSONObject;
      assert.deepEqual(
        Object.keys(meta).filter((k) => k.startsWith('io.modelcontextprotocol/')),
        [],
      );
      const sampled = await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'from 2026', maxTokens: 5 } });
      assert.match(text(sampled), /v2-model/);
    } finally {
      await client.close();
    }
  });
});

describe("proxy in front of mcpkit's demo over HTTP (2026-07-28 upstream), with auth on both sides", { timeout: SUITE_TIMEOUT_MS }, () => {
  let upstream: NodeServerHandle;
  let proxy: McpProxy;
  let http: NodeServerHandle;
  const tokensSeenUpstream: string[] = [];
  const authorizationsSeenUpstream: string[] = [];
  before(async () => {
    const info = (subject: string, resource: string): AuthInfo => ({
      issuer: 'https://as.example',
      subject,
      clientId: subject,
      scopes: [],
      audience: [resource],
      expiresAt: undefined,
      tokenId: undefined,
      claims: {},
    });
    // the upstream accepts only the proxy's own token, and records every Authorization it gets
    let upstreamResource = '';
    const upstreamAuth = requireBearerAuth({
      verifier: {
        async verify(token) {
          tokensSeenUpstream.push(token);
          if (token !== 'proxy-own-token') throw new InvalidTokenError('Unknown token');
          return info('the-proxy', upstreamResource);
        },
      },
      resourceMetadataUrl: 'https://as.example/.well-known/oauth-protected-resource',
      audience: [],
    });
    const demo = createDemoServer({ tasks: false });
    demo.use({
      intercept(call, next) {
        const headers = call.info?.request?.headers;
        const value = headers instanceof Headers ? headers.get('authorization') : (headers?.authorization as string | undefined);
        if (value) authorizationsSeenUpstream.push(value);
        return next();
      },
    });
    upstream = await serveNode(createStreamableHttpHandler({ server: demo, authorize: upstreamAuth }), { port: 0, host: '127.0.0.1' });
    upstreamResource = upstream.url;
    proxy = await McpProxy.open({
      upstream: () => new StreamableHttpClientTransport({ url: upstream.url, headers: { authorization: 'Bearer proxy-own-token' } }),
    });
    assert.equal(proxy.upstream?.era, 'stateless', 'the proxy speaks 2026-07-28 to the demo');
    const callerAuth = requireBearerAuth({
      verifier: {
        async verify(token) {
          if (token !== 'caller-token') throw new InvalidTokenError('Unknown token');
          return info('caller', '');
        },
      },
      resourceMetadataUrl: 'https://as.example/.well-known/oauth-protected-resource',
      audience: [],
    });
    http = await serveNode(createStreamableHttpHandler({ server: proxy.server, authorize: callerAuth }), { port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    await http?.close();
    await proxy?.close();
    await upstream?.close();
  });

  it("no token passthrough: the caller authenticates to the proxy, the upstream sees only the proxy's token", T, async () => {
    // without the caller's token the proxy refuses (its own resource-server check)
    const anonymous = new V1Client({ name: 'anon', version: '1' });
    await assert.rejects(anonymous.connect(new V1Http(new URL(http.url))));
    const client = new V1Client({ name: 'v1-2025-caller', version: '1.0.0' }, { capabilities: { sampling: {} } });
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({
      model: 'caller-2025-model',
      role: 'assistant',
      content: { type: 'text', text: 'answer from the 2025 caller' },
    }));
    await client.connect(new V1Http(new URL(http.url), { requestInit: { headers: { authorization: 'Bearer caller-token' } } }));
    try {
      assert.match(client.getServerVersion()?.name ?? '', /mcpkit-demo/);
      // era bridging: a 2025 caller, a 2026-07-28 upstream
      const result = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
      assert.match(text(result), /5/);
      // the upstream's multi round-trip input (sampling) is answered by the 2025 caller as a sampling request
      const sampled = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'bridge me' } });
      assert.match(text(sampled), /answer from the 2025 caller/);
      const logs: unknown[] = [];
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params.data));
      await client.setLoggingLevel('debug');
      await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
      await waitFor(() => logs.length >= 3, "the upstream's log messages");
      // list_changed of the 2026-07-28 upstream (on the proxy's subscriptions/listen) reaches the 2025 caller
      let changed = 0;
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
      await client.callTool({ name: 'toggle_extra_tool', arguments: {} });
      await waitFor(() => changed > 0, 'tools/list_changed through the proxy');
      assert.ok((await client.listTools()).tools.some((t) => t.name === 'extra'));
      assert.ok(tokensSeenUpstream.length > 0);
      assert.deepEqual([...new Set(tokensSeenUpstream)], ['proxy-own-token']);
      assert.ok(
        authorizationsSeenUpstream.every((a) => a === 'Bearer proxy-own-token'),
        authorizationsSeenUpstream.join(','),
      );
      assert.ok(!authorizationsSeenUpstream.some((a) => a.includes('caller-token')));
    } finally {
      await client.close();
    }
  });
});

describe("proxy in front of an mcpkit server (in memory): the upstream's cancel, and routing when it is ambiguous", { timeout: SUITE_TIMEOUT_MS }, () => {
  let proxy: McpProxy;
  let http: NodeServerHandle;
  let running = 0;
  let bothRunning!: () => void;
  const both = new Promise<void>((resolve) => (bothRunning = resolve));
  before(async () => {
    const upstream = new McpServer({ name: 'upstream', version: '1' });
    upstream.registerTool('ask-then-give-up', { description: 'asks the client to sample, then cancels its request' }, async (_args, ctx) => {
      const controller = new AbortController();
      const asked = ctx.createMessage(
        { messages: [{ role: 'user', content: { type: 'text', text: 'never mind' } }], maxTokens: 5 },
        { signal: controller.signal },
      );
      setTimeout(() => controller.abort(new Error('upstream changed its mind')), 200);
      const outcome = await asked.then(
        () => 'answered',
        (e: Error) => `gave up: ${e.message}`,
      );
      return { content: [{ type: 'text', text: outcome }] };
    });
    upstream.registerTool('ask-when-two-run', { description: 'waits until two calls run, then asks the client to sample' }, async (_args, ctx) => {
      if (++running === 2) bothRunning();
      await both;
      const answer = await ctx.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'who?' } }], maxTokens: 5 }).then(
        (r) => `answered by ${r.model}`,
        (e: Error) => `refused: ${e.message}`,
      );
      return { content: [{ type: 'text', text: answer }] };
    });
    proxy = await McpProxy.open({
      // the 2025 era upstream: server→client requests on the wire (2026-07-28 would make them multi round-trip inputs)
      protocolVersions: ['2025-11-25'],
      upstream: () => {
        const [mine, theirs] = InMemoryTransport.createPair();
        void upstream.connect(theirs);
        return mine;
      },
    });
    http = await serveNode(createStreamableHttpHandler({ server: proxy.server }), { port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    await http?.close();
    await proxy?.close();
  });

  async function sampler(model: string, onAbort?: (reason: unknown) => void): Promise<V1Client> {
    const client = new V1Client({ name: model, version: '1' }, { capabilities: { sampling: {} } });
    client.setRequestHandler(
      CreateMessageRequestSchema,
      (_request, extra) =>
        new Promise((resolve) => {
          if (onAbort === undefined) return resolve({ model, role: 'assistant', content: { type: 'text', text: 'ok' } });
          extra.signal.addEventListener('abort', () => {
            onAbort(extra.signal.reason);
            resolve({ model, role: 'assistant', content: { type: 'text', text: 'late' } });
          });
        }),
    );
    await client.connect(new V1Http(new URL(http.url)));
    return client;
  }

  it("the upstream's notifications/cancelled of its own sampling request reaches the caller", T, async () => {
    let aborted = false;
    const client = await sampler('slow-model', () => (aborted = true));
    try {
      const result = await client.callTool({ name: 'ask-then-give-up', arguments: {} });
      assert.match(text(result), /gave up: .*cancel/);
      await waitFor(() => aborted, "the caller's sampling handler to be cancelled");
    } finally {
      await client.close();
    }
  });

  it("two callers in flight from different connections: the upstream's sampling request is refused, not sent to the wrong caller", T, async () => {
    const [a, b] = await Promise.all([sampler('model-a'), sampler('model-b')]);
    try {
      const results = await Promise.all([a.callTool({ name: 'ask-when-two-run', arguments: {} }), b.callTool({ name: 'ask-when-two-run', arguments: {} })]);
      for (const r of results) assert.match(text(r), /refused: .*cannot tell which of its callers should answer sampling\/createMessage/);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

describe('proxy capabilities', { timeout: SUITE_TIMEOUT_MS }, () => {
  it("a 2026-07-28 upstream's tasks extension is declared to 2026-07-28 callers only (the proxy passes it through); the rest is mirrored", T, async () => {
    const upstream = createDemoServer();
    const proxy = await McpProxy.open({
      upstream: () => {
        const [mine, theirs] = InMemoryTransport.createPair();
        void upstream.connect(theirs);
        return mine;
      },
    });
    try {
      assert.equal(proxy.upstream?.era, 'stateless');
      const declared = (proxy.upstream?.serverCapabilities as { extensions?: Record<string, unknown> } | undefined)?.extensions ?? {};
      assert.ok('io.modelcontextprotocol/tasks' in declared, 'the demo declares the tasks extension');
      const mirrored = proxy.server.statelessCapabilities() as { extensions?: Record<string, unknown>; tools?: unknown; prompts?: unknown };
      assert.deepEqual(mirrored.extensions?.['io.modelcontextprotocol/tasks'], {});
      assert.ok(mirrored.tools && mirrored.prompts);
      // 2025-era callers: no extension among the capabilities `initialize` answers
      const current = proxy.server.capabilities() as { extensions?: Record<string, unknown> };
      assert.ok(!('io.modelcontextprotocol/tasks' in (current.extensions ?? {})));
    } finally {
      await proxy.close();
      await upstream.close();
    }
  });
});
