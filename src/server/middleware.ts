/**
 * Ready-made middleware the specification asks servers for: a per-connection rate limit
 * on tool calls (2025-03-26 › Tools › Security Considerations: "Rate limit tool
 * invocations") and an audit hook that sees every call with its duration and outcome.
 */
import { McpError } from '../jsonrpc/errors.js';
import type { JSONObject } from '../jsonrpc/types.js';
import { Method } from '../protocol/methods.js';
import type { Middleware } from '../protocol/middleware.js';

/** JSON-RPC code used for "rate limit exceeded" (implementation-defined server error range). */
export const RATE_LIMITED_CODE = -32029;

/** Options of {@link rateLimit}. */
export interface RateLimitOptions {
  /** Calls allowed per window (the bucket's size). Default 600. */
  limit?: number;
  /** Window length in ms over which `limit` calls refill. Default 60 000. */
  windowMs?: number;
  /** Methods counted. Default: `tools/call` only. */
  methods?: readonly string[];
  /** Clock, for tests. Default `Date.now`. */
  now?: () => number;
}

/**
 * A token bucket per connection: `limit` calls, refilled continuously at `limit` per
 * `windowMs`. A call beyond it is answered with error {@link RATE_LIMITED_CODE}, message
 * "Rate limit exceeded", and `data: { limit, windowMs, retryAfterMs }`. Register it as
 * incoming middleware (`server.use(rateLimit())`).
 */
export function rateLimit(options: RateLimitOptions = {}): Middleware {
  const limit = options.limit ?? 600;
  const windowMs = options.windowMs ?? 60_000;
  if (!(limit >= 1) || !(windowMs > 0)) throw new RangeError('rateLimit needs limit >= 1 and windowMs > 0');
  const methods = new Set(options.methods ?? [Method.ToolsCall]);
  const now = options.now ?? Date.now;
  const perMs = limit / windowMs;
  return (next) => {
    // Called once per connection: this state belongs to one connection.
    let tokens = limit;
    let last = now();
    return (method, params, ctx) => {
      if (ctx.direction !== 'incoming' || ctx.kind !== 'request' || !methods.has(method)) return next(method, params, ctx);
      const t = now();
      tokens = Math.min(limit, tokens + (t - last) * perMs);
      last = t;
      if (tokens < 1) {
        const retryAfterMs = Math.ceil((1 - tokens) / perMs);
        return Promise.reject(new McpError(RATE_LIMITED_CODE, `Rate limit exceeded: at most ${limit} ${[...methods].join(', ')} per ${windowMs} ms`, { limit, windowMs, retryAfterMs }));
      }
      tokens -= 1;
      return next(method, params, ctx);
    };
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
 * other middleware refuses: `server.use(audit(sink))`.
 */
export function audit(sink: (event: AuditEvent) => void): Middleware {
  return (next) => async (method, params, ctx) => {
    if (ctx.kind !== 'request') return next(method, params, ctx);
    const startedAt = Date.now();
    const t0 = performance.now();
    const event: AuditEvent = { direction: ctx.direction, method, startedAt, durationMs: 0, outcome: 'ok' };
    const target = targetOf(params);
    if (target !== undefined) event.target = target;
    if (ctx.sessionId !== undefined) event.sessionId = ctx.sessionId;
    if (ctx.id !== undefined) event.requestId = ctx.id;
    try {
      const result = await next(method, params, ctx);
      if ((result as { isError?: unknown } | undefined)?.isError === true) event.outcome = 'tool_error';
      if ((ctx as { cancelled?: boolean }).cancelled) event.outcome = 'cancelled';
      return result;
    } catch (err) {
      event.outcome = (ctx as { cancelled?: boolean }).cancelled ? 'cancelled' : 'error';
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
  };
}

function targetOf(params: JSONObject | undefined): string | undefined {
  if (params === undefined) return undefined;
  if (typeof params.name === 'string') return params.name;
  if (typeof params.uri === 'string') return params.uri;
  return undefined;
}
