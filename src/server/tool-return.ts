/**
 * What a typed tool handler may return, as types and as the run-time check that backs them.
 *
 * The types are exact (no index signature): a string, a result with a `content` array, or a
 * result with `structuredContent` (typed from the output schema). A tool that declares an
 * output schema returns `structuredContent`, or a tool error (`isError: true`) with content.
 * JavaScript callers, casts and `any` get past the compiler, so {@link toolReturnProblem}
 * checks the same shape when the handler returns; the registry turns a problem into a tool
 * error naming the tool (and reports it to `onError`).
 */
import type { ContentBlock, Meta } from '../types.js';

/** A result whose `content` the handler gives itself (`structuredContent` optional). */
export interface ToolContentResult<S = Record<string, unknown>> {
  content: ContentBlock[];
  structuredContent?: S;
  isError?: boolean;
  _meta?: Meta;
}

/** A result with `structuredContent`; without `content`, its JSON text is sent as the content. */
export interface ToolStructuredResult<S = Record<string, unknown>> {
  structuredContent: S;
  content?: ContentBlock[];
  isError?: boolean;
  _meta?: Meta;
}

/**
 * What a typed handler of a tool without an output schema may return: a string (one text
 * item), a result with `content`, or a result with only `structuredContent` (content derived).
 */
export type ToolReturn<S = Record<string, unknown>> = string | ToolContentResult<S> | ToolStructuredResult<S>;

/**
 * What a typed handler of a tool with an output schema may return: `structuredContent`
 * matching the schema (content optional), or a tool error (`isError: true`) with content.
 */
export type StructuredToolReturn<S = Record<string, unknown>> = ToolStructuredResult<S> | (ToolContentResult<S> & { isError: true });

const SHAPES = 'return a string, { content: [{ type: "text", text: "…" }] } or { structuredContent: {…} }';

/**
 * Why `value` is not a {@link ToolReturn}, worded to follow "Tool NAME returned …"; undefined
 * when it is one. Checks the members the protocol defines (`content` blocks by type,
 * `structuredContent`, `isError`, `_meta`); other members are left as they are.
 */
export function toolReturnProblem(value: unknown): string | undefined {
  if (typeof value === 'string') return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return `${describe(value)}; ${SHAPES}`;
  const result = value as Record<string, unknown>;
  const { content, structuredContent, isError, _meta } = result;
  if (content === undefined && structuredContent === undefined) {
    const keys = Object.keys(result);
    return `an object without "content" or "structuredContent" (${keys.length === 0 ? 'it is empty' : `its members: ${keys.slice(0, 8).join(', ')}`}); ${SHAPES}`;
  }
  if (content !== undefined) {
    if (!Array.isArray(content)) return `"content" that is ${describe(content)}, not an array of content blocks; ${SHAPES}`;
    for (let i = 0; i < content.length; i++) {
      const problem = blockProblem(content[i]);
      if (problem !== undefined) return `content[${i}] ${problem}`;
    }
  }
  if (structuredContent !== undefined && !isPlainObject(structuredContent))
    return `"structuredContent" that is ${describe(structuredContent)}; it must be a JSON object`;
  if (isError !== undefined && typeof isError !== 'boolean') return `"isError" that is ${describe(isError)}; it must be a boolean`;
  if (_meta !== undefined && !isPlainObject(_meta)) return `"_meta" that is ${describe(_meta)}; it must be an object`;
  return undefined;
}

/** Why `block` is not a content block (following "content[i] "), or undefined. */
function blockProblem(block: unknown): string | undefined {
  if (!isPlainObject(block)) return `that is ${describe(block)}, not a content block ({ type: "text", text: "…" })`;
  const b = block as Record<string, unknown>;
  switch (b.type) {
    case 'text':
      return typeof b.text === 'string' ? undefined : 'of type "text" without a string "text"';
    case 'image':
    case 'audio':
      return typeof b.data === 'string' && typeof b.mimeType === 'string' ? undefined : `of type "${b.type}" without a string "data" (base64) and "mimeType"`;
    case 'resource_link':
      return typeof b.uri === 'string' && typeof b.name === 'string' ? undefined : 'of type "resource_link" without a string "uri" and "name"';
    case 'resource': {
      const r = b.resource;
      if (!isPlainObject(r) || typeof (r as Record<string, unknown>).uri !== 'string') return 'of type "resource" without a "resource" that has a string "uri"';
      const contents = r as Record<string, unknown>;
      return typeof contents.text === 'string' || typeof contents.blob === 'string'
        ? undefined
        : 'of type "resource" whose "resource" has neither a string "text" nor a base64 "blob"';
    }
    default:
      return `has ${b.type === undefined ? 'no "type"' : `the type ${JSON.stringify(b.type) ?? String(b.type)}`}; content blocks are of type "text", "image", "audio", "resource_link" or "resource"`;
  }
}

function isPlainObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A short description of a value for an error message (never its contents). */
function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'undefined') return 'undefined';
  return `a ${typeof value}`;
}
