/**
 * `mcpkit/compose`: many servers behind one door. Naming rules shared by mount, proxy and
 * the client pool (names.ts).
 */
export {
  DEFAULT_SEPARATOR,
  MAX_TOOL_NAME_LENGTH,
  MOUNT_SCHEME,
  isValidToolName,
  namespaceName,
  namespaceUri,
  splitName,
  splitUri,
  validatePrefix,
  validateScheme,
  validateSeparator,
  type SplitName,
} from './names.js';
export { mount, type Mount, type MountOptions } from './mount.js';
export { clientSource, serverSource, type MountSource, type SourceNotification } from './source.js';
export { visibility, type ArgumentTransform, type Caller, type ToolTransform, type VisibilityPolicy, type VisibilityRule } from './visibility.js';
export { globMatch, MAX_GLOB_LENGTH } from './glob.js';
