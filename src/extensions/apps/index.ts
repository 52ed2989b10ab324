/**
 * `mcpkit/apps`: MCP Apps (the `io.modelcontextprotocol/ui` extension, 2026-01-26) — UI
 * resources and tools linked to them on the server, host-side discovery and fetching on
 * the client. Runtime-neutral.
 */
export { registerAppResource, registerAppTool, type AppResourceConfig, type AppToolLink } from './server.js';
export { AppsClient, appsClientExtension, appResourceUriOf, toolVisibility, modelVisibleTools, contentSecurityPolicy, type AppsClientOptions, type AppResource } from './client.js';
export {
  APPS_EXTENSION_ID,
  APP_MIME_TYPE,
  UI_SCHEME,
  LEGACY_RESOURCE_URI_KEY,
  appResourceMetaProblem,
  appsCapabilityOf,
  hostSupportsApps,
  isUiUri,
  type AppResourceCsp,
  type AppResourcePermissions,
  type AppResourceMeta,
  type AppToolMeta,
  type AppToolVisibility,
  type AppsClientCapability,
} from './wire.js';
