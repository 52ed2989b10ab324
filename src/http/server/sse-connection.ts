/**
 * One SSE response on its way to a client: the object the core writes events into and the
 * adapter reads them from.
 *
 * Design note: the core starts writing (the priming event, messages produced while the
 * request is being delivered) before the adapter has turned the reply into a response, so
 * text is buffered until `attach()`. After that every write goes straight to the adapter's
 * sink. The connection knows nothing about MCP or event ids; its owner (a stream of a
 * session) is told, through {@link SseConnectionOwner}, when the client went away — never
 * when the core itself ended the connection. Runtime-neutral.
 */
import type { SseReplyStream, SseSink } from './types.js';

/** Who is told when a connection's client goes away. */
export interface SseConnectionOwner {
  /**
   * The client of `connection` disconnected before the core ended it; `reason` as the
   * adapter gave it to {@link SseReplyStream.disconnected} (set when the adapter cut a client
   * that did not read). Must not throw.
   */
  connectionLost(connection: SseConnection, reason?: Error): void;
}

/** An SSE response: buffered until attached, then written through; see the module note. */
export class SseConnection implements SseReplyStream {
  #sink: SseSink | undefined;
  #buffer = '';
  #ended = false;
  #gone = false;
  /** Told when the client goes away; replaceable (a stream adopts a connection). */
  owner: SseConnectionOwner | undefined;

  constructor(owner?: SseConnectionOwner) {
    this.owner = owner;
  }

  /** True until the core ended the connection or the client went away. */
  get open(): boolean {
    return !this.#ended && !this.#gone;
  }

  /** Writes encoded SSE text; a no-op once the connection is not {@link open}. */
  write(text: string): void {
    if (this.#ended || this.#gone) return;
    if (this.#sink === undefined) this.#buffer += text;
    else this.#sink.write(text);
  }

  /** Ends the response (after the buffered text, when not attached yet). Idempotent. */
  end(): void {
    if (this.#ended || this.#gone) return;
    this.#ended = true;
    this.owner = undefined;
    this.#sink?.end();
  }

  attach(sink: SseSink): void {
    if (this.#sink !== undefined) throw new Error('SseConnection.attach called twice');
    this.#sink = sink;
    if (this.#gone) {
      sink.end();
      return;
    }
    const buffered = this.#buffer;
    this.#buffer = '';
    if (buffered.length > 0) sink.write(buffered);
    if (this.#ended) sink.end();
  }

  disconnected(reason?: Error): void {
    if (this.#ended || this.#gone) return;
    this.#gone = true;
    this.#buffer = '';
    const owner = this.owner;
    this.owner = undefined;
    owner?.connectionLost(this, reason);
  }
}
