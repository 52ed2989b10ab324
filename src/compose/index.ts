/**
 * `mcpkit/compose`: many servers behind one door. Naming rules shared by mount, proxy and
 * the client pool (names.ts).
 */

export {
  createGateway,
  DEFAULT_GATEWAY_HEALTH_CHECK,
  type Gateway,
  type GatewayHealthCheckOptions,
  type GatewayOptions,
  type GatewayUpstream,
  type UpstreamState,
  type UpstreamStatus,
} from './gateway.js';
export { type GatewayConfig, type GatewaySettings, gatewayOptions, parseGatewayConfig } from './gateway-config.js';
export { globMatch, MAX_GLOB_LENGTH } from './glob.js';
export { type Mount, type MountOptions, mount } from './mount.js';
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
export {
  DEFAULT_MAX_UPSTREAM_SUBSCRIPTIONS,
  DEFAULT_PROXY_REQUEST_TIMEOUT_MS,
  McpProxy,
  type ProxyOptions,
  type ProxyRestartOptions,
  restartDelay,
} from './proxy.js';
export type { DownstreamTarget } from './proxy-routing.js';
export { clientSource, type MountSource, type SourceNotification, serverSource } from './source.js';
export { type ArgumentTransform, type Caller, type ToolTransform, type VisibilityPolicy, type VisibilityRule, visibility } from './visibility.js';
