/**
 * Mount: serve another server's tools, prompts, resources and templates from this one.
 *
 * `mount(server, prefix, source)` adds `source` (an in-process `McpServer`, a connected
 * `Client`, or any {@link MountSource}) under `prefix`: tool and prompt names become
 * `prefix_name` (separator configurable), resource URIs and templates
 * `mcpkit+mount://prefix/<original>` (names.ts). The empty prefix merges (names and URIs
 * unchanged). The server answers with ONE merged catalogue: its own items first, then each
 * mount's in mount order, paginated by the server (a client source's pages are all fetched).
 *
 * Routing: `tools/call`, `prompts/get`, `resources/read`, `completion/complete` (by prompt
 * name or template) and `resources/(un)subscribe` go to the owner of the name or URI; the
 * request's `_meta` goes along (progress comes back to the caller), the caller's signal
 * cancels the forwarded request, and the source's errors keep their JSON-RPC code.
 *
 * Changes: a source's `list_changed` refreshes that part of the catalogue and is announced
 * to the server's clients; its `resources/updated` is announced with the URI rewritten.
 * Mounting a source whose URIs the server's clients still hold subscriptions to (the same
 * prefix mounted again, e.g. a gateway's upstream after a restart) subscribes the source
 * to them again before mount() resolves (a failure is reported, not thrown).
 *
 * The server's `toolInputSchema` (what its HTTP binding checks `Mcp-Param-*` headers
 * against) answers for the mounted tools too.
 *
 * Collisions: mounting a source with a name or URI the server or another mount already
 * serves rejects (nothing is mounted). A collision that arises LATER (a source's list
 * changes, or the server registers a name a mount serves) never overrides silently: the
 * server's own item wins, else the item that was listed first; the other one is hidden
 * (absent from lists, answered as unknown) and reported to `onError` once.
 *
 * Mount before the server serves (its capabilities are fixed at its first connection and
 * include what the mounted sources serve).
 */

import { Client } from '../client/client.js';
import { McpError } from '../jsonrpc/errors.js';
import type { JSONObject } from '../jsonrpc/types.js';
import { defaultErrorReporter } from '../protocol/error-report.js';
import type { RequestHandler } from '../protocol/handler-table.js';
import type { ServerRequestContext } from '../server/connection.js';
// through the server entry point's module: the bundle keeps it in one chunk with the server's code
import { McpServer, UriTemplate } from '../server/index.js';
import { paginate } from '../server/pagination.js';
import type { ServerCapabilities } from '../types.js';
import { DEFAULT_SEPARATOR, isValidToolName, MOUNT_SCHEME, namespaceName, namespaceUri, splitUri, validatePrefix, validateScheme } from './names.js';
import { clientSource, type MountSource, serverSource } from './source.js';

/** Options of {@link mount}. */
export interface MountOptions {
  /** Between the prefix and a tool or prompt name. Default `_`. */
  separator?: string;
  /** The scheme of rewritten resource URIs. Default `mcpkit+mount`. */
  scheme?: string;
  /** Items per page of the merged lists. Default 100. */
  pageSize?: number;
  /** At most this many pages are read from a source per list (a source that never ends its list is cut there and reported). Default 100. */
  maxSourcePages?: number;
  /** Later collisions, names that are not valid tool names, and failed refreshes. Default: the console. */
  onError?: (error: Error) => void;
}

/** A mounted source. */
export interface Mount {
  readonly prefix: string;
  /** Reads the source's catalogue again (what its `list_changed` does). */
  refresh(): Promise<void>;
  /** The names of the source's tools as this server serves them (namespaced), from the last catalogue read. */
  tools(): string[];
  /** Removes the source from the server (its items disappear with `list_changed`); closes what the mount opened. */
  unmount(): Promise<void>;
}

type Kind = 'tools' | 'prompts' | 'resources' | 'resourceTemplates';

/** One item of a mount's catalogue: its outer form, its name at the source, when first listed. */
interface Item {
  readonly outer: JSONObject;
  readonly inner: string;
  readonly since: number;
}

