/**
 * The inbound body budget: a bound on the request-body bytes that the HTTP adapters hold
 * at once, across every connection that shares it. Each connection is bounded on its own
 * (`maxBodyBytes`, the request timeout); this bounds many of them together.
 *
 * A body reserves its declared `Content-Length` before its first byte is read (a chunked
 * body reserves each chunk as it arrives) and releases the reservation once it was read
 * whole, cut for size, or its client left. A body that does not fit is not read: its
 * request is answered 503 with `Retry-After` ({@link bodyBudgetReply}).
 *
 * Contract: single-threaded; one add to reserve, one subtract to release; the total never
 * goes below zero when every reservation is released once. Runtime-neutral.
 */
import { errorReply, TRANSPORT_ERROR } from './replies.js';
import type { HttpPlainReply } from './types.js';

/** The default bound of {@link InboundBudget} (64 MiB). */
export const DEFAULT_MAX_TOTAL_BODY_BYTES = 64 * 1024 * 1024;

/** Seconds a client refused by the budget is told to wait (`Retry-After`). */
const RETRY_AFTER_SECONDS = '1';

let sharedBudget: InboundBudget | undefined;

/** A bound on the request-body bytes held at once by the readers that share it; see the module note. */
export class InboundBudget {
  /** The bound, in bytes. */
  readonly maxTotalBodyBytes: number;
  #held = 0;

  /** Throws `RangeError` when `maxTotalBodyBytes` is not positive. */
  constructor(maxTotalBodyBytes: number = DEFAULT_MAX_TOTAL_BODY_BYTES) {
    if (!(maxTotalBodyBytes >= 1)) throw new RangeError('maxTotalBodyBytes must be at least 1');
    this.maxTotalBodyBytes = maxTotalBodyBytes;
  }

  /** The process-wide budget every adapter uses unless given another: {@link DEFAULT_MAX_TOTAL_BODY_BYTES}. */
  static get shared(): InboundBudget {
    return (sharedBudget ??= new InboundBudget());
  }

  /** Bytes reserved now by bodies being read. */
  get held(): number {
    return this.#held;
  }

  /** Reserves `bytes` and returns true when they fit under the bound; else reserves nothing and returns false. */
  reserve(bytes: number): boolean {
    const held = this.#held + bytes;
    if (held > this.maxTotalBodyBytes) return false;
    this.#held = held;
    return true;
  }

  /** Gives back `bytes` an earlier {@link reserve} took. */
  release(bytes: number): void {
    this.#held -= bytes;
  }
}

/** The error a body reader rejects with when its body does not fit in the {@link InboundBudget}. */
export class BodyBudgetError extends Error {
  readonly code = 'body_budget';
  constructor(maxTotalBodyBytes: number) {
    super(`The request bodies being read already fill the inbound budget of ${maxTotalBodyBytes} bytes`);
    this.name = 'BodyBudgetError';
  }
}

/**
 * The 503 (JSON-RPC error, id null, `Retry-After`) for a request whose body did not fit in
 * the inbound budget: the server is reading too many bodies at once; the client retries later.
 */
export function bodyBudgetReply(): HttpPlainReply {
  return errorReply(503, TRANSPORT_ERROR, 'Service Unavailable: the server is receiving too many request bodies at once; retry after the time in Retry-After', {
    'retry-after': RETRY_AFTER_SECONDS,
  });
}
