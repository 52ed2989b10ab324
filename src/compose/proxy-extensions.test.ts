/**
 * A proxy (and a gateway) declares only what it serves: every capability and extension in
 * its `initialize` answer is probed with a request of its own over a raw JSON-RPC peer (a
 * declared capability answered -32601, or one the probe does not know how to serve, fails);
 * the skills extension of an upstream (a real McpServer with a SkillsServer) is forwarded in
 * both eras and read through the proxy with the host-side SkillsClient, digests verified.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SUITE_TIMEOUT_MS } from '../../test/helpers/bounds.js';
import { inMemory } from '../../test/helpers/memory-upstream.js';
import { ALL_REVISIONS, Client } from '../client/client.js';
import { APPS_EXTENSION_ID } from '../extensions/apps/wire.js';
import { SkillsClient, SkillsServer } from '../extensions/skills/index.js';
import { SKILLS_EXTENSION_ID } from '../extensions/skills/wire.js';
import type { JSONObject } from '../jsonrpc/types.js';
import { McpServer } from '../server/server.js';
import { InMemoryTransport } from '../transport/memory.js';
import { createGateway } from './gateway.js';
import { McpProxy } from './proxy.js';

const T = { timeout: 20_000 };
const OTHER_EXTENSION = 'com.example/things';

/** An upstream with tools, prompts, resources, logging, skills, MCP Apps, an extension of its own and an experimental capability. */
function upstreamServer(): McpServer {
  const server = new McpServer(
    { name: 'upstream', version: '1' },
    { capabilities: { tools: { listChanged: true }, prompts: { listChanged: true }, logging: {}, completions: {}, experimental: { 'com.example.flag': {} } } },
  );
  server.registerTool('echo', { description: 'echo' }, () => ({ content: [{ type: 'text', text: 'echo' }] }));
  server.registerPrompt('greet', { description: 'greet' }, () => ({ messages: [] }));
  // MCP Apps adds no methods: declared, its resources travel through resources/read
  server.extend({
    name: APPS_EXTENSION_ID,
    methods: () => [],
    capabilities: (role) => (role === 'server' ? { extensions: { [APPS_EXTENSION_ID]: {} } } : undefined),
  });
  // an extension the proxy does not know: its method cannot be forwarded
  server.extend({
    name: OTHER_EXTENSION,
    methods: () => [{ method: 'things/list', kind: 'request', direction: 'client-to-server' }],
    capabilities: (role, declared) =>
      role === 'server' ? { extensions: { ...((declared.extensions as object | undefined) ?? {}), [OTHER_EXTENSION]: {} } } : undefined,
  });
  server.handle('things/list', () => ({ things: [] }));
  const skills = new SkillsServer(server);
  skills.add({
    frontmatter: { name: 'pdf-processing', description: 'Work with PDF files' },
    body: '# PDF\n\nSee references/FORMS.md.\n',
    files: { 'references/FORMS.md': '# Forms\n', 'assets/logo.bin': new Uint8Array([0, 1, 2, 255]) },
  });
  return server;
}

/** A raw JSON-RPC peer of `server` (2025-11-25, initialized): sends any method, resolves with the whole response. */
async function rawPeer(
  server: McpServer,
): Promise<{ capabilities: JSONObject; request(method: string, params?: JSONObject): Promise<JSONObject>; close(): Promise<void> }> {
  const [mine, theirs] = InMemoryTransport.createPair();
  const pending = new Map<number, (response: JSONObject) => void>();
  mine.start({
    message: (data) => {
      const message = (typeof data === 'string' ? JSON.parse(data) : data) as JSONObject;
      if (typeof message.id === 'number' && !('method' in message)) pending.get(message.id)?.(message);
    },
    error: () => {},
    closed: () => {},
  });
  await server.connect(theirs);
  let next = 0;
  const request = (method: string, params?: JSONObject): Promise<JSONObject> =>
    new Promise((resolve) => {
      const id = ++next;
      pending.set(id, resolve);
      void mine.send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
    });
  const init = await request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '1' } });
  await mine.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const capabilities = (init.result as JSONObject).capabilities as JSONObject;
  return { capabilities, request, close: () => mine.close() };
}

/**
 * Every declaration of `capabilities` whose probe request is not served: answered -32601,
 * or a declaration the probe does not know (so no caller could know how to use it either).
 */