const LIST: Record<Kind, { method: string; cap: 'tools' | 'prompts' | 'resources' }> = {
  tools: { method: 'tools/list', cap: 'tools' },
  prompts: { method: 'prompts/list', cap: 'prompts' },
  resources: { method: 'resources/list', cap: 'resources' },
  resourceTemplates: { method: 'resources/templates/list', cap: 'resources' },
};

const ANNOUNCE: Record<Kind, 'tools' | 'prompts' | 'resources'> = {
  tools: 'tools',
  prompts: 'prompts',
  resources: 'resources',
  resourceTemplates: 'resources',
};

let clock = 0;

/** One mounted source and its catalogue. */
class Entry implements Mount {
  readonly items: Record<Kind, Map<string, Item>> = { tools: new Map(), prompts: new Map(), resources: new Map(), resourceTemplates: new Map() };
  readonly templates = new Map<string, UriTemplate>();
  readonly forwarded = new Set<string>();
  readonly offs: Array<() => void> = [];
  constructor(
    readonly composition: Composition,
    readonly prefix: string,
    readonly source: MountSource,
    readonly separator: string,
    readonly scheme: string,
    readonly owned: boolean,
    readonly maxPages: number,
  ) {}

  /**
   * Forwards a caller's request: the source's McpError as it is; a request the caller
   * cancelled, or a source that failed to answer (closed, timed out), as -32603 naming the mount.
   */
  forward(method: string, params: JSONObject, ctx: ServerRequestContext): Promise<JSONObject> {
    return this.source.request(method, params, ctx).catch((error: unknown) => {
      if (error instanceof McpError) throw error;
      if (ctx.signal.aborted) throw new McpError(-32603, 'Request cancelled by the client');
      throw new McpError(
        -32603,
        `Mount "${this.prefix}": the source did not answer ${method}: ${(error as Error)?.message ?? String(error)}. Try again; if it persists the source is down`,
      );
    });
  }

  has(kind: Kind): boolean {
    const caps = this.source.capabilities();
    return caps === undefined || caps[LIST[kind].cap] !== undefined;
  }

  outerName(name: string): string {
    return namespaceName(this.prefix, name, this.separator);
  }

  outerUri(uri: string): string {
    return namespaceUri(this.prefix, uri, this.scheme);
  }

  /** Reads every page of one list of the source into an item map (first-listed times kept). */
  async read(kind: Kind): Promise<Map<string, Item>> {
    const next = new Map<string, Item>();
    if (!this.has(kind)) return next;
    const old = this.items[kind];
    let cursor: string | undefined;
    for (let page = 0; ; page++) {
      if (page === this.maxPages) {
        this.composition.report(
          new Error(
            `Mount "${this.prefix}": ${LIST[kind].method} of the source has more than ${this.maxPages} pages; the rest is not served (raise maxSourcePages if the source is that large)`,
          ),
        );
        break;
      }
      const result = await this.source.request(LIST[kind].method, cursor === undefined ? undefined : { cursor }, undefined);
      const list = result[kind];
      if (!Array.isArray(list)) throw new McpError(-32603, `Mount "${this.prefix}": ${LIST[kind].method} of the source answered without a "${kind}" array`);
      for (const raw of list as JSONObject[]) {
        const item = this.#outer(kind, raw);
        if (item === undefined) continue;
        const key = (kind === 'tools' || kind === 'prompts' ? item.name : kind === 'resources' ? item.uri : item.uriTemplate) as string;
        const inner = (kind === 'tools' || kind === 'prompts' ? raw.name : kind === 'resources' ? raw.uri : raw.uriTemplate) as string;
        if (next.has(key)) continue;
        next.set(key, { outer: item, inner, since: old.get(key)?.since ?? ++clock });
      }
      cursor = typeof result.nextCursor === 'string' && result.nextCursor !== '' ? result.nextCursor : undefined;
      if (cursor === undefined) break;
    }
    return next;
  }

