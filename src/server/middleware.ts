/**
 * Ready-made interceptors (interceptors.ts) the specification asks servers for: a rate
 * limit on tool calls per principal (2025-03-26 › Tools › Security Considerations: "Rate
 * limit tool invocations") and an audit hook that sees every call with its duration and
 * outcome. Register them with `server.use()`.
 */
import { McpError } from '../jsonrpc/errors.js';
import type { JSONObject } from '../jsonrpc/types.js';
import { isObject } from '../jsonrpc/values.js';
import { Method } from '../protocol/methods.js';
import type { InterceptContext, Interceptor } from './interceptors.js';

/** JSON-RPC code used for "rate limit exceeded" (implementation-defined server error range). */
export const RATE_LIMITED_CODE = -32029;

/**
 * The principal of verified auth information: issuer, subject and client of a token
 * (`mcpkit/auth`'s `AuthInfo`, or any auth info with a string `clientId`), as one string;
 * undefined when there is none. Never contains the credential.
 */
export function principalKey(authInfo: unknown): string | undefined {
  if (!isObject(authInfo) || typeof authInfo.clientId !== 'string') return undefined;
  const { issuer, subject } = authInfo;
  return JSON.stringify([typeof issuer === 'string' ? issuer : null, typeof subject === 'string' ? subject : null, authInfo.clientId]);
}

/** Options of {@link rateLimit}. */
export interface RateLimitOptions {
  /** Calls allowed per window (the bucket's size). Default 600. */
  limit?: number;
  /** Window length in ms over which `limit` calls refill. Default 60 000. */
  windowMs?: number;
  /** Methods counted. Default: `tools/call` only. */
  methods?: readonly string[];
  /**
   * The bucket a call counts against. Default: the principal of the request's auth info
   * ({@link principalKey}); without one, the transport session (`call.sessionId`); without
   * that, the connection — and for 2026-07-28 requests served without a connection
   * (Streamable HTTP), one bucket shared by every unauthenticated client.
   */
  keyOf?: (call: InterceptContext) => string | undefined;
  /**
   * Most buckets kept at once (one table per `rateLimit()` interceptor, shared by all the
   * server's connections); beyond it the oldest bucket is dropped (its next call starts
   * full). Default 10 000.
   */
  maxKeys?: number;
  /** Clock, for tests. Default `Date.now`. */
  now?: () => number;
}

/** One principal's token bucket. */
interface Bucket {
  tokens: number;
  last: number;
  /** False once dropped from the table (the remembered last bucket is then looked up again). */
  held: boolean;
}

const defaultKey = (call: InterceptContext): string | undefined => principalKey(call.principal) ?? call.sessionId;

/** The bucket of unkeyed 2026-07-28 requests served without a connection. */
const CONNECTIONLESS_KEY = '\u0000connectionless';

/**
 * A token bucket per principal (see {@link RateLimitOptions.keyOf}): `limit` calls,
 * refilled continuously at `limit` per `windowMs`. A call beyond it is answered with error
 * {@link RATE_LIMITED_CODE}, message "Rate limit exceeded", and `data: { limit, windowMs,
 * retryAfterMs }`. The same in both eras: the key, not the connection, decides. Register it
 * with `server.use(rateLimit())`. Throws RangeError for bad options.
 */
