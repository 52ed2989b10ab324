/**
 * An incremental parser of HTTP/1.1 responses, one connection's byte stream at a time.
 *
 * Design note: the parser is fed the socket's packets as they come ({@link ResponseParser.push})
 * and reports to a {@link ResponseSink}: the head of the final response (interim 1xx
 * responses are read and skipped), the body's chunks (views into the packets, never
 * copies, except for a head split across packets) and its end, with whether the
 * connection may carry another request. It is written for a server that may be hostile:
 * - the head (status line and header lines), and the trailers of a chunked body, are
 *   bounded by `maxHeaderBytes` together; the status line must be `HTTP/1.0` or `HTTP/1.1`,
 *   a three-digit status and a reason; header names must be tokens, values free of control
 *   characters other than tab; folded lines (obsolete) are refused (response-head.ts reads
 *   the head);
 * - framing (RFC 9112 § 6.3): no body for a HEAD request, 204 and 304; else
 *   `Transfer-Encoding` ending in `chunked` (then any `Content-Length` is ignored and the
 *   connection is not reused, as it smells of request smuggling); else `Content-Length`
 *   (digits only; several values must agree, otherwise the response is refused); else the
 *   body runs to the connection's end (and the connection cannot be reused);
 * - a chunk-size line is bounded ({@link MAX_CHUNK_LINE}), must start with hexadecimal
 *   digits (at most 13: sizes beyond 2^52 are refused) and may carry extensions, which
 *   are ignored;
 * - the connection is reusable only after an HTTP/1.1 response without `Connection: close`
 *   whose body was delimited (length or chunks); bytes the server sends past the end of
 *   the response make it unusable too ({@link ResponseParser.push} reports them).
 * Every violation is a thrown {@link LocalError} (`invalid_message`, or `message_too_large`
 * for the size bound) naming what was wrong; after one the parser must not be fed again
 * (its owner destroys the connection).
 */
import { LocalError } from '../../jsonrpc/errors.js';
import { FieldCache, invalid, type ResponseHead } from './response-head.js';

/** Longest chunk-size line accepted (size, extensions and CRLF), in bytes. */
export const MAX_CHUNK_LINE = 4096;

/** What the parser reports, for one response at a time. */
export interface ResponseSink {
  /** The head of the final response. `headers` alternates names (lower case) and values. */
  head(status: number, statusText: string, headers: readonly string[]): void;
  /** A piece of the body, in order (a view into the packet: use it before the next push). */
  chunk(data: Buffer): void;
  /**
   * The response is complete. `reuse` is true when the connection may carry another
   * request; `keepAliveMs` is the idle time the server announced (`Keep-Alive: timeout`),
   * or undefined.
   */
  end(reuse: boolean, keepAliveMs: number | undefined): void;
}

const enum State {
  /** Between responses: nothing expected. */
  Idle,
  Head,
  Length,
  ChunkSize,
  ChunkData,
  ChunkDataEnd,
  Trailers,
  UntilClose,
  /** Finished (or failed): any byte is an error. */
  Done,
}

const HEX = /^([0-9A-Fa-f]{1,13})[ \t]*(?:;.*)?$/;

/** Parses the responses of one connection; see the module's design note. */
export class ResponseParser {
  readonly #maxHeaderBytes: number;
  /** The field lines this connection's responses carried, checked and cut (see response-head.ts). */
  readonly #fields = new FieldCache();
  #sink: ResponseSink | undefined;
  #state = State.Idle;
  #noBody = false;
  /** Head bytes seen so far, for the bound (head and trailers of the current response). */
  #headBytes = 0;
  /** The unfinished head (or trailer / chunk-size line) carried over from earlier packets. */
  #pending: Buffer | undefined;
  #remaining = 0;
  /** The CR after a chunk's data was seen (its LF is next). */
  #sawCr = false;
  #reuse = false;
  #keepAliveMs: number | undefined;
  /** True once any byte of the current response arrived. */
  started = false;

  constructor(maxHeaderBytes: number) {
    this.#maxHeaderBytes = maxHeaderBytes;
  }

  /** Expects the response to a request with `method`, reported to `sink`. */
  expect(method: string, sink: ResponseSink): void {
    this.#sink = sink;
    this.#state = State.Head;
    this.#noBody = method === 'HEAD';
    this.#headBytes = 0;
    this.#pending = undefined;
    this.#sawCr = false;
    this.started = false;
  }

