/**
 * A peer's JSON Schema made safe to hand to the type generator of `mcpkit types`. The schema
 * comes from the server and is untrusted: it may be huge, deep, self-referencing, name
 * things with strings that are not identifiers, hide `*\/` in a description to close the
 * generated file's comment, or carry the generator's own keywords (`tsType` writes raw
 * TypeScript into the file). So the schema is rebuilt from an allow-list of the keywords
 * that shape a type; everything else is dropped. Bounds (options with defaults) refuse a
 * schema whose type would cost too much to build: the tool's type then falls back to an
 * open object and the caller is told why.
 */

/** The bounds of {@link sanitizeSchema}. */
export interface SchemaBounds {
  /** Most characters of the schema's JSON text. Default 262,144 (256 Ki). */
  maxSchemaChars: number;
  /** Deepest nesting of subschemas. Default 32. */
  maxDepth: number;
  /** Most subschemas in one schema. Default 5,000. */
  maxSubschemas: number;
  /** Characters kept of a description (the rest is cut, marked with …). Default 2,000. */
  maxDescriptionChars: number;
  /** Most `enum` values turned into a union; a longer enum gives the base type. Default 500. */
  maxEnumValues: number;
}

/** The default bounds. */
export const DEFAULT_SCHEMA_BOUNDS: Readonly<SchemaBounds> = Object.freeze({
  maxSchemaChars: 256 * 1024,
  maxDepth: 32,
  maxSubschemas: 5_000,
  maxDescriptionChars: 2_000,
  maxEnumValues: 500,
});

/** A schema refused as a whole (the reason is for the person running the command). */
export class SchemaRefusedError extends Error {
  override name = 'SchemaRefusedError';
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = { [key: string]: Json };

const JSON_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);
const DEFINITION_KEYWORDS = ['$defs', 'definitions'] as const;

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Text that is safe inside a `/** ... *\/` comment: `*\/` cannot close it, control
 * characters (other than newlines) and the line and paragraph separators are removed, and
 * it is cut to `max` characters.
 */
export function commentText(text: string, max: number): string {
  let out = text.replace(/\r\n?/g, '\n').replace(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029]/g, ' ');
  if (out.length > max) out = `${out.slice(0, max)}…`;
  // `*/` closes a block comment; `*\/` reads the same and does not
  return out.replace(/\*\//g, '*\\/');
}

/**
 * Rebuilds `input` from the allow-listed keywords. Returns the safe schema and notes of what
 * was dropped that changes the type (unresolvable or external `$ref`s, broken reference
 * loops). Throws {@link SchemaRefusedError} when a bound is crossed.
 */
export function sanitizeSchema(input: unknown, bounds: SchemaBounds = DEFAULT_SCHEMA_BOUNDS): { schema: Schema; notes: string[] } {
  // measured without recursion first: JSON.stringify of a very deep value overflows the stack
  // (each level of a schema is at most a few JSON containers deep: properties → name → schema)
  if (containerDepth(input, bounds.maxDepth * 4 + 8) > bounds.maxDepth * 4 + 8)
    throw new SchemaRefusedError(`the schema nests deeper than ${bounds.maxDepth} levels`);
  let text: string;
  try {
    text = JSON.stringify(input) ?? '';
  } catch {
    throw new SchemaRefusedError('the schema is not JSON');
  }
  if (text.length > bounds.maxSchemaChars)
    throw new SchemaRefusedError(`the schema is ${text.length} characters of JSON; the most is ${bounds.maxSchemaChars}`);
  if (!isPlainObject(input)) throw new SchemaRefusedError('the schema is not an object');
  const notes: string[] = [];
  let subschemas = 0;
  // definition keys become safe names (they are written into the generated file's comments);
  // the map is filled per definitions object, keyed by its JSON pointer
  const renamed = new Map<string, string>();
  let nextName = 0;

  const walk = (node: unknown, depth: number, pointer: string): Json => {
    if (typeof node === 'boolean') return node;
    if (!isPlainObject(node)) return {};
    if (depth > bounds.maxDepth) throw new SchemaRefusedError(`the schema nests deeper than ${bounds.maxDepth} levels`);
    if (++subschemas > bounds.maxSubschemas) throw new SchemaRefusedError(`the schema has more than ${bounds.maxSubschemas} subschemas`);
    const out: Schema = {};
    const sub = (value: unknown, key: string) => walk(value, depth + 1, `${pointer}/${escapePointer(key)}`);
    const map = (value: unknown, key: string): Schema | undefined => {
      if (!isPlainObject(value)) return undefined;
      return Object.fromEntries(Object.keys(value).map((k) => [k, walk(value[k], depth + 1, `${pointer}/${key}/${escapePointer(k)}`)]));
    };
    const list = (value: unknown, key: string): Json[] | undefined => (Array.isArray(value) ? value.map((v, i) => sub(v, `${key}/${i}`)) : undefined);

    if (typeof node.type === 'string' && JSON_TYPES.has(node.type)) out.type = node.type;
    else if (Array.isArray(node.type)) {
      const types = node.type.filter((t): t is string => typeof t === 'string' && JSON_TYPES.has(t));
      if (types.length > 0) out.type = [...new Set(types)];
    }
    if (typeof node.description === 'string') out.description = commentText(node.description, bounds.maxDescriptionChars);
    const properties = map(node.properties, 'properties');
    if (properties) out.properties = properties;
    if (Array.isArray(node.required)) out.required = [...new Set(node.required.filter((r): r is string => typeof r === 'string'))];
    if (typeof node.additionalProperties === 'boolean' || isPlainObject(node.additionalProperties))
      out.additionalProperties = sub(node.additionalProperties, 'additionalProperties');
    // patternProperties: the patterns would land in comments; their values widen the open part
    if (isPlainObject(node.patternProperties) && node.additionalProperties !== false) {
      const values = Object.keys(node.patternProperties).map((k) =>
        walk((node.patternProperties as Record<string, unknown>)[k], depth + 1, `${pointer}/patternProperties`),
      );
      if (values.length > 0 && out.additionalProperties === undefined) out.additionalProperties = values.length === 1 ? values[0]! : { anyOf: values };
    }
    if (Array.isArray(node.prefixItems)) {
      out.items = list(node.prefixItems, 'prefixItems')!;
      out.additionalItems = node.items === undefined ? true : sub(node.items, 'items');
    } else if (Array.isArray(node.items)) {
      out.items = list(node.items, 'items')!;
      if (node.additionalItems !== undefined) out.additionalItems = sub(node.additionalItems, 'additionalItems');
    } else if (node.items !== undefined) out.items = sub(node.items, 'items');
    for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
      const l = list(node[key], key);
      if (l && l.length > 0) out[key] = l;
    }
    const literals = node.const !== undefined ? [node.const] : Array.isArray(node.enum) ? node.enum : undefined;
    if (literals !== undefined) {
      const primitive = literals.every((v) => v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean');
      if (primitive && literals.length > 0 && literals.length <= bounds.maxEnumValues) out.enum = [...new Set(literals as Json[])];
    }
    for (const key of DEFINITION_KEYWORDS) {
      const defs = node[key];
      if (!isPlainObject(defs)) continue;
      const safe: Schema = {};
      for (const name of Object.keys(defs)) {
        const fresh = `Def${nextName++}`;
        renamed.set(`${pointer}/${key}/${escapePointer(name)}`, `${pointer}/${key}/${fresh}`);
        safe[fresh] = walk(defs[name], depth + 1, `${pointer}/${key}/${escapePointer(name)}`);
      }
      out[key] = safe;
    }
    if (typeof node.$ref === 'string') out.$ref = node.$ref;
    return out;
  };

  const schema = walk(input, 0, '#') as Schema;
  resolveRefs(schema, renamed, notes);
  return { schema, notes };
}

