/**
 * `mcpkit list --config FILE` without a target: every server of the file in one client pool
 * (client/pool.ts, built by `mcpkit/client/node`), connected in parallel with the per-server
 * timeout `--timeout`, no reconnection. The catalogues are merged under `SERVER.NAME` names
 * (resources keep their URIs, with the server in a column); a server that cannot be used is
 * one line on stderr and the exit code is 4, the others are listed all the same. Stdio
 * servers' stderr is relayed line by line, cleaned and prefixed with their name (`--quiet`
 * drops it); remote servers use the CLI's OAuth tokens (`mcpkit login URL`).
 */
import { resolve } from 'node:path';
import { ALL_REVISIONS } from '../client/client.js';
import { PoolError } from '../client/pool.js';
import { printListing } from './commands/list.js';
import { DEFAULT_TIMEOUT_MS, printHelp } from './connection.js';
import { describeError, exitCodeFor } from './errors.js';
import { ExitCode } from './exit-codes.js';
import { integerOption, parseCommandLine, stringOption } from './options.js';
import { relayStderr } from './server-stderr.js';
import { readConfig } from './target.js';
import { clean } from './terminal.js';
import { UsageError } from './usage-error.js';

type Kind = 'tools' | 'resources' | 'templates' | 'prompts';

/** Runs the pool listing; resolves with the exit code. */
export async function listPool(argv: readonly string[], only: Kind | undefined, help: string): Promise<number> {
  const fail = (err: unknown) => {
    process.stderr.write(`mcpkit list: ${clean(describeError(err))}\n`);
    if (err instanceof UsageError) process.stderr.write('(see mcpkit list --help)\n');
    return err instanceof PoolError ? ExitCode.Usage : exitCodeFor(err);
  };
  let pool: import('../client/pool.js').ClientPool | undefined;
  try {
    const line = parseCommandLine(argv);
    if (line.values.help) {
      printHelp({ help });
      return ExitCode.Ok;
    }
    const timeoutMs = integerOption(line, 'timeout', DEFAULT_TIMEOUT_MS);
    const config = readConfig(resolve(stringOption(line, 'config')!));
    const quiet = line.values.quiet === true;
    const { createPool } = await import('../client/node/index.js');
    const { authFor } = await import('./auth.js');
    pool = await createPool(config, {
      clientInfo: { name: 'mcpkit-cli', version: '0.1.0' },
      client: { protocolVersions: ALL_REVISIONS, requestTimeoutMs: timeoutMs },
      connectTimeoutMs: timeoutMs,
      reconnect: false,
      stderr: 'pipe',
      onStdio: (name, transport) => relayStderr(transport.stderr!, (text) => process.stderr.write(`[${name}] ${text}\n`), quiet),
      auth: (_name, url) => authFor(url),
    });
    const statuses = await pool.connect();
    const want = (k: Kind) => only === undefined || only === k;
    const out: Record<string, unknown[]> = {};
    if (want('tools')) out.tools = await pool.listTools();
    if (want('resources')) out.resources = await pool.listResources();
    if (want('templates')) out.resourceTemplates = await pool.listResourceTemplates();
    if (want('prompts')) out.prompts = await pool.listPrompts();
    if (line.values.json !== true) {
      for (const rows of Object.values(out))
        for (const row of rows as Array<Record<string, unknown>>)
          if (typeof row.uri === 'string' || typeof row.uriTemplate === 'string')
            row.description = `[${String(row.server)}] ${String(row.description ?? '')}`.trim();
    }
    printListing(out, line.values.json === true, (text) => process.stdout.write(text));
    for (const [name, err] of config.invalid) process.stderr.write(`mcpkit list: server ${JSON.stringify(name)} is left out: ${clean(err.message, true)}\n`);
    const failed = statuses.filter((s) => s.state !== 'ready');
    for (const s of failed) process.stderr.write(`mcpkit list: server ${JSON.stringify(s.name)} could not be used: ${clean(s.lastError ?? s.state, true)}\n`);
    if (failed.length > 0) return ExitCode.Connection;
    return config.invalid.size > 0 ? ExitCode.Usage : ExitCode.Ok;
  } catch (err) {
    return fail(err);
  } finally {
    await pool?.close();
  }
}
