/**
 * The demo's extensions, as a host sees them in both eras: two skills that list, load and
 * verify (SEP-2640), and one MCP App — the `counter` tool linked to its `ui://` view.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { APP_MIME_TYPE, AppsClient } from '../extensions/apps/index.js';
import { SkillsClient } from '../extensions/skills/index.js';
import { connectInMemory } from '../testing/in-memory.js';
import { DEMO_APP_URI } from './extensions.js';
import { createDemoServer } from './server.js';

for (const [era, client] of [
  ['2025-11-25', {}],
  ['2026-07-28', { protocolVersion: '2026-07-28' }],
] as const) {
  describe(`the demo's skills and app (${era})`, () => {
    it('lists and loads the skills, and serves the counter with its view', async () => {
      let skills!: SkillsClient;
      let apps!: AppsClient;
      const pair = await connectInMemory(createDemoServer({ tasks: false }), {
        client,
        checkWire: false,
        onClient: (c) => {
          skills = new SkillsClient(c);
          apps = new AppsClient(c);
        },
      });
      try {
        const entries = await skills.listSkills();
        assert.deepEqual(
          entries.map((e) => e.frontmatter.name),
          ['haiku-writing', 'mcpkit-demo'],
        );
        const demo = entries[1]!;
        assert.match((await skills.loadSkill(demo)).body, /^# Trying the demo/);
        assert.match((await skills.readFile(demo, 'references/TOOLS.md')).text!, /counter/);

        const counter = (await pair.client.listAllTools()).find((t) => t.name === 'counter')!;
        const view = (await apps.appResourceFor(counter))!;
        assert.equal(view.uri, DEMO_APP_URI);
        assert.equal(view.mimeType, APP_MIME_TYPE);
        assert.match(view.html, /^<!DOCTYPE html>/);
        const result = await pair.client.callTool({ name: 'counter' });
        assert.equal(typeof (result.structuredContent as { count: number }).count, 'number');
        assert.match((result.content[0] as { text: string }).text, /shown in the view/);
      } finally {
        await pair.close();
      }
    });
  });
}
