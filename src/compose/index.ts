/**
 * `mcpkit/compose`: many servers behind one door. Naming rules shared by mount, proxy and
 * the client pool (names.ts).
 */
export {
  DEFAULT_SEPARATOR,
  isValidToolName,
  MAX_TOOL_NAME_LENGTH,
  MOUNT_SCHEME,
  namespaceName,
  namespaceUri,
  type SplitName,
  splitName,
  splitUri,
  validatePrefix,
  validateScheme,
  validateSeparator,
} from './names.js';
export { DEFAULT_MAX_UPSTREAM_SUBSCRIPTIONS, DEFAULT_PROXY_REQUEST_TIMEOUT_MS, McpProxy, type ProxyOptions, type ProxyRestartOptions } from './proxy.js';
export type { DownstreamTarget } from './proxy-routing.js';
