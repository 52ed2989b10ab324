/**
 * The server side of the stdio transport: reads newline-delimited JSON-RPC from stdin and
 * writes it to stdout (spec: Transports → stdio).
 *
 * Design note: the transport only frames. Every complete line goes to the receiver as raw
 * text — including lines that are not JSON, so the session can answer them with -32700 —
 * and only oversized lines are dropped here (reported as `message_too_large`, memory kept
 * bounded) and answered here: with -32600 naming the request's id when a constant-memory scan
 * of the line recovers it (wherever in the line it sits), with a null id otherwise, or -32700
 * when the line is visibly not JSON (see oversized-reply.ts); the connection stays usable. Nothing but encoded messages is ever written to stdout. Failures of the output
 * stream (EPIPE when the client has gone) and of the input stream end the connection through
 * `receiver.closed(error)`; they never throw out of the transport or crash the process.
 *
 * Backpressure: writes wait for stdout's 'drain'. While more than `maxQueuedOutputChars` of
 * output waits for a client that does not read it, stdin is paused (the client's further
 * requests stay in the pipe, so its writes block instead of our memory growing), and reading
 * resumes once the queue has drained to half the bound. Everything the server writes counts:
 * all of it is a consequence of what the client sent.
 */
import type { Readable, Writable } from 'node:stream';
import type { EnvelopeSummary } from '../framing/envelope-scan.js';
import { encodeLine, NdjsonDecoder, type NdjsonSink, type OversizedLineError } from '../framing/ndjson.js';
import { LocalError, toError } from '../jsonrpc/errors.js';
import type { JSONRPCMessage } from '../jsonrpc/types.js';
import type { SendOptions, Transport, TransportReceiver } from '../transport/types.js';
import { LineWriter, outputHighWater, pauseInputUnderPressure } from './line-writer.js';
import { oversizedLineReply } from './oversized-reply.js';

/** Options of {@link StdioServerTransport}. */
export interface StdioServerTransportOptions {
  /** Where messages are read from. Default `process.stdin`. */
  stdin?: Readable;
  /** Where messages are written. Default `process.stdout`. Nothing else is written to it. */
  stdout?: Writable;
  /**
   * Largest accepted incoming line in bytes (default 4 MiB). A longer line is skipped in
   * bounded memory, reported to `receiver.error` (`message_too_large`) and answered with a
   * JSON-RPC error (-32600 with the request's id when it can be read, see the design note).
   */
  maxLineBytes?: number;
  /**
   * Most output, in characters of encoded JSON (about bytes), allowed to wait for a client
   * that is not reading stdout before the transport stops reading stdin. Default 1 Mi
   * (1,048,576; `DEFAULT_MAX_QUEUED_OUTPUT_CHARS`). Crossing it pauses stdin (nothing is dropped);
   * reading resumes when the queue has drained to half of it. `Infinity` never pauses.
   */
  maxQueuedOutputChars?: number;
}

type State = 'new' | 'open' | 'closed';

/**
 * A server's end of a stdio connection.
 *
 * Lifecycle: `start(receiver)` once; messages then flow until stdin ends (→ `closed()`),
 * stdin or stdout fails (→ `closed(error)`), or `close()` is called (→ `closed()`).
 * The streams themselves are not ended or destroyed: they belong to the process.
 */
export class StdioServerTransport implements Transport {
  readonly #in: Readable;
  readonly #out: Writable;
  readonly #decoder: NdjsonDecoder;
  readonly #writer: LineWriter;
  #receiver: TransportReceiver | undefined;
  #state: State = 'new';

