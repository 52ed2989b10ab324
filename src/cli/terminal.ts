/**
 * Writing a server's words to a terminal safely: anything a server sends (names,
 * descriptions, text content, log messages) passes {@link clean} first, so escape sequences
 * in it cannot move the cursor, retitle the window or hide text.
 */

/** C0 controls except tab and newline, DEL, and the C1 controls (U+0080..U+009F, e.g. CSI). */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** `text` with control characters (ESC, CR, BEL, CSI, ...) shown as `\\xNN`; keeps tabs and newlines unless `oneLine`. */
export function clean(text: string, oneLine = false): string {
  const out = text.replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return oneLine ? out.replace(/[\t\n]+/g, ' ') : out;
}

/** The width to lay tables out in: the terminal's columns, or undefined (no truncation) when not a TTY. */
export function terminalWidth(stream: NodeJS.WriteStream = process.stdout): number | undefined {
  return stream.isTTY ? Math.max(40, stream.columns || 80) : undefined;
}

/**
 * Lays `rows` out as columns separated by two spaces, a header row first. The last column is
 * cut (with "…") to fit `width` when given; nothing is cut without it.
 */
export function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>, width?: number): string {
  const cells = [header, ...rows].map((r) => r.map((c) => clean(c, true)));
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const lines = cells.map((r) => {
    let line = '';
    for (let i = 0; i < r.length; i++) {
      const cell = r[i] ?? '';
      line += i === r.length - 1 ? cell : cell.padEnd(widths[i]! + 2);
    }
    if (width !== undefined && line.length > width) line = `${line.slice(0, width - 1)}…`;
    return line.trimEnd();
  });
  return `${lines.join('\n')}\n`;
}

/** How many names {@link listNames} shows before "and N more". */
const NAMES_SHOWN = 15;

/** `; it has: a, b, c` (at most {@link NAMES_SHOWN} names, then "and N more"), or '' for none. */
export function listNames(names: readonly string[]): string {
  if (names.length === 0) return '';
  const shown = names
    .slice(0, NAMES_SHOWN)
    .map((n) => clean(n, true))
    .join(', ');
  return `; it has: ${shown}${names.length > NAMES_SHOWN ? ` and ${names.length - NAMES_SHOWN} more` : ''}`;
}
