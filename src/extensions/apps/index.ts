/**
 * `mcpkit/apps`: MCP Apps (the `io.modelcontextprotocol/ui` extension, 2026-01-26) — UI
 * resources and tools linked to them on the server, host-side discovery and fetching on
 * the client. Runtime-neutral.
 */

export {
  type AppResource,
  AppsClient,
  type AppsClientOptions,
  appResourceUriOf,
  appsClientExtension,
  contentSecurityPolicy,
  modelVisibleTools,
  toolVisibility,
} from './client.js';
export { type AppResourceConfig, type AppToolLink, registerAppResource, registerAppTool } from './server.js';
export {
  APP_MIME_TYPE,
  APPS_EXTENSION_ID,
  type AppResourceCsp,
  type AppResourceMeta,
  type AppResourcePermissions,
  type AppsClientCapability,
  type AppToolMeta,
  type AppToolVisibility,
  appResourceMetaProblem,
  appsCapabilityOf,
  hostSupportsApps,
  isUiUri,
  LEGACY_RESOURCE_URI_KEY,
  UI_SCHEME,
} from './wire.js';
