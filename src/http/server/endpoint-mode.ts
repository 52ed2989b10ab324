/**
 * The 2025-era half of the MCP endpoint, as the handler sees it after its shared checks: one
 * of two modes, chosen by the `sessionless` option and fixed for the handler's life —
 * `Mcp-Session-Id` sessions (session-path.ts) or the sessionless mode, where each POST is
 * served by a throwaway session (sessionless-post.ts). POSTs that claim the stateless era
 * (2026-07-28) never reach either: the handler sends them to `StatelessPostHandler`.
 * Runtime-neutral.
 */
import type { PostBody } from './post-checks.js';
import type { StreamableSessionTransport } from './session-transport.js';
import type { HttpReply, HttpRequest, HttpRequestInfo } from './types.js';

/**
 * One 2025-era mode of the MCP endpoint. Its methods never throw for bad input: they answer
 * it. They answer with a reply or a promise of one: part of the handler's reply-or-promise
 * chain, kept for the instructions row `json mcpkit` (+2.6 % with the chain async; see
 * `StreamableHttpHandler#route`).
 */
export interface EndpointMode {
  /** The `Allow` header value for a method the endpoint does not serve (405). */
  readonly allow: string;
  /**
   * Before the body is read: the session a POST names (undefined when it names none or the
   * mode has none), or the refusal (404 for an unknown session); a promise when the session
   * must first be restored from a session directory.
   */
  sessionOf(
    req: HttpRequest,
    info: HttpRequestInfo | undefined,
  ): StreamableSessionTransport | undefined | HttpReply | Promise<StreamableSessionTransport | HttpReply>;
  /** Serves a POST that passed every shared check; `session` is what {@link sessionOf} found. */
  post(
    req: HttpRequest,
    info: HttpRequestInfo | undefined,
    body: PostBody,
    versionHeader: string | null,
    session: StreamableSessionTransport | undefined,
  ): HttpReply | Promise<HttpReply>;
  /** Serves a GET of the endpoint (the session's stream, or 405). */
  get(req: HttpRequest, info: HttpRequestInfo | undefined): HttpReply | Promise<HttpReply>;
  /** Serves a DELETE of the endpoint (ends the session, or 405). */
  delete(req: HttpRequest, info: HttpRequestInfo | undefined): HttpReply | Promise<HttpReply>;
  /** Lets go of what the mode holds beyond its sessions (the handler is closing). Optional. */
  close?(): void;
}
