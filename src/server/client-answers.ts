/**
 * The checks of what a server asks its client for and what the client answers — sampling,
 * elicitation, roots — written once for both eras. The 2025 era asks over the session and
 * reports a bad answer as LocalError `invalid_result` to the handler; the 2026-07-28 era
 * receives the answers in a retry's `inputResponses` and refuses a bad one with -32602. Each
 * caller wraps the problem text in its own error; the rules are these.
 */
import { LocalError } from '../jsonrpc/errors.js';
import { isObject } from '../jsonrpc/values.js';
import { isValidRequestedSchema, validateElicitationContent } from '../schema/elicitation.js';
import { formatIssues } from '../schema/issues.js';

/** Why `answer` is not a `CreateMessageResult`, or undefined when it is one. */
export function samplingAnswerProblem(answer: unknown): string | undefined {
  if (
    !isObject(answer) ||
    typeof answer.model !== 'string' ||
    (answer.role !== 'assistant' && answer.role !== 'user') ||
    typeof answer.content !== 'object' ||
    answer.content === null
  ) {
    return 'is not a CreateMessageResult';
  }
  return undefined;
}

/**
 * Why `answer` is not an acceptable `ElicitResult` for a request of `requestedSchema`
 * (undefined: URL mode, no content to check), or undefined when it is one.
 */
export function elicitAnswerProblem(answer: unknown, requestedSchema: unknown): string | undefined {
  if (!isObject(answer) || (answer.action !== 'accept' && answer.action !== 'decline' && answer.action !== 'cancel')) return 'is not an ElicitResult';
  if (answer.action === 'accept' && requestedSchema !== undefined) {
    const issues = validateElicitationContent(requestedSchema, answer.content ?? {});
    if (issues.length > 0) return `does not match the requested schema: ${formatIssues(issues)}`;
  }
  return undefined;
}

/** Why `answer` is not a `ListRootsResult`, or undefined when it is one. */
export function rootsAnswerProblem(answer: unknown): string | undefined {
  if (!isObject(answer) || !Array.isArray(answer.roots) || answer.roots.some((r) => !isObject(r) || typeof r.uri !== 'string'))
    return 'is not a ListRootsResult';
  return undefined;
}

/**
 * Checks the URL of a URL-mode elicitation: an absolute http(s) URL (2025-11-25 › Client ›
 * Elicitation › URL mode). Throws LocalError `validation_failed` otherwise.
 */
export function checkElicitationUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new LocalError('validation_failed', 'The elicitation URL is not a valid URL');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    throw new LocalError('validation_failed', 'The elicitation URL must use https (or http for local development)');
}

/**
 * Checks the `requestedSchema` of a form-mode elicitation: the flat, primitive-only subset
 * the spec allows. Throws LocalError `validation_failed` naming the problem otherwise.
 */
export function checkRequestedSchema(schema: unknown): void {
  const problem = isValidRequestedSchema(schema);
  if (problem !== undefined) throw new LocalError('validation_failed', `Invalid requestedSchema: ${problem}`);
}
