/**
 * The checks every POST of the Streamable HTTP server passes, whichever path serves it
 * (sessions, the sessionless mode, the stateless era, the legacy message endpoint): media
 * types (406, 415), the body read under its size limit (413), JSON parsing (-32700), the
 * classification of the parsed value, the authorizer's refusal of a message (403), and the
 * `MCP-Protocol-Version` and batch checks the 2025-era paths share.
 *
 * Contract: pure functions of their arguments; each answers a refusal as an
 * {@link HttpReply} with the status and JSON-RPC code its check names, or undefined (or the
 * checked value) when the request passes. Nothing here keeps state between requests.
 * Runtime-neutral.
 */
import { classify, describeInvalid, KIND_INVALID, KIND_REQUEST } from '../../jsonrpc/decode.js';
import { LocalError } from '../../jsonrpc/errors.js';
import { ErrorCode, type RequestId } from '../../jsonrpc/types.js';
import { Method } from '../../protocol/methods.js';
import { tableFor } from '../../protocol/table.js';
import { BodyBudgetError, bodyBudgetReply } from './inbound.js';
import { errorReply, TRANSPORT_ERROR } from './replies.js';
import { hasContentCoding } from './request-guard.js';
import type { HttpAuthorizer, HttpReply, HttpRequest, HttpRequestInfo } from './types.js';

/** The media range of one element of an Accept value, lower case, parameters dropped. */
function mediaRange(part: string): string {
  const semi = part.indexOf(';');
  return (semi < 0 ? part : part.slice(0, semi)).trim().toLowerCase();
}

/** True when the Accept header value admits `type` (exact, `major/*` or `*\/*`); `null` (no header) is false. */
export function accepts(accept: string | null, type: string): boolean {
  if (accept === null) return false;
  const major = type.slice(0, type.indexOf('/'));
  for (const part of accept.split(',')) {
    const range = mediaRange(part);
    if (range === type || range === '*/*' || range === `${major}/*`) return true;
  }
  return false;
}

/**
 * The `Accept` values clients send on every POST, admitting both types as they stand
 * (constants, not a memo). Compared with `===`: a Set would hash the header, a fresh string
 * per request.
 */
const BOTH_ACCEPTED: readonly string[] = [
  'application/json, text/event-stream',
  'text/event-stream, application/json',
  'application/json,text/event-stream',
  'text/event-stream,application/json',
  '*/*',
];

/** True when `accept` admits both `application/json` and `text/event-stream` (a Streamable HTTP POST), in one pass. */
function acceptsJsonAndSse(accept: string | null): boolean {
  if (accept === null) return false;
  for (const value of BOTH_ACCEPTED) if (value === accept) return true;
  let json = false;
  let sse = false;
  for (const part of accept.split(',')) {
    const range = mediaRange(part);
    if (range === '*/*') return true;
    if (range === 'application/json' || range === 'application/*') json = true;
    else if (range === 'text/event-stream' || range === 'text/*') sse = true;
  }
  return json && sse;
}

function isJsonContent(contentType: string | null): boolean {
  if (contentType === null) return false;
  if (contentType === 'application/json') return true;
  return mediaRange(contentType) === 'application/json';
}

/** The 406 for a request that must accept `text/event-stream` (a GET stream, `GET /sse`). */
export function sseNotAcceptable(): HttpReply {
  return errorReply(406, TRANSPORT_ERROR, 'Not Acceptable: the client must accept text/event-stream');
}

/**
 * The 415 for a POST body this server cannot read: a Content-Type other than JSON, or a
 * content coding (which gets `Accept-Encoding: identity`, RFC 7694 § 3; only that 415 carries
 * it). Undefined when the body is acceptable.
 */
export function mediaRefusal(req: HttpRequest): HttpReply | undefined {
  if (!isJsonContent(req.headers('content-type'))) return errorReply(415, TRANSPORT_ERROR, 'Unsupported Media Type: Content-Type must be application/json');
  if (hasContentCoding(req.headers('content-encoding'))) {
    return errorReply(415, TRANSPORT_ERROR, 'Unsupported Media Type: request bodies must not have a content coding (Content-Encoding)', {
      'accept-encoding': 'identity',
    });
  }
  return undefined;
}

