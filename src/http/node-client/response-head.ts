/**
 * Reading the head of an HTTP/1.1 response (status line and header fields) for the Node
 * requester's parser (response-parser.ts), and the token check both directions share.
 *
 * Design note: the head arrives as one latin1 string (every byte one character), ending
 * with its empty line. It is scanned character by character, once: the status line must
 * be `HTTP/1.0` or `HTTP/1.1`, a space, three digits and, optionally, a space and a reason
 * free of control characters (tab allowed); each field line must be a token name, a colon
 * and a value whose optional whitespace (space and tab, RFC 9110 § 5.6.3) around it is
 * dropped and which holds no control character other than tab; a line starting with
 * whitespace (obsolete folding) is refused. Each field line is checked by one regular
 * expression (in V8 a pass of its engine costs less per character than a loop over
 * `charCodeAt`) and cut at its colon, its name lower-cased; the result is kept in the
 * connection's {@link FieldCache} at the line's position, so a line the server sent in the
 * same place last time (most are the same on every response) costs one string comparison
 * (no regular expression, no hash), and common names and values come out as the same
 * strings as the literals they are compared with. Only the fields that decide framing and
 * reuse (`Content-Length`, `Transfer-Encoding`, `Connection`, `Keep-Alive`) are
 * interpreted here; their common forms are read without a regular expression. A violation
 * is a LocalError `invalid_message` naming it.
 */
import { LocalError } from '../../jsonrpc/errors.js';

/** 1 for the characters of an RFC 9110 token (tchar), by char code below 128. */
const TCHAR = new Uint8Array(128);
for (const c of "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") TCHAR[c.charCodeAt(0)] = 1;

/** True when `text` is a non-empty RFC 9110 token. */
export function isToken(text: string): boolean {
  const n = text.length;
  if (n === 0) return false;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c >= 128 || TCHAR[c] === 0) return false;
  }
  return true;
}

/** The error of a malformed response. */
export function invalid(what: string): LocalError {
  return new LocalError('invalid_message', `The server's HTTP response is malformed: ${what}`);
}

/** What a response head says. */
export interface ResponseHead {
  status: number;
  statusText: string;
  /** Names (lower case) and values, alternating, in order. */
  headers: readonly string[];
  /** The `Content-Length`, or -1 when absent. */
  length: number;
  /** A `Transfer-Encoding` was given. */
  encoded: boolean;
  /** Its last coding is `chunked`. */
  chunked: boolean;
  /** HTTP/1.0, or `Connection: close`. */
  close: boolean;
  /** `Keep-Alive: timeout` in milliseconds, when given. */
  keepAliveMs: number | undefined;
}

const SP = 0x20;
const HT = 0x09;
const CR = 0x0d;

/** True for a control character other than tab (what neither a reason nor a field value may hold). */
function isControl(c: number): boolean {
  return (c < SP && c !== HT) || c === 0x7f;
}

/** True when `text` from `from` to `to` holds a control character other than tab. */
function hasControl(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (isControl(text.charCodeAt(i))) return true;
  return false;
}

/** The end of the line starting at `at` (before its CR LF, or bare LF), given the index of its LF. */
function lineEnd(text: string, at: number, lf: number): number {
  return lf > at && text.charCodeAt(lf - 1) === CR ? lf - 1 : lf;
}

/** One field line, checked and cut: the name (lower case) and the value (trimmed). */
interface Field {
  readonly name: string;
  readonly value: string;
}

/**
 * The field lines of a connection's previous response, by position, checked and cut (see
 * {@link parseHead}). Each connection keeps its own: a server sends the same lines in the
 * same order on every response, and what one server sent (a cookie, say) stays with the
 * connection it came on.
 */
export class FieldCache {
  /** The text of the line at each position (without its line end), or undefined. */
  readonly lines: (string | undefined)[] = [];
  readonly #fields: (Field | undefined)[] = [];
  /** The previous head read through {@link FieldCache.head}: its bytes (a copy) and what it said. */
  #last: { readonly bytes: Buffer; readonly head: ResponseHead } | undefined = undefined;

