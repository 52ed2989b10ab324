/**
 * fast-check helpers shared by the decoder property tests: an input together with arbitrary
 * places to cut it into chunks, the way a socket or pipe may deliver it.
 */
import fc from 'fast-check';

/** Cuts `input` at the given offsets (taken modulo its length, sorted, deduplicated). */
export function cut<T extends string | Uint8Array>(input: T, offsets: readonly number[]): T[] {
  const n = input.length;
  const points = [...new Set(offsets.map((o) => (n === 0 ? 0 : o % (n + 1))))].sort((a, b) => a - b);
  const chunks: T[] = [];
  let prev = 0;
  for (const p of [...points, n]) {
    if (p < prev) continue;
    chunks.push(input.slice(prev, p) as T);
    prev = p;
  }
  return chunks;
}

/** Up to `max` cut offsets. */
export const offsets = (max = 12): fc.Arbitrary<number[]> => fc.array(fc.nat(), { maxLength: max });

/** Runs a property with a modest, fixed run count (seconds, not minutes). */
export function check<Ts extends [unknown, ...unknown[]]>(property: fc.IProperty<Ts>, numRuns = 200): void {
  fc.assert(property, { numRuns });
}
