/**
 * The input forms of `mcpkit install`, each turned into a {@link ServerEntry}:
 *
 * - a Cursor install link, `cursor://anysphere.cursor-deeplink/mcp/install?name=NAME&config=BASE64`,
 *   where the base64 text is the JSON of one server's configuration (bare, or wrapped in an
 *   object keyed by the server name);
 * - a VS Code install link, `vscode:mcp/install?JSON` (also `vscode-insiders:`), where the
 *   percent-encoded JSON holds `name` and the server's configuration, as `code --add-mcp` takes;
 * - the web forms of both, which a browser turns into the links above:
 *   `https://cursor.com/[LOCALE/]install-mcp?name=NAME&config=BASE64` (read like the Cursor
 *   link) and `https://vscode.dev/redirect/mcp/install?name=NAME&config=JSON` (also on
 *   `insiders.vscode.dev`, with an optional `quality=insiders`), where the percent-encoded
 *   JSON is the server's configuration;
 * - a JSON snippet: `{"name": ..., "command": ...}`, `{"mcpServers": {NAME: {...}}}`,
 *   `{"servers": {NAME: {...}}}`, `{NAME: {...}}`, or a bare configuration with `--name`.
 *
 * Nothing here runs anything: the result is only data for the consent screen and the file.
 */

import { isObject } from '../../jsonrpc/values.js';
import { entryFromJson, InstallInputError, inputVariables, type ServerEntry } from './entry.js';

/** Default for {@link SourceLimits.maxInputBytes}. */
export const DEFAULT_MAX_INPUT_BYTES = 1024 * 1024;

/** Limits on what a link or snippet may hold. */
export interface SourceLimits {
  /**
   * Largest link or JSON snippet accepted, in UTF-16 code units of its text (default
   * {@link DEFAULT_MAX_INPUT_BYTES}, 1 MiB). A longer input is refused with a usage error
   * before it is decoded.
   */
  maxInputBytes?: number;
}

const CURSOR_PREFIX = 'cursor://anysphere.cursor-deeplink/mcp/install?';
const VSCODE_LINK = /^vscode(-insiders)?:(\/\/)?mcp\/install\?/;
/** Cursor's web install page, with or without a locale (`/en/`, `/pt-BR/`). */
const CURSOR_WEB = /^https:\/\/(www\.)?cursor\.com\/([a-z]{2}(-[A-Za-z]{2,4})?\/)?install-mcp\?/i;
/** VS Code's web redirect to its install link. */
const VSCODE_WEB = /^https:\/\/(insiders\.)?vscode\.dev\/redirect\/mcp\/install\?/i;

/** True when `text` looks like one of the install links this module reads (app links and their web forms). */
export function isInstallLink(text: string): boolean {
  return (
    text.startsWith(CURSOR_PREFIX) ||
    VSCODE_LINK.test(text) ||
    CURSOR_WEB.test(text) ||
    VSCODE_WEB.test(text) ||
    text.startsWith('cursor:') ||
    text.startsWith('vscode:') ||
    text.startsWith('vscode-insiders:')
  );
}

/**
 * Reads an install link. `nameOverride` (from `--name`) replaces the name the link gives.
 * Throws {@link InstallInputError} for an unknown link form, bad encoding, or a bad config.
 */
export function entryFromLink(link: string, nameOverride: string | undefined, limits: SourceLimits = {}): ServerEntry {
  checkSize(link, 'the install link', limits);
  if (link.startsWith(CURSOR_PREFIX)) return fromCursorLink(link.slice(CURSOR_PREFIX.length), nameOverride);
  const cursorWeb = CURSOR_WEB.exec(link);
  if (cursorWeb) return fromCursorLink(withoutFragment(link.slice(cursorWeb[0].length)), nameOverride);
  const vscode = VSCODE_LINK.exec(link);
  if (vscode) return fromVscodeLink(link.slice(vscode[0].length), nameOverride);
  const vscodeWeb = VSCODE_WEB.exec(link);
  if (vscodeWeb) return fromVscodeWebLink(withoutFragment(link.slice(vscodeWeb[0].length)), nameOverride);
  throw new InstallInputError(
    'unknown install link: expected cursor://anysphere.cursor-deeplink/mcp/install?name=...&config=..., vscode:mcp/install?{...}, https://cursor.com/install-mcp?... or https://vscode.dev/redirect/mcp/install?...',
  );
}

function withoutFragment(query: string): string {
  const hash = query.indexOf('#');
  return hash < 0 ? query : query.slice(0, hash);
}

/** The `name=value` pairs of a query, split by hand: URLSearchParams turns '+' into a space, and '+' is a base64 digit. */
function queryParams(query: string, where: string): Map<string, string> {
  const params = new Map<string, string>();
  for (const part of query.split('&')) {
    const at = part.indexOf('=');
    const key = at < 0 ? part : part.slice(0, at);
    const name = percentDecode(key, where);
    if (params.has(name)) throw new InstallInputError(`${where} gives "${name}" twice; which one counts is not defined`);
    params.set(name, percentDecode(at < 0 ? '' : part.slice(at + 1), where));
  }
  return params;
}