  readonly #onData = (chunk: Uint8Array | string): void => this.#decoder.push(chunk);
  readonly #onEnd = (): void => {
    this.#decoder.end();
    this.#finish(undefined);
  };
  // The two error listeners stay attached after close: a late error (say an EPIPE from a
  // write still buffered) must not become an uncaught 'error' event that kills the process.
  readonly #onInputError = (error: Error): void => this.#finish(error);
  readonly #onOutputError = (error: Error): void => this.#finish(error);
  readonly #onOutputClose = (): void => this.#finish(new LocalError('connection_closed', 'stdout was closed'));

  /** Throws `RangeError` for an invalid `maxLineBytes` or `maxQueuedOutputChars`. Reads nothing until {@link start}. */
  constructor(options: StdioServerTransportOptions = {}) {
    this.#in = options.stdin ?? process.stdin;
    this.#out = options.stdout ?? process.stdout;
    this.#decoder = new NdjsonDecoder(this.#sink(), options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes });
    const pressure = pauseInputUnderPressure(this.#in, outputHighWater(options.maxQueuedOutputChars), () => this.#state === 'open');
    this.#writer = new LineWriter(this.#out, (error) => this.#finish(error), pressure);
  }

  /**
   * Starts reading stdin and delivering lines to `receiver`, in order. Throws
   * `LocalError('already_connected')` when called twice, `connection_closed` after close.
   */
  /** Messages travel over this process's stdin and stdout (OpenTelemetry's `network.transport`). */
  get network(): 'pipe' {
    return 'pipe';
  }

  start(receiver: TransportReceiver): void {
    if (this.#state === 'closed') throw new LocalError('connection_closed', 'Transport is closed');
    if (this.#receiver !== undefined) throw new LocalError('already_connected', 'Transport already started');
    this.#receiver = receiver;
    this.#state = 'open';
    this.#out.on('error', this.#onOutputError);
    this.#out.on('close', this.#onOutputClose);
    this.#in.on('error', this.#onInputError);
    this.#in.on('end', this.#onEnd);
    this.#in.on('data', this.#onData);
    if (this.#in.readableEnded) queueMicrotask(this.#onEnd);
    if (this.#out.destroyed || this.#out.writableEnded) queueMicrotask(this.#onOutputClose);
  }

  /**
   * Writes one message (or batch, or pre-serialized JSON text without line breaks) as one
   * line. Resolves once stdout has accepted it without exceeding its buffer (waiting for
   * 'drain' when needed; order is always call order). Rejects with
   * `LocalError('connection_closed')` before start or after close, and
   * `LocalError('invalid_message')` for a message that cannot be encoded. Never throws.
   */
  send(message: JSONRPCMessage | JSONRPCMessage[] | string, _options?: SendOptions): Promise<void> {
    if (this.#state !== 'open') return Promise.reject(new LocalError('connection_closed', 'Transport is not open'));
    let line: string;
    try {
      line = encodeLine(message);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#writer.write(line);
  }

  /**
   * Stops reading stdin, hands any messages still queued for backpressure to stdout, and
   * fires `receiver.closed()` (once). Idempotent. Does not end stdout.
   */
  close(): Promise<void> {
    if (this.#state === 'open') this.#writer.flush();
    this.#finish(undefined);
    return Promise.resolve();
  }

  #sink(): NdjsonSink {
    return {
      line: (text: string): void => {
        if (this.#state !== 'open') return; // the receiver closed us mid-chunk
        try {
          this.#receiver!.message(text);
        } catch (error) {
          this.#reportError(error);
        }
      },
      oversized: (error: OversizedLineError): void => {
        if (this.#state === 'open') this.#reportError(error);
      },
      oversizedEnd: (envelope: EnvelopeSummary): void => {
        if (this.#state !== 'open') return;
        const reply = oversizedLineReply(envelope, this.#decoder.maxLineBytes);
        if (reply !== null) this.#writer.write(encodeLine(reply)).catch(() => {}); // a failed write closes the transport
      },
    };
  }

  #reportError(error: unknown): void {
    try {
      this.#receiver!.error(toError(error));
    } catch {
      // A receiver must not throw; if it does, there is nobody left to tell.
    }
  }

  #finish(reason: Error | undefined): void {
    if (this.#state === 'closed') return;
    const wasOpen = this.#state === 'open';
    this.#state = 'closed';
    this.#writer.fail(new LocalError('connection_closed', 'Transport is closed', reason === undefined ? undefined : { cause: reason }));
    if (!wasOpen) return;
    this.#in.off('data', this.#onData);
    this.#in.off('end', this.#onEnd);
    this.#out.off('close', this.#onOutputClose);
    // Let the process exit once nobody else reads stdin.
    if (this.#in.listenerCount('data') === 0 && this.#in.listenerCount('readable') === 0) this.#in.pause();
    try {
      this.#receiver!.closed(reason);
    } catch {
      // See #reportError.
    }
  }
}
