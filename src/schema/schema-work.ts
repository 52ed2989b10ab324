/**
 * A bound on the work a JSON Schema can cause per value, checked before a schema a peer sent
 * is compiled: `$ref` chains under `anyOf`/`allOf`/… can make one value be checked against
 * exponentially many subschemas (`a0: anyOf [a1, a1]`, `a1: anyOf [a2, a2]`, …), and a
 * recursive `$ref` reached twice for the same part of the value doubles the work at every
 * level of nesting. Neither shows in the schema's own size or nesting depth.
 *
 * Design note: the check counts, for the worst part of a value, how many subschemas apply to
 * it. At one place of the value the subschemas that apply are a node's "closure": itself and,
 * transitively, its `allOf`/`anyOf`/`oneOf`/`not`/`if`/`then`/`else`/`dependentSchemas`
 * members and `$ref` targets, counted with multiplicity (memoized per node, so the count is
 * cheap even when it is huge). Going one level down into the value (an array element, a
 * property value, a property name), the subschemas that apply there are the children of the
 * closure under the keywords for that place (`items`, `prefixItems[i]`, `contains`,
 * `properties[k]`, `patternProperties`, `additionalProperties`, …); places are told apart by
 * index and property name, so a binary tree's `left` and `right` are not added up, while
 * `anyOf: [{properties: {x: R}}, {properties: {x: R}}]` counts R twice for `x`. Levels are
 * followed until nothing applies, the counts stop changing, or the value's nesting limit
 * (64) is reached. Over-approximations (every `patternProperties` member is taken to match)
 * only ever count more. The check also refuses a `$ref` it cannot resolve inside the schema,
 * a `$ref` cycle that never goes into the value (it would recurse forever), and a schema of
 * more than {@link MAX_SUBSCHEMAS} objects (compile time).
 *
 * Runtime-neutral: no imports beyond the schema layer's types.
 */
import { SchemaError } from './types.js';

/** Default most subschemas one place of a value may be checked against. */
export const DEFAULT_MAX_SCHEMA_WORK = 10_000;
/** How many levels of a value the check follows: the JSON-RPC decoder's nesting limit. */
const MAX_LEVELS = 64;
/**
 * Most objects (subschemas and keyword maps such as `properties`) in a peer's schema. Ajv's
 * compile time grows with them, faster than linearly for `patternProperties`,
 * `dependentSchemas` and `allOf` of `properties` (2 000 patterns: 5 s; 4 000: a stack
 * overflow): 2 000 keeps one compile near a second at worst, far above real output schemas.
 */
export const MAX_SUBSCHEMAS = 2_000;
/** Most steps the check itself may take before it gives up (and refuses the schema). */
const MAX_STEPS = 2_000_000;

type Node = Record<string, unknown>;
type Counts = Map<Node, number>;

const SAME_PLACE_ONE = ['not', 'if', 'then', 'else'] as const;
const SAME_PLACE_LIST = ['allOf', 'anyOf', 'oneOf'] as const;
const SAME_PLACE_MAP = ['dependentSchemas', 'dependencies'] as const;

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function tooCostly(what: string, limit: number): SchemaError {
  return new SchemaError(
    'invalid_schema',
    `The schema is refused: ${what} (limit ${limit}). Its $ref/anyOf/allOf combinations would make checking a value take exponential time; a schema from a peer must not.`,
  );
}

/**
 * Throws {@link SchemaError} `invalid_schema` when some place of a value would be checked
 * against more than `limit` subschemas of `schema`, when a `$ref` cannot be resolved inside
 * the schema, or when a `$ref` cycle does not go into the value. Pure.
 */
export function checkSchemaWork(schema: unknown, limit: number = DEFAULT_MAX_SCHEMA_WORK): void {
  if (!isNode(schema)) return;
  new WorkCheck(schema, limit).run();
}

