/**
 * The host side of MCP Apps on a {@link Client}: declares the extension with the UI MIME
 * types it renders, tells which tools have a UI and who may call them, and fetches a
 * tool's UI resource (checked: `ui://`, `text/html;profile=mcp-app`, text or base64 HTML,
 * well-formed `_meta.ui`). Rendering it (a sandboxed iframe, the CSP the metadata asks
 * for, the `postMessage` bridge) is the host application's job; {@link contentSecurityPolicy}
 * builds the policy the specification describes.
 */

import type { Client } from '../../client/index.js';
import { LocalError } from '../../jsonrpc/errors.js';
import { isObject } from '../../jsonrpc/values.js';
import type { ProtocolExtension } from '../../protocol/table.js';
import type { RequestOptions } from '../../session/session.js';
import type { Tool } from '../../types.js';
import { decodeBase64, withExtension } from '../shared.js';
import {
  APP_MIME_TYPE,
  APPS_EXTENSION_ID,
  type AppResourceMeta,
  type AppToolVisibility,
  appResourceMetaProblem,
  cspOriginProblem,
  isUiUri,
  LEGACY_RESOURCE_URI_KEY,
} from './wire.js';

/** Options of {@link AppsClient}. */
export interface AppsClientOptions {
  /** UI MIME types this host renders, declared to servers. Default `["text/html;profile=mcp-app"]`. */
  mimeTypes?: string[];
  /** Largest UI document accepted, in bytes (UTF-8). Default 5 MiB; past it LocalError `invalid_result`. */
  maxHtmlBytes?: number;
}

/** A fetched UI resource. */
export interface AppResource {
  uri: string;
  mimeType: string;
  /** The HTML document. */
  html: string;
  /** `_meta.ui` of the read content, else of the `resources/list` entry when known, else `{}`. */
  ui: AppResourceMeta;
}

/** The protocol extension that declares MCP Apps support with `mimeTypes` (client side only). Pure. */
export function appsClientExtension(mimeTypes: readonly string[] = [APP_MIME_TYPE]): ProtocolExtension {
  return {
    name: APPS_EXTENSION_ID,
    methods: () => [],
    capabilities: (role, declared) => (role === 'client' ? withExtension(declared, APPS_EXTENSION_ID, { mimeTypes: [...mimeTypes] }) : undefined),
  };
}

/** The UI resource URI `tool` links to (`_meta.ui.resourceUri`, else the deprecated flat key), or undefined. Pure. */
export function appResourceUriOf(tool: Pick<Tool, '_meta'>): string | undefined {
  const meta = tool._meta as Record<string, unknown> | undefined;
  const ui = meta?.ui;
  const uri = isObject(ui) ? ui.resourceUri : undefined;
  if (isUiUri(uri)) return uri;
  const legacy = meta?.[LEGACY_RESOURCE_URI_KEY];
  return isUiUri(legacy) ? legacy : undefined;
}

/**
 * Who may call `tool` (`_meta.ui.visibility`): both when it has no visibility; nobody (an
 * empty list) when the visibility, or `_meta.ui` itself, is present but malformed — not a non-empty list of
 * `"model"` and `"app"` — so a server's mistake never shows an app-only tool to the model
 * (fail closed). Pure.
 */
export function toolVisibility(tool: Pick<Tool, '_meta'>): AppToolVisibility[] {
  const ui = (tool._meta as Record<string, unknown> | undefined)?.ui;
  // a `_meta.ui` that is not an object (`"app"`, `["app"]`, null) is malformed too: nobody
  if (ui !== undefined && !isObject(ui)) return [];
  const v = isObject(ui) ? ui.visibility : undefined;
  if (v === undefined) return ['model', 'app'];
  if (!Array.isArray(v) || v.length === 0 || v.some((x) => x !== 'model' && x !== 'app')) return [];
  return [...new Set(v as AppToolVisibility[])];
}

/** The tools to show the model: those whose visibility includes `model` (the specification's MUST for hosts). Pure. */
export function modelVisibleTools<T extends Pick<Tool, '_meta'>>(tools: readonly T[]): T[] {
  return tools.filter((t) => toolVisibility(t).includes('model'));
}

/**
 * The Content-Security-Policy a host applies to a UI with `ui` metadata, as the
 * specification constructs it: nothing beyond the declared origins. Throws TypeError
 * naming the list and the value when an entry is not an origin ({@link cspOriginProblem}:
 * `scheme://host[:port]`, an optional leading `*.` label) — a value such as
 * `"https://a; script-src *"` would otherwise add directives to the policy. Pure.
 */
