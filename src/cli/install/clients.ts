/**
 * The config formats `mcpkit install` writes, one row per client, as each client documents it:
 *
 * | client | default file | servers key | stdio entry | remote entry |
 * |---|---|---|---|---|
 * | `claude-desktop` | `claude_desktop_config.json` in Claude's app-data folder | `mcpServers` | `command`, `args`, `env` | not in this file |
 * | `claude-code` | `.mcp.json` in the current folder (project scope) | `mcpServers` | `type: "stdio"`, ... | `type: "http"` / `"sse"`, `url`, `headers` |
 * | `cursor` | `~/.cursor/mcp.json` | `mcpServers` | `command`, `args`, `env` | `url`, `headers` |
 * | `vscode` | `.vscode/mcp.json` in the current folder | `servers` | `type: "stdio"`, ... | `type: "http"` / `"sse"`, `url`, `headers` |
 * | `windsurf` | `~/.codeium/windsurf/mcp_config.json` | `mcpServers` | `command`, `args`, `env` | `serverUrl`, `headers` |
 * | `gemini` | `~/.gemini/settings.json` | `mcpServers` | `command`, `args`, `env`, `cwd` | `httpUrl` (or `url` for SSE), `headers` |
 * | `mcp-servers` | only with `--config FILE` | `mcpServers` | `command`, `args`, `env` | `url`, `headers` |
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { isObject } from '../../jsonrpc/values.js';
import { entryFromJson, InstallInputError, type ServerEntry } from './entry.js';

/** One client's config format and default location. */
export interface ClientFormat {
  /** The `--client` name. */
  id: string;
  /** The name shown to people. */
  label: string;
  /** The top-level key that maps server names to configurations. */
  serversKey: 'mcpServers' | 'servers';
  /** The default config file, or undefined when `--config` is required. */
  defaultPath(): string | undefined;
  /** The JSON this client reads for `entry`; throws {@link InstallInputError} if it cannot hold it. */
  toJson(entry: ServerEntry): Record<string, unknown>;
  /** Field of a remote entry's URL, for reading entries back. */
  urlKey: string;
  /**
   * How a remote entry read back from this client's file is reached, when the format says it
   * by field rather than by `type` (Gemini CLI: `httpUrl` is Streamable HTTP, `url` is SSE).
   */
  transportOf?(value: Record<string, unknown>): 'http' | 'sse' | undefined;
}

const stdioFields = (entry: ServerEntry, typed: boolean, withCwd: boolean): Record<string, unknown> => {
  const out: Record<string, unknown> = typed ? { type: 'stdio' } : {};
  out.command = entry.command;
  out.args = entry.args;
  if (Object.keys(entry.env).length > 0) out.env = entry.env;
  if (entry.cwd !== undefined) {
    if (!withCwd) throw new InstallInputError('this client\'s format has no working-directory field ("cwd"); leave it out');
    out.cwd = entry.cwd;
  }
  return out;
};

const withHeaders = (out: Record<string, unknown>, entry: ServerEntry): Record<string, unknown> => {
  if (Object.keys(entry.headers).length > 0) out.headers = entry.headers;
  return out;
};

function format(
  id: string,
  label: string,
  serversKey: 'mcpServers' | 'servers',
  defaultPath: () => string | undefined,
  options: { typed: boolean; cwd: boolean; remote: ((entry: ServerEntry) => Record<string, unknown>) | undefined; urlKey: string },
): ClientFormat {
  return {
    id,
    label,
    serversKey,
    defaultPath,
    urlKey: options.urlKey,
    toJson(entry) {
      if (entry.command !== undefined) return stdioFields(entry, options.typed, options.cwd);
      if (options.remote === undefined) throw new InstallInputError(`${label}'s config file takes only local commands; add remote servers in ${label} itself`);
      return options.remote(entry);
    },
  };
}

/** Claude Desktop's per-user folder: macOS Application Support, Windows %APPDATA%, elsewhere XDG config. */
function claudeDesktopPath(): string {
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json');
  if (process.platform === 'win32') return join(process.env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'Claude', 'claude_desktop_config.json');
  return join(process.env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'Claude', 'claude_desktop_config.json');
}

