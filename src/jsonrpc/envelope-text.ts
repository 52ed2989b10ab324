/**
 * The JSON text of a message whose envelope is plain, written around `JSON.stringify` of its
 * payload instead of stringifying the envelope object too.
 *
 * Why: on Node 20, `JSON.stringify` of a `tools/call` request costs 8.8k instructions, of
 * which the four-member envelope is 2.8k (the serializer looks up `toJSON` on every object
 * and checks every string for characters to escape); on Node 22, 0.35k of 5.6k. Every
 * request, notification and response a session sends goes through here.
 *
 * Contract: {@link envelopeText} returns exactly what `JSON.stringify(message)` returns, or
 * undefined (the caller stringifies then). It takes the shortcut only for an object whose
 * enumerable members, own and inherited, are `jsonrpc` (`"2.0"`), then optionally `id` (a
 * safe integer, null, or a string), then `method` (a string) and optionally `params`, or one
 * of `result` and `error`; with no `toJSON` on the message or on its payload (whose
 * `toJSON` would see a different key). Strings of printable ASCII other than `"` and `\`
 * are quoted as they are; any other string goes through `JSON.stringify`.
 */
import { counterText } from './values.js';

/** The members a message may have, read once each. */
interface Envelope {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
  result?: unknown;
  error?: unknown;
  toJSON?: unknown;
}

/** See the module note. */
export function envelopeText(message: object): string | undefined {
  const m = message as Envelope;
  if (m.jsonrpc !== '2.0' || typeof m.toJSON === 'function') return undefined;
  // the enumerable members after `jsonrpc`, in order: at most three
  let first: string | undefined;
  let second: string | undefined;
  let third: string | undefined;
  let count = 0;
  for (const key in m) {
    if (count === 0 ? key !== 'jsonrpc' : count > 3) return undefined;
    if (count === 1) first = key;
    else if (count === 2) second = key;
    else if (count === 3) third = key;
    count++;
  }
  let out = '{"jsonrpc":"2.0"';
  if (first === 'id') {
    const id = idText(m.id);
    if (id === undefined) return undefined;
    out += ',"id":' + id;
    first = second;
    second = third;
  } else if (third !== undefined) return undefined;
  // what follows: `method` [`params`], or `result`, or `error`
  let payload: 'params' | 'result' | 'error' | undefined;
  if (first === 'method' && typeof m.method === 'string' && (second === undefined || second === 'params')) {
    out += ',"method":' + quoted(m.method);
    payload = second;
  } else if ((first === 'result' || first === 'error') && second === undefined) payload = first;
  else return undefined;
  if (payload === undefined) return out + '}';
  return withPayload(out, payload, m[payload]);
}

/**
 * The text of the response `{jsonrpc: "2.0", id, result}`: exactly what `JSON.stringify`
 * returns for it, or undefined (the caller stringifies then) under the conditions of
 * {@link envelopeText}. For a caller that has the id and the result, not a message object.
 */
export function resultResponseText(id: unknown, result: unknown): string | undefined {
  const idJson = idText(id);
  return idJson === undefined ? undefined : withPayload('{"jsonrpc":"2.0","id":' + idJson, 'result', result);
}

/** `out` (an envelope's text up to its payload) closed with member `payload` set to `value`; undefined where `value` has a `toJSON`. */
function withPayload(out: string, payload: 'params' | 'result' | 'error', value: unknown): string | undefined {
  // its `toJSON` would be called with '' here, with the member's name by JSON.stringify
  if (typeof value === 'object' && value !== null && typeof (value as Envelope).toJSON === 'function') return undefined;
  const text = JSON.stringify(value) as string | undefined;
  // JSON leaves out a member whose value it cannot write
  return text === undefined ? out + '}' : out + ',"' + payload + '":' + text + '}';
}

function idText(id: unknown): string | undefined {
  if (typeof id === 'number') return Number.isSafeInteger(id) ? counterText(id) : undefined;
  if (typeof id === 'string') return quoted(id);
  return id === null ? 'null' : undefined;
}

/** `text` as a JSON string. */
function quoted(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return JSON.stringify(text);
  }
  return '"' + text + '"';
}