/** The header checks of a POST to the MCP endpoint: Accept (406), then {@link mediaRefusal} (415). Undefined when both pass. */
export function endpointPostRefusal(req: HttpRequest): HttpReply | undefined {
  if (!acceptsJsonAndSse(req.headers('accept'))) {
    return errorReply(406, TRANSPORT_ERROR, 'Not Acceptable: the client must accept both application/json and text/event-stream');
  }
  return mediaRefusal(req);
}

/** A parsed JSON body, as {@link readJson} resolves it. */
export interface JsonBody {
  readonly value: unknown;
  readonly status?: undefined;
}

/**
 * Reads the body (at most `maxBytes`: beyond it 413; unreadable: 400) and parses it as JSON
 * (-32700 with 400 when it is not). Resolves with the parsed value or the refusal.
 */
export async function readJson(req: HttpRequest, maxBytes: number): Promise<JsonBody | HttpReply> {
  return readBody(req, maxBytes, parseJson);
}

/** The parsed `text`, or the 400 with -32700 when it is not JSON. */
export function parseJson(text: string): JsonBody | HttpReply {
  const value = parseJsonValue(text);
  return value === NOT_JSON ? notJson() : { value };
}

/** What {@link parseJsonValue} returns for text that is not JSON: a value no parse can produce. */
export const NOT_JSON: unique symbol = Symbol('not JSON');

/** The parsed `text`, or {@link NOT_JSON} (no wrapper object on the hot path). */
export function parseJsonValue(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return NOT_JSON;
  }
}

/** The 400 with -32700 for a body that is not JSON. */
export function notJson(): HttpReply {
  return errorReply(400, ErrorCode.ParseError, 'Parse error: the body is not valid JSON');
}

/**
 * Hands the body's text to `then` and returns what it returns; the refusal instead when the
 * body is larger than `maxBytes` (413), does not fit in the inbound budget (503), or cannot
 * be read (400). Synchronous for a body the
 * adapter already holds as text; for a streamed one, a promise: the body's own, followed
 * once (no async wrapper: each level of one is a promise and a microtask per request;
 * part of the reply-or-promise chain kept for the instructions rows `json mcpkit` +2.6 % and `json mcpkit-2026` +2.7 %,
 * see `StreamableHttpHandler#route`).
 */
export function readBody<T>(req: HttpRequest, maxBytes: number, then: (text: string) => T | Promise<T>): T | HttpReply | Promise<T | HttpReply> {
  const body = req.body;
  if (body === undefined) return then('');
  if (typeof body === 'string') return body.length > maxBytes ? tooLarge(maxBytes) : then(body);
  let pending: Promise<string>;
  try {
    pending = body(maxBytes);
  } catch (error) {
    return unreadable(error, maxBytes);
  }
  return pending.then(then, (error: unknown) => unreadable(error, maxBytes));
}

/** The refusal of a body whose reading failed with `error`: 413 past the limit, 503 past the inbound budget, else 400. */
function unreadable(error: unknown, maxBytes: number): HttpReply {
  if (error instanceof LocalError && error.code === 'message_too_large') return tooLarge(maxBytes);
  if (error instanceof BodyBudgetError) return bodyBudgetReply();
  return errorReply(400, TRANSPORT_ERROR, 'Bad Request: the request body could not be read');
}

function tooLarge(maxBytes: number): HttpReply {
  return errorReply(413, ErrorCode.InvalidRequest, `Payload Too Large: the request body exceeds ${maxBytes} bytes`);
}

/** A POST body to the MCP endpoint that parsed and passed classification (see {@link classifyPost}). */
export class PostBody {
  /** The parsed value: one message or a batch (array) of them. */
  readonly value: unknown;
  /** The ids of the requests in it, in order. */
  readonly ids: RequestId[];
  /** True when the body is an array. */
  readonly batch: boolean;
  /** True when an element of a batch is not a valid JSON-RPC message. */
  readonly hasInvalid: boolean;
  /** True when the body is one `initialize` request. */
  readonly initialize: boolean;

