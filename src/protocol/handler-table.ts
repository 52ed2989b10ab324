/**
 * The one place that answers "which function serves method M for a request of era E?".
 *
 * A role registers its handlers in a {@link HandlerRegistry} with two verbs: `handle`
 * (the function that answers a method) and `wrap` (a function around whatever answers it).
 * Each carries an era scope: both eras (the default), the 2025 era only (requests of a
 * connection that ran `initialize`) or the 2026-07-28 era only (requests that carry their
 * protocol version in `_meta`). {@link HandlerRegistry.build} resolves everything into a
 * frozen {@link HandlerTable}: per era, one Map from method to the final, wrapped handler.
 *
 * Resolution of method M for era E, in this order:
 * 1. the era overlay: a handler registered for E only;
 * 2. the base: a handler registered for both eras;
 * 3. then every wrapper of M whose scope includes E, in registration order, the first
 *    registered innermost.
 *
 * A connection may add its own handlers on top ({@link Endpoint.setRequestHandler} in
 * `onConnect`); the endpoint consults that per-connection overlay before the table (see
 * endpoint.ts). Requests are never resolved anywhere else.
 *
 * The table a request reads never changes under it: a registration after the table was
 * built builds a new table and swaps it in at once ({@link HandlerTableRef}), so a request
 * is served by the old table or the new one, never by a mix.
 */
import type { JSONObject } from '../jsonrpc/types.js';
import type { RequestContext } from '../session/context.js';

/**
 * Handler of one incoming request method. It may answer at once (a value) or later (a
 * promise), or throw: an McpError goes to the peer as it is, anything else as -32603.
 */
export type RequestHandler<C extends RequestContext = RequestContext> = (params: JSONObject | undefined, ctx: C) => Promise<unknown> | unknown;

/** A function around a method's handler: gets the handler it wraps, returns the one that serves. */
export type HandlerWrapper<C extends RequestContext = RequestContext> = (inner: RequestHandler<C>) => RequestHandler<C>;

/** The protocol eras a handler can be scoped to. `'2025'`: every 2025-era revision (sessions after `initialize`); `'2026-07-28'`: the stateless era. */
export type HandlerEra = '2025' | '2026-07-28';

/** Options of `handle` and `wrap`. */
export interface HandlerOptions {
  /** The era served; default: both. */
  era?: HandlerEra;
}

/** The resolved handlers of both eras; immutable. See the module note. */
export class HandlerTable<C extends RequestContext = RequestContext> {
  /** Handlers of 2025-era requests, by method. */
  readonly session: ReadonlyMap<string, RequestHandler<C>>;
  /** Handlers of 2026-07-28 requests, by method. */
  readonly stateless: ReadonlyMap<string, RequestHandler<C>>;

  /** @internal built by {@link HandlerRegistry.build} */
  constructor(session: Map<string, RequestHandler<C>>, stateless: Map<string, RequestHandler<C>>) {
    this.session = freezeMap(session);
    this.stateless = freezeMap(stateless);
    Object.freeze(this);
  }

  /** The handler of `method` for era `era`, or undefined. */
  get(era: HandlerEra, method: string): RequestHandler<C> | undefined {
    return (era === '2025' ? this.session : this.stateless).get(method);
  }
}

/** Where the current table of a role is read: swapped as a whole, never modified. */
export interface HandlerTableRef<C extends RequestContext = RequestContext> {
  readonly current: HandlerTable<C>;
}

interface WrapEntry<C extends RequestContext> {
  readonly wrapper: HandlerWrapper<C>;
  readonly era: HandlerEra | undefined;
}

/** The registrations of a role, from which its {@link HandlerTable} is built. */
export class HandlerRegistry<C extends RequestContext = RequestContext> {
  readonly #base = new Map<string, RequestHandler<C>>();
  readonly #overlay2025 = new Map<string, RequestHandler<C>>();
  readonly #overlay2026 = new Map<string, RequestHandler<C>>();
  readonly #wraps = new Map<string, WrapEntry<C>[]>();

  /** Sets the handler of `method` for `era` (default both), replacing an earlier one of the same scope. */
  handle(method: string, handler: RequestHandler<C>, era?: HandlerEra): void {
    if (typeof handler !== 'function') throw new TypeError(`The handler of ${method} must be a function`);
    (era === undefined ? this.#base : era === '2025' ? this.#overlay2025 : this.#overlay2026).set(method, handler);
  }

  /** Adds a wrapper of `method` for `era` (default both); the first added runs innermost. */
  wrap(method: string, wrapper: HandlerWrapper<C>, era?: HandlerEra): void {
    if (typeof wrapper !== 'function') throw new TypeError(`The wrapper of ${method} must be a function`);
    let list = this.#wraps.get(method);
    if (list === undefined) this.#wraps.set(method, (list = []));
    list.push({ wrapper, era });
  }

  /** Resolves the registrations (see the module note) into a frozen table. */
  build(): HandlerTable<C> {
    return new HandlerTable(this.#resolve('2025', this.#overlay2025), this.#resolve('2026-07-28', this.#overlay2026));
  }

  #resolve(era: HandlerEra, overlay: ReadonlyMap<string, RequestHandler<C>>): Map<string, RequestHandler<C>> {
    const table = new Map(this.#base);
    for (const [method, handler] of overlay) table.set(method, handler);
    for (const [method, wraps] of this.#wraps) {
      let handler = table.get(method);
      if (handler === undefined) continue; // nothing to wrap: the method stays unanswered (-32601)
      for (const { wrapper, era: scope } of wraps) if (scope === undefined || scope === era) handler = wrapper(handler);
      table.set(method, handler);
    }
    return table;
  }
}

/** `map`, with its mutators refusing (a frozen Map still has working `set`). */
function freezeMap<K, V>(map: Map<K, V>): ReadonlyMap<K, V> {
  const refuse = (): never => {
    throw new TypeError('A HandlerTable is frozen: register handlers on the server (handle / wrap), which builds a new table');
  };
  Object.defineProperties(map, { set: { value: refuse }, delete: { value: refuse }, clear: { value: refuse } });
  return Object.freeze(map);
}
