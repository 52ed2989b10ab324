/**
 * One MCP server as `mcpkit install` handles it, independent of any client's config format:
 * either a local command (run by the client over stdio) or a remote URL. Every input form
 * (command-line arguments, a JSON snippet, an install link) is turned into this shape and
 * checked here, and every client format is written from it.
 */

import { isObject } from '../../jsonrpc/values.js';

/** A server entry: a local command or a remote URL, never both. */
export interface ServerEntry {
  /** The key the server gets in the client's config. */
  name: string;
  /** The program to run (stdio servers). */
  command?: string;
  /** Its arguments, passed as they are (no shell). */
  args: string[];
  /** Environment variables the client sets for the command. */
  env: Record<string, string>;
  /** Working directory for the command, when given. */
  cwd?: string;
  /** The endpoint of a remote server. */
  url?: string;
  /** How the remote server is reached: Streamable HTTP (default) or legacy SSE. */
  transport?: 'http' | 'sse';
  /** HTTP headers sent to a remote server. */
  headers: Record<string, string>;
  /**
   * VS Code input variables (`${input:ID}` placeholders the editor asks the user for),
   * from a VS Code link or snippet; written to a VS Code file's top-level `inputs`.
   */
  inputs: InputVariable[];
  /** Fields of the input that no supported format carries; shown, never written. */
  ignored: string[];
}

/** One VS Code input variable: `promptString` (optionally `password`) or `pickString`. */
export interface InputVariable {
  type: string;
  id: string;
  description?: string;
  password?: boolean;
  default?: string;
  options?: string[];
}

/** Input variable ids: letters, digits, `_ . -`, at most 128. */
const INPUT_ID = /^[A-Za-z0-9_.-]{1,128}$/;

/** A mistake in what the user (or a link) gave; the message is shown as it is. */
export class InstallInputError extends Error {
  override name = 'InstallInputError';
}

/**
 * Server names: letters, digits and `_ . @ -`, starting with a letter or digit, at most 128
 * characters. This keeps names valid in every supported format (VS Code's schema is the
 * strictest) and keeps keys such as `__proto__` out.
 */
export const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9_.@-]{0,127}$/;

/** Environment variable and header names: no `=`, no control characters, no spaces. */
const VARIABLE_NAME = /^[^\s=\p{Cc}]{1,256}$/u;

/** HTTP header names: an RFC 9110 token. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/;
/** What a header value must not hold: CR, LF, NUL and the other controls but horizontal tab (RFC 9110 field-value). */
const HEADER_VALUE_BAD = /[\x00-\x08\x0a-\x1f\x7f]/;

/**
 * Throws {@link InstallInputError} unless `name` is an HTTP header name (a token) and `value`
 * holds no CR, LF or other control character: a line break in a value would let a link
 * smuggle extra header lines (or a whole request) into what the client sends.
 */
export function checkHeader(name: string, value: string, where: string): void {
  if (!HEADER_NAME.test(name))
    throw new InstallInputError(`${where}: ${JSON.stringify(name)} is not a valid HTTP header name (letters, digits and !#$%&'*+.^_\`|~-)`);
  if (HEADER_VALUE_BAD.test(value))
    throw new InstallInputError(
      `${where}: the value of header ${JSON.stringify(name)} holds a line break or control character (CR, LF, NUL, ...); header values must be one line`,
    );
}

/** Throws {@link InstallInputError} unless `name` matches {@link SERVER_NAME}. */
export function checkServerName(name: string): string {
  if (!SERVER_NAME.test(name)) {
    throw new InstallInputError(
      `the server name ${JSON.stringify(name)} is not allowed: use letters, digits and _ . @ - (at most 128, starting with a letter or digit)`,
    );
  }
  return name;
}

/** The fields the input forms may carry, mapped to the entry. */
const KNOWN_FIELDS = new Set(['name', 'type', 'command', 'args', 'env', 'cwd', 'url', 'serverUrl', 'httpUrl', 'headers', 'inputs']);

/**
 * Builds a {@link ServerEntry} from a JSON object in the common `mcpServers` shape
 * (`command`, `args`, `env`, `cwd`, or `url` / `serverUrl` / `httpUrl` with `headers`, and an
 * optional `type`: `stdio`, `http`, `streamable-http`, `sse`). Unknown fields are listed in
 * `ignored`. Throws {@link InstallInputError} for anything of the wrong type, and for a name
 * outside {@link SERVER_NAME} unless `checkName` is false (entries read back from a file).
 */
