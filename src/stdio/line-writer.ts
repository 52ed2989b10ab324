/**
 * Ordered, backpressure-aware writing of encoded lines to a Node `Writable`, shared by the
 * stdio server and client transports (internal; not exported from `mcpkit/stdio`).
 *
 * Design note: while the stream accepts data (`write()` returns true) a line is written at
 * once and the caller gets a shared, already-resolved promise, so the common path allocates
 * nothing. When `write()` returns false the writer is "blocked": that send's promise settles
 * at the next 'drain', and later lines wait in a FIFO (not in the stream's buffer) and are
 * written in order as the stream drains. Errors are never thrown from here: the owning
 * transport listens for the stream's 'error' event and calls {@link LineWriter.fail}.
 */
import type { Writable } from 'node:stream';
import { LocalError } from '../jsonrpc/errors.js';

const RESOLVED: Promise<void> = Promise.resolve();

interface Waiter {
  line: string;
  resolve(): void;
  reject(error: Error): void;
}

/** Writes lines in call order, waiting for 'drain' when the stream asks for it. */
export class LineWriter {
  readonly #out: Writable;
  /** The send whose `write()` returned false; settles at the next 'drain'. */
  #blocked: Waiter | null = null;
  #queue: Waiter[] = [];
  #head = 0;
  #failure: Error | null = null;
  readonly #onBroken: (error: Error) => void;
  readonly #onDrain = (): void => this.#drain();

  /**
   * Listens for 'drain' on `out` until {@link fail} is called. `onBroken` is called (once,
   * after the writer has failed) when a write finds the stream unusable without the stream
   * saying so by an event: `write()` threw, or the stream was already destroyed or ended.
   */
  constructor(out: Writable, onBroken: (error: Error) => void) {
    this.#out = out;
    this.#onBroken = onBroken;
    out.on('drain', this.#onDrain);
  }

  /** True once {@link fail} has been called. */
  get failed(): boolean {
    return this.#failure !== null;
  }

  /**
   * Writes `line` (already ending in `\n`) after every earlier line. The promise resolves
   * when the stream has taken the line without exceeding its buffer, and rejects with the
   * failure error if the writer fails first. Never throws.
   */
  write(line: string): Promise<void> {
    if (this.#failure !== null) return Promise.reject(this.#failure);
    if (this.#blocked !== null) {
      return new Promise((resolve, reject) => {
        this.#queue.push({ line, resolve, reject });
      });
    }
    if (this.#put(line)) return RESOLVED;
    if (this.#failure !== null) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => {
      this.#blocked = { line: '', resolve, reject };
    });
  }

  /**
   * Hands every queued line to the stream at once, ignoring backpressure, and resolves
   * their sends. Used when closing, so accepted messages are not lost.
   */
  flush(): void {
    const blocked = this.#blocked;
    this.#blocked = null;
    blocked?.resolve();
    while (this.#head < this.#queue.length && this.#failure === null) {
      const item = this.#queue[this.#head++]!;
      if (this.#put(item.line) || this.#failure === null) item.resolve();
      else item.reject(this.#failure);
    }
    this.#queue = [];
    this.#head = 0;
  }

  /** Stops writing: pending and future sends reject with `error`. Idempotent. */
  fail(error: Error): void {
    if (this.#failure !== null) return;
    this.#failure = error;
    this.#out.off('drain', this.#onDrain);
    const blocked = this.#blocked;
    this.#blocked = null;
    blocked?.reject(error);
    const queue = this.#queue;
    const head = this.#head;
    this.#queue = [];
    this.#head = 0;
    for (let i = head; i < queue.length; i++) queue[i]!.reject(error);
  }

  /** `write()` that cannot throw; a throw or a dead stream fails the writer. */
  #put(line: string): boolean {
    const out = this.#out;
    let broken: Error;
    try {
      if (out.write(line)) return true;
      // A destroyed or ended stream refuses the write and may never emit another event.
      if (!out.destroyed && !out.writableEnded) return false;
      broken = new LocalError('connection_closed', 'Output stream is closed');
    } catch (error) {
      broken = error instanceof Error ? error : new Error(String(error));
    }
    this.fail(broken);
    this.#onBroken(broken);
    return false;
  }

  #drain(): void {
    const blocked = this.#blocked;
    if (blocked === null) return;
    this.#blocked = null;
    blocked.resolve();
    const queue = this.#queue;
    while (this.#head < queue.length) {
      const item = queue[this.#head]!;
      queue[this.#head++] = undefined as unknown as Waiter;
      if (this.#put(item.line)) {
        item.resolve();
      } else if (this.#failure !== null) {
        item.reject(this.#failure);
        return;
      } else {
        this.#blocked = item;
        break;
      }
    }
    if (this.#head === queue.length) {
      queue.length = 0;
      this.#head = 0;
    }
  }
}
