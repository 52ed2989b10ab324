/**
 * Skills (SEP-2640) across implementations, over real HTTP, in both eras: mcpkit's host
 * (SkillsClient) against the official SDK v2 server's skills extension
 * (`SkillsExtension` of `@modelcontextprotocol/server/ext/skills`), and the official SDK
 * v2 host (`SkillsClient` of `@modelcontextprotocol/client/ext/skills`, which verifies
 * every read) against mcpkit's SkillsServer.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { SkillsClient as V2SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { createMcpHandler, McpServer as V2McpServer } from '@modelcontextprotocol/server';
import { memorySkillFiles, SkillsExtension } from '@modelcontextprotocol/server/ext/skills';
import { type FetchServer, serveFetch } from '../../../test/interop/v2/fixtures/v2-server.js';
import { ALL_REVISIONS, Client } from '../../client/index.js';
import { StreamableHttpClientTransport } from '../../http/client/streamable.js';
import { type NodeServerHandle, serveNode } from '../../http/node.js';
import { createStreamableHttpHandler } from '../../http/server/handler.js';
import { McpServer } from '../../server/server.js';
import { SkillsClient, SkillsServer } from './index.js';

const SKILL_MD = '---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nlicense: MIT\n---\n# PDF processing\n';
const FORMS = '# Forms\nFill them in.\n';

describe('skills interop with the official SDK v2, over HTTP', () => {
  let official: FetchServer;
  let ours: NodeServerHandle;
  before(async () => {
    const catalog = await SkillsExtension.load(memorySkillFiles({ 'pdf-processing/SKILL.md': SKILL_MD, 'pdf-processing/references/FORMS.md': FORMS }), {
      onWarning: () => {},
    });
    const handler = createMcpHandler(() => {
      const server = new V2McpServer({ name: 'official-skills', version: '1.0.0' });
      catalog.attach(server);
      return server;
    });
    official = await serveFetch((request) => handler.fetch(request));
    const server = new McpServer({ name: 'mcpkit-skills', version: '1.0.0' });
    new SkillsServer(server).add({ files: { 'SKILL.md': SKILL_MD, 'references/FORMS.md': FORMS } });
    ours = await serveNode(createStreamableHttpHandler({ server }), { port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    await official?.close();
    await ours?.close();
  });

  for (const [era, options, v2Options] of [
    ['2025 era', {}, {}],
    ['2026-07-28', { protocolVersions: ALL_REVISIONS }, { versionNegotiation: { mode: { pin: '2026-07-28' } } }],
  ] as const) {
    it(`mcpkit's host lists, loads and verifies the official server's skill (${era})`, async () => {
      const client = new Client({ name: 'mcpkit-host', version: '1' }, options);
      const skills = new SkillsClient(client);
      await client.connect(new StreamableHttpClientTransport({ url: official.url }));
      try {
        assert.equal(skills.supported, true);
        const [entry] = await skills.listSkills();
        assert.equal(entry!.uri, 'skill://pdf-processing/SKILL.md');
        assert.deepEqual(await skills.getSkill(entry!.uri), entry);
        const loaded = await skills.loadSkill(entry!);
        assert.deepEqual(loaded.frontmatter, { name: 'pdf-processing', description: 'Extract, fill, and assemble PDF documents', license: 'MIT' });
        assert.equal((await skills.readFile(entry!, 'references/FORMS.md')).text, FORMS);
      } finally {
        await client.close();
      }
    });

    it(`the official host lists and verifies mcpkit's skill (${era})`, async () => {
      const client = new V2Client({ name: 'official-host', version: '1' }, v2Options);
      const skills = new V2SkillsClient(client);
      await client.connect(new V2Transport(new URL(ours.url)));
      try {
        assert.equal(skills.supported, true);
        assert.equal(client.getNegotiatedProtocolVersion(), era === '2025 era' ? '2025-11-25' : '2026-07-28');
        const { skills: entries, invalid } = await skills.list();
        assert.deepEqual(invalid, []);
        assert.equal(entries.length, 1);
        const manifest = await skills.read(entries[0]!);
        assert.equal(manifest.verified, true);
        assert.deepEqual(manifest.frontmatter, { name: 'pdf-processing', description: 'Extract, fill, and assemble PDF documents', license: 'MIT' });
        const forms = await skills.read(entries[0]!, 'references/FORMS.md');
        assert.equal(forms.text, FORMS);
        assert.deepEqual((await skills.get(entries[0]!.uri)).skill, entries[0]);
      } finally {
        await client.close();
      }
    });
  }
});
