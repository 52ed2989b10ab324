/**
 * `mcpkit installed`: lists the MCP servers in one client's config file, or in every
 * supported client's default file that exists. Secret environment and header values are
 * masked in the readable output and left out of the JSON output (only their names appear).
 */
import { access } from 'node:fs/promises';
import { CLIENT_NAMES, CLIENTS, type ClientFormat, chooseTarget, readEntry } from './clients.js';
import { Exit, parseOrHelp, printErr, printOut, runCommand, TARGET_OPTIONS } from './common.js';
import { readConfigFile, serversOf } from './config-file.js';
import { describeVariable, quote, quoteCommandLine, safeJson } from './display.js';
import { InstallInputError } from './entry.js';

/** `mcpkit installed --help`. */
export const INSTALLED_USAGE = `Usage: mcpkit installed [--client NAME | --config FILE] [--json]

Lists the MCP servers in a client's config file; with neither option, in every supported
client's default config file that exists (${CLIENT_NAMES.filter((c) => c !== 'mcp-servers').join(', ')}).
Secret values are never printed.

  --json    one JSON object on stdout: {"configs":[{"client","path","servers":[...]}]},
            each server {"name","command","args","envNames","cwd"} or {"name","url","transport",
            "headerNames"}, or {"name","error"} for an entry mcpkit cannot read;
            a config that cannot be read has "error" and no servers

A file that cannot be read (not JSON, too large, ...) is reported and the others are still
listed; the exit code is then 1. JSON with comments (JSONC) is read.

Exit codes: 0 listed, 1 a config file could not be read, 2 wrong arguments.

Examples:
  mcpkit installed
  mcpkit installed --client vscode --json
`;

const OPTIONS = { ...TARGET_OPTIONS, json: { type: 'boolean' } } as const;

/** One listed config, as printed with `--json`. */
interface ListedConfig {
  client: string;
  path: string;
  servers: Record<string, unknown>[];
  /** Why the file could not be read (then `servers` is empty). */
  error?: string;
}

/** Runs `mcpkit installed`; resolves with the exit code (see {@link Exit}). */
export function run(argv: string[]): Promise<number> {
  return runCommand('installed', async () => {
    const parsed = parseOrHelp(argv, OPTIONS, INSTALLED_USAGE);
    if (parsed === undefined) return Exit.ok;
    const { values, positionals } = parsed;
    if (positionals.length > 0) throw new InstallInputError(`unexpected argument ${JSON.stringify(positionals[0])}`);
    const targets: { format: ClientFormat; path: string }[] = [];
    if (values.client !== undefined || values.config !== undefined) targets.push(chooseTarget(values.client, values.config));
    else {
      for (const format of CLIENTS.values()) {
        const path = format.defaultPath();
        if (
          path !== undefined &&
          (await access(path).then(
            () => true,
            () => false,
          ))
        )
          targets.push({ format, path });
      }
    }
    // one file that cannot be read is reported, and the others are still listed
    const listed: ListedConfig[] = [];
    for (const { format, path } of targets) {
      try {
        const file = await readConfigFile(path);
        const servers = serversOf(file, format.serversKey) ?? {};
        listed.push({ client: format.id, path, servers: Object.entries(servers).map(([name, value]) => summarize(format, name, value)) });
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        listed.push({ client: format.id, path, servers: [], error: `${code !== undefined ? `${code}: ` : ''}${(err as Error).message}` });
      }
    }
    if (values.json) printOut(safeJson(JSON.stringify({ configs: listed.map(withoutValues) })) + '\n');
    else printOut(render(listed));
    const failed = listed.filter((config) => config.error !== undefined);
    for (const config of failed) printErr(`mcpkit installed: cannot read ${config.path}: ${config.error}\n`);
    return failed.length > 0 ? Exit.failed : Exit.ok;
  });
}

function summarize(format: ClientFormat, name: string, value: unknown): Record<string, unknown> {
  const entry = readEntry(format, name, value);
  if ('error' in entry) return { name, error: entry.error };
  if (entry.command !== undefined) {
    return {
      name,
      command: entry.command,
      args: entry.args,
      envNames: Object.keys(entry.env),
      ...(entry.cwd !== undefined ? { cwd: entry.cwd } : {}),
      env: entry.env,
    };
  }
  return { name, url: entry.url, transport: entry.transport, headerNames: Object.keys(entry.headers), headers: entry.headers };
}

/** The JSON form: names of variables and headers only, never their values. */
function withoutValues(config: ListedConfig): ListedConfig {
  return { ...config, servers: config.servers.map(({ env: _env, headers: _headers, ...rest }) => rest) };
}

function render(listed: ListedConfig[]): string {
  if (listed.length === 0) return 'No config file of a supported client was found (see mcpkit installed --help).\n';
  let out = '';
  for (const config of listed) {
    out += `${CLIENTS.get(config.client)!.label}: ${quote(config.path)}\n`;
    if (config.error !== undefined) out += `  cannot read this file: ${config.error}\n`;
    else if (config.servers.length === 0) out += '  (no servers)\n';
    for (const server of config.servers) {
      out += `  ${quote(server.name as string)}\n`;
      if (server.error !== undefined) out += `    cannot read this entry: ${server.error}\n`;
      else if (server.command !== undefined) {
        out += `    runs: ${quoteCommandLine(server.command as string, server.args as string[])}\n`;
        for (const [k, v] of Object.entries(server.env as Record<string, string>)) out += `    env:  ${describeVariable(k, v)}\n`;
      } else {
        out += `    url:  ${quote(server.url as string)} (${server.transport === 'sse' ? 'legacy SSE' : 'Streamable HTTP'})\n`;
        for (const [k, v] of Object.entries(server.headers as Record<string, string>)) out += `    header: ${describeVariable(k, v)}\n`;
      }
    }
  }
  return out;
}
