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
 *
 * Pressure: the writer keeps a running total of the characters waiting in its FIFO (only of
 * the lines the caller marks as counted). When the total rises above the high-water mark it
 * tells the owner once (`onPressure(true)`), and again (`onPressure(false)`) when draining
 * brings it down to the low-water mark. The transports pause their input stream in between,
 * so a peer that sends requests but never reads the replies cannot make the queue grow
 * without bound: it stops being read instead.
 */
import type { Writable } from 'node:stream';
import { LocalError, toError } from '../jsonrpc/errors.js';

const RESOLVED: Promise<void> = Promise.resolve();

/** The default `maxQueuedOutputChars` of the stdio transports: 1 Mi characters (about 1 MiB of JSON). */
export const DEFAULT_MAX_QUEUED_OUTPUT_CHARS = 1024 * 1024;

/**
 * Checks a transport's `maxQueuedOutputChars` option (undefined means the default) and
 * returns the high-water mark; reading resumes at half of it. Throws `RangeError` unless it
 * is a positive integer or `Infinity` (never pause).
 */
export function outputHighWater(value: number | undefined): number {
  const max = value ?? DEFAULT_MAX_QUEUED_OUTPUT_CHARS;
  if (max !== Infinity && (!Number.isSafeInteger(max) || max < 1))
    throw new RangeError(`maxQueuedOutputChars must be a positive integer or Infinity, got ${max}`);
  return max;
}

/**
 * Pressure marks that pause `input` while more than `highWater` counted characters wait and
 * resume it once they fall to half that; `active()` gates both (false once the owner closed).
 */
export function pauseInputUnderPressure(input: { pause(): unknown; resume(): unknown }, highWater: number, active: () => boolean): LinePressure {
  return {
    highWaterChars: highWater,
    lowWaterChars: Math.floor(highWater / 2),
    onPressure: (high) => {
      if (!active()) return;
      if (high) input.pause();
      else input.resume();
    },
  };
}

interface Waiter {
  line: string;
  /** Characters this line adds to the pressure total (0 when not counted). */
  weight: number;
  resolve(): void;
  reject(error: Error): void;
}

/** When to tell the owner that too much output is waiting. */
export interface LinePressure {
  /** Above this many counted characters waiting, `onPressure(true)` is called. */
  highWaterChars: number;
  /** At or below this many (after having been above the high mark), `onPressure(false)` is called. */
  lowWaterChars: number;
  /** Called on each crossing, alternately true and false, starting with true. Must not throw. */
  onPressure(high: boolean): void;
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
  readonly #pressure: LinePressure | null;
  /** Counted characters of the lines in the FIFO. */
  #queuedChars = 0;
  #high = false;
  readonly #onDrain = (): void => this.#drain();

  /**
   * Listens for 'drain' on `out` until {@link fail} is called. `onBroken` is called (once,
   * after the writer has failed) when a write finds the stream unusable without the stream
   * saying so by an event: `write()` threw, or the stream was already destroyed or ended.
   * `pressure`, when given, is told when the queued output crosses its marks.
   */
  constructor(out: Writable, onBroken: (error: Error) => void, pressure?: LinePressure) {
    this.#out = out;
    this.#onBroken = onBroken;
    this.#pressure = pressure ?? null;
    out.on('drain', this.#onDrain);
  }

  /** Counted characters waiting in the FIFO (not yet handed to the stream). */
  get queuedChars(): number {
    return this.#queuedChars;
  }

  /** True between an `onPressure(true)` and the following `onPressure(false)`. */
  get underPressure(): boolean {
    return this.#high;
  }

  /** True once {@link fail} has been called. */
  get failed(): boolean {
    return this.#failure !== null;
  }

  /**
   * Writes `line` (already ending in `\n`) after every earlier line. The promise resolves
   * when the stream has taken the line without exceeding its buffer, and rejects with the
   * failure error if the writer fails first. `counted` (default true) says whether the line
   * counts towards the pressure marks while it waits. Never throws.
   */
  write(line: string, counted = true): Promise<void> {
    if (this.#failure !== null) return Promise.reject(this.#failure);
    if (this.#blocked !== null) {
      const weight = counted ? line.length : 0;
      const queued = new Promise<void>((resolve, reject) => {
        this.#queue.push({ line, weight, resolve, reject });
      });
      if (weight !== 0) {
        this.#queuedChars += weight;
        const pressure = this.#pressure;
        if (pressure !== null && !this.#high && this.#queuedChars > pressure.highWaterChars) {
          this.#high = true;
          pressure.onPressure(true);
        }
      }
      return queued;
    }
    if (this.#put(line)) return RESOLVED;
    if (this.#failure !== null) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => {
      this.#blocked = { line: '', weight: 0, resolve, reject };
    });
  }

  /**
   * Hands every queued line to the stream at once, ignoring backpressure, and resolves
   * their sends. Used when closing, so accepted messages are not lost. Clears the pressure
   * state without calling `onPressure` (the owner is closing).
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
    this.#queuedChars = 0;
    this.#high = false;
  }

  /**
   * Stops writing: pending and future sends reject with `error`. Idempotent. Clears the
   * pressure state without calling `onPressure`.
   */
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
    this.#queuedChars = 0;
    this.#high = false;
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
      broken = toError(error);
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
      this.#queuedChars -= item.weight;
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
    const pressure = this.#pressure;
    if (this.#high && pressure !== null && this.#queuedChars <= pressure.lowWaterChars) {
      this.#high = false;
      pressure.onPressure(false);
    }
  }
}