async function unserved(peer: Awaited<ReturnType<typeof rawPeer>>): Promise<string[]> {
  const out: string[] = [];
  const probe = async (what: string, method: string, params?: JSONObject) => {
    const response = await peer.request(method, params);
    if ((response.error as { code?: number } | undefined)?.code === -32601) out.push(`${what}: ${method} answered -32601`);
  };
  const caps = peer.capabilities;
  for (const [key, value] of Object.entries(caps)) {
    if (key === 'tools') await probe(key, 'tools/list');
    else if (key === 'prompts') await probe(key, 'prompts/list');
    else if (key === 'resources') {
      await probe(key, 'resources/list');
      await probe(key, 'resources/templates/list');
      if ((value as JSONObject).subscribe === true) await probe('resources.subscribe', 'resources/subscribe', { uri: 'skill://pdf-processing/SKILL.md' });
    } else if (key === 'completions')
      await probe(key, 'completion/complete', { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'x', value: '' } });
    else if (key === 'logging') await probe(key, 'logging/setLevel', { level: 'info' });
    else if (key === 'tasks') await probe(key, 'tasks/list');
    else if (key === 'extensions') {
      for (const [id, settings] of Object.entries(value as JSONObject)) {
        if (id === SKILLS_EXTENSION_ID) {
          await probe(id, 'skills/list');
          await probe(id, 'skills/get', { uri: 'skill://pdf-processing/SKILL.md' });
          if ((settings as JSONObject).directoryRead === true)
            await probe(`${id}.directoryRead`, 'resources/directory/read', { uri: 'skill://pdf-processing' });
        } else if (id !== APPS_EXTENSION_ID) out.push(`extension ${id}: declared, no known method serves it`);
      }
    } else out.push(`${key}: declared, no known method serves it`);
  }
  return out;
}

describe('what a proxy and a gateway declare is served', { timeout: SUITE_TIMEOUT_MS }, () => {
  it('the proxy: every capability and extension it declares answers; the ones it cannot forward are not declared', T, async () => {
    const upstream = upstreamServer();
    const proxy = await McpProxy.open({ upstream: inMemory(upstream), protocolVersions: ['2025-11-25'] });
    const peer = await rawPeer(proxy.server);
    try {
      const extensions = (proxy.upstream?.serverCapabilities as { extensions?: JSONObject } | undefined)?.extensions ?? {};
      assert.ok(OTHER_EXTENSION in extensions && SKILLS_EXTENSION_ID in extensions, 'the upstream declares both');
      assert.deepEqual(await unserved(peer), []);
      const declared = peer.capabilities;
      assert.deepEqual(Object.keys(declared.extensions as JSONObject).sort(), [SKILLS_EXTENSION_ID, APPS_EXTENSION_ID].sort());
      assert.deepEqual((declared.extensions as JSONObject)[SKILLS_EXTENSION_ID], { directoryRead: true });
      assert.equal(declared.experimental, undefined);
      assert.ok(declared.tools && declared.prompts && declared.resources && declared.logging && declared.completions);
      // an unknown skill: the upstream's -32602 comes back as it is
      const unknown = await peer.request('skills/get', { uri: 'skill://nothing/SKILL.md' });
      assert.equal((unknown.error as { code?: number }).code, -32602);
    } finally {
      await peer.close();
      await proxy.close();
      await upstream.close();
    }
  });

  it('the gateway: every capability it declares answers', T, async () => {
    const upstream = upstreamServer();
    const gateway = createGateway({ upstreams: { up: { transport: inMemory(upstream) } }, healthCheck: false, onError: () => {} });
    await gateway.whenReady(10_000);
    const peer = await rawPeer(gateway.server);
    try {
      assert.deepEqual(await unserved(peer), []);
    } finally {
      await peer.close();
      await gateway.close();
      await upstream.close();
    }
  });

  for (const era of ['2025-11-25', '2026-07-28'] as const) {
    it(
      `skills through the proxy (upstream and caller in the ${era} era): listed, got, directories read and files verified as from the upstream`,
      T,
      async () => {
        const upstream = upstreamServer();
        const proxy = await McpProxy.open({ upstream: inMemory(upstream), protocolVersions: era === '2025-11-25' ? ['2025-11-25'] : ALL_REVISIONS });
        const direct = new Client({ name: 'direct', version: '1' }, era === '2025-11-25' ? {} : { protocolVersion: era });
        const directSkills = new SkillsClient(direct);
        const caller = new Client({ name: 'caller', version: '1' }, era === '2025-11-25' ? {} : { protocolVersion: era });
        const skills = new SkillsClient(caller);
        try {
          await direct.connect(inMemory(upstream)());
          await caller.connect(inMemory(proxy.server)());
          assert.equal(proxy.upstream?.era, era === '2025-11-25' ? 'stateful' : 'stateless');
          assert.ok(skills.supported && skills.directoryRead);
          const [entry] = await skills.listSkills();
          assert.deepEqual(entry, (await directSkills.listSkills())[0]);
          assert.deepEqual(await skills.getSkill(entry!.uri), entry);
          assert.deepEqual(
            (await skills.readDirectory('skill://pdf-processing')).map((c) => c.name),
            ['SKILL.md', 'assets', 'references'],
          );
          // every file read through the proxy matches the digest the upstream listed
          const loaded = await skills.loadSkill(entry!);
          assert.match(loaded.body, /See references\/FORMS\.md/);
          assert.equal(loaded.file.verified, true);
        } finally {
          await caller.close();
          await direct.close();
          await proxy.close();
          await upstream.close();
        }
      },
    );
  }
});
