/**
 * searchTools(): a server serving the 207 real tool definitions of test/data/tool-catalog.json
 * switches its tools/list to `search_tools` + `call_tool`; search finds by request (recall@5
 * through the meta-tool on the query set beside the catalog), call_tool routes to the real
 * tool, per-caller visibility holds (a hidden tool is neither found nor callable, over
 * Streamable HTTP in both eras, callers told apart by bearer token), a registration or a
 * removal rebuilds the index, a small catalog is left alone, and an official SDK v2 client
 * uses the meta-tools over HTTP.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { bearerAsker } from '../../test/helpers/http/bearer-asker.js';
import { V2026 } from '../../test/helpers/raw-server-client.js';
import { REPO_ROOT } from '../../test/helpers/repo.js';
import { type NodeServerHandle, serveNode } from '../http/node.js';
import { createStreamableHttpHandler } from '../http/server/handler.js';
import type { HttpAuthorizer, HttpRequest } from '../http/server/types.js';
import type { JSONObject } from '../jsonrpc/types.js';
import { McpServer } from '../server/server.js';
import { connectInMemory } from '../testing/in-memory.js';
import type { Tool } from '../types.js';
import { mount } from './mount.js';
import { searchTools } from './search-tools.js';
import type { VisibilityRule } from './visibility.js';

interface Catalog {
  tools: Array<{ source: { package: string }; tool: Tool }>;
}
interface Queries {
  servers: Record<string, string>;
  queries: Array<{ query: string; expected: string[] }>;
}
const catalog = JSON.parse(readFileSync(join(REPO_ROOT, 'test/data/tool-catalog.json'), 'utf8')) as Catalog;
const querySet = JSON.parse(readFileSync(join(REPO_ROOT, 'test/data/tool-search-queries.json'), 'utf8')) as Queries;
const shortOf = new Map(Object.entries(querySet.servers).map(([short, pkg]) => [pkg, short]));

/** Registers every catalog tool as `SERVER.TOOL`; each answers with its name and arguments. */
function registerCatalog(server: McpServer): void {
  for (const { source, tool } of catalog.tools) {
    const name = `${shortOf.get(source.package)}.${tool.name}`;
    server.registerRawTool({ ...tool, name }, (params) => {
      const answer = { called: name, arguments: (params.arguments ?? {}) as JSONObject };
      return { content: [{ type: 'text', text: JSON.stringify(answer) }], structuredContent: answer };
    });
  }
}

function catalogServer(options: Parameters<typeof searchTools>[1] = {}): McpServer {
  const server = new McpServer({ name: 'big', version: '1' });
  registerCatalog(server);
  searchTools(server, options);
  return server;
}

const authorizer: HttpAuthorizer = {
  async authenticate(req: HttpRequest) {
    const who = (req.headers('authorization') ?? '').replace(/^Bearer /, '');
    if (who !== 'admin' && who !== 'user') return { reply: { status: 401, headers: {}, body: '' } };
    return {
      authInfo: { issuer: 'https://as.example', subject: who, clientId: `${who}-app`, scopes: [who], audience: [], expiresAt: undefined, token: who },
    };
  },
  sessionOwner: (info) => (info as { subject?: string }).subject,
};

/** The user sees no GitHub tools and sees memory's create_entities renamed. */
const USER: VisibilityRule = { deny: ['github.*'], tools: { 'memory.create_entities': { name: 'remember', description: 'Remember entities' } } };

/** Asks `server` as `who` over Streamable HTTP in `era` (one session per caller in 2025). */
function asker(server: McpServer, era: '2025' | typeof V2026) {
  const { ask, close } = bearerAsker(server, era, authorizer);
  const result = async (who: string, method: string, params: JSONObject = {}): Promise<JSONObject> => {
    const r = await ask(who, method, params);
    assert.equal(r.error, undefined, `${method} ${JSON.stringify(params)}: ${JSON.stringify(r.error)}`);
    return r.result as JSONObject;
  };
  return { ask, result, close };
}

const toolNames = (result: JSONObject) => (result.tools as JSONObject[]).map((t) => t.name);
const found = (result: JSONObject) => {
  assert.notEqual(result.isError, true, JSON.stringify(result.content));
  return ((result.structuredContent as JSONObject).tools as JSONObject[]).map((t) => t.name as string);
};

