/**
 * The `mcpServers` config reader shared by the client pool and the CLI (and the gateway):
 * parses the text of a config file in the formats hosts use — Claude Desktop, Claude Code's
 * `.mcp.json`, Cursor, Windsurf, Gemini CLI (`mcpServers`) and VS Code (`servers`) — into one
 * checked {@link ServerSpec} per server. Runtime-neutral (no `node:*`): reading the file is
 * the node side's job (`mcpkit/client/node`).
 *
 * The text is untrusted input. It is JSON with comments and trailing commas (JSONC, as VS Code
 * and Cursor allow), scanned first with bounds on size, nesting and number of values so that a
 * hostile file cannot exhaust the stack or memory; keys become own properties (`__proto__` is a
 * key like any other); a server named twice is refused. Each entry is checked field by field:
 *
 * - stdio: `command` (non-empty string), `args` (strings), `env` (string values, names without
 *   `=` or control characters), `cwd` (string), optional `type: "stdio"` (VS Code, Claude Code).
 * - remote: `url` (Claude Code, Cursor, VS Code), `serverUrl` (Windsurf) or `httpUrl` (Gemini
 *   CLI, Streamable HTTP), an absolute http(s) URL; `headers` (RFC 9110 names, one-line values);
 *   `type` or `transport`: `http` / `streamable-http` / `streamableHttp` (Streamable HTTP only),
 *   `sse` (legacy HTTP+SSE only); without one, Streamable HTTP falling back to legacy SSE.
 * - `disabled: true` (Cursor, Claude Code, Cline) leaves the server out of {@link ServersConfig.servers}.
 *
 * Every error is a {@link ServersConfigError} naming the source, the server and the field.
 *
 * Variables: the formats differ (VS Code and Cursor define `${env:NAME}`; Claude Code defines
 * `${NAME}` and `${NAME:-default}`; VS Code also has `${input:ID}`, which only the editor can
 * ask for). Nothing is expanded unless {@link ServersConfigOptions.variables} is given; then
 * `${env:NAME}`, `${NAME}` and `${NAME:-default}` are expanded in `command`, `args`, `env`,
 * `cwd`, the URL and header values, a missing variable without a default is an error, and
 * `${input:ID}` is refused (set the value in the file instead).
 */
import { isObject } from '../jsonrpc/values.js';
import { checkJsoncShape, parseJsonc } from './jsonc.js';