  /** Built by {@link classifyPost}. */
  constructor(value: unknown, ids: RequestId[], batch: boolean, hasInvalid: boolean, initialize: boolean) {
    this.value = value;
    this.ids = ids;
    this.batch = batch;
    this.hasInvalid = hasInvalid;
    this.initialize = initialize;
  }

  /** The id an HTTP-level refusal of this body carries: the request's, when it is one request; else null. */
  get replyId(): RequestId | null {
    return this.batch || this.ids.length === 0 ? null : this.ids[0]!;
  }
}

/**
 * Classifies a parsed POST body: a {@link PostBody}, or the 400 for an empty batch, an
 * `initialize` inside a batch, or a single value that is no JSON-RPC message (-32600, with
 * the id when one can be read). Invalid elements of a batch are answered by the session.
 */
export function classifyPost(value: unknown): PostBody | HttpReply {
  const ids: RequestId[] = [];
  if (Array.isArray(value)) {
    if (value.length === 0) return errorReply(400, ErrorCode.InvalidRequest, 'Invalid request: an empty batch');
    let hasInvalid = false;
    for (const element of value) {
      const kind = classify(element);
      if (kind === KIND_REQUEST) {
        const m = element as { id: RequestId; method: string };
        if (m.method === Method.Initialize) return errorReply(400, ErrorCode.InvalidRequest, 'Invalid request: initialize must not be part of a batch');
        ids.push(m.id);
      } else if (kind === KIND_INVALID) hasInvalid = true;
    }
    return new PostBody(value, ids, true, hasInvalid, false);
  }
  const kind = classify(value);
  if (kind === KIND_INVALID) return invalidMessage(value);
  if (kind !== KIND_REQUEST) return new PostBody(value, ids, false, false, false);
  const m = value as { id: RequestId; method: string };
  ids.push(m.id);
  return new PostBody(value, ids, false, false, m.method === Method.Initialize);
}

/** The 400 (-32600, with the id when one can be read) for a single value that is no JSON-RPC message. */
export function invalidMessage(value: unknown): HttpReply {
  const { id, reason } = describeInvalid(value);
  return errorReply(400, ErrorCode.InvalidRequest, `Invalid request: ${reason}`, undefined, id);
}

/** The authorizer's refusal (403) of any message of a parsed POST (each element of a batch), or undefined. */
export function refuseMessages(authorizer: HttpAuthorizer | undefined, value: unknown, info: HttpRequestInfo | undefined): HttpReply | undefined {
  const check = authorizer?.authorizeMessage;
  if (check === undefined) return undefined;
  if (!Array.isArray(value)) return check.call(authorizer, value, info?.authInfo);
  for (const message of value) {
    const reply = check.call(authorizer, message, info?.authInfo);
    if (reply !== undefined) return reply;
  }
  return undefined;
}

/**
 * The 400 for an `MCP-Protocol-Version` header value not among `revisions` (the revisions
 * the server serves), carrying `id`; undefined when the header is absent (2025-03-26) or served.
 */
export function versionRefusal(revisions: readonly string[], version: string | null, id: RequestId | null = null): HttpReply | undefined {
  if (version === null || revisions.includes(version)) return undefined;
  return errorReply(
    400,
    TRANSPORT_ERROR,
    `Bad Request: unsupported MCP-Protocol-Version ${JSON.stringify(version)} (supported: ${revisions.join(', ')})`,
    undefined,
    id,
  );
}

/** The 400 for a batch under a revision whose table has no batches (2025-06-18 removed them); undefined when allowed. */
export function batchRefusal(revision: string | undefined): HttpReply | undefined {
  if (revision !== undefined && tableFor(revision)?.batches === true) return undefined;
  return errorReply(400, ErrorCode.InvalidRequest, `Invalid request: batches are not supported in protocol revision ${revision ?? '(none)'}`);
}