const typedRemote = (entry: ServerEntry) => withHeaders({ type: entry.transport ?? 'http', url: entry.url }, entry);

/** Every supported format, keyed by `--client` name. */
export const CLIENTS: ReadonlyMap<string, ClientFormat> = new Map(
  [
    format('claude-desktop', 'Claude Desktop', 'mcpServers', claudeDesktopPath, { typed: false, cwd: false, remote: undefined, urlKey: 'url' }),
    format('claude-code', 'Claude Code', 'mcpServers', () => resolve('.mcp.json'), { typed: true, cwd: false, remote: typedRemote, urlKey: 'url' }),
    format('cursor', 'Cursor', 'mcpServers', () => join(homedir(), '.cursor', 'mcp.json'), {
      typed: false,
      cwd: false,
      remote: (e) => withHeaders({ url: e.url }, e),
      urlKey: 'url',
    }),
    format('vscode', 'VS Code', 'servers', () => resolve('.vscode', 'mcp.json'), { typed: true, cwd: true, remote: typedRemote, urlKey: 'url' }),
    format('windsurf', 'Windsurf', 'mcpServers', () => join(homedir(), '.codeium', 'windsurf', 'mcp_config.json'), {
      typed: false,
      cwd: false,
      remote: (e) => withHeaders({ serverUrl: e.url }, e),
      urlKey: 'serverUrl',
    }),
    {
      ...format('gemini', 'Gemini CLI', 'mcpServers', () => join(homedir(), '.gemini', 'settings.json'), {
        typed: false,
        cwd: true,
        remote: (e) => withHeaders(e.transport === 'sse' ? { url: e.url } : { httpUrl: e.url }, e),
        urlKey: 'httpUrl',
      }),
      // Gemini CLI: `httpUrl` is Streamable HTTP; `url` is SSE unless `type` says "http"
      transportOf: (value: Record<string, unknown>) =>
        value.httpUrl !== undefined || value.type === 'http' || value.type === 'streamable-http' ? 'http' : value.url !== undefined ? 'sse' : undefined,
    },
    format('mcp-servers', 'your MCP client', 'mcpServers', () => undefined, {
      typed: false,
      cwd: true,
      remote: (e) => withHeaders(e.transport === 'sse' ? { type: 'sse', url: e.url } : { url: e.url }, e),
      urlKey: 'url',
    }),
  ].map((f) => [f.id, f]),
);

/** The names accepted by `--client`, for help and errors. */
export const CLIENT_NAMES = [...CLIENTS.keys()];

/**
 * Picks the format and file from `--client` and `--config`: `--client` alone uses the
 * client's default file, `--config` alone the generic `mcpServers` format, both the client's
 * format at that file. Throws {@link InstallInputError} for an unknown client or neither flag.
 */
export function chooseTarget(client: string | undefined, config: string | undefined): { format: ClientFormat; path: string } {
  if (client === undefined && config === undefined)
    throw new InstallInputError(`say which config to change: --client NAME (${CLIENT_NAMES.join(', ')}) or --config FILE`);
  const chosen = CLIENTS.get(client ?? 'mcp-servers');
  if (chosen === undefined) throw new InstallInputError(`unknown client ${JSON.stringify(client)}; known: ${CLIENT_NAMES.join(', ')}`);
  const path = config !== undefined ? resolve(config) : chosen.defaultPath();
  if (path === undefined) throw new InstallInputError(`--client ${chosen.id} needs --config FILE`);
  return { format: chosen, path };
}

/** Reads one entry of `format`'s config back (for `installed`); an entry that does not parse is reported as such. */
export function readEntry(format: ClientFormat, name: string, value: unknown): ServerEntry | { name: string; error: string } {
  try {
    const entry = entryFromJson(name, value, `entry ${JSON.stringify(name)}`, false);
    if (entry.url !== undefined && format.transportOf !== undefined && isObject(value)) entry.transport = format.transportOf(value) ?? entry.transport;
    return entry;
  } catch (err) {
    return { name, error: (err as Error).message };
  }
}
