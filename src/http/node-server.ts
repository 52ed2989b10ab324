/**
 * `mcpkit/node/server`: the Node.js adapter of the Streamable HTTP handler (`node:http`):
 * `toNodeListener`, `serveNode` and their options. It exports exactly the server names
 * `mcpkit/node` exports, as the same values, and loads none of the HTTP client code (the
 * requester is `mcpkit/node/client`).
 *
 * Design note: no `Request`/`Response` objects and no web streams on this path. The body is
 * read straight from the `IncomingMessage` with the handler's size limit: a small one before
 * the core sees the request (see {@link readFirst}), any other when the core asks, after its
 * header checks — reading stops
 * and 413 is answered as soon as the limit is crossed; the rest of the body is then read and
 * dropped, within `maxDiscardBytes` and `discardTimeoutMs`, so that a client still uploading
 * can read the 413 (then the connection is cut, or reused when the body ended in time).
 * Replies up to {@link WHOLE_REPLY_CHARS} (two slices: a 64 KiB result and its envelope)
 * are written with one `end()`, with `Content-Length`: one socket write instead of a slice
 * and its small remainder, so a client that stops reading can leave up to that much in
 * Node's buffers, outside the outbound budget. SSE replies gather what the core writes
 * during one turn of the event loop into one write, and a reply the core ends within the
 * turn it began in leaves as one body with `Content-Length`. Anything larger leaves through
 * a {@link PacedWriter} (outbound.ts): in slices, as the socket drains, never copied whole
 * into Node's buffers. A client that disconnects, or that stops
 * reading past the outbound bounds (no progress for `stallTimeoutMs`, more than
 * `maxQueuedBytes` behind, or the laggard of a full {@link OutboundBudget}), is disconnected,
 * reported through `onError` and, for a stream, to the core as gone — it never throws out of
 * the adapter. A large reply that does not fit in the {@link OutboundBudget}'s share for new
 * replies is refused before it is queued: its client gets a JSON-RPC error for the request
 * instead (503 for a JSON reply, an error event on a stream; see `OutboundBudget.admits`).
 *
 * Called as a Connect/Express middleware (with `next`), the listener serves only the
 * handler's endpoints and its authorizer's routes and passes every other request on
 * ({@link toNodeListener}).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import { counterText } from '../jsonrpc/values.js';
import type { CloseOptions } from './server/drain.js';
import { handleNow, handleOwn, internalError, ownsPath, StreamableHttpHandler } from './server/handler.js';
import { BodyBudgetError, bodyBudgetReply, InboundBudget } from './server/inbound.js';
import {
  budgetRefusal,
  type OutboundOptions,
  type PacedOutput,
  PacedWriter,
  refusedResponseId,
  resolveOutbound,
  SLICE_CHARS,
  type SlowReaderError,
} from './server/outbound.js';
import { internalErrorReply } from './server/replies.js';
import { targetPath } from './server/request-guard.js';
import type { HttpHeaders, HttpReply, HttpRequest, HttpStreamReply, SseReplyStream, SseSink } from './server/types.js';
import { bodyTooLarge } from './server/web.js';

export { BodyBudgetError, DEFAULT_MAX_TOTAL_BODY_BYTES, InboundBudget } from './server/inbound.js';
export { MAX_BUFFERED_BYTES, OutboundBudget, type OutboundOptions, SlowReaderError, type SlowReaderReason } from './server/outbound.js';

/** The default `maxDiscardBytes`: what is read and dropped of an oversized body after the 413 (64 MiB). */
export const DEFAULT_MAX_DISCARD_BYTES = 64 * 1024 * 1024;
/** The default `discardTimeoutMs`: how long the rest of an oversized body is read and dropped (10 s). */
export const DEFAULT_DISCARD_TIMEOUT_MS = 10_000;

const noop = (): void => {};

/**
 * Reads the body of `req` and calls `done` with its text when it ends, or `oversized` as
 * soon as more than `maxBytes` came or (`overBudget` true) a chunk did not fit in `budget`
 * (reading then stops), or `gone` when the client left before the end. At most one of them
 * is called, once.
 *
 * `reserved`: the bytes the caller already reserved in `budget` for this body (its declared
 * length), or {@link GROWS} for a body of unknown length, which reserves each chunk as it
 * comes. Whatever was reserved is released when the body ends, is cut or its client leaves,
 * before the callback runs: one subtraction for a body of declared length.
 *
 * A body of one chunk (nearly every request) is decoded whole at its end; from a second chunk
 * on, it is decoded chunk by chunk, not gathered and concatenated: a large body would
 * otherwise take a fresh native buffer per request (a `malloc` of its size, the heap grown
 * and trimmed again, page faults on the new pages), which no instruction count shows. A
 * StringDecoder costs two native allocations of its own, so it is made only then. The state
 * lives in the listeners' shared context: no object of its own per request.
 *
 * A body of declared length ends with its last byte: Node's parser hands over exactly the
 * declared bytes, so the chunk that completes them is the end, and no `end` listener is added
 * (a body of unknown or zero length waits for `end`). So a declared body costs two
 * listeners, `data` and `close`, none removed once the body has ended: the request object
 * dies with its exchange, and each `on`/`off` costs about 500 instructions (a fifth of an
 * echo's reading; instructions rows `json mcpkit` and `json mcpkit-2026`).
 * No `error` listener: an IncomingMessage emits `error` only to listeners it has
 * (node:_http_incoming); one cut short emits `close` either way.
 */