  /**
   * Feeds one packet: the bytes of `data` before `end` (default: all of them). The parser
   * keeps no view into `data` past the call (what it must carry over, it copies), so the
   * caller may reuse its memory for the next packet. Throws LocalError when the bytes are
   * not a valid response, or when bytes arrive while no response is expected.
   */
  push(data: Buffer, end: number = data.length): void {
    if (end === 0) return;
    if (this.#state === State.Idle || this.#state === State.Done) {
      this.#state = State.Done;
      throw invalid('the server sent bytes while no response was expected');
    }
    this.started = true;
    let at = 0;
    while (at < end) {
      switch (this.#state) {
        case State.Head:
          at = this.#head(data, at, end);
          break;
        case State.Length:
          at = this.#bodyBytes(data, at, end);
          if (this.#remaining === 0) this.#finish();
          break;
        case State.ChunkSize:
          at = this.#chunkSize(data, at, end);
          break;
        case State.ChunkData:
          at = this.#bodyBytes(data, at, end);
          if (this.#remaining === 0) this.#state = State.ChunkDataEnd;
          break;
        case State.ChunkDataEnd:
          at = this.#chunkDataEnd(data, at, end);
          break;
        case State.Trailers:
          at = this.#trailers(data, at, end);
          break;
        case State.UntilClose:
          this.#sink!.chunk(at === 0 && end === data.length ? data : data.subarray(at, end));
          at = end;
          break;
        default:
          this.#state = State.Done;
          throw invalid('the server sent bytes after the end of the response');
      }
    }
  }

  /**
   * The connection ended (the server closed it). Ends a body delimited by the close;
   * throws LocalError when a response was under way otherwise (cut short).
   */
  close(): void {
    const state = this.#state;
    if (state === State.UntilClose) {
      this.#reuse = false;
      this.#finish();
      return;
    }
    this.#state = State.Done;
    if (state === State.Idle || state === State.Done) return;
    if (state === State.Head && !this.started) throw new LocalError('connection_closed', 'The server closed the connection before answering');
    throw new LocalError(
      'connection_closed',
      state === State.Head
        ? 'The server closed the connection in the middle of the response head'
        : 'The server closed the connection in the middle of the response body',
    );
  }

  /** Hands the sink the body bytes of `data` from `at` (before `end`) that `#remaining` still expects; returns where they end. */
  #bodyBytes(data: Buffer, at: number, end: number): number {
    const n = Math.min(this.#remaining, end - at);
    this.#remaining -= n;
    this.#sink!.chunk(at === 0 && n === data.length ? data : data.subarray(at, at + n));
    return at + n;
  }

  /** Takes a line-delimited section that may span packets: the bytes of `data` from `at` (before `stop`) up to the end of `search`'s match, joined with what was pending. */
  #gather(
    data: Buffer,
    at: number,
    stop: number,
    find: (buf: Buffer, from: number) => number,
    limit: number,
    what: string,
  ): { buf: Buffer; end: number; used: number } | undefined {
    const pending = this.#pending;
    let buf: Buffer;
    let from: number;
    if (pending === undefined) {
      buf = at === 0 && stop === data.length ? data : data.subarray(at, stop);
      from = 0;
    } else {
      buf = Buffer.concat([pending, data.subarray(at, stop)]);
      from = Math.max(0, pending.length - 3);
    }
    const end = find(buf, from);
    if (end < 0) {
      if (buf.length > limit) throw this.#tooLarge(what, limit);
      // copy: the packet's memory is reused by the caller's next read
      this.#pending = Buffer.from(buf);
      return undefined;
    }
    if (end > limit) throw this.#tooLarge(what, limit);
    this.#pending = undefined;
    const used = end - (pending === undefined ? 0 : pending.length);
    return { buf, end, used };
  }

  /** The parser is done with this connection: `what` (head or trailers) passed `limit` bytes. */
  #tooLarge(what: string, limit: number): LocalError {
    this.#state = State.Done;
    return new LocalError(
      'message_too_large',
      `The server's HTTP response ${what} exceeds ${limit} bytes (maxHeaderBytes); the connection was dropped. Raise maxHeaderBytes if the server is trusted`,
    );
  }

