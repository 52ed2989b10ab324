/**
 * The request headers of Streamable HTTP in the stateless era (2026-07-28 › Transports ›
 * Streamable HTTP › Request Metadata, SEP-2243): `Mcp-Method`, `Mcp-Name`, and the
 * `Mcp-Param-{Name}` headers that mirror tool arguments annotated with `x-mcp-header`.
 * Shared by the client (which sends them) and the server (which checks them against the
 * body). Runtime-neutral.
 *
 * Value encoding: a value that is not safe as a plain header value (non-ASCII, control
 * characters, leading or trailing whitespace, or text that looks like the sentinel itself)
 * travels as `=?base64?{base64 of its UTF-8}?=`; the sentinel is case-sensitive.
 */
import type { JSONObject } from '../../jsonrpc/types.js';
import { isObject } from '../../jsonrpc/values.js';

/** Methods whose `Mcp-Name` header mirrors `params.name`. */
const NAME_METHODS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get']);
/** Methods of the tasks extension whose `Mcp-Name` mirrors `params.taskId` (SEP-2663 › Routing Headers). */
const TASK_METHODS: ReadonlySet<string> = new Set(['tasks/get', 'tasks/update', 'tasks/cancel']);

/** The body value `Mcp-Name` mirrors for `method`, when the method has one and it is a string. */
export function mcpNameSource(method: string, params: JSONObject | undefined): string | undefined {
  const value = NAME_METHODS.has(method) ? params?.name : method === 'resources/read' ? params?.uri : TASK_METHODS.has(method) ? params?.taskId : undefined;
  return typeof value === 'string' ? value : undefined;
}

/** True when `method` requires an `Mcp-Name` header. */
export function requiresMcpName(method: string): boolean {
  return NAME_METHODS.has(method) || method === 'resources/read' || TASK_METHODS.has(method);
}

const SENTINEL = /^=\?base64\?(.*)\?=$/s;
const PLAIN_SAFE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const utf8 = new TextEncoder();
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** A header value for `text`: as is when safe, else the base64 sentinel form. */
export function encodeHeaderValue(text: string): string {
  if (text === '' || (PLAIN_SAFE.test(text) && !SENTINEL.test(text))) return text;
  const bytes = utf8.encode(text);
  let binary = '';
  for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]!);
  return `=?base64?${btoa(binary)}?=`;
}

/**
 * The text a received header value stands for: leading and trailing whitespace removed,
 * the base64 sentinel decoded. Undefined when the value holds characters a header may not
 * carry, or its base64 is malformed (bad alphabet or padding) or not UTF-8.
 */
export function decodeHeaderValue(raw: string): string | undefined {
  let start = 0;
  let end = raw.length;
  while (start < end && (raw.charCodeAt(start) === 0x20 || raw.charCodeAt(start) === 0x09)) start++;
  while (end > start && (raw.charCodeAt(end - 1) === 0x20 || raw.charCodeAt(end - 1) === 0x09)) end--;
  const value = start === 0 && end === raw.length ? raw : raw.slice(start, end);
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09) || c > 0x7e) return undefined;
  }
  if (!value.startsWith('=?base64?') || !value.endsWith('?=') || value.length < 11) return value;
  const b64 = value.slice(9, -2);
  if (!BASE64.test(b64)) return undefined;
  try {
    const binary = atob(b64);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** One argument mirrored into a header. */
export interface ParamHeader {
  /** The `x-mcp-header` value: the header is `Mcp-Param-{name}`. */
  readonly name: string;
  /** The chain of `properties` keys leading to the argument. */
  readonly path: readonly string[];
  /** The declared JSON type: `string`, `integer` or `boolean`. */
  readonly type: 'string' | 'integer' | 'boolean';
}

const TCHAR = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * The `x-mcp-header` annotations of a tool's input schema. Throws TypeError naming the
 * problem when an annotation breaks the rules (empty, not an HTTP token, duplicated
 * case-insensitively, on a type other than string/integer/boolean, or anywhere but a chain
 * of `properties` from the root). The client drops tools for which this throws.
 */
export function paramHeaders(inputSchema: unknown): ParamHeader[] {
  const out: ParamHeader[] = [];
  const seen = new Set<string>();
  const visit = (schema: unknown, path: string[], reachable: boolean, depth: number): void => {
    if (depth > 64) return;
    if (Array.isArray(schema)) {
      for (const item of schema) visit(item, path, false, depth + 1);
      return;
    }
    if (!isObject(schema)) return;
    if (Object.hasOwn(schema, 'x-mcp-header')) {
      const name = schema['x-mcp-header'];
      if (!reachable || path.length === 0)
        throw new TypeError(`x-mcp-header ${JSON.stringify(name)} is not on a property reachable through "properties" alone`);
      if (typeof name !== 'string' || name === '') throw new TypeError(`x-mcp-header at ${path.join('.')} must be a non-empty string`);
      if (!TCHAR.test(name)) throw new TypeError(`x-mcp-header ${JSON.stringify(name)} is not a valid HTTP header name token`);
      const type = schema.type;
      if (type !== 'string' && type !== 'integer' && type !== 'boolean')
        throw new TypeError(`x-mcp-header ${JSON.stringify(name)} is on a ${JSON.stringify(type)} property; only string, integer and boolean may be mirrored`);
      const key = name.toLowerCase();
      if (seen.has(key)) throw new TypeError(`x-mcp-header ${JSON.stringify(name)} is used more than once (names are case-insensitive)`);
      seen.add(key);
      out.push({ name, path: [...path], type });
    }
    for (const key of Object.keys(schema)) {
      const value = schema[key];
      if (key === 'properties' && isObject(value)) {
        for (const prop of Object.keys(value)) visit(value[prop], [...path, prop], reachable, depth + 1);
      } else if (
        typeof value === 'object' &&
        value !== null &&
        key !== 'x-mcp-header' &&
        key !== 'enum' &&
        key !== 'const' &&
        key !== 'default' &&
        key !== 'examples'
      ) {
        visit(value, path, false, depth + 1);
      }
    }
  };
  visit(inputSchema, [], true, 0);
  return out;
}

/** The argument at `path` in `args`, or undefined when absent (or null). */
export function argumentAt(args: unknown, path: readonly string[]): unknown {
  let node = args;
  for (const key of path) {
    if (!isObject(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return node === null ? undefined : node;
}

/** The header text of an argument value (strings as is, integers in decimal, booleans lower-case); undefined for other values. */
export function argumentHeaderText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/**
 * True when a decoded header text matches the body value: strings exactly, booleans as
 * `true`/`false`, numbers numerically (`42.0` matches 42).
 */
export function headerMatches(text: string, value: unknown): boolean {
  if (typeof value === 'string') return text === value;
  if (typeof value === 'boolean') return text === (value ? 'true' : 'false');
  if (typeof value === 'number') return text.trim() !== '' && Number(text) === value;
  return false;
}
