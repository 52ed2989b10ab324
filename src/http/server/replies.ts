/**
 * Small builders of the replies the Streamable HTTP core sends, shared by its modules.
 * Runtime-neutral.
 */
import { ErrorCode, type RequestId } from '../../jsonrpc/types.js';
import type { HttpHeaders, HttpPlainReply, HttpStreamReply, SseReplyStream } from './types.js';

/** JSON-RPC error code for transport-level refusals without a more specific code. */
export const TRANSPORT_ERROR = -32000;
/** JSON-RPC error code for a session that does not exist (answered with HTTP 404). */
export const SESSION_NOT_FOUND = -32001;

const NO_HEADERS: HttpHeaders = Object.freeze({});

/** A reply without a body (202, 200 after DELETE). */
export function emptyReply(status: number, headers: HttpHeaders = NO_HEADERS): HttpPlainReply {
  return { status, headers };
}

/** The headers of a JSON reply refused by the outbound budget (503): retry once readers caught up. */
const REFUSAL_HEADERS: HttpHeaders = Object.freeze({ 'content-type': 'application/json', 'retry-after': '5' });

/** 503 with `body`, the JSON-RPC error sent in place of a reply the outbound budget refused (see outbound.ts `budgetRefusal`). */
export function refusedReply(body: string): HttpPlainReply {
  return { status: 503, headers: REFUSAL_HEADERS, body };
}

/**
 * The headers of every JSON reply but the one that opens a session: one frozen object, not
 * one per reply, holding the media type alone — Deno's server sends a `Response` whose only
 * header is `Content-Type: application/json` on its fast path (no header list built).
 */
const JSON_HEADERS: HttpHeaders = Object.freeze({ 'content-type': 'application/json' });

/**
 * A JSON reply whose body is `body` (already serialized). `sessionId` is given only for the
 * `initialize` response that assigns it: later replies of a session do not repeat it (the
 * client already sends it; the specification asks for it on that response alone).
 */
export function jsonReply(status: number, body: string, sessionId?: string): HttpPlainReply {
  return { status, headers: sessionId === undefined ? JSON_HEADERS : { 'content-type': 'application/json', 'mcp-session-id': sessionId }, body };
}

/**
 * An HTTP error with a JSON-RPC error response as its body: `id` is the refused request's
 * id when the body was one readable request, else null. `extra` adds headers (`allow`,
 * `retry-after`).
 */
export function errorReply(status: number, code: number, message: string, extra?: Record<string, string>, id: RequestId | null = null): HttpPlainReply {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (extra !== undefined) Object.assign(headers, extra);
  return { status, headers, body: JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }) };
}

/** The 500 for a failure of mcpkit's own (what went wrong goes to `onError`, never to the client). */
export function internalErrorReply(): HttpPlainReply {
  return errorReply(500, ErrorCode.InternalError, 'Internal error');
}

/** The headers of a Server-Sent Events reply: its media type, no caching or transforming, and `sessionId` when given. */
export function sseHeaders(sessionId?: string): HttpHeaders {
  const headers: Record<string, string> = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform' };
  if (sessionId !== undefined) headers['mcp-session-id'] = sessionId;
  return Object.freeze(headers);
}

const SESSIONLESS_SSE_HEADERS = sseHeaders();

/** A 200 Server-Sent Events reply streaming `stream`, with `headers` from {@link sseHeaders} (a session keeps its own). */
export function sseReply(stream: SseReplyStream, headers: HttpHeaders = SESSIONLESS_SSE_HEADERS): HttpStreamReply {
  return { status: 200, headers, stream };
}

/**
 * The SEP-1699 priming event: an id, the reconnection delay and empty data. The id is one
 * the session made (no line break: see `encodeUncheckedSseEvent`), the delay an option already
 * checked to be a non-negative integer.
 */
export function primingEvent(id: string, retryMs: number): string {
  return 'id: ' + id + '\nretry: ' + retryMs + '\ndata: \n\n';
}