for (const era of ['2025', V2026] as const) {
  describe(`searchTools over the 207-tool catalog (${era})`, () => {
    const server = catalogServer({
      pinned: ['memory.read_graph', 'github.get_me*'],
      visibility: ({ scopes }) => (scopes.includes('admin') ? undefined : USER),
    });
    const { ask, result, close } = asker(server, era);
    after(() => close());

    it('lists only the pinned tools the caller may see and the two meta-tools', async () => {
      assert.deepEqual(toolNames(await result('admin', 'tools/list')), ['memory.read_graph', 'search_tools', 'call_tool']);
      assert.deepEqual(toolNames(await result('user', 'tools/list')), ['memory.read_graph', 'search_tools', 'call_tool']);
      const list = await result('admin', 'tools/list');
      const searchDef = (list.tools as JSONObject[]).find((t) => t.name === 'search_tools')!;
      assert.deepEqual((searchDef.inputSchema as JSONObject).required, ['query']);
    });

    it('search_tools finds tools by request, with their input schemas; call_tool routes to the real tool', async () => {
      const hits = await result('admin', 'tools/call', { name: 'search_tools', arguments: { query: 'open a new issue in a github repository', limit: 5 } });
      assert.ok(found(hits).includes('github.create_issue'), found(hits).join(', '));
      assert.equal(found(hits).length, 5);
      const def = ((hits.structuredContent as JSONObject).tools as JSONObject[]).find((t) => t.name === 'github.create_issue')!;
      assert.ok(((def.inputSchema as JSONObject).properties as JSONObject).title !== undefined, 'the definition carries its input schema');
      const called = await result('admin', 'tools/call', {
        name: 'call_tool',
        arguments: { name: 'github.create_issue', arguments: { owner: 'o', repo: 'r', title: 't' } },
      });
      assert.deepEqual(called.structuredContent, { called: 'github.create_issue', arguments: { owner: 'o', repo: 'r', title: 't' } });
      // a real tool is still callable by its name
      const direct = await result('admin', 'tools/call', { name: 'memory.read_graph', arguments: {} });
      assert.deepEqual(direct.structuredContent, { called: 'memory.read_graph', arguments: {} });
    });

    it('a hidden tool is neither found nor callable, through call_tool or directly; renames apply', async () => {
      const hits = found(await result('user', 'tools/call', { name: 'search_tools', arguments: { query: 'create an issue on github', limit: 20 } }));
      assert.ok(hits.length > 0);
      assert.deepEqual(
        hits.filter((n) => n.startsWith('github.')),
        [],
      );
      for (const params of [
        { name: 'call_tool', arguments: { name: 'github.create_issue', arguments: { owner: 'o', repo: 'r', title: 't' } } },
        { name: 'github.create_issue', arguments: { owner: 'o', repo: 'r', title: 't' } },
      ]) {
        const r = await ask('user', 'tools/call', params);
        assert.deepEqual(
          [(r.error as JSONObject | undefined)?.code, (r.error as JSONObject | undefined)?.message],
          [-32602, 'Unknown tool: github.create_issue'],
        );
      }
      const memory = found(await result('user', 'tools/call', { name: 'search_tools', arguments: { query: 'create entities in the knowledge graph memory' } }));
      assert.ok(memory.includes('remember') && !memory.includes('memory.create_entities'), memory.join(', '));
      const renamed = await result('user', 'tools/call', { name: 'call_tool', arguments: { name: 'remember', arguments: { entities: [] } } });
      assert.deepEqual(renamed.structuredContent, { called: 'memory.create_entities', arguments: { entities: [] } });
      const old = await ask('user', 'tools/call', { name: 'call_tool', arguments: { name: 'memory.create_entities', arguments: {} } });
      assert.equal((old.error as JSONObject).code, -32602);
    });

    it('bad meta-tool arguments are tool errors that say what to send', async () => {
      for (const [args, text] of [
        [{}, /needs "query"/],
        [{ query: 'x', limit: 0 }, /"limit" must be an integer from 1 to 50/],
        [{ query: 'x'.repeat(2000) }, /most is 1000/],
      ] as const) {
        const r = await result('admin', 'tools/call', { name: 'search_tools', arguments: args });
        assert.equal(r.isError, true);
        assert.match(((r.content as JSONObject[])[0] as JSONObject).text as string, text);
      }
      const r = await result('admin', 'tools/call', { name: 'call_tool', arguments: { name: 'search_tools', arguments: { query: 'x' } } });
      assert.equal(r.isError, true);
    });
  });
}

