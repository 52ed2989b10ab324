/**
 * The stateless era (2026-07-28): what every part of mcpkit needs to know about it — the
 * reserved `_meta` keys, the per-request metadata check, the error codes it adds, and the
 * shapes of its new results.
 *
 * Design note: an incoming request belongs to the stateless era when its
 * `params._meta` carries `io.modelcontextprotocol/protocolVersion` (the spec's "envelope
 * claim"); everything else is 2025-era traffic, served exactly as before. The claim is
 * checked once per request by {@link readRequestMeta}, where the request enters: the
 * protocol endpoint of a connection (incoming.ts), or the HTTP server before it dispatches
 * a connectionless request (it picks the status code from the outcome). The reading then
 * travels with the request; nothing reads it again.
 * Spec: 2026-07-28 › Basic › `_meta` (per-request protocol fields), › Error codes.
 */
import { McpError } from '../../jsonrpc/errors.js';
import { ErrorCode, type JSONObject, type RequestId } from '../../jsonrpc/types.js';
import { isObject } from '../../jsonrpc/values.js';
import type { ClientCapabilities, Implementation, LoggingLevel, ServerCapabilities } from '../../types.js';

/** The stateless revision. */
export const V2026_07_28 = '2026-07-28';

/** Stateless-era revisions this implementation speaks, newest first. */
export const STATELESS_REVISIONS: readonly string[] = [V2026_07_28];

/** True when `version` is a stateless-era revision this implementation speaks. */
export function isStatelessRevision(version: unknown): boolean {
  return typeof version === 'string' && STATELESS_REVISIONS.includes(version);
}

