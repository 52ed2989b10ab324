/**
 * SEP-2243 through a mount and a gateway: the HTTP front of a server checks a 2026-07-28
 * `tools/call`'s `Mcp-Param-*` headers against the input schema of a MOUNTED tool (an
 * in-process server mounted under a prefix; the demo behind a gateway, merged and
 * prefixed), as it does for its own tools: a header that does not match its argument gets
 * 400 with -32020, a matching one passes.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SUITE_TIMEOUT_MS } from '../../test/helpers/bounds.js';
import { makeHandler, rpc } from '../../test/helpers/http/server-harness.js';
import { inMemory } from '../../test/helpers/memory-upstream.js';
import { createDemoServer } from '../demo/server.js';
import type { JSONObject } from '../jsonrpc/types.js';
import { McpServer } from '../server/server.js';
import { createGateway } from './gateway.js';
import { mount } from './mount.js';

const T = { timeout: 20_000 };

/** Calls `tool` with `{ region: 'eu' }` and the header `Mcp-Param-Region: region`; the status and the JSON-RPC error code. */
async function call(fetch: (request: Request) => Promise<Response>, tool: string, region: string): Promise<{ status: number; code: unknown }> {
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
  const res = await fetch(
    new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': tool,
        'mcp-param-region': region,
      },
      body: JSON.stringify(rpc(1, 'tools/call', { name: tool, arguments: { region: 'eu' }, _meta: meta })),
    }),
  );
  const json = (await res.json()) as JSONObject;
  return { status: res.status, code: (json.error as JSONObject | undefined)?.code };
}

describe('Mcp-Param-* headers are checked against mounted tools (SEP-2243)', { timeout: SUITE_TIMEOUT_MS }, () => {
  it('a server that mounts another under a prefix: its HTTP front refuses a mismatched header of the mounted tool', T, async () => {
    const inner = new McpServer({ name: 'inner', version: '1' });
    inner.registerTool('where', { inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } } }, (args) => ({
      content: [{ type: 'text', text: String((args as { region?: unknown }).region) }],
    }));
    const outer = new McpServer({ name: 'outer', version: '1' });
    await mount(outer, 'up', inner);
    assert.ok(outer.toolInputSchema('up_where') !== undefined, 'the lookup sees the mounted tool');
    assert.equal(outer.toolInputSchema('where'), undefined, 'under its outer name only');
    const handler = makeHandler({ server: outer });
    try {
      assert.deepEqual(await call((r) => handler.fetch(r), 'up_where', 'us'), { status: 400, code: -32020 });
      assert.deepEqual(await call((r) => handler.fetch(r), 'up_where', 'eu'), { status: 200, code: undefined });
    } finally {
      await handler.close();
    }
  });

  for (const prefix of ['', 'demo'] as const) {
    it(
      `a gateway in front of the demo (${prefix === '' ? 'merged' : 'prefixed'}): a mismatched header of its annotated tool gets 400 / -32020`,
      T,
      async () => {
        const demo = createDemoServer();
        const gateway = createGateway({ upstreams: { demo: { transport: inMemory(demo), prefix } }, healthCheck: false, onError: () => {} });
        try {
          await gateway.whenReady(10_000);
          const tool = prefix === '' ? 'test_custom_headers' : 'demo_test_custom_headers';
          assert.deepEqual(await call((r) => gateway.fetch(r), tool, 'us'), { status: 400, code: -32020 });
          assert.deepEqual(await call((r) => gateway.fetch(r), tool, 'eu'), { status: 200, code: undefined });
        } finally {
          await gateway.close();
          await demo.close();
        }
      },
    );
  }
});
