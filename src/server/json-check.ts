/**
 * What JSON can carry: a check that a value a handler built survives serialization as it is.
 * `JSON.stringify` quietly writes non-finite numbers (and `undefined` in arrays) as `null`,
 * drops functions and symbols, and throws on bigints and cycles, so a value that passed a
 * schema check in memory can arrive as something else (RFC 8259 §6: JSON has no Infinity
 * or NaN).
 */

/** How deep {@link findNonJson} looks before it calls a value too deeply nested. */
const MAX_DEPTH = 1000;

function pointer(path: readonly (string | number)[]): string {
  return path.length === 0 ? '/' : path.map((p) => `/${String(p).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

function unsupported(value: unknown): string | undefined {
  switch (typeof value) {
    case 'number':
      return Number.isFinite(value) ? undefined : String(value);
    case 'bigint':
      return 'a bigint';
    case 'function':
      return 'a function';
    case 'symbol':
      return 'a symbol';
    default:
      return undefined;
  }
}

/**
 * The first place in `value` that JSON cannot carry as it is, as `"<JSON Pointer> is
 * <what>"` (for example `"/reading/value is Infinity"`), or undefined when the value
 * serializes faithfully. Object members that are `undefined` count as absent (that is what
 * serialization makes of them); `undefined` array items, non-finite numbers, bigints,
 * functions, symbols, cycles and nesting deeper than 1000 levels are reported. Pure.
 */
export function findNonJson(value: unknown): string | undefined {
  const path: (string | number)[] = [];
  const ancestors: object[] = [];
  const visit = (v: unknown, inArray: boolean): string | undefined => {
    const what = unsupported(v);
    if (what !== undefined) return `${pointer(path)} is ${what}`;
    if (v === undefined) return inArray ? `${pointer(path)} is undefined` : undefined;
    if (typeof v !== 'object' || v === null) return undefined;
    if (ancestors.includes(v)) return `${pointer(path)} is a circular reference`;
    if (ancestors.length >= MAX_DEPTH) return `${pointer(path)} is nested too deeply`;
    ancestors.push(v);
    try {
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) {
          path.push(i);
          const found = visit(v[i], true);
          path.pop();
          if (found !== undefined) return found;
        }
      } else {
        for (const key of Object.keys(v)) {
          path.push(key);
          const found = visit((v as Record<string, unknown>)[key], false);
          path.pop();
          if (found !== undefined) return found;
        }
      }
      return undefined;
    } finally {
      ancestors.pop();
    }
  };
  return visit(value, false);
}