  /** The outer form of a listed item, or undefined (reported) when it cannot be served. */
  #outer(kind: Kind, raw: JSONObject): JSONObject | undefined {
    if (kind === 'tools' || kind === 'prompts') {
      if (typeof raw.name !== 'string' || raw.name === '') return undefined;
      const name = this.outerName(raw.name);
      if (kind === 'tools' && !isValidToolName(name)) {
        this.composition.report(
          new Error(
            `Mount "${this.prefix}": tool ${JSON.stringify(raw.name)} is not served: ${JSON.stringify(name)} is not a valid tool name (1-128 of A-Z a-z 0-9 _ - .); choose a shorter prefix`,
          ),
        );
        return undefined;
      }
      return { ...raw, name };
    }
    if (kind === 'resources') return typeof raw.uri === 'string' ? { ...raw, uri: this.outerUri(raw.uri) } : undefined;
    if (typeof raw.uriTemplate !== 'string') return undefined;
    return { ...raw, uriTemplate: this.outerUri(raw.uriTemplate) };
  }

  async load(kinds: readonly Kind[]): Promise<Record<Kind, Map<string, Item>>> {
    const out = { ...this.items };
    const read = await Promise.all(kinds.map((k) => this.read(k)));
    kinds.forEach((k, i) => {
      out[k] = read[i]!;
    });
    return out;
  }

  apply(items: Record<Kind, Map<string, Item>>): void {
    Object.assign(this.items, items);
    this.templates.clear();
    for (const [outer] of this.items.resourceTemplates) {
      try {
        this.templates.set(outer, new UriTemplate(outer));
      } catch {
        // a template the server cannot parse is still listed; reads through it are not matched
      }
    }
  }

  tools(): string[] {
    return [...this.items.tools.keys()];
  }

  async refresh(): Promise<void> {
    await this.refreshKinds(['tools', 'prompts', 'resources', 'resourceTemplates']);
  }

  async refreshKinds(kinds: readonly Kind[]): Promise<void> {
    this.apply(await this.load(kinds));
    this.composition.resolve();
    for (const k of new Set(kinds.map((kind) => ANNOUNCE[kind]))) this.composition.server.announceListChanged(k);
  }

  /** Whether this mount serves `uri` (prefixed: by prefix; merged: listed or matching a template). */
  servesUri(uri: string): string | undefined {
    if (this.prefix !== '') {
      const split = splitUri(uri, this.scheme);
      return split !== undefined && split.prefix === this.prefix ? split.name : undefined;
    }
    if (this.composition.winner('resources', uri) === this) return uri;
    for (const [outer, template] of this.templates)
      if (this.composition.winner('resourceTemplates', outer) === this && template.match(uri) !== null) return uri;
    return undefined;
  }

  /** Subscribes the source to the URIs it serves that the server's clients hold (see the module note); failures reported. */
  async resubscribe(): Promise<void> {
    if (this.source.capabilities()?.resources?.subscribe !== true) return;
    const held = new Set<string>();
    for (const connection of this.composition.server.connections) for (const uri of connection.subscriptions) held.add(uri);
    for (const outer of held) {
      const inner = this.servesUri(outer);
      if (inner === undefined || this.forwarded.has(outer)) continue;
      try {
        await this.source.request('resources/subscribe', { uri: inner }, undefined);
        this.forwarded.add(outer);
      } catch (error) {
        this.composition.report(
          new Error(`Mount "${this.prefix}": subscribing the source again to ${JSON.stringify(inner)} failed: ${(error as Error).message}`),
        );
      }
    }
  }

  async unmount(): Promise<void> {
    const i = this.composition.entries.indexOf(this);
    if (i < 0) return;
    this.composition.entries.splice(i, 1);
    for (const off of this.offs) off();
    this.composition.resolve();
    for (const k of ['tools', 'prompts', 'resources'] as const) if (this.has(k)) this.composition.server.announceListChanged(k);
    if (this.owned) await this.source.close();
  }
}

/** The mounts of one server and the wrappers that serve them. */
class Composition {
  readonly entries: Entry[] = [];
  /** Per kind: the entry that serves each outer name (collisions resolved). */
  #winners: Record<Kind, Map<string, Entry>> = { tools: new Map(), prompts: new Map(), resources: new Map(), resourceTemplates: new Map() };
  readonly #reported = new Set<string>();
  report: (error: Error) => void = defaultErrorReporter('mount');
  pageSize = 100;