  #head(data: Buffer, at: number, stop: number): number {
    const got = this.#gather(data, at, stop, endOfHead, this.#maxHeaderBytes - this.#headBytes, 'head');
    if (got === undefined) return stop;
    this.#headBytes += got.end;
    let head: Readonly<ResponseHead>;
    try {
      head = this.#fields.head(got.buf, got.end);
    } catch (error) {
      this.#state = State.Done;
      throw error;
    }
    const status = head.status;
    const length = head.length;
    const rest = got.used;
    if (status < 200) {
      if (status === 101) {
        this.#state = State.Done;
        throw invalid('101 Switching Protocols to a request that asked for no upgrade');
      }
      // an interim response (100 Continue, 103 Early Hints): the final one follows
      return at + rest;
    }
    this.#reuse = !head.close;
    this.#keepAliveMs = head.keepAliveMs;
    this.#sink!.head(status, head.statusText, head.headers);
    if (this.#state !== State.Head) return stop; // the sink gave up (cancelled): nothing more to read
    if (this.#noBody || status === 204 || status === 304) {
      this.#finish();
    } else if (head.encoded) {
      if (length !== -1) this.#reuse = false;
      if (head.chunked) this.#state = State.ChunkSize;
      else {
        this.#reuse = false;
        this.#state = State.UntilClose;
      }
    } else if (length >= 0) {
      this.#remaining = length;
      this.#state = State.Length;
      if (length === 0) this.#finish();
    } else {
      this.#reuse = false;
      this.#state = State.UntilClose;
    }
    return at + rest;
  }

  #chunkSize(data: Buffer, at: number, stop: number): number {
    const got = this.#gather(data, at, stop, endOfLine, MAX_CHUNK_LINE, 'chunk-size line');
    if (got === undefined) return stop;
    const line = stripCr(got.buf.toString('latin1', 0, got.end - 1));
    const m = HEX.exec(line);
    if (m === null) {
      this.#state = State.Done;
      throw invalid(`the chunk-size line ${JSON.stringify(line.slice(0, 40))} is not hexadecimal`);
    }
    const size = parseInt(m[1]!, 16);
    if (size === 0) {
      this.#state = State.Trailers;
    } else {
      this.#remaining = size;
      this.#state = State.ChunkData;
    }
    return at + got.used;
  }

  #chunkDataEnd(data: Buffer, at: number, stop: number): number {
    // CRLF (or a bare LF) after the chunk's data, possibly split across packets
    if (!this.#sawCr && data[at] === 0x0d) {
      this.#sawCr = true;
      if (++at === stop) return at;
    }
    if (data[at] !== 0x0a) {
      this.#state = State.Done;
      throw invalid('a chunk is longer than its size says');
    }
    this.#sawCr = false;
    this.#state = State.ChunkSize;
    return at + 1;
  }

  #trailers(data: Buffer, at: number, stop: number): number {
    const got = this.#gather(data, at, stop, endOfLine, this.#maxHeaderBytes - this.#headBytes, 'trailers');
    if (got === undefined) return stop;
    this.#headBytes += got.end;
    const next = at + got.used;
    // an empty line ends the trailers (which are skipped)
    if (got.end === 1 || (got.end === 2 && got.buf[0] === 0x0d)) this.#finish();
    return next;
  }

  #finish(): void {
    this.#state = State.Idle;
    const sink = this.#sink!;
    this.#sink = undefined;
    sink.end(this.#reuse, this.#keepAliveMs);
  }
}

function stripCr(line: string): string {
  return line.length > 0 && line.charCodeAt(line.length - 1) === 13 ? line.slice(0, -1) : line;
}

/** The index just past the head's first empty line, or -1. */
function endOfHead(buf: Buffer, from: number): number {
  // lines end with CRLF, or a bare LF (lenient, as Node's own parser is)
  let lf = buf.indexOf(0x0a, from);
  while (lf >= 0) {
    const next = buf[lf + 1];
    if (next === 0x0a) return lf + 2;
    if (next === 0x0d && buf[lf + 2] === 0x0a) return lf + 3;
    lf = buf.indexOf(0x0a, lf + 1);
  }
  return -1;
}

/** The index just past the next LF, or -1. */
function endOfLine(buf: Buffer, from: number): number {
  const lf = buf.indexOf(0x0a, from);
  return lf >= 0 ? lf + 1 : -1;
}
