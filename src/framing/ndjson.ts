/**
 * Newline-delimited JSON framing, the wire format of the stdio transport: one JSON-RPC
 * message (or batch) per line, UTF-8, lines ended by LF or CRLF.
 *
 * Design note: the decoder works on whole chunks, not bytes. A byte chunk is decoded in one
 * call ({@link Utf8Chunks}: a multi-byte sequence split across chunks is carried over to the
 * next one, and the text is what a streaming `TextDecoder` would give), and lines are cut
 * from the decoded text with `indexOf('\n')`; each line costs one `slice` and nothing else.
 * Splitting on LF is safe before or after decoding because 0x0A never occurs inside a
 * multi-byte UTF-8 sequence.
 *
 * Line sizes are counted in raw bytes. The incomplete tail of the stream is the only thing
 * held between chunks, and it is never allowed to grow past the limit: once it does, it is
 * dropped, reported, and the decoder skips raw bytes (without decoding them) until the next
 * LF. Memory is therefore bounded by `maxLineBytes` plus one chunk, whatever the peer sends.
 *
 * A sink that wants to answer an oversized line (say, with an error naming the request's id)
 * provides `oversizedEnd`: the decoder then runs an {@link EnvelopeScanner} over the whole
 * discarded line, the held part and the skipped part alike, in constant memory, and hands
 * over what it found when the line ends.
 *
 * Runtime-neutral: no `node:*` imports, only `TextDecoder` and `Uint8Array`.
 */

import { LocalError } from '../jsonrpc/errors.js';
import { serializeMessage } from '../jsonrpc/preset-json.js';
import { EnvelopeScanner, type EnvelopeSummary } from './envelope-scan.js';
import { Utf8Chunks } from './utf8-chunks.js';

/** The default `maxLineBytes`: 4 MiB. */
export const DEFAULT_MAX_LINE_BYTES = 4 * 1024 * 1024;

/**
 * An incoming line exceeded the byte limit and was discarded. A {@link LocalError} with code
 * `message_too_large`, so transports can hand it to `receiver.error` unchanged.
 */
export class OversizedLineError extends LocalError {
  /** The limit in force, in bytes. */
  readonly limit: number;
  /**
   * Bytes of the line received before it was discarded. Exact when the whole line arrived
   * before the limit was noticed, otherwise a lower bound (the rest is skipped unread).
   */
  readonly bytes: number;
  constructor(bytes: number, limit: number) {
    super('message_too_large', `Incoming line exceeds the ${limit}-byte limit (${bytes} bytes received); discarded`);
    this.name = 'OversizedLineError';
    this.limit = limit;
    this.bytes = bytes;
  }
}

/** Where an {@link NdjsonDecoder} delivers its output. Both methods are called synchronously from `push`/`end`. */
export interface NdjsonSink {
  /** One complete, non-blank line, without its terminator. */
  line(text: string): void;
  /** A line was too long and has been (or is being) skipped; the lines after it still arrive. */
  oversized(error: OversizedLineError): void;
  /**
   * Optional. Called once per oversized line, after `oversized`, when the line has ended
   * (its LF arrived, or the stream ended), with what a scan of its top-level JSON-RPC members
   * found. Before the next line is delivered.
   */
  oversizedEnd?(envelope: EnvelopeSummary): void;
}

/** Options of {@link NdjsonDecoder}. */
export interface NdjsonDecoderOptions {
  /** Largest accepted line, in bytes, excluding its LF/CRLF terminator. Default 4 MiB. */
  maxLineBytes?: number;
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * Incremental line splitter. Feed it chunks with {@link push} in arrival order; it calls
 * `sink.line` for every complete non-blank line (whitespace-only lines are skipped too) and
 * `sink.oversized` for every line longer than `maxLineBytes`. Invalid UTF-8 becomes U+FFFD.
 *
 * Not reentrant: a sink must not call `push` or `end` from its callbacks. A callback that
 * throws propagates out of `push`, and the rest of that chunk is lost (the decoder itself
 * stays consistent).
 */
export class NdjsonDecoder {
  readonly #sink: NdjsonSink;
  readonly #max: number;
  readonly #utf8 = new Utf8Chunks();
  /** Decoded text of the incomplete line so far. */
  #pending = '';
  /** Raw bytes of the incomplete line so far (including the bytes of a sequence `#utf8` holds). */
  #pendingBytes = 0;
  /** True while skipping the rest of an oversized line. */
  #discarding = false;
  /** Cursor of {@link #rawLineLength} in the current chunk: byte offset and line index. */
  #rawPos = 0;
  #rawLine = 0;
  /** Present when the sink has `oversizedEnd`. */
  readonly #scanner: EnvelopeScanner | null;

