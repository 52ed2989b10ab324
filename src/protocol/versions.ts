/**
 * Protocol revisions this implementation speaks, and version negotiation (2025 era).
 * Spec: 2025-03-26 "Lifecycle › Version Negotiation".
 */

export const V2024_11_05 = '2024-11-05';
export const V2025_03_26 = '2025-03-26';
export const V2025_06_18 = '2025-06-18';
export const V2025_11_25 = '2025-11-25';

/** Stateful-era revisions, oldest first. */
export const STATEFUL_REVISIONS = [V2024_11_05, V2025_03_26, V2025_06_18, V2025_11_25] as const;
export type StatefulRevision = (typeof STATEFUL_REVISIONS)[number];

/** The newest stateful revision: what clients propose and servers fall back to. */
export const LATEST_REVISION: StatefulRevision = V2025_11_25;

/** True when `version` is a revision this implementation speaks in the stateful era. */
export function isSupportedRevision(version: unknown): version is StatefulRevision {
  return typeof version === 'string' && (STATEFUL_REVISIONS as readonly string[]).includes(version);
}

/**
 * The server's answer to a client's proposed version: the same version when supported,
 * otherwise the newest one the server speaks (from `supported`, newest last).
 */
export function negotiateRevision(requested: unknown, supported: readonly string[] = STATEFUL_REVISIONS): string {
  if (typeof requested === 'string' && supported.includes(requested)) return requested;
  return supported[supported.length - 1]!;
}

/** Compares revision dates: negative when a is older than b. */
export function compareRevisions(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** True when `revision` is `since` or newer. */
export function atLeast(revision: string | undefined, since: string): boolean {
  return revision !== undefined && revision >= since;
}
