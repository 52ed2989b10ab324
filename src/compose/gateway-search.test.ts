/**
 * Progressive discovery on a gateway (`search` of createGateway, `gateway.search` of the
 * config file) over two real stdio upstreams (server-everything and server-memory): the
 * caller's tools/list is the meta-tools (and the pinned tools), `search_tools` finds a
 * namespaced tool of each upstream, `call_tool` routes to the right upstream, and a tool the
 * gateway's visibility policy hides is neither found, listed nor callable.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SUITE_TIMEOUT_MS } from '../../test/helpers/bounds.js';
import { REPO_ROOT } from '../../test/helpers/repo.js';
import { transportFactory } from '../client/node/index.js';
import { McpError } from '../jsonrpc/errors.js';
import { connectInMemory, type InMemoryPair } from '../testing/index.js';
import { createGateway, type Gateway } from './gateway.js';
import { gatewayOptions, parseGatewayConfig } from './gateway-config.js';

const pkg = (name: string) => join(REPO_ROOT, 'node_modules', '@modelcontextprotocol', name, 'dist', 'index.js');
const T = { timeout: 30_000 };

interface Found {
  tools: Array<{ name: string; inputSchema?: unknown }>;
}

describe('a gateway with progressive discovery (gateway.search in the file)', { timeout: SUITE_TIMEOUT_MS }, () => {
  let gateway: Gateway;
  let pair: InMemoryPair;
  before(async () => {
    const node = JSON.stringify(process.execPath);
    const config = parseGatewayConfig(`{
      "mcpServers": {
        "everything": { "command": ${node}, "args": [${JSON.stringify(pkg('server-everything'))}, "stdio"] },
        "memory": { "command": ${node}, "args": [${JSON.stringify(pkg('server-memory'))}] }
      },
      "gateway": {
        "search": { "threshold": 5, "pinned": ["memory_read_*"] },
        "visibility": { "default": { "deny": ["memory_delete_*"] } }
      }
    }`);
    gateway = createGateway(
      gatewayOptions(config, (name, spec) => transportFactory(spec, { stderr: 'ignore' })(name), {
        onError: () => {},
      }),
    );
    await gateway.whenReady(20_000);
    pair = await connectInMemory(gateway.server);
  });
  after(async () => {
    await pair?.close();
    await gateway?.close();
  });

  const search = async (query: string): Promise<string[]> => {
    const result = await pair.client.callTool({ name: 'search_tools', arguments: { query, limit: 50 } });
    return ((result.structuredContent as unknown as Found).tools ?? []).map((t) => t.name);
  };

  it('tools/list is the pinned tools and the meta-tools', T, async () => {
    const names = (await pair.client.listTools()).tools.map((t) => t.name);
    assert.deepEqual(names, ['memory_read_graph', 'search_tools', 'call_tool']);
  });

  it('search_tools finds a namespaced tool of each upstream; call_tool routes to it', T, async () => {
    assert.ok((await search('echo message')).includes('everything_echo'));
    assert.ok((await search('create entities knowledge graph')).includes('memory_create_entities'));
    const echoed = await pair.client.callTool({ name: 'call_tool', arguments: { name: 'everything_echo', arguments: { message: 'through search' } } });
    assert.match(JSON.stringify(echoed.content), /Echo: through search/);
    const graph = await pair.client.callTool({ name: 'call_tool', arguments: { name: 'memory_read_graph', arguments: {} } });
    assert.equal(graph.isError, undefined, JSON.stringify(graph));
    assert.match(JSON.stringify(graph.content), /entities/);
  });

  it('a tool the policy hides is not found, not listed, and unknown when called either way', T, async () => {
    const found = await search('delete entities observations relations');
    assert.ok(!found.some((n) => n.startsWith('memory_delete_')), found.join(','));
    assert.ok(found.length > 0, 'the search itself answers');
    for (const call of [
      { name: 'call_tool', arguments: { name: 'memory_delete_entities', arguments: { entityNames: ['x'] } } },
      { name: 'memory_delete_entities', arguments: { entityNames: ['x'] } },
    ]) {
      await assert.rejects(
        pair.client.callTool(call),
        (error: unknown) => error instanceof McpError && error.code === -32602 && /Unknown tool/i.test(error.message),
      );
    }
  });
});

it('gateway.search in the file is checked, naming the field', () => {
  const servers = '"mcpServers": { "a": { "command": "a" } }';
  const bad = (search: string, pattern: RegExp) => assert.throws(() => parseGatewayConfig(`{ ${servers}, "gateway": { "search": ${search} } }`), pattern);
  bad('true', /gateway\.search.*must be an object/);
  bad('{ "treshold": 5 }', /gateway\.search\.treshold.*unknown key/);
  bad('{ "threshold": -1 }', /gateway\.search\.threshold.*0 or more/);
  bad('{ "threshold": 2.5 }', /gateway\.search\.threshold/);
  bad('{ "pinned": "github_*" }', /gateway\.search\.pinned.*array of strings/);
  bad('{ "pinned": [""] }', /gateway\.search\.pinned.*non-empty/);
  bad('{ "maxLimit": 0 }', /gateway\.search\.maxLimit.*at least 1/);
  bad('{ "defaultLimit": 20, "maxLimit": 10 }', /gateway\.search\.defaultLimit.*maxLimit \(10\)/);
  const ok = parseGatewayConfig(`{ ${servers}, "gateway": { "search": { "threshold": 0, "pinned": ["a_*"] } } }`);
  assert.deepEqual(ok.gateway.search, { threshold: 0, pinned: ['a_*'] });
  assert.deepEqual(gatewayOptions(ok, () => Promise.reject(new Error('unused'))).search, { threshold: 0, pinned: ['a_*'] });
});