/** A server started as a child process, spoken to over stdio. */
export interface StdioServerSpec {
  readonly transport: 'stdio';
  readonly command: string;
  readonly args: readonly string[];
  /** Variables set for the process (on top of the safe default environment). */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

/** A remote server. */
export interface HttpServerSpec {
  /** `auto`: Streamable HTTP, falling back to legacy HTTP+SSE; `http` or `sse`: only that one. */
  readonly transport: 'auto' | 'http' | 'sse';
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** One server of a config. */
export type ServerSpec = StdioServerSpec | HttpServerSpec;

/** A parsed config. */
export interface ServersConfig {
  /** Where it came from (a file path, or a label), for messages. */
  readonly source: string;
  /** The servers by name, in file order, without the disabled ones. */
  readonly servers: ReadonlyMap<string, ServerSpec>;
  /** The names of servers marked `disabled: true`. */
  readonly disabled: readonly string[];
  /** With `invalid: 'collect'`: the entries that did not check, by name, with why (else empty). */
  readonly invalid: ReadonlyMap<string, ServersConfigError>;
}

/** Bounds and variable expansion of {@link parseServersConfig}; every bound has a safe default. */
export interface ServersConfigOptions {
  /** Where the text came from, for messages (default `"the config"`). */
  source?: string;
  /** Largest text, in characters (default 1 MiB). */
  maxChars?: number;
  /** Deepest nesting of objects and arrays (default 32). */
  maxDepth?: number;
  /** Most values in the text (default 100,000). */
  maxValues?: number;
  /** Most servers (default 1,000). */
  maxServers?: number;
  /** Longest string value (command, argument, URL, header or variable value), in characters (default 65,536). */
  maxStringChars?: number;
  /** Most arguments, variables or headers of one server (default 1,000 each). */
  maxItems?: number;
  /**
   * What a server entry that does not check does: `throw` (default) fails the whole config;
   * `collect` leaves it out of `servers` and records it in `invalid`, so one bad entry does not
   * hide the others (a host can still use the rest and report it). Problems of the file itself
   * (syntax, bounds, the servers map, a name twice) always throw.
   */
  invalid?: 'throw' | 'collect';
  /** Expand `${env:NAME}`, `${NAME}` and `${NAME:-default}` from these variables (see the module note). Default: no expansion. */
  variables?: Readonly<Record<string, string | undefined>>;
}

/** The defaults of {@link ServersConfigOptions}. */
export const SERVERS_CONFIG_DEFAULTS = Object.freeze({
  maxChars: 1024 * 1024,
  maxDepth: 32,
  maxValues: 100_000,
  maxServers: 1000,
  maxStringChars: 65_536,
  maxItems: 1000,
});

/** A config that cannot be used; says which source, server and field, and what to do. */
export class ServersConfigError extends Error {
  override name = 'ServersConfigError';
  readonly source: string;
  readonly server: string | undefined;
  readonly field: string | undefined;
  constructor(source: string, problem: string, server?: string, field?: string) {
    const where = [source, server === undefined ? undefined : `server ${JSON.stringify(server)}`, field === undefined ? undefined : `"${field}"`]
      .filter((w) => w !== undefined)
      .join(': ');
    super(`${where}: ${problem}`);
    this.source = source;
    this.server = server;
    this.field = field;
  }
}

/**
 * Server names: letters, digits and `_ . @ -`, starting with a letter or digit, at most 128
 * characters (the installer's rule: valid in every supported format, and no `__proto__`).
 */
export const SERVER_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.@-]{0,127}$/;
const VARIABLE_NAME = /^[^\s=\p{Cc}]{1,256}$/u;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/;
const HEADER_VALUE_BAD = /[\x00-\x08\x0a-\x1f\x7f]/;
const KNOWN_TYPES: Readonly<Record<string, 'stdio' | 'http' | 'sse'>> = {
  stdio: 'stdio',
  local: 'stdio',
  http: 'http',
  'streamable-http': 'http',
  streamableHttp: 'http',
  sse: 'sse',
};

/**
 * Parses `text` (JSONC) into its servers. Throws {@link ServersConfigError} for text that is
 * too large, too deep, not JSONC, has no `mcpServers` (or `servers`) object, or an entry that
 * does not check (see the module note).
 */
export function parseServersConfig(text: string, options: ServersConfigOptions = {}): ServersConfig {
  const source = options.source ?? 'the config';
  const limits = { ...SERVERS_CONFIG_DEFAULTS, ...definedOnly(options) };
  if (typeof text !== 'string') throw new ServersConfigError(source, 'the config must be text');
  if (text.length > limits.maxChars) throw new ServersConfigError(source, `the config is larger than ${limits.maxChars} characters; refusing to read it`);
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  checkJsoncShape(body, limits.maxDepth, limits.maxValues, (problem) => {
    throw new ServersConfigError(
      source,
      problem.kind === 'depth'
        ? `objects and arrays nest deeper than ${problem.limit} levels; refusing to read it`
        : `the config holds more than ${problem.limit} values; refusing to read it`,
    );
  });
  if (body.trim() === '') throw new ServersConfigError(source, 'the config is empty; it needs an object with "mcpServers"');
  // only the first two levels matter for duplicates (the servers map and its names)
  const { value, duplicates } = parseJsonc(
    body,
    (error) => {
      throw new ServersConfigError(source, `not valid JSON or JSONC (${error}); fix the file`);
    },
    1,
  );
  if (!isObject(value)) throw new ServersConfigError(source, 'the config does not hold a JSON object at the top level');
  const key = Object.hasOwn(value, 'mcpServers') ? 'mcpServers' : Object.hasOwn(value, 'servers') ? 'servers' : undefined;
  if (key === undefined)
    throw new ServersConfigError(source, 'the config has no "mcpServers" object (or VS Code\'s "servers"); add one mapping names to servers');
  if (duplicates.has(JSON.stringify([key])))
    throw new ServersConfigError(source, `the key "${key}" occurs more than once; which one counts is not defined: merge them`);
  const map = value[key];
  if (!isObject(map)) throw new ServersConfigError(source, `"${key}" must be an object mapping names to servers`);
  const names = Object.keys(map);
  if (names.length > limits.maxServers) throw new ServersConfigError(source, `"${key}" has ${names.length} servers; at most ${limits.maxServers} are read`);
  const servers = new Map<string, ServerSpec>();
  const disabled: string[] = [];
  const invalid = new Map<string, ServersConfigError>();
  for (const name of names) {
    if (duplicates.has(JSON.stringify([key, name])))
      throw new ServersConfigError(source, 'the name occurs more than once; which entry counts is not defined: remove one', name);
    if (!SERVER_NAME_PATTERN.test(name)) {
      throw new ServersConfigError(source, 'the name is not allowed: use letters, digits and _ . @ - (at most 128, starting with a letter or digit)', name);
    }
    const entry = map[name];
    if (isObject(entry) && entry.disabled !== undefined) {
      if (typeof entry.disabled !== 'boolean') {
        const err = new ServersConfigError(source, 'must be true or false', name, 'disabled');
        if (options.invalid !== 'collect') throw err;
        invalid.set(name, err);
        continue;
      }
      if (entry.disabled) {
        disabled.push(name);
        continue;
      }
    }
    try {
      servers.set(name, parseServerSpec(entry, { ...options, source }, name));
    } catch (err) {
      if (options.invalid !== 'collect' || !(err instanceof ServersConfigError)) throw err;
      invalid.set(name, err);
    }
  }
  return { source, servers, disabled, invalid };
}

/**
 * Checks one server entry (an object in the `mcpServers` shape, e.g. given to a pool at run
 * time) into a {@link ServerSpec}. Throws {@link ServersConfigError}.
 */
export function parseServerSpec(entry: unknown, options: ServersConfigOptions = {}, name = 'server'): ServerSpec {
  const source = options.source ?? 'the config';
  const limits = { ...SERVERS_CONFIG_DEFAULTS, ...definedOnly(options) };
  const fail = (problem: string, field?: string) => new ServersConfigError(source, problem, name, field);
  if (!isObject(entry)) throw fail('the entry must be a JSON object with a "command" or a "url"');
  const str = (field: string, value: unknown): string => {
    if (typeof value !== 'string') throw fail('must be a string', field);
    if (value.length > limits.maxStringChars) throw fail(`is longer than ${limits.maxStringChars} characters`, field);
    return options.variables === undefined ? value : expand(value, options.variables, (problem) => fail(problem, field));
  };
  const rawType = entry.type ?? entry.transport;
  const typeField = entry.type !== undefined ? 'type' : 'transport';
  let type: 'stdio' | 'http' | 'sse' | undefined;
  if (rawType !== undefined) {
    if (typeof rawType !== 'string' || !Object.hasOwn(KNOWN_TYPES, rawType)) {
      throw fail(`unknown transport ${JSON.stringify(rawType)}; use "stdio", "http" (Streamable HTTP) or "sse"`, typeField);
    }
    type = KNOWN_TYPES[rawType];
  }
  const urlField = ['url', 'serverUrl', 'httpUrl'].find((f) => entry[f] !== undefined);
  const hasCommand = entry.command !== undefined;
  if (hasCommand && urlField !== undefined) throw fail(`give either "command" or "${urlField}", not both`);
  if (hasCommand || type === 'stdio') {
    if (type !== undefined && type !== 'stdio') throw fail(`a server with a "command" is a stdio server, not ${JSON.stringify(rawType)}`, typeField);
    if (!hasCommand) throw fail('a stdio server needs a "command"', 'command');
    const command = str('command', entry.command);
    if (command === '') throw fail('is empty; give the program to run', 'command');
    const spec: { transport: 'stdio'; command: string; args: string[]; env: Record<string, string>; cwd?: string } = {
      transport: 'stdio',
      command,
      args: stringList(entry.args, 'args', limits.maxItems, str, fail),
      env: stringMap(entry.env, 'env', limits.maxItems, str, fail, (k) => VARIABLE_NAME.test(k), 'a variable name (no "=", spaces or control characters)'),
    };
    if (entry.cwd !== undefined) spec.cwd = str('cwd', entry.cwd);
    return spec;
  }
  if (urlField === undefined) throw fail('the entry has neither a "command" nor a "url"');
  const url = str(urlField, entry[urlField]);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw fail('is not an absolute URL', urlField);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw fail(`must be an http or https URL, not ${parsed.protocol}`, urlField);
  const headers = stringMap(
    entry.headers,
    'headers',
    limits.maxItems,
    str,
    fail,
    (k) => HEADER_NAME.test(k),
    "an HTTP header name (letters, digits and !#$%&'*+.^_`|~-)",
  );
  for (const [k, v] of Object.entries(headers)) {
    if (HEADER_VALUE_BAD.test(v)) throw fail('holds a line break or control character; header values must be one line', `headers.${k}`);
  }
  // Gemini CLI: `httpUrl` is Streamable HTTP
  const transport = type ?? (urlField === 'httpUrl' ? 'http' : 'auto');
  return { transport: transport as HttpServerSpec['transport'], url, headers };
}

function definedOnly(options: ServersConfigOptions): Partial<typeof SERVERS_CONFIG_DEFAULTS> {
  const out: Record<string, number> = {};
  for (const key of Object.keys(SERVERS_CONFIG_DEFAULTS) as Array<keyof typeof SERVERS_CONFIG_DEFAULTS>) {
    const value = options[key];
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value < 1) throw new RangeError(`ServersConfigOptions.${key} must be a positive integer, got ${String(value)}`);
    out[key] = value;
  }
  return out;
}

