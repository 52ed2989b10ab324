/**
 * The era of a forwarded result is the CALLER's, through a proxy and through a gateway, both
 * ways: a 2025-era caller (the official SDK v1 client) of a 2026-07-28 upstream gets results
 * without `resultType`, caching hints or the upstream's `serverInfo` in `_meta`; a 2026-07-28
 * caller (mcpkit's Client) gets `resultType: "complete"`, the proxy's or gateway's own
 * identity (never the upstream's) and the front's own caching hints, from either era's upstream.
 * Every forwarded method: tools, resources, templates, prompts, completion. The same for a
 * server's mounted sources (an in-process server, a client of a 2026-07-28 server), and for an
 * extension's result (skills/list: its caching hints pass to a 2026-07-28 caller only).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { SUITE_TIMEOUT_MS } from '../../test/helpers/bounds.js';
import { inMemory } from '../../test/helpers/memory-upstream.js';
import { ALL_REVISIONS, Client } from '../client/index.js';
import { SkillsClient, SkillsServer } from '../extensions/skills/index.js';
import { StreamableHttpClientTransport } from '../http/client/streamable.js';
import { serveNode } from '../http/node.js';
import { createStreamableHttpHandler } from '../http/server/handler.js';
import type { JSONObject } from '../jsonrpc/types.js';
import { McpServer } from '../server/server.js';
import { connectInMemory } from '../testing/index.js';
import { createGateway, type Gateway } from './gateway.js';
import { mount } from './mount.js';
import { McpProxy } from './proxy.js';
import { clientSource, serverSource } from './source.js';

const T = { timeout: 20_000 };
const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
const UPSTREAM = { name: 'the-upstream', version: '26.1.0' };
const FRONT = { name: 'the-front', version: '9.0.0' };
const ERA_2025 = ['2025-11-25', '2025-06-18'];
/** The front's default caching hints (the upstream's own, below, must not pass: the front's callers may see other lists). */
const FRONT_HINTS = { ttlMs: 0, cacheScope: 'private' };
const CACHEABLE = new Set(['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list', 'resources/read']);

function upstreamServer(): McpServer {
  const server = new McpServer(UPSTREAM, { stateless: { cacheHints: { ttlMs: 60_000, cacheScope: 'public' } } });
  server.registerTool('echo', { description: 'echoes' }, () => 'echo: hi');
  server.registerPrompt(
    'greet',
    { arguments: [{ name: 'who', required: true }], complete: { who: (v: string) => ['alice', 'bob'].filter((n) => n.startsWith(v)) } } as never,
    ((args: { who: string }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `hi ${args.who}` } }] })) as never,
  );
  server.registerResource('file:///notes.txt', { name: 'notes' }, (uri) => ({ uri, text: 'notes' }));
  server.registerResourceTemplate('item://{id}', { name: 'item' }, ((uri: string) => ({ uri, text: 'item' })) as never);
  return server;
}

type Request = (method: string, params?: JSONObject) => Promise<JSONObject>;

/** Every forwarded method once, named from the front's own lists: [method, result]. */
async function everyMethod(request: Request): Promise<Array<[string, JSONObject]>> {
  const out: Array<[string, JSONObject]> = [];
  const run = async (method: string, params?: JSONObject) => {
    const result = await request(method, params);
    out.push([method, result]);
    return result;
  };
  const tools = (await run('tools/list')).tools as JSONObject[];
  await run('tools/call', { name: tools[0]!.name as string, arguments: {} });
  const resources = (await run('resources/list')).resources as JSONObject[];
  await run('resources/read', { uri: resources[0]!.uri as string });
  await run('resources/templates/list');
  const prompts = (await run('prompts/list')).prompts as JSONObject[];
  const prompt = prompts[0]!.name as string;
  await run('prompts/get', { name: prompt, arguments: { who: 'ann' } });
  await run('completion/complete', { ref: { type: 'ref/prompt', name: prompt }, argument: { name: 'who', value: 'a' } });
  return out;
}

/** Asserts `result` has none of the 2026-07-28 result keys and no server identity in `_meta`. */
function assert2025Keys(method: string, result: JSONObject): void {
  for (const key of ['resultType', 'ttlMs', 'cacheScope', 'inputRequests', 'requestState'])
    assert.equal(key in result, false, `${method}: a 2025 caller got "${key}": ${JSON.stringify(result)}`);
  const meta = result._meta as JSONObject | undefined;
  assert.equal(meta !== undefined && SERVER_INFO in meta, false, `${method}: a 2025 caller got ${SERVER_INFO}: ${JSON.stringify(result)}`);
}

/** Asserts each result has the 2025 shape: none of the 2026-07-28 result keys, no server identity in `_meta`. */
function assert2025(results: Array<[string, JSONObject]>): void {
  for (const [method, result] of results) assert2025Keys(method, result);
  const call = results.find(([method]) => method === 'tools/call')![1];
  assert.deepEqual(call, { content: [{ type: 'text', text: 'echo: hi' }] }, 'tools/call: exactly the 2025 result');
}

/** Asserts each result has the 2026-07-28 shape, naming the front (not the upstream), with the front's caching hints. */
function assert2026(results: Array<[string, JSONObject]>): void {
  for (const [method, result] of results) {
    assert.equal(result.resultType, 'complete', `${method}: ${JSON.stringify(result)}`);
    assert.deepEqual((result._meta as JSONObject | undefined)?.[SERVER_INFO], FRONT, `${method}: the front's identity: ${JSON.stringify(result)}`);
    if (CACHEABLE.has(method)) assert.deepEqual({ ttlMs: result.ttlMs, cacheScope: result.cacheScope }, FRONT_HINTS, `${method}: the front's caching hints`);
    else assert.equal('ttlMs' in result || 'cacheScope' in result, false, `${method}: no caching hints: ${JSON.stringify(result)}`);
  }
}

