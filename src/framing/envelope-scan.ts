/**
 * A streaming look at the top-level members of one JSON-RPC message text, for a line too
 * large to parse: is it a request, a notification, a response or a batch, and what is its
 * id? Used to answer an oversized stdio line with an error that names the request.
 *
 * Design note: the scanner is a byte-level state machine that keeps a handful of numbers
 * and at most a short capture (a member name up to 8 bytes, an id up to
 * {@link MAX_ID_BYTES} bytes), whatever the input size: memory is constant and each byte is
 * looked at once. It follows JSON's grammar only at the top level of the object (member
 * names, colons, commas); nested values are skipped by bracket depth with strings and escapes
 * tracked, so a `}` or `"` inside a string never confuses it. It stops looking as soon as
 * the answer cannot change (the id and the kind are both known, the object closed, or the
 * text is visibly not JSON). Everything structural in JSON is ASCII, and UTF-8 never uses
 * ASCII bytes inside a multi-byte sequence, so bytes can be fed in any split.
 *
 * Runtime-neutral: no `node:*` imports.
 */
import { isRequestId, type RequestId } from '../jsonrpc/types.js';

/** What the scan found out. */
export interface EnvelopeSummary {
  /**
   * `request`: a method and an id. `notification`: a method, and the object closed without
   * an id (and without an escaped member name, which could have been one). `response`: a result or error member and no method. `batch`: an array (its
   * members are not looked at). `not-json`: the text is not JSON as far as it was read, is
   * neither an object nor an array, or ends before its object does. `other`: a complete
   * object with neither a method nor a result/error.
   */
  kind: 'request' | 'notification' | 'response' | 'batch' | 'not-json' | 'other';
  /** The top-level `id` when it was a string or an integer of modest length; otherwise null. */
  id: RequestId | null;
}

/** Longest id (its JSON text, in bytes) the scanner keeps; a longer id is not recovered. */
export const MAX_ID_BYTES = 1024;
const MAX_KEY_BYTES = 8;

// Scanner states.
const S_START = 0; // before the first value
const S_KEY_OR_END = 1; // after `{`
const S_KEY = 2; // after `,`
const S_IN_KEY = 3;
const S_COLON = 4;
const S_VALUE = 5;
const S_IN_STRING = 6; // a top-level member's string value
const S_SCALAR = 7; // a top-level number, true, false or null
const S_NESTED = 8; // inside a top-level member's object/array value
const S_NESTED_STRING = 9;
const S_AFTER_VALUE = 10;
const S_DONE = 11;

// Bytes.
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

const KEY_OTHER = 0;
const KEY_ID = 1;
const KEY_METHOD = 2;
const KEY_RESULT = 3; // result or error

const utf8 = new TextDecoder('utf-8');
const encoder = new TextEncoder();
/** Text is scanned through this fixed buffer, a window at a time. */
const TEXT_WINDOW = 16 * 1024;

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

/**
 * Incremental scanner of one message text. Feed its bytes (or text) in order with
 * {@link pushBytes} / {@link pushText}, then read {@link summary}; {@link reset} starts over.
 * Never throws on any input.
 */
export class EnvelopeScanner {
  #state = S_START;
  /** Set when the scan ended on the first byte: `batch`, or `not-json` on a syntax error. */
  #kind: 'batch' | 'not-json' | null = null;
  #sawMethod = false;
  #sawResult = false;
  #id: RequestId | null = null;
  #idSeen = false;
  /** A member name used an escape, so it might have been `id` in disguise. */
  #escapedKey = false;
  /** Which member's value is being read. */
  #member = KEY_OTHER;
  #depth = 0;
  #escaped = false;
  /** The member name or id text being captured. */
  readonly #capture = new Uint8Array(MAX_ID_BYTES);
  #captureLength = 0;
  /** True while capturing: false once the capture overflowed (the value is then not kept). */
  #capturing = false;
  #scratch: Uint8Array | null = null;

  /** True once more input cannot change the summary. */
  get done(): boolean {
    return this.#state === S_DONE;
  }

  /** Starts over for a new message. */
  reset(): void {
    this.#state = S_START;
    this.#kind = null;
    this.#sawMethod = false;
    this.#sawResult = false;
    this.#id = null;
    this.#idSeen = false;
    this.#escapedKey = false;
    this.#member = KEY_OTHER;
    this.#depth = 0;
    this.#escaped = false;
    this.#captureLength = 0;
    this.#capturing = false;
  }

