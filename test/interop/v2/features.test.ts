/**
 * Interop with the OFFICIAL TypeScript SDK v2, beyond the basics of official-client.test.ts
 * and mcpkit-client.test.ts: what each side streams besides the result (logging, progress),
 * `subscriptions/listen` in both directions, `Mcp-Param-*` header mirroring, unknown-tool
 * errors, and era negotiation against a peer that does not serve the era asked for.
 *
 * v2 behaviours recorded here (not bugs of either side, but differences a user meets):
 * - The v2 client refuses `setLoggingLevel()` on a 2026-07-28 connection (SdkError
 *   METHOD_NOT_SUPPORTED_BY_PROTOCOL_VERSION); the level goes per request in `_meta`
 *   (`io.modelcontextprotocol/logLevel`) instead.
 * - v2's strict handler (`legacy: 'reject'`) answers a 2025-era `initialize` with the
 *   unsupported-protocol-version error, so a 2025-only client cannot connect at all.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LOG_LEVEL_META_KEY, SdkError, StreamableHTTPClientTransport, Client as V2Client } from '@modelcontextprotocol/client';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { ALL_REVISIONS, Client } from '../../../src/client/index.js';
import { createDemoServer } from '../../../src/demo/server.js';
import { StreamableHttpClientTransport } from '../../../src/http/client/streamable.js';
import { type NodeServerHandle, serveNode } from '../../../src/http/node.js';
import { createStreamableHttpHandler } from '../../../src/http/server/handler.js';
import { McpError } from '../../../src/jsonrpc/errors.js';
import type { JSONObject } from '../../../src/jsonrpc/types.js';
import { SUITE_TIMEOUT_MS } from '../../helpers/bounds.js';
import { waitFor } from '../../helpers/wait.js';
import { createV2Server, type FetchServer, serveFetch } from './fixtures/v2-server.js';

const TIMEOUT = { timeout: 10_000 };
const T = { timeoutMs: 10_000 };

function firstText(result: unknown): string {
  const content = (result as { content?: Array<{ type?: string; text?: string }> }).content;
  assert.ok(Array.isArray(content), 'result has a content array');
  return String(content[0]?.text);
}

/** Polls `condition` every 10 ms; rejects after `ms` naming `what`. */
let demo: NodeServerHandle;
let demo2025Only: NodeServerHandle;
const v2Handler = createMcpHandler(() => createV2Server());
const v2Strict = createMcpHandler(() => createV2Server(), { legacy: 'reject' });
let v2: FetchServer;
let v2StrictServer: FetchServer;
before(async () => {
  demo = await serveNode(createStreamableHttpHandler({ server: createDemoServer({ tasks: false }) }), { port: 0, host: '127.0.0.1' });
  demo2025Only = await serveNode(createStreamableHttpHandler({ server: createDemoServer({ tasks: false }), statelessEra: false }), {
    port: 0,
    host: '127.0.0.1',
  });
  v2 = await serveFetch((request) => v2Handler.fetch(request));
  v2StrictServer = await serveFetch((request) => v2Strict.fetch(request));
});
after(async () => {
  await demo?.close();
  await demo2025Only?.close();
  await v2Handler.close();
  await v2Strict.close();
  await v2?.close();
  await v2StrictServer?.close();
});

