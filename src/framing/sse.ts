/**
 * Server-Sent Events framing (WHATWG HTML › Server-sent events › Parsing an event stream),
 * as Streamable HTTP and the legacy HTTP+SSE transport use it.
 *
 * The parser is incremental: feed it decoded text or bytes in any chunking (CRLF, CR or LF
 * line ends, a CRLF split across chunks, multi-byte UTF-8 split across chunks). It keeps
 * `lastEventId` and the last `retry` value the way a browser's EventSource does. An event
 * bigger than `maxEventChars` is dropped and reported, and the buffered data never grows past
 * that bound. Work is linear in the input however it is chunked (see {@link SseParser}).
 * Runtime-neutral: no `node:*` imports.
 */
import { LocalError } from '../jsonrpc/errors.js';
import { EnvelopeScanner, type EnvelopeSummary } from './envelope-scan.js';
import { Utf8Chunks } from './utf8-chunks.js';

/** One dispatched event. `data` has its lines joined with LF. */
export interface SseEvent {
  /** The `event` field; `message` when absent. */
  event: string;
  data: string;
  /** The last event id in force when the event was dispatched ('' when none). */
  id: string;
}

/** Where an {@link SseParser} delivers its output. */
export interface SseSink {
  event(event: SseEvent): void;
  /** A `retry` field with a valid number of milliseconds. */
  retry?(ms: number): void;
  /**
   * An event exceeded the size limit and was dropped. `envelope`: what a scan of its data
   * found (kind and id of the JSON-RPC message), so a dropped response can fail its request
   * at once. The scan reads the event's data lines joined with LF, as a kept event's data
   * would be, without keeping them: it goes on through the data lines after the limit was
   * crossed, so a message split over several `data:` lines is recognised like one on a
   * single line. Called once per dropped event, as soon as the scan knows the message's kind
   * and id, or when the event (or the stream) ends.
   */
  oversized?(error: LocalError, envelope: EnvelopeSummary): void;
}

/** Default bound of one event's data: 4 Mi characters. */
export const DEFAULT_MAX_EVENT_CHARS = 4 * 1024 * 1024;

/** A line may be this much longer than `maxEventChars`: room for a field name, colon and space. */
const LINE_SLACK = 8;

/**
 * Incremental SSE parser. Feed it chunks with {@link push} in arrival order; it calls the
 * sink synchronously for each complete event. Never throws on any input (a sink that throws
 * propagates out of `push`).
 *
 * Linear time: each chunk is searched for line breaks once (from where the last search
 * stopped), and an incomplete line is kept as a list of the chunks' pieces, joined once when
 * its line break arrives. Memory: the pieces never hold more than `maxEventChars` + 8
 * characters (room for the field name); a line that grows past that, whether it arrives
 * whole or in pieces, is dropped (with its event) and the rest of it is skipped up to the
 * next line break without being kept.
 */
export class SseParser {
  readonly #sink: SseSink;
  readonly #max: number;
  readonly #maxLine: number;
  readonly #utf8 = new Utf8Chunks();
  /** Pieces of the incomplete line, in order. */
  #parts: string[] = [];
  #partsChars = 0;
  /** True while skipping the rest of a line that outgrew the bound. */
  #skippingLine = false;
  /** The scan of the event being skipped (see {@link #startScan}); whether the skipped line is a `data` line. */
  #skipScan: EnvelopeScanner | undefined = undefined;
  #skipIsData = false;
  /** The scan of the dropped event (`#tooBig`), fed its later data lines until the drop is reported. */
  #dropScan: EnvelopeScanner | undefined = undefined;
  #data = '';
  #hasData = false;
  #eventType = '';
  #lastEventId = '';
  #tooBig = false;
  #bomChecked = false;
  #skipLf = false;

  /**
   * `maxEventChars` bounds one event's data (its data lines joined), in UTF-16 code units
   * (default {@link DEFAULT_MAX_EVENT_CHARS}), and any one line to 8 more than that; an
   * event that crosses either is dropped and reported to `sink.oversized`. Throws
   * `RangeError` unless it is a positive integer.
   */
  constructor(sink: SseSink, options: { maxEventChars?: number } = {}) {
    const max = options.maxEventChars ?? DEFAULT_MAX_EVENT_CHARS;
    if (!Number.isSafeInteger(max) || max < 1) throw new RangeError(`maxEventChars must be a positive integer, got ${max}`);
    this.#sink = sink;
    this.#max = max;
    this.#maxLine = max + LINE_SLACK;
  }

  /** The id of the last event seen (`Last-Event-ID` for a reconnection). */
  get lastEventId(): string {
    return this.#lastEventId;
  }

  /** Characters of the incomplete line currently held (never more than `maxEventChars` + 8). */
  get bufferedChars(): number {
    return this.#partsChars;
  }

