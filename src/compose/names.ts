/**
 * Naming rules for composition (mount, proxy, client pool): how the names of many servers
 * share one catalogue without colliding, and how a namespaced name or URI is traced back.
 *
 * Tools and prompts: `prefix + separator + name` ({@link namespaceName}); the separator is a
 * parameter (mount's default `_`, the pool uses `.`). A prefix is 1+ characters of the tool
 * name alphabet (SEP-986: `A-Z a-z 0-9 _ - .`, at most 128 characters in all) and never
 * contains the separator, so {@link splitName} cuts at the FIRST separator and is exact: the
 * name keeps any separators of its own. An empty prefix means "merged": names stay as they are.
 *
 * Resources: a URI or URI template `u` becomes `mcpkit+mount://<prefix>/<u>` ({@link
 * namespaceUri}); the original follows the prefix verbatim, so a template stays a template
 * (expanding the rewritten template gives the rewritten expansion, which completion and
 * `resources/read` rely on) and {@link splitUri} gives back exactly `u`. Collision-free:
 * the prefix is the whole authority (it cannot contain `/`, `?`, `#`, `@` or `:`), so two
 * prefixes never produce the same string; a hostile original (one holding `../`, another
 * `mcpkit+mount://other/`, or percent escapes) is only ever handed back to its own source,
 * undecoded. The scheme is a parameter too (default {@link MOUNT_SCHEME}).
 */

/** The default separator between a prefix and a tool or prompt name. */
export const DEFAULT_SEPARATOR = '_';

/** The default URI scheme of rewritten resource URIs and templates. */
export const MOUNT_SCHEME = 'mcpkit+mount';

/** The longest tool name the spec's naming guidance (SEP-986) allows. */
export const MAX_TOOL_NAME_LENGTH = 128;

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const NAME_CHARS = /^[A-Za-z0-9_.-]+$/;
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*$/;

/** Whether `name` follows the spec's tool name guidance: 1-128 characters of `A-Z a-z 0-9 _ - .`. */
export function isValidToolName(name: string): boolean {
  return TOOL_NAME.test(name);
}

/**
 * Checks a separator: 1-8 characters of the tool name alphabet (so a namespaced name stays a
 * valid tool name). Throws a TypeError saying what to use otherwise.
 */
export function validateSeparator(separator: string): void {
  if (typeof separator !== 'string' || separator.length < 1 || separator.length > 8 || !NAME_CHARS.test(separator)) {
    throw new TypeError(`Separator ${JSON.stringify(separator)} must be 1-8 characters of A-Z, a-z, 0-9, "_", "-" and "." (for example "_" or ".")`);
  }
}

/**
 * Checks a prefix for namespacing with `separator`: the empty string (merge) or 1-64
 * characters of the tool name alphabet that do not contain the separator. Throws a TypeError
 * naming the rule that failed.
 */
export function validatePrefix(prefix: string, separator: string = DEFAULT_SEPARATOR): void {
  validateSeparator(separator);
  if (typeof prefix !== 'string') throw new TypeError(`A prefix must be a string, got ${typeof prefix}`);
  if (prefix === '') return;
  if (prefix.length > 64 || !NAME_CHARS.test(prefix)) {
    throw new TypeError(`Prefix ${JSON.stringify(prefix)} must be 1-64 characters of A-Z, a-z, 0-9, "_", "-" and "." (or "" to merge without a prefix)`);
  }
  if (prefix.includes(separator)) {
    throw new TypeError(
      `Prefix ${JSON.stringify(prefix)} contains the separator ${JSON.stringify(separator)}: choose a prefix without it, or another separator`,
    );
  }
}

/**
 * The namespaced form of a tool or prompt name: `prefix + separator + name`, or `name` itself
 * for the empty prefix. Does not validate (call {@link validatePrefix} once, and
 * {@link isValidToolName} on the result where the spec's rule applies).
 */
export function namespaceName(prefix: string, name: string, separator: string = DEFAULT_SEPARATOR): string {
  return prefix === '' ? name : `${prefix}${separator}${name}`;
}

/** A namespaced name or URI cut back into its prefix and the source's own name or URI. */
export interface SplitName {
  readonly prefix: string;
  readonly name: string;
}

/**
 * Cuts a namespaced name at its first separator: `{ prefix, name }`, or undefined when it has
 * no separator or an empty side (not namespaced). The prefix is not checked against any
 * registry: look it up yourself.
 */
export function splitName(namespaced: string, separator: string = DEFAULT_SEPARATOR): SplitName | undefined {
  const at = namespaced.indexOf(separator);
  if (at <= 0 || at + separator.length >= namespaced.length) return undefined;
  return { prefix: namespaced.slice(0, at), name: namespaced.slice(at + separator.length) };
}

/** Checks a URI scheme (RFC 3986: a letter, then letters, digits, `+`, `-`, `.`). */
export function validateScheme(scheme: string): void {
  if (typeof scheme !== 'string' || !SCHEME.test(scheme))
    throw new TypeError(`URI scheme ${JSON.stringify(scheme)} must be a letter followed by letters, digits, "+", "-" or "." (for example "mcpkit+mount")`);
}

/**
 * The rewritten form of a resource URI or URI template: `<scheme>://<prefix>/<uri>` (the
 * original verbatim), or the original itself for the empty prefix.
 */
export function namespaceUri(prefix: string, uri: string, scheme: string = MOUNT_SCHEME): string {
  return prefix === '' ? uri : `${scheme}://${prefix}/${uri}`;
}

/**
 * Reverses {@link namespaceUri}: `{ prefix, name: originalUri }` for `<scheme>://<prefix>/<rest>`
 * whose prefix is made of name characters, else undefined (not a rewritten URI). The scheme
 * compares case-insensitively (RFC 3986), the prefix exactly.
 */
export function splitUri(uri: string, scheme: string = MOUNT_SCHEME): SplitName | undefined {
  const head = `${scheme}://`;
  if (uri.length <= head.length || uri.slice(0, head.length).toLowerCase() !== head.toLowerCase()) return undefined;
  const slash = uri.indexOf('/', head.length);
  if (slash <= head.length) return undefined;
  const prefix = uri.slice(head.length, slash);
  if (!NAME_CHARS.test(prefix)) return undefined;
  return { prefix, name: uri.slice(slash + 1) };
}