function gatherBody(
  req: IncomingMessage,
  maxBytes: number,
  budget: InboundBudget,
  reserved: number,
  done: (text: string) => void,
  oversized: (overBudget: boolean) => void,
  gone: () => void,
): void {
  const grows = reserved === GROWS;
  let held = grows ? 0 : reserved;
  let size = 0;
  let first: Buffer | undefined;
  let decoder: StringDecoder | undefined;
  let text = '';
  let ended = false;
  const end = (): void => {
    if (ended) return;
    ended = true;
    budget.release(held);
    done(decoder !== undefined ? text + decoder.end() : first === undefined ? '' : first.toString('utf8'));
  };
  const onData = (chunk: Buffer): void => {
    if (ended) return;
    size += chunk.length;
    const overBudget = size <= maxBytes && grows && !budget.reserve(chunk.length);
    if (size > maxBytes || overBudget) {
      ended = true;
      req.off('data', onData);
      budget.release(held);
      oversized(overBudget);
      return;
    }
    if (grows) held += chunk.length;
    if (decoder !== undefined) text += decoder.write(chunk);
    else if (first === undefined) first = chunk;
    else {
      decoder = new StringDecoder('utf8');
      text = decoder.write(first) + decoder.write(chunk);
      first = undefined;
    }
    // the declared length is all there is (see the note above)
    if (size === reserved) end();
  };
  req.on('data', onData);
  if (grows || reserved === 0) req.on('end', end);
  req.on('close', () => {
    if (ended) return;
    ended = true;
    budget.release(held);
    gone();
  });
}

/** The `reserved` of {@link gatherBody} for a body of unknown length: each chunk reserves as it comes. */
const GROWS = -1;

/**
 * Reads the body of one request when the core asks, after its checks: a body too large or of
 * unknown length to read first (see {@link readsFirst}), or any body for a subclass's own
 * `handle()`. Remembers whether it was cut for size or refused by the inbound budget (the
 * rest is then dropped; see {@link discardRest}).
 */
class NodeBody {
  readonly #req: IncomingMessage;
  readonly #budget: InboundBudget;
  /** True when the body was cut (past `maxBytes`) or refused (past the inbound budget) before its end. */
  tooLarge = false;

  constructor(req: IncomingMessage, budget: InboundBudget) {
    this.#req = req;
    this.#budget = budget;
  }

  readonly read = (maxBytes: number): Promise<string> => {
    const req = this.#req;
    const budget = this.#budget;
    const header = req.headers['content-length'];
    const declared = header === undefined ? GROWS : Number(header);
    if (declared > maxBytes) {
      this.tooLarge = true;
      return Promise.reject(bodyTooLarge(maxBytes));
    }
    if (declared !== GROWS && !budget.reserve(declared)) {
      this.tooLarge = true;
      return Promise.reject(new BodyBudgetError(budget.maxTotalBodyBytes));
    }
    return new Promise<string>((resolve, reject) => {
      const oversized = (overBudget: boolean): void => {
        this.tooLarge = true;
        reject(overBudget ? new BodyBudgetError(budget.maxTotalBodyBytes) : bodyTooLarge(maxBytes));
      };
      gatherBody(req, maxBytes, budget, declared, resolve, oversized, () => reject(new Error('The client closed the connection before the body was read')));
    });
  };
}

/** How much of an oversized body is dropped, and for how long, before the connection is cut. */
interface DiscardLimits {
  readonly maxDiscardBytes: number;
  readonly discardTimeoutMs: number;
}

/**
 * Reads and drops what is left of an oversized body, so that a client still uploading reads
 * the 413 sent meanwhile: closing a socket with unread input resets the connection, and the
 * reset can destroy the response before the client has read it (RFC 9112 § 9.6). The
 * connection stays usable when the body ends within the limits; past `maxDiscardBytes` or
 * `discardTimeoutMs` it is cut.
 */
