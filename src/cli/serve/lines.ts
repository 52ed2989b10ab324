/**
 * Splitting a byte stream into lines for the stdio relay of `mcpkit dev`, with a bound on
 * how long one line may grow.
 */
import type { Readable } from 'node:stream';

/** Default for the `maxLineBytes` of {@link onLines}: 16 MiB. */
export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;

/**
 * Calls `onLine` for each newline-terminated line of `stream` (without the newline, a
 * trailing `\r` removed, empty lines skipped). A line longer than `maxLineBytes` is dropped
 * and reported through `onTooLong`; reading goes on after its newline.
 */
export function onLines(stream: Readable, onLine: (line: string) => void, onTooLong: (bytes: number) => void, maxLineBytes = DEFAULT_MAX_LINE_BYTES): void {
  let parts: Buffer[] = [];
  let size = 0;
  let skipping = false;
  stream.on('data', (chunk: Buffer) => {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, nl);
      start = nl + 1;
      if (skipping || size + piece.length > maxLineBytes) {
        if (!skipping) onTooLong(size + piece.length);
        skipping = false;
        parts = [];
        size = 0;
        continue;
      }
      parts.push(piece);
      let line = Buffer.concat(parts).toString('utf8');
      parts = [];
      size = 0;
      if (line.endsWith('\r')) line = line.slice(0, -1);
      if (line.length > 0) onLine(line);
    }
    const rest = chunk.subarray(start);
    if (skipping || rest.length === 0) return;
    if (size + rest.length > maxLineBytes) {
      onTooLong(size + rest.length);
      skipping = true;
      parts = [];
      size = 0;
      return;
    }
    parts.push(rest);
    size += rest.length;
  });
}
