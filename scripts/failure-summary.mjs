// A test reporter that lists the failed tests once more after the run: file, the suites
// around the test, and the error's first lines. `npm test` writes it to a file and prints
// it last, so a CI log that keeps only its tail still names what failed.
import { relative } from 'node:path';

/** @param {AsyncIterable<{ type: string, data: any }>} source */
export default async function* failureSummary(source) {
  /** the names of the tests running at each depth, per file */
  const path = new Map();
  const failed = [];
  for await (const { type, data } of source) {
    if (type === 'test:start') {
      const names = path.get(data.file) ?? [];
      names.length = data.nesting;
      names.push(data.name);
      path.set(data.file, names);
    } else if (type === 'test:fail') {
      const error = data.details?.error;
      // a suite fails when one of its tests does: that test is listed already
      if (error?.failureType === 'subtestsFailed') continue;
      const names = (path.get(data.file) ?? []).slice(0, data.nesting);
      const cause = error?.cause ?? error;
      const message = String(cause?.message ?? cause ?? 'failed')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .slice(0, 8)
        .join('\n    ');
      const where = data.file === undefined ? '(no file)' : relative(process.cwd(), data.file);
      failed.push(`not ok: ${where} › ${[...names, data.name].join(' › ')}\n    ${message}`);
    }
  }
  if (failed.length > 0) yield `# ${failed.length} failed test(s):\n${failed.join('\n')}\n`;
}
