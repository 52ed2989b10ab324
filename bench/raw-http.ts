/**
 * A minimal HTTP/1.1 client on `node:net`, for the benchmark's tools/call hot loop
 * (`http-driver.ts`). It exists because `node:http` with a keep-alive `Agent` costs the
 * driver about as much CPU per call as a bare server spends answering it, which caps the
 * throughput the benchmark can observe on a small machine.
 *
 * Design note: a {@link RawHttpConnection} is one TCP connection with at most one
 * request outstanding (no pipelining), so a response always belongs to the last request
 * written on it. Requests are pre-serialized by the caller (request line, headers and
 * body in one `Buffer`, see {@link buildRequests}) and go out with one `socket.write`.
 * Reads use the socket's `onread` option with a buffer owned by the connection, so no
 * `Buffer` is allocated per read; every read is turned into a latin1 string, where one
 * character is one byte, so `Content-Length` and chunk sizes count characters, and ASCII
 * scans (ids, markers) work directly on it. Whoever needs the real text decodes it with
 * {@link latin1ToUtf8}. {@link HttpResponseParser} is incremental: reads may split a
 * response anywhere (inside the status line, a chunk-size line, a CRLF). It frames bodies
 * the way RFC 9112 §6.3 says for a response to POST: 1xx interim responses are skipped,
 * 204 and 304 have no body, `Transfer-Encoding` ending in `chunked` is dechunked (chunk
 * extensions and trailers are skipped), any other transfer coding or a response with
 * neither header is read until the connection closes, else `Content-Length` bytes. A
 * response that says `Connection: close` (or an HTTP/1.0 one without `keep-alive`) ends
 * the connection; its owner opens a new one.
 *
 * Not a general HTTP client: no redirects, no TLS, no request bodies other than the
 * pre-built ones, no decoding of `Content-Encoding`.
 */

import type { Socket } from 'node:net';
import { connect } from 'node:net';

/**
 * Receives each complete response: its status, its `Content-Type` value (empty when
 * absent), its body as a latin1 string (bytes as characters, chunked framing removed),
 * and whether the connection ends after it.
 */
export type ResponseHandler = (status: number, contentType: string, body: string, close: boolean) => void;

/** Thrown by {@link HttpResponseParser.feed} when the bytes are not a valid HTTP/1.x response. */
export class HttpParseError extends Error {
  override readonly name = 'HttpParseError';
}

const S_HEAD = 0;
const S_FIXED = 1;
const S_CHUNK_SIZE = 2;
const S_CHUNK_DATA = 3;
const S_CHUNK_CRLF = 4;
const S_TRAILERS = 5;
const S_UNTIL_CLOSE = 6;
const S_BROKEN = 7;

/** Longest status line + header block (or chunk-size / trailer line) accepted. */
const MAX_HEAD_CHARS = 64 * 1024;

/** True when `text[from, from+lower.length)` equals the lower-case ASCII `lower`, ignoring case. */
function equalsLower(text: string, from: number, lower: string): boolean {
  for (let i = 0; i < lower.length; i++) {
    let c = text.charCodeAt(from + i);
    if (c >= 65 && c <= 90) c |= 0x20;
    if (c !== lower.charCodeAt(i)) return false;
  }
  return true;
}

/**
 * True when the comma-separated list in `text[from, to)` holds `token` (lower-case ASCII),
 * ignoring case and optional whitespace around the elements.
 */
function hasToken(text: string, from: number, to: number, token: string): boolean {
  let start = from;
  while (start < to) {
    let end = text.indexOf(',', start);
    if (end === -1 || end > to) end = to;
    let a = start;
    let b = end;
    while (a < b && (text.charCodeAt(a) === 32 || text.charCodeAt(a) === 9)) a++;
    while (b > a && (text.charCodeAt(b - 1) === 32 || text.charCodeAt(b - 1) === 9)) b--;
    if (b - a === token.length && equalsLower(text, a, token)) return true;
    start = end + 1;
  }
  return false;
}

/** True when the last element of the comma-separated list in `text[from, to)` is `token`. */
function lastTokenIs(text: string, from: number, to: number, token: string): boolean {
  let comma = text.lastIndexOf(',', to - 1);
  if (comma < from) comma = from - 1;
  return hasToken(text, comma + 1, to, token);
}

/**
 * Incremental HTTP/1.x response parser (see the design note). One instance per
 * connection; feed it every read in order. It calls its handler synchronously for each
 * complete response, after resetting itself, so the handler may write the next request
 * at once.
 */
