/**
 * What a person needs to call a tool: `mcpkit call TARGET TOOL --help` (the tool's title,
 * description and its input schema as a table of parameters: name, type, required, default,
 * description) and the short parameter list `mcpkit list` shows (`a b ms?`). Everything the
 * server wrote goes through {@link clean} (in {@link table}).
 */
import type { JSONObject } from '../jsonrpc/types.js';
import { isObject } from '../jsonrpc/values.js';
import type { Tool } from '../types.js';
import type { Target } from './target.js';
import { clean, table, terminalWidth } from './terminal.js';

/** Longest default or enum list shown in a cell, in characters; longer ones are cut with "…". */
const MAX_CELL_CHARS = 60;

/** One parameter of a tool's input schema. */
export interface Parameter {
  name: string;
  type: string;
  required: boolean;
  /** The default as JSON text, '' when there is none. */
  default: string;
  description: string;
}

/** The parameters of `inputSchema` (its top-level `properties`), in declaration order. */
export function parametersOf(inputSchema: unknown): Parameter[] {
  if (!isObject(inputSchema) || !isObject(inputSchema.properties)) return [];
  const required = new Set(Array.isArray(inputSchema.required) ? inputSchema.required.filter((r): r is string => typeof r === 'string') : []);
  return Object.entries(inputSchema.properties).map(([name, schema]) => {
    const s = isObject(schema) ? schema : {};
    return {
      name,
      type: typeOf(s),
      required: required.has(name),
      default: s.default === undefined ? '' : cut(JSON.stringify(s.default)),
      description: typeof s.description === 'string' ? s.description : typeof s.title === 'string' ? s.title : '',
    };
  });
}

/** A schema's type for a person: `integer`, `string|null`, `array of string`, `string (a, b)`, `any`. */
export function typeOf(schema: JSONObject, depth = 0): string {
  if (depth > 3) return 'any';
  let type: string;
  if (typeof schema.type === 'string') type = schema.type;
  else if (Array.isArray(schema.type)) type = schema.type.filter((t) => typeof t === 'string').join('|');
  else if (schema.const !== undefined) return cut(`const ${JSON.stringify(schema.const)}`);
  else {
    const alternatives = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
    if (alternatives !== undefined) type = [...new Set(alternatives.map((a) => (isObject(a) ? typeOf(a, depth + 1) : 'any')))].join('|');
    else type = Array.isArray(schema.enum) ? '' : 'any';
  }
  if (type.split('|').includes('array') && isObject(schema.items)) type = type.replace('array', `array of ${typeOf(schema.items, depth + 1)}`);
  if (Array.isArray(schema.enum)) {
    const values = schema.enum.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ');
    type = cut(type === '' ? `one of ${values}` : `${type} (${values})`);
  }
  return type || 'any';
}

function cut(text: string): string {
  return text.length > MAX_CELL_CHARS ? `${text.slice(0, MAX_CELL_CHARS - 1)}…` : text;
}

/** Longest parameter list `mcpkit list` shows, in characters; a longer one ends with "…". */
const MAX_PARAMETER_LIST_CHARS = 48;

/** The parameter list of `mcpkit list`: names, optional ones with `?` (`a b ms?`), required ones first. */
export function parameterList(inputSchema: unknown): string {
  const params = parametersOf(inputSchema);
  const text = [...params.filter((p) => p.required), ...params.filter((p) => !p.required)].map((p) => `${p.name}${p.required ? '' : '?'}`).join(' ');
  return text.length > MAX_PARAMETER_LIST_CHARS ? `${text.slice(0, MAX_PARAMETER_LIST_CHARS - 1)}…` : text;
}

/** The text of `mcpkit call TARGET TOOL --help`. */
export function toolHelp(tool: Tool, target: Target): string {
  const lines: string[] = [];
  const title = typeof tool.title === 'string' && tool.title !== tool.name ? ` - ${clean(tool.title, true)}` : '';
  lines.push(`Tool ${clean(tool.name, true)}${title}`);
  if (typeof tool.description === 'string' && tool.description !== '') lines.push('', clean(tool.description));
  const execution = (tool as { execution?: { taskSupport?: unknown } }).execution;
  if (execution?.taskSupport === 'required') lines.push('', 'Runs only as a task (execution.taskSupport "required"): mcpkit call runs it as one.');
  else if (execution?.taskSupport === 'optional') lines.push('', 'May run as a task: add --task to see its status while it runs.');
  const params = parametersOf(tool.inputSchema);
  lines.push('');
  if (params.length === 0) lines.push('Parameters: none');
  else {
    lines.push('Parameters:');
    const rows = params.map((p) => [p.name, p.type, p.required ? 'yes' : 'no', p.default, p.description]);
    lines.push(table(['NAME', 'TYPE', 'REQUIRED', 'DEFAULT', 'DESCRIPTION'], rows, terminalWidth()).trimEnd());
  }
  const example = params.filter((p) => p.required).map((p) => `${p.name}=${exampleValue(p.type)}`);
  const call = [tool.name, ...example].join(' ');
  const where = target.kind === 'stdio' ? `${call} -- ${target.label} ...` : `${target.label} ${call}`;
  lines.push('', `Call it: mcpkit call ${clean(where, true)}`);
  lines.push('Values are converted by type: numbers, true/false, arrays and objects as JSON (e.g. tags=\'["a","b"]\'); --args takes the whole object as JSON.');
  return `${lines.join('\n')}\n`;
}

function exampleValue(type: string): string {
  if (type.startsWith('integer') || type.startsWith('number')) return '1';
  if (type.startsWith('boolean')) return 'true';
  if (type.startsWith('array')) return "'[...]'";
  if (type.startsWith('object')) return "'{...}'";
  return 'VALUE';
}
