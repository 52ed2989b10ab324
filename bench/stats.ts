/**
 * Small statistics and formatting helpers for the benchmark report (`bench/run.ts`).
 * Pure functions, no I/O.
 */

/**
 * Median of the finite numbers in `values` (mean of the middle two for an even count),
 * or `null` when there are none. Does not modify the input. Never throws.
 */
export function median(values: readonly (number | null | undefined)[]): number | null {
  const xs: number[] = [];
  for (const v of values) if (typeof v === 'number' && Number.isFinite(v)) xs.push(v);
  if (xs.length === 0) return null;
  xs.sort((a, b) => a - b);
  const mid = xs.length >> 1;
  return xs.length % 2 === 1 ? xs[mid]! : (xs[mid - 1]! + xs[mid]!) / 2;
}

/**
 * Median of the pairwise ratios `a[i] / b[i]`, using only the positions where both are
 * finite and `b[i]` is non-zero (one repetition measured both). `null` when no pair
 * qualifies. The arrays are indexed by repetition; lengths may differ. Never throws.
 */
export function medianRatio(a: readonly (number | null | undefined)[], b: readonly (number | null | undefined)[]): number | null {
  return medianOfPairs(a, b, (x, y) => (y === 0 ? undefined : x / y));
}

/** Median of the pairwise differences `a[i] - b[i]` where both are finite numbers; null when none. */
export function medianDifference(a: readonly (number | null | undefined)[], b: readonly (number | null | undefined)[]): number | null {
  return medianOfPairs(a, b, (x, y) => x - y);
}

/** Median of `combine(a[i], b[i])` over the indices where both are finite numbers and `combine` gives a value. */
function medianOfPairs(
  a: readonly (number | null | undefined)[],
  b: readonly (number | null | undefined)[],
  combine: (x: number, y: number) => number | undefined,
): number | null {
  const values: number[] = [];
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i];
    const y = b[i];
    if (typeof x !== 'number' || typeof y !== 'number' || !Number.isFinite(x) || !Number.isFinite(y)) continue;
    const value = combine(x, y);
    if (value !== undefined) values.push(value);
  }
  return median(values);
}

/**
 * Formats a number for the report table: `—` for `null`, thousands separators for
 * values ≥ 1000, otherwise `digits` fraction digits. Never throws.
 */
export function formatNumber(value: number | null, digits = 1): string {
  if (value === null || !Number.isFinite(value)) return '—';
  if (Math.abs(value) >= 1000) return Math.round(value).toLocaleString('en-US');
  return value.toFixed(digits);
}

/** Formats a ratio as `1.23×`, or `—` for `null`. Never throws. */
export function formatRatio(value: number | null): string {
  return value === null || !Number.isFinite(value) ? '—' : `${value.toFixed(2)}×`;
}

/**
 * Lays out rows of cells as a plain-text table: the first column left-aligned, the
 * others right-aligned, columns separated by two spaces, a rule under the header row.
 * `rows[0]` is the header. Never throws; short rows are padded with empty cells.
 */
export function formatTable(rows: readonly (readonly string[])[]): string {
  const cols = rows.reduce((n, r) => Math.max(n, r.length), 0);
  const widths = new Array<number>(cols).fill(0);
  for (const r of rows) for (let c = 0; c < cols; c++) widths[c] = Math.max(widths[c]!, (r[c] ?? '').length);
  const line = (r: readonly string[]): string =>
    widths
      .map((w, c) => (c === 0 ? (r[c] ?? '').padEnd(w) : (r[c] ?? '').padStart(w)))
      .join('  ')
      .trimEnd();
  const out: string[] = [];
  rows.forEach((r, i) => {
    out.push(line(r));
    if (i === 0) out.push(widths.map((w) => '-'.repeat(w)).join('  '));
  });
  return out.join('\n');
}