function fromVscodeWebLink(query: string, nameOverride: string | undefined): ServerEntry {
  const where = 'the vscode.dev link';
  const params = queryParams(query, where);
  const config = params.get('config');
  if (config === undefined || config === '') throw new InstallInputError(`${where} has no config parameter`);
  const json = parseJson(config, `${where}'s config`);
  if (!isObject(json)) throw new InstallInputError(`${where}'s config must be a JSON object`);
  const { name: inner, ...rest } = json;
  const chosen = nameOverride ?? params.get('name') ?? (typeof inner === 'string' ? inner : undefined);
  if (chosen === undefined) throw new InstallInputError(`${where} has no name; give one with --name`);
  return entryFromJson(chosen, rest, where);
}

function fromCursorLink(query: string, nameOverride: string | undefined): ServerEntry {
  const params = queryParams(query, 'the Cursor link');
  const encoded = params.get('config');
  if (encoded === undefined || encoded === '') throw new InstallInputError('the Cursor link has no config parameter');
  const json = parseJson(decodeBase64(encoded), "the Cursor link's config");
  const linkName = params.get('name');
  return unwrapOne(json, nameOverride ?? linkName, 'the Cursor link');
}

function fromVscodeLink(query: string, nameOverride: string | undefined): ServerEntry {
  const json = parseJson(percentDecode(query, 'the VS Code link'), 'the VS Code link');
  if (!isObject(json)) throw new InstallInputError('the VS Code link must hold a JSON object');
  const { name, ...config } = json;
  const chosen = nameOverride ?? (typeof name === 'string' ? name : undefined);
  if (chosen === undefined) throw new InstallInputError('the VS Code link has no "name"; give one with --name');
  return entryFromJson(chosen, config, 'the VS Code link');
}

/**
 * Reads a JSON snippet (the forms listed in the module note). Throws
 * {@link InstallInputError} when it is not JSON, holds no server, or holds several and
 * `--name` does not pick one.
 */
export function entryFromSnippet(text: string, nameOverride: string | undefined, limits: SourceLimits = {}): ServerEntry {
  checkSize(text, 'the JSON snippet', limits);
  const json = parseJson(text, 'the JSON snippet');
  if (!isObject(json)) throw new InstallInputError('the JSON snippet must be a JSON object');
  for (const key of ['mcpServers', 'servers']) {
    const servers = json[key];
    if (!isObject(servers)) continue;
    const entry = pickServer(servers, nameOverride, `the JSON snippet's "${key}"`);
    // A whole .vscode/mcp.json: its top-level inputs go with the server.
    if (entry.inputs.length === 0) entry.inputs = inputVariables(json.inputs, 'the JSON snippet');
    return entry;
  }
  if (typeof json.name === 'string' && !isObject(json[json.name])) {
    const { name, ...config } = json;
    return entryFromJson(nameOverride ?? (name as string), config, 'the JSON snippet');
  }
  return unwrapOne(json, nameOverride, 'the JSON snippet');
}

/** A configuration given bare (`{"command": ...}`) or wrapped in one key (`{NAME: {...}}`). */
function unwrapOne(json: unknown, name: string | undefined, where: string): ServerEntry {
  if (!isObject(json)) throw new InstallInputError(`${where}: the configuration must be a JSON object`);
  const bare = 'command' in json || 'url' in json || 'serverUrl' in json || 'httpUrl' in json;
  if (bare) {
    if (name === undefined) throw new InstallInputError(`${where} names no server; give a name with --name`);
    return entryFromJson(name, json, where);
  }
  const keys = Object.keys(json);
  if (keys.length !== 1) throw new InstallInputError(`${where} must hold exactly one server configuration (found ${keys.length} keys)`);
  return entryFromJson(name ?? keys[0]!, json[keys[0]!], where);
}

function pickServer(servers: Record<string, unknown>, name: string | undefined, where: string): ServerEntry {
  const keys = Object.keys(servers);
  if (keys.length === 1) return entryFromJson(name ?? keys[0]!, servers[keys[0]!], where);
  if (name !== undefined && Object.hasOwn(servers, name)) return entryFromJson(name, servers[name], where);
  throw new InstallInputError(
    keys.length === 0 ? `${where} is empty` : `${where} holds ${keys.length} servers; pick one with --name (${keys.map((k) => JSON.stringify(k)).join(', ')})`,
  );
}

function checkSize(text: string, what: string, limits: SourceLimits): void {
  const max = limits.maxInputBytes ?? DEFAULT_MAX_INPUT_BYTES;
  if (text.length > max) throw new InstallInputError(`${what} is longer than ${max} characters`);
}

function percentDecode(text: string, where: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new InstallInputError(`${where} has a malformed %-escape`);
  }
}

function decodeBase64(text: string): string {
  // A '+' may have become a space on its way through a browser or a shell.
  const cleaned = text.replaceAll(' ', '+');
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(cleaned)) throw new InstallInputError("the Cursor link's config is not base64");
  const bytes = Buffer.from(cleaned.replaceAll('-', '+').replaceAll('_', '/'), 'base64');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new InstallInputError("the Cursor link's config is not UTF-8 text");
  }
}

function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new InstallInputError(`${where} is not valid JSON (${(err as Error).message})`);
  }
}
