/**
 * A table of in-flight entries keyed by JSON-RPC request id, for the tables that gain and
 * lose an entry per request (a session's incoming requests, the stateless HTTP transport's
 * open exchanges).
 *
 * Why not a `Map`: V8 shrinks a `Map` whose last entry is deleted by allocating a new
 * backing table, and because the `Map` lives as long as its connection, every such table
 * survives into the old generation before it dies. At one request in flight that is one
 * dead table per request and a major collection every few ten thousand requests (measured:
 * ~3k instructions per HTTP call). Ids are in practice small counters, so entries keyed by
 * an integer in [0, 2^32) live in a ring of slots (`id mod slots`); an id whose slot is
 * taken, a string id and any other number go to an overflow `Map`, created on first use.
 * The ring starts at 2 slots and doubles, up to its size limit, when an id finds its slot
 * taken: a connection with one request in flight at a time keeps 2 slots (memory of an idle
 * session, docs/memory.md), a busier one grows once and then keeps its size (never shrinks:
 * no churn).
 *
 * Contract: the same semantics as a `Map<RequestId, V>` for these operations (SameValueZero
 * keys: `1` and `"1"` are different ids, `0` and `-0` the same one). Iteration order is
 * unspecified. `undefined` is not a storable value.
 */
import type { RequestId } from '../jsonrpc/types.js';

/** The key of an empty slot (no ring key is negative). */
const EMPTY = -1;

/**
 * Ring slots for a table of a client's own requests in progress (the session's outgoing
 * requests, the HTTP transport's exchanges): room for this many calls in flight before ids
 * spill into the overflow `Map`.
 */
export const OUTGOING_SLOTS = 1024;

/** See the module note. */
export class IdTable<V> {
  /** Ring of `[key, value]` pairs, interleaved (one array: less memory per idle session). */
  #ring: unknown[];
  #mask: number;
  /** The most slots the ring grows to. */
  readonly #maxSlots: number;
  #overflow: Map<RequestId, V> | undefined = undefined;
  #size = 0;

  /**
   * `slots`: the ring's size limit, a power of two from 1 to 65 536 (default 16: about 300
   * bytes per table once grown to it; 2 slots, about 50 bytes, to start with). Throws
   * RangeError for any other value.
   */
  constructor(slots = 16) {
    if (!Number.isInteger(slots) || slots < 1 || slots > 65_536 || (slots & (slots - 1)) !== 0)
      throw new RangeError('slots must be a power of two from 1 to 65536');
    this.#maxSlots = slots;
    const start = Math.min(2, slots);
    this.#mask = start - 1;
    this.#ring = emptyRing(start);
  }

  /** Doubles the ring (entries keep their ids; two ids apart in a ring are apart in a larger one). */
  #grow(): void {
    const old = this.#ring;
    const slots = (this.#mask + 1) * 2;
    const mask = slots - 1;
    const ring = emptyRing(slots);
    for (let i = 0; i < old.length; i += 2) {
      const key = old[i] as number;
      if (key === EMPTY) continue;
      const j = (key & mask) << 1;
      ring[j] = key;
      ring[j + 1] = old[i + 1];
    }
    this.#ring = ring;
    this.#mask = mask;
  }

  /** Entries held. */
  get size(): number {
    return this.#size;
  }

  get(id: RequestId): V | undefined {
    if (typeof id === 'number' && id >>> 0 === id) {
      const i = (id & this.#mask) << 1;
      if (this.#ring[i] === id) return this.#ring[i + 1] as V;
    }
    return this.#overflow?.get(id);
  }

  has(id: RequestId): boolean {
    return this.get(id) !== undefined;
  }

  /** Adds or replaces the entry of `id`. */
  set(id: RequestId, value: V): void {
    if (typeof id === 'number' && id >>> 0 === id) {
      const i = (id & this.#mask) << 1;
      const key = this.#ring[i];
      if (key === id) {
        this.#ring[i + 1] = value;
        return;
      }
      if (this.#overflow?.has(id) !== true) {
        if (key === EMPTY) {
          this.#ring[i] = id;
          this.#ring[i + 1] = value;
          this.#size++;
          return;
        }
        if (this.#mask + 1 < this.#maxSlots) {
          this.#grow();
          this.set(id, value);
          return;
        }
      }
    }
    const overflow = (this.#overflow ??= new Map());
    const before = overflow.size;
    overflow.set(id, value);
    if (overflow.size > before) this.#size++;
  }

  /** Removes the entry of `id`; false when there was none. */
  delete(id: RequestId): boolean {
    if (typeof id === 'number' && id >>> 0 === id) {
      const i = (id & this.#mask) << 1;
      if (this.#ring[i] === id) {
        this.#ring[i] = EMPTY;
        this.#ring[i + 1] = undefined;
        this.#size--;
        return true;
      }
    }
    if (this.#overflow?.delete(id) === true) {
      this.#size--;
      return true;
    }
    return false;
  }

  /** The values, in no particular order. Entries deleted during the walk are skipped. */
  *values(): IterableIterator<V> {
    const ring = this.#ring;
    for (let i = 0; i < ring.length; i += 2) {
      if (ring[i] !== EMPTY) yield ring[i + 1] as V;
    }
    if (this.#overflow !== undefined) yield* this.#overflow.values();
  }

  /** Removes every entry. */
  clear(): void {
    const ring = this.#ring;
    for (let i = 0; i < ring.length; i += 2) {
      ring[i] = EMPTY;
      ring[i + 1] = undefined;
    }
    this.#overflow = undefined;
    this.#size = 0;
  }
}

/** A ring of `slots` empty slots. */
function emptyRing(slots: number): unknown[] {
  const ring = new Array<unknown>(slots * 2);
  for (let i = 0; i < slots * 2; i += 2) {
    ring[i] = EMPTY;
    ring[i + 1] = undefined;
  }
  return ring;
}
