/**
 * Small value tests shared by every layer. Internal: not re-exported from the package entry.
 */
import type { JSONObject } from './types.js';

/**
 * True when `value` is a JSON object: `typeof` is `'object'`, not `null`, not an array.
 * Any other object (a `Map`, a class instance) passes too; the test does not look at the
 * prototype or the keys. Pure.
 */
export function isObject(value: unknown): value is JSONObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
