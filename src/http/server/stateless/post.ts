/**
 * Stateless-era (2026-07-28) POSTs of the Streamable HTTP server: which POSTs they are, the
 * checks the transport binding adds, and their dispatch: each request by itself, through the
 * server's connectionless dispatch, with its own reply channel (exchange.ts).
 *
 * Design notes:
 * - A POST is stateless-era when its body is one request (or notification) whose `_meta`
 *   claims a protocol version, or when its `MCP-Protocol-Version` header names a
 *   stateless revision this server serves. Everything else keeps its 2025-era path
 *   (sessions, `initialize`), so one URL serves both eras, chosen per request.
 * - Checks, cheapest first, each answered with HTTP 400 and a JSON-RPC error carrying the
 *   request's id: `MCP-Protocol-Version` present (-32020); the per-request `_meta` complete
 *   (-32602); header and `_meta` versions equal (-32020); version served (-32022);
 *   `Mcp-Method` equal to the body's method and, for `tools/call`, `prompts/get` and
 *   `resources/read`, `Mcp-Name` equal to the name or URI (-32020; values trimmed of
 *   surrounding whitespace, base64 sentinel decoded, compared case-sensitively); for
 *   `tools/call` of a tool whose input schema annotates arguments with `x-mcp-header`,
 *   every `Mcp-Param-{Name}` header present exactly when its argument is, and equal to it
 *   (-32020). The annotations of a tool definition are read once (cached by definition).
 * - The per-request `_meta` is read once, here; the reading goes with the request to the
 *   server, which does not read it again.
 * - A body nesting deeper than the decoder's bound gets 400 with -32600.
 * - Other errors come from the server; their status follows {@link statusOfError}
 *   (-32601 → 404, -32021/-32022 → 400).
 * - The reply is SSE when the request can produce notifications — `subscriptions/listen`,
 *   or a request that asked for progress (`progressToken`) or logs (`logLevel`) — and the
 *   handler is not in `json` mode (a listen is always SSE); otherwise JSON, which is
 *   cheaper for the common request.
 * - Notifications POSTed in this era (the core defines none over HTTP) are accepted with
 *   202 and not dispatched.
 */
import { classify, DEFAULT_DECODE_LIMITS, exceedsDepth, KIND_INVALID, KIND_NOTIFICATION, KIND_REQUEST } from '../../../jsonrpc/decode.js';
import { McpError, toError } from '../../../jsonrpc/errors.js';
import { ErrorCode, type JSONObject, type RequestId } from '../../../jsonrpc/types.js';
import { isObject } from '../../../jsonrpc/values.js';
import { Method } from '../../../protocol/methods.js';
import { claimsStatelessEra, headerMismatch, MetaKey, type RequestMeta, readRequestMeta, StatelessErrorCode } from '../../../protocol/stateless/wire.js';
import type { StatelessDispatch, StatelessReplyChannel } from '../../../server/stateless/dispatch.js';
import {
  argumentAt,
  decodeHeaderValue,
  headerMatches,
  mcpNameSource,
  type ParamHeader,
  paramHeaders,
  requiresMcpName,
} from '../../../transport/stateless/mcp-headers.js';
import type { MessageInfo } from '../../../transport/types.js';
import { invalidMessage, refuseMessages } from '../post-checks.js';
import { emptyReply, errorReply } from '../replies.js';
import type { HttpAuthorizer, HttpReply, HttpRequest, HttpRequestInfo } from '../types.js';
import { StatelessExchanges, StatelessMessageInfo, shuttingDown } from './exchange.js';

/**
 * What the 2026-07-28 path needs of the server (`McpServer` is one): its revisions, the
 * connectionless dispatch, and one narrow lookup — a tool's input schema, for the
 * `Mcp-Param-*` headers it annotates. Nothing else of the server is reached.
 */
export interface StatelessServer {
  readonly statelessRevisions: readonly string[];
  /** Resolves once requests can be served (schemas converted on first use are ready). */
  ready(): Promise<void>;
  /** The input schema of the tool `name` as listed, or undefined for an unknown tool. */
  toolInputSchema(name: string): unknown;
  dispatchStateless(
    id: RequestId,
    method: string,
    params: JSONObject | undefined,
    meta: RequestMeta,
    info: MessageInfo | undefined,
    reply: StatelessReplyChannel,
  ): StatelessDispatch;
}

/** What the stateless path needs from the handler. */
export interface StatelessPostHost {
  reportError(error: Error): void;
}

/** Options of {@link StatelessPostHandler}. */
export interface StatelessPostOptions {
  /** `json`: every reply is JSON except `subscriptions/listen`. Default `sse` (see the module note). */
  responseMode?: 'sse' | 'json';
  /** Most stateless-era requests in progress at once (this handler); more get 503 with `Retry-After: 1`. Default 100 000. */
  maxInFlight?: number;
  /** Interval of keep-alive comments on subscription streams, in ms (0: none). Default 15 000. */
  keepAliveMs?: number;
}

