/**
 * The figures and table of the gateway section (`bench/gateway.ts`). Pure functions, no I/O.
 *
 * Each row (one way of calling the upstream: direct, through a bare relay (the floor of a
 * second hop), through mcpkit, through a third-party proxy) has, per repetition, the p50
 * latency at 1 in flight, the calls/s at 1 and at 32 in flight, and the CPU per call at 1 in
 * flight of the process in the middle. Ratios against `direct` are medians of per-repetition
 * ratios (both measured in the same repetition); so are the ratios against the bare relay and the milliseconds added to
 * direct's p50. Rows are grouped by upstream and by the tool they call (`tool`: unset for the
 * echo, else a label such as `slow 1 ms`); ratios compare rows of one group. The comparison
 * with the third-party proxies takes the best of them (the highest median calls/s at 32 in
 * flight), echo rows only.
 */
import { atLeast, atMost, type Target } from './report.js';
import { formatNumber, formatRatio, formatTable, median, medianDifference, medianRatio } from './stats.js';

/** Who a row is (`floor`: the bare relay, a second hop with no MCP logic). */
export type RowKind = 'direct' | 'floor' | 'mcpkit' | 'third-party';

/** One row's measurements, indexed by repetition (null: that repetition failed). */
export interface RowSamples {
  readonly upstream: 'stdio' | 'http';
  readonly name: string;
  readonly kind: RowKind;
  /** The tool called when it is not the echo (a label, e.g. `slow 1 ms`); rows compare within one tool. */
  readonly tool?: string;
  /** Why the row was not measured (then every array is empty). */
  readonly unavailable?: string;
  readonly p50Ms1: (number | null)[];
  readonly callsPerSec1: (number | null)[];
  readonly callsPerSec32: (number | null)[];
  /** CPU time of the intermediary process per call at 1 in flight, in µs (absent or empty for direct rows, or where it cannot be read). */
  readonly cpuUsPerCall1?: (number | null)[];
}

/** A row's medians and its ratios against the direct row of its upstream. */
export interface RowSummary {
  readonly upstream: 'stdio' | 'http';
  readonly name: string;
  readonly kind: RowKind;
  readonly tool?: string;
  readonly unavailable?: string;
  readonly p50Ms1: number | null;
  readonly callsPerSec1: number | null;
  readonly callsPerSec32: number | null;
  /** p50 latency at 1 in flight / direct's (1.25: 25 % added). */
  readonly latencyVsDirect: number | null;
  /** calls/s at 32 in flight / direct's. */
  readonly throughput32VsDirect: number | null;
  /** p50 latency at 1 in flight minus direct's, in ms (median of per-repetition differences). */
  readonly addedMs1: number | null;
  /** p50 latency at 1 in flight / the bare relay's, when its group has one. */
  readonly latencyVsFloor: number | null;
  /** The intermediary's CPU per call at 1 in flight, in µs (median), when measured. */
  readonly cpuUsPerCall1: number | null;
  /** That CPU / the bare relay's (median of per-repetition ratios), when its group has one. */
  readonly cpuVsFloor: number | null;
}

/** The value at quantile `q` (0..1) of `values` (nearest rank), or null when empty. Does not modify the input. */
export function quantile(values: readonly number[], q: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank]!;
}

/** The row of `kind` in `row`'s group (same upstream, same tool). */
function peer<T extends { upstream: string; kind: RowKind; tool?: string }>(rows: readonly T[], row: T, kind: RowKind): T | undefined {
  return rows.find((r) => r.upstream === row.upstream && r.tool === row.tool && r.kind === kind);
}

/** Medians and ratios of every row (a row without a direct row, or a bare relay, in its group has null ratios against it). */
export function summarizeRows(rows: readonly RowSamples[]): RowSummary[] {
  return rows.map((row) => {
    const direct = peer(rows, row, 'direct');
    const floor = peer(rows, row, 'floor');
    return {
      upstream: row.upstream,
      name: row.name,
      kind: row.kind,
      ...(row.tool === undefined ? {} : { tool: row.tool }),
      ...(row.unavailable === undefined ? {} : { unavailable: row.unavailable }),
      p50Ms1: median(row.p50Ms1),
      callsPerSec1: median(row.callsPerSec1),
      callsPerSec32: median(row.callsPerSec32),
      latencyVsDirect: direct === undefined ? null : medianRatio(row.p50Ms1, direct.p50Ms1),
      throughput32VsDirect: direct === undefined ? null : medianRatio(row.callsPerSec32, direct.callsPerSec32),
      addedMs1: direct === undefined ? null : medianDifference(row.p50Ms1, direct.p50Ms1),
      latencyVsFloor: floor === undefined ? null : medianRatio(row.p50Ms1, floor.p50Ms1),
      cpuUsPerCall1: median(row.cpuUsPerCall1 ?? []),
      cpuVsFloor: floor === undefined ? null : medianRatio(row.cpuUsPerCall1 ?? [], floor.cpuUsPerCall1 ?? []),
    };
  });
}

/** The third-party echo row of `upstream` with the highest median calls/s at 32 in flight, if any was measured. */
export function bestThirdParty(summaries: readonly RowSummary[], upstream: 'stdio' | 'http'): RowSummary | undefined {
  let best: RowSummary | undefined;
  for (const s of summaries) {
    if (s.upstream !== upstream || s.tool !== undefined || s.kind !== 'third-party' || s.callsPerSec32 === null) continue;
    if (best === undefined || s.callsPerSec32 > best.callsPerSec32!) best = s;
  }
  return best;
}