export class HttpResponseParser {
  readonly #onResponse: ResponseHandler;
  /** Input received but not consumed yet (a partial line or header block). */
  #rest = '';
  #state = S_HEAD;
  /** Bytes still expected in the current fixed body or chunk. */
  #remaining = 0;
  #body = '';
  #status = 0;
  #contentType = '';
  #close = false;

  /** `onResponse` is called once per complete final (non-1xx) response. */
  constructor(onResponse: ResponseHandler) {
    this.#onResponse = onResponse;
  }

  /**
   * True while part of a response has been received but not all of it (also while a
   * body that ends with the connection is being read).
   */
  get inResponse(): boolean {
    return this.#state !== S_HEAD || this.#rest.length > 0;
  }

  /** Where the parser stands, for error messages (`idle` between responses). */
  describe(): string {
    switch (this.#state) {
      case S_HEAD:
        return this.#rest.length > 0 ? `inside the response head (${this.#rest.length} bytes received)` : 'idle';
      case S_FIXED:
        return `inside a Content-Length body (${this.#remaining} bytes missing)`;
      case S_UNTIL_CLOSE:
        return 'inside a body delimited by the end of the connection';
      case S_BROKEN:
        return 'after a protocol error';
      default:
        return 'inside a chunked body';
    }
  }

  /**
   * Consumes one read (a latin1 string). Throws {@link HttpParseError} on a malformed
   * status line, header block, `Content-Length` or chunk framing, or an over-long head;
   * the parser is then unusable. Exceptions thrown by the handler propagate unchanged.
   */
  feed(text: string): void {
    if (this.#state === S_BROKEN) throw new HttpParseError('parser already failed');
    const buf = this.#rest.length === 0 ? text : this.#rest + text;
    this.#rest = '';
    const n = buf.length;
    let pos = 0;
    while (pos < n) {
      switch (this.#state) {
        case S_HEAD: {
          const end = buf.indexOf('\r\n\r\n', pos);
          if (end === -1) {
            this.#keep(buf, pos, 'response head');
            return;
          }
          const body = this.#head(buf, pos, end);
          pos = end + 4;
          if (body === 'none') this.#emit();
          break;
        }
        case S_FIXED:
        case S_CHUNK_DATA: {
          const take = Math.min(n - pos, this.#remaining);
          const piece = take === n ? buf : buf.slice(pos, pos + take);
          this.#body = this.#body.length === 0 ? piece : this.#body + piece;
          pos += take;
          this.#remaining -= take;
          if (this.#remaining === 0) {
            if (this.#state === S_FIXED) this.#emit();
            else this.#state = S_CHUNK_CRLF;
          }
          break;
        }
        case S_CHUNK_CRLF: {
          if (n - pos < 2) {
            if (buf.charCodeAt(pos) !== 13) this.#fail('chunk data not followed by CRLF');
            this.#rest = buf.slice(pos);
            return;
          }
          if (buf.charCodeAt(pos) !== 13 || buf.charCodeAt(pos + 1) !== 10) this.#fail('chunk data not followed by CRLF');
          pos += 2;
          this.#state = S_CHUNK_SIZE;
          break;
        }
        case S_CHUNK_SIZE: {
          const eol = buf.indexOf('\r\n', pos);
          if (eol === -1) {
            this.#keep(buf, pos, 'chunk-size line');
            return;
          }
          let size = 0;
          let i = pos;
          for (; i < eol; i++) {
            const c = buf.charCodeAt(i);
            const digit = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1;
            if (digit < 0) break;
            size = size * 16 + digit;
            if (size > 0x7fffffff) this.#fail('chunk size too large');
          }
          if (i === pos) this.#fail(`bad chunk-size line ${JSON.stringify(buf.slice(pos, Math.min(eol, pos + 40)))}`);
          // After the digits only whitespace and chunk extensions (`;name=value`) may follow.
          while (i < eol && (buf.charCodeAt(i) === 32 || buf.charCodeAt(i) === 9)) i++;
          if (i < eol && buf.charCodeAt(i) !== 59) this.#fail(`bad chunk-size line ${JSON.stringify(buf.slice(pos, Math.min(eol, pos + 40)))}`);
          pos = eol + 2;
          this.#remaining = size;
          this.#state = size === 0 ? S_TRAILERS : S_CHUNK_DATA;
          break;
        }
        case S_TRAILERS: {
          // `pos` is at the start of a trailer line; an empty line ends the message.
          const eol = buf.indexOf('\r\n', pos);
          if (eol === -1) {
            this.#keep(buf, pos, 'trailer line');
            return;
          }
          const blank = eol === pos;
          pos = eol + 2;
          if (blank) this.#emit();
          break;
        }
        case S_UNTIL_CLOSE: {
          const piece = pos === 0 ? buf : buf.slice(pos);
          this.#body = this.#body.length === 0 ? piece : this.#body + piece;
          pos = n;
          break;
        }
        default:
          throw new HttpParseError('parser already failed');
      }
    }
  }

  /**
   * Tells the parser the connection ended. Completes a body delimited by the end of the
   * connection (calling the handler) and returns true then, or when no response was in
   * progress; returns false when a response was cut short.
   */
  end(): boolean {
    if (this.#state === S_UNTIL_CLOSE) {
      this.#close = true;
      this.#emit();
      return true;
    }
    return this.#state === S_HEAD && this.#rest.length === 0;
  }

  #keep(buf: string, pos: number, what: string): void {
    if (buf.length - pos > MAX_HEAD_CHARS) this.#fail(`${what} longer than ${MAX_HEAD_CHARS} bytes`);
    this.#rest = pos === 0 ? buf : buf.slice(pos);
  }

  #fail(message: string): never {
    this.#state = S_BROKEN;
    this.#rest = '';
    this.#body = '';
    throw new HttpParseError(message);
  }

  #emit(): void {
    const body = this.#body;
    const close = this.#close;
    this.#body = '';
    this.#state = S_HEAD;
    this.#onResponse(this.#status, this.#contentType, body, close);
  }

