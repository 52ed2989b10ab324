/**
 * Progressive tool discovery on a server (`searchTools(server, options)`): when a caller's
 * catalog is larger than `threshold`, its `tools/list` shows only the pinned tools and two
 * meta-tools instead of every definition —
 * - `search_tools` `{ query, limit? }` → the best-matching tool definitions the caller may
 *   see, `inputSchema` included, ranked by the client's {@link ToolSearch} (BM25, minisearch)
 *   over names, titles, descriptions and argument names;
 * - `call_tool` `{ name, arguments? }` → calls that tool and answers with its result.
 *
 * Visibility is part of the transform (`options.visibility`, the same policy `visibility()`
 * takes, applied to every tool request of the server): a tool the caller may not see is
 * neither found by `search_tools` nor callable through `call_tool` (-32602 `Unknown tool`, as
 * an unknown one), and renames and argument transforms apply to what search returns and to
 * what call_tool forwards. Give the policy here instead of registering `visibility()`
 * separately: a separate one inside this transform would filter `tools/list`, but search,
 * which reads the server's catalog directly, would not know it.
 *
 * A direct `tools/call` of a real tool's name still works after the switch (the catalog is
 * only hidden from the list, not disabled), so a client that kept an old list, or one told
 * a name by `search_tools`, may call it either way. A real tool named `search_tools` or
 * `call_tool` is shadowed for callers whose catalog is switched.
 *
 * The catalog is the server's `tools/list` as its handler answers it (every page, mounted
 * sources included, whether mounted before or after). The index follows the catalog: it is rebuilt when the list changed (a tool
 * registered or removed, a mounted source's `tools/list_changed`), found by comparing the
 * definitions it holds with the listed ones at each use, so a change is never missed.
 */
import { ToolSearch, type ToolSearchOptions } from '../client/tool-search.js';
import { invalidParams } from '../jsonrpc/errors.js';
import type { JSONObject } from '../jsonrpc/types.js';
import type { RequestHandler } from '../protocol/handler-table.js';
import type { ServerRequestContext } from '../server/connection.js';
import type { InterceptContext, InterceptNext, Interceptor } from '../server/interceptors.js';
import type { McpServer } from '../server/server.js';
import type { Tool } from '../types.js';
import { matchesAny, validateGlob } from './glob.js';
import { toolView, type VisibilityPolicy, visibility } from './visibility.js';

/** The name of the meta-tool that searches the catalog. */
export const SEARCH_TOOLS_NAME = 'search_tools';
/** The name of the meta-tool that calls a tool of the catalog. */
export const CALL_TOOL_NAME = 'call_tool';

/** Options of {@link searchTools}; every bound has a safe default. */
export interface SearchToolsOptions {
  /** Switch a caller to search when the tools it may see number more than this. Default 50 (0: always). */
  threshold?: number | undefined;
  /** Globs of tool names (as the caller sees them) listed beside the meta-tools after the switch. */
  pinned?: readonly string[] | undefined;
  /** Per-caller visibility and tool transforms (see `visibility()`); default: everything visible. */
  visibility?: VisibilityPolicy | undefined;
  /** The `limit` of a search that gives none. Default 10. */
  defaultLimit?: number | undefined;
  /** The largest `limit` a search may ask for. Default 50. */
  maxLimit?: number | undefined;
  /** Bounds of the index (most tools, characters per field, query length and terms); see ToolSearchOptions. */
  index?: Omit<ToolSearchOptions, 'maxLimit'> | undefined;
}

/** The defaults of {@link SearchToolsOptions}. */
export const SEARCH_TOOLS_DEFAULTS = Object.freeze({ threshold: 50, defaultLimit: 10, maxLimit: 50 });

/** Most pages of `tools/list` read for one catalog (a handler that never stops paging is cut off). */
const MAX_PAGES = 10_000;

/**
 * Installs progressive discovery on `server` (see the module note): an interceptor
 * (registered with `server.use`, so register it before interceptors that should see
 * `search_tools` and `call_tool` as tools) that serves the switched view. Throws TypeError or RangeError for a bad option (a bad glob,
 * a threshold that is not a non-negative integer, limits out of order) and installs nothing.
 */