export function entryFromJson(name: string, value: unknown, where: string, checkName = true): ServerEntry {
  if (!isObject(value)) throw new InstallInputError(`${where}: the server configuration must be a JSON object`);
  if (checkName) checkServerName(name);
  const entry: ServerEntry = {
    name,
    args: [],
    env: {},
    headers: {},
    inputs: inputVariables(value.inputs, where),
    ignored: Object.keys(value)
      .filter((k) => !KNOWN_FIELDS.has(k))
      .sort(),
  };
  const type = optionalString(value, 'type', where);
  if (type !== undefined && !['stdio', 'http', 'streamable-http', 'streamableHttp', 'sse', 'local', 'remote'].includes(type)) {
    throw new InstallInputError(`${where}: unknown server type ${JSON.stringify(type)}`);
  }
  const command = optionalString(value, 'command', where);
  const url = optionalString(value, 'url', where) ?? optionalString(value, 'serverUrl', where) ?? optionalString(value, 'httpUrl', where);
  if (command !== undefined && url !== undefined) throw new InstallInputError(`${where}: give either a command or a URL, not both`);
  if (command !== undefined) {
    if (command === '') throw new InstallInputError(`${where}: the command is empty`);
    entry.command = command;
    entry.args = stringArray(value, 'args', where);
    entry.env = stringRecord(value, 'env', where);
    const cwd = optionalString(value, 'cwd', where);
    if (cwd !== undefined) entry.cwd = cwd;
  } else if (url !== undefined) {
    entry.url = checkUrl(url, where);
    entry.transport = type === 'sse' ? 'sse' : 'http';
    entry.headers = stringRecord(value, 'headers', where);
    for (const [k, v] of Object.entries(entry.headers)) checkHeader(k, v, where);
  } else {
    throw new InstallInputError(`${where}: the server configuration has neither a "command" nor a "url"`);
  }
  return entry;
}

/** A fresh entry with no environment, headers, inputs or ignored fields. */
export function emptyEntry(name: string): ServerEntry {
  return { name: checkServerName(name), args: [], env: {}, headers: {}, inputs: [], ignored: [] };
}

/** Checks a VS Code `inputs` array, keeping only the documented fields of each; throws {@link InstallInputError}. */
export function inputVariables(value: unknown, where: string): InputVariable[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new InstallInputError(`${where}: "inputs" must be an array`);
  return value.map((item, i) => {
    const at = `${where}: inputs[${i}]`;
    if (!isObject(item)) throw new InstallInputError(`${at} must be an object`);
    const type = optionalString(item, 'type', at);
    const id = optionalString(item, 'id', at);
    if (type === undefined || id === undefined || !INPUT_ID.test(id)) throw new InstallInputError(`${at} needs a "type" and an "id" of letters, digits, _ . -`);
    const out: InputVariable = { type, id };
    const description = optionalString(item, 'description', at);
    if (description !== undefined) out.description = description;
    if (item.password !== undefined) {
      if (typeof item.password !== 'boolean') throw new InstallInputError(`${at}: "password" must be true or false`);
      out.password = item.password;
    }
    const fallback = optionalString(item, 'default', at);
    if (fallback !== undefined) out.default = fallback;
    if (item.options !== undefined) out.options = stringArray(item, 'options', at);
    return out;
  });
}

/** Throws {@link InstallInputError} unless `url` is an absolute http(s) URL; returns it unchanged. */
export function checkUrl(url: string, where: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InstallInputError(`${where}: ${JSON.stringify(url)} is not a URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new InstallInputError(`${where}: the server URL must be http or https`);
  return url;
}

function optionalString(obj: Record<string, unknown>, key: string, where: string): string | undefined {
  const value = obj[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new InstallInputError(`${where}: "${key}" must be a string`);
  return value;
}

function stringArray(obj: Record<string, unknown>, key: string, where: string): string[] {
  const value = obj[key];
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw new InstallInputError(`${where}: "${key}" must be an array of strings`);
  return [...value];
}

function stringRecord(obj: Record<string, unknown>, key: string, where: string): Record<string, string> {
  const value = obj[key];
  if (value === undefined) return {};
  if (!isObject(value)) throw new InstallInputError(`${where}: "${key}" must be an object of strings`);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) {
    if (typeof v !== 'string') throw new InstallInputError(`${where}: "${key}.${k}" must be a string`);
    if (!VARIABLE_NAME.test(k)) throw new InstallInputError(`${where}: ${JSON.stringify(k)} is not a valid name in "${key}"`);
    Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** Parses `NAME=VALUE` (from `--env` or `--header NAME: VALUE`) into the record; throws {@link InstallInputError}. */
export function addPair(into: Record<string, string>, text: string, separator: '=' | ':', flag: string): void {
  const at = text.indexOf(separator);
  // only blanks are trimmed: a CR or LF stays, so that a header value holding one is refused
  const name = at > 0 ? text.slice(0, at).replace(/^[ \t]+|[ \t]+$/g, '') : '';
  if (!VARIABLE_NAME.test(name)) throw new InstallInputError(`${flag} needs NAME${separator}VALUE, got ${JSON.stringify(text)}`);
  const value = separator === ':' ? text.slice(at + 1).replace(/^[ \t]+|[ \t]+$/g, '') : text.slice(at + 1);
  if (separator === ':') checkHeader(name, value, flag);
  Object.defineProperty(into, name, { value, enumerable: true, writable: true, configurable: true });
}
