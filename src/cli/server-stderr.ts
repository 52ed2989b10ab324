/**
 * A stdio server's stderr on our terminal: read line by line and written through
 * {@link clean} (an escape sequence in it is shown as `\x1b`, never obeyed, like everything
 * else mcpkit prints), or discarded with `--quiet`.
 */
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { clean } from './terminal.js';

/** Longest stderr line kept whole, in characters; a longer one is written in pieces of this size. */
export const MAX_STDERR_LINE_CHARS = 16 * 1024;

/**
 * Reads `stream` to its end: each line (without its newline) goes to `write` after
 * {@link clean}; nothing when `quiet` (the stream is still drained, so the server never
 * blocks on a full pipe).
 */
export function relayStderr(stream: Readable, write: (line: string) => void, quiet: boolean): void {
  if (quiet) {
    stream.resume();
    return;
  }
  const decoder = new StringDecoder('utf8');
  let pending = '';
  const emit = (line: string) => write(clean(line.endsWith('\r') ? line.slice(0, -1) : line));
  stream.on('data', (chunk: Buffer) => {
    pending += decoder.write(chunk);
    let nl: number;
    while ((nl = pending.indexOf('\n')) >= 0) {
      emit(pending.slice(0, nl));
      pending = pending.slice(nl + 1);
    }
    while (pending.length > MAX_STDERR_LINE_CHARS) {
      emit(pending.slice(0, MAX_STDERR_LINE_CHARS));
      pending = pending.slice(MAX_STDERR_LINE_CHARS);
    }
  });
  stream.on('end', () => {
    pending += decoder.end();
    if (pending !== '') emit(pending);
    pending = '';
  });
  stream.on('error', () => {});
}
