/**
 * Bounds on resource subscriptions: how many URIs one session may hold (`resources/subscribe`,
 * 2025 era) or one `subscriptions/listen` may name (2026-07-28), and how long each URI may be.
 *
 * Codes: an over-long URI or `resourceSubscriptions` list is a parameter the server refuses,
 * -32602 (JSON-RPC 2.0 §5.1, "Invalid method parameter(s)"). A full subscription set is no
 * fault of the request's parameters and no internal failure; it is answered with an
 * implementation-defined server error from the range JSON-RPC 2.0 §5.1 reserves
 * (-32000 to -32099), {@link SUBSCRIPTION_LIMIT_CODE}. MCP names no code for either.
 */
import { invalidParams, McpError } from '../jsonrpc/errors.js';

/**
 * The implementation-defined JSON-RPC error code (-32030) of a `resources/subscribe` refused
 * because the session holds the most subscriptions it may. `data` carries `{limit}`.
 */
export const SUBSCRIPTION_LIMIT_CODE = -32030;

/** Subscription limits (`ServerOptions.subscriptions`). */
export interface SubscriptionLimitOptions {
  /**
   * Most URIs one session may be subscribed to at once (`resources/subscribe`), and most URIs
   * one `subscriptions/listen` may name in `resourceSubscriptions`. Default 1000. Past it a
   * subscribe answers {@link SUBSCRIPTION_LIMIT_CODE} (a URI already held still succeeds), and
   * a listen -32602; nothing is stored.
   */
  maxPerSession?: number;
  /**
   * Longest subscribed URI, in UTF-16 code units (JavaScript string length). Default 4096.
   * Longer ones answer -32602 and are not stored.
   */
  maxUriLength?: number;
}

/** The limits in force, defaults applied. */
export interface SubscriptionLimits {
  readonly maxPerSession: number;
  readonly maxUriLength: number;
}

/** Applies the defaults; throws RangeError for a limit that is not a positive integer. */
export function subscriptionLimits(options: SubscriptionLimitOptions = {}): SubscriptionLimits {
  const limits = { maxPerSession: options.maxPerSession ?? 1000, maxUriLength: options.maxUriLength ?? 4096 };
  for (const [name, v] of Object.entries(limits))
    if (!(Number.isInteger(v) && v >= 1)) throw new RangeError(`subscriptions.${name} must be a positive integer`);
  return Object.freeze(limits);
}

/** Throws -32602 when `uri` is longer than the limit (`where` names the parameter). */
export function checkSubscriptionUri(uri: string, limits: SubscriptionLimits, where = 'uri'): void {
  if (uri.length > limits.maxUriLength) throw invalidParams(`Invalid params: "${where}" is longer than ${limits.maxUriLength} characters`);
}

/**
 * Adds `uri` to a session's `held` set. Throws -32602 for an over-long URI and
 * {@link SUBSCRIPTION_LIMIT_CODE} when the set is full and does not hold `uri` yet.
 */
export function addSubscription(held: Set<string>, uri: string, limits: SubscriptionLimits): void {
  checkSubscriptionUri(uri, limits);
  if (held.has(uri)) return;
  if (held.size >= limits.maxPerSession) {
    throw new McpError(SUBSCRIPTION_LIMIT_CODE, `Too many resource subscriptions in this session (limit ${limits.maxPerSession}); unsubscribe from one first`, {
      limit: limits.maxPerSession,
    });
  }
  held.add(uri);
}

/**
 * Checks a `subscriptions/listen` filter's `resourceSubscriptions`: throws -32602 when it
 * names more URIs than `maxPerSession` or one longer than `maxUriLength`.
 */
export function checkListenSubscriptions(uris: readonly string[], limits: SubscriptionLimits): void {
  const where = 'notifications.resourceSubscriptions';
  if (uris.length > limits.maxPerSession) throw invalidParams(`Invalid params: "${where}" names more than ${limits.maxPerSession} URIs`);
  for (let i = 0; i < uris.length; i++) checkSubscriptionUri(uris[i]!, limits, `${where}[${i}]`);
}
