/**
 * A tiny glob for allow/deny lists: `*` matches any run of characters (`/` and `.`
 * included), `?` exactly one; every other character matches itself (no classes, no
 * escapes, no regular expression is built). Matching is the two-pointer walk that only
 * backtracks to the last `*`: at most O(pattern × text) steps, no recursion.
 */

/** The longest pattern accepted (longer ones are refused when the policy is built). */
export const MAX_GLOB_LENGTH = 512;

/** Checks a pattern: a non-empty string of at most {@link MAX_GLOB_LENGTH} characters. */
export function validateGlob(pattern: string): void {
  if (typeof pattern !== 'string' || pattern.length === 0 || pattern.length > MAX_GLOB_LENGTH) {
    throw new TypeError(`Glob ${JSON.stringify(pattern)} must be a non-empty string of at most ${MAX_GLOB_LENGTH} characters ("*" any run, "?" one character)`);
  }
}

/** Whether `text` matches `pattern` in full. */
export function globMatch(pattern: string, text: string): boolean {
  let p = 0;
  let t = 0;
  let star = -1;
  let resume = 0;
  while (t < text.length) {
    const c = pattern[p];
    if (c === '*') {
      star = p++;
      resume = t;
    } else if (p < pattern.length && (c === '?' || c === text[t])) {
      p++;
      t++;
    } else if (star >= 0) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (pattern[p] === '*') p++;
  return p === pattern.length;
}

/** Whether `text` matches any of `patterns`. */
export function matchesAny(patterns: readonly string[], text: string): boolean {
  for (const pattern of patterns) if (globMatch(pattern, text)) return true;
  return false;
}