/** How deep `value`'s arrays and objects nest, counted up to `limit + 1` (iteratively, never recursing). */
function containerDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (depth > deepest) deepest = depth;
    if (deepest > limit) return deepest;
    for (const child of Array.isArray(node) ? node : Object.values(node)) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** `key` as a JSON Pointer token. */
function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * Rewrites every `$ref` to the renamed definitions and drops those that would make the
 * generator fetch something (not a `#...` pointer), point nowhere, or form a loop of bare
 * references (`a` → `b` → `a` with nothing else: no type at all).
 */
function resolveRefs(root: Schema, renamed: Map<string, string>, notes: string[]): void {
  const rename = (ref: string): string => {
    // the longest renamed prefix wins (a definition inside a definition)
    const tokens = ref.split('/');
    for (let n = tokens.length; n > 1; n--) {
      const to = renamed.get(tokens.slice(0, n).join('/'));
      if (to !== undefined) return [to, ...tokens.slice(n)].join('/');
    }
    return ref;
  };
  const lookup = (ref: string): Json | undefined => {
    if (ref === '#') return root;
    let node: Json | undefined = root;
    for (const raw of ref.slice(2).split('/')) {
      const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      if (Array.isArray(node)) node = node[Number(token)];
      else if (isPlainObject(node) && Object.hasOwn(node, token)) node = node[token];
      else return undefined;
    }
    return node;
  };
  const nodes: Schema[] = [];
  const collect = (node: Json): void => {
    if (Array.isArray(node)) node.forEach(collect);
    else if (isPlainObject(node)) {
      if (typeof node.$ref === 'string') nodes.push(node);
      for (const key of Object.keys(node)) collect(node[key]!);
    }
  };
  collect(root);
  for (const node of nodes) {
    const ref = node.$ref as string;
    if (ref !== '#' && !ref.startsWith('#/')) {
      notes.push(`a $ref to ${JSON.stringify(ref.slice(0, 200))} was not followed (only references inside the schema are)`);
      delete node.$ref;
      continue;
    }
    let decoded: string;
    try {
      decoded = decodeURIComponent(ref);
    } catch {
      decoded = ref;
    }
    const target = rename(decoded);
    if (lookup(target) === undefined) {
      notes.push(`the $ref ${JSON.stringify(ref.slice(0, 200))} points at nothing`);
      delete node.$ref;
      continue;
    }
    node.$ref = target;
  }
  // bare reference loops: follow chains of schemas that are nothing but a $ref
  for (const node of nodes) {
    const seen = new Set<Json>([node]);
    let at: Json | undefined = node;
    while (isPlainObject(at) && typeof at.$ref === 'string' && Object.keys(at).every((k) => k === '$ref' || k === 'description')) {
      at = lookup(at.$ref);
      if (at === undefined) break;
      if (seen.has(at)) {
        notes.push(`the $ref ${JSON.stringify(String(node.$ref))} is a loop of bare references`);
        delete node.$ref;
        break;
      }
      seen.add(at);
    }
  }
}