function discardRest(req: IncomingMessage, limits: DiscardLimits): void {
  if (req.complete) return;
  let left = limits.maxDiscardBytes;
  const stop = (): void => {
    clearTimeout(timer);
    req.off('data', onData);
    req.off('end', stop);
    req.off('close', stop);
  };
  const cut = (): void => {
    stop();
    req.socket.destroy();
  };
  const onData = (chunk: Buffer): void => {
    left -= chunk.length;
    if (left < 0) cut();
  };
  const timer = setTimeout(cut, limits.discardTimeoutMs);
  timer.unref();
  req.on('data', onData);
  req.on('end', stop);
  req.on('close', stop);
  req.on('error', noop);
  req.resume();
}

/**
 * The largest reply body (UTF-16 code units) written whole with one `end()` rather than
 * through a {@link PacedWriter}: two slices, so a 64 KiB result with its JSON-RPC envelope
 * leaves in one socket write, not a full slice and then a remainder of a few dozen bytes.
 */
const WHOLE_REPLY_CHARS = 2 * SLICE_CHARS;

/**
 * Pending SSE text past which a sink writes at once instead of waiting for the end of the loop
 * turn: the size of a whole reply, so a stream that ends within its first turn with up to
 * that much (a 64 KiB result, its envelope and the priming event) still leaves as one body
 * with `Content-Length`, as a JSON reply of that size does.
 */
const FLUSH_CHARS = WHOLE_REPLY_CHARS;

/** What every reply writer of one listener shares: the limits and where cuts are reported. */
interface NodeOutbound {
  readonly limits: Required<OutboundOptions>;
  readonly report: (error: Error) => void;
  readonly discard: DiscardLimits;
  /** The bound on request-body bytes being read at once. */
  readonly bodies: InboundBudget;
}

/** A {@link PacedOutput} over a Node response whose head is set (`writeHead`) but perhaps not sent. */
class NodeOutput implements PacedOutput {
  readonly #res: ServerResponse;

  constructor(res: ServerResponse) {
    this.#res = res;
  }

  write(chunk: string): boolean {
    return this.#res.write(chunk);
  }

  end(): void {
    this.#res.end();
  }

  abort(): void {
    this.#res.destroy();
  }
}

/**
 * A paced writer on `res`, told when it drains and when it closes (finished or gone). A cut
 * is reported, and handed to `onCut` before the response's `close` event.
 */
function pacedWriter(res: ServerResponse, outbound: NodeOutbound, onCut?: (error: SlowReaderError) => void): PacedWriter {
  const report =
    onCut === undefined
      ? outbound.report
      : (error: SlowReaderError) => {
          onCut(error);
          outbound.report(error);
        };
  const writer = new PacedWriter(new NodeOutput(res), outbound.limits, report);
  res.on('drain', () => writer.drained());
  res.on('close', () => writer.closed());
  return writer;
}

/**
 * Writes one SSE reply to a Node response. Text written during one turn of the event loop
 * is held and leaves in one write when the turn ends (`setImmediate`), so the priming event
 * and a response produced in the same turn share a packet. When the core ends the stream
 * before anything left — the common case of a quick request: priming event, response, end
 * in one turn — the whole reply goes out as one body with `Content-Length`, without
 * chunked framing, and the end-of-turn callback is not needed: a stream that ended during
 * its attach never schedules one, and a later end cancels it. The head is written with the
 * first write either way. Everything past a small reply leaves through a
 * {@link PacedWriter}, at the pace the client reads.
 *
 * The response's `close` and `error` listeners are added only when the stream outlives the
 * turn it started in (or its text leaves early): a quick reply ends as one `res.end()`, like
 * a JSON reply, and needs neither. A client gone before then is found by `res.destroyed`
 * when the turn ends, and reported as its `close` would have been.
 */
class NodeSseSink implements SseSink {
  readonly #res: ServerResponse;
  readonly #stream: SseReplyStream;
  readonly #status: number;
  readonly #headers: HttpHeaders;
  readonly #outbound: NodeOutbound;
  #writer: PacedWriter | undefined = undefined;
  /** Why the writer cut the client, for the core. */
  #cut: SlowReaderError | undefined = undefined;
  #pending = '';
  /** The end-of-turn callback, while one is scheduled. */
  #immediate: ReturnType<typeof setImmediate> | undefined = undefined;
  /** True until {@link attached}: the stream's buffered text and end arrive first, and nothing is scheduled for them. */
  #attaching = true;
  #headSent = false;
  #ended = false;
  #listening = false;

  /** The POST body whose reply this is, when the adapter read it: the id of a refused response comes from it. */
  readonly #requestText: string | undefined;

