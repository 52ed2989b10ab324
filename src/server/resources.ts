/**
 * The resource registry: static resources keyed by URI and resource templates (RFC 6570)
 * tried in registration order. Template matching is linear-time (see uri-template.ts).
 * Reading an unknown URI answers -32002 "Resource not found" with `data.uri`.
 */
import { McpError } from '../jsonrpc/errors.js';
import { ErrorCode, type JSONObject } from '../jsonrpc/types.js';
import type { ReadResourceResult, Resource, ResourceContents, ResourceTemplate } from '../types.js';
import type { Completer } from './completions.js';
import type { ServerRequestContext } from './context.js';
import { UriTemplate } from './uri-template.js';

/** What a reader may return: a full result, a list of contents, or one contents item. */
export type ReadReturn = ReadResourceResult | ResourceContents[] | ResourceContents;

/** Reads a static resource. */
export type ResourceReader = (uri: string, ctx: ServerRequestContext) => ReadReturn | Promise<ReadReturn>;

/** Reads a resource matched by a template; `variables` are the decoded template variables. */
export type TemplateReader = (uri: string, variables: Record<string, string | string[]>, ctx: ServerRequestContext) => ReadReturn | Promise<ReadReturn>;

/** Metadata of a static resource (everything of `Resource` but the URI). */
export type ResourceMetadata = Omit<Resource, 'uri'>;

/** Metadata and callbacks of a resource template. */
export interface ResourceTemplateConfig extends Omit<ResourceTemplate, 'uriTemplate'> {
  /** Lists the concrete resources this template currently stands for (added to `resources/list`). */
  list?: (ctx: ServerRequestContext) => Resource[] | Promise<Resource[]>;
  /** Completers of template variables, for `completion/complete` with `ref/resource`. */
  complete?: Record<string, Completer>;
}

/** A handle on a registered resource or template. */
export interface RegisteredResource {
  /** Removes it; announces `list_changed`. */
  remove(): void;
}

interface TemplateEntry {
  definition: ResourceTemplate;
  template: UriTemplate;
  config: ResourceTemplateConfig;
  read: TemplateReader;
}

function normalize(uri: string, value: ReadReturn): ReadResourceResult {
  if (Array.isArray(value)) return { contents: value };
  if ('contents' in value && Array.isArray((value as ReadResourceResult).contents)) return value as ReadResourceResult;
  const single = value as ResourceContents;
  return { contents: [single.uri === undefined ? { ...single, uri } : single] };
}

/** Registry of resources and resource templates. */
export class ResourceRegistry {
  readonly #static = new Map<string, { definition: Resource; read: ResourceReader }>();
  readonly #templates: TemplateEntry[] = [];
  readonly #changed: () => void;
  #staticList: Resource[] | undefined;
  #templateList: ResourceTemplate[] | undefined;

  constructor(changed: () => void) {
    this.#changed = changed;
  }

  get size(): number {
    return this.#static.size + this.#templates.length;
  }

  /** True when some template has variable completers. */
  get hasCompleters(): boolean {
    return this.#templates.some((t) => t.config.complete !== undefined);
  }

  /** Registers a static resource. Throws TypeError for a duplicate URI. */
  register(uri: string, metadata: ResourceMetadata, read: ResourceReader): RegisteredResource {
    if (this.#static.has(uri)) throw new TypeError(`A resource with URI ${uri} is already registered`);
    this.#static.set(uri, { definition: { uri, ...metadata }, read });
    this.#touch();
    return { remove: () => this.#static.delete(uri) && this.#touch() };
  }

  /** Registers a template. Throws TypeError for a malformed template. */
  registerTemplate(uriTemplate: string, config: ResourceTemplateConfig, read: TemplateReader): RegisteredResource {
    const template = new UriTemplate(uriTemplate);
    const { list: _list, complete: _complete, ...metadata } = config;
    const entry: TemplateEntry = { definition: { uriTemplate, ...metadata }, template, config, read };
    this.#templates.push(entry);
    this.#touch();
    return {
      remove: () => {
        const i = this.#templates.indexOf(entry);
        if (i >= 0) {
          this.#templates.splice(i, 1);
          this.#touch();
        }
      },
    };
  }

  #touch(): void {
    this.#staticList = undefined;
    this.#templateList = undefined;
    this.#changed();
  }

  /** Static resources plus what each template's `list` callback returns. */
  async list(ctx: ServerRequestContext): Promise<Resource[]> {
    const base = (this.#staticList ??= Array.from(this.#static.values(), (e) => e.definition));
    const listers = this.#templates.filter((t) => t.config.list !== undefined);
    if (listers.length === 0) return base;
    const extra = await Promise.all(listers.map((t) => t.config.list!(ctx)));
    return base.concat(...extra);
  }

  /** Template definitions in registration order. */
  listTemplates(): ResourceTemplate[] {
    return (this.#templateList ??= this.#templates.map((t) => t.definition));
  }

  /** Reads `uri`: static first, then templates in order. Throws -32002 when nothing matches. */
  async read(uri: string, ctx: ServerRequestContext): Promise<ReadResourceResult> {
    const entry = this.#static.get(uri);
    if (entry !== undefined) return normalize(uri, await entry.read(uri, ctx));
    for (const t of this.#templates) {
      const variables = t.template.match(uri);
      if (variables !== null) return normalize(uri, await t.read(uri, variables, ctx));
    }
    throw new McpError(ErrorCode.ResourceNotFound, 'Resource not found', { uri });
  }

  /** True when `uri` names a static resource or matches a template. */
  has(uri: string): boolean {
    return this.#static.has(uri) || this.#templates.some((t) => t.template.match(uri) !== null);
  }

  /** The completer of `variable` in the template whose text is `uriTemplate`, if any. */
  completer(uriTemplate: string, variable: string): Completer | undefined | null {
    const t = this.#templates.find((e) => e.definition.uriTemplate === uriTemplate);
    if (t === undefined) return null;
    const complete = t.config.complete;
    // own entries only: a name from the wire must not reach Object.prototype members
    return complete !== undefined && Object.hasOwn(complete, variable) ? complete[variable] : undefined;
  }

  /** @internal params helper */
  static uriOf(params: JSONObject): string {
    return params.uri as string;
  }
}
