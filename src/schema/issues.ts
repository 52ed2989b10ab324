/**
 * Paths and field names for validation issues.
 *
 * Issues carry a JSON Pointer (RFC 6901) for programs and a message for people. Messages
 * name the field in a dotted form (`address.zip`, `items[2].name`, `"first name"`) that
 * reads naturally in a tool error shown to a language model.
 */
import type { ValidationIssue } from './types.js';

/** The word used for the validated value itself (an empty path). */
export const ROOT_LABEL = 'value';

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;
const INDEX = /^(?:0|[1-9][0-9]*)$/;

/** Escapes one JSON Pointer reference token (`~` → `~0`, `/` → `~1`). */
export function escapePointerToken(token: string): string {
  if (token.indexOf('~') === -1 && token.indexOf('/') === -1) return token;
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Appends `key` to the JSON Pointer `base`. */
export function appendPointer(base: string, key: string | number): string {
  return `${base}/${typeof key === 'number' ? key : escapePointerToken(key)}`;
}

/** Builds a JSON Pointer from path segments (strings, numbers, or anything `String()` accepts). */
export function pointerFromSegments(segments: ReadonlyArray<unknown>): string {
  let out = '';
  for (const segment of segments) {
    out += '/' + (typeof segment === 'number' ? String(segment) : escapePointerToken(segmentText(segment)));
  }
  return out;
}

function segmentText(segment: unknown): string {
  if (typeof segment === 'string') return segment;
  if (typeof segment === 'symbol') return segment.description ?? 'symbol';
  return String(segment);
}

/**
 * The human name of the field at JSON Pointer `pointer`: `''` → `value`,
 * `/address/zip` → `address.zip`, `/items/2/name` → `items[2].name`, `/first name` →
 * `"first name"`. Numeric tokens read as array indexes.
 */
export function fieldLabel(pointer: string): string {
  if (pointer === '') return ROOT_LABEL;
  let out = '';
  let start = 1;
  while (start <= pointer.length) {
    let end = pointer.indexOf('/', start);
    if (end === -1) end = pointer.length;
    const raw = pointer.slice(start, end);
    const token = raw.indexOf('~') === -1 ? raw : raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (INDEX.test(token)) out += out === '' ? `${ROOT_LABEL}[${token}]` : `[${token}]`;
    else if (IDENTIFIER.test(token)) out += out === '' ? token : `.${token}`;
    else out += out === '' ? JSON.stringify(token) : `.${JSON.stringify(token)}`;
    start = end + 1;
  }
  return out;
}

/**
 * Joins issues into one text, one issue per line, for a tool error result (`isError: true`)
 * or an exception message. Returns `''` for no issues.
 */
export function formatIssues(issues: ReadonlyArray<ValidationIssue>): string {
  let out = '';
  for (let i = 0; i < issues.length; i++) out += (i === 0 ? '' : '\n') + issues[i]!.message;
  return out;
}

/** Renders a JSON value compactly for a message, cutting long renderings short. */
export function showValue(value: unknown, max = 60): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Renders a list of allowed values: `"a", "b", "c"`, elided after `max` entries. */
export function showChoices(values: ReadonlyArray<unknown>, max = 10): string {
  const shown = values.slice(0, max).map((v) => showValue(v));
  return values.length > max ? `${shown.join(', ')}, … (${values.length} in all)` : shown.join(', ');
}