  /**
   * Reads the head in `buf[0, end)` (ending with its empty line), as {@link parseHead}
   * does. When its bytes are those of the previous head read here — most responses on a
   * connection repeat the last one's head byte for byte until the `Date` changes — the
   * previous reading is returned: one byte comparison, no string made. The result is
   * shared, so it must not be changed. Heads of up to {@link MAX_CACHED_HEAD} bytes are
   * remembered (a copy: `buf` is a packet whose memory is reused). Throws LocalError
   * `invalid_message` as parseHead does; a malformed head is never remembered.
   */
  head(buf: Buffer, end: number): Readonly<ResponseHead> {
    const last = this.#last;
    if (last !== undefined && last.bytes.length === end && buf.compare(last.bytes, 0, end, 0, end) === 0) return last.head;
    const head = parseHead(buf.toString('latin1', 0, end), this);
    this.#last = end <= MAX_CACHED_HEAD ? { bytes: Buffer.from(buf.subarray(0, end)), head } : undefined;
    return head;
  }

  /**
   * The field of `line`, the field line at position `k` of a head: the one remembered when
   * the previous head had the same line there, else checked, cut and remembered (within
   * {@link MAX_CACHED_FIELDS} positions and lines of up to {@link MAX_CACHED_LINE}
   * characters). Throws LocalError for a malformed line, which is never remembered.
   */
  field(k: number, line: string): Field {
    if (this.lines[k] === line) return this.#fields[k]!;
    if (k >= MAX_CACHED_FIELDS || line.length > MAX_CACHED_LINE) return fieldOf(line);
    // what is kept is cut from a copy: a slice of the head would keep the whole head alive
    const own = Buffer.from(line, 'latin1').toString('latin1');
    const field = fieldOf(own);
    this.lines[k] = own;
    this.#fields[k] = field;
    return field;
  }
}

/** Positions a {@link FieldCache} remembers, and the longest line it takes. */
const MAX_CACHED_FIELDS = 32;
const MAX_CACHED_LINE = 256;
/** The longest head, in bytes, a {@link FieldCache} remembers whole. */
const MAX_CACHED_HEAD = 2048;

/** A valid field line without its line end: a token name right before its colon, a value without control characters but tab. */
const FIELD_LINE = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+:[^\x00-\x08\x0a-\x1f\x7f]*$/;

/**
 * The strings of common names and values, as literals: a field made from them compares
 * with the transports' and the parser's own literals by identity, not character by character.
 */
const CANONICAL = new Map<string, string>(
  [
    'content-type',
    'content-length',
    'connection',
    'keep-alive',
    'transfer-encoding',
    'date',
    'mcp-session-id',
    'cache-control',
    'application/json',
    'text/event-stream',
    'close',
    'chunked',
    'no-cache',
  ].map((text) => [text, text]),
);

/**
 * Reads a head: `text` holds it whole, ending with its empty line (CR LF or a bare LF ends
 * each line). A field line equal to the one at the same position in `cache` (the
 * connection's previous response) is taken from it, found by one comparison (no hash);
 * others are checked, cut and remembered there. Throws LocalError `invalid_message`
 * for any violation (see the design note).
 */
export function parseHead(text: string, cache: FieldCache = new FieldCache()): ResponseHead {
  const lf = text.indexOf('\n');
  const headers: string[] = [];
  const head = statusLine(text, lineEnd(text, 0, lf), headers);
  let at = lf + 1;
  for (let k = 0; ; k++) {
    const end = text.indexOf('\n', at);
    if (end < 0) throw invalid('the head does not end with an empty line');
    const stop = lineEnd(text, at, end);
    if (stop === at) break;
    const field = cache.field(k, text.slice(at, stop));
    headers.push(field.name, field.value);
    framing(head, field.name, field.value);
    at = end + 1;
  }
  return head;
}

/** Checks and cuts one field line (without its line end); throws LocalError when it is malformed. */
function fieldOf(line: string): Field {
  if (!FIELD_LINE.test(line)) throw fieldError(line);
  const colon = line.indexOf(':');
  const name = line.slice(0, colon).toLowerCase();
  let from = colon + 1;
  let to = line.length;
  while (from < to && isBlank(line.charCodeAt(from))) from++;
  while (to > from && isBlank(line.charCodeAt(to - 1))) to--;
  const value = line.slice(from, to);
  return { name: CANONICAL.get(name) ?? name, value: CANONICAL.get(value) ?? value };
}

