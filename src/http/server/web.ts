/**
 * The web-standard adapter: `Request` → {@link HttpRequest}, {@link HttpReply} → `Response`,
 * SSE replies through a `ReadableStream` of UTF-8 bytes. Works wherever the Fetch API
 * classes exist (Node 18+, Deno, Bun, workers). Runtime-neutral.
 *
 * Design note: an SSE body is pull-based. The core's text waits in a {@link PacedWriter}
 * (outbound.ts) and is encoded one slice at a time as the consumer pulls, so the stream's
 * own queue holds about one slice ({@link SLICE_CHARS}). A consumer that stops pulling is
 * bounded by the writer's limits — no progress for `stallTimeoutMs`, more than
 * `maxQueuedBytes` (default {@link MAX_BUFFERED_BYTES}) behind at a new event, or the stalest
 * of a full budget: the response is errored and the core is told the client disconnected;
 * the stream's events stay in the event store for a resumption. Plain replies are a string
 * body the runtime writes as it does any other.
 */
import { LocalError } from '../../jsonrpc/errors.js';
import { BodyBudgetError, InboundBudget } from './inbound.js';
import { MAX_BUFFERED_BYTES, type OutboundOptions, type PacedOutput, PacedWriter, resolveOutbound, SLICE_CHARS, type SlowReaderError } from './outbound.js';
import type { HttpReply, HttpRequest, SseReplyStream, SseSink } from './types.js';

export { MAX_BUFFERED_BYTES };

const encoder = new TextEncoder();

/** The error a {@link BodyReader} rejects with once a body crosses its limit. */
export function bodyTooLarge(maxBytes: number): LocalError {
  return new LocalError('message_too_large', `The request body exceeds ${maxBytes} bytes`);
}

/** One decoder for every body (a `decode` without `stream` keeps no state between calls). */
const decoder = new TextDecoder();

/**
 * Reads a web request body as UTF-8 text, within `maxBytes` and the inbound `budget`:
 * - a declared `Content-Length` above `maxBytes` is refused before anything is read; one
 *   that does not fit in `budget` likewise; else it is reserved, and the body is read in one
 *   call of the runtime's own `text()` (no JS stream or reader: the runtime's server frames
 *   the body by that length, so it cannot grow past it — and text longer than `maxBytes`
 *   characters, which only an in-process `Request` lying about its length can carry, is
 *   still refused); `Content-Length: 0` reads nothing;
 * - a body of unknown length (chunked) is read chunk by chunk, each chunk reserved as it
 *   comes, and cancelled as soon as it crosses `maxBytes` or the budget.
 * The reservation is released when the read ends, however it ends. `request.body` is not
 * touched on the declared-length path (on Bun, asking for it builds a JS stream).
 */
async function readWebBody(request: Request, maxBytes: number, budget: InboundBudget): Promise<string> {
  const header = request.headers.get('content-length');
  const declared = header === null ? -1 : Number(header);
  if (declared > maxBytes) {
    request.body?.cancel().catch(() => {});
    throw bodyTooLarge(maxBytes);
  }
  if (declared === 0) return '';
  if (declared > 0) {
    if (!budget.reserve(declared)) {
      request.body?.cancel().catch(() => {});
      throw new BodyBudgetError(budget.maxTotalBodyBytes);
    }
    try {
      const text = await request.text();
      if (text.length > maxBytes) throw bodyTooLarge(maxBytes);
      return text;
    } finally {
      budget.release(declared);
    }
  }
  const body = request.body;
  if (body === null) return '';
  let held = 0;
  try {
    const reader = body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        reader.cancel().catch(() => {});
        throw bodyTooLarge(maxBytes);
      }
      if (!budget.reserve(value.byteLength)) {
        reader.cancel().catch(() => {});
        throw new BodyBudgetError(budget.maxTotalBodyBytes);
      }
      held += value.byteLength;
      chunks.push(value);
    }
    if (chunks.length === 1) return decoder.decode(chunks[0]);
    const all = new Uint8Array(size);
    let offset = 0;
    for (const chunk of chunks) {
      all.set(chunk, offset);
      offset += chunk.byteLength;
    }
    return decoder.decode(all);
  } finally {
    budget.release(held);
  }
}

