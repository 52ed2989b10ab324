/**
 * Showing long work on stderr: progress notifications as a bar redrawn in place on a
 * terminal, or as plain lines when stderr is not a TTY (logs, CI); task status lines; and
 * log messages, which clear the bar first so the two never interleave on one line.
 */
import { clean } from './terminal.js';

/** Width of the bar itself, in cells. */
const BAR_CELLS = 30;

/** A progress and status display on one stream. Not shared between concurrent requests. */
export class ProgressView {
  readonly #out: NodeJS.WritableStream;
  readonly #tty: boolean;
  #drawn = false;
  #lastPlain = '';

  /** `out` is normally `process.stderr`; `tty` defaults to its `isTTY`. */
  constructor(out: NodeJS.WritableStream & { isTTY?: boolean } = process.stderr, tty = out.isTTY === true) {
    this.#out = out;
    this.#tty = tty;
  }

  /** Draws one progress notification: `progress` of `total` (when known) and the server's message. */
  progress(progress: number, total: number | undefined, message: string | undefined): void {
    const note = message === undefined ? '' : ` ${clean(message, true)}`;
    if (!this.#tty) {
      const line = `progress ${formatNumber(progress)}${total !== undefined ? `/${formatNumber(total)}` : ''}${note}`;
      if (line !== this.#lastPlain) this.#out.write(`${line}\n`);
      this.#lastPlain = line;
      return;
    }
    let bar: string;
    if (total !== undefined && total > 0) {
      const ratio = Math.min(1, Math.max(0, progress / total));
      const full = Math.round(ratio * BAR_CELLS);
      bar = `[${'#'.repeat(full)}${'-'.repeat(BAR_CELLS - full)}] ${String(Math.round(ratio * 100)).padStart(3)}%`;
    } else {
      bar = `[${'?'.repeat(3)}] ${formatNumber(progress)}`;
    }
    const columns = (this.#out as { columns?: number }).columns ?? 80;
    this.#out.write(`\r\x1b[2K${`${bar}${note}`.slice(0, Math.max(10, columns - 1))}`);
    this.#drawn = true;
  }

  /** Shows a task's status (plain line each time it changes). */
  status(line: string): void {
    this.clear();
    const text = clean(line, true);
    if (text === this.#lastPlain) return;
    this.#lastPlain = text;
    this.#out.write(`${text}\n`);
  }

  /** Writes a line of its own (a log message, a notice), clearing the bar first. */
  line(text: string): void {
    this.clear();
    this.#out.write(`${text}\n`);
  }

  /** Removes the bar from the terminal (a no-op when none is drawn). */
  clear(): void {
    if (!this.#drawn) return;
    this.#out.write('\r\x1b[2K');
    this.#drawn = false;
  }
}

function formatNumber(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(2);
}
