/**
 * Which outgoing request an input answer belongs to (the 2026-07-28 era's multi round-trip:
 * the server's `InputRequiredResult` names inputs of ONE request the client made). The
 * client records, for the context it hands its sampling / elicitation / roots handler, the
 * signal of the request the inputs came with; code that answers on behalf of someone else
 * (mcpkit/compose's proxy, which has many callers on one upstream session) finds the caller
 * from it. Internal: not exported from the package.
 */
import type { RequestContext } from '../session/context.js';

/** Where an input answer's request came from. */
export interface InputOrigin {
  /** The `signal` option of the outgoing request the input belongs to (undefined: it had none). */
  readonly signal: AbortSignal | undefined;
  /** The input's key in the server's `inputRequests` (an answer goes back under it). */
  readonly key: string;
}

const origins = new WeakMap<RequestContext, InputOrigin>();

/** Records that `ctx` answers input `key` of the outgoing request whose signal is `signal`. */
export function setInputOrigin(ctx: RequestContext, origin: InputOrigin): void {
  origins.set(ctx, origin);
}

/**
 * The outgoing request and input key `ctx` answers; undefined for a server → client request
 * of the 2025 era (the wire does not say which request it serves).
 */
export function inputOrigin(ctx: RequestContext): InputOrigin | undefined {
  return origins.get(ctx);
}
