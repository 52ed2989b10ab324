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

/**
 * The decimal text of `n`, a counter that keeps growing (a stream number, a sequence):
 * the same text as `String(n)` for a safe integer. Why not `String(n)` or `n + ''`: V8
 * remembers each number-to-text conversion in its number-string cache, a table that young
 * collections treat as a root and only full collections clear, so the text of every new
 * counter value survives into the old generation and dies there (measured: ~20 bytes per
 * request promoted in SSE mode, a mark-compact every few hundred thousand requests).
 * `JSON.stringify` writes the digits without that cache. Pure.
 */
export function counterText(n: number): string {
  return JSON.stringify(n);
}

/**
 * True when `value` has a callable `then`: a promise, or any thenable `await` would adopt.
 * A handler's outcome that is not one is its value, used at once. Pure.
 */
export function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function';
}