  /**
   * @param sink receives lines and oversize reports.
   * @param options `maxLineBytes` must be a positive integer; throws `RangeError` otherwise.
   */
  constructor(sink: NdjsonSink, options: NdjsonDecoderOptions = {}) {
    const max = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    if (!Number.isSafeInteger(max) || max < 1) throw new RangeError(`maxLineBytes must be a positive integer, got ${max}`);
    this.#sink = sink;
    this.#max = max;
    this.#scanner = typeof sink.oversizedEnd === 'function' ? new EnvelopeScanner() : null;
  }

  /** The byte limit in force. */
  get maxLineBytes(): number {
    return this.#max;
  }

  /** Bytes of the incomplete line currently held (never more than `maxLineBytes + 1`). */
  get bufferedBytes(): number {
    return this.#pendingBytes;
  }

  /** Feeds one chunk. Strings are taken as already-decoded text. */
  push(chunk: Uint8Array | string): void {
    if (typeof chunk === 'string') {
      // Switching from bytes to text: a sequence the byte decoder held becomes U+FFFD.
      const rest = this.#utf8.flush();
      if (!this.#discarding) this.#pending += rest;
      if (this.#discarding) {
        const nl = chunk.indexOf('\n');
        this.#scanner?.pushText(chunk, 0, nl === -1 ? chunk.length : nl);
        if (nl === -1) return;
        this.#endDiscard();
        chunk = chunk.slice(nl + 1);
      }
      if (chunk.length !== 0) this.#scan(chunk, null);
      return;
    }
    if (this.#discarding) {
      const nl = chunk.indexOf(LF);
      this.#scanner?.pushBytes(chunk, 0, nl === -1 ? chunk.length : nl);
      if (nl === -1) return;
      this.#endDiscard();
      chunk = chunk.subarray(nl + 1);
    }
    if (chunk.byteLength === 0) return;
    this.#scan(this.#utf8.decode(chunk), chunk);
  }

  /**
   * Ends the stream: a final line without a terminator is delivered (when within the limit),
   * and the decoder is reset for reuse.
   */
  end(): void {
    const rest = this.#utf8.flush();
    if (!this.#discarding) this.#pending += rest;
    const line = this.#pending;
    const bytes = this.#pendingBytes;
    const discarding = this.#discarding;
    this.#pending = '';
    this.#pendingBytes = 0;
    if (discarding) this.#endDiscard();
    else if (bytes !== 0) this.#emit(line, bytes);
  }

  /** The oversized line being skipped has ended. */
  #endDiscard(): void {
    this.#discarding = false;
    const scanner = this.#scanner;
    if (scanner !== null) this.#sink.oversizedEnd!(scanner.summary());
  }

  /** Reports a complete line that is over the limit. */
  #oversizedLine(text: string, start: number, end: number, bytes: number): void {
    this.#sink.oversized(new OversizedLineError(bytes, this.#max));
    const scanner = this.#scanner;
    if (scanner === null) return;
    scanner.reset();
    scanner.pushText(text, start, end);
    this.#sink.oversizedEnd!(scanner.summary());
  }

  /** Splits decoded `text`; `bytes` is the raw chunk it came from, or null for string input. */
  #scan(text: string, bytes: Uint8Array | null): void {
    let nl = text.indexOf('\n');
    if (nl === -1) {
      this.#append(text, bytes === null ? utf8Length(text, 0, text.length) : bytes.byteLength);
      return;
    }
    this.#rawPos = 0;
    this.#rawLine = 0;
    if (this.#pendingBytes !== 0) {
      // The first line completes the held tail; count its bytes exactly from the raw chunk.
      const line = this.#pending + text.slice(0, nl);
      const lineBytes = this.#pendingBytes + (bytes === null ? utf8Length(text, 0, nl) : bytes.indexOf(LF));
      this.#pending = '';
      this.#pendingBytes = 0;
      this.#emit(line, lineBytes);
    } else {
      this.#emitRange(text, 0, nl, bytes, 0);
    }
    let start = nl + 1;
    let lineNo = 1;
    while ((nl = text.indexOf('\n', start)) !== -1) {
      this.#emitRange(text, start, nl, bytes, lineNo++);
      start = nl + 1;
    }
    if (bytes !== null) {
      // Raw bytes after the last LF, including a split sequence `#utf8` still holds.
      const tailBytes = bytes.byteLength - 1 - bytes.lastIndexOf(LF);
      if (tailBytes !== 0) this.#append(start < text.length ? text.slice(start) : '', tailBytes);
    } else if (start < text.length) {
      this.#append(text.slice(start), utf8Length(text, start, text.length));
    }
  }

