/**
 * Tool arguments from the command line: `key=value` pairs converted by the tool's input
 * schema (a number property gets a number, a boolean `true`/`false`, an array a JSON array
 * or comma-separated items, an object JSON), on top of an optional `--args '<json>'` object;
 * then the whole object is validated against the input schema, so wrong arguments are
 * reported before anything is sent.
 */
import type { JSONObject } from '../jsonrpc/types.js';

/** A JSON value as produced by a conversion. */
type JSONValue = unknown;

import { isObject } from '../jsonrpc/values.js';
import { formatIssues, toSchemaAdapter } from '../schema/index.js';
import { UsageError } from './usage-error.js';

/** Largest `--args` JSON accepted, in characters (1 Mi); a longer one is a usage error. */
export const MAX_ARGS_JSON_CHARS = 1024 * 1024;

/** The JSON Schema type(s) a property declares, as a list ([] when it declares none). */
function typesOf(schema: unknown): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const t = (schema as JSONObject).type;
  if (typeof t === 'string') return [t];
  if (Array.isArray(t)) return t.filter((x): x is string => typeof x === 'string');
  const e = (schema as JSONObject).enum;
  if (Array.isArray(e) && e.length > 0) return [...new Set(e.map((v) => (v === null ? 'null' : typeof v)))];
  return [];
}

/** Converts one `value` for a property of `schema`; throws {@link UsageError} naming `key`. */
export function convertValue(key: string, value: string, schema: unknown): JSONValue {
  const types = typesOf(schema);
  const fail = (what: string): never => {
    throw new UsageError(`argument ${key}: ${what}`);
  };
  if (types.length === 0) return parseLoose(value);
  if (types.includes('string') && !types.some((t) => t !== 'string' && t !== 'null')) return value;
  for (const type of types) {
    switch (type) {
      case 'integer':
        if (/^-?\d+$/.test(value.trim())) return Number(value);
        break;
      case 'number':
        if (value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
        break;
      case 'boolean':
        if (value === 'true' || value === 'false') return value === 'true';
        break;
      case 'null':
        if (value === 'null') return null;
        break;
      case 'array': {
        // a JSON array is taken whole (its items may hold commas: edits=[{"a":1,"b":2},{...}])
        if (value.trim().startsWith('[')) return parseJson(value, fail);
        const items = (schema as JSONObject).items;
        if (value === '') return [];
        // items that are objects or arrays: `{...},{...}` is the array's JSON without brackets
        const itemTypes = typesOf(items);
        if (itemTypes.includes('object') || itemTypes.includes('array') || /^\s*[{[]/.test(value)) return parseJson(`[${value}]`, fail);
        return value.split(',').map((item) => convertValue(key, item, items));
      }
      case 'object':
        if (value.trim().startsWith('{')) return parseJson(value, fail);
        break;
    }
  }
  if (types.includes('string')) return value;
  return fail(
    `${JSON.stringify(value)} is not ${types.map((t) => (t === 'integer' ? 'an integer' : t === 'object' || t === 'array' ? `a JSON ${t}` : `a ${t}`)).join(' or ')}`,
  );
}

/** `<type>` for a missing-argument message: `<integer>`, `<string>`, `<value>`. */
function describeType(schema: unknown): string {
  const types = typesOf(schema).filter((t) => t !== 'null');
  return `<${types.length > 0 ? types.join('|') : 'value'}>`;
}

function parseLoose(value: string): JSONValue {
  try {
    return JSON.parse(value) as JSONValue;
  } catch {
    return value;
  }
}

function parseJson(value: string, fail: (what: string) => never): JSONValue {
  try {
    return JSON.parse(value) as JSONValue;
  } catch (err) {
    return fail(`not valid JSON: ${(err as Error).message}`);
  }
}

/**
 * Builds a tool's arguments from `pairs` (`key=value`) and `json` (`--args`), converting by
 * `inputSchema`, and validates them against it. A key given twice for an array property
 * appends. Throws {@link UsageError} for a pair without `=`, a value of the wrong type,
 * `--args` that is not a JSON object, missing required arguments (every one named, with
 * `toolName` in the hint), or arguments the schema refuses.
 */
export async function buildToolArguments(
  inputSchema: JSONObject | undefined,
  pairs: readonly string[],
  json: string | undefined,
  toolName = 'TOOL',
): Promise<JSONObject> {
  let args: JSONObject = {};
  if (json !== undefined) {
    if (json.length > MAX_ARGS_JSON_CHARS) throw new UsageError(`--args is longer than ${MAX_ARGS_JSON_CHARS} characters`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch (err) {
      throw new UsageError(`--args is not valid JSON: ${(err as Error).message}`);
    }
    if (!isObject(parsed)) throw new UsageError('--args must be a JSON object');
    args = parsed as JSONObject;
  }
  const properties = (inputSchema?.properties ?? {}) as JSONObject;
  const seen = new Set<string>();
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`tool arguments are key=value, not ${JSON.stringify(pair)}`);
    const key = pair.slice(0, eq);
    const schema = Object.hasOwn(properties, key) ? properties[key] : undefined;
    const value = convertValue(key, pair.slice(eq + 1), schema);
    const previous = Object.hasOwn(args, key) ? args[key] : undefined;
    if (seen.has(key) && Array.isArray(previous) && Array.isArray(value)) args[key] = [...previous, ...value];
    else if (seen.has(key)) throw new UsageError(`argument ${key} is given twice`);
    else Object.defineProperty(args, key, { value, enumerable: true, writable: true, configurable: true });
    seen.add(key);
  }
  // every missing argument at once (a validator names only the first), with where to read about them
  const required = Array.isArray(inputSchema?.required) ? inputSchema.required.filter((r): r is string => typeof r === 'string') : [];
  const missing = required.filter((name) => !Object.hasOwn(args, name));
  if (missing.length > 0) {
    throw new UsageError(
      `missing required argument${missing.length > 1 ? 's' : ''}: ${missing.map((m) => `${m}=${describeType(properties[m])}`).join(' ')} (mcpkit call TARGET ${toolName} --help lists the parameters)`,
    );
  }
  if (inputSchema !== undefined) {
    let checked;
    try {
      checked = await toSchemaAdapter(inputSchema).validate(args);
    } catch {
      return args; // a schema the validator cannot compile: let the server judge
    }
    if (!checked.valid) throw new UsageError(`the arguments do not match the tool's input schema: ${formatIssues(checked.errors)}`);
  }
  return args;
}

/**
 * Prompt arguments (`key=value`, all strings, as `prompts/get` takes them); checks that every
 * argument the prompt marks required is there. Throws {@link UsageError}.
 */
export function buildPromptArguments(
  declared: ReadonlyArray<{ name: string; required?: boolean }> | undefined,
  pairs: readonly string[],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`prompt arguments are key=value, not ${JSON.stringify(pair)}`);
    Object.defineProperty(out, pair.slice(0, eq), { value: pair.slice(eq + 1), enumerable: true, writable: true, configurable: true });
  }
  const missing = (declared ?? []).filter((a) => a.required && !Object.hasOwn(out, a.name)).map((a) => a.name);
  if (missing.length > 0) throw new UsageError(`missing required prompt argument${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}`);
  return out;
}