  /** Feeds a chunk of the stream: bytes (UTF-8, split anywhere) or already-decoded text. */
  push(chunk: Uint8Array | string): void {
    let text = typeof chunk === 'string' ? chunk : this.#utf8.decode(chunk);
    if (!this.#bomChecked && text.length > 0) {
      this.#bomChecked = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (this.#skipLf && text.length > 0) {
      this.#skipLf = false;
      if (text.charCodeAt(0) === 10) text = text.slice(1);
    }
    const n = text.length;
    // The next LF and CR at or after `start`; each is searched for again only once passed,
    // so the chunk is scanned once whatever mix of line ends it holds.
    let lf = text.indexOf('\n');
    let cr = text.indexOf('\r');
    let start = 0;
    while (lf !== -1 || cr !== -1) {
      let end: number;
      let next: number;
      if (cr === -1 || (lf !== -1 && lf < cr)) {
        end = lf;
        next = lf + 1;
      } else {
        end = cr;
        next = cr + 1;
        if (next < n) {
          if (text.charCodeAt(next) === 10) next++;
        } else this.#skipLf = true;
      }
      this.#endLine(text, start, end);
      start = next;
      if (lf !== -1 && lf < start) lf = text.indexOf('\n', start);
      if (cr !== -1 && cr < start) cr = text.indexOf('\r', start);
    }
    if (start < n) this.#hold(text, start, n);
  }

  /** Ends the stream: an incomplete event is discarded (as the standard requires). */
  end(): void {
    const tail = this.#utf8.flush();
    if (tail.length > 0) this.push(tail);
    this.#dropHeld();
    if (this.#skippingLine) this.#endSkip('', 0, 0);
    this.#skippingLine = false;
    this.#report(true);
    this.#data = '';
    this.#hasData = false;
    this.#eventType = '';
    this.#tooBig = false;
  }

  #dropHeld(): void {
    this.#parts = [];
    this.#partsChars = 0;
  }

  /** Keeps `text[start, end)` as part of the incomplete line, within the bound. */
  #hold(text: string, start: number, end: number): void {
    if (this.#skippingLine) {
      this.#skipScan?.pushText(text, start, end);
      return;
    }
    const chars = this.#partsChars + (end - start);
    if (chars > this.#maxLine) {
      // An unterminated line longer than any allowed event: drop it and its event; the rest
      // of the line is scanned as it is skipped, and the drop reported when the line ends.
      this.#skipScan = this.#startScan(this.#parts.join('') + text.slice(start, end));
      this.#dropHeld();
      this.#skippingLine = true;
      return;
    }
    this.#parts.push(start === 0 && end === text.length ? text : text.slice(start, end));
    this.#partsChars = chars;
  }

  /** A line break at `text[end]` completes the line held so far plus `text[start, end)`. */
  #endLine(text: string, start: number, end: number): void {
    if (this.#skippingLine) {
      this.#skippingLine = false;
      this.#endSkip(text, start, end);
      return;
    }
    if (this.#partsChars + (end - start) > this.#maxLine) {
      // The same rule as for a line still arriving, so chunking cannot change the outcome.
      const scanner = this.#startScan(this.#parts.join('') + text.slice(start, end));
      this.#dropHeld();
      this.#overflow(scanner);
      return;
    }
    let line = text.slice(start, end);
    if (this.#partsChars !== 0) {
      this.#parts.push(line);
      line = this.#parts.join('');
      this.#dropHeld();
    }
    this.#line(line);
  }

  /**
   * A scan of the dropped event's data: the data lines so far, then `line` (the line that
   * overflowed, so far) when it is a `data` line; the rest of a skipped line is pushed as it
   * arrives. For an event already dropped, the scan it has (if its drop is not reported yet)
   * goes on with `line`. Constant memory (the scanner keeps no text).
   */
  #startScan(line: string): EnvelopeScanner | undefined {
    this.#skipIsData = line.startsWith('data:');
    let scanner: EnvelopeScanner | undefined;
    if (this.#tooBig) {
      scanner = this.#dropScan;
      if (scanner !== undefined && this.#skipIsData) scanner.pushText('\n');
    } else {
      scanner = new EnvelopeScanner();
      if (this.#hasData) scanner.pushText(this.#data + '\n');
    }
    if (scanner !== undefined && this.#skipIsData) scanner.pushText(line, line.charCodeAt(5) === 32 ? 6 : 5);
    return scanner;
  }

  /** The skipped line ended (with `text[start, end)`, or at the end of the stream): the scan takes the rest of it. */
  #endSkip(text: string, start: number, end: number): void {
    const scanner = this.#skipScan;
    this.#skipScan = undefined;
    if (scanner !== undefined && this.#skipIsData) scanner.pushText(text, start, end);
    this.#overflow(scanner);
  }

  /** The event is dropped (its data so far let go); `scanner` scans it, and the drop is reported once the scan knows enough. */
  #overflow(scanner: EnvelopeScanner | undefined): void {
    if (!this.#tooBig) {
      this.#tooBig = true;
      this.#dropScan = scanner;
    }
    this.#data = '';
    this.#hasData = false;
    this.#report(false);
  }

  /** Reports the dropped event to `sink.oversized` once its scan is done, or now (`final`: the event or the stream ended). */
  #report(final: boolean): void {
    const scanner = this.#dropScan;
    if (scanner === undefined || (!final && !scanner.done)) return;
    this.#dropScan = undefined;
    this.#sink.oversized?.(new LocalError('message_too_large', `An SSE event exceeded ${this.#max} characters and was dropped`), scanner.summary());
  }

  #line(line: string): void {
    if (line.length === 0) {
      this.#dispatch();
      return;
    }
    if (line.charCodeAt(0) === 58 /* : */) return; // comment
    const colon = line.indexOf(':');
    let field: string;
    let value: string;
    if (colon < 0) {
      field = line;
      value = '';
    } else {
      field = line.slice(0, colon);
      value = line.charCodeAt(colon + 1) === 32 ? line.slice(colon + 2) : line.slice(colon + 1);
    }
    switch (field) {
      case 'data':
        if (this.#tooBig) {
          const scanner = this.#dropScan;
          if (scanner !== undefined) {
            scanner.pushText('\n');
            scanner.pushText(value);
            this.#report(false);
          }
          return;
        }
        if (this.#data.length + value.length + (this.#hasData ? 1 : 0) > this.#max) {
          this.#overflow(this.#startScan('data: ' + value));
          return;
        }
        this.#data = this.#hasData ? this.#data + '\n' + value : value;
        this.#hasData = true;
        return;
      case 'event':
        this.#eventType = value;
        return;
      case 'id':
        if (value.indexOf('\u0000') < 0) this.#lastEventId = value;
        return;
      case 'retry':
        if (/^[0-9]+$/.test(value)) this.#sink.retry?.(parseInt(value, 10));
        return;
      default:
        return;
    }
  }

  #dispatch(): void {
    const hadData = this.#hasData;
    const data = this.#data;
    const type = this.#eventType;
    this.#data = '';
    this.#hasData = false;
    this.#eventType = '';
    if (this.#tooBig) {
      this.#report(true);
      this.#tooBig = false;
      return;
    }
    if (!hadData) return;
    this.#sink.event({ event: type === '' ? 'message' : type, data, id: this.#lastEventId });
  }
}

