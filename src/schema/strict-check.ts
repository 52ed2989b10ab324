/**
 * A strict structural check of a JSON Schema, run when a schema is registered.
 *
 * Design note: validation itself stays lazy (ajv compiles on the first call, so a server
 * with many tools starts without loading or running the compiler), but the mistakes that a
 * lazy compile would only reveal on the first call — or never, since ajv runs with
 * `strict: false` — are caught here at once, with the JSON Pointer of the problem:
 *
 * - an unknown keyword (`minLenght`, `requird`), with the nearest known keyword as a hint;
 *   keywords starting with `x-` and the annotations listed in {@link EXTRA_ANNOTATIONS}
 *   are allowed;
 * - a keyword whose value has the wrong type (`type: 'strin'`, `required: 'name'`,
 *   `minLength: -1`, `properties: []`, an invalid regular expression in `pattern`);
 * - a `$ref` that does not resolve inside the schema (remote references are never fetched).
 *
 * The keyword sets are those of JSON Schema 2020-12 (core, applicator, unevaluated,
 * validation, format-annotation, content, meta-data vocabularies) and draft-07. The walk is
 * bounded in depth and never follows a cycle. Runtime-neutral, no dependencies.
 */

import { isObject } from '../jsonrpc/values.js';
import type { JsonSchemaDialect } from './dialect.js';
import { pointerFromSegments } from './issues.js';
import { SchemaError } from './types.js';

/** Options of {@link checkJsonSchema}. */
export interface StrictCheckOptions {
  /**
   * Refuse keywords the dialect does not define (default true). Schemas produced by a schema
   * library are checked with `false`: libraries attach their own metadata keys.
   */
  unknownKeywords?: boolean;
  /** Deepest nesting of subschemas walked before the schema is refused. Default 64. */
  maxDepth?: number;
}

/** Annotations outside the JSON Schema vocabularies that MCP peers use (the legacy titled enum of elicitation forms). */
export const EXTRA_ANNOTATIONS: readonly string[] = ['enumNames'];

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);

/** How a keyword's value is checked. */
type Kind =
  | 'schema'
  | 'schemaMap'
  | 'schemaArray'
  | 'string'
  | 'boolean'
  | 'number'
  | 'positive'
  | 'count'
  | 'type'
  | 'stringSet'
  | 'array'
  | 'any'
  | 'regex'
  | 'dependentRequired'
  | 'dependencies'
  | 'items07'
  | 'vocabulary';

const SHARED: Record<string, Kind> = {
  $schema: 'string',
  $id: 'string',
  $ref: 'string',
  $comment: 'string',
  allOf: 'schemaArray',
  anyOf: 'schemaArray',
  oneOf: 'schemaArray',
  not: 'schema',
  if: 'schema',
  then: 'schema',
  else: 'schema',
  contains: 'schema',
  properties: 'schemaMap',
  patternProperties: 'schemaMap',
  additionalProperties: 'schema',
  propertyNames: 'schema',
  type: 'type',
  const: 'any',
  enum: 'array',
  multipleOf: 'positive',
  maximum: 'number',
  minimum: 'number',
  exclusiveMaximum: 'number',
  exclusiveMinimum: 'number',
  maxLength: 'count',
  minLength: 'count',
  pattern: 'regex',
  maxItems: 'count',
  minItems: 'count',
  uniqueItems: 'boolean',
  maxProperties: 'count',
  minProperties: 'count',
  required: 'stringSet',
  format: 'string',
  contentEncoding: 'string',
  contentMediaType: 'string',
  title: 'string',
  description: 'string',
  default: 'any',
  readOnly: 'boolean',
  writeOnly: 'boolean',
  examples: 'array',
  // `definitions` is draft-07's name for `$defs`; generators still emit it under 2020-12.
  definitions: 'schemaMap',
};

const KEYWORDS: Readonly<Record<JsonSchemaDialect, Readonly<Record<string, Kind>>>> = {
  'draft-2020-12': {
    ...SHARED,
    $anchor: 'string',
    $dynamicRef: 'string',
    $dynamicAnchor: 'string',
    $vocabulary: 'vocabulary',
    $defs: 'schemaMap',
    prefixItems: 'schemaArray',
    items: 'schema',
    dependentSchemas: 'schemaMap',
    unevaluatedItems: 'schema',
    unevaluatedProperties: 'schema',
    maxContains: 'count',
    minContains: 'count',
    dependentRequired: 'dependentRequired',
    contentSchema: 'schema',
    deprecated: 'boolean',
  },
  'draft-07': {
    ...SHARED,
    items: 'items07',
    additionalItems: 'schema',
    dependencies: 'dependencies',
  },
};