  /**
   * What the scan found, taking the text fed so far as the whole message: a message that has
   * not been seen to close (and was not recognised early) is `not-json`.
   */
  summary(): EnvelopeSummary {
    if (this.#kind !== null) return { kind: this.#kind, id: null };
    if (this.#state !== S_DONE) return { kind: 'not-json', id: null };
    const id = this.#id;
    if (this.#sawMethod) {
      if (this.#idSeen) return { kind: 'request', id };
      // An escaped member name may have spelled `id`: not known to be a notification.
      return { kind: this.#escapedKey ? 'other' : 'notification', id: null };
    }
    if (this.#sawResult) return { kind: 'response', id };
    return { kind: 'other', id };
  }

  /** Feeds `text[start, end)`, encoded to UTF-8 through a fixed window (bounded memory). */
  pushText(text: string, start = 0, end = text.length): void {
    const scratch = (this.#scratch ??= new Uint8Array(TEXT_WINDOW * 3));
    let at = start;
    while (at < end && this.#state !== S_DONE) {
      let stop = Math.min(end, at + TEXT_WINDOW);
      // Keep a surrogate pair in one window.
      if (stop < end && (text.charCodeAt(stop - 1) & 0xfc00) === 0xd800) stop--;
      const { written } = encoder.encodeInto(at === 0 && stop === text.length ? text : text.slice(at, stop), scratch);
      this.pushBytes(scratch, 0, written);
      at = stop;
    }
  }

  /** Feeds `bytes[start, end)`. */
  pushBytes(bytes: Uint8Array, start = 0, end = bytes.length): void {
    let i = start;
    while (i < end) {
      const state = this.#state;
      if (state === S_DONE) return;
      if (state === S_NESTED_STRING || state === S_IN_STRING) {
        i = this.#skipString(bytes, i, end);
        continue;
      }
      if (state === S_NESTED) {
        i = this.#skipNested(bytes, i, end);
        continue;
      }
      this.#step(bytes[i]!);
      i++;
    }
  }

  /** Inside a string: consumes up to and including its closing quote. Returns the next index. */
  #skipString(bytes: Uint8Array, i: number, end: number): number {
    const capture = this.#capturing && this.#state === S_IN_STRING;
    let escaped = this.#escaped;
    for (; i < end; i++) {
      const c = bytes[i]!;
      if (escaped) escaped = false;
      else if (c === BACKSLASH) escaped = true;
      else if (c === QUOTE) {
        this.#escaped = false;
        if (this.#state === S_NESTED_STRING) this.#state = S_NESTED;
        else this.#endString();
        return i + 1;
      } else if (c < 0x20) {
        this.#fail(); // a raw control character: not JSON
        return end;
      }
      if (capture) this.#take(c);
    }
    this.#escaped = escaped;
    return end;
  }

  /** Inside a nested value: tracks depth until it closes. Returns the next index. */
  #skipNested(bytes: Uint8Array, i: number, end: number): number {
    let depth = this.#depth;
    for (; i < end; i++) {
      const c = bytes[i]!;
      if (c === QUOTE) {
        this.#depth = depth;
        this.#state = S_NESTED_STRING;
        return i + 1;
      }
      if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
      else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        if (--depth === 0) {
          this.#depth = 0;
          this.#state = S_AFTER_VALUE;
          return i + 1;
        }
      }
    }
    this.#depth = depth;
    return end;
  }

  /** One byte in a top-level state. */
  #step(c: number): void {
    switch (this.#state) {
      case S_START:
        if (isSpace(c)) return;
        if (c === OPEN_BRACE) this.#state = S_KEY_OR_END;
        else if (c === OPEN_BRACKET) {
          this.#kind = 'batch';
          this.#state = S_DONE;
        } else this.#fail();
        return;
      case S_KEY_OR_END:
      case S_KEY:
        if (isSpace(c)) return;
        if (c === QUOTE) {
          this.#state = S_IN_KEY;
          this.#captureLength = 0;
          this.#capturing = true;
        } else if (c === CLOSE_BRACE && this.#state === S_KEY_OR_END) this.#close();
        else this.#fail();
        return;
      case S_IN_KEY:
        if (this.#escaped) {
          this.#escaped = false;
        } else if (c === BACKSLASH) {
          this.#escaped = true;
          this.#escapedKey = true;
          this.#capturing = false; // an escaped name is not matched
        } else if (c === QUOTE) {
          this.#member = this.#capturing ? memberOf(this.#capture, this.#captureLength) : KEY_OTHER;
          this.#state = S_COLON;
          return;
        } else if (c < 0x20) {
          this.#fail();
          return;
        }
        if (this.#capturing && this.#captureLength < MAX_KEY_BYTES) this.#capture[this.#captureLength++] = c;
        else this.#capturing = false;
        return;
      case S_COLON:
        if (isSpace(c)) return;
        if (c === COLON) this.#state = S_VALUE;
        else this.#fail();
        return;
      case S_VALUE:
        if (isSpace(c)) return;
        this.#startValue(c);
        return;
      case S_SCALAR:
        if (c === COMMA || c === CLOSE_BRACE || isSpace(c)) {
          this.#endScalar();
          this.#step(c);
          return;
        }
        if (this.#capturing) this.#take(c);
        return;
      case S_AFTER_VALUE:
        if (isSpace(c)) return;
        if (c === COMMA) this.#state = S_KEY;
        else if (c === CLOSE_BRACE) this.#close();
        else this.#fail();
        return;
    }
  }

  #startValue(c: number): void {
    const member = this.#member;
    if (member === KEY_METHOD) this.#sawMethod = true;
    else if (member === KEY_RESULT) this.#sawResult = true;
    if (member === KEY_ID) {
      this.#idSeen = true;
      this.#id = null;
    }
    this.#captureLength = 0;
    this.#capturing = member === KEY_ID;
    if (c === QUOTE) {
      this.#state = S_IN_STRING;
      if (this.#capturing) this.#take(c);
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      this.#capturing = false;
      this.#depth = 1;
      this.#state = S_NESTED;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET || c === COMMA || c === COLON) {
      this.#fail();
    } else {
      this.#state = S_SCALAR;
      if (this.#capturing) this.#take(c);
    }
    this.#checkEarlyDone();
  }

  #endString(): void {
    if (this.#capturing && this.#member === KEY_ID && this.#take(QUOTE)) this.#id = parseId(this.#capture, this.#captureLength);
    this.#capturing = false;
    this.#state = S_AFTER_VALUE;
    this.#checkEarlyDone();
  }

  #endScalar(): void {
    if (this.#capturing && this.#member === KEY_ID) this.#id = parseId(this.#capture, this.#captureLength);
    this.#capturing = false;
    this.#state = S_AFTER_VALUE;
    this.#checkEarlyDone();
  }

  /** Adds one byte to the capture; false (and capturing stops) when it does not fit. */
  #take(c: number): boolean {
    if (this.#captureLength >= MAX_ID_BYTES) {
      this.#capturing = false;
      return false;
    }
    this.#capture[this.#captureLength++] = c;
    return true;
  }

  /** Stops early once the id is read (or known unreadable) and the kind is known. */
  #checkEarlyDone(): void {
    if (this.#state !== S_AFTER_VALUE || !this.#idSeen) return;
    if (this.#sawMethod || this.#sawResult) this.#state = S_DONE;
  }

  #close(): void {
    this.#state = S_DONE;
  }

  #fail(): void {
    this.#kind = 'not-json';
    this.#state = S_DONE;
  }
}

/** Which member a captured name is. */
function memberOf(name: Uint8Array, length: number): number {
  const text = String.fromCharCode(...name.subarray(0, length));
  switch (text) {
    case 'id':
      return KEY_ID;
    case 'method':
      return KEY_METHOD;
    case 'result':
    case 'error':
      return KEY_RESULT;
    default:
      return KEY_OTHER;
  }
}

/** The id a captured JSON value stands for, or null when it is not a valid request id. */
function parseId(text: Uint8Array, length: number): RequestId | null {
  let value: unknown;
  try {
    value = JSON.parse(utf8.decode(text.subarray(0, length)));
  } catch {
    return null;
  }
  return isRequestId(value) ? value : null;
}
