/**
 * {@link RedisNotifier}: subscription fan-out between instances. A change raised on any
 * instance (`notifications/resources/updated` for a URI, `notifications/{tools,resources,
 * prompts}/list_changed`) reaches every other instance, which hands it to its own
 * subscribers: `resources/subscribe` sessions (2025 revisions) and `subscriptions/listen`
 * streams (2026-07-28). Give it to the server as `ServerOptions.notifier` (it is a
 * `SharedNotifier`, src/server/shared-notifications.ts): the server publishes the changes
 * raised on it and delivers those it hears, each subscriber exactly once.
 */
import { Notification } from '../protocol/methods.js';
import type { SharedChange, SharedListChangedMethod, SharedNotificationMethod, SharedNotifier } from '../server/shared-notifications.js';
import type { BusData, RedisBus } from './bus.js';
import { positiveInteger } from './options.js';

export type { SharedListChangedMethod, SharedNotificationMethod } from '../server/shared-notifications.js';

/** One shared notification: the method and, for `resources/updated`, the URI. */
export interface SharedNotification extends SharedChange {
  /** The instance that raised it. */
  readonly origin: string;
}

/** Options of a {@link RedisNotifier}. */
export interface RedisNotifierOptions {
  /** The bus channel. Default `notifications`. */
  channel?: string;
  /** Longest resource URI shared, in characters; longer ones are refused on publish (RangeError) and dropped on receipt (reported to `onError`). Default 8192. */
  maxUriChars?: number;
  /** Also hand this instance's own notifications back to it. Default false (it raised them locally already); keep it false for a server's `notifier`, which would otherwise deliver its own changes twice. */
  includeOwn?: boolean;
  /** Receives dropped announcements (malformed, URI too long) and handler failures. Default: ignored. */
  onError?: (error: Error) => void;
}

const LISTS = new Set<string>([Notification.ResourcesListChanged, Notification.ToolsListChanged, Notification.PromptsListChanged]);

/**
 * Shares resource and list changes between instances over a {@link RedisBus}. Open it with
 * {@link RedisNotifier.open}; publishing rejects with `RedisUnavailableError` while Redis is
 * unreachable (the local instance still notifies its own subscribers; the others miss it).
 */
export class RedisNotifier implements SharedNotifier {
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
    if (d.m === Notification.ResourcesUpdated && typeof d.u === 'string' && d.u.length > 0) {
      if (d.u.length > this.#maxUri)
        return this.#onError(
          new Error(`Dropped a shared resources/updated notification: its URI of ${d.u.length} characters exceeds maxUriChars (${this.#maxUri})`),
        );
      n = { method: Notification.ResourcesUpdated, uri: d.u, origin };
    } else if (typeof d.m === 'string' && LISTS.has(d.m)) n = { method: d.m as SharedNotificationMethod, origin };
    else
      return this.#onError(new Error(`Dropped a malformed shared notification (expected {m: a shared notification method, u: the URI for resources/updated})`));
    for (const handler of this.#handlers) {
      try {
        handler(n);
      } catch (err) {
        this.#onError(err instanceof Error ? err : new Error(String(err)));
      }
    }
  }
}