function statusLine(text: string, stop: number, headers: readonly string[]): ResponseHead {
  // HTTP/1.x SP 3DIGIT [ SP reason ]
  const minor = text.charCodeAt(7);
  const ok =
    stop >= 12 &&
    text.startsWith('HTTP/1.') &&
    (minor === 0x30 || minor === 0x31) &&
    text.charCodeAt(8) === SP &&
    isDigit(text.charCodeAt(9)) &&
    isDigit(text.charCodeAt(10)) &&
    isDigit(text.charCodeAt(11)) &&
    (stop === 12 || (text.charCodeAt(12) === SP && !hasControl(text, 13, stop)));
  if (!ok) {
    const line = text.slice(0, stop);
    throw invalid(`the status line ${JSON.stringify(line.slice(0, 80))} is not "HTTP/1.1 <3-digit status> <reason>"`);
  }
  return {
    status: Number(text.slice(9, 12)),
    statusText: stop > 12 ? text.slice(13, stop) : '',
    headers,
    length: -1,
    encoded: false,
    chunked: false,
    close: minor === 0x30,
    keepAliveMs: undefined,
  };
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** Applies a field that decides framing or reuse; `name` is lower case. */
function framing(head: ResponseHead, name: string, value: string): void {
  const first = name.charCodeAt(0);
  if (first === 0x63 /* c */) {
    if (name === 'content-length') head.length = contentLength(value, head.length);
    else if (name === 'connection') {
      if (value !== 'keep-alive' && /(?:^|,)\s*close\s*(?:,|$)/i.test(value)) head.close = true;
    }
  } else if (first === 0x74 /* t */) {
    if (name === 'transfer-encoding') {
      head.encoded = true;
      const codings = value.toLowerCase().split(',');
      head.chunked = codings[codings.length - 1]!.trim() === 'chunked';
    }
  } else if (first === 0x6b /* k */ && name === 'keep-alive') {
    const ms = keepAliveTimeout(value);
    if (ms !== undefined) head.keepAliveMs = ms;
  }
}

/** The error for a field line that {@link FIELD_LINE} refused (the slow path: bad input only). */
function fieldError(line: string): LocalError {
  const colon = line.indexOf(':');
  if (colon <= 0) {
    return invalid(
      line.length > 0 && (line[0] === ' ' || line[0] === '\t')
        ? 'a folded header line (obsolete line folding is refused)'
        : `the header line ${JSON.stringify(line.slice(0, 80))} has no name`,
    );
  }
  const name = line.slice(0, colon).toLowerCase();
  if (!isToken(name)) return invalid(`the header name ${JSON.stringify(name.slice(0, 80))} is not a token`);
  if (hasControl(line, colon + 1, line.length)) return invalid(`the value of header ${name} holds control characters`);
  return invalid('the header lines are malformed');
}

function isBlank(c: number): boolean {
  return c === SP || c === HT;
}

/** A `Content-Length` value (digits, or a list of equal ones) given `before` (-1 when none yet); throws when bad or conflicting. */
function contentLength(value: string, before: number): number {
  if (value.length <= 15 && allDigits(value, 0) && value.length > 0) {
    const n = Number(value);
    if (before !== -1 && n !== before) throw invalid(`conflicting Content-Length values (${before} and ${n})`);
    return n;
  }
  let length = before;
  for (const part of value.split(',')) {
    const text = part.trim();
    if (!/^\d{1,15}$/.test(text)) throw invalid(`Content-Length ${JSON.stringify(value.slice(0, 40))} is not a number`);
    const n = Number(text);
    if (length !== -1 && n !== length) throw invalid(`conflicting Content-Length values (${length} and ${n})`);
    length = n;
  }
  return length;
}

/** The `timeout` of a `Keep-Alive` value, in milliseconds. */
function keepAliveTimeout(value: string): number | undefined {
  if (value.startsWith('timeout=')) {
    const digits = value.length - 8;
    if (digits >= 1 && digits <= 9 && allDigits(value, 8)) return Number(value.slice(8)) * 1000;
  }
  const t = /(?:^|[,\s])timeout\s*=\s*(\d{1,9})/i.exec(value);
  return t === null ? undefined : Number(t[1]) * 1000;
}

function allDigits(text: string, from: number): boolean {
  for (let i = from; i < text.length; i++) if (!isDigit(text.charCodeAt(i))) return false;
  return true;
}
