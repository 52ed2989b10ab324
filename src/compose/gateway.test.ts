/**
 * createGateway itself: option checks, an upstream merged without a prefix beside a prefixed
 * one (server-everything and server-memory over stdio), the web-standard `fetch` entry
 * (health, readiness and MCP requests), and readiness while a required upstream cannot start.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SUITE_TIMEOUT_MS } from '../../test/helpers/bounds.js';
import { REPO_ROOT } from '../../test/helpers/repo.js';
import { waitFor } from '../../test/helpers/wait.js';
import { StreamableHttpClientTransport } from '../http/client/streamable.js';
import { type NodeServerHandle, serveNode } from '../http/node.js';
import { createStreamableHttpHandler } from '../http/server/handler.js';
import { McpServer } from '../server/server.js';
import { StdioClientTransport } from '../stdio/index.js';
import { connectInMemory } from '../testing/index.js';
import { createGateway, type Gateway } from './gateway.js';

const pkg = (name: string) => join(REPO_ROOT, 'node_modules', '@modelcontextprotocol', name, 'dist', 'index.js');
const stdio =
  (file: string, args: string[] = []) =>
  () =>
    new StdioClientTransport({ command: process.execPath, args: [file, ...args], stderr: 'ignore' });
const T = { timeout: 30_000 };

/** One JSON-RPC POST through `gateway.fetch` (2025 era, no session: the reply of a stateless-era request). */
async function post(gateway: Gateway, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return gateway.fetch(
    new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(body),
    }),
  );
}

it('refuses names that cannot be prefixes, shared prefixes and bad health paths', () => {
  const transport = stdio(pkg('server-memory'));
  assert.throws(() => createGateway({ upstreams: { my_server: { transport } } }), /my_server.*separator/);
  assert.throws(() => createGateway({ upstreams: { 'a@b': { transport } } }), /"a@b"/);
  assert.throws(() => createGateway({ upstreams: { a: { transport }, b: { transport, prefix: 'a' } } }), /share the prefix "a"/);
  assert.throws(() => createGateway({ upstreams: { a: { transport } }, healthPath: '/mcp' }), /differ from the MCP endpoint/);
});

describe('a gateway on the web-standard fetch entry', { timeout: SUITE_TIMEOUT_MS }, () => {
  let gateway: Gateway;
  before(async () => {
    gateway = createGateway({
      upstreams: {
        everything: { transport: stdio(pkg('server-everything'), ['stdio']), prefix: '' },
        memory: { transport: stdio(pkg('server-memory')) },
        broken: { transport: stdio('-e', ['process.exit(3)']), required: false },
      },
      restart: { initialDelayMs: 100, maxDelayMs: 400 },
      onError: () => {},
    });
    await gateway.whenReady(20_000);
  });
  after(async () => {
    await gateway?.close();
  });

  it('merges the unprefixed upstream beside the prefixed one; health and readiness answer on fetch', T, async () => {
    const discover = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
    const listed = await post(
      gateway,
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: discover } },
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
    );
    assert.equal(listed.status, 200, await listed.clone().text());
    const names = ((await listed.json()) as { result: { tools: Array<{ name: string }> } }).result.tools.map((t) => t.name);
    assert.ok(names.includes('echo') && names.includes('memory_read_graph'), names.join(','));
    assert.ok(!names.some((n) => n.startsWith('everything_')));
    const called = await post(
      gateway,
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { message: 'merged' }, _meta: discover } },
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'echo' },
    );
    assert.match(await called.text(), /Echo: merged/);
    const health = await gateway.fetch(new Request('http://127.0.0.1/healthz'));
    assert.equal(health.status, 200);
    const ready = await gateway.fetch(new Request('http://127.0.0.1/readyz'));
    assert.equal(ready.status, 200, 'the broken upstream is optional');
    const body = (await ready.json()) as { status: string; upstreams: Array<{ name: string; state: string; required: boolean }> };
    assert.equal(body.status, 'ready');
    assert.deepEqual(
      body.upstreams.map((u) => u.name),
      ['everything', 'memory', 'broken'],
    );
    assert.notEqual(body.upstreams[2]!.state, 'up');
    assert.equal(gateway.status()[2]!.failures > 0, true);
    const head = await gateway.fetch(new Request('http://127.0.0.1/readyz', { method: 'HEAD' }));
    assert.equal(head.status, 200);
    assert.equal(await head.text(), '');
  });
});

describe('an HTTP upstream that goes away', { timeout: SUITE_TIMEOUT_MS }, () => {
  /** An mcpkit server over HTTP on `port` (0: a free one). */
  function upstream(port: number): Promise<NodeServerHandle> {
    // logs only errors until a client sets a level
    const server = new McpServer({ name: 'http-upstream', version: '1.0.0' }, { defaultLogLevel: 'error' });
    server.registerTool('hello', { description: 'Says hello' }, () => 'hello over http');
    server.registerTool('chatty', { description: 'Logs at debug level' }, async (_args, ctx) => {
      await ctx.log('debug', 'a detail from upstream');
      return 'said it';
    });
    return serveNode(createStreamableHttpHandler({ server }), { port, host: '127.0.0.1' });
  }

  it('is found by the health check, withdrawn, reconnected with backoff once it is back, and served again', { timeout: 40_000 }, async () => {
    let http = await upstream(0);
    const port = http.port;
    const gateway = createGateway({
      upstreams: {
        remote: { transport: () => new StreamableHttpClientTransport({ url: `http://127.0.0.1:${port}/mcp` }) },
        memory: { transport: stdio(pkg('server-memory')) },
      },
      restart: { initialDelayMs: 100, maxDelayMs: 400 },
      healthCheck: { intervalMs: 200, timeoutMs: 3000 },
      onError: () => {},
    });
    try {
      await gateway.whenReady(20_000);
      const state = () => gateway.status().find((s) => s.name === 'remote')!;
      assert.equal(state().tools, 2);
      await http.close();
      await waitFor(() => state().state !== 'up', 'the remote upstream withdrawn', 20_000);
      assert.equal(state().tools, 0);
      assert.equal(gateway.ready, false);
      assert.equal((await gateway.fetch(new Request('http://127.0.0.1/readyz'))).status, 503);
      // the stdio upstream serves meanwhile
      assert.equal(gateway.status().find((s) => s.name === 'memory')!.state, 'up');
      http = await upstream(port);
      await gateway.whenReady(20_000);
      assert.equal(state().tools, 2);
      // the caller's log level reaches the (reconnected) upstream: its debug messages come through
      const { client, close } = await connectInMemory(gateway.server);
      try {
        const logs: unknown[] = [];
        client.on('notifications/message', (params) => void logs.push(params?.data));
        await client.setLoggingLevel('debug');
        assert.deepEqual((await client.callTool({ name: 'remote_chatty', arguments: {} })).content, [{ type: 'text', text: 'said it' }]);
        await waitFor(() => logs.includes('a detail from upstream'), 'the upstream debug log through the gateway', 10_000);
      } finally {
        await close();
      }
    } finally {
      await gateway.close();
      await http.close();
    }
  });
});
