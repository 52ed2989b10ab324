/**
 * Completion of prompt arguments and resource template variables
 * (2025-03-26 › Utilities › Completion; `context.arguments` since 2025-06-18).
 */
import type { CompleteResult } from '../types.js';

/** What a completer knows besides the partial value. */
export interface CompletionContext {
  /** Values of arguments already resolved (`context.arguments` of the request). */
  arguments: Record<string, string>;
}

/** Suggests values for a partial `value`: a list, or a full completion object. */
export type Completer = (
  value: string,
  context: CompletionContext,
) => string[] | CompleteResult['completion'] | Promise<string[] | CompleteResult['completion']>;

/** The spec caps one response at 100 values. */
export const MAX_COMPLETION_VALUES = 100;

/** Normalizes a completer's answer into a `CompleteResult`, capping it at 100 values. */
export function toCompleteResult(answer: string[] | CompleteResult['completion'] | undefined): CompleteResult {
  if (answer === undefined) return { completion: { values: [] } };
  const completion = Array.isArray(answer) ? { values: answer } : answer;
  const values = completion.values;
  if (values.length <= MAX_COMPLETION_VALUES) {
    if (Array.isArray(answer)) return { completion: { values, total: values.length, hasMore: false } };
    return { completion };
  }
  return { completion: { values: values.slice(0, MAX_COMPLETION_VALUES), total: completion.total ?? values.length, hasMore: true } };
}
