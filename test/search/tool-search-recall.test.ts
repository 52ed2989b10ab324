/**
 * Recall of ToolSearch on real tool definitions: test/data/tool-catalog.json (207 tools from
 * 15 public MCP servers' tools/list, see test/data/README.md) and the requests of
 * test/data/tool-search-queries.json. Recall@5 of a query is the share of its expected tools
 * (at most 5) among the first 5 results; the mean over all queries must be at least 0.9.
 */

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ToolSearch } from '../../src/client/tool-search.js';
import type { Tool } from '../../src/types.js';
import { REPO_ROOT } from '../helpers/repo.js';

interface Catalog {
  servers: string[];
  tools: Array<{ source: { package: string; version: string }; tool: Tool }>;
}
interface Queries {
  servers: Record<string, string>;
  queries: Array<{ query: string; expected: string[] }>;
}

const catalog = JSON.parse(readFileSync(join(REPO_ROOT, 'test/data/tool-catalog.json'), 'utf8')) as Catalog;
const set = JSON.parse(readFileSync(join(REPO_ROOT, 'test/data/tool-search-queries.json'), 'utf8')) as Queries;
const serverOf = new Map(Object.entries(set.servers).map(([short, pkg]) => [pkg, short]));

test('the catalog holds at least 200 real tools and the query set at least 60 requests', () => {
  assert.ok(catalog.tools.length >= 200, `${catalog.tools.length} tools`);
  assert.ok(set.queries.length >= 60, `${set.queries.length} queries`);
  for (const { source } of catalog.tools) assert.ok(serverOf.has(source.package), `${source.package} has a short name in the query set`);
});

test('recall@5 over the whole catalog is at least 0.9', () => {
  const search = new ToolSearch();
  for (const [pkg, short] of serverOf) {
    const tools = catalog.tools.filter((t) => t.source.package === pkg).map((t) => t.tool);
    search.add(tools, { group: short, key: (t) => `${short}.${t.name}` });
  }
  assert.equal(search.size, catalog.tools.length, 'every tool is held under its own key');
  for (const q of set.queries)
    for (const key of q.expected) assert.ok(search.keys().includes(key), `${key} (expected for ${JSON.stringify(q.query)}) is in the catalog`);

  let sum = 0;
  let atOne = 0;
  const misses: string[] = [];
  for (const q of set.queries) {
    const top = search.search(q.query, { limit: 5 }).map((h) => h.key);
    const wanted = q.expected.slice(0, 5);
    const found = wanted.filter((k) => top.includes(k)).length;
    sum += found / wanted.length;
    if (q.expected.includes(top[0] ?? '')) atOne++;
    if (found < wanted.length) misses.push(`  ${JSON.stringify(q.query)}: expected ${wanted.join(', ')}; got ${top.join(', ')}`);
  }
  const recall = sum / set.queries.length;
  console.log(
    `tool search over ${catalog.tools.length} tools, ${set.queries.length} queries: recall@5 = ${recall.toFixed(3)}, top-1 hit rate = ${(atOne / set.queries.length).toFixed(3)}`,
  );
  if (misses.length > 0) console.log(`incomplete:\n${misses.join('\n')}`);
  assert.ok(recall >= 0.9, `recall@5 ${recall.toFixed(3)} is below 0.9`);
});
