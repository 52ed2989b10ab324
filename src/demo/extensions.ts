/**
 * The demo's official extensions: two skills (SEP-2640, `io.modelcontextprotocol/skills`)
 * and one MCP App (`io.modelcontextprotocol/ui`): a counter view and the tool it renders.
 * Runtime-neutral, like the rest of the demo.
 */

import { hostSupportsApps, registerAppResource, registerAppTool } from '../extensions/apps/index.js';
import { SkillsServer } from '../extensions/skills/index.js';
import type { McpServer } from '../server/index.js';

/** The URI of the demo's app view. */
export const DEMO_APP_URI = 'ui://mcpkit-demo/counter.html';

const COUNTER_HTML = `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Counter</title></head>
<body>
<p>Count: <output id="count">0</output></p>
<script>
  // the host sends the tool's result as ui/notifications/tool-result
  window.addEventListener('message', (event) => {
    const m = event.data;
    if (m && m.method === 'ui/notifications/tool-result') document.getElementById('count').textContent = String(m.params?.structuredContent?.count ?? '?');
  });
</script>
</body>
</html>
`;

/** Adds the demo's skills and app to `server` (before its first connection). */
export function registerDemoExtensions(server: McpServer): void {
  const skills = new SkillsServer(server);
  skills.add({
    frontmatter: { name: 'mcpkit-demo', description: 'How to try every feature of the mcpkit demo server', license: 'MIT' },
    body: '# Trying the demo\n\nCall `echo` first, then see [the tool list](references/TOOLS.md).\n',
    files: { 'references/TOOLS.md': '# Tools\n\n- echo: returns its message\n- counter: counts, with a view\n' },
  });
  skills.add({
    frontmatter: { name: 'haiku-writing', description: 'Write a haiku with the sampling tool' },
    body: 'Ask for five, seven, then five syllables; see [an example](examples/AUTUMN.md).\n',
    files: { 'examples/AUTUMN.md': 'An old silent pond\nA frog jumps into the pond\nSplash! Silence again.\n' },
  });

  registerAppResource(server, DEMO_APP_URI, {
    name: 'Counter view',
    description: "Shows the counter tool's count",
    html: COUNTER_HTML,
    ui: { prefersBorder: true },
  });
  let count = 0;
  registerAppTool(
    server,
    'counter',
    {
      description: 'Adds one to a counter and shows it in a view (MCP Apps)',
      outputSchema: { type: 'object', properties: { count: { type: 'number' } }, required: ['count'] },
      ui: { resourceUri: DEMO_APP_URI },
    },
    (_args, ctx) => {
      count += 1;
      // hosts without MCP Apps get the same count as text
      const text = hostSupportsApps(ctx.clientCapabilities) ? `Count: ${count} (shown in the view)` : `Count: ${count}`;
      return { content: [{ type: 'text', text }], structuredContent: { count } };
    },
  );
}
