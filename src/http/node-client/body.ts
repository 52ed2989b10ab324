/**
 * The body of one response of the Node requester: a {@link ChunkSource} and its one reader.
 *
 * Design note: the connection pushes the body's pieces as the parser finds them (views into
 * the socket's packets, which the body copies, as a packet's memory is reused) and then
 * ends it, or fails it with the error that broke it. A read takes the oldest queued piece
 * (one resolved promise, nothing else), or waits for the next one. Backpressure: while
 * more than {@link HIGH_WATER_BYTES} are queued unread, the connection is paused (`pause`),
 * and resumed once a read brings the queue under {@link LOW_WATER_BYTES}. `cancel` (of the
 * source or the reader) drops what is queued and, when the body had not ended yet, asks
 * the connection to give up the response (it destroys the socket: the rest of the body
 * would otherwise have to be read). A body that has ended before anyone read it can also
 * be taken whole (`TAKE_WHOLE`), with no reader and no promise.
 */
import { type ChunkRead, type ChunkReader, type ChunkSource, TAKE_WHOLE, type WholeBody } from '../client/common.js';

/** Unread bytes above which the socket is paused. */
export const HIGH_WATER_BYTES = 256 * 1024;
/** Unread bytes under which a paused socket resumes. */
export const LOW_WATER_BYTES = 64 * 1024;

/** What a body asks of the connection it comes from. */
export interface BodyControl {
  pause(): void;
  resume(): void;
  /** The reader gave up before the end: drop the response (and the connection). */
  cancel(reason: unknown): void;
}

const DONE: Promise<ChunkRead> = Promise.resolve({ done: true, value: undefined });

/** One response body; see the module's design note. */
export class ResponseBody implements ChunkSource, ChunkReader, WholeBody {
  readonly #control: BodyControl;
  readonly #chunks: Buffer[] = [];
  #first = 0;
  #bytes = 0;
  #paused = false;
  /** The connection delivered everything. */
  #ended = false;
  /** Cancelled by the reader: nothing more is delivered. */
  #cancelled = false;
  #error: unknown = undefined;
  #failed = false;
  #locked = false;
  #resolve: ((read: ChunkRead) => void) | undefined;
  #reject: ((reason: unknown) => void) | undefined;

  constructor(control: BodyControl) {
    this.#control = control;
  }

  /** True once the body was read from or cancelled. */
  get used(): boolean {
    return this.#locked || this.#cancelled;
  }

  getReader(): ChunkReader {
    if (this.#locked) throw new TypeError('The response body is already being read');
    if (this.#cancelled) throw new TypeError('The response body was cancelled');
    this.#locked = true;
    return this;
  }

  read(): Promise<ChunkRead> {
    if (this.#first < this.#chunks.length) {
      const value = this.#chunks[this.#first]!;
      this.#chunks[this.#first++] = undefined as unknown as Buffer;
      if (this.#first === this.#chunks.length) {
        this.#chunks.length = 0;
        this.#first = 0;
      }
      this.#bytes -= value.length;
      if (this.#paused && this.#bytes < LOW_WATER_BYTES) {
        this.#paused = false;
        this.#control.resume();
      }
      return Promise.resolve({ done: false, value });
    }
    if (this.#failed) return Promise.reject(this.#error);
    if (this.#ended || this.#cancelled) return DONE;
    if (this.#resolve !== undefined) return Promise.reject(new TypeError('A read of the response body is already pending'));
    return new Promise<ChunkRead>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
  }

  /** The whole body at once, when it has ended unread and within `maxBytes` (see `TAKE_WHOLE`); marks it used. */
  [TAKE_WHOLE](maxBytes: number): Uint8Array | undefined {
    if (!this.#ended || this.#locked || this.#cancelled || this.#bytes > maxBytes) return undefined;
    this.#locked = true;
    const chunks = this.#chunks;
    const whole = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    chunks.length = 0;
    this.#bytes = 0;
    return whole;
  }

  cancel(reason?: unknown): Promise<void> {
    if (this.#cancelled) return Promise.resolve();
    this.#cancelled = true;
    this.#chunks.length = 0;
    this.#first = 0;
    this.#bytes = 0;
    const resolve = this.#resolve;
    this.#resolve = this.#reject = undefined;
    resolve?.({ done: true, value: undefined });
    if (!this.#ended && !this.#failed) this.#control.cancel(reason);
    return Promise.resolve();
  }

  /**
   * The connection's side: the next piece of the body, a view into a packet whose memory
   * may be reused once this returns (see requester.ts): the body keeps a copy.
   */
  push(view: Buffer): void {
    if (this.#cancelled || this.#ended || this.#failed) return;
    const chunk = Buffer.from(view);
    const resolve = this.#resolve;
    if (resolve !== undefined) {
      this.#resolve = this.#reject = undefined;
      resolve({ done: false, value: chunk });
      return;
    }
    this.#chunks.push(chunk);
    this.#bytes += chunk.length;
    if (!this.#paused && this.#bytes > HIGH_WATER_BYTES) {
      this.#paused = true;
      this.#control.pause();
    }
  }

  /** The connection's side: the body is complete. */
  end(): void {
    if (this.#ended || this.#failed) return;
    this.#ended = true;
    const resolve = this.#resolve;
    this.#resolve = this.#reject = undefined;
    resolve?.({ done: true, value: undefined });
  }

  /**
   * The connection's side: the body broke (or its request was aborted). Pieces already
   * queued are still read; the read after them rejects with `error`.
   */
  fail(error: unknown): void {
    if (this.#ended || this.#failed || this.#cancelled) return;
    this.#failed = true;
    this.#error = error;
    const reject = this.#reject;
    this.#resolve = this.#reject = undefined;
    reject?.(error);
  }
}