  /**
   * Raw byte length (without a CR before its LF) of line `lineNo` of the chunk `bytes`.
   * Lines are asked for in increasing order, so the cursor only moves forward: O(chunk)
   * in all per chunk. Raw and decoded lines correspond one to one, since an LF byte is
   * never part of a multi-byte sequence and invalid bytes never decode to one.
   */
  #rawLineLength(bytes: Uint8Array, lineNo: number): number {
    let pos = this.#rawPos;
    while (this.#rawLine < lineNo) {
      pos = bytes.indexOf(LF, pos) + 1;
      this.#rawLine++;
    }
    const end = bytes.indexOf(LF, pos);
    let length = end - pos;
    if (length !== 0 && bytes[end - 1] === CR) length--;
    this.#rawPos = end + 1;
    this.#rawLine++;
    return length;
  }

  /** Adds to the incomplete line, switching to discard mode once it cannot fit any more. */
  #append(text: string, rawBytes: number): void {
    const total = this.#pendingBytes + rawBytes;
    // One byte of slack: the tail may end with the CR of a CRLF whose LF is still to come.
    if (total <= this.#max + 1) {
      this.#pending += text;
      this.#pendingBytes = total;
      return;
    }
    const scanner = this.#scanner;
    if (scanner !== null) {
      scanner.reset();
      scanner.pushText(this.#pending);
      scanner.pushText(text);
    }
    this.#pending = '';
    this.#pendingBytes = 0;
    this.#discarding = true;
    this.#utf8.flush();
    this.#sink.oversized(new OversizedLineError(total, this.#max));
  }

  /** Delivers a line assembled from the held tail; `bytes` counts its raw bytes. */
  #emit(line: string, bytes: number): void {
    let len = line.length;
    if (len !== 0 && line.charCodeAt(len - 1) === CR) {
      line = line.slice(0, --len);
      bytes--;
    }
    if (bytes > this.#max) {
      this.#oversizedLine(line, 0, len, bytes);
      return;
    }
    if (len === 0 || (line.charCodeAt(0) <= 0x20 && isBlank(line, 0, len))) return;
    this.#sink.line(line);
  }

  /**
   * Delivers `text[start, end)`, a line that lies wholly within one decoded chunk; `raw` is
   * that chunk's bytes (null for string input) and `lineNo` the line's index in it.
   */
  #emitRange(text: string, start: number, end: number, raw: Uint8Array | null, lineNo: number): void {
    if (end > start && text.charCodeAt(end - 1) === CR) end--;
    const len = end - start;
    if (len === 0) return;
    // A UTF-16 unit stands for at most 3 bytes (a U+FFFD for one invalid byte, too), so
    // short lines need no exact count. A long one is measured in raw bytes when there are some.
    if (len * 3 > this.#max) {
      const bytes = raw === null ? utf8Length(text, start, end) : this.#rawLineLength(raw, lineNo);
      if (bytes > this.#max) {
        this.#oversizedLine(text, start, end, bytes);
        return;
      }
    }
    if (text.charCodeAt(start) <= 0x20 && isBlank(text, start, end)) return;
    this.#sink.line(text.slice(start, end));
  }
}

/** UTF-8 byte length of `text[start, end)` (a lone surrogate counts as U+FFFD, 3 bytes). */
function utf8Length(text: string, start: number, end: number): number {
  let bytes = end - start;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) bytes += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < end && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 2; // the pair: 2 units, 4 bytes
      i++;
    } else bytes += 2;
  }
  return bytes;
}

/** True when `text[start, end)` holds only JSON whitespace (space, tab, CR, LF). */
function isBlank(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x0a) return false;
  }
  return true;
}

const LINE_BREAK = /[\r\n]/;

/**
 * Serializes one message (or batch) to a single line of JSON text ending in `\n`.
 *
 * A string is taken as pre-serialized JSON and passed through unchecked except for line
 * breaks: one containing `\n` or `\r`, or an empty one, is refused. Anything else goes
 * through `serializeMessage` (JSON text, which never holds a raw line break).
 *
 * Throws `LocalError('invalid_message')` for a refused string, for a value JSON cannot
 * represent (`undefined`, a function), or when `JSON.stringify` throws (cycles, BigInt);
 * the original error is the `cause`.
 */
export function encodeLine(message: unknown): string {
  if (typeof message === 'string') {
    if (message.length === 0) throw new LocalError('invalid_message', 'Refusing to send an empty pre-serialized message');
    if (LINE_BREAK.test(message)) throw new LocalError('invalid_message', 'Refusing to send a pre-serialized message containing a line break');
    return message + '\n';
  }
  let text: string | undefined;
  try {
    text = serializeMessage(message);
  } catch (error) {
    throw new LocalError('invalid_message', `Message cannot be serialized as JSON: ${(error as Error).message}`, { cause: error });
  }
  if (text === undefined) throw new LocalError('invalid_message', `Message cannot be serialized as JSON (${typeof message})`);
  return text + '\n';
}
