/**
 * Tool search for large catalogs: a BM25 index (minisearch) over each tool's name (split into
 * words at snake_case, camelCase, kebab-case and dots), title, description, argument names
 * and argument descriptions. A host with hundreds of tools asks it for the few that fit a
 * request instead of sending every definition to a model.
 *
 * Tools are held under a key (their name, or a key the caller chooses, such as a namespaced
 * `server.tool`) and optionally a group (e.g. the server they came from), so a pool can
 * replace one server's tools when its list changes, and a server-side transform can index
 * its own list as it is.
 *
 * Every tool definition is untrusted input: the indexed text per field, the arguments read
 * per tool, the number of tools, the query's length and its number of terms are bounded by
 * options with safe defaults ({@link ToolSearchOptions}).
 */
import MiniSearch from 'minisearch';
import type { Tool } from '../types.js';

/** Bounds of a {@link ToolSearch}; every one has a safe default. */
export interface ToolSearchOptions {
  /** Most tools held; `add` past it throws a RangeError and adds nothing. Default 10,000. */
  maxTools?: number | undefined;
  /** Characters indexed per text field (a longer description is indexed up to this). Default 4,096. */
  maxFieldChars?: number | undefined;
  /** Top-level arguments (`inputSchema.properties`) indexed per tool. Default 64. */
  maxArguments?: number | undefined;
  /** Longest query in characters; a longer one throws a RangeError. Default 1,000. */
  maxQueryChars?: number | undefined;
  /** Distinct query terms used (after dropping stop words); later ones are ignored. Default 24. */
  maxQueryTerms?: number | undefined;
  /** Largest `limit` a search may ask for; more throws a RangeError. Default 100. */
  maxLimit?: number | undefined;
}

/** Options of one {@link ToolSearch.search}. */
export interface ToolSearchQueryOptions {
  /** How many tools to return at most (1 to `maxLimit`). Default 10 (or `maxLimit` when lower). */
  limit?: number | undefined;
  /** Only tools of these groups. */
  groups?: readonly string[] | undefined;
}

/** Options of {@link ToolSearch.add} and {@link ToolSearch.replace}. */
export interface ToolSearchAddOptions {
  /** The group the tools belong to (e.g. their server's name). Default: none. */
  group?: string | undefined;
  /** The key of a tool; default its `name`. Keys are unique across groups. */
  key?: ((tool: Tool) => string) | undefined;
}

/** One result of {@link ToolSearch.search}. */
export interface ToolSearchHit {
  /** The key the tool is held under. */
  key: string;
  /** The definition as it was added. */
  tool: Tool;
  /** Its group, when it was added with one. */
  group?: string;
  /** The BM25 relevance score (higher is better; comparable only within one search). */
  score: number;
}

/** The default bounds. */
export const TOOL_SEARCH_DEFAULTS: Readonly<{ [K in keyof ToolSearchOptions]-?: number }> = Object.freeze({
  maxTools: 10_000,
  maxFieldChars: 4_096,
  maxArguments: 64,
  maxQueryChars: 1_000,
  maxQueryTerms: 24,
  maxLimit: 100,
});

const DEFAULT_LIMIT = 10;

/** Words too common in requests and descriptions to tell tools apart. */
const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an and are as at be by can could do does for from get give has have how i if in into is it its ' +
    'let me my of on or our please should show so some that the their them then there these this to ' +
    'up us use want was we what when where which will with would you your'
  ).split(' '),
);

/**
 * The words of `text`: split at every non-alphanumeric character and at case changes
 * (`createIssue` → create, issue; `HTTPServer` → http, server; `list_files` → list, files),
 * lower-cased.
 */
export function splitWords(text: string): string[] {
  const spaced = text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/([a-zA-Z])([0-9])/g, '$1 $2');
  return spaced
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0);
}

/**
 * The index term of `word`, or null for a stop word: plural and verb endings are folded
 * (files → file, queries → query, searching → search, created → create) so a request's
 * wording meets a definition's.
 */
