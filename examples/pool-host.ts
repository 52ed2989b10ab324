/**
 * An agent host over many MCP servers: reads an `mcpServers` file (the format of Claude
 * Desktop, Cursor, VS Code, ...), starts or connects every server in one client pool, shows
 * each server's state, picks the tools that fit a request with BM25 tool search (instead of
 * sending every definition to a model), calls the best one by its `server.tool` name, and
 * logs every server's notifications with their source.
 *
 *   node build/examples/pool-host.js mcp.json "echo hello"
 *
 * Remote servers use the OAuth tokens `mcpkit login URL` stored (the CLI's token file).
 */
import { fileURLToPath } from 'node:url';
import type { PoolServerStatus, PoolTool } from '../src/client/index.js';
import { createPool } from '../src/client/node/index.js';
import type { CallToolResult } from '../src/types.js';

/** What one run of the host did. */
export interface HostRun {
  statuses: PoolServerStatus[];
  candidates: PoolTool[];
  called?: { tool: string; result: CallToolResult };
}

/**
 * Connects every server of `configFile`, searches the merged catalogue for `request`, and
 * calls the best tool with `args`. `log` gets one line per event (default: stderr).
 */
export async function runHost(
  configFile: string,
  request: string,
  args: Record<string, unknown>,
  log: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
): Promise<HostRun> {
  const pool = await createPool(configFile, { stderr: 'ignore', connectTimeoutMs: 20_000 });
  pool.on('notification', ({ server, method }) => log(`[${server}] ${method}`));
  pool.on('status', ({ name, state, lastError }) => log(`[${name}] ${state}${lastError === undefined ? '' : ` (${lastError})`}`));
  try {
    // parallel start-up; one dead server never blocks the others
    const statuses = await pool.connect();
    // a few tools for the model instead of all of them
    const candidates = await pool.searchTools(request, { limit: 5 });
    const run: HostRun = { statuses, candidates };
    const best = candidates[0];
    if (best !== undefined) run.called = { tool: best.name, result: await pool.callTool(best.name, args, { timeoutMs: 30_000 }) };
    return run;
  } finally {
    await pool.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, request = 'echo', json = '{}'] = process.argv.slice(2);
  if (file === undefined) {
    console.error('usage: pool-host.js MCP_JSON [REQUEST] [ARGS_JSON]');
    process.exit(2);
  }
  const run = await runHost(file, request, JSON.parse(json) as Record<string, unknown>);
  for (const s of run.statuses) console.log(`${s.name}: ${s.state}${s.lastError ? ` (${s.lastError})` : ''}, ${s.counts.tools} tools`);
  console.log(`candidates: ${run.candidates.map((t) => t.name).join(', ')}`);
  if (run.called) console.log(`${run.called.tool} -> ${JSON.stringify(run.called.result.content)}`);
}
