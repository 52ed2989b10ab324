/**
 * Opaque cursor pagination over an ordered list. A cursor encodes the offset of the next
 * page; clients must treat it as opaque (2025-03-26 › Utilities › Pagination), and a cursor
 * that does not decode is answered with -32602.
 */
import { invalidParams } from '../jsonrpc/errors.js';

const PREFIX = 'mcpkit:';

/** Encodes an offset as an opaque cursor. */
export function encodeCursor(offset: number): string {
  return btoa(PREFIX + offset.toString(36)).replace(/=+$/, '');
}

/** Decodes a cursor; throws -32602 when it is not one of ours. */
export function decodeCursor(cursor: string): number {
  let text: string;
  try {
    text = atob(cursor);
  } catch {
    throw invalidParams('Invalid params: "cursor" is not a valid cursor');
  }
  if (!text.startsWith(PREFIX)) throw invalidParams('Invalid params: "cursor" is not a valid cursor');
  const offset = parseInt(text.slice(PREFIX.length), 36);
  if (!Number.isSafeInteger(offset) || offset < 0) throw invalidParams('Invalid params: "cursor" is not a valid cursor');
  return offset;
}

/**
 * One page of `items` starting at `cursor` (or the start), at most `pageSize` long, with
 * `nextCursor` set when more items follow.
 */
export function paginate<T>(items: readonly T[], cursor: unknown, pageSize: number): { page: T[]; nextCursor?: string } {
  const start = typeof cursor === 'string' ? decodeCursor(cursor) : 0;
  if (start === 0 && items.length <= pageSize) return { page: items as T[] };
  const end = start + pageSize;
  const page = items.slice(start, end);
  return end < items.length ? { page, nextCursor: encodeCursor(end) } : { page };
}