  constructor(readonly server: McpServer) {
    server.extend({ name: 'mcpkit-compose', methods: () => [], capabilities: () => this.#capabilities() });
    // the transport binding's one lookup (the 2026-07-28 HTTP front checks a call's Mcp-Param-*
    // headers against it, SEP-2243) sees the mounted tools too: the server's own first, as routed
    const own = server.toolInputSchema.bind(server);
    server.toolInputSchema = (name) => own(name) ?? this.#mountedInputSchema(name);
    this.#install();
  }

  /** The input schema of the mounted tool `name` as the server lists it (the winner's), or undefined. */
  #mountedInputSchema(name: string): unknown {
    return this.#winners.tools.get(name)?.items.tools.get(name)?.outer.inputSchema;
  }

  #capabilities(): Record<string, unknown> {
    const caps: ServerCapabilities = {};
    for (const e of this.entries) {
      const c = e.source.capabilities();
      if (c === undefined || c.tools) caps.tools = { listChanged: true };
      if (c === undefined || c.prompts) caps.prompts = { listChanged: true };
      if (c === undefined || c.resources) caps.resources = { subscribe: true, listChanged: true };
      if (c === undefined || c.completions) caps.completions = {};
    }
    return caps as Record<string, unknown>;
  }

  winner(kind: Kind, outer: string): Entry | undefined {
    return this.#winners[kind].get(outer);
  }

