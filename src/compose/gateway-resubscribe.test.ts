/**
 * Resource subscriptions made through a gateway survive an upstream restart: a 2025-era
 * caller (the official SDK v1 client over HTTP) subscribes to a resource of an mcpkit
 * upstream served over HTTP, the upstream goes away (its process state with it: a new server
 * comes back on the same port), the gateway reconnects it, and an update of the resource on
 * the NEW upstream still reaches the caller. Run with an upstream that speaks both eras
 * (the gateway's client picks 2026-07-28: subscriptions/listen) and one that speaks only the
 * 2025 revisions (resources/subscribe). A second upstream (server-memory, stdio) serves beside it.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { SUITE_TIMEOUT_MS } from '../../test/helpers/bounds.js';
import { REPO_ROOT } from '../../test/helpers/repo.js';
import { waitFor } from '../../test/helpers/wait.js';
import { StreamableHttpClientTransport } from '../http/client/streamable.js';
import { type NodeServerHandle, serveNode } from '../http/node.js';
import { createStreamableHttpHandler } from '../http/server/handler.js';
import { McpServer } from '../server/server.js';
import { StdioClientTransport } from '../stdio/index.js';
import { createGateway } from './gateway.js';

const MEMORY = join(REPO_ROOT, 'node_modules', '@modelcontextprotocol', 'server-memory', 'dist', 'index.js');
const STATEFUL = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];

/** An mcpkit upstream over HTTP on `port` with one resource and a tool that announces it changed. */
async function upstream(port: number, protocolVersions: readonly string[] | undefined): Promise<{ http: NodeServerHandle; server: McpServer }> {
  const server = new McpServer({ name: 'feed', version: '1.0.0' }, protocolVersions === undefined ? {} : { protocolVersions });
  server.registerResource('feed://news', { name: 'news' }, (uri) => ({ contents: [{ uri, text: 'latest news' }] }));
  const http = await serveNode(createStreamableHttpHandler({ server }), { port, host: '127.0.0.1' });
  return { http, server };
}

for (const [label, versions] of [
  ['an upstream of both eras (2026-07-28 subscriptions/listen upstream)', undefined],
  ['a 2025-era upstream (resources/subscribe upstream)', STATEFUL],
] as const) {
  describe(`subscriptions through a gateway after a restart of ${label}`, { timeout: SUITE_TIMEOUT_MS }, () => {
    it('the caller subscribed before the restart gets the update made on the restarted upstream', { timeout: 60_000 }, async () => {
      let up = await upstream(0, versions);
      const port = up.http.port;
      const gateway = createGateway({
        upstreams: {
          feed: { transport: () => new StreamableHttpClientTransport({ url: `http://127.0.0.1:${port}/mcp` }) },
          memory: { transport: () => new StdioClientTransport({ command: process.execPath, args: [MEMORY], stderr: 'ignore' }) },
        },
        restart: { initialDelayMs: 100, maxDelayMs: 400 },
        healthCheck: { intervalMs: 200, timeoutMs: 3000 },
        onError: () => {},
      });
      const front = await serveNode(gateway.handler, { port: 0, host: '127.0.0.1' });
      const caller = new V1Client({ name: 'subscriber', version: '1.0.0' });
      try {
        await gateway.whenReady(20_000);
        await caller.connect(new V1Http(new URL(`http://127.0.0.1:${front.port}/mcp`)));
        const updates: string[] = [];
        caller.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
        const uri = (await caller.listResources()).resources.find((r) => r.name === 'news')!.uri;
        assert.equal(uri, 'mcpkit+mount://feed/feed://news');
        await caller.subscribeResource({ uri });
        await up.server.notifyResourceUpdated('feed://news');
        await waitFor(() => updates.length === 1, 'the update before the restart', 10_000);
        // the upstream goes away with its state; a new one comes back on the same port
        await up.http.close();
        await up.server.close();
        const state = () => gateway.status().find((s) => s.name === 'feed')!.state;
        await waitFor(() => state() !== 'up', 'the upstream withdrawn', 20_000);
        up = await upstream(port, versions);
        await gateway.whenReady(20_000);
        // the new upstream was subscribed again: its update reaches the caller
        for (let round = 0; updates.length < 2; round++) {
          assert.ok(round < 50, 'the update of the restarted upstream reaches the caller through the gateway');
          await up.server.notifyResourceUpdated('feed://news');
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        assert.deepEqual(new Set(updates), new Set([uri]));
        if (versions !== undefined) {
          // 2025 era: the restarted upstream holds the subscription, and the caller's unsubscribe reaches it
          const held = () => [...up.server.connections].some((c) => c.subscriptions.has('feed://news'));
          assert.equal(held(), true);
          await caller.unsubscribeResource({ uri });
          assert.equal(held(), false);
        }
      } finally {
        await caller.close().catch(() => {});
        await front.close();
        await gateway.close();
        await up.http.close();
      }
    });
  });
}