/** A front (proxy or gateway) over one upstream of one era, served over HTTP. */
interface Front {
  url: string;
  close(): Promise<void>;
}

async function proxyFront(upstreamEra: '2025' | '2026'): Promise<Front> {
  const proxy = await McpProxy.open({
    upstream: inMemory(upstreamServer()),
    serverInfo: FRONT,
    ...(upstreamEra === '2025' ? { protocolVersions: ERA_2025 } : {}),
  });
  assert.equal(proxy.upstream?.era, upstreamEra === '2026' ? 'stateless' : 'stateful');
  const http = await serveNode(createStreamableHttpHandler({ server: proxy.server }), { port: 0, host: '127.0.0.1' });
  return {
    url: http.url,
    close: async () => {
      await http.close();
      await proxy.close();
    },
  };
}

async function gatewayFront(upstreamEra: '2025' | '2026'): Promise<Front> {
  const gateway: Gateway = createGateway({
    serverInfo: FRONT,
    healthCheck: false,
    upstreams: { up: { transport: inMemory(upstreamServer()), ...(upstreamEra === '2025' ? { protocolVersions: ERA_2025 } : {}) } },
  });
  await gateway.whenReady(10_000);
  const http = await serveNode(gateway.handler, { port: 0, host: '127.0.0.1' });
  return {
    url: http.url,
    close: async () => {
      await http.close();
      await gateway.close();
    },
  };
}

for (const [via, open] of [
  ['proxy', proxyFront],
  ['gateway', gatewayFront],
] as const) {
  for (const upstreamEra of ['2026', '2025'] as const) {
    describe(`${via} in front of a ${upstreamEra}-era upstream: results have the caller's era`, { timeout: SUITE_TIMEOUT_MS }, () => {
      let front: Front;
      before(async () => {
        front = await open(upstreamEra);
      });
      after(async () => {
        await front?.close();
      });

      it('an official SDK v1 caller (2025 era) gets 2025-shaped results of every method', T, async () => {
        const client = new V1Client({ name: 'v1-caller', version: '1' });
        await client.connect(new V1Http(new URL(front.url)));
        try {
          // the SDK's base result schema keeps every member: the result as it came
          assert2025(await everyMethod((method, params) => client.request({ method, ...(params === undefined ? {} : { params }) } as never, ResultSchema)));
        } finally {
          await client.close();
        }
      });

      it("a 2026-07-28 caller gets resultType, the front's identity and caching hints on every method", T, async () => {
        const client = new Client({ name: 'caller-2026', version: '1' }, { protocolVersions: ALL_REVISIONS });
        await client.connect(new StreamableHttpClientTransport({ url: front.url }));
        try {
          assert.equal(client.era, 'stateless');
          assert2026(await everyMethod((method, params) => client.request(method, params)));
        } finally {
          await client.close();
        }
      });
    });
  }
}

for (const kind of ['server', 'client'] as const) {
  describe(`a mounted ${kind} source of a 2026-07-28 server: results have the caller's era`, { timeout: SUITE_TIMEOUT_MS }, () => {
    let outer: McpServer;
    let inner: Client | undefined;
    before(async () => {
      outer = new McpServer(FRONT);
      const upstream = upstreamServer();
      if (kind === 'server') await mount(outer, 'in', await serverSource(upstream));
      else {
        inner = new Client({ name: 'mount', version: '1' }, { protocolVersions: ALL_REVISIONS });
        await inner.connect(inMemory(upstream)());
        assert.equal(inner.era, 'stateless');
        await mount(outer, 'in', clientSource(inner));
      }
    });
    after(async () => {
      await inner?.close();
      await outer?.close();
    });

    for (const era of ['2025', '2026'] as const) {
      it(`a ${era}-era caller`, T, async () => {
        const { client, close } = await connectInMemory(outer, { client: era === '2026' ? { protocolVersions: ALL_REVISIONS } : {} });
        try {
          const results = await everyMethod((method, params) => client.request(method, params));
          if (era === '2025') assert2025(results);
          else assert2026(results);
        } finally {
          await close();
        }
      });
    }
  });
}

describe('an extension through the proxy (skills/list of a 2026-07-28 upstream): its caching hints are the caller era’s', { timeout: SUITE_TIMEOUT_MS }, () => {
  for (const era of ['2025', '2026'] as const) {
    it(`a ${era}-era caller`, T, async () => {
      const upstream = upstreamServer();
      new SkillsServer(upstream, { cacheHints: { ttlMs: 5_000, cacheScope: 'public' } }).add({
        frontmatter: { name: 'notes', description: 'Take notes' },
        body: '# Notes\n',
      });
      const proxy = await McpProxy.open({ upstream: inMemory(upstream), serverInfo: FRONT });
      const caller = new Client({ name: 'caller', version: '1' }, era === '2026' ? { protocolVersions: ALL_REVISIONS } : {});
      const skills = new SkillsClient(caller);
      try {
        await caller.connect(inMemory(proxy.server)());
        assert.ok(skills.supported);
        const result = await caller.request('skills/list', {});
        if (era === '2025') assert2025Keys('skills/list', result);
        else {
          // the proxy's server sets no caching hints of an extension's result: the upstream's pass
          assert.deepEqual({ ttlMs: result.ttlMs, cacheScope: result.cacheScope }, { ttlMs: 5_000, cacheScope: 'public' });
          assert.equal(result.resultType, 'complete');
          assert.deepEqual((result._meta as JSONObject | undefined)?.[SERVER_INFO], FRONT);
        }
      } finally {
        await caller.close();
        await proxy.close();
      }
    });
  }
});