describe('official v2 client → mcpkit demo: streams, subscriptions, headers', { timeout: SUITE_TIMEOUT_MS }, () => {
  it('2026-07-28: per-request log level, progress, Mcp-Param-* headers, unknown tool', async () => {
    const headers: Headers[] = [];
    const client = new V2Client({ name: 'v2-client', version: '2.4.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    const transport = new StreamableHTTPClientTransport(new URL(demo.url), {
      fetch: (url, init) => {
        headers.push(new Headers(init?.headers));
        return fetch(url, init);
      },
    });
    await client.connect(transport, TIMEOUT);
    try {
      // v2 refuses logging/setLevel in this era (recorded behaviour, see the module note)
      await assert.rejects(
        client.setLoggingLevel('debug'),
        (err: unknown) => err instanceof SdkError && err.code === 'METHOD_NOT_SUPPORTED_BY_PROTOCOL_VERSION',
      );
      const logs: unknown[] = [];
      client.setNotificationHandler('notifications/message', (n) => void logs.push(n.params.data));
      const logged = await client.callTool({ name: 'test_logging_tool', arguments: {}, _meta: { [LOG_LEVEL_META_KEY]: 'debug' } }, TIMEOUT);
      assert.equal(firstText(logged), 'Logged three messages');
      assert.deepEqual(logs, ['Logging tool started', 'Logging tool working', 'Logging tool finished']);
      // without a level in _meta the server sends no log messages
      await client.callTool({ name: 'test_logging_tool', arguments: {} }, TIMEOUT);
      assert.equal(logs.length, 3);

      const progress: Array<{ progress: number; total?: number }> = [];
      await client.callTool({ name: 'test_tool_with_progress', arguments: {} }, { ...TIMEOUT, onprogress: (p) => void progress.push(p) });
      assert.deepEqual(
        progress.map((p) => p.progress),
        [0, 50, 100],
      );

      await client.listTools(undefined, TIMEOUT); // v2 mirrors x-mcp-header arguments from the cached tool list
      headers.length = 0;
      const r = await client.callTool({ name: 'test_custom_headers', arguments: { region: 'eu-west', priority: 3, verbose: true, query: 'q' } }, TIMEOUT);
      assert.equal(firstText(r), 'region=eu-west priority=3 verbose=true query=q');
      const h = headers[0]!;
      assert.equal(h.get('mcp-method'), 'tools/call');
      assert.equal(h.get('mcp-name'), 'test_custom_headers');
      assert.equal(h.get('mcp-param-region'), 'eu-west');
      assert.equal(h.get('mcp-param-priority'), '3');
      assert.equal(h.get('mcp-param-verbose'), 'true');
      assert.equal(h.get('mcp-param-query'), null);

      await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }, TIMEOUT), (err: unknown) => (err as { code?: unknown }).code === -32602);
    } finally {
      await client.close();
    }
  });

  it('2026-07-28: subscriptions/listen delivers tools/list_changed; close ends it locally', async () => {
    const client = new V2Client({ name: 'v2-client', version: '2.4.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new StreamableHTTPClientTransport(new URL(demo.url)), TIMEOUT);
    try {
      const changed: unknown[] = [];
      client.setNotificationHandler('notifications/tools/list_changed', (n) => void changed.push(n.params));
      const sub = await client.listen({ toolsListChanged: true }, TIMEOUT);
      assert.deepEqual(sub.honoredFilter, { toolsListChanged: true });
      await client.callTool({ name: 'test_trigger_tool_change', arguments: {} }, TIMEOUT);
      await waitFor(() => changed.length > 0, 'tools/list_changed on the listen stream');
      const meta = (changed[0] as { _meta?: Record<string, unknown> })._meta;
      assert.ok(meta?.['io.modelcontextprotocol/subscriptionId'] !== undefined, 'the notification names its subscription');
      await sub.close();
      assert.equal(await sub.closed, 'local');
      await client.callTool({ name: 'test_trigger_tool_change', arguments: {} }, TIMEOUT); // toggle back
    } finally {
      await client.close();
    }
  });

  it('2025: logging/setLevel, progress, and list_changed on the GET stream', async () => {
    const changed: unknown[] = [];
    const client = new V2Client({ name: 'v2-client', version: '2.4.0' });
    client.setNotificationHandler('notifications/tools/list_changed', () => void changed.push(1));
    await client.connect(new StreamableHTTPClientTransport(new URL(demo.url)), TIMEOUT);
    try {
      const logs: unknown[] = [];
      client.setNotificationHandler('notifications/message', (n) => void logs.push(n.params.data));
      await client.setLoggingLevel('debug', TIMEOUT);
      await client.callTool({ name: 'test_logging_tool', arguments: {} }, TIMEOUT);
      assert.deepEqual(logs, ['Logging tool started', 'Logging tool working', 'Logging tool finished']);
      const progress: number[] = [];
      await client.callTool({ name: 'test_tool_with_progress', arguments: {} }, { ...TIMEOUT, onprogress: (p) => void progress.push(p.progress) });
      assert.deepEqual(progress, [0, 50, 100]);
      await client.callTool({ name: 'toggle_extra_tool', arguments: {} }, TIMEOUT);
      await waitFor(() => changed.length > 0, 'tools/list_changed');
      assert.ok((await client.listTools(undefined, TIMEOUT)).tools.some((t) => t.name === 'extra'));
      await client.callTool({ name: 'toggle_extra_tool', arguments: {} }, TIMEOUT);
    } finally {
      await client.close();
    }
  });
});