export function searchTools(server: McpServer, options: SearchToolsOptions = {}): void {
  const threshold = options.threshold ?? SEARCH_TOOLS_DEFAULTS.threshold;
  if (!Number.isInteger(threshold) || threshold < 0) throw new RangeError(`searchTools: threshold must be a non-negative integer, not ${String(threshold)}`);
  const maxLimit = options.maxLimit ?? SEARCH_TOOLS_DEFAULTS.maxLimit;
  const defaultLimit = options.defaultLimit ?? Math.min(SEARCH_TOOLS_DEFAULTS.defaultLimit, maxLimit);
  if (!Number.isInteger(maxLimit) || maxLimit < 1) throw new RangeError(`searchTools: maxLimit must be a positive integer, not ${String(maxLimit)}`);
  if (!Number.isInteger(defaultLimit) || defaultLimit < 1 || defaultLimit > maxLimit)
    throw new RangeError(`searchTools: defaultLimit must be an integer from 1 to maxLimit (${maxLimit}), not ${String(defaultLimit)}`);
  const pinned = options.pinned ?? [];
  for (const glob of pinned) validateGlob(glob);
  const policy = options.visibility;
  const view = policy === undefined ? undefined : toolView(policy);
  const gate = policy === undefined ? undefined : visibility(policy);
  const catalog = new Catalog(options.index ?? {});

  /** The tools the caller may see, by the server's name, as the caller sees them; undefined when the server lists none. */
  const visibleTo = async (call: InterceptContext): Promise<Map<string, JSONObject> | undefined> => {
    // what the server's tools/list serves in this era, mounts and other wrappers included
    const list = server.handlerOf('tools/list', call.era);
    if (list === undefined || call.request === undefined) return undefined;
    const tools = await catalog.read(list, call.request);
    if (view === undefined) return new Map(tools.map((t) => [t.name as string, t]));
    return view(call, tools);
  };

  const pass = (call: InterceptContext, next: InterceptNext): unknown => (gate === undefined ? next() : gate.intercept(call, next));

  const interceptor: Interceptor = {
    name: 'searchTools',
    intercept(call, next) {
      if (call.direction !== 'incoming' || call.kind !== 'request') return pass(call, next);
      const name = call.method === 'tools/call' ? call.params?.name : undefined;
      // only the list and the meta-tools depend on the switch: every other request costs nothing here
      if (call.method !== 'tools/list' && name !== SEARCH_TOOLS_NAME && name !== CALL_TOOL_NAME) return pass(call, next);
      return visibleTo(call).then((visible) => {
        if (visible === undefined || visible.size <= threshold) return pass(call, next);
        if (call.method === 'tools/list') return listSwitched(call, visible);
        return name === SEARCH_TOOLS_NAME ? search(call, visible) : forward(call, next);
      });
    },
  };

  const listSwitched = (call: InterceptContext, visible: Map<string, JSONObject>): JSONObject => {
    if (call.params?.cursor !== undefined)
      throw invalidParams('Invalid params: "cursor" is not a valid cursor (the tool list is one page: list again from the start)');
    const tools: JSONObject[] = [];
    for (const tool of visible.values()) if (pinned.length > 0 && matchesAny(pinned, tool.name as string)) tools.push(tool);
    tools.push(searchToolDefinition(maxLimit, defaultLimit), CALL_TOOL_DEFINITION);
    // one caller's view is never cached for another
    return call.era === '2026-07-28' && policy !== undefined ? { tools, cacheScope: 'private' } : { tools };
  };

  const search = (call: InterceptContext, visible: Map<string, JSONObject>): JSONObject => {
    const args = call.params?.arguments;
    const query = isObject(args) ? args.query : undefined;
    const limit = isObject(args) && args.limit !== undefined ? args.limit : defaultLimit;
    if (typeof query !== 'string' || query.trim() === '') return toolError('search_tools needs "query": a non-empty string describing the tool you need');
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > maxLimit)
      return toolError(`search_tools: "limit" must be an integer from 1 to ${maxLimit}, not ${JSON.stringify(limit)}`);
    let ranked: string[];
    try {
      ranked = catalog.rank(query);
    } catch (error) {
      return toolError(`search_tools: ${(error as Error).message.replace(/^ToolSearch\.search: /, '')}`);
    }
    const tools: JSONObject[] = [];
    for (const name of ranked) {
      const shown = visible.get(name);
      if (shown === undefined) continue; // hidden from this caller: never found
      tools.push(shown);
      if (tools.length >= limit) break;
    }
    const structuredContent = { tools };
    return { content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent };
  };

  const forward = (call: InterceptContext, next: InterceptNext): unknown => {
    const args = call.params?.arguments;
    const target = isObject(args) ? args.name : undefined;
    const targetArgs = isObject(args) ? args.arguments : undefined;
    if (typeof target !== 'string' || target === '') return toolError('call_tool needs "name": the name of a tool search_tools returned');
    if (targetArgs !== undefined && !isObject(targetArgs)) return toolError(`call_tool: "arguments" must be an object (the arguments of ${target})`);
    if (target === SEARCH_TOOLS_NAME || target === CALL_TOOL_NAME) return toolError(`call_tool: call ${target} directly, not through call_tool`);
    const meta = call.params?._meta;
    const params: JSONObject = { name: target, ...(targetArgs === undefined ? {} : { arguments: targetArgs }), ...(meta === undefined ? {} : { _meta: meta }) };
    const inner = Object.create(call, { params: { value: params } }) as InterceptContext;
    return gate === undefined ? next(params) : gate.intercept(inner, (p) => next(p ?? params));
  };

  server.use(interceptor);
}

