/**
 * Where a client command connects: a URL (Streamable HTTP, falling back to legacy HTTP+SSE),
 * a stdio command line given after `--` (started directly, no shell), or the name of a server
 * in an `mcpServers` config file (the format of Claude Desktop, Claude Code's `.mcp.json`,
 * Cursor, Windsurf and Gemini CLI; VS Code's `servers` key is read too).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { POOL_SEPARATOR } from '../client/pool.js';
import { parseServersConfig, type ServerSpec, type ServersConfig, ServersConfigError } from '../client/servers-config.js';
import { splitName } from '../compose/names.js';
import { type CommandLine, listOption, stringOption } from './options.js';
import { UsageError } from './usage-error.js';

/** A stdio server to start. */
export interface StdioTarget {
  kind: 'stdio';
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  /** How the target was named, for messages. */
  label: string;
}

/** An HTTP server to reach. */
export interface HttpTarget {
  kind: 'http';
  url: string;
  headers: Record<string, string>;
  /** `auto`: Streamable HTTP with the legacy fallback; `http` or `sse`: only that one. */
  transport: 'auto' | 'http' | 'sse';
  label: string;
}

/** A resolved target. */
export type Target = StdioTarget | HttpTarget;

/** Largest config file read, in bytes (1 MiB); a larger one is refused with a usage error. */
export const MAX_CONFIG_BYTES = 1024 * 1024;

/** The config file a NAME is looked up in when `--config` is not given. */
export const DEFAULT_CONFIG_FILE = '.mcp.json';

/** True when `value` is an absolute http(s) URL. */
export function isHttpUrl(value: string): boolean {
  if (!/^https?:\/\//i.test(value)) return false;
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

/**
 * Resolves the target of `line`: the command after `--` when there is one (then every
 * positional is an operand), else the first positional (a URL or a config name). Returns the
 * target and the remaining operands. Throws {@link UsageError} when there is no target, the
 * name is not in the config, or the config is unreadable or malformed.
 */
export function resolveTarget(line: CommandLine): { target: Target; operands: string[] } {
  const headers = parseHeaders(listOption(line, 'header'));
  const env = parseEnv(listOption(line, 'env'));
  const transport = transportOption(stringOption(line, 'transport'));
  if (line.command !== undefined) {
    const [command, ...args] = line.command;
    if (command === undefined || command === '') throw new UsageError('nothing after --: give the server command to start');
    return { target: { kind: 'stdio', command, args, env, label: command }, operands: line.positionals };
  }
  const [first, ...operands] = line.positionals;
  if (first === undefined) throw new UsageError('no target: give a URL, a server name from a config file, or -- COMMAND ARGS...');
  if (isHttpUrl(first)) return { target: { kind: 'http', url: first, headers, transport, label: first }, operands };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(first)) throw new UsageError(`${JSON.stringify(first)} is not an http(s) URL`);
  const resolved = fromConfig(first, stringOption(line, 'config'), operands);
  if (resolved.target.kind === 'http') Object.assign(resolved.target.headers, headers);
  else Object.assign(resolved.target.env, env);
  return resolved;
}

function transportOption(value: string | undefined): HttpTarget['transport'] {
  if (value === undefined || value === 'auto') return 'auto';
  if (value === 'http' || value === 'sse') return value;
  throw new UsageError(`--transport must be auto, http or sse, not ${JSON.stringify(value)}`);
}

/** `Name: value` headers; throws {@link UsageError} for a line without a colon or a bad name. */
export function parseHeaders(lines: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = colon < 0 ? '' : line.slice(0, colon).trim();
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new UsageError(`--header needs "Name: value", not ${JSON.stringify(line)}`);
    out[name] = line.slice(colon + 1).trim();
  }
  return out;
}

/** `KEY=VALUE` pairs; throws {@link UsageError} for one without `=` or with an empty key. */
export function parseEnv(pairs: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`--env needs KEY=VALUE, not ${JSON.stringify(pair)}`);
    out[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return out;
}

/**
 * Reads server `name` from an `mcpServers` (or VS Code `servers`) config file with the shared
 * reader (client/servers-config.ts: JSONC, every field checked, errors naming the file, the
 * server and the field). When `name` is not a server of the file but `SERVER.TOOL` (the
 * pool's namespaced form, split by the composition naming rules) names one, that server is
 * the target and `TOOL` becomes the first operand: `mcpkit call --config FILE github.create_issue`.
 */
function fromConfig(name: string, file: string | undefined, operands: string[]): { target: Target; operands: string[] } {
  const path = resolve(file ?? DEFAULT_CONFIG_FILE);
  const config = readConfig(
    path,
    file === undefined ? ` (${JSON.stringify(name)} is not a URL, so it names a server of a config file; pass --config FILE)` : '',
  );
  const bad = config.invalid.get(name);
  if (bad !== undefined) throw new UsageError(bad.message);
  const direct = config.servers.get(name);
  if (direct !== undefined) return { target: specTarget(direct, name), operands };
  const split = splitName(name, POOL_SEPARATOR);
  const spec = split === undefined ? undefined : config.servers.get(split.prefix);
  if (split !== undefined && spec !== undefined) return { target: specTarget(spec, split.prefix), operands: [split.name, ...operands] };
  const known = [...config.servers.keys(), ...config.invalid.keys()];
  const off = config.disabled.includes(name) ? ' (it is marked "disabled")' : '';
  throw new UsageError(`no server named ${JSON.stringify(name)} in ${path}${off}${known.length > 0 ? ` (it has: ${known.join(', ')})` : ''}`);
}

/** Reads and parses config file `path` (at most {@link MAX_CONFIG_BYTES}); throws {@link UsageError}. */
export function readConfig(path: string, hint = ''): ServersConfig {
  let text: string;
  try {
    const bytes = readFileSync(path);
    if (bytes.length > MAX_CONFIG_BYTES) throw new UsageError(`${path} is larger than ${MAX_CONFIG_BYTES} bytes`);
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    if (err instanceof TypeError) throw new UsageError(`${path} is not UTF-8 text`);
    throw new UsageError(`cannot read the config file ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}${hint}`);
  }
  try {
    // one bad entry must not hide the others: it fails only when it is the one asked for
    return parseServersConfig(text, { source: path, maxChars: MAX_CONFIG_BYTES, invalid: 'collect' });
  } catch (err) {
    if (err instanceof ServersConfigError) throw new UsageError(err.message);
    throw err;
  }
}

/** The target of a checked config entry. */
function specTarget(spec: ServerSpec, name: string): Target {
  if (spec.transport === 'stdio') {
    const target: StdioTarget = { kind: 'stdio', command: spec.command, args: [...spec.args], env: { ...spec.env }, label: name };
    if (spec.cwd !== undefined) target.cwd = spec.cwd;
    return target;
  }
  return { kind: 'http', url: spec.url, headers: { ...spec.headers }, transport: spec.transport, label: name };
}
