/**
 * Where a proxy sends the requests its upstream server makes of its client (sampling,
 * elicitation, roots) and the upstream's log messages: to the downstream caller that caused
 * them. Runtime-neutral.
 *
 * Design note: the proxy holds ONE upstream session and every downstream caller shares it
 * (a stdio upstream is one process, one session; a 2026-07-28 caller has no connection to
 * key a session on). The wire does not say which request a server→client request belongs to
 * (stdio has no `relatedRequestId`), so the proxy decides from what is in flight:
 * - exactly one forwarded request in flight: that request's caller answers (through the
 *   request's context: in the 2025 era as a request related to it, in the 2026-07-28 era as
 *   a multi round-trip input);
 * - several in flight, all from one 2025-era connection: that connection answers (a request
 *   not tied to one of its requests);
 * - none in flight and exactly one 2025-era connection: that connection answers;
 * - otherwise the upstream gets -32603 saying the proxy cannot tell which caller to ask
 *   (refusing is safer than asking the wrong user to approve something).
 */
import { McpError } from '../jsonrpc/errors.js';
import { ErrorCode } from '../jsonrpc/types.js';
import type { ServerConnection, ServerRequestContext } from '../server/connection.js';
import type { McpServer } from '../server/index.js';

/** Who answers one server→client request: a downstream request's context, or a downstream connection. */
export type DownstreamTarget = { readonly request: ServerRequestContext } | { readonly connection: ServerConnection };

/** The forwarded downstream requests in flight, and the choice of who answers the upstream's requests. */
export class InFlightRequests {
  /** The servers whose connections may answer: the proxy's own, and each it is mounted on ({@link attach}). */
  readonly #servers: McpServer[];
  /** Each forwarded request's context, with the controller that aborts its upstream request. */
  readonly #requests = new Map<ServerRequestContext, AbortController>();

  constructor(server: McpServer) {
    this.#servers = [server];
  }

  /** Counts `server`'s connections too (a server the proxy is mounted on: its callers reach the upstream). */
  attach(server: McpServer): void {
    if (!this.#servers.includes(server)) this.#servers.push(server);
  }

  /** How many forwarded requests are in flight. */
  get size(): number {
    return this.#requests.size;
  }

  /** Records a forwarded request until `done` is called; returns the controller aborting its upstream request. */
  add(ctx: ServerRequestContext): AbortController {
    const controller = new AbortController();
    this.#requests.set(ctx, controller);
    return controller;
  }

  delete(ctx: ServerRequestContext): void {
    this.#requests.delete(ctx);
  }

  /** Aborts the upstream request forwarded for `ctx` (its caller must answer an input first: 2026-07-28 multi round-trip). */
  abort(ctx: ServerRequestContext, reason: Error): void {
    this.#requests.get(ctx)?.abort(reason);
  }

  /** The downstream that answers the upstream's `method` request (see the module note); throws McpError -32603 when ambiguous. */
  target(method: string): DownstreamTarget {
    if (this.#requests.size === 1) return { request: this.#requests.keys().next().value as ServerRequestContext };
    if (this.#requests.size > 1) {
      const connections = new Set<ServerConnection | undefined>();
      for (const ctx of this.#requests.keys()) connections.add(ctx.connection);
      const only = connections.size === 1 ? connections.values().next().value : undefined;
      if (only !== undefined) return { connection: only };
      throw new McpError(
        ErrorCode.InternalError,
        `The proxy cannot tell which of its callers should answer ${method}: ${this.#requests.size} requests of different callers are in flight upstream. Make the request again when fewer calls are running.`,
      );
    }
    const ready = this.#servers.flatMap((server) => [...server.connections].filter((c) => c.ready));
    if (ready.length === 1) return { connection: ready[0]! };
    throw new McpError(
      ErrorCode.InternalError,
      ready.length === 0
        ? `The proxy has no caller to ask for ${method}: no request is in flight and no client is connected.`
        : `The proxy cannot tell which of its ${ready.length} connected callers should answer ${method}: no request is in flight.`,
    );
  }

  /** The one request in flight, if exactly one is (where a log message not tied to a request goes). */
  only(): ServerRequestContext | undefined {
    return this.#requests.size === 1 ? (this.#requests.keys().next().value as ServerRequestContext) : undefined;
  }
}