export function normalizeTerm(word: string): string | null {
  const w = word.toLowerCase();
  if (STOP_WORDS.has(w)) return null;
  if (w.length <= 3) return w;
  if (w.endsWith('ies') && w.length > 4) return `${w.slice(0, -3)}y`;
  if (w.endsWith('sses')) return w.slice(0, -2);
  if (w.endsWith('ing') && w.length > 5) return w.slice(0, -3);
  if (w.endsWith('ed') && w.length > 4 && !w.endsWith('eed'))
    return w.endsWith('ied') ? `${w.slice(0, -3)}y` : w.slice(0, -1).endsWith('e') ? w.slice(0, -1) : w.slice(0, -2);
  if (w.endsWith('es') && /(?:ch|sh|x|z)es$/.test(w)) return w.slice(0, -2);
  if (w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is')) return w.slice(0, -1);
  return w;
}

interface Entry {
  key: string;
  tool: Tool;
  group: string | undefined;
}

interface Doc {
  id: number;
  name: string;
  title: string;
  description: string;
  args: string;
  argDescriptions: string;
}

const FIELDS = ['name', 'title', 'description', 'args', 'argDescriptions'] as const;
const BOOST: Record<(typeof FIELDS)[number], number> = { name: 3, title: 2, description: 1, args: 1.2, argDescriptions: 0.4 };

/**
 * A BM25 index of tool definitions. Synchronous and in memory; safe to use from any runtime
 * (no Node built-ins). Adding a key that is already held replaces that tool.
 */
export class ToolSearch {
  readonly #limits: { [K in keyof ToolSearchOptions]-?: number };
  readonly #index: MiniSearch<Doc>;
  readonly #byKey = new Map<string, number>();
  readonly #entries = new Map<number, Entry>();
  #nextId = 0;

  constructor(options: ToolSearchOptions = {}) {
    const limits = { ...TOOL_SEARCH_DEFAULTS };
    for (const [name, value] of Object.entries(options) as Array<[keyof ToolSearchOptions, number | undefined]>) {
      if (value === undefined) continue;
      if (!(name in TOOL_SEARCH_DEFAULTS)) throw new TypeError(`ToolSearch: unknown option ${JSON.stringify(name)}`);
      if (!Number.isInteger(value) || value < 1) throw new RangeError(`ToolSearch: ${name} must be a positive integer, not ${String(value)}`);
      limits[name] = value;
    }
    this.#limits = limits;
    this.#index = new MiniSearch<Doc>({
      fields: [...FIELDS],
      storeFields: [],
      tokenize: splitWords,
      processTerm: normalizeTerm,
      searchOptions: { boost: BOOST, combineWith: 'OR' },
    });
  }

  /** How many tools are held. */
  get size(): number {
    return this.#entries.size;
  }

  /** The keys held, in the order they were added. */
  keys(): string[] {
    return [...this.#byKey.keys()];
  }

  /**
   * Adds `tools` (a key already held is replaced). Throws a TypeError for a tool without a
   * string name or a key that is not a non-empty string, and a RangeError when the index
   * would hold more than `maxTools`; in both cases nothing is added.
   */
  add(tools: Iterable<Tool>, options: ToolSearchAddOptions = {}): void {
    const batch = this.#read('add', tools, options);
    let added = 0;
    for (const key of batch.keys()) if (!this.#byKey.has(key)) added++;
    if (this.#entries.size + added > this.#limits.maxTools) {
      throw new RangeError(`ToolSearch.add: the index would hold more than ${this.#limits.maxTools} tools (maxTools); raise maxTools or index fewer tools`);
    }
    for (const [key, tool] of batch) this.#put(key, tool, options.group);
  }

  /**
   * Replaces the tools of `options.group` (or, without a group, every tool) with `tools`;
   * the same errors as {@link add}, and on error nothing changes.
   */
  replace(tools: Iterable<Tool>, options: ToolSearchAddOptions = {}): void {
    const batch = this.#read('replace', tools, options);
    const group = options.group;
    const dropped = new Set([...this.#entries.values()].filter((e) => group === undefined || e.group === group).map((e) => e.key));
    let fresh = 0;
    for (const key of batch.keys()) if (!this.#byKey.has(key) || dropped.has(key)) fresh++;
    if (this.#entries.size - dropped.size + fresh > this.#limits.maxTools) {
      throw new RangeError(`ToolSearch.replace: the index would hold more than ${this.#limits.maxTools} tools (maxTools); raise maxTools or index fewer tools`);
    }
    this.remove(dropped);
    for (const [key, tool] of batch) this.#put(key, tool, group);
  }

  /**
   * Reads and checks `tools` before anything changes: at most `maxTools` of them (counted as
   * read, not as distinct keys, so an endless iterable of one tool ends too), each with a
   * string name and a non-empty key. The last of several tools under one key wins.
   */
  #read(method: string, tools: Iterable<Tool>, options: ToolSearchAddOptions): Map<string, Tool> {
    const keyOf = options.key ?? ((tool: Tool) => tool.name);
    const batch = new Map<string, Tool>();
    let read = 0;
    for (const tool of tools) {
      if (++read > this.#limits.maxTools) {
        throw new RangeError(`ToolSearch.${method}: more than ${this.#limits.maxTools} tools given (maxTools); raise maxTools or index fewer tools`);
      }
      if (typeof tool !== 'object' || tool === null || typeof tool.name !== 'string')
        throw new TypeError(`ToolSearch.${method}: every tool needs a string "name"`);
      const key = keyOf(tool);
      if (typeof key !== 'string' || key === '')
        throw new TypeError(`ToolSearch.${method}: the key of tool ${JSON.stringify(tool.name.slice(0, 100))} must be a non-empty string`);
      batch.set(key, tool);
    }
    return batch;
  }

  /** Removes the tools held under `keys` (unknown keys are ignored); returns how many went. */
  remove(keys: Iterable<string>): number {
    let removed = 0;
    for (const key of keys) {
      const id = this.#byKey.get(key);
      if (id === undefined) continue;
      this.#index.discard(id);
      this.#byKey.delete(key);
      this.#entries.delete(id);
      removed++;
    }
    return removed;
  }

  /** Removes every tool of `group`; returns how many went. */
  removeGroup(group: string): number {
    return this.remove([...this.#entries.values()].filter((e) => e.group === group).map((e) => e.key));
  }

  /** Removes every tool. */
  clear(): void {
    this.#index.removeAll();
    this.#byKey.clear();
    this.#entries.clear();
  }

  /**
   * The tools that best match `query`, best first (BM25 over the fields above, with prefix
   * and light fuzzy matching of longer terms). An empty result when no term matches. Throws
   * a RangeError for a query longer than `maxQueryChars` or a `limit` outside 1..`maxLimit`,
   * and a TypeError for a query that is not a string.
   */
  search(query: string, options: ToolSearchQueryOptions = {}): ToolSearchHit[] {
    if (typeof query !== 'string') throw new TypeError('ToolSearch.search: the query must be a string');
    const { maxQueryChars, maxQueryTerms, maxLimit } = this.#limits;
    if (query.length > maxQueryChars)
      throw new RangeError(`ToolSearch.search: the query is ${query.length} characters; the most is ${maxQueryChars} (maxQueryChars)`);
    const limit = options.limit ?? Math.min(DEFAULT_LIMIT, maxLimit);
    if (!Number.isInteger(limit) || limit < 1 || limit > maxLimit)
      throw new RangeError(`ToolSearch.search: limit must be an integer from 1 to ${maxLimit}, not ${String(limit)}`);
    const terms: string[] = [];
    for (const word of splitWords(query)) {
      const term = normalizeTerm(word);
      if (term === null || terms.includes(term)) continue;
      terms.push(term);
      if (terms.length >= maxQueryTerms) break;
    }
    if (terms.length === 0 || this.#entries.size === 0) return [];
    const groups = options.groups === undefined ? undefined : new Set(options.groups);
    const results = this.#index.search(
      { combineWith: 'OR', queries: terms },
      {
        // the terms are already normalized: the index's processTerm would fold them twice
        processTerm: (t) => t,
        prefix: (term) => term.length >= 4,
        fuzzy: (term) => (term.length >= 6 ? 0.2 : false),
        maxFuzzy: 2,
        ...(groups === undefined ? {} : { filter: (r) => groups.has(this.#entries.get(r.id as number)?.group as string) }),
      },
    );
    const hits: ToolSearchHit[] = [];
    for (const r of results) {
      const entry = this.#entries.get(r.id as number);
      if (entry === undefined) continue;
      hits.push(
        entry.group === undefined
          ? { key: entry.key, tool: entry.tool, score: r.score }
          : { key: entry.key, tool: entry.tool, group: entry.group, score: r.score },
      );
      if (hits.length >= limit) break;
    }
    return hits;
  }

  #put(key: string, tool: Tool, group: string | undefined): void {
    const old = this.#byKey.get(key);
    if (old !== undefined) {
      this.#index.discard(old);
      this.#entries.delete(old);
    }
    const id = this.#nextId++;
    this.#byKey.set(key, id);
    this.#entries.set(id, { key, tool, group });
    this.#index.add(this.#document(id, key, tool));
  }

  /** The indexed text of one tool, each field cut to `maxFieldChars`. */
  #document(id: number, key: string, tool: Tool): Doc {
    const cap = this.#limits.maxFieldChars;
    const text = (v: unknown) => (typeof v === 'string' ? v.slice(0, cap) : '');
    const names: string[] = [];
    const descriptions: string[] = [];
    const properties = (tool.inputSchema as { properties?: unknown } | undefined)?.properties;
    if (typeof properties === 'object' && properties !== null && !Array.isArray(properties)) {
      let count = 0;
      for (const name in properties) {
        if (!Object.hasOwn(properties, name)) continue;
        if (count++ >= this.#limits.maxArguments) break;
        names.push(name.slice(0, 200));
        const description = (properties as Record<string, { description?: unknown } | null>)[name]?.description;
        if (typeof description === 'string') descriptions.push(description.slice(0, cap));
      }
    }
    const name = key === tool.name ? tool.name : `${key} ${tool.name}`;
    return {
      id,
      name: text(name),
      title: text(tool.title ?? (tool.annotations as { title?: unknown } | undefined)?.title),
      description: text(tool.description),
      args: names.join(' ').slice(0, cap),
      argDescriptions: descriptions.join('\n').slice(0, cap),
    };
  }
}