export function rateLimit(options: RateLimitOptions = {}): Interceptor {
  const limit = options.limit ?? 600;
  const windowMs = options.windowMs ?? 60_000;
  const maxKeys = options.maxKeys ?? 10_000;
  if (!(limit >= 1) || !(windowMs > 0)) throw new RangeError('rateLimit needs limit >= 1 and windowMs > 0');
  if (!(Number.isInteger(maxKeys) && maxKeys >= 1)) throw new RangeError('rateLimit needs maxKeys to be a positive integer');
  const methods = new Set(options.methods ?? [Method.ToolsCall]);
  const now = options.now ?? Date.now;
  const keyOf = options.keyOf ?? defaultKey;
  const perMs = limit / windowMs;
  // One table for every connection of the server (and its connectionless dispatch): a
  // principal's calls count together wherever they arrive.
  const buckets = new Map<string, Bucket>();
  // an unkeyed call counts against its connection (connectionless: every anonymous client together)
  const connectionKeys = new WeakMap<object, string>();
  let connections = 0;
  const connectionKey = (connection: object | undefined): string => {
    if (connection === undefined) return CONNECTIONLESS_KEY;
    let key = connectionKeys.get(connection);
    if (key === undefined) connectionKeys.set(connection, (key = `\u0000connection:${++connections}`));
    return key;
  };
  // the bucket of the last call: the next call almost always has the same key
  let lastKey: string | undefined;
  let lastBucket: Bucket | undefined;
  return {
    name: 'rateLimit',
    intercept(call, next) {
      if (call.direction !== 'incoming' || call.kind !== 'request' || !methods.has(call.method)) return next();
      const key = keyOf(call) ?? connectionKey(call.connection);
      const t = now();
      let bucket = key === lastKey && lastBucket!.held ? lastBucket! : buckets.get(key);
      if (bucket === undefined) {
        // the oldest bucket goes first (insertion order); a call never reorders the table,
        // which would churn the Map on every call
        if (buckets.size >= maxKeys) {
          const oldest = buckets.keys().next().value!;
          buckets.get(oldest)!.held = false;
          buckets.delete(oldest);
        }
        buckets.set(key, (bucket = { tokens: limit, last: t, held: true }));
      }
      lastKey = key;
      lastBucket = bucket;
      bucket.tokens = Math.min(limit, bucket.tokens + (t - bucket.last) * perMs);
      bucket.last = t;
      if (bucket.tokens < 1) {
        const retryAfterMs = Math.ceil((1 - bucket.tokens) / perMs);
        throw new McpError(RATE_LIMITED_CODE, `Rate limit exceeded: at most ${limit} ${[...methods].join(', ')} per ${windowMs} ms`, {
          limit,
          windowMs,
          retryAfterMs,
        });
      }
      bucket.tokens -= 1;
      return next();
    },
  };
}

/** One audited call. */
export interface AuditEvent {
  direction: 'incoming' | 'outgoing';
  method: string;
  /** The tool or prompt name, or resource URI, when the method has one. */
  target?: string;
  sessionId?: string;
  requestId?: string | number;
  /** Start time (ms since epoch). */
  startedAt: number;
  durationMs: number;
  /** `ok`; `tool_error` for an `isError: true` tool result; `error` for a JSON-RPC or local error; `cancelled`. */
  outcome: 'ok' | 'tool_error' | 'error' | 'cancelled';
  /** The JSON-RPC error code, or the local error code, when outcome is `error`. */
  errorCode?: number | string;
}

/**
 * Calls `sink` once for every request passing through (after it completes), with its
 * duration and outcome. A throwing sink is ignored. Register it first so it sees what
 * other interceptors refuse: `server.use(audit(sink))`; with `'both'` (or `{ direction:
 * 'both' }`) it also audits the server's own requests to its clients.
 */
export function audit(sink: (event: AuditEvent) => void): Interceptor {
  return {
    name: 'audit',
    async intercept(call, next) {
      if (call.kind !== 'request') return next();
      const startedAt = Date.now();
      const t0 = performance.now();
      const event: AuditEvent = { direction: call.direction, method: call.method, startedAt, durationMs: 0, outcome: 'ok' };
      const target = targetOf(call.params);
      if (target !== undefined) event.target = target;
      if (call.sessionId !== undefined) event.sessionId = call.sessionId;
      if (call.id !== undefined) event.requestId = call.id;
      const cancelled = (): boolean => call.request?.cancelled === true;
      try {
        const result = await next();
        if ((result as { isError?: unknown } | undefined)?.isError === true) event.outcome = 'tool_error';
        if (cancelled()) event.outcome = 'cancelled';
        return result;
      } catch (err) {
        event.outcome = cancelled() ? 'cancelled' : 'error';
        const code = (err as { code?: unknown }).code;
        if (typeof code === 'number' || typeof code === 'string') event.errorCode = code;
        throw err;
      } finally {
        event.durationMs = performance.now() - t0;
        try {
          sink(event);
        } catch {
          // an audit sink must not break the call
        }
      }
    },
  };
}

function targetOf(params: JSONObject | undefined): string | undefined {
  if (params === undefined) return undefined;
  if (typeof params.name === 'string') return params.name;
  if (typeof params.uri === 'string') return params.uri;
  return undefined;
}