/** Keywords that name a place in the schema that a `$ref` may point to. */
const LOCATIONS_WITH_IDS = new Set(['$id', '$anchor']);

/**
 * Checks `schema` (a JSON Schema object or boolean) against the rules of `dialect`.
 *
 * Throws {@link SchemaError} `invalid_schema` naming the JSON Pointer of the first problem
 * found and what to write instead, or `unresolved_ref` for a `$ref` that points outside the
 * schema. Never modifies the schema.
 */
export function checkJsonSchema(schema: unknown, dialect: JsonSchemaDialect, options: StrictCheckOptions = {}): void {
  const walk = new Walk(dialect, options.unknownKeywords ?? true, options.maxDepth ?? 64);
  walk.schema(schema, []);
  walk.checkRefs(schema);
}

class Walk {
  readonly #keywords: Readonly<Record<string, Kind>>;
  readonly #strict: boolean;
  readonly #maxDepth: number;
  readonly #seen = new Set<object>();
  readonly refs: Array<{ ref: string; at: string[] }> = [];
  readonly ids = new Set<string>();
  /** True when a subschema declares its own `$id` (a new base URI for the pointers below it). */
  nestedBase = false;
  readonly #dialect: JsonSchemaDialect;

  constructor(dialect: JsonSchemaDialect, strict: boolean, maxDepth: number) {
    this.#dialect = dialect;
    this.#keywords = KEYWORDS[dialect];
    this.#strict = strict;
    this.#maxDepth = maxDepth;
  }

