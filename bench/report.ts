/**
 * What the benchmark sections report, shared by them: a metric's medians and ratios across
 * servers ({@link summarize}), and the targets checked against them ({@link atLeast},
 * {@link atMost}, {@link showTarget}).
 */
import { formatNumber, formatRatio, median, medianRatio } from './stats.js';

/** The message of a caught value, for a problem line. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The comparisons of the sections that bench the bare ceiling, both official SDKs and mcpkit
 * side by side (payload, cold start): [numerator, denominator].
 */
export const SDK_RATIO_PAIRS: readonly (readonly [string, string])[] = [
  ['mcpkit', 'bare'],
  ['official', 'bare'],
  ['official-v2', 'bare'],
  ['mcpkit', 'official'],
  ['mcpkit', 'official-v2'],
];

/** One metric of a section: its median per server and its median per-repetition ratios between servers. */
export interface MetricSummary {
  label: string;
  unit: string;
  lowerIsBetter: boolean;
  median: Record<string, number | null>;
  ratios: Record<string, number | null>;
}

/**
 * Summarizes `values` (one entry per repetition, null for a missing one) of every state:
 * medians by state name, and for each `[a, b]` of `pairs` present in `states` the median
 * of the per-repetition ratios a/b, keyed `a/b`.
 */
export function summarize<S extends { readonly name: string }>(
  states: readonly S[],
  pairs: readonly (readonly [string, string])[],
  label: string,
  unit: string,
  lowerIsBetter: boolean,
  values: (s: S) => readonly (number | null)[],
): MetricSummary {
  const byName = new Map(states.map((s) => [s.name, values(s)] as const));
  const med: Record<string, number | null> = {};
  for (const [name, v] of byName) med[name] = median(v);
  const ratios: Record<string, number | null> = {};
  for (const [a, b] of pairs) {
    const va = byName.get(a);
    const vb = byName.get(b);
    if (va !== undefined && vb !== undefined) ratios[`${a}/${b}`] = medianRatio(va, vb);
  }
  return { label, unit, lowerIsBetter, median: med, ratios };
}

/** A target (an issue's) or a goal (notes/performance.md) and whether a run met it; `met` is null when not measured. */
export interface Target {
  description: string;
  measured: number | null;
  unit: '×' | 'KB' | 'MB';
  threshold: number;
  met: boolean | null;
}

/** A target met when `measured` ≥ `threshold`. */
export function atLeast(description: string, measured: number | null, threshold: number, unit: Target['unit'] = '×'): Target {
  return { description, measured, unit, threshold, met: measured === null ? null : measured >= threshold };
}

/** A target met when `measured` ≤ `threshold`. */
export function atMost(description: string, measured: number | null, threshold: number, unit: Target['unit'] = '×'): Target {
  return { description, measured, unit, threshold, met: measured === null ? null : measured <= threshold };
}

/** One line of a section's target list: verdict, description, measured value. */
export function showTarget(t: Target): string {
  const verdict = t.met === null ? '[n/a    ]' : t.met ? '[met    ]' : '[NOT MET]';
  const measured = t.measured === null ? 'n/a' : t.unit === '×' ? formatRatio(t.measured) : `${formatNumber(t.measured, 2)} ${t.unit}`;
  return `  ${verdict} ${t.description}  (measured ${measured})`;
}