/** An HTTP 400 (or another status) carrying a JSON-RPC error with the request's id. */
function rejection(error: McpError, id: RequestId | null, status = 400): HttpReply {
  const body: JSONObject = { jsonrpc: '2.0', id, error: error.toJSON() };
  return { status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

const NO_PARAM_HEADERS: readonly ParamHeader[] = Object.freeze([]);

/** The stateless-era side of one Streamable HTTP handler. Created by the handler; see the module note. */
export class StatelessPostHandler {
  readonly #server: StatelessServer;
  readonly #host: StatelessPostHost;
  readonly #mode: 'sse' | 'json';
  readonly #maxInFlight: number;
  readonly #exchanges: StatelessExchanges;
  #readying: Promise<boolean> | undefined;
  /** True once the server is ready (the fast path skips the promise). */
  #ready = false;
  /** `x-mcp-header` annotations per input schema object (definitions are replaced, never mutated). */
  readonly #paramHeaders = new WeakMap<object, readonly ParamHeader[]>();

  /** Throws RangeError for a `maxInFlight` below 1. */
  constructor(server: StatelessServer, host: StatelessPostHost, options: StatelessPostOptions = {}) {
    this.#server = server;
    this.#host = host;
    this.#mode = options.responseMode ?? 'sse';
    this.#maxInFlight = options.maxInFlight ?? 100_000;
    if (!(this.#maxInFlight >= 1)) throw new RangeError('maxInFlight must be at least 1');
    this.#exchanges = new StatelessExchanges(options.keepAliveMs);
  }

  /** Revisions served (the server's stateless revisions). */
  get revisions(): readonly string[] {
    return this.#server.statelessRevisions;
  }

  /** Requests in progress. */
  get openRequests(): number {
    return this.#exchanges.size;
  }

  /** True when the `MCP-Protocol-Version` header alone makes a POST stateless-era (it names a served revision). */
  claimedByHeader(version: string | null): boolean {
    return version !== null && this.#server.statelessRevisions.includes(version);
  }

  /**
   * True when the parsed POST body is stateless-era traffic: its `_meta` claims the era, or
   * its `MCP-Protocol-Version` header (`header`) names a stateless revision — or, as a
   * boolean, the caller's {@link claimedByHeader} verdict on it, when it has one already.
   */
  claims(value: unknown, header: string | null | boolean): boolean {
    if (!isObject(value) || typeof value.method !== 'string') return false;
    return (typeof header === 'boolean' ? header : this.claimedByHeader(header)) || claimsStatelessEra(value.params);
  }

  /** Ends every request in progress (their streams end, pending JSON replies get 503). Idempotent. */
  close(): Promise<void> {
    return this.#exchanges.close();
  }

  /**
   * Answers one stateless-era POST (already parsed). `headerVersion`: its
   * `MCP-Protocol-Version` header, when the caller has read it already; `authorizer`: its
   * message check (403), run once the value is known to be a JSON-RPC message (an invalid one
   * gets the 400 every POST path gives it). Never rejects.
   */
  post(
    req: HttpRequest,
    info: HttpRequestInfo | undefined,
    value: JSONObject,
    headerVersion: string | null = req.headers('mcp-protocol-version'),
    authorizer?: HttpAuthorizer,
  ): HttpReply | Promise<HttpReply> {
    const kind = classify(value);
    if (kind === KIND_INVALID) return invalidMessage(value);
    const refused = refuseMessages(authorizer, value, info);
    if (refused !== undefined) return refused;
    if (kind === KIND_NOTIFICATION) return emptyReply(202);
    if (kind !== KIND_REQUEST) return errorReply(400, -32600, 'Invalid request: expected one JSON-RPC request');
    const id = value.id as RequestId;
    if (exceedsDepth(value, DEFAULT_DECODE_LIMITS.maxDepth))
      return rejection(new McpError(ErrorCode.InvalidRequest, `Message nests deeper than ${DEFAULT_DECODE_LIMITS.maxDepth} levels`), id);
    const method = value.method as string;
    const params = isObject(value.params) ? value.params : undefined;
    const checked = this.#check(req, headerVersion, method, params, value.params);
    if (checked instanceof McpError) return rejection(checked, id);
    if (this.#exchanges.closed) return shuttingDown(id);
    if (this.#exchanges.size >= this.#maxInFlight)
      return errorReply(503, -32000, 'Service Unavailable: too many requests in progress', { 'retry-after': '1' }, id);
    if (this.#ready) return this.#dispatch(req, info, id, method, params!, checked);
    return this.#whenReady().then((ok) =>
      !ok
        ? errorReply(500, -32603, 'Internal error', undefined, id)
        : this.#exchanges.closed
          ? shuttingDown(id)
          : this.#dispatch(req, info, id, method, params!, checked),
    );
  }

  /** Opens the request's exchange and hands the request to the server. */
  #dispatch(
    req: HttpRequest,
    info: HttpRequestInfo | undefined,
    id: RequestId,
    method: string,
    params: JSONObject,
    meta: RequestMeta,
  ): HttpReply | Promise<HttpReply> {
    const listen = method === Method.SubscriptionsListen;
    const streams = listen || (this.#mode === 'sse' && ((params._meta as JSONObject).progressToken !== undefined || meta.logLevel !== undefined));
    const exchange = this.#exchanges.open(id, streams ? 'sse' : 'json', listen);
    exchange.dispatch = this.#server.dispatchStateless(id, method, params, meta, new StatelessMessageInfo(info?.authInfo, req.rawHeaders), exchange);
    // after the dispatch: a request answered during it is replied to without a promise
    // (kept: instructions row `json mcpkit-2026` +2.7 % when async; see StreamableHttpHandler#route)
    return exchange.reply();
  }

  #whenReady(): Promise<boolean> {
    this.#readying ??= this.#server.ready().then(
      () => (this.#ready = true),
      (error: unknown) => {
        this.#host.reportError(toError(error));
        this.#readying = undefined;
        return false;
      },
    );
    return this.#readying;
  }

  /** The checks of the module note; the first failure, or undefined. */
  #check(req: HttpRequest, headerVersion: string | null, method: string, params: JSONObject | undefined, rawParams: unknown): McpError | RequestMeta {
    if (headerVersion === null) return headerMismatch('the MCP-Protocol-Version header is required');
    const version = headerVersion.trim();
    let metaError: McpError | undefined;
    let meta: RequestMeta | undefined;
    try {
      meta = readRequestMeta(isObject(rawParams) ? rawParams : undefined, this.#server.statelessRevisions);
    } catch (error) {
      metaError = error as McpError;
    }
    if (metaError !== undefined && metaError.code !== StatelessErrorCode.UnsupportedProtocolVersion) return metaError;
    const bodyVersion = (params?._meta as JSONObject | undefined)?.[MetaKey.ProtocolVersion] as string;
    if (bodyVersion !== version) return headerMismatch(`MCP-Protocol-Version header value '${version}' does not match body value '${bodyVersion}'`);
    if (metaError !== undefined) return metaError;
    const methodHeader = req.headers('mcp-method');
    if (methodHeader === null) return headerMismatch('the Mcp-Method header is required');
    if (methodHeader !== method) {
      const headerMethod = methodHeader.replace(/^[ \t]+|[ \t]+$/g, '');
      if (headerMethod !== method) return headerMismatch(`Mcp-Method header value '${headerMethod}' does not match body value '${method}'`);
    }
    if (requiresMcpName(method)) {
      const source = mcpNameSource(method, params);
      const nameHeader = req.headers('mcp-name');
      if (source !== undefined) {
        if (nameHeader === null) return headerMismatch('the Mcp-Name header is required');
        const name = decodeHeaderValue(nameHeader);
        if (name === undefined) return headerMismatch('the Mcp-Name header value is malformed');
        if (name !== source) return headerMismatch(`Mcp-Name header value '${name}' does not match body value '${source}'`);
      }
    }
    if (method === Method.ToolsCall && typeof params?.name === 'string') return this.#checkParamHeaders(req, params.name, params.arguments) ?? meta!;
    return meta!;
  }

  #checkParamHeaders(req: HttpRequest, toolName: string, args: unknown): McpError | undefined {
    const schema = this.#server.toolInputSchema(toolName);
    if (typeof schema !== 'object' || schema === null) return undefined;
    let specs = this.#paramHeaders.get(schema);
    if (specs === undefined) {
      try {
        specs = paramHeaders(schema);
      } catch {
        specs = NO_PARAM_HEADERS; // a malformed annotation of our own: mirror nothing
      }
      this.#paramHeaders.set(schema, specs);
    }
    for (const spec of specs) {
      const value = argumentAt(args, spec.path);
      const raw = req.headers(`mcp-param-${spec.name.toLowerCase()}`);
      if (value === undefined) continue;
      if (raw === null) return headerMismatch(`the Mcp-Param-${spec.name} header is required (argument ${spec.path.join('.')} is present)`);
      const text = decodeHeaderValue(raw);
      if (text === undefined) return headerMismatch(`the Mcp-Param-${spec.name} header value is malformed`);
      if (!headerMatches(text, value))
        return headerMismatch(`Mcp-Param-${spec.name} header value '${text}' does not match body value ${JSON.stringify(value)}`);
    }
    return undefined;
  }
}
