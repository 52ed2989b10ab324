/**
 * Preset JSON: a deep-frozen object whose JSON text is computed once, and a response
 * serializer that writes that text where the object appears as a result's `_meta`, instead
 * of serializing the object again.
 *
 * Why: every stateless-era (2026-07-28) result carries the server's identity in
 * `_meta["io.modelcontextprotocol/serverInfo"]`. Serializing those two object levels and
 * their long key costs more than the rest of a small result (measured on Node 20: ~4k of
 * a ~150k-instruction HTTP call); splicing the preset text costs a fraction of that.
 *
 * Contract: a preset object is an ordinary frozen JSON object, so a transport that passes
 * messages as objects, or serializes them with plain `JSON.stringify`, stays correct. Every
 * mcpkit transport serializes through {@link serializeMessage} (the one seam), which takes
 * the shortcut for responses ({@link stringifyResponse}). Its output parses to the same value as
 * `JSON.stringify` of the response (member order aside: `_meta` is written last).
 */
import { envelopeText, resultResponseText } from './envelope-text.js';
import type { JSONObject, RequestId } from './types.js';

const TEXTS = new WeakMap<object, string>();

function deepFreeze(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const key of Object.keys(value)) deepFreeze((value as JSONObject)[key]);
}

/** Freezes `value` (deeply) and records its JSON text; returns `value`. Throws what `JSON.stringify` throws. */
export function presetJson<T extends JSONObject>(value: T): T {
  const text = JSON.stringify(value);
  deepFreeze(value);
  TEXTS.set(value, text);
  return value;
}

/**
 * The text of the JSON-RPC response `{jsonrpc, id, result}`. When `result` is a plain
 * object whose `_meta` is a {@link presetJson} object, the preset text is spliced in (the
 * result is left as it was); otherwise this is `JSON.stringify` of the response.
 */
export function stringifyResponse(id: RequestId | null, result: unknown): string {
  if (typeof result === 'object' && result !== null && Object.getPrototypeOf(result) === Object.prototype) {
    const r = result as JSONObject;
    const meta = r._meta;
    const text = typeof meta === 'object' && meta !== null ? TEXTS.get(meta) : undefined;
    // Hide `_meta` for the one synchronous serialization (JSON omits undefined members);
    // a result that refuses the write (frozen, accessor) takes the ordinary path.
    if (text !== undefined && r.toJSON === undefined && Reflect.set(r, '_meta', undefined)) {
      let out: string;
      try {
        out = responseText(id, r);
      } finally {
        r._meta = meta;
      }
      // `out` ends with the result's closing brace, then the response's.
      const empty = out.charCodeAt(out.length - 3) === 0x7b; // '{': the result had no other member
      return out.slice(0, -2) + (empty ? '"_meta":' : ',"_meta":') + text + '}}';
    }
  }
  return responseText(id, result);
}

/** `JSON.stringify` of the response `{jsonrpc, id, result}`, its envelope written as text (see envelope-text.ts). */
function responseText(id: RequestId | null, result: unknown): string {
  return resultResponseText(id, result) ?? JSON.stringify({ jsonrpc: '2.0', id, result });
}

/**
 * The JSON text of an outgoing message, the one serialization every transport uses: a
 * single response `{jsonrpc, id, result}` whose result carries a {@link presetJson} `_meta`
 * goes through {@link stringifyResponse} (the preset is spliced in as text), a message with
 * a plain envelope through {@link envelopeText} (the envelope written as text), anything
 * else straight through `JSON.stringify` (no wrapper object, no second look). Throws what
 * `JSON.stringify` throws; returns undefined where it does (a value JSON cannot represent).
 */
export function serializeMessage(message: unknown): string {
  if (typeof message === 'object' && message !== null) {
    const m = message as { id?: unknown; result?: unknown; method?: unknown };
    const result = m.result;
    if (typeof result === 'object' && result !== null) {
      const meta = (result as JSONObject)._meta;
      if (typeof meta === 'object' && meta !== null && TEXTS.has(meta) && m.method === undefined) return stringifyResponse(m.id as RequestId | null, result);
    }
    const text = envelopeText(message);
    if (text !== undefined) return text;
  }
  return JSON.stringify(message);
}
