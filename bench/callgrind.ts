/**
 * Reading callgrind's dumps, for the instruction counts of `npm run bench`
 * (`http-instructions.ts`, `client-instructions.ts`).
 */
import { existsSync, readFileSync } from 'node:fs';

/** The total event count of a callgrind dump (`summary:` or `totals:` line). Throws when there is none. */
export function callgrindTotal(text: string): number {
  const match = /^(?:summary|totals):\s+(\d+)/m.exec(text);
  if (match === null) throw new Error('the callgrind dump has no summary line');
  return Number(match[1]);
}

/** The total of the dump file `file`; throws when callgrind wrote none or it has no total. */
export function dumpTotal(file: string): number {
  if (!existsSync(file)) throw new Error(`callgrind wrote no dump ${file}`);
  return callgrindTotal(readFileSync(file, 'latin1'));
}