  schema(value: unknown, at: string[]): void {
    if (typeof value === 'boolean') return;
    if (!isObject(value)) {
      this.#fail(at, `must be a schema (an object or true/false), not ${describe(value)}`);
    }
    if (this.#seen.has(value)) this.#fail(at, 'is a schema that contains itself; a JSON Schema is a tree (use $defs and $ref for recursion)');
    if (at.length > this.#maxDepth) this.#fail(at, `nests deeper than ${this.#maxDepth} levels`);
    this.#seen.add(value);
    for (const [keyword, keywordValue] of Object.entries(value)) {
      const kind = this.#keywords[keyword];
      const here = [...at, keyword];
      if (kind === undefined) {
        if (!this.#strict || keyword.startsWith('x-') || EXTRA_ANNOTATIONS.includes(keyword)) continue;
        const hint = nearest(keyword, Object.keys(this.#keywords));
        this.#fail(here, `is not a ${this.#dialect} keyword${hint === undefined ? '' : ` (did you mean "${hint}"?)`}; prefix vendor annotations with "x-"`);
      }
      this.#value(kind, keywordValue, here);
      if (LOCATIONS_WITH_IDS.has(keyword) && typeof keywordValue === 'string') {
        this.ids.add(keyword === '$anchor' ? `#${keywordValue}` : keywordValue);
        if (keyword === '$id' && at.length > 0) this.nestedBase = true;
      }
      if (keyword === '$ref' && typeof keywordValue === 'string') this.refs.push({ ref: keywordValue, at: here });
    }
    this.#seen.delete(value);
  }

  #value(kind: Kind, value: unknown, at: string[]): void {
    switch (kind) {
      case 'schema':
        return this.schema(value, at);
      case 'schemaMap':
        if (!isObject(value)) this.#fail(at, `must be an object of subschemas, not ${describe(value)}`);
        for (const [name, sub] of Object.entries(value)) this.schema(sub, [...at, name]);
        return;
      case 'schemaArray':
        if (!Array.isArray(value) || value.length === 0) this.#fail(at, `must be a non-empty array of subschemas, not ${describe(value)}`);
        for (const [i, sub] of value.entries()) this.schema(sub, [...at, String(i)]);
        return;
      case 'items07':
        if (Array.isArray(value)) for (const [i, sub] of value.entries()) this.schema(sub, [...at, String(i)]);
        else this.schema(value, at);
        return;
      case 'string':
        if (typeof value !== 'string') this.#fail(at, `must be a string, not ${describe(value)}`);
        return;
      case 'boolean':
        if (typeof value !== 'boolean') this.#fail(at, `must be true or false, not ${describe(value)}`);
        return;
      case 'number':
        if (typeof value !== 'number' || !Number.isFinite(value)) this.#fail(at, `must be a number, not ${describe(value)}`);
        return;
      case 'positive':
        if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value)) this.#fail(at, `must be a number greater than 0, not ${describe(value)}`);
        return;
      case 'count':
        if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) this.#fail(at, `must be a whole number of at least 0, not ${describe(value)}`);
        return;
      case 'type':
        return this.#type(value, at);
      case 'stringSet':
        this.#stringSet(value, at);
        return;
      case 'array':
        if (!Array.isArray(value)) this.#fail(at, `must be an array, not ${describe(value)}`);
        return;
      case 'regex':
        if (typeof value !== 'string') this.#fail(at, `must be a regular expression string, not ${describe(value)}`);
        try {
          new RegExp(value, 'u');
        } catch (error) {
          this.#fail(at, `is not a valid regular expression (${error instanceof Error ? error.message : String(error)})`);
        }
        return;
      case 'dependentRequired':
        if (!isObject(value)) this.#fail(at, `must be an object of property-name arrays, not ${describe(value)}`);
        for (const [name, names] of Object.entries(value)) this.#stringSet(names, [...at, name]);
        return;
      case 'dependencies':
        if (!isObject(value)) this.#fail(at, `must be an object, not ${describe(value)}`);
        for (const [name, dep] of Object.entries(value)) {
          if (Array.isArray(dep)) this.#stringSet(dep, [...at, name]);
          else this.schema(dep, [...at, name]);
        }
        return;
      case 'vocabulary':
        if (!isObject(value) || !Object.values(value).every((v) => typeof v === 'boolean'))
          this.#fail(at, 'must be an object of vocabulary URIs to true/false');
        return;
      case 'any':
        return;
    }
  }

  #type(value: unknown, at: string[]): void {
    const names = Array.isArray(value) ? value : [value];
    if (Array.isArray(value) && value.length === 0) this.#fail(at, 'must name at least one type');
    const seen = new Set<unknown>();
    for (const name of names) {
      if (typeof name !== 'string' || !TYPES.has(name)) {
        const hint = typeof name === 'string' ? nearest(name, [...TYPES]) : undefined;
        this.#fail(
          at,
          `${describe(name)} is not a JSON Schema type${hint === undefined ? '' : ` (did you mean "${hint}"?)`}; use one of ${[...TYPES].join(', ')}`,
        );
      }
      if (seen.has(name)) this.#fail(at, `names the type "${name}" twice`);
      seen.add(name);
    }
  }

  #stringSet(value: unknown, at: string[]): void {
    if (!Array.isArray(value) || !value.every((v) => typeof v === 'string'))
      this.#fail(at, `must be an array of property names (strings), not ${describe(value)}`);
    if (new Set(value).size !== value.length) this.#fail(at, 'must not list a name twice');
  }

  /** Every `$ref` must resolve inside the schema: a JSON Pointer fragment, an anchor, or an `$id` of one of its parts. */
  checkRefs(root: unknown): void {
    for (const { ref, at } of this.refs) {
      const hash = ref.indexOf('#');
      if (this.ids.has(ref) || (hash > 0 && this.ids.has(ref.slice(0, hash)))) continue;
      if (ref === '#' || ref.startsWith('#/')) {
        // below a nested $id a pointer is relative to that resource; the validator resolves those
        if (this.nestedBase || resolvePointer(root, ref.slice(1)) !== undefined) continue;
        throw new SchemaError('unresolved_ref', `Invalid JSON Schema: "${pointerFromSegments(at)}": "${ref}" points to nothing in this schema`);
      }
      throw new SchemaError(
        'unresolved_ref',
        `Invalid JSON Schema: "${pointerFromSegments(at)}": "${ref}" is not inside this schema (remote references are never fetched); copy the referenced schema under "$defs" and point to "#/$defs/<name>"`,
      );
    }
  }

  #fail(at: string[], problem: string): never {
    const where = at.length === 0 ? 'the schema' : `"${pointerFromSegments(at)}"`;
    throw new SchemaError('invalid_schema', `Invalid JSON Schema: ${where} ${problem}`);
  }
}

/** A short description of a value for messages (never the whole value). */
function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'object') return 'an object';
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : `a ${typeof value}`;
}

/** Resolves a JSON Pointer (RFC 6901) inside `root`; `undefined` when it points to nothing. */
function resolvePointer(root: unknown, pointer: string): unknown {
  if (pointer === '') return root;
  let current: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    let token: string;
    try {
      token = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    } catch {
      return undefined;
    }
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, token)) return undefined;
    current = (current as Record<string, unknown>)[token];
  }
  return current;
}

/** The candidate closest to `word` by edit distance, when close enough to be a likely typo. */
function nearest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(word.length / 3)) + 1;
  for (const candidate of candidates) {
    const d = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/** Optimal string alignment distance (Levenshtein with adjacent transpositions). */
function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 3) return Math.abs(a.length - b.length);
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) rows.push([i]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}
