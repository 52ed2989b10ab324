/**
 * The seam between a server and the other instances of its deployment for change
 * notifications: `ServerOptions.notifier`, a {@link SharedNotifier} (mcpkit/redis's
 * `RedisNotifier` is one). Runtime-neutral: no `node:*` imports, nothing of Redis.
 *
 * Design notes:
 * - What is shared: `notifications/resources/updated` (for a URI) and the three
 *   `list_changed` notifications. The instance that raises one delivers it to its own
 *   subscribers and publishes it; every other instance delivers what it hears to its own
 *   subscribers. A notifier never hands an instance its own announcements back, so nothing
 *   is delivered twice by the raising instance.
 * - "Its own subscribers": the 2026-07-28 `subscriptions/listen` requests open on this
 *   instance (each lives on exactly one instance, the one its HTTP request reached), and the
 *   2025-era sessions it holds. A 2025 session whose transport can tell where the client's
 *   unsolicited-message stream is (`Transport.deliverHere`, {@link InstanceLocalDelivery}: the Streamable HTTP
 *   session transport, whose GET stream is attached to one instance while any number of
 *   instances may hold a copy of the session) gets the message only from the instance the
 *   stream is attached to, so a session held by several instances hears it exactly once.
 *   Such a session with no GET stream attached anywhere misses it (2025-06-18 › Transports ›
 *   Streamable HTTP: notifications not tied to a request go on the GET stream).
 * - Publishing is best effort: a notifier that cannot reach the others (Redis down) rejects,
 *   the server reports that to `ServerOptions.onError`, and the other instances miss the
 *   change (pub/sub is at most once). Nothing is queued.
 */
import { Notification } from '../protocol/methods.js';
import type { Transport } from '../transport/types.js';

/** The list_changed notifications instances share. */
export type SharedListChangedMethod = typeof Notification.ResourcesListChanged | typeof Notification.ToolsListChanged | typeof Notification.PromptsListChanged;

/** The notifications instances share. */
export type SharedNotificationMethod = typeof Notification.ResourcesUpdated | SharedListChangedMethod;

/** One change another instance raised. */
export interface SharedChange {
  readonly method: SharedNotificationMethod;
  /** Present exactly for `notifications/resources/updated`. */
  readonly uri?: string;
}

/**
 * Carries change notifications between the instances of a deployment (see the module note).
 * The server calls {@link resourceUpdated} / {@link listChanged} for changes raised on it and
 * delivers what {@link onNotification} hands it.
 */
export interface SharedNotifier {
  /** Tells the other instances that the resource at `uri` changed. May reject (reported, not retried). */
  resourceUpdated(uri: string): Promise<void>;
  /** Tells the other instances that a list changed. May reject (reported, not retried). */
  listChanged(method: SharedListChangedMethod): Promise<void>;
  /**
   * Calls `handler` for every change another instance raised — never for this instance's
   * own announcements. Returns the function that removes it.
   */
  onNotification(handler: (change: SharedChange) => void): () => void;
}

/**
 * A transport whose peer's unsolicited-message stream may be attached to another instance
 * (the Streamable HTTP session transport): its {@link Transport.deliverHere} writes a
 * notification to that stream when it is attached here and returns true, and returns false,
 * doing nothing and forwarding nothing, when it is not.
 */
export type InstanceLocalDelivery = Transport & Required<Pick<Transport, 'deliverHere'>>;

const LISTS: ReadonlySet<string> = new Set([Notification.ResourcesListChanged, Notification.ToolsListChanged, Notification.PromptsListChanged]);

/** True for the list_changed notifications instances share. */
export function isSharedListChanged(method: string): method is SharedListChangedMethod {
  return LISTS.has(method);
}

/** `transport` when it declares instance-local delivery ({@link Transport.deliverHere}), else undefined. */
export function localDelivery(transport: Transport): InstanceLocalDelivery | undefined {
  return hasLocalDelivery(transport) ? transport : undefined;
}

function hasLocalDelivery(transport: Transport): transport is InstanceLocalDelivery {
  return transport.deliverHere !== undefined;
}
