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
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as V2Client, StreamableHTTPClientTransport as V2Http } from '@modelcontextprotocol/client';
import { REPO_ROOT } from '../../test/helpers/repo.js';
import { waitFor } from '../../test/helpers/wait.js';
import { SUITE_TIMEOUT_MS } from '../../test/helpers/bounds.js';
import { InvalidTokenError, requireBearerAuth, type AuthInfo } from '../auth/index.js';
import { createDemoServer } from '../demo/server.js';
import { StreamableHttpClientTransport } from '../http/client/streamable.js';
import { serveNode, type NodeServerHandle } from '../http/node.js';
import { createStreamableHttpHandler } from '../http/server/handler.js';
import type { JSONObject } from '../jsonrpc/types.js';
import { StdioClientTransport } from '../stdio/index.js';
import type { Transport } from '../transport/types.js';
import { McpProxy } from './proxy.js';

const EVERYTHING = join(REPO_ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const T = { timeout: 20_000 };

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
      assert.deepEqual(resources, direct.map((r) => r.uri));
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

  it('progress flows down under the caller\'s token; the caller\'s cancel reaches the upstream', T, async () => {
    const client = await v1();
    try {
      const progress: number[] = [];
      const done = await client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } }, undefined, { onprogress: (p) => void progress.push(p.progress) });
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

  it('logging/setLevel goes upstream and the upstream\'s log messages reach the caller', T, async () => {
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

  it('era bridging: a 2026-07-28 v2 client through the proxy to the 2025-era stdio upstream, sampling as a multi round-trip input', T, async () => {
    const client = new V2Client({ name: 'v2-caller', version: '2.0.0' }, { capabilities: { sampling: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } });
    client.setRequestHandler('sampling/createMessage', async () => ({ model: 'v2-model', role: 'assistant', content: { type: 'text', text: 'from v2' } }));
    await client.connect(new V2Http(new URL(http.url)));
    try {
      const tools = await client.listTools();
      assert.ok(tools.tools.some((t) => t.name === 'echo'));
      assert.equal(text(await client.callTool({ name: 'echo', arguments: { message: 'stateless' } })), 'Echo: stateless');
      const sampled = await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'from 2026', maxTokens: 5 } });
      assert.match(text(sampled), /v2-model/);
    } finally {
      await client.close();
    }
  });
});

describe('proxy in front of mcpkit\'s demo over HTTP (2026-07-28 upstream), with auth on both sides', { timeout: SUITE_TIMEOUT_MS }, () => {
  let upstream: NodeServerHandle;
  let proxy: McpProxy;
  let http: NodeServerHandle;
  const tokensSeenUpstream: string[] = [];
  const authorizationsSeenUpstream: string[] = [];
  before(async () => {
    const info = (subject: string, resource: string): AuthInfo => ({ issuer: 'https://as.example', subject, clientId: subject, scopes: [], audience: [resource], expiresAt: undefined, tokenId: undefined, claims: {} });
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
    proxy = await McpProxy.open({ upstream: () => new StreamableHttpClientTransport({ url: upstream.url, headers: { authorization: 'Bearer proxy-own-token' } }) });
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

  it('no token passthrough: the caller authenticates to the proxy, the upstream sees only the proxy\'s token', T, async () => {
    // without the caller's token the proxy refuses (its own resource-server check)
    const anonymous = new V1Client({ name: 'anon', version: '1' });
    await assert.rejects(anonymous.connect(new V1Http(new URL(http.url))));
    const client = new V1Client({ name: 'v1-2025-caller', version: '1.0.0' });
    await client.connect(new V1Http(new URL(http.url), { requestInit: { headers: { authorization: 'Bearer caller-token' } } }));
    try {
      assert.match(client.getServerVersion()?.name ?? '', /mcpkit-demo/);
      // era bridging: a 2025 caller, a 2026-07-28 upstream
      const result = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
      assert.match(text(result), /5/);
      const logs: unknown[] = [];
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params.data));
      await client.setLoggingLevel('debug');
      await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
      await waitFor(() => logs.length >= 3, 'the upstream\'s log messages');
      assert.ok(tokensSeenUpstream.length > 0);
      assert.deepEqual([...new Set(tokensSeenUpstream)], ['proxy-own-token']);
      assert.ok(authorizationsSeenUpstream.every((a) => a === 'Bearer proxy-own-token'), authorizationsSeenUpstream.join(','));
      assert.ok(!authorizationsSeenUpstream.some((a) => a.includes('caller-token')));
    } finally {
      await client.close();
    }
  });
});
