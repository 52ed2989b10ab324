/**
 * Handing a checked POST to a {@link StreamableSessionTransport}, shared by the two 2025-era
 * paths of the MCP endpoint (`Mcp-Session-Id` sessions and the sessionless mode), and the
 * connection of a new transport to the server (legacy sessions too).
 *
 * Contract: the POST has passed every check of post-checks.ts; what is left here is the
 * 409 for a request id still in progress on the transport, and the reply: 202 for
 * notifications and responses alone, else an SSE stream (`sse`) or the JSON response
 * (`json`; 404 when the session closed before answering). Runtime-neutral.
 */
import { toError } from '../../jsonrpc/errors.js';
import { ErrorCode, type RequestId } from '../../jsonrpc/types.js';
import type { ServerConnection } from '../../server/connection.js';
import type { McpServer } from '../../server/server.js';
import type { LegacySseTransport } from './legacy-sse.js';
import type { PostBody } from './post-checks.js';
import { emptyReply, errorReply, jsonReply, refusedReply, SESSION_NOT_FOUND } from './replies.js';
import { HttpMessageInfo, type JsonOutcome, type StreamableSessionTransport } from './session-transport.js';
import type { HttpReply, HttpRequest, HttpRequestInfo } from './types.js';

/**
 * Connects `transport` to `server` (one `ServerConnection` per transport). Resolves with the
 * connection (the transport itself never holds it: it sees its channel through the view it
 * gets at start), or with undefined after a failure, which is reported to `reportError`
 * and closes the transport.
 */
export async function connectTransport(
  server: McpServer,
  transport: StreamableSessionTransport | LegacySseTransport,
  reportError: (error: Error) => void,
): Promise<ServerConnection | undefined> {
  try {
    return await server.connect(transport);
  } catch (error) {
    reportError(toError(error));
    void transport.close();
    return undefined;
  }
}

/** The {@link HttpMessageInfo} of the messages of one POST. */
function messageInfo(transport: StreamableSessionTransport, req: HttpRequest, info: HttpRequestInfo | undefined): HttpMessageInfo {
  return new HttpMessageInfo(transport, info?.authInfo, req.rawHeaders);
}

/**
 * Delivers one request (`initialize`, always answered as JSON whatever the response mode,
 * so that a failed initialization creates no session) and waits for its response.
 */
export function answerAsJson(
  transport: StreamableSessionTransport,
  req: HttpRequest,
  info: HttpRequestInfo | undefined,
  value: unknown,
  id: RequestId,
): Promise<JsonOutcome> {
  const stream = transport.openPost([id], false, false, 'json');
  transport.deliver(value, messageInfo(transport, req, info), stream);
  return transport.whenAnswered(stream);
}

/** Delivers a checked POST to `transport` and answers it (see the module note). */
export function deliverPost(
  transport: StreamableSessionTransport,
  req: HttpRequest,
  info: HttpRequestInfo | undefined,
  body: PostBody,
  mode: 'sse' | 'json',
): HttpReply | Promise<HttpReply> {
  const { value, ids } = body;
  const meta = messageInfo(transport, req, info);
  if (ids.length === 0 && !body.hasInvalid) {
    transport.deliver(value, meta, undefined);
    if (transport.sessionId === undefined) void transport.close();
    return emptyReply(202);
  }
  for (let i = 0; i < ids.length; i++) {
    if (transport.isOpenRequest(ids[i]!)) {
      return errorReply(
        409,
        ErrorCode.InvalidRequest,
        `Invalid request: id ${JSON.stringify(ids[i])} is already in use by a request in progress`,
        undefined,
        body.batch ? null : ids[i]!,
      );
    }
  }
  const stream = transport.openPost(ids, body.batch, body.hasInvalid, mode);
  if (mode === 'sse') {
    const reply = transport.replyFor(stream);
    transport.deliver(value, meta, stream);
    return reply;
  }
  transport.deliver(value, meta, stream);
  // requests answered at once (synchronous handlers) are replied to without a promise
  const now = transport.answeredNow(stream);
  if (now !== undefined) return outcomeReply(transport, now);
  return transport.whenAnswered(stream).then((outcome) => outcomeReply(transport, outcome));
}

/** The HTTP reply of a JSON-mode POST's outcome: its response(s), else 404 (the session closed under it) or 202. */
function outcomeReply(transport: StreamableSessionTransport, outcome: JsonOutcome): HttpReply {
  if (outcome.body !== undefined) return outcome.refused ? refusedReply(outcome.body) : jsonReply(200, outcome.body);
  return transport.closed && transport.sessionId !== undefined ? errorReply(404, SESSION_NOT_FOUND, 'Session not found') : emptyReply(202);
}
