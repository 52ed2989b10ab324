/**
 * A bounded budget of live records that anonymous requests create (the third-party
 * authorization server's fresh registrations and sign-ins of unknown browsers): at most
 * `capacity` at once, each for a fixed lifetime, and optionally at most `perOwner` for one
 * owner. A full budget refuses — it never makes room by dropping a record someone else is
 * using — and tells when a slot frees up (the `Retry-After` of the refusal).
 *
 * Design note: every entry of one budget lives the same `ttlSeconds`, so insertion order is
 * expiry order: expired entries are swept from the front, each once (amortized O(1) per
 * admission); memory is O(capacity). Kept in this process: with several processes sharing
 * one store, each has its own budget.
 */

interface Entry {
  expires: number;
  owner: string | undefined;
}

export class AdmissionBudget {
  readonly #entries = new Map<string, Entry>();
  readonly #owners = new Map<string, number>();
  readonly #capacity: number;
  readonly #perOwner: number;
  readonly #ttlMs: number;
  readonly #now: () => number;

  /** Throws RangeError unless `capacity` and `perOwner` are at least 1 and `ttlSeconds` positive. */
  constructor(capacity: number, ttlSeconds: number, now: () => number, perOwner = Infinity) {
    if (!(capacity >= 1) || !(perOwner >= 1) || !(ttlSeconds > 0))
      throw new RangeError('An admission budget needs a capacity and per-owner share of at least 1 and a positive lifetime');
    this.#capacity = capacity;
    this.#perOwner = perOwner;
    this.#ttlMs = ttlSeconds * 1000;
    this.#now = now;
  }

  /** Live entries. */
  get size(): number {
    this.#sweep();
    return this.#entries.size;
  }

  /**
   * Takes a slot for `key` (of `owner`, when given). Resolves to 0 when admitted (a key
   * already admitted is renewed), else the whole seconds until a slot can free up (at
   * least 1): `'full'` when the budget is, `'owner'` when the owner's share is.
   */
  admit(key: string, owner?: string): { retryAfter: number; reason?: 'full' | 'owner' } {
    this.#sweep();
    const now = this.#now();
    if (this.#entries.has(key)) this.release(key);
    if (owner !== undefined && (this.#owners.get(owner) ?? 0) >= this.#perOwner)
      return { retryAfter: Math.max(1, Math.ceil(this.#ttlMs / 1000)), reason: 'owner' };
    if (this.#entries.size >= this.#capacity) {
      const oldest = this.#entries.values().next().value as Entry;
      return { retryAfter: Math.max(1, Math.ceil((oldest.expires - now) / 1000)), reason: 'full' };
    }
    this.#entries.set(key, { expires: now + this.#ttlMs, owner });
    if (owner !== undefined) this.#owners.set(owner, (this.#owners.get(owner) ?? 0) + 1);
    return { retryAfter: 0 };
  }

  /** Frees `key`'s slot (absent keys are ignored). */
  release(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    this.#unown(entry.owner);
  }

  #unown(owner: string | undefined): void {
    if (owner === undefined) return;
    const left = (this.#owners.get(owner) ?? 1) - 1;
    if (left <= 0) this.#owners.delete(owner);
    else this.#owners.set(owner, left);
  }

  #sweep(): void {
    const now = this.#now();
    for (const [key, entry] of this.#entries) {
      if (entry.expires > now) return;
      this.#entries.delete(key);
      this.#unown(entry.owner);
    }
  }
}
