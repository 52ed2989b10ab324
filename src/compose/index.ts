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