  /** Whether the server itself serves a name (or URI) of a kind. */
  #local(kind: Kind): { has(name: string): boolean } {
    const s = this.server;
    if (kind === 'tools') return { has: (name) => s.tools.get(name) !== undefined };
    if (kind === 'prompts') return new Set(s.prompts.list().map((p) => p.name));
    if (kind === 'resourceTemplates') return new Set(s.resources.listTemplates().map((t) => t.uriTemplate));
    return { has: (uri) => s.resources.has(uri) };
  }

  /** Recomputes who serves what: the server's own first, then the earliest listed; reports each new loser once. */
  resolve(): void {
    const winners: Record<Kind, Map<string, Entry>> = { tools: new Map(), prompts: new Map(), resources: new Map(), resourceTemplates: new Map() };
    for (const kind of Object.keys(winners) as Kind[]) {
      const local = this.#local(kind);
      const since = new Map<string, number>();
      for (const e of this.entries) {
        for (const [name, item] of e.items[kind]) {
          const other = winners[kind].get(name);
          const lost = local.has(name) ? e : other === undefined ? undefined : item.since < since.get(name)! ? other : e;
          if (lost === undefined || lost === other) {
            winners[kind].set(name, e);
            since.set(name, item.since);
          }
          if (lost !== undefined) this.#collided(kind, name, lost, local.has(name) ? undefined : lost === e ? other : e);
        }
      }
    }
    this.#winners = winners;
  }

  #collided(kind: Kind, name: string, hidden: Entry, kept: Entry | undefined): void {
    const key = `${kind}\u0000${name}\u0000${hidden.prefix}`;
    if (this.#reported.has(key)) return;
    this.#reported.add(key);
    const by = kept === undefined ? 'the server itself' : `mount "${kept.prefix}"`;
    this.report(
      new Error(
        `Mount "${hidden.prefix}": ${kind} ${JSON.stringify(name)} collides with ${by}, which served it first; the mount's one is hidden (mount the source under another prefix to serve both)`,
      ),
    );
  }

  /** Names the new entry would add that are already served: the reason mount() refuses. */
  collisions(entry: Entry): string[] {
    const found: string[] = [];
    for (const kind of Object.keys(entry.items) as Kind[]) {
      const local = this.#local(kind);
      for (const name of entry.items[kind].keys()) {
        if (local.has(name)) found.push(`${kind} ${JSON.stringify(name)} (the server's own)`);
        else {
          const other = this.entries.find((e) => e.items[kind].has(name));
          if (other !== undefined) found.push(`${kind} ${JSON.stringify(name)} (mount "${other.prefix}")`);
        }
      }
    }
    return found;
  }

  /** The merged list of a kind: the server's own (every page), then the winners' items in mount order. */
  async #merged(kind: Kind, inner: RequestHandler<ServerRequestContext>, ctx: ServerRequestContext): Promise<JSONObject[]> {
    const all: JSONObject[] = [];
    let cursor: unknown;
    for (let page = 0; page < 100_000; page++) {
      const result = (await inner(cursor === undefined ? undefined : { cursor }, ctx)) as JSONObject;
      all.push(...((result[kind] as JSONObject[] | undefined) ?? []));
      cursor = result.nextCursor;
      if (typeof cursor !== 'string') break;
    }
    // the server's own names win, also over a name it registered after the last resolve()
    const field = kind === 'tools' || kind === 'prompts' ? 'name' : kind === 'resources' ? 'uri' : 'uriTemplate';
    const own = new Set(all.map((item) => item[field]));
    for (const e of this.entries) {
      for (const [name, item] of e.items[kind]) {
        if (this.#winners[kind].get(name) !== e) continue;
        if (own.has(name)) this.#collided(kind, name, e, undefined);
        else all.push(item.outer);
      }
    }
    return all;
  }

  /** The entry and source name of a tool or prompt, or undefined (the server's own or unknown). */
  #route(kind: 'tools' | 'prompts', name: unknown): { entry: Entry; name: string } | undefined {
    if (typeof name !== 'string') return undefined;
    if (kind === 'tools' ? this.server.tools.get(name) !== undefined : this.server.prompts.list().some((p) => p.name === name)) return undefined;
    const entry = this.#winners[kind].get(name);
    if (entry === undefined) return undefined;
    return { entry, name: entry.items[kind].get(name)!.inner };
  }

  #routeUri(uri: unknown): { entry: Entry; uri: string } | undefined {
    if (typeof uri !== 'string' || this.server.resources.has(uri)) return undefined;
    for (const entry of this.entries) {
      const inner = entry.servesUri(uri);
      if (inner !== undefined) return { entry, uri: inner };
    }
    return undefined;
  }

  #install(): void {
    const s = this.server;
    for (const kind of Object.keys(LIST) as Kind[]) {
      s.wrap(LIST[kind].method, (inner) => async (params, ctx) => {
        if (this.entries.length === 0) return inner(params, ctx);
        const { page, nextCursor } = paginate(await this.#merged(kind, inner, ctx), params?.cursor, this.pageSize);
        return nextCursor === undefined ? { [kind]: page } : { [kind]: page, nextCursor };
      });
    }
    s.wrap('tools/call', (inner) => (params, ctx) => {
      const to = this.#route('tools', params?.name);
      return to === undefined ? inner(params, ctx) : to.entry.forward('tools/call', { ...params, name: to.name }, ctx);
    });
    s.wrap('prompts/get', (inner) => (params, ctx) => {
      const to = this.#route('prompts', params?.name);
      return to === undefined ? inner(params, ctx) : to.entry.forward('prompts/get', { ...params, name: to.name }, ctx);
    });
    s.wrap('resources/read', (inner) => (params, ctx) => {
      const to = this.#routeUri(params?.uri);
      if (to === undefined) return inner(params, ctx);
      // an in-process source words "not found" in the 2026-07-28 era (-32602 with data.uri):
      // answered as -32002 with the caller's URI, which this server's era shapes for its caller
      return to.entry.forward('resources/read', { ...params, uri: to.uri }, ctx).catch((error: unknown) => {
        const data = (error as McpError).data as { uri?: unknown } | undefined;
        if (error instanceof McpError && (error.code === -32002 || (error.code === -32602 && data?.uri === to.uri)))
          throw new McpError(-32002, error.message, { ...data, uri: params!.uri });
        throw error;
      });
    });
    s.wrap('completion/complete', (inner) => (params, ctx) => {
      const ref = params?.ref as { type?: unknown; name?: unknown; uri?: unknown } | undefined;
      if (ref?.type === 'ref/prompt') {
        const to = this.#route('prompts', ref.name);
        if (to !== undefined) return to.entry.forward('completion/complete', { ...params, ref: { ...ref, name: to.name } }, ctx);
      } else if (ref?.type === 'ref/resource' && typeof ref.uri === 'string' && !s.resources.listTemplates().some((t) => t.uriTemplate === ref.uri)) {
        const entry = this.#winners.resourceTemplates.get(ref.uri) ?? this.#winners.resources.get(ref.uri);
        const item = entry?.items.resourceTemplates.get(ref.uri) ?? entry?.items.resources.get(ref.uri);
        if (entry !== undefined && item !== undefined) return entry.forward('completion/complete', { ...params, ref: { ...ref, uri: item.inner } }, ctx);
      }
      return inner(params, ctx);
    });
    for (const method of ['resources/subscribe', 'resources/unsubscribe'] as const) {
      s.wrap(
        method,
        (inner) => async (params, ctx) => {
          const result = await inner(params, ctx);
          const to = this.#routeUri(params?.uri);
          if (to === undefined || to.entry.source.capabilities()?.resources?.subscribe !== true) return result;
          const outer = params!.uri as string;
          const held = [...s.connections].some((c) => c.subscriptions.has(outer));
          if (method === 'resources/subscribe' && !to.entry.forwarded.has(outer)) {
            await to.entry.forward(method, { uri: to.uri }, ctx);
            to.entry.forwarded.add(outer);
          } else if (method === 'resources/unsubscribe' && !held && to.entry.forwarded.delete(outer)) {
            await to.entry.forward(method, { uri: to.uri }, ctx);
          }
          return result;
        },
        { era: '2025' },
      );
    }
  }
}

