/**
 * The web-standard adapter: `Request` → {@link HttpRequest}, {@link HttpReply} → `Response`,
 * SSE replies through a `ReadableStream` of UTF-8 bytes. Works wherever the Fetch API
 * classes exist (Node 18+, Deno, Bun, workers). Runtime-neutral.
 *
 * Design note: a consumer that stops reading is bounded: once more than
 * {@link MAX_BUFFERED_BYTES} wait unread in the stream's queue, the response is errored and
 * the core is told the client disconnected; the stream's events stay in the event store for
 * a resumption.
 */
import { LocalError } from '../../jsonrpc/errors.js';
import { MAX_BUFFERED_BYTES } from './outbound.js';
import type { HttpReply, HttpRequest, SseReplyStream, SseSink } from './types.js';

export { MAX_BUFFERED_BYTES };

const encoder = new TextEncoder();

/** The error a {@link BodyReader} rejects with once a body crosses its limit. */
export function bodyTooLarge(maxBytes: number): LocalError {
  return new LocalError('message_too_large', `The request body exceeds ${maxBytes} bytes`);
}

/** Reads a web request body, stopping (and cancelling it) as soon as it crosses `maxBytes`. */
async function readWebBody(request: Request, maxBytes: number): Promise<string> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > maxBytes) {
    request.body?.cancel().catch(() => {});
    throw bodyTooLarge(maxBytes);
  }
  const body = request.body;
  if (body === null) return '';
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
    chunks.push(value);
  }
  if (chunks.length === 1) return new TextDecoder().decode(chunks[0]);
  const all = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(all);
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

/** Describes a web `Request` for the core. The body is read lazily, with the core's size limit. */
export function describeWebRequest(request: Request): HttpRequest {
  const headers = request.headers;
  return {
    method: request.method,
    url: targetOf(request.url),
    headers: (name) => headers.get(name) ?? (name === 'host' ? hostOf(request.url) : null),
    body: request.body === null ? undefined : (maxBytes) => readWebBody(request, maxBytes),
    rawHeaders: headers,
  };
}

class WebSseSink implements SseSink {
  readonly #controller: ReadableStreamDefaultController<Uint8Array>;
  readonly #stream: SseReplyStream;
  #done = false;

  constructor(controller: ReadableStreamDefaultController<Uint8Array>, stream: SseReplyStream) {
    this.#controller = controller;
    this.#stream = stream;
  }

  write(text: string): void {
    if (this.#done) return;
    const room = this.#controller.desiredSize;
    if (room !== null && room <= 0) {
      this.#fail(new Error('The SSE client is not reading'));
      return;
    }
    try {
      this.#controller.enqueue(encoder.encode(text));
    } catch (error) {
      this.#fail(error);
    }
  }

  end(): void {
    if (this.#done) return;
    this.#done = true;
    try {
      this.#controller.close();
    } catch {
      // already cancelled by the consumer
    }
  }

  /** The consumer cancelled the stream. */
  cancelled(): void {
    this.#done = true;
    this.#stream.disconnected();
  }

  #fail(error: unknown): void {
    if (this.#done) return;
    this.#done = true;
    try {
      this.#controller.error(error);
    } catch {
      // already closed
    }
    this.#stream.disconnected();
  }
}

/** Turns a reply into a web `Response`. */
export function toWebResponse(reply: HttpReply): Response {
  if (reply.stream === undefined) return new Response(reply.body ?? null, { status: reply.status, headers: reply.headers });
  const stream = reply.stream;
  let sink: WebSseSink | undefined;
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        sink = new WebSseSink(controller, stream);
        stream.attach(sink);
      },
      cancel() {
        sink?.cancelled();
      },
    },
    { highWaterMark: MAX_BUFFERED_BYTES, size: (chunk) => chunk.byteLength },
  );
  return new Response(body, { status: reply.status, headers: reply.headers });
}