  constructor(res: ServerResponse, reply: HttpStreamReply, outbound: NodeOutbound, requestText: string | undefined) {
    this.#res = res;
    this.#stream = reply.stream;
    this.#status = reply.status;
    this.#headers = reply.headers;
    this.#outbound = outbound;
    this.#requestText = requestText;
  }

  /** The stream's `attach()` returned: unless it ended there, the head leaves at the end of this turn, even if no event came yet. */
  attached(): void {
    this.#attaching = false;
    if (!this.#ended) this.#schedule();
  }

  write(text: string): void {
    if (this.#ended || this.#res.destroyed) return;
    this.#pending += text;
    // Text the budget would refuse waits for the end of the turn: when the stream ends first,
    // it held the response, and the refusal takes the request's id (see #admitted).
    if (this.#pending.length > FLUSH_CHARS && this.#outbound.limits.budget.admits(this.#pending.length)) this.#flush();
    else if (!this.#attaching) this.#schedule();
  }

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    if (this.#immediate !== undefined) {
      clearImmediate(this.#immediate);
      this.#immediate = undefined;
    }
    const res = this.#res;
    if (res.destroyed) return;
    const body = this.#admitted(this.#pending, true);
    this.#pending = '';
    if (!this.#headSent) {
      this.#headSent = true;
      res.writeHead(this.#status, withLength(this.#headers, body));
      if (body.length <= WHOLE_REPLY_CHARS) {
        res.end(body);
        return;
      }
    }
    this.#listen();
    const writer = this.#paced();
    writer.write(body);
    writer.end();
  }

  /**
   * `text`, or, when it is larger than a slice and does not fit in the outbound budget and
   * carries a response, a JSON-RPC error event for that response instead (reported): unread
   * replies of other clients fill the budget, and this one is not queued behind them. Text
   * without a response goes on (the budget then cuts the laggards). `final`: the stream ends
   * with this text.
   */
  #admitted(text: string, final: boolean): string {
    const budget = this.#outbound.limits.budget;
    if (text.length <= SLICE_CHARS || budget.admits(text.length)) return text;
    // the text a POST's stream ends with holds its response: the request's id, without
    // searching the text (which would copy it whole: V8 flattens a concatenated string first)
    const id = (final ? requestIdText(this.#requestText) : undefined) ?? refusedResponseId(text, true);
    if (id === undefined) return text;
    const refusal = budgetRefusal(budget, id, text.length);
    this.#outbound.report(refusal.error);
    return 'data: ' + refusal.body + '\n\n';
  }

  /** The end of the turn the stream started (or last wrote) in; see {@link flushAtTurnEnd}. */
  turnEnded(): void {
    this.#immediate = undefined;
    if (this.#ended) return;
    if (this.#res.destroyed) {
      this.#gone();
      return;
    }
    this.#flush();
  }

  /** From now on the response's `close` reaches the core, and its `error` is not thrown. */
  #listen(): void {
    if (this.#listening) return;
    this.#listening = true;
    this.#res.on('close', () => this.#gone());
    this.#res.on('error', noop);
  }

  #paced(): PacedWriter {
    return (this.#writer ??= pacedWriter(this.#res, this.#outbound, (error) => (this.#cut = error)));
  }

  /** Sends the head (when not sent yet) and the pending text now. */
  #flush(): void {
    this.#listen();
    const res = this.#res;
    if (!this.#headSent) {
      this.#headSent = true;
      res.writeHead(this.#status, this.#headers);
      if (this.#pending.length === 0) res.flushHeaders();
    }
    if (this.#pending.length > 0) {
      const text = this.#pending;
      this.#pending = '';
      this.#paced().write(this.#admitted(text, false));
    }
  }

  /** Flushes at the end of this loop turn. */
  #schedule(): void {
    if (this.#immediate === undefined) this.#immediate = setImmediate(flushAtTurnEnd, this);
  }

  /** The client went away (or the response closed) before the core ended the stream. */
  #gone(): void {
    if (!this.#ended) {
      this.#ended = true;
      this.#pending = '';
      this.#stream.disconnected(this.#cut);
    }
  }
}

/** The `setImmediate` callback of every {@link NodeSseSink}: one function, no closure per reply. */
function flushAtTurnEnd(sink: NodeSseSink): void {
  sink.turnEnded();
}

function headerLookup(req: IncomingMessage): (name: string) => string | null {
  const headers = req.headers;
  return (name) => {
    const value = headers[name];
    return value === undefined ? null : typeof value === 'string' ? value : value.join(', ');
  };
}

/**
 * `headers` and `content-length` (of `body` in UTF-8; one in `headers` is dropped) as the flat
 * list `writeHead` takes.
 * Node checks each header once on this path; `setHeader()` before `writeHead()` sends every
 * header through `setHeader` (checked, lower-cased, stored as a pair) and then through the
 * head writer again.
 */
function withLength(headers: HttpHeaders, body: string): string[] {
  const lines: string[] = [];
  for (const name in headers) {
    // the body's own length wins over one a reply carries
    if (name.length !== 14 || name.toLowerCase() !== 'content-length') lines.push(name, headers[name]!);
  }
  // counterText: a length seen once would otherwise stay in V8's number-string cache (docs/performance.md)
  lines.push('content-length', counterText(Buffer.byteLength(body)));
  return lines;
}

/**
 * The id of the one request the POST body `text` carries, as JSON text; undefined for a
 * batch, a body without a request, or no text. Parses the body again: called only for a reply
 * the budget refused.
 */
function requestIdText(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  try {
    const id = (JSON.parse(text) as { id?: unknown } | null)?.id;
    return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? JSON.stringify(id) : undefined;
  } catch {
    return undefined;
  }
}

/** The headers of a JSON reply refused by the outbound budget (503): retry once readers caught up. */
const REFUSAL_HEADERS: HttpHeaders = Object.freeze({ 'content-type': 'application/json', 'retry-after': '5' });

/**
 * Writes a core reply to a Node response; a large body leaves in slices as the client reads.
 * A JSON response larger than {@link WHOLE_REPLY_CHARS} that does not fit in the outbound
 * budget is replaced by 503 with a JSON-RPC error for its id (see `budgetRefusal`). Never throws.
 */
function writeReply(res: ServerResponse, reply: HttpReply, outbound: NodeOutbound, requestText?: string): void {
  if (res.destroyed) {
    reply.stream?.disconnected();
    return;
  }
  try {
    if (reply.stream === undefined) {
      let body = reply.body;
      let status = reply.status;
      let headers = reply.headers;
      if (body !== undefined && body.length > WHOLE_REPLY_CHARS && !outbound.limits.budget.admits(body.length)) {
        // unread replies fill the budget: this one is not queued; its client gets a JSON-RPC
        // error. The id comes from the request when the adapter read it (reading the reply's
        // text would copy it whole: V8 flattens a concatenated string to search it).
        const id = requestIdText(requestText) ?? refusedResponseId(body, false);
        if (id !== undefined) {
          const refusal = budgetRefusal(outbound.limits.budget, id, body.length);
          outbound.report(refusal.error);
          body = refusal.body;
          status = 503;
          headers = REFUSAL_HEADERS;
        }
      }
      res.writeHead(status, body === undefined ? headers : withLength(headers, body));
      if (body === undefined || body.length <= WHOLE_REPLY_CHARS) {
        res.end(body);
        return;
      }
      res.on('error', noop);
      const writer = pacedWriter(res, outbound);
      writer.write(body);
      writer.end();
      return;
    }
    const sink = new NodeSseSink(res, reply, outbound, requestText);
    reply.stream.attach(sink);
    sink.attached();
  } catch {
    reply.stream?.disconnected();
    res.destroy();
  }
}

/** Where the adapter finds the authenticated principal: `req.auth`, as auth middlewares set it. */
interface AuthenticatedRequest extends IncomingMessage {
  auth?: unknown;
}

/**
 * Options of {@link toNodeListener}: the bounds on what replies may keep waiting for clients
 * that do not read them (see outbound.ts). Every limit has a safe default.
 */
export interface NodeListenerOptions extends OutboundOptions {
  /**
   * Bytes of an oversized body (one past the handler's `maxBodyBytes`, answered 413) that
   * are still read and dropped after the 413, so a client that is still uploading can read
   * it. Past this the connection is cut. Default {@link DEFAULT_MAX_DISCARD_BYTES} (64 MiB).
   */
  maxDiscardBytes?: number;
  /**
   * How long the rest of an oversized body is read and dropped, in ms; then the connection
   * is cut. Default {@link DEFAULT_DISCARD_TIMEOUT_MS} (10 s).
   */
  discardTimeoutMs?: number;
  /**
   * The most request-body bytes this listener holds at once, across all its connections: a
   * body reserves its declared `Content-Length` before it is read (a chunked body, each chunk
   * as it comes) and releases it once read, cut or abandoned; a request whose body does not
   * fit is answered 503 with `Retry-After`, its body unread. Gives the listener a budget of
   * its own; without it (and without `bodyBudget`) the listener shares
   * {@link InboundBudget.shared} (64 MiB per process: sixteen 4 MiB bodies, or a thousand
   * 64 KiB ones, at once).
   */
  maxTotalBodyBytes?: number;
  /** An inbound budget shared with other listeners (instead of `maxTotalBodyBytes`). Default {@link InboundBudget.shared}. */
  bodyBudget?: InboundBudget;
  /**
   * Receives the adapter's reports: a {@link SlowReaderError} for each client cut for not
   * reading its replies. Default: the handler's `onError`. Must not throw.
   */
  onError?: (error: Error) => void;
}

/**
 * A `node:http` request listener serving `handler`. Usable with `http.createServer()` and
 * frameworks that pass Node's objects (Express, Fastify's raw mode). The auth info handed to
 * MCP handlers is `req.auth` when an auth middleware set it.
 *
 * Called with a third argument `next` (as Connect and Express call a middleware: mount it
 * at the application's root with `app.use(listener)`), it serves the handler's endpoints and
 * the routes of its authorizer (the protected resource metadata of `requireBearerAuth`, at
 * `/.well-known/oauth-protected-resource/...`), and calls `next()` for every other request,
 * its body unread. Without `next` (or for a handler subclass with its own `handle()`) every
 * request is the handler's: other paths get 404.
 *
 * Replies leave at the pace the
 * client reads them, within the bounds of `options` (a client past them is disconnected and
 * reported). Never throws; internal failures become 500 replies (reported through the
 * handler's `onError`). Throws `RangeError` at once for a limit that is not positive.
 */
export function toNodeListener(handler: StreamableHttpHandler, options: NodeListenerOptions = {}): NodeListener {
  const onError = options.onError ?? ((error: Error) => handler.reportError(error));
  const discard: DiscardLimits = {
    maxDiscardBytes: options.maxDiscardBytes ?? DEFAULT_MAX_DISCARD_BYTES,
    discardTimeoutMs: options.discardTimeoutMs ?? DEFAULT_DISCARD_TIMEOUT_MS,
  };
  if (!(discard.maxDiscardBytes >= 0)) throw new RangeError('maxDiscardBytes must not be negative');
  if (!(discard.discardTimeoutMs >= 1)) throw new RangeError('discardTimeoutMs must be at least 1');
  if (options.maxTotalBodyBytes !== undefined && options.bodyBudget !== undefined) throw new RangeError('give maxTotalBodyBytes or bodyBudget, not both');
  const outbound: NodeOutbound = {
    discard,
    bodies: options.bodyBudget ?? (options.maxTotalBodyBytes === undefined ? InboundBudget.shared : new InboundBudget(options.maxTotalBodyBytes)),
    limits: resolveOutbound(options),
    report: (error) => {
      try {
        onError(error);
      } catch {
        // a reporter that throws must not break the adapter
      }
    },
  };
  // the session transports refuse a reply that does not fit before they serialize it
  handler._outbound = { budget: outbound.limits.budget, report: outbound.report };
  // a subclass's own handle() is honoured; the handler's is entered without its promise
  const direct = handler.handle === StreamableHttpHandler.prototype.handle;
  return (req, res, next) => {
    if (typeof next === 'function' && direct && !ownsPath(handler, targetPath(req.url ?? '/')))
      passOrServe(handler, req as AuthenticatedRequest, res, outbound, next);
    else serve(handler, direct, req as AuthenticatedRequest, res, outbound);
  };
}

/** The listener {@link toNodeListener} returns: a `node:http` request listener, and a Connect/Express middleware when given `next`. */
export type NodeListener = (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void) => void;

/**
 * A request, in a middleware chain, for a path other than the handler's endpoints: the
 * authorizer's routes (its metadata) may answer it; else it goes on down the chain with its
 * body unread.
 */
function passOrServe(
  handler: StreamableHttpHandler,
  req: AuthenticatedRequest,
  res: ServerResponse,
  outbound: NodeOutbound,
  next: (error?: unknown) => void,
): void {
  const request = describe(req, req.method === 'GET' || req.method === 'HEAD' ? undefined : new NodeBody(req, outbound.bodies));
  const answer = (reply: HttpReply | undefined): void => {
    if (reply === undefined) next();
    else writeReply(res, reply, outbound);
  };
  void handleOwn(handler, request, req.auth === undefined ? undefined : { authInfo: req.auth }).then(answer);
}

function serve(handler: StreamableHttpHandler, direct: boolean, req: AuthenticatedRequest, res: ServerResponse, outbound: NodeOutbound): void {
  if (req.method !== 'POST') dispatch(handler, direct, req, res, outbound, undefined);
  else if (direct && readsFirst(req, handler.maxBodyBytes)) readFirst(handler, req, res, outbound);
  else dispatch(handler, direct, req, res, outbound, new NodeBody(req, outbound.bodies));
}

/**
 * The largest body read before the core has seen its request (its header checks, its
 * authorizer): 64 KiB, so what an unauthenticated or refused client makes the server hold
 * is bounded by this, not by `maxBodyBytes`.
 */
const READ_FIRST_BYTES = 64 * 1024;

/** True when `req` declares a body of at most {@link READ_FIRST_BYTES} (and of `maxBytes`): one {@link readFirst} takes. */
function readsFirst(req: IncomingMessage, maxBytes: number): boolean {
  const declared = req.headers['content-length'];
  return declared !== undefined && Number(declared) <= Math.min(maxBytes, READ_FIRST_BYTES);
}

/**
 * A POST to the handler's own entry with a small declared body (see {@link readsFirst}): the
 * body is read here, before the core sees the request, and handed over as text. The core's
 * answer then comes in the turn the body ended in, without the promise, the two reactions and
 * the microtask turn a body reader costs per request. A client gone before its body ended
 * never reaches the core: there is no one to answer. Larger bodies, and bodies of unknown
 * length, are read by the core once its checks pass (see {@link NodeBody}). A body that does
 * not fit in the inbound budget is not read: 503 with `Retry-After`.
 */
function readFirst(handler: StreamableHttpHandler, req: AuthenticatedRequest, res: ServerResponse, outbound: NodeOutbound): void {
  const declared = Number(req.headers['content-length']);
  if (!outbound.bodies.reserve(declared)) {
    // refused unread: the rest is dropped within the discard bounds, not held
    discardRest(req, outbound.discard);
    writeReply(res, bodyBudgetReply(), outbound);
    return;
  }
  // no size bound here: Node's parser ends a body at its declared length, which readsFirst checked
  gatherBody(req, Infinity, outbound.bodies, declared, (text) => dispatch(handler, true, req, res, outbound, text), noop, noop);
}

/** The core's description of `req`; `body`: its text already read, or its reader, or none. */
function describe(req: IncomingMessage, body: string | NodeBody | undefined): HttpRequest {
  return {
    method: req.method ?? 'GET',
    url: req.url ?? '/',
    headers: headerLookup(req),
    body: typeof body === 'object' ? body.read : body,
    rawHeaders: req.headers,
  };
}

/**
 * Hands one request to the core and writes its reply. `body`: the text already read, or the
 * reader the core calls (which also tells whether the body was cut for size), or none.
 */
function dispatch(
  handler: StreamableHttpHandler,
  direct: boolean,
  req: AuthenticatedRequest,
  res: ServerResponse,
  outbound: NodeOutbound,
  body: string | NodeBody | undefined,
): void {
  const request = describe(req, body);
  const answer = (reply: HttpReply): void => {
    // the 413 leaves at once; the connection is kept (no `Connection: close`, which would make
    // Node close it under the upload) while the rest of the body is dropped within bounds
    if (typeof body === 'object' && body.tooLarge) discardRest(req, outbound.discard);
    writeReply(res, reply, outbound, typeof body === 'string' ? body : undefined);
  };
  const info = req.auth === undefined ? undefined : { authInfo: req.auth };
  let replied: HttpReply | Promise<HttpReply>;
  try {
    // a reply ready at once (a synchronous handler behind a body the adapter had) is written at once
    // (kept: instructions rows `json mcpkit` +2.6 %, `json mcpkit-2026` +2.7 % through handle(); see handler.ts #route)
    replied = direct ? handleNow(handler, request, info) : handler.handle(request, info);
  } catch (error) {
    replied = Promise.reject(error); // a subclass's handle() that throws: answered as one that rejects
  }
  if (!(replied instanceof Promise)) {
    answer(replied);
    return;
  }
  // one reaction on the handler's promise (an async function would add its own and an await's)
  replied.then(answer, (error: unknown) => answer(direct ? internalError(handler, error) : internalErrorReply()));
}

/** Options of {@link serveNode}: the listener's (outbound bounds, `onError`) and the server's. */
export interface ServeNodeOptions extends NodeListenerOptions {
  /** TCP port; 0 picks a free one. Default 0. */
  port?: number;
  /** Interface to bind. Default `127.0.0.1` (loopback only). */
  host?: string;
  /**
   * Time allowed to receive a whole request (headers and body), in ms (Node's
   * `requestTimeout`; raised to `headersTimeoutMs` when shorter). A request still incomplete
   * then is answered 408 and its connection closed, at most {@link MAX_TIMEOUT_CHECK_MS} late.
   * Default 30 000.
   */
  requestTimeoutMs?: number;
  /**
   * Time allowed to receive the request headers, in ms (Node's `headersTimeout`); enforced
   * like `requestTimeoutMs`, at most {@link MAX_TIMEOUT_CHECK_MS} (or a tenth of this, when
   * shorter) late. Default 10 000.
   */
  headersTimeoutMs?: number;
  /** Idle time of a kept-alive connection between requests, in ms. Default 5 000. */
  keepAliveTimeoutMs?: number;
  /**
   * The most connections open at once (Node's `server.maxConnections`): a connection past it
   * is closed by Node as soon as it is accepted, before any of it is read. Default
   * {@link DEFAULT_MAX_CONNECTIONS} (4096). Must be at least 1.
   */
  maxConnections?: number;
}

/**
 * The default `maxConnections` of {@link serveNode}: 4096. Each open connection costs a file
 * descriptor, kernel socket buffers and Node's parser state (a few KiB to a few hundred KiB),
 * so this keeps what idle or trickling connections can pin to a few hundred MiB at worst,
 * while far above what one MCP server needs (a client holds one or two: its POSTs and a GET
 * stream). Raise it (and the process's file limit) for a server with more clients.
 */
export const DEFAULT_MAX_CONNECTIONS = 4096;

/** The longest time between two of Node's checks of the receive timeouts (1 s). */
const MAX_TIMEOUT_CHECK_MS = 1000;

/**
 * How often Node checks the receive timeouts of open connections (its
 * `connectionsCheckingInterval`, 30 s by default, which let a 30 s `requestTimeout` fire only
 * after up to 60 s): every {@link MAX_TIMEOUT_CHECK_MS}, or every tenth of `headersTimeout`
 * when that is shorter, so each timeout is enforced at most that much late. One check walks
 * the open connections (a few instructions each). A `headersTimeout` of 0 (off) leaves the
 * checks at {@link MAX_TIMEOUT_CHECK_MS}.
 */
function timeoutCheckInterval(headersTimeout: number): number {
  return headersTimeout > 0 ? Math.max(10, Math.min(MAX_TIMEOUT_CHECK_MS, Math.floor(headersTimeout / 10))) : MAX_TIMEOUT_CHECK_MS;
}

/** A running Node server from {@link serveNode}. */
export interface NodeServerHandle {
  readonly server: Server;
  /** The bound port. */
  readonly port: number;
  /** The inbound budget the server's bodies are read under (`held` tells the bytes reserved now). */
  readonly bodyBudget: InboundBudget;
  /** The MCP endpoint's URL (`http://127.0.0.1:PORT/mcp`). */
  readonly url: string;
  /**
   * Closes the handler's sessions (with `drainMs`, after draining them: see the handler's
   * `close`), then every connection and the listening socket. Idempotent: a second call
   * resolves with the first.
   */
  close(options?: CloseOptions): Promise<void>;
}

/**
 * Serves `handler` on a new `node:http` server bound to `options.host` (default
 * `127.0.0.1`). Resolves once listening; rejects when the port cannot be bound. Timeouts on
 * receiving requests are set (defaults 10 s for headers, 30 s for the whole request) and
 * checked every second, so each holds within a second; a long SSE response is not limited
 * by them. Connections are capped (`maxConnections`) and request bodies read at once share
 * an inbound budget (`maxTotalBodyBytes`). Throws `RangeError` for a limit below 1.
 */
export async function serveNode(handler: StreamableHttpHandler, options: ServeNodeOptions = {}): Promise<NodeServerHandle> {
  const host = options.host ?? '127.0.0.1';
  const headersTimeout = options.headersTimeoutMs ?? 10_000;
  const requestTimeout = Math.max(options.requestTimeoutMs ?? 30_000, headersTimeout);
  const maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  if (!(maxConnections >= 1)) throw new RangeError('maxConnections must be at least 1');
  if (options.maxTotalBodyBytes !== undefined && options.bodyBudget !== undefined) throw new RangeError('give maxTotalBodyBytes or bodyBudget, not both');
  const bodyBudget = options.bodyBudget ?? (options.maxTotalBodyBytes === undefined ? InboundBudget.shared : new InboundBudget(options.maxTotalBodyBytes));
  const server = createServer(
    { requestTimeout, headersTimeout, connectionsCheckingInterval: timeoutCheckInterval(headersTimeout) },
    toNodeListener(handler, { ...options, maxTotalBodyBytes: undefined, bodyBudget }),
  );
  server.keepAliveTimeout = options.keepAliveTimeoutMs ?? 5000;
  server.maxConnections = maxConnections;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  return {
    server,
    port,
    bodyBudget,
    url: `http://${urlHost}:${port}${handler.endpoint}`,
    close: (closeOptions?: CloseOptions) =>
      (closing ??= (async () => {
        await handler.close(closeOptions);
        const done = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await done;
      })()),
  };
}
