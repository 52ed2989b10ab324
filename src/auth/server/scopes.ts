/**
 * Scope requirements per request: scopes every request needs, per JSON-RPC method, and per
 * tool (`tools/call` by tool name). One description serves two places: the bearer authorizer
 * checks it at the HTTP level before a POST is delivered (403 `insufficient_scope` with
 * `WWW-Authenticate`, 2025-11-25 › Authorization › Scope Challenge Handling), and
 * {@link requireScopes} checks it again inside the server as an interceptor (for transports
 * without the HTTP check, and as a second line). Runtime-neutral.
 */
import { Method } from '../../protocol/methods.js';
import type { Interceptor } from '../../server/interceptors.js';
import { InsufficientScopeError, isAuthInfo, missingScopes } from './types.js';

/** Which scopes which requests need. Every list means "all of these". */
export interface ScopeRequirements {
  /** Scopes every request needs. */
  readonly all?: readonly string[];
  /** Per JSON-RPC method (`resources/read`, …): scopes its requests need. */
  readonly methods?: Readonly<Record<string, readonly string[]>>;
  /** Per tool name: scopes a `tools/call` of that tool needs (on top of `methods['tools/call']`). */
  readonly tools?: Readonly<Record<string, readonly string[]>>;
}

const NONE: readonly string[] = Object.freeze([]);
const hasOwn = (o: object, k: string): boolean => Object.hasOwn(o, k);

/**
 * The scopes a request of `method` with `params` needs under `requirements` (possibly
 * empty). Pure; allocation-free when only one list applies.
 */
export function requiredScopesFor(requirements: ScopeRequirements, method: string, params: unknown): readonly string[] {
  const lists: (readonly string[])[] = [];
  if (requirements.all !== undefined && requirements.all.length > 0) lists.push(requirements.all);
  const byMethod = requirements.methods;
  if (byMethod !== undefined && hasOwn(byMethod, method)) lists.push(byMethod[method]!);
  const byTool = requirements.tools;
  if (byTool !== undefined && method === Method.ToolsCall && typeof params === 'object' && params !== null) {
    const name = (params as { name?: unknown }).name;
    if (typeof name === 'string' && hasOwn(byTool, name)) lists.push(byTool[name]!);
  }
  if (lists.length === 0) return NONE;
  if (lists.length === 1) return lists[0]!;
  return [...new Set(lists.flat())];
}

/**
 * A server interceptor enforcing `requirements` on incoming requests: a request whose
 * principal (the auth info the transport attached) lacks a required scope — or that carries
 * no auth info at all (fail closed) — is refused with {@link InsufficientScopeError}.
 * Register it with `server.use()`. Over Streamable HTTP, pass the same requirements to
 * `requireBearerAuth({ scopes })` so clients get the 403 challenge before the request is
 * delivered; this interceptor then only backs it up.
 */
export function requireScopes(requirements: ScopeRequirements): Interceptor {
  return {
    name: 'requireScopes',
    intercept(call, next) {
      if (call.direction !== 'incoming' || call.kind !== 'request') return next();
      const required = requiredScopesFor(requirements, call.method, call.params);
      if (required.length === 0) return next();
      const principal = call.principal;
      const granted = isAuthInfo(principal) ? principal.scopes : NONE;
      if (missingScopes(required, granted).length > 0) throw new InsufficientScopeError(required, granted);
      return next();
    },
  };
}
