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