describe('searchTools: the index follows the catalog', () => {
  it('recall@5 through search_tools on the query set is at least 0.9', async () => {
    const server = catalogServer();
    const pair = await connectInMemory(server);
    try {
      let sum = 0;
      for (const q of querySet.queries) {
        const r = await pair.client.callTool({ name: 'search_tools', arguments: { query: q.query, limit: 5 } });
        const top = ((r.structuredContent as JSONObject).tools as JSONObject[]).map((t) => t.name);
        const wanted = q.expected.slice(0, 5);
        sum += wanted.filter((k) => top.includes(k)).length / wanted.length;
      }
      const recall = sum / querySet.queries.length;
      assert.ok(recall >= 0.9, `recall@5 ${recall}`);
    } finally {
      await pair.close();
    }
  });

  it('a tool registered or removed later is found or gone at the next search (tools/list_changed)', async () => {
    const server = catalogServer();
    const pair = await connectInMemory(server);
    let changed = 0;
    pair.client.on('notifications/tools/list_changed', () => {
      changed++;
    });
    const search = async (query: string) =>
      ((await pair.client.callTool({ name: 'search_tools', arguments: { query } })).structuredContent as { tools: Array<{ name: string }> }).tools.map(
        (t) => t.name,
      );
    try {
      assert.ok(!(await search('forecast the weather for a city')).includes('weather.forecast'));
      const tool = server.registerTool('weather.forecast', { description: 'Forecast the weather for a city' }, () => 'sunny');
      assert.equal((await search('forecast the weather for a city'))[0], 'weather.forecast');
      assert.deepEqual((await pair.client.callTool({ name: 'call_tool', arguments: { name: 'weather.forecast' } })).content, [{ type: 'text', text: 'sunny' }]);
      tool.remove();
      assert.ok(!(await search('forecast the weather for a city')).includes('weather.forecast'));
      assert.ok(changed >= 1, 'the client was told the list changed');
    } finally {
      await pair.close();
    }
  });

  it('a mounted server’s tools are in the catalog, mounted after searchTools', async () => {
    const outer = new McpServer({ name: 'gateway', version: '1' });
    const inner = new McpServer({ name: 'inner', version: '1' });
    registerCatalog(inner);
    searchTools(outer, { threshold: 10 });
    await mount(outer, 'cat', inner);
    const pair = await connectInMemory(outer);
    try {
      assert.deepEqual(
        (await pair.client.listTools()).tools.map((t) => t.name),
        ['search_tools', 'call_tool'],
      );
      const r = await pair.client.callTool({ name: 'search_tools', arguments: { query: 'take a screenshot of the page', limit: 5 } });
      const names = ((r.structuredContent as JSONObject).tools as JSONObject[]).map((t) => t.name as string);
      assert.ok(names.some((n) => n.startsWith('cat_') || n.startsWith('cat.')) && names.some((n) => n.includes('screenshot')), names.join(', '));
      const first = names.find((n) => n.includes('screenshot'))!;
      const called = await pair.client.callTool({ name: 'call_tool', arguments: { name: first, arguments: { name: 'shot' } } });
      assert.match(String((called.structuredContent as JSONObject).called), /screenshot/);
      // the mounted server's tools/list_changed reaches the index
      const forecast = async () => {
        const r = await pair.client.callTool({ name: 'search_tools', arguments: { query: 'forecast the weather for a city', limit: 3 } });
        return ((r.structuredContent as JSONObject).tools as JSONObject[]).map((t) => t.name as string);
      };
      assert.ok(!(await forecast()).some((n) => n.includes('weather_forecast')));
      inner.registerTool('weather_forecast', { description: 'Forecast the weather for a city' }, () => 'sunny');
      let latest: string[] = [];
      for (let i = 0; i < 200 && !latest.some((n) => n.includes('weather_forecast')); i++) {
        latest = await forecast();
        if (!latest.some((n) => n.includes('weather_forecast'))) await new Promise((r) => setTimeout(r, 25));
      }
      assert.ok(latest[0]?.includes('weather_forecast'), latest.join(', '));
    } finally {
      await pair.close();
    }
  });

  it('a catalog at or below the threshold is listed as it is and the meta-names stay unknown', async () => {
    const server = new McpServer({ name: 'small', version: '1' });
    server.registerTool('echo', {}, () => 'e');
    searchTools(server, { threshold: 1 });
    const pair = await connectInMemory(server);
    try {
      assert.deepEqual(
        (await pair.client.listTools()).tools.map((t) => t.name),
        ['echo'],
      );
      await assert.rejects(pair.client.callTool({ name: 'search_tools', arguments: { query: 'echo' } }), /Unknown tool: search_tools/);
      server.registerTool('echo2', {}, () => 'e2');
      assert.deepEqual(
        (await pair.client.listTools()).tools.map((t) => t.name),
        ['search_tools', 'call_tool'],
      );
    } finally {
      await pair.close();
    }
  });

  it('refuses bad options', () => {
    const s = new McpServer({ name: 's', version: '1' });
    assert.throws(() => searchTools(s, { threshold: -1 }), RangeError);
    assert.throws(() => searchTools(s, { maxLimit: 5, defaultLimit: 6 }), /defaultLimit must be an integer from 1 to maxLimit/);
    assert.throws(() => searchTools(s, { pinned: [''] }), TypeError);
  });
});

describe('searchTools with an official SDK v2 client over HTTP', () => {
  let node: NodeServerHandle;
  before(async () => {
    node = await serveNode(createStreamableHttpHandler({ server: catalogServer() }), { port: 0, host: '127.0.0.1' });
  });
  after(() => node.close());

  it('lists the meta-tools, searches and calls through them', async () => {
    const client = new V2Client({ name: 'v2-host', version: '1' });
    await client.connect(new V2Transport(new URL(node.url)));
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((t) => t.name),
        ['search_tools', 'call_tool'],
      );
      const hits = await client.callTool({ name: 'search_tools', arguments: { query: 'read a file from disk', limit: 3 } });
      const names = ((hits.structuredContent as JSONObject).tools as JSONObject[]).map((t) => t.name as string);
      assert.ok(names.includes('filesystem.read_text_file') || names.includes('filesystem.read_file'), names.join(', '));
      const called = await client.callTool({ name: 'call_tool', arguments: { name: names[0], arguments: { path: '/tmp/x' } } });
      assert.deepEqual(called.structuredContent, { called: names[0], arguments: { path: '/tmp/x' } });
    } finally {
      await client.close();
    }
  });
});