/**
 * The server's catalog and its index: read through the `tools/list` handler (every page)
 * at each use; the index is rebuilt only when the definitions differ from those it holds.
 */
class Catalog {
  readonly #index: ToolSearch;
  readonly #maxTools: number;
  #held: readonly JSONObject[] = [];

  constructor(bounds: Omit<ToolSearchOptions, 'maxLimit'>) {
    const maxTools = bounds.maxTools ?? 10_000;
    // a search ranks every match: the caller's view filters them afterwards
    this.#index = new ToolSearch({ ...bounds, maxLimit: maxTools });
    this.#maxTools = maxTools;
  }

  async read(list: RequestHandler<ServerRequestContext>, ctx: ServerRequestContext): Promise<readonly JSONObject[]> {
    const tools: JSONObject[] = [];
    let cursor: unknown;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = (await list(cursor === undefined ? undefined : { cursor }, ctx)) as JSONObject | undefined;
      const items = result?.tools;
      if (Array.isArray(items)) for (const item of items) if (isObject(item) && typeof item.name === 'string') tools.push(item);
      if (tools.length > this.#maxTools)
        throw new RangeError(`searchTools: the server lists more than ${this.#maxTools} tools (index.maxTools); raise it or serve fewer tools`);
      cursor = result?.nextCursor;
      if (typeof cursor !== 'string') break;
    }
    if (!sameDefinitions(tools, this.#held)) {
      this.#index.replace(tools as unknown as Tool[]);
      this.#held = tools;
    }
    return this.#held;
  }

  /** The names of every tool matching `query`, best first. */
  rank(query: string): string[] {
    if (this.#index.size === 0) return [];
    return this.#index.search(query, { limit: this.#index.size }).map((hit) => hit.key);
  }
}

/** Whether two lists hold the same definition objects in the same order. */
function sameDefinitions(a: readonly JSONObject[], b: readonly JSONObject[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function searchToolDefinition(maxLimit: number, defaultLimit: number): JSONObject {
  return {
    name: SEARCH_TOOLS_NAME,
    title: 'Search tools',
    description:
      'Finds the tools of this server that fit a task, best first, with their full definitions (input schema included). ' +
      `This server has too many tools to list them all: search here, then call one with ${CALL_TOOL_NAME} (or by its name).`,
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'What the tool should do, in words (e.g. "create a github issue")' },
        limit: { type: 'integer', minimum: 1, maximum: maxLimit, default: defaultLimit, description: 'How many tools to return at most' },
      },
      required: ['query'],
    },
    outputSchema: {
      type: 'object',
      properties: { tools: { type: 'array', items: { type: 'object' }, description: 'Matching tool definitions, best first' } },
      required: ['tools'],
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  };
}

const CALL_TOOL_DEFINITION: JSONObject = {
  name: CALL_TOOL_NAME,
  title: 'Call a tool',
  description: `Calls a tool of this server that ${SEARCH_TOOLS_NAME} returned, with its arguments, and answers with that tool's result.`,
  inputSchema: {
    type: 'object',
    properties: {
      name: { type: 'string', description: `The tool's name, as ${SEARCH_TOOLS_NAME} returned it` },
      arguments: { type: 'object', description: "The tool's arguments, as its input schema describes them" },
    },
    required: ['name'],
  },
};

function toolError(text: string): JSONObject {
  return { content: [{ type: 'text', text }], isError: true };
}

function isObject(value: unknown): value is JSONObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
