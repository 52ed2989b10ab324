/**
 * Turning whatever a client command failed with into one clear line on stderr and an exit
 * code. Wire errors (`McpError`) are protocol errors; local errors are sorted by their
 * stable code; anything else (a refused socket, a DNS failure) is a connection failure.
 * Messages are the library's and the server's words, never a stack.
 */
import { LocalError, McpError } from '../jsonrpc/errors.js';
import { ExitCode, type ExitCodeValue } from './exit-codes.js';
import { UsageError } from './usage-error.js';

/** Local error codes that mean the server sent something that is not valid MCP. */
const PROTOCOL_CODES = new Set([
  'invalid_result',
  'invalid_message',
  'unsupported_protocol_version',
  'method_unsupported',
  'capability_missing',
  'validation_failed',
  'message_too_large',
]);

/** The exit code for `error` (see {@link ExitCode}). */
export function exitCodeFor(error: unknown): ExitCodeValue {
  if (error instanceof UsageError) return ExitCode.Usage;
  if (error instanceof McpError) return ExitCode.Protocol;
  if (error instanceof LocalError) {
    if (error.code === 'cancelled') return ExitCode.Interrupted;
    if (PROTOCOL_CODES.has(error.code)) return ExitCode.Protocol;
    return ExitCode.Connection;
  }
  return ExitCode.Connection;
}

/** One line (or a few) describing `error` for a person; includes the causes' messages. */
export function describeError(error: unknown): string {
  if (error instanceof McpError) return `the server answered with error ${error.code}: ${error.message}`;
  const parts: string[] = [];
  let e: unknown = error;
  for (let depth = 0; e !== undefined && e !== null && depth < 4; depth++) {
    const message = e instanceof Error ? e.message : String(e);
    if (message !== '' && !parts.some((p) => p.includes(message))) parts.push(message);
    e = e instanceof Error ? e.cause : undefined;
  }
  const text = parts.join(': ') || 'unknown error';
  if (codeInChain(error, 'authorization_required')) return `${text} (sign in first: mcpkit login URL)`;
  const status = (error as { status?: unknown })?.status;
  if (status === 401) return `${text} (the server needs authorization: run mcpkit login URL)`;
  return text;
}

/** True when `error` or one of its causes carries `code`. */
function codeInChain(error: unknown, code: string): boolean {
  let e: unknown = error;
  for (let depth = 0; e instanceof Error && depth < 4; depth++) {
    if ((e as { code?: unknown }).code === code) return true;
    e = e.cause;
  }
  return false;
}