export function contentSecurityPolicy(ui: AppResourceMeta = {}): string {
  const csp = ui.csp ?? {};
  const join = (list: string[] | undefined, key: string) => {
    if (list === undefined) return '';
    if (!Array.isArray(list)) throw new TypeError(`csp.${key} must be an array of origins`);
    for (const origin of list) {
      const problem = cspOriginProblem(origin);
      if (problem !== undefined) throw new TypeError(`csp.${key}: ${problem}; the policy is not built (fix or drop the entry)`);
    }
    return list.length > 0 ? ` ${list.join(' ')}` : '';
  };
  const res = join(csp.resourceDomains, 'resourceDomains');
  const connect = join(csp.connectDomains, 'connectDomains');
  const frame = join(csp.frameDomains, 'frameDomains');
  const base = join(csp.baseUriDomains, 'baseUriDomains');
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline'${res}`,
    `style-src 'self' 'unsafe-inline'${res}`,
    `connect-src 'self'${connect}`,
    `img-src 'self' data:${res}`,
    `font-src 'self'${res}`,
    `media-src 'self' data:${res}`,
    `frame-src${frame || " 'none'"}`,
    "object-src 'none'",
    `base-uri${base || " 'self'"}`,
  ].join('; ');
}

/**
 * MCP Apps for `client`. Construct it before connecting (it adds the extension, so the
 * client declares `extensions["io.modelcontextprotocol/ui"] = {mimeTypes}`); throws
 * LocalError `already_connected` after.
 */
export class AppsClient {
  readonly #client: Client;
  readonly #maxHtmlBytes: number;
  readonly #mimeTypes: readonly string[];

  constructor(client: Client, options: AppsClientOptions = {}) {
    this.#mimeTypes = options.mimeTypes ?? [APP_MIME_TYPE];
    this.#maxHtmlBytes = options.maxHtmlBytes ?? 5 * 1024 * 1024;
    if (!(this.#maxHtmlBytes >= 0)) throw new RangeError('maxHtmlBytes must be at least 0');
    client.extend(appsClientExtension(this.#mimeTypes));
    this.#client = client;
  }

  /** The UI resource URI of `tool`, or undefined when it has none. */
  resourceUriOf(tool: Pick<Tool, '_meta'>): string | undefined {
    return appResourceUriOf(tool);
  }

  /**
   * Fetches the UI resource `tool` links to (`resources/read`); undefined when the tool has
   * no UI. Rejects with LocalError `invalid_result` when the content is not a
   * `text/html;profile=mcp-app` document of at most `maxHtmlBytes` or its `_meta.ui` is
   * malformed, and as `readResource` does otherwise (-32002 / -32602 for an unknown URI).
   */
  async appResourceFor(tool: Pick<Tool, '_meta'>, options?: RequestOptions): Promise<AppResource | undefined> {
    const uri = appResourceUriOf(tool);
    return uri === undefined ? undefined : this.fetchAppResource(uri, options);
  }

  /** Fetches and checks the UI resource at `uri` (see {@link appResourceFor}). */
  async fetchAppResource(uri: string, options?: RequestOptions): Promise<AppResource> {
    if (!isUiUri(uri)) throw new LocalError('invalid_result', `${uri} is not a ui:// resource`);
    const result = await this.#client.readResource(uri, options);
    // only an item naming the URI asked for is that resource: another item is another document
    const item = (result.contents ?? []).find((c) => c.uri === uri);
    if (item === undefined) throw new LocalError('invalid_result', `${uri}: the read returned no content item for this URI`);
    const mimeType = item.mimeType ?? '';
    if (!this.#mimeTypes.includes(mimeType))
      throw new LocalError('invalid_result', `${uri}: mimeType ${JSON.stringify(mimeType)} is not one this host renders (${this.#mimeTypes.join(', ')})`);
    let html: string | undefined;
    if ('text' in item && typeof item.text === 'string') html = item.text;
    else if ('blob' in item && typeof item.blob === 'string') {
      const bytes = decodeBase64(item.blob);
      if (bytes !== undefined) html = new TextDecoder().decode(bytes);
    }
    if (html === undefined) throw new LocalError('invalid_result', `${uri}: the content has no text or valid base64 blob`);
    if (new TextEncoder().encode(html).length > this.#maxHtmlBytes)
      throw new LocalError('invalid_result', `${uri}: the document is over ${this.#maxHtmlBytes} bytes`);
    const ui = isObject(item._meta) && item._meta.ui !== undefined ? item._meta.ui : await this.#listedUi(uri, options);
    const problem = ui === undefined ? undefined : appResourceMetaProblem(ui);
    if (problem !== undefined) throw new LocalError('invalid_result', `${uri}: _meta.ui: ${problem}`);
    return { uri, mimeType, html, ui: (ui ?? {}) as AppResourceMeta };
  }

  /** The `_meta.ui` of the `resources/list` entry of `uri` (the specification's fallback), if listed. */
  async #listedUi(uri: string, options: RequestOptions | undefined): Promise<unknown> {
    const listed = (await this.#client.listAllResources(options).catch(() => [])).find((r) => r.uri === uri);
    const meta = listed?._meta as Record<string, unknown> | undefined;
    return meta?.ui;
  }
}