describe('era negotiation between v2 and mcpkit when one side lacks an era', { timeout: SUITE_TIMEOUT_MS }, () => {
  it("v2 'auto' falls back to initialize against an mcpkit server without the 2026 era; a pinned v2 client fails loudly", async () => {
    const auto = new V2Client({ name: 'v2-client', version: '2.4.0' }, { versionNegotiation: { mode: 'auto' } });
    await auto.connect(new StreamableHTTPClientTransport(new URL(demo2025Only.url)), TIMEOUT);
    try {
      assert.equal(auto.getProtocolEra(), 'legacy');
      assert.equal(auto.getNegotiatedProtocolVersion(), '2025-11-25');
      assert.equal(firstText(await auto.callTool({ name: 'echo', arguments: { message: 'fell back' } }, TIMEOUT)), 'fell back');
    } finally {
      await auto.close();
    }
    const pinned = new V2Client({ name: 'v2-client', version: '2.4.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    // the 2025-only server answers the probe with 400 (no session id); pin mode has no fallback
    await assert.rejects(
      pinned.connect(new StreamableHTTPClientTransport(new URL(demo2025Only.url)), TIMEOUT),
      (err: unknown) => err instanceof SdkError && err.code === 'ERA_NEGOTIATION_FAILED',
    );
    await pinned.close();
  });

  it("a 2025-only mcpkit client is refused by v2's strict handler; a dual-era one gets in", async () => {
    const only2025 = new Client({ name: 'mcpkit-client', version: '0.1.0' });
    await assert.rejects(only2025.connect(new StreamableHttpClientTransport({ url: v2StrictServer.url }), T), (err: unknown) => {
      assert.ok(err instanceof McpError, String(err));
      assert.equal(err.code, -32022, 'unsupported protocol version');
      assert.deepEqual((err.data as JSONObject | undefined)?.supported, ['2026-07-28']);
      return true;
    });
    await only2025.close();
    const dual = new Client({ name: 'mcpkit-client', version: '0.1.0' }, { protocolVersions: ALL_REVISIONS });
    await dual.connect(new StreamableHttpClientTransport({ url: v2StrictServer.url }), T);
    try {
      assert.equal(dual.era, 'stateless');
      assert.equal(firstText(await dual.callTool({ name: 'echo', arguments: { message: 'strict' } }, T)), 'strict');
    } finally {
      await dual.close();
    }
  });
});

describe('mcpkit client → official v2 server: streams, subscriptions, errors', { timeout: SUITE_TIMEOUT_MS }, () => {
  it("2026-07-28: subscriptions/listen delivers v2's handler.notify events", async () => {
    const client = new Client({ name: 'mcpkit-client', version: '0.1.0' }, { protocolVersions: ALL_REVISIONS });
    await client.connect(new StreamableHttpClientTransport({ url: v2.url }), T);
    try {
      const got: Array<[string, JSONObject | undefined]> = [];
      const sub = await client.listen(
        { toolsListChanged: true, resourcesListChanged: true },
        { onNotification: (method, params) => void got.push([method, params]) },
      );
      assert.deepEqual(sub.notifications, { toolsListChanged: true, resourcesListChanged: true });
      v2Handler.notify.toolsChanged();
      v2Handler.notify.promptsChanged(); // not subscribed: must not arrive
      v2Handler.notify.resourcesChanged();
      await waitFor(() => got.length >= 2, 'two change notifications');
      assert.deepEqual(
        got.map(([m]) => m),
        ['notifications/tools/list_changed', 'notifications/resources/list_changed'],
      );
      assert.equal(got[0]![1]?._meta && (got[0]![1]._meta as JSONObject)['io.modelcontextprotocol/subscriptionId'], sub.id);
      sub.close();
      await assert.rejects(sub.ended);
    } finally {
      await client.close();
    }
  });

  it('2026-07-28: the per-request log level reaches v2 and its log message comes back; unknown tool is -32602', async () => {
    const client = new Client({ name: 'mcpkit-client', version: '0.1.0' }, { protocolVersions: ALL_REVISIONS });
    const logs: unknown[] = [];
    client.on('notifications/message', (p) => void logs.push(p?.data));
    await client.connect(new StreamableHttpClientTransport({ url: v2.url }), T);
    try {
      await client.setLoggingLevel('info');
      assert.equal(firstText(await client.callTool({ name: 'log', arguments: {} }, T)), 'logged');
      assert.deepEqual(logs, ['hello from the v2 logger']);
      await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }, T), (err: unknown) => err instanceof McpError && err.code === -32602);
    } finally {
      await client.close();
    }
  });

  it("2025 (v2's stateless fallback): logging/setLevel is accepted and the log message arrives on the call's stream", async () => {
    const client = new Client({ name: 'mcpkit-client', version: '0.1.0' });
    const logs: unknown[] = [];
    client.on('notifications/message', (p) => void logs.push(p?.data));
    await client.connect(new StreamableHttpClientTransport({ url: v2.url }), T);
    try {
      await client.setLoggingLevel('info', T);
      assert.equal(firstText(await client.callTool({ name: 'log', arguments: {} }, T)), 'logged');
      assert.deepEqual(logs, ['hello from the v2 logger']);
      await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }, T), (err: unknown) => err instanceof McpError && err.code === -32602);
    } finally {
      await client.close();
    }
  });
});