const compositions = new WeakMap<McpServer, Composition>();

/**
 * Mounts `source` on `server` under `prefix` ('' merges); see the module note. Resolves
 * with the {@link Mount} once the source's catalogue is read. Rejects with a TypeError for
 * a bad prefix, separator or scheme, and with an Error listing every collision (nothing is
 * mounted then).
 */
export async function mount(server: McpServer, prefix: string, source: McpServer | Client | MountSource, options: MountOptions = {}): Promise<Mount> {
  const separator = options.separator ?? DEFAULT_SEPARATOR;
  validatePrefix(prefix, separator);
  const scheme = options.scheme ?? MOUNT_SCHEME;
  validateScheme(scheme);
  if (source === server) throw new TypeError('A server cannot mount itself');
  const composition = compositions.get(server) ?? new Composition(server);
  compositions.set(server, composition);
  if (options.onError !== undefined) composition.report = options.onError;
  if (options.pageSize !== undefined) {
    if (!(options.pageSize >= 1)) throw new RangeError('pageSize must be at least 1');
    composition.pageSize = options.pageSize;
  }
  if (composition.entries.some((e) => e.prefix === prefix && prefix !== ''))
    throw new TypeError(`Prefix ${JSON.stringify(prefix)} is already mounted on this server: choose another prefix`);
  const owned = source instanceof McpServer;
  const resolved: MountSource = source instanceof McpServer ? await serverSource(source) : source instanceof Client ? clientSource(source) : source;
  const entry = new Entry(composition, prefix, resolved, separator, scheme, owned, options.maxSourcePages ?? 100);
  try {
    entry.apply(await entry.load(['tools', 'prompts', 'resources', 'resourceTemplates']));
    const clashes = composition.collisions(entry);
    if (clashes.length > 0)
      throw new Error(
        `Cannot mount ${prefix === '' ? 'without a prefix' : `under ${JSON.stringify(prefix)}`}: ${clashes.join(', ')} already served. Mount under a (different) prefix`,
      );
  } catch (error) {
    if (owned) await resolved.close();
    throw error;
  }
  composition.entries.push(entry);
  composition.resolve();
  const refresh = (kinds: Kind[]) => () =>
    void entry
      .refreshKinds(kinds)
      .catch((error: unknown) => composition.report(new Error(`Mount "${prefix}": refreshing after a change failed: ${(error as Error).message}`)));
  entry.offs.push(
    resolved.on('notifications/tools/list_changed', refresh(['tools'])),
    resolved.on('notifications/prompts/list_changed', refresh(['prompts'])),
    resolved.on('notifications/resources/list_changed', refresh(['resources', 'resourceTemplates'])),
    resolved.on('notifications/resources/updated', (params) => {
      if (typeof params?.uri === 'string')
        void server.notifyResourceUpdated(entry.outerUri(params.uri)).catch((error: unknown) => composition.report(error as Error));
    }),
  );
  await entry.resubscribe();
  return entry;
}