/** Path and query of an absolute URL. */
function targetOf(url: string): string {
  const scheme = url.indexOf('://');
  const slash = url.indexOf('/', scheme < 0 ? 0 : scheme + 3);
  return slash < 0 ? '/' : url.slice(slash);
}

/** The host part of an absolute URL (the `Host` a `Request` built in process may lack). */
function hostOf(url: string): string | null {
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
}

/**
 * Describes a web `Request` for the core. The body is read lazily, with the core's size
 * limit, under `budget` (default {@link InboundBudget.shared}): see {@link readWebBody}.
 */
export function describeWebRequest(request: Request, budget: InboundBudget = InboundBudget.shared): HttpRequest {
  return describeReadRequest(request, request.headers.get('host'), request.url, budget);
}

/**
 * {@link describeWebRequest} for a caller that has read the request's `Host` header and URL
 * already (`handler.fetch` checks both first): neither is read from the `Request` again —
 * on Bun and Deno each read is a call into the runtime that builds a new string.
 */
export function describeReadRequest(request: Request, host: string | null, url: string, budget: InboundBudget = InboundBudget.shared): HttpRequest {
  const headers = request.headers;
  return {
    method: request.method,
    url: targetOf(url),
    headers: (name) => (name === 'host' ? (host ?? hostOf(url)) : headers.get(name)),
    // a reader even when there is no body (it reads ''): asking `request.body` here would
    // build a stream on Bun for every request, GETs included
    body: (maxBytes) => readWebBody(request, maxBytes, budget),
    rawHeaders: headers,
  };
}

/** A {@link PacedOutput} over a byte stream's controller: slices are encoded one at a time, as the consumer pulls. */
class WebOutput implements PacedOutput {
  readonly #controller: ReadableStreamDefaultController<Uint8Array>;
  readonly #stream: SseReplyStream;

  constructor(controller: ReadableStreamDefaultController<Uint8Array>, stream: SseReplyStream) {
    this.#controller = controller;
    this.#stream = stream;
  }

  write(chunk: string): boolean {
    try {
      this.#controller.enqueue(encoder.encode(chunk));
    } catch {
      return true; // cancelled meanwhile: the sink hears of it through cancel()
    }
    return (this.#controller.desiredSize ?? 1) > 0;
  }

  end(): void {
    try {
      this.#controller.close();
    } catch {
      // already cancelled by the consumer
    }
  }

  abort(error: SlowReaderError): void {
    try {
      this.#controller.error(error);
    } catch {
      // already closed
    }
    this.#stream.disconnected(error);
  }
}

/** The core's SSE text into a pull-based byte stream, through a {@link PacedWriter}. */
class WebSseSink implements SseSink {
  readonly #writer: PacedWriter;
  readonly #stream: SseReplyStream;

  constructor(writer: PacedWriter, stream: SseReplyStream) {
    this.#writer = writer;
    this.#stream = stream;
  }

  write(text: string): void {
    this.#writer.write(text);
  }

  end(): void {
    this.#writer.end();
  }

  /** The consumer cancelled the stream. */
  cancelled(): void {
    this.#writer.closed();
    this.#stream.disconnected();
  }
}

/** Options of {@link toWebResponse}: the outbound bounds of an SSE body, and where cuts are reported. */
export interface WebResponseOptions extends OutboundOptions {
  /** Hears a {@link SlowReaderError} for each consumer cut for not reading. Default: none. Must not throw. */
  onError?: (error: Error) => void;
}

/** Turns a reply into a web `Response`. */
export function toWebResponse(reply: HttpReply, options: WebResponseOptions = {}): Response {
  if (reply.stream === undefined) return new Response(reply.body ?? null, { status: reply.status, headers: reply.headers });
  const stream = reply.stream;
  const limits = resolveOutbound(options);
  const onError = options.onError;
  const report = (error: Error): void => {
    try {
      onError?.(error);
    } catch {
      // a reporter that throws must not break the stream
    }
  };
  let writer: PacedWriter | undefined;
  let sink: WebSseSink | undefined;
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        writer = new PacedWriter(new WebOutput(controller, stream), limits, report);
        sink = new WebSseSink(writer, stream);
        stream.attach(sink);
      },
      pull() {
        writer?.drained();
      },
      cancel() {
        sink?.cancelled();
      },
    },
    { highWaterMark: SLICE_CHARS, size: (chunk) => chunk.byteLength },
  );
  return new Response(body, { status: reply.status, headers: reply.headers });
}
