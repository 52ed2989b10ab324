/**
 * {@link RedisNotifier}: subscription fan-out between instances. A change raised on any
 * instance (`notifications/resources/updated` for a URI, `notifications/{tools,resources,
 * prompts}/list_changed`) reaches every other instance, which hands it to its own
 * subscribers: `resources/subscribe` sessions (2025 revisions) and `subscriptions/listen`
 * streams (2026-07-28). The server wiring comes with the HTTP refactor; this is the small
 * interface it will use.
 */
import { Notification } from '../protocol/methods.js';
import type { BusData, RedisBus } from './bus.js';
import { positiveInteger } from './options.js';

/** The list_changed notifications an instance shares. */
export type SharedListChangedMethod = typeof Notification.ResourcesListChanged | typeof Notification.ToolsListChanged | typeof Notification.PromptsListChanged;

/** The notifications an instance shares. */
export type SharedNotificationMethod = typeof Notification.ResourcesUpdated | SharedListChangedMethod;

/** One shared notification: the method and, for `resources/updated`, the URI. */
export interface SharedNotification {
  readonly method: SharedNotificationMethod;
  /** Present exactly for `notifications/resources/updated`. */
  readonly uri?: string;
  /** The instance that raised it. */
  readonly origin: string;
}

/** Options of a {@link RedisNotifier}. */
export interface RedisNotifierOptions {
  /** The bus channel. Default `notifications`. */
  channel?: string;
  /** Longest resource URI shared, in characters; longer ones are refused on publish (RangeError) and dropped on receipt. Default 8192. */
  maxUriChars?: number;
  /** Also hand this instance's own notifications back to it. Default false (it raised them locally already). */
  includeOwn?: boolean;
  /** Receives dropped announcements. Default: ignored. */
  onError?: (error: Error) => void;
}

const LISTS = new Set<string>([Notification.ResourcesListChanged, Notification.ToolsListChanged, Notification.PromptsListChanged]);

/**
 * Shares resource and list changes between instances over a {@link RedisBus}. Open it with
 * {@link RedisNotifier.open}; publishing rejects with `RedisUnavailableError` while Redis is
 * unreachable (the local instance still notifies its own subscribers; the others miss it).
 */
export class RedisNotifier {
  readonly #bus: RedisBus;
  readonly #channel: string;
  readonly #maxUri: number;
  readonly #includeOwn: boolean;
  readonly #onError: (error: Error) => void;
  readonly #handlers = new Set<(n: SharedNotification) => void>();
  #off: (() => Promise<void>) | undefined;

  /** Subscribes to the channel; resolves when Redis confirmed it. Throws RangeError for a bad option. */
  static async open(bus: RedisBus, options: RedisNotifierOptions = {}): Promise<RedisNotifier> {
    const notifier = new RedisNotifier(bus, options);
    notifier.#off = await bus.subscribe(notifier.#channel, (data, info) => notifier.#received(data, info.origin));
    return notifier;
  }

  private constructor(bus: RedisBus, options: RedisNotifierOptions) {
    this.#bus = bus;
    this.#channel = options.channel ?? 'notifications';
    this.#maxUri = positiveInteger('maxUriChars', options.maxUriChars ?? 8192);
    this.#includeOwn = options.includeOwn ?? false;
    this.#onError = options.onError ?? (() => {});
  }

  /** Tells every instance that the resource at `uri` changed. */
  async resourceUpdated(uri: string): Promise<void> {
    if (typeof uri !== 'string' || uri.length === 0 || uri.length > this.#maxUri) throw new RangeError(`A resource URI is 1 to ${this.#maxUri} characters`);
    await this.#bus.publish(this.#channel, { m: Notification.ResourcesUpdated, u: uri });
  }

  /** Tells every instance that a list changed (`notifications/tools/list_changed` and the like). */
  async listChanged(method: SharedListChangedMethod): Promise<void> {
    if (!LISTS.has(method)) throw new RangeError(`Not a shared list_changed notification: ${String(method)}`);
    await this.#bus.publish(this.#channel, { m: method });
  }

  /** Calls `handler` for every notification another instance raised (own ones too with `includeOwn`). Returns the function that removes it. */
  onNotification(handler: (notification: SharedNotification) => void): () => void {
    this.#handlers.add(handler);
    return () => this.#handlers.delete(handler);
  }

  /** Unsubscribes and drops the handlers. Idempotent. */
  async close(): Promise<void> {
    this.#handlers.clear();
    const off = this.#off;
    this.#off = undefined;
    await off?.();
  }

  #received(data: BusData, origin: string): void {
    if (origin === this.#bus.instanceId && !this.#includeOwn) return;
    const d = typeof data === 'object' && data !== null && !Array.isArray(data) ? data : {};
    let n: SharedNotification;
    if (d.m === Notification.ResourcesUpdated && typeof d.u === 'string' && d.u.length > 0 && d.u.length <= this.#maxUri) n = { method: Notification.ResourcesUpdated, uri: d.u, origin };
    else if (typeof d.m === 'string' && LISTS.has(d.m)) n = { method: d.m as SharedNotificationMethod, origin };
    else return this.#onError(new Error('Dropped a malformed shared notification'));
    for (const handler of this.#handlers) {
      try {
        handler(n);
      } catch (err) {
        this.#onError(err instanceof Error ? err : new Error(String(err)));
      }
    }
  }
}