/** The reserved `_meta` keys of the stateless era. */
export const MetaKey = {
  ProtocolVersion: 'io.modelcontextprotocol/protocolVersion',
  ClientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  ClientInfo: 'io.modelcontextprotocol/clientInfo',
  LogLevel: 'io.modelcontextprotocol/logLevel',
  ServerInfo: 'io.modelcontextprotocol/serverInfo',
  SubscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

/** Error codes the stateless era adds (spec: Basic › Error Codes). */
export const StatelessErrorCode = {
  /** HTTP headers do not match the body, or required headers are missing or malformed. */
  HeaderMismatch: -32020,
  /** The request needs a client capability the request did not declare. */
  MissingRequiredClientCapability: -32021,
  /** The request names a protocol version the server does not speak. */
  UnsupportedProtocolVersion: -32022,
} as const;

/** The identifier of the tasks extension (SEP-2663), declared under `capabilities.extensions`. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** `resultType` values of the core protocol, and `task` of the tasks extension (SEP-2663). */
export const ResultType = {
  Complete: 'complete',
  InputRequired: 'input_required',
  /** A `CreateTaskResult` (the `io.modelcontextprotocol/tasks` extension). */
  Task: 'task',
} as const;

/** Methods whose complete results carry `ttlMs` and `cacheScope` (spec: Server › Utilities › Caching). */
export const CACHEABLE_METHODS: ReadonlySet<string> = new Set([
  'server/discover',
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
]);

/** Methods on which a server may answer `InputRequiredResult` (spec: Basic › Patterns › MRTR). */
export const INPUT_REQUIRED_METHODS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', 'resources/read']);

/** Methods of the 2025 era that the stateless era removed (they answer -32601 there). */
export const REMOVED_METHODS: ReadonlySet<string> = new Set(['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe']);

const LOG_LEVELS: ReadonlySet<string> = new Set(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']);

/** The validated per-request metadata of a stateless-era request. */
export interface RequestMeta {
  /** The revision the request is served at. */
  readonly revision: string;
  /** The client's capabilities for this request (an empty object declares none). */
  readonly clientCapabilities: ClientCapabilities;
  /** The client's self-reported identity, when sent. */
  readonly clientInfo: Implementation | undefined;
  /** The log level the client opted in to; undefined: no `notifications/message` for this request. */
  readonly logLevel: LoggingLevel | undefined;
}

/**
 * True when `params` carry the stateless era's claim (`_meta` holds the protocol-version
 * key, whatever its value). Cheap; never throws.
 */
export function claimsStatelessEra(params: unknown): boolean {
  if (!isObject(params)) return false;
  const meta = params._meta;
  return isObject(meta) && meta[MetaKey.ProtocolVersion] !== undefined;
}

/**
 * The protocol version a request's `_meta` names, or undefined when it names none (or
 * names a non-string). Never throws.
 */
export function claimedRevision(params: unknown): string | undefined {
  if (!isObject(params)) return undefined;
  const meta = params._meta;
  if (!isObject(meta)) return undefined;
  const v = meta[MetaKey.ProtocolVersion];
  return typeof v === 'string' ? v : undefined;
}

/**
 * Checks the per-request metadata of a stateless-era request and returns it. Throws
 * McpError -32602 when a required field is missing or malformed (no `_meta`, no
 * protocol version, no client capabilities, a malformed client info or log level) and
 * -32022 ({@link unsupportedProtocolVersion}) when the named revision is not in `supported`.
 * Called once per request, where it enters (see the module note).
 */
export function readRequestMeta(params: JSONObject | undefined, supported: readonly string[]): RequestMeta {
  const meta = params?._meta;
  if (!isObject(meta))
    throw new McpError(ErrorCode.InvalidParams, `Invalid params: "_meta" with "${MetaKey.ProtocolVersion}" and "${MetaKey.ClientCapabilities}" is required`);
  const version = meta[MetaKey.ProtocolVersion];
  const caps = meta[MetaKey.ClientCapabilities];
  if (version === undefined || caps === undefined) {
    const missing = [version === undefined ? MetaKey.ProtocolVersion : undefined, caps === undefined ? MetaKey.ClientCapabilities : undefined].filter(
      (k) => k !== undefined,
    );
    throw new McpError(ErrorCode.InvalidParams, `Invalid params: missing _meta keys: ${missing.join(', ')}`);
  }
  if (typeof version !== 'string') throw new McpError(ErrorCode.InvalidParams, `Invalid params: "_meta.${MetaKey.ProtocolVersion}" must be a string`);
  if (!isObject(caps)) throw new McpError(ErrorCode.InvalidParams, `Invalid params: "_meta.${MetaKey.ClientCapabilities}" must be an object`);
  const info = meta[MetaKey.ClientInfo];
  if (info !== undefined && (!isObject(info) || typeof info.name !== 'string' || typeof info.version !== 'string')) {
    throw new McpError(ErrorCode.InvalidParams, `Invalid params: "_meta.${MetaKey.ClientInfo}" must be an object with string "name" and "version"`);
  }
  const level = meta[MetaKey.LogLevel];
  if (level !== undefined && (typeof level !== 'string' || !LOG_LEVELS.has(level))) {
    throw new McpError(
      ErrorCode.InvalidParams,
      `Invalid params: "_meta.${MetaKey.LogLevel}" must be one of debug, info, notice, warning, error, critical, alert, emergency`,
    );
  }
  if (!supported.includes(version)) throw unsupportedProtocolVersion(version, supported);
  return {
    revision: version,
    clientCapabilities: caps as ClientCapabilities,
    clientInfo: info as Implementation | undefined,
    logLevel: level as LoggingLevel | undefined,
  };
}

/** -32022 naming the requested and the supported versions (the data the schema gives it). */
export function unsupportedProtocolVersion(requested: string, supported: readonly string[]): McpError {
  return new McpError(StatelessErrorCode.UnsupportedProtocolVersion, 'Unsupported protocol version', { supported: [...supported], requested });
}

/** -32020 with `message` (which names the header and both values). */
export function headerMismatch(message: string): McpError {
  return new McpError(StatelessErrorCode.HeaderMismatch, `Header mismatch: ${message}`);
}

/**
 * -32021: the request needs `required` (a ClientCapabilities object, e.g. `{sampling: {}}`)
 * and the client did not declare it in this request's `_meta`.
 */
export function missingClientCapability(required: ClientCapabilities, what: string): McpError {
  return new McpError(StatelessErrorCode.MissingRequiredClientCapability, `Missing required client capability: ${what}`, { requiredCapabilities: required });
}

/** True when `error` is one of the stateless era's own errors (a client recognizes a modern server by them). */
export function isStatelessError(code: unknown): boolean {
  return (
    code === StatelessErrorCode.HeaderMismatch ||
    code === StatelessErrorCode.MissingRequiredClientCapability ||
    code === StatelessErrorCode.UnsupportedProtocolVersion
  );
}

// ───────────── result shapes ─────────────

/** `cacheScope` of a cacheable result. */
export type CacheScope = 'public' | 'private';

/** Caching hints of a cacheable result (spec: Server › Utilities › Caching). */
export interface CacheHints {
  /** Freshness in milliseconds, an integer ≥ 0. */
  ttlMs: number;
  cacheScope: CacheScope;
}

/** The result of `server/discover`. */
export interface DiscoverResult extends CacheHints {
  resultType?: string;
  supportedVersions: string[];
  capabilities: ServerCapabilities;
  instructions?: string;
  _meta?: JSONObject;
}

/** The notification types a `subscriptions/listen` request opts in to. */
export interface SubscriptionFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
}

/** One request of an `InputRequiredResult` (its `method` is elicitation, sampling or roots). */
export interface InputRequest {
  method: string;
  params?: JSONObject;
}

/** An interim result: the server needs `inputRequests` answered before it can complete. */
export interface InputRequiredResult {
  resultType: 'input_required';
  inputRequests?: Record<string, InputRequest>;
  requestState?: string;
  _meta?: JSONObject;
}

/** The `_meta.io.modelcontextprotocol/subscriptionId` of a notification, when it has one. */
export function subscriptionIdOf(params: JSONObject | undefined): RequestId | undefined {
  const meta = params?._meta;
  if (!isObject(meta)) return undefined;
  const id = meta[MetaKey.SubscriptionId];
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}