class WorkCheck {
  readonly #root: Node;
  readonly #limit: number;
  readonly #closures = new Map<Node, Counts>();
  readonly #open = new Set<Node>();
  /** Subschemas by `$id` (as written) and by `$anchor`/`#name`. */
  readonly #ids = new Map<string, Node>();
  readonly #anchors = new Map<string, Node>();
  #steps = 0;
  #objects = 0;

  constructor(root: Node, limit: number) {
    this.#root = root;
    this.#limit = limit;
    this.#index(root, 0);
  }

  run(): void {
    let level = this.#closure(this.#root);
    for (let depth = 0; depth < MAX_LEVELS; depth++) {
      const next = this.#descend(level);
      if (next.size === 0 || sameCounts(next, level)) return;
      level = next;
    }
  }

  #step(n = 1): void {
    this.#steps += n;
    if (this.#steps > MAX_STEPS) throw tooCostly('it is too large to check for its cost', MAX_STEPS);
  }

  #index(node: unknown, depth: number): void {
    if (depth > 512) throw new SchemaError('invalid_schema', 'The schema nests more than 512 levels');
    this.#step();
    if (Array.isArray(node)) {
      for (const item of node) this.#index(item, depth + 1);
      return;
    }
    if (!isNode(node)) return;
    if (++this.#objects > MAX_SUBSCHEMAS) {
      throw new SchemaError(
        'invalid_schema',
        `The schema is refused: it holds more than ${MAX_SUBSCHEMAS} subschemas, and compiling a schema from a peer that large would block this process for seconds. Ask the server for a smaller schema.`,
      );
    }
    const id = node['$id'] ?? node['id'];
    if (typeof id === 'string') {
      if (id.startsWith('#')) this.#anchors.set(id.slice(1), node);
      else this.#ids.set(id, node);
    }
    for (const key of ['$anchor', '$dynamicAnchor']) {
      const anchor = node[key];
      if (typeof anchor === 'string') this.#anchors.set(anchor, node);
    }
    for (const key of Object.keys(node)) if (key !== 'enum' && key !== 'const' && key !== 'default' && key !== 'examples') this.#index(node[key], depth + 1);
  }

  /** The node `$ref` (or `$dynamicRef`) `ref` names; throws when it is not in the schema. */
  #resolve(ref: string): Node {
    const hash = ref.indexOf('#');
    const base = hash === -1 ? ref : ref.slice(0, hash);
    const fragment = hash === -1 ? '' : ref.slice(hash + 1);
    let start: Node | undefined = this.#root;
    if (base !== '') {
      start = this.#ids.get(base);
      if (start === undefined) for (const [id, node] of this.#ids) if (id.endsWith('/' + base) || id === base) start = node;
    }
    let target: unknown;
    if (start === undefined) target = undefined;
    else if (fragment === '') target = start;
    else if (fragment.startsWith('/')) target = pointer(start, fragment);
    else target = this.#anchors.get(decodeURIComponent(fragment));
    if (target === true || target === false) return {};
    if (!isNode(target))
      throw new SchemaError('unresolved_ref', `JSON Schema $ref "${ref}" cannot be resolved inside the schema (remote schemas are never fetched)`);
    return target;
  }

  /** Everything that applies at the same place of the value as `node`, with multiplicity. */
  #closure(node: Node): Counts {
    const known = this.#closures.get(node);
    if (known !== undefined) return known;
    if (this.#open.has(node)) throw tooCostly('a $ref cycle never goes into the value, so checking would never end', 0);
    this.#open.add(node);
    const counts: Counts = new Map([[node, 1]]);
    const add = (child: unknown): void => {
      if (!isNode(child)) return;
      this.#addInto(counts, this.#closure(child), 1);
    };
    for (const key of SAME_PLACE_ONE) add(node[key]);
    for (const key of SAME_PLACE_LIST) {
      const list = node[key];
      if (Array.isArray(list)) for (const item of list) add(item);
    }
    for (const key of SAME_PLACE_MAP) {
      const map = node[key];
      if (isNode(map)) for (const value of Object.values(map)) add(value);
    }
    for (const key of ['$ref', '$dynamicRef', '$recursiveRef']) {
      const ref = node[key];
      if (typeof ref === 'string') add(key === '$recursiveRef' ? this.#root : this.#resolve(ref));
    }
    this.#open.delete(node);
    this.#closures.set(node, counts);
    return counts;
  }

  /** Adds `times` × `from` into `into`; throws once a count passes the limit. */
  #addInto(into: Counts, from: Counts, times: number): void {
    this.#step(from.size);
    for (const [node, count] of from) {
      const sum = (into.get(node) ?? 0) + count * times;
      if (sum > this.#limit) throw tooCostly(`one place of a value would be checked against more than ${this.#limit} subschemas`, this.#limit);
      into.set(node, sum);
    }
  }

  /**
   * The subschemas that apply one level down, for the worst place there: per node the most
   * any one place (an index, a property name, any other name) gets.
   */
  #descend(level: Counts): Counts {
    const anyIndex: Counts = new Map();
    const byIndex = new Map<number, Counts>();
    const anyName: Counts = new Map();
    const byName = new Map<string, Counts>();
    const names: Counts = new Map();
    const into = (target: Counts, child: unknown, times: number): void => {
      if (isNode(child)) this.#addInto(target, this.#closure(child), times);
    };
    for (const [node, times] of level) {
      const prefix = Array.isArray(node['prefixItems']) ? (node['prefixItems'] as unknown[]) : Array.isArray(node['items']) ? (node['items'] as unknown[]) : [];
      prefix.forEach((child, i) => {
        let slot = byIndex.get(i);
        if (slot === undefined) byIndex.set(i, (slot = new Map()));
        into(slot, child, times);
      });
      if (!Array.isArray(node['items'])) into(anyIndex, node['items'], times);
      for (const key of ['additionalItems', 'contains', 'unevaluatedItems']) into(anyIndex, node[key], times);
      const properties = node['properties'];
      if (isNode(properties)) {
        for (const [name, child] of Object.entries(properties)) {
          let slot = byName.get(name);
          if (slot === undefined) byName.set(name, (slot = new Map()));
          into(slot, child, times);
        }
      }
      const patterns = node['patternProperties'];
      if (isNode(patterns)) for (const child of Object.values(patterns)) into(anyName, child, times);
      for (const key of ['additionalProperties', 'unevaluatedProperties']) into(anyName, node[key], times);
      into(names, node['propertyNames'], times);
    }
    const next: Counts = new Map();
    const worst = (slots: Iterable<Counts>, shared: Counts): void => {
      const best: Counts = new Map();
      for (const slot of slots) {
        this.#step(slot.size);
        for (const [node, count] of slot) if (count > (best.get(node) ?? 0)) best.set(node, count);
      }
      for (const [node, count] of shared) best.set(node, (best.get(node) ?? 0) + count);
      for (const [node, count] of best) {
        if (count > this.#limit) throw tooCostly(`one place of a value would be checked against more than ${this.#limit} subschemas`, this.#limit);
        if (count > (next.get(node) ?? 0)) next.set(node, count);
      }
    };
    worst(byIndex.values(), anyIndex);
    worst(byName.values(), anyName);
    worst([], names);
    let total = 0;
    for (const count of next.values()) total += count;
    if (total > this.#limit) throw tooCostly(`one place of a value would be checked against more than ${this.#limit} subschemas`, this.#limit);
    return next;
  }
}

function sameCounts(a: Counts, b: Counts): boolean {
  if (a.size !== b.size) return false;
  for (const [node, count] of a) if (b.get(node) !== count) return false;
  return true;
}

/** The value at JSON pointer `path` (RFC 6901, percent-decoded as a URI fragment) under `start`. */
function pointer(start: Node, path: string): unknown {
  let value: unknown = start;
  for (const raw of path.slice(1).split('/')) {
    const token = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, token)) return undefined;
    value = (value as Record<string, unknown>)[token];
  }
  return value;
}
