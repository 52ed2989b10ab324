/**
 * Where a client command connects: a URL (Streamable HTTP, falling back to legacy HTTP+SSE),
 * a stdio command line given after `--` (started directly, no shell), or the name of a server
 * in an `mcpServers` config file (the format of Claude Desktop, Claude Code's `.mcp.json`,
 * Cursor, Windsurf and Gemini CLI; VS Code's `servers` key is read too).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { isObject } from '../jsonrpc/values.js';
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
  const target = fromConfig(first, stringOption(line, 'config'));
  if (target.kind === 'http') Object.assign(target.headers, headers);
  else Object.assign(target.env, env);
  return { target, operands };
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

/** Reads server `name` from an `mcpServers` (or VS Code `servers`) config file. */
function fromConfig(name: string, file: string | undefined): Target {
  const path = resolve(file ?? DEFAULT_CONFIG_FILE);
  let text: string;
  try {
    const bytes = readFileSync(path);
    if (bytes.length > MAX_CONFIG_BYTES) throw new UsageError(`${path} is larger than ${MAX_CONFIG_BYTES} bytes`);
    text = bytes.toString('utf8');
  } catch (err) {
    if (err instanceof UsageError) throw err;
    const hint = file === undefined ? ` (${JSON.stringify(name)} is not a URL, so it names a server of a config file; pass --config FILE)` : '';
    throw new UsageError(`cannot read the config file ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}${hint}`);
  }
  let config: unknown;
  try {
    config = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${path} is not valid JSON: ${(err as Error).message}`);
  }
  const servers = objectAt(config, 'mcpServers') ?? objectAt(config, 'servers');
  if (servers === undefined) throw new UsageError(`${path} has no "mcpServers" object`);
  if (!Object.hasOwn(servers, name)) {
    const known = Object.keys(servers);
    throw new UsageError(`no server named ${JSON.stringify(name)} in ${path}${known.length > 0 ? ` (it has: ${known.join(', ')})` : ''}`);
  }
  return entryTarget(servers[name], name, path);
}

function objectAt(value: unknown, key: string): Record<string, unknown> | undefined {
  if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return undefined;
  const inner = (value as Record<string, unknown>)[key];
  return isObject(inner) ? inner : undefined;
}

/** One config entry: `{ command, args?, env?, cwd? }` or `{ url (or serverUrl, httpUrl), headers?, type? }`. */
function entryTarget(entry: unknown, name: string, path: string): Target {
  const bad = (what: string) => new UsageError(`server ${JSON.stringify(name)} in ${path}: ${what}`);
  if (!isObject(entry)) throw bad('the entry is not an object');
  const e = entry as Record<string, unknown>;
  const url = e.url ?? e.serverUrl ?? e.httpUrl;
  if (typeof url === 'string') {
    if (!isHttpUrl(url)) throw bad(`${JSON.stringify(url)} is not an http(s) URL`);
    const type = e.type;
    const transport = type === 'sse' ? 'sse' : type === 'http' || type === 'streamable-http' || e.httpUrl !== undefined ? 'http' : 'auto';
    return { kind: 'http', url, headers: stringRecord(e.headers, 'headers', bad), transport, label: name };
  }
  if (typeof e.command !== 'string' || e.command === '') throw bad('it has neither a "command" nor a "url"');
  const args = e.args ?? [];
  if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) throw bad('"args" must be an array of strings');
  const target: StdioTarget = { kind: 'stdio', command: e.command, args: args as string[], env: stringRecord(e.env, 'env', bad), label: name };
  if (typeof e.cwd === 'string') target.cwd = e.cwd;
  return target;
}

function stringRecord(value: unknown, key: string, bad: (what: string) => UsageError): Record<string, string> {
  if (value === undefined) return {};
  if (!isObject(value) || !Object.values(value).every((v) => typeof v === 'string')) {
    throw bad(`"${key}" must be an object of strings`);
  }
  return { ...(value as Record<string, string>) };
}