  /**
   * Parses the status line and headers in `buf[pos, end)` and sets the body state.
   * Returns `'none'` for a final response without a body, `'interim'` for a 1xx one
   * (skipped), else `'body'`.
   */
  #head(buf: string, pos: number, end: number): 'none' | 'interim' | 'body' {
    // "HTTP/1.x NNN reason"
    if (!buf.startsWith('HTTP/1.', pos) || buf.charCodeAt(pos + 8) !== 32) {
      this.#fail(`bad status line ${JSON.stringify(buf.slice(pos, Math.min(end, pos + 60)))}`);
    }
    const minor = buf.charCodeAt(pos + 7) - 48;
    const d0 = buf.charCodeAt(pos + 9) - 48;
    const d1 = buf.charCodeAt(pos + 10) - 48;
    const d2 = buf.charCodeAt(pos + 11) - 48;
    const after = buf.charCodeAt(pos + 12);
    if (minor < 0 || minor > 9 || d0 < 1 || d0 > 5 || d1 < 0 || d1 > 9 || d2 < 0 || d2 > 9 || (after !== 32 && after !== 13)) {
      this.#fail(`bad status line ${JSON.stringify(buf.slice(pos, Math.min(end, pos + 60)))}`);
    }
    const status = d0 * 100 + d1 * 10 + d2;
    let contentLength = -1;
    let chunked = false;
    let otherCoding = false;
    let close = minor === 0;
    let contentType = '';
    let line = buf.indexOf('\r\n', pos);
    while (line < end) {
      const ls = line + 2;
      let le = buf.indexOf('\r\n', ls);
      if (le === -1 || le > end) le = end;
      line = le;
      const colon = buf.indexOf(':', ls);
      if (colon === -1 || colon > le || colon === ls) this.#fail(`bad header line ${JSON.stringify(buf.slice(ls, Math.min(le, ls + 60)))}`);
      let vs = colon + 1;
      while (vs < le && (buf.charCodeAt(vs) === 32 || buf.charCodeAt(vs) === 9)) vs++;
      let ve = le;
      while (ve > vs && (buf.charCodeAt(ve - 1) === 32 || buf.charCodeAt(ve - 1) === 9)) ve--;
      switch (colon - ls) {
        case 14:
          if (equalsLower(buf, ls, 'content-length')) {
            let v = 0;
            if (ve === vs) this.#fail('empty Content-Length');
            for (let i = vs; i < ve; i++) {
              const c = buf.charCodeAt(i) - 48;
              if (c < 0 || c > 9) this.#fail(`bad Content-Length ${JSON.stringify(buf.slice(vs, ve))}`);
              v = v * 10 + c;
            }
            if (v > Number.MAX_SAFE_INTEGER) this.#fail('Content-Length too large');
            if (contentLength !== -1 && contentLength !== v) this.#fail('conflicting Content-Length headers');
            contentLength = v;
          }
          break;
        case 17:
          if (equalsLower(buf, ls, 'transfer-encoding')) {
            if (lastTokenIs(buf, vs, ve, 'chunked')) chunked = true;
            else otherCoding = true;
          }
          break;
        case 10:
          if (equalsLower(buf, ls, 'connection')) {
            if (hasToken(buf, vs, ve, 'close')) close = true;
            else if (minor === 0 && hasToken(buf, vs, ve, 'keep-alive')) close = false;
          }
          break;
        case 12:
          if (equalsLower(buf, ls, 'content-type')) contentType = buf.slice(vs, ve);
          break;
        default:
          break;
      }
    }
    if (status < 200) {
      if (status === 101) this.#fail('unexpected 101 Switching Protocols');
      return 'interim';
    }
    this.#status = status;
    this.#contentType = contentType;
    this.#close = close;
    this.#body = '';
    if (status === 204 || status === 304) return 'none';
    if (chunked || otherCoding) {
      // A coding other than a final `chunked` leaves the body delimited by the close.
      if (chunked && !otherCoding) {
        this.#state = S_CHUNK_SIZE;
      } else {
        this.#state = S_UNTIL_CLOSE;
        this.#close = true;
      }
      return 'body';
    }
    if (contentLength === 0) return 'none';
    if (contentLength > 0) {
      this.#state = S_FIXED;
      this.#remaining = contentLength;
      return 'body';
    }
    this.#state = S_UNTIL_CLOSE;
    this.#close = true;
    return 'body';
  }
}