/** Fields of an event to encode. */
export interface SseEventInit {
  id?: string;
  event?: string;
  /** May contain LF; each line becomes a `data:` line. */
  data?: string;
  retry?: number;
}

/**
 * Encodes one event. Throws TypeError for an id or event name containing a line break
 * (which would smuggle fields) or a negative/non-integer retry.
 */
export function encodeSseEvent(init: SseEventInit): string {
  let out = '';
  if (init.id !== undefined) {
    if (/[\r\n\u0000]/.test(init.id)) throw new TypeError('An SSE event id cannot contain CR, LF or NUL');
    out += `id: ${init.id}\n`;
  }
  if (init.event !== undefined) {
    if (/[\r\n]/.test(init.event)) throw new TypeError('An SSE event name cannot contain CR or LF');
    out += `event: ${init.event}\n`;
  }
  if (init.retry !== undefined) {
    if (!Number.isInteger(init.retry) || init.retry < 0) throw new TypeError('retry must be a non-negative integer');
    out += `retry: ${init.retry}\n`;
  }
  if (init.data !== undefined) {
    const data = init.data;
    if (data.indexOf('\n') < 0 && data.indexOf('\r') < 0) out += `data: ${data}\n`;
    else for (const line of data.split(/\r\n|\r|\n/)) out += `data: ${line}\n`;
  }
  return out + '\n';
}

/**
 * `id: <id>\ndata: <data>\n\n`, or without the id line when `id` is undefined: the event
 * {@link encodeSseEvent} makes of the same fields, without its checks. Only for a caller that
 * knows `id` holds no CR, LF or NUL and `data` no CR or LF, such as JSON text from
 * `JSON.stringify` (which escapes both) under an id it made itself.
 */
export function encodeUncheckedSseEvent(id: string | undefined, data: string): string {
  return id === undefined ? 'data: ' + data + '\n\n' : 'id: ' + id + '\ndata: ' + data + '\n\n';
}

/**
 * `text` with every CR and LF replaced by a space. For JSON text this changes nothing but
 * whitespace (a JSON string cannot hold a raw line break), and the result can go through
 * {@link encodeUncheckedSseEvent} as one `data:` line.
 */
export function oneLineJson(text: string): string {
  return text.indexOf('\n') < 0 && text.indexOf('\r') < 0 ? text : text.replace(/[\r\n]/g, ' ');
}
