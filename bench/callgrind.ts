/**
 * Running Node under callgrind and reading its dumps, for the instruction counts of
 * `npm run bench` (`http-instructions.ts`, `client-instructions.ts`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * V8 flags that make a count independent of timing: no background compilation or GC
 * threads, heap growth by allocation only (see http-instructions.ts's module note).
 */
export const DETERMINISTIC_FLAGS: readonly string[] = ['--single-threaded', '--predictable-gc-schedule'];

/**
 * The command line that runs this Node under callgrind with {@link DETERMINISTIC_FLAGS},
 * its dumps written to `dir` as `cg.<pid>.<n>`: append a script and its arguments.
 */
export function callgrindNode(dir: string): string[] {
  return ['valgrind', '--tool=callgrind', '--smc-check=all-non-file', `--callgrind-out-file=${join(dir, 'cg.%p')}`, process.execPath, ...DETERMINISTIC_FLAGS];
}

/** Runs `count` on every job, `parallel` at a time; resolves once all are done. */
export async function inParallel<J>(jobs: readonly J[], parallel: number, count: (job: J) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < jobs.length) await count(jobs[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(parallel, jobs.length) }, worker));
}

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