/**
 * Decodes a latin1 string holding UTF-8 bytes (as produced by the connection) into the
 * text those bytes encode. Called on slow paths only; never throws (invalid sequences
 * become U+FFFD).
 */
export function latin1ToUtf8(bytes: string): string {
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

/**
 * The fixed part of a POST request head, up to and including `Content-Length: ` (the
 * length and the blank line follow per request). `headers` are written as given, after
 * `Host`; they must not contain `Content-Length`, `Transfer-Encoding` or CR/LF (throws
 * `Error` then). Called once per run, before the clock starts.
 */
export function requestHeadPrefix(host: string, path: string, headers: Readonly<Record<string, string>>): string {
  let head = `POST ${path} HTTP/1.1\r\nHost: ${host}\r\n`;
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (lower === 'content-length' || lower === 'transfer-encoding' || lower === 'host') throw new Error(`requestHeadPrefix: ${name} is set by the client`);
    if (/[\r\n]/.test(name) || /[\r\n]/.test(value)) throw new Error(`requestHeadPrefix: header ${JSON.stringify(name)} holds a line break`);
    head += `${name}: ${value}\r\n`;
  }
  return head + 'Content-Length: ';
}

/**
 * Serializes `bodies` (JSON texts, any Unicode) into complete requests, each a `Buffer`
 * holding `headPrefix` (from {@link requestHeadPrefix}), the body's byte length, a blank
 * line and the UTF-8 body. The requests share one backing allocation. Called before a
 * timed run; never throws for valid input.
 */
export function buildRequests(headPrefix: string, bodies: readonly string[]): Buffer[] {
  const texts = new Array<string>(bodies.length);
  let total = 0;
  for (let i = 0; i < bodies.length; i++) {
    const body = bodies[i]!;
    const text = headPrefix + Buffer.byteLength(body) + '\r\n\r\n' + body;
    texts[i] = text;
    total += Buffer.byteLength(text);
  }
  const all = Buffer.allocUnsafe(total);
  const out = new Array<Buffer>(bodies.length);
  let offset = 0;
  for (let i = 0; i < texts.length; i++) {
    const written = all.write(texts[i]!, offset, 'utf8');
    out[i] = all.subarray(offset, offset + written);
    offset += written;
  }
  return out;
}

/** What a {@link RawHttpConnection} reports to its owner. */
export interface RawConnectionEvents {
  /**
   * A complete response to the request last sent on `connection`. When `close` is true
   * the connection is already destroyed; the owner opens another to continue.
   */
  onResponse(connection: RawHttpConnection, status: number, contentType: string, body: string, close: boolean): void;
  /**
   * The connection failed after it was opened: a socket error, a malformed response, a
   * response nobody asked for, or the peer closing it while a request was outstanding
   * (`error.message` says which). The connection is destroyed; called at most once.
   */
  onFailure(connection: RawHttpConnection, error: Error): void;
}

/** Bytes read per socket read at most (the connection's own read buffer). */
const READ_BUFFER_BYTES = 64 * 1024;

/**
 * One keep-alive HTTP/1.1 connection with at most one request outstanding (see the
 * design note). Created by the driver's hot loop; {@link open} it, then alternate
 * {@link send} and the owner's `onResponse`; {@link destroy} it when done.
 */