/**
 * The issue's targets: the mcpkit row named `mcpkitRow` (the gateway, or the proxy while there
 * is no gateway) adds at most 30 % to direct's p50 latency at 1 in flight over HTTP, and at 32
 * in flight does at least 3× the calls/s of the best third-party proxy, per upstream.
 */
export function gatewayTargets(summaries: readonly RowSummary[], mcpkitRow: string): Target[] {
  const row = (upstream: 'stdio' | 'http') => summaries.find((s) => s.upstream === upstream && s.tool === undefined && s.name === mcpkitRow);
  const http = row('http');
  const targets: Target[] = [atMost(`${mcpkitRow}: p50 latency at 1 in flight over HTTP ≤ 1.30× direct (≤ 30 % added)`, http?.latencyVsDirect ?? null, 1.3)];
  for (const upstream of ['stdio', 'http'] as const) {
    const mine = row(upstream);
    const best = bestThirdParty(summaries, upstream);
    const ratio = mine?.callsPerSec32 != null && best?.callsPerSec32 != null ? mine.callsPerSec32 / best.callsPerSec32 : null;
    targets.push(
      atLeast(`${mcpkitRow}: calls/s at 32 in flight, ${upstream} upstream ≥ 3× the best third-party proxy (${best?.name ?? 'none measured'})`, ratio, 3),
    );
  }
  return targets;
}

/**
 * The latency target restated where the upstream tool does work (each HTTP group with a
 * `tool`: the `mcpkitRow` row adds at most 30 % to direct's p50 at 1 in flight), and, as
 * notes, how the `mcpkitRow` row's added latency compares with the bare relay's (the floor
 * of a second hop) in each HTTP group that has one.
 */
export function latencyFigures(summaries: readonly RowSummary[], mcpkitRow: string): { targets: Target[]; notes: string[] } {
  const targets: Target[] = [];
  const notes: string[] = [];
  for (const mine of summaries) {
    if (mine.upstream !== 'http' || mine.name !== mcpkitRow) continue;
    const group = mine.tool === undefined ? 'HTTP upstream, echo' : `HTTP upstream, ${mine.tool}`;
    if (mine.tool !== undefined) targets.push(atMost(`${mcpkitRow}: p50 latency at 1 in flight (${group}) ≤ 1.30× direct`, mine.latencyVsDirect, 1.3));
    const floor = peer(summaries, mine, 'floor');
    if (floor === undefined || mine.unavailable !== undefined || floor.unavailable !== undefined) continue;
    notes.push(
      `  ${group}: ${mcpkitRow} adds ${formatNumber(mine.addedMs1, 3)} ms to direct's p50 (${formatRatio(mine.latencyVsDirect)}); ` +
        `the bare relay adds ${formatNumber(floor.addedMs1, 3)} ms (${formatRatio(floor.latencyVsDirect)}); ${mcpkitRow} ÷ bare relay ${formatRatio(mine.latencyVsFloor)}; ` +
        `CPU per call of the middle process ${formatNumber(mine.cpuUsPerCall1, 0)} µs against the relay's ${formatNumber(floor.cpuUsPerCall1, 0)} µs (${formatRatio(mine.cpuVsFloor)})`,
    );
  }
  return { targets, notes };
}

/** The section's table: one line per row, upstream by upstream; rows not measured are marked and explained under it. */
export function formatGatewayTable(summaries: readonly RowSummary[]): string {
  const notes: string[] = [];
  const table: string[][] = [
    [
      'upstream / path',
      'p50 ms @1',
      'calls/s @1',
      'calls/s @32',
      'latency @1 vs direct',
      'calls/s @32 vs direct',
      'calls/s @32 vs best 3rd party',
      'ms added @1',
      'latency @1 vs bare relay',
      'CPU µs/call @1 (middle process)',
      'CPU @1 vs bare relay',
    ],
  ];
  for (const s of summaries) {
    const label = `${s.upstream}${s.tool === undefined ? '' : ` (${s.tool})`}: ${s.name}`;
    if (s.unavailable !== undefined) {
      notes.push(`(${notes.length + 1}) ${label}: not measured: ${s.unavailable}`);
      table.push([label, `n/a (${notes.length})`]);
      continue;
    }
    const best = bestThirdParty(summaries, s.upstream);
    const vsBest = s.callsPerSec32 !== null && best?.callsPerSec32 != null ? s.callsPerSec32 / best.callsPerSec32 : null;
    table.push([
      label,
      formatNumber(s.p50Ms1, 3),
      formatNumber(s.callsPerSec1, 0),
      formatNumber(s.callsPerSec32, 0),
      s.kind === 'direct' ? '' : formatRatio(s.latencyVsDirect),
      s.kind === 'direct' ? '' : formatRatio(s.throughput32VsDirect),
      s.tool === undefined ? formatRatio(vsBest) : '',
      s.kind === 'direct' ? '' : formatNumber(s.addedMs1, 3),
      s.kind === 'direct' || s.kind === 'floor' ? '' : formatRatio(s.latencyVsFloor),
      s.kind === 'direct' ? '' : formatNumber(s.cpuUsPerCall1, 0),
      s.kind === 'direct' || s.kind === 'floor' ? '' : formatRatio(s.cpuVsFloor),
    ]);
  }
  return [formatTable(table), ...notes].join('\n');
}
