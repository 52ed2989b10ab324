/**
 * Envelope decoding: turns one received JSON text (or parsed value) into a classified
 * JSON-RPC message, with explicit size and nesting limits.
 *
 * Design note: classification returns a small integer and leaves the message object as
 * it is — no wrapper allocation on the hot path. The reason a message is invalid is only
 * computed on the slow path ({@link describeInvalid}).
 */
import { isRequestId, type RequestId } from './types.js';
import { isObject } from './values.js';

/** Limits applied to every received message. */
export interface DecodeLimits {
  /** Largest accepted message text, in UTF-16 code units (≈ bytes for ASCII JSON). Default 4 MiB. */
  maxMessageChars: number;
  /** Deepest accepted nesting of arrays and objects. Default 64. */
  maxDepth: number;
  /** Most elements accepted in one batch. Default 256. */
  maxBatchLength: number;
}

export const DEFAULT_DECODE_LIMITS: Readonly<DecodeLimits> = Object.freeze({
  maxMessageChars: 4 * 1024 * 1024,
  maxDepth: 64,
  maxBatchLength: 256,
});

export const KIND_INVALID = 0;
export const KIND_REQUEST = 1;
export const KIND_NOTIFICATION = 2;
export const KIND_RESULT = 3;
export const KIND_ERROR = 4;
export type MessageKind = 0 | 1 | 2 | 3 | 4;

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * Classifies a parsed JSON value as a single JSON-RPC message. Keys are matched exactly
 * (`Method` is not `method`). Never throws.
 */
export function classify(value: unknown): MessageKind {
  if (!isObject(value)) return KIND_INVALID;
  const m = value as Record<string, unknown>;
  if (m.jsonrpc !== '2.0') return KIND_INVALID;
  const method = m.method;
  if (method !== undefined) {
    if (typeof method !== 'string' || method.length === 0) return KIND_INVALID;
    const params = m.params;
    if (params !== undefined && !isObject(params)) return KIND_INVALID;
    if (!hasOwn.call(m, 'id')) return KIND_NOTIFICATION;
    return isRequestId(m.id) ? KIND_REQUEST : KIND_INVALID;
  }
  if (!isRequestId(m.id)) {
    // An error response to a message whose id could not be read carries id null.
    if (m.id === null && isErrorObject(m.error) && !hasOwn.call(m, 'result')) return KIND_ERROR;
    return KIND_INVALID;
  }
  if (hasOwn.call(m, 'result')) {
    if (hasOwn.call(m, 'error')) return KIND_INVALID;
    const r = m.result;
    return isObject(r) ? KIND_RESULT : KIND_INVALID;
  }
  return isErrorObject(m.error) ? KIND_ERROR : KIND_INVALID;
}

function isErrorObject(e: unknown): boolean {
  if (typeof e !== 'object' || e === null) return false;
  const o = e as Record<string, unknown>;
  return typeof o.code === 'number' && Number.isInteger(o.code) && typeof o.message === 'string';
}

/**
 * For an invalid message: the id to answer with (null unless a valid id can be read) and
 * a short reason naming the offending member.
 */
export function describeInvalid(value: unknown): { id: RequestId | null; reason: string } {
  if (!isObject(value)) {
    return { id: null, reason: 'A JSON-RPC message must be an object' };
  }
  const m = value as Record<string, unknown>;
  const id = isRequestId(m.id) ? m.id : null;
  if (m.jsonrpc !== '2.0') return { id, reason: 'The "jsonrpc" member must be exactly "2.0"' };
  if (hasOwn.call(m, 'id') && !isRequestId(m.id)) {
    return { id: null, reason: 'The "id" member must be a string or an integer' };
  }
  if (m.method !== undefined) {
    if (typeof m.method !== 'string' || m.method.length === 0) return { id, reason: 'The "method" member must be a non-empty string' };
    return { id, reason: 'The "params" member must be an object' };
  }
  if (hasOwn.call(m, 'result') && hasOwn.call(m, 'error')) return { id, reason: 'A response has either "result" or "error", not both' };
  if (hasOwn.call(m, 'result')) return { id, reason: 'The "result" member must be an object' };
  if (hasOwn.call(m, 'error')) return { id, reason: 'The "error" member must have an integer "code" and a string "message"' };
  return { id, reason: 'The message has no "method", "result" or "error" member' };
}

/**
 * True when `value` nests arrays/objects deeper than `maxDepth`. Walks with an explicit
 * bound, so hostile input cannot overflow the stack.
 */
export function exceedsDepth(value: unknown, maxDepth: number): boolean {
  return depthExceeded(value, maxDepth);
}

function depthExceeded(value: unknown, remaining: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (remaining <= 0) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const v = value[i];
      if (typeof v === 'object' && v !== null && depthExceeded(v, remaining - 1)) return true;
    }
    return false;
  }
  for (const key in value) {
    const v = (value as Record<string, unknown>)[key];
    if (typeof v === 'object' && v !== null && depthExceeded(v, remaining - 1)) return true;
  }
  return false;
}
