#!/usr/bin/env node
/**
 * Collects a catalog of real tool definitions for the tool-search tests: starts each server
 * below with `npx -y PACKAGE@VERSION` over stdio (no shell), connects with mcpkit's own client,
 * reads every page of `tools/list`, and writes test/data/tool-catalog.json: one entry per tool,
 * the definition exactly as the server sent it plus the package and version it came from.
 *
 * Usage: node scripts/build.mjs && node scripts/collect-tool-catalog.mjs [OUT]
 *
 * The credentials are dummies: every server here lists its tools without calling its API.
 * A server that fails to start or list is reported and left out (the script exits 1 then,
 * so a partial catalog is never written silently unless --partial is given).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '../dist/client/index.js';
import { StdioClientTransport } from '../dist/stdio/index.js';

const DUMMY = 'dummy-token-for-listing-only';

/**
 * The servers: exact versions, so a rerun collects the same definitions. `args` after the
 * package; `env` is added to the default environment.
 */
export const SERVERS = [
  { pkg: '@modelcontextprotocol/server-everything', version: '2026.8.31', args: ['stdio'] },
  { pkg: '@modelcontextprotocol/server-filesystem', version: '2026.8.31', args: ['{tmp}'] },
  { pkg: '@modelcontextprotocol/server-memory', version: '2026.8.31', env: { MEMORY_FILE_PATH: '{tmp}/memory.jsonl' } },
  { pkg: '@modelcontextprotocol/server-sequential-thinking', version: '2026.8.31' },
  { pkg: '@modelcontextprotocol/server-github', version: '2025.4.8', env: { GITHUB_PERSONAL_ACCESS_TOKEN: DUMMY } },
  { pkg: '@modelcontextprotocol/server-gitlab', version: '2025.4.25', env: { GITLAB_PERSONAL_ACCESS_TOKEN: DUMMY } },
  { pkg: '@modelcontextprotocol/server-slack', version: '2025.4.25', env: { SLACK_BOT_TOKEN: DUMMY, SLACK_TEAM_ID: 'T00000000' } },
  { pkg: '@modelcontextprotocol/server-puppeteer', version: '2025.5.12', env: { PUPPETEER_SKIP_DOWNLOAD: '1', PUPPETEER_SKIP_CHROMIUM_DOWNLOAD: '1' } },
  { pkg: '@modelcontextprotocol/server-brave-search', version: '0.6.2', env: { BRAVE_API_KEY: DUMMY } },
  { pkg: '@modelcontextprotocol/server-google-maps', version: '0.6.2', env: { GOOGLE_MAPS_API_KEY: DUMMY } },
  { pkg: '@modelcontextprotocol/server-postgres', version: '0.6.2', args: ['postgresql://127.0.0.1:9/none'] },
  { pkg: '@playwright/mcp', version: '0.0.86', args: ['--headless'] },
  { pkg: 'chrome-devtools-mcp', version: '1.11.0', args: ['--headless'] },
  { pkg: '@notionhq/notion-mcp-server', version: '2.5.2', env: { NOTION_TOKEN: DUMMY } },
  { pkg: 'firecrawl-mcp', version: '3.26.0', env: { FIRECRAWL_API_KEY: DUMMY } },
];

async function collect(server, tmp) {
  const fill = (s) => s.replaceAll('{tmp}', tmp);
  const transport = new StdioClientTransport({
    command: 'npx',
    args: ['-y', `${server.pkg}@${server.version}`, ...(server.args ?? []).map(fill)],
    env: Object.fromEntries(Object.entries(server.env ?? {}).map(([k, v]) => [k, fill(v)])),
    cwd: tmp,
  });
  const client = new Client({ name: 'mcpkit-collect-tool-catalog', version: '1' }, { requestTimeoutMs: 300_000 });
  try {
    await client.connect(transport);
    const tools = await client.listAllTools();
    return tools.map((tool) => ({ source: { package: server.pkg, version: server.version }, tool }));
  } catch (err) {
    const tail = typeof transport.stderrTail === 'function' ? transport.stderrTail() : transport.stderrTail;
    throw new Error(`${server.pkg}@${server.version}: ${err?.message ?? err}${tail ? `\n  stderr: ${String(tail).slice(-600)}` : ''}`);
  } finally {
    await client.close().catch(() => {});
  }
}

async function main() {
  const argv = process.argv.slice(2);
  const partial = argv.includes('--partial');
  const out = resolve(argv.find((a) => !a.startsWith('--')) ?? 'test/data/tool-catalog.json');
  const only = process.env.COLLECT_ONLY?.split(',');
  const tmp = mkdtempSync(join(tmpdir(), 'mcpkit-catalog-'));
  const entries = [];
  const failures = [];
  try {
    // one at a time: npx installs are heavy and the machine is shared
    for (const server of SERVERS) {
      if (only && !only.includes(server.pkg)) continue;
      const started = Date.now();
      try {
        const got = await collect(server, tmp);
        entries.push(...got);
        process.stderr.write(`${server.pkg}@${server.version}: ${got.length} tools (${Date.now() - started} ms)\n`);
      } catch (err) {
        failures.push(err.message);
        process.stderr.write(`FAILED ${err.message}\n`);
      }
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  if (failures.length > 0 && !partial) {
    process.stderr.write(`${failures.length} server(s) failed; nothing written (pass --partial to write what was collected)\n`);
    process.exitCode = 1;
    return;
  }
  const catalog = {
    description: 'Real tool definitions from public MCP servers, as their tools/list returned them. Made by scripts/collect-tool-catalog.mjs.',
    servers: [...new Set(entries.map((e) => `${e.source.package}@${e.source.version}`))],
    tools: entries,
  };
  writeFileSync(out, `${JSON.stringify(catalog, null, 1)}\n`);
  process.stderr.write(`wrote ${entries.length} tools from ${catalog.servers.length} servers to ${out}\n`);
}

await main();