export class RawHttpConnection {
  readonly #socket: Socket;
  readonly #parser: HttpResponseParser;
  readonly #events: RawConnectionEvents;
  /** Set on `connect`: failures before it belong to {@link open}'s promise. */
  #opened = false;
  #awaiting = false;
  #done = false;
  #responses = 0;
  /** Free for the owner: the driver keeps the index of the call in flight here. */
  tag = -1;

  /**
   * Starts connecting to `host:port` (Nagle off). Nothing may be sent before
   * {@link open} resolves. Never throws.
   */
  constructor(host: string, port: number, events: RawConnectionEvents) {
    this.#events = events;
    this.#parser = new HttpResponseParser((status, contentType, body, close) => this.#onResponse(status, contentType, body, close));
    const buffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
    this.#socket = connect({
      host,
      port,
      noDelay: true,
      onread: {
        buffer,
        callback: (bytes: number, buf: Uint8Array): boolean => {
          this.#onBytes((buf as Buffer).toString('latin1', 0, bytes));
          return true;
        },
      },
    });
    this.#socket.once('connect', () => {
      this.#opened = true;
    });
    this.#socket.on('error', (error) => this.#failure(`connection error: ${error.message}`));
    this.#socket.on('end', () => this.#onEnd());
    this.#socket.on('close', () => this.#onEnd());
  }

  /**
   * Resolves once connected. Rejects with `Error` when the connection cannot be made or
   * was destroyed first (the connection is then closed and `onFailure` is not called).
   */
  open(): Promise<void> {
    if (this.#opened) return this.#done ? Promise.reject(new Error('connection already closed')) : Promise.resolve();
    if (this.#done) return Promise.reject(new Error('connection destroyed before it was open'));
    return new Promise<void>((resolve, reject) => {
      const settle = (error: Error | null): void => {
        this.#socket.off('connect', onConnect);
        this.#socket.off('error', onError);
        this.#socket.off('close', onClose);
        if (error === null) resolve();
        else reject(error);
      };
      const onConnect = (): void => settle(null);
      const onError = (error: Error): void => settle(new Error(`cannot connect: ${error.message}`));
      const onClose = (): void => settle(new Error('connection destroyed before it was open'));
      this.#socket.once('connect', onConnect);
      this.#socket.once('error', onError);
      this.#socket.once('close', onClose);
    });
  }

  /** Responses received on this connection so far. */
  get responses(): number {
    return this.#responses;
  }

  /** True until the connection was destroyed, failed or closed by the peer. */
  get usable(): boolean {
    return !this.#done;
  }

  /**
   * Writes one pre-serialized request. Throws `Error` when a request is already
   * outstanding or the connection is no longer usable (callers never do that).
   */
  send(request: Buffer): void {
    if (this.#awaiting) throw new Error('RawHttpConnection: a request is already outstanding');
    if (this.#done) throw new Error('RawHttpConnection: connection closed');
    this.#awaiting = true;
    this.#socket.write(request);
  }

  /** Closes the connection at once; nothing is reported afterwards. Idempotent. */
  destroy(): void {
    this.#done = true;
    this.#socket.destroy();
  }

  #onBytes(text: string): void {
    if (this.#done) return;
    try {
      this.#parser.feed(text);
    } catch (error) {
      if (error instanceof HttpParseError) this.#failure(`malformed response: ${error.message}`);
      else throw error;
    }
  }

  #onResponse(status: number, contentType: string, body: string, close: boolean): void {
    if (this.#done) return;
    if (!this.#awaiting) {
      this.#failure(`response (HTTP ${status}) without a request`);
      return;
    }
    this.#awaiting = false;
    this.#responses++;
    if (close) this.destroy();
    this.#events.onResponse(this, status, contentType, body, close);
  }

  #onEnd(): void {
    if (this.#done) return;
    if (this.#awaiting) {
      // A body delimited by the close completes here; anything else was cut short.
      if (this.#parser.end() && !this.#awaiting) return;
      const where = this.#parser.inResponse ? this.#parser.describe() : `before any byte of the response (after ${this.#responses} responses on it)`;
      this.#failure(`server closed the connection ${where}`);
      return;
    }
    if (this.#parser.inResponse) {
      this.#failure(`server closed the connection ${this.#parser.describe()}`);
      return;
    }
    // Closed while idle: nothing was lost, but the connection is gone.
    this.destroy();
  }

  #failure(message: string): void {
    if (this.#done) return;
    this.destroy();
    // Before `connect`, the failure is {@link open}'s to report.
    if (this.#opened) this.#events.onFailure(this, new Error(message));
  }
}