type Str = (field: string, value: unknown) => string;
type Fail = (problem: string, field?: string) => ServersConfigError;

function stringList(value: unknown, field: string, max: number, str: Str, fail: Fail): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw fail('must be an array of strings', field);
  if (value.length > max) throw fail(`has more than ${max} items`, field);
  return value.map((v, i) => str(`${field}[${i}]`, v));
}

function stringMap(value: unknown, field: string, max: number, str: Str, fail: Fail, validKey: (k: string) => boolean, what: string): Record<string, string> {
  if (value === undefined) return {};
  if (!isObject(value)) throw fail('must be an object of strings', field);
  const keys = Object.keys(value);
  if (keys.length > max) throw fail(`has more than ${max} entries`, field);
  const out: Record<string, string> = {};
  for (const k of keys) {
    if (!validKey(k)) throw fail(`${JSON.stringify(k)} is not ${what}`, field);
    Object.defineProperty(out, k, { value: str(`${field}.${k}`, value[k]), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** Expands `${env:NAME}`, `${NAME}` and `${NAME:-default}`; refuses `${input:ID}` and unknown forms. */
function expand(text: string, variables: Readonly<Record<string, string | undefined>>, fail: (problem: string) => ServersConfigError): string {
  if (!text.includes('${')) return text;
  return text.replace(/\$\{([^}]{0,300})\}/g, (_whole, inner: string) => {
    if (inner.startsWith('input:'))
      throw fail(`holds the VS Code input variable \${${inner}}, which only the editor can ask for; write the value in the file instead`);
    const m = /^(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/s.exec(inner);
    if (m === null) throw fail(`holds \${${inner}}, which is not a variable this reader knows; use \${NAME}, \${env:NAME} or \${NAME:-default}`);
    const value = Object.hasOwn(variables, m[1]!) ? variables[m[1]!] : undefined;
    if (value !== undefined) return value;
    if (m[2] !== undefined) return m[2];
    throw fail(`uses the variable ${m[1]}, which is not set; set it or give a default (\${${m[1]}:-value})`);
  });
}
