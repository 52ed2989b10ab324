/**
 * MCP Apps on an {@link McpServer}: UI resources ({@link registerAppResource}) and tools
 * linked to them ({@link registerAppTool}), with the shapes of the extension's 2026-01-26
 * specification. Both helpers only register ordinary resources and tools (the extension
 * adds no methods); hosts without the extension see a normal tool and may ignore the
 * resource. Check `hostSupportsApps(ctx.clientCapabilities)` in a handler to tailor its
 * text fallback.
 */
import type { McpServer, RegisteredResource, RegisteredTool, ServerRequestContext, ToolConfig, UserSchema } from '../../server/index.js';
import type { ToolArgs, ToolStructured } from '../../server/infer.js';
import type { ToolHandlerFor } from '../../server/tools.js';
import type { ReadResourceResult } from '../../types.js';
import { APP_MIME_TYPE, type AppResourceMeta, type AppToolVisibility, appResourceMetaProblem, isUiUri, LEGACY_RESOURCE_URI_KEY } from './wire.js';

/** A UI resource. */
export interface AppResourceConfig {
  /** Display name (`Resource.name`). */
  name: string;
  title?: string;
  description?: string;
  /** The HTML5 document, or a function producing it per read. */
  html: string | ((uri: string, ctx: ServerRequestContext) => string | Promise<string>);
  /**
   * Security and rendering metadata (`_meta.ui`): CSP origins, permissions, domain,
   * prefersBorder. Sent on the `resources/read` content (where hosts read it) and on the
   * `resources/list` entry (their fallback).
   */
  ui?: AppResourceMeta;
  /**
   * Whether `resources/list` lists it. Default true (hosts may review UI templates up
   * front); the specification lets servers leave UI-only resources out.
   */
  listed?: boolean;
}

/**
 * Registers a UI resource at `uri` (`ui://...`), served as `text/html;profile=mcp-app`.
 * Throws TypeError for a URI outside `ui://`, a malformed `ui` (naming the member), or a
 * URI already registered.
 */
export function registerAppResource(server: McpServer, uri: string, config: AppResourceConfig): RegisteredResource {
  if (!isUiUri(uri)) throw new TypeError(`A UI resource URI must start with ui:// (got ${JSON.stringify(uri)})`);
  if (config.ui !== undefined) {
    const problem = appResourceMetaProblem(config.ui);
    if (problem !== undefined) throw new TypeError(`UI resource ${uri}: ${problem}`);
  }
  const meta = config.ui === undefined ? undefined : { ui: structuredClone(config.ui) };
  const metadata: Parameters<McpServer['registerResource']>[1] = { name: config.name, mimeType: APP_MIME_TYPE };
  if (config.title !== undefined) metadata.title = config.title;
  if (config.description !== undefined) metadata.description = config.description;
  if (meta !== undefined) metadata._meta = meta;
  const html = config.html;
  const read = async (u: string, ctx: ServerRequestContext): Promise<ReadResourceResult> => {
    const text = typeof html === 'string' ? html : await html(u, ctx);
    return { contents: [meta === undefined ? { uri: u, mimeType: APP_MIME_TYPE, text } : { uri: u, mimeType: APP_MIME_TYPE, text, _meta: meta }] };
  };
  if (config.listed === false) {
    // an exact-URI template: readable, not listed
    return server.registerResourceTemplate(uri.replace(/[{}]/g, encodeURIComponent), { name: config.name, mimeType: APP_MIME_TYPE }, (u, _vars, ctx) =>
      read(u, ctx),
    );
  }
  return server.registerResource(uri, metadata, read);
}

/** How a tool links to its UI. */
export interface AppToolLink {
  /** The `ui://` resource that renders this tool's results. */
  resourceUri: string;
  /** Who may call it. Default (omitted on the wire) `["model", "app"]`; `["app"]` hides it from the model. */
  visibility?: AppToolVisibility[];
}

/**
 * Registers a tool linked to a UI resource: `_meta.ui = {resourceUri, visibility}` (and
 * the deprecated flat `_meta["ui/resourceUri"]` older hosts read), merged over the
 * config's own `_meta`. Otherwise exactly {@link McpServer.registerTool} (its errors too);
 * throws TypeError for a `resourceUri` outside `ui://` or a visibility that is empty or
 * names something other than `model` and `app`. The tool must still answer meaningful
 * `content` for hosts without UI support.
 */
export function registerAppTool<const I extends UserSchema | undefined = undefined, const O extends UserSchema | undefined = undefined>(
  server: McpServer,
  name: string,
  config: ToolConfig<I, O> & { ui: AppToolLink },
  handler: ToolHandlerFor<I, O>,
): RegisteredTool<ToolArgs<I>, ToolStructured<O>> {
  const { ui, ...rest } = config;
  if (!isUiUri(ui.resourceUri)) throw new TypeError(`Tool ${name}: ui.resourceUri must start with ui:// (got ${JSON.stringify(ui.resourceUri)})`);
  const link: { resourceUri: string; visibility?: AppToolVisibility[] } = { resourceUri: ui.resourceUri };
  if (ui.visibility !== undefined) {
    if (!Array.isArray(ui.visibility) || ui.visibility.length === 0 || ui.visibility.some((v) => v !== 'model' && v !== 'app')) {
      throw new TypeError(`Tool ${name}: ui.visibility must be a non-empty list of "model" and "app"`);
    }
    link.visibility = [...new Set(ui.visibility)];
  }
  const base = (rest._meta ?? {}) as Record<string, unknown>;
  const ownUi = typeof base.ui === 'object' && base.ui !== null ? (base.ui as Record<string, unknown>) : {};
  const _meta = { ...base, ui: { ...ownUi, ...link }, [LEGACY_RESOURCE_URI_KEY]: link.resourceUri };
  return server.registerTool(name, { ...rest, _meta } as ToolConfig<I, O>, handler);
}
