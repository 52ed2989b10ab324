/**
 * A response from the peer that could not be read (a line over the transport's size limit, a
 * message over the session's size or nesting limit) but whose request id could: the request
 * it answers fails at once with this error instead of waiting for its whole timeout.
 * Transports report it through `receiver.error`; the session settles the request.
 */

import type { EnvelopeSummary } from '../framing/envelope-scan.js';
import { LocalError, type LocalErrorCode } from '../jsonrpc/errors.js';
import type { RequestId } from '../jsonrpc/types.js';

/** A {@link LocalError} (`message_too_large`, or `invalid_message` for nesting) naming the request whose response was discarded. */
export class DiscardedResponseError extends LocalError {
  /** The id of the request the discarded response answered. */
  readonly requestId: RequestId;
  constructor(requestId: RequestId, code: LocalErrorCode, message: string) {
    super(code, message);
    this.name = 'DiscardedResponseError';
    this.requestId = requestId;
  }
}

/**
 * The error for a message a transport dropped unread, when a scan of it (`envelope`) shows a
 * response with a readable id; undefined otherwise. `why` ends the sentence "The server's
 * response to request N …", e.g. "exceeds the 4194304-byte line limit (maxLineBytes)".
 */
export function discardedResponse(envelope: EnvelopeSummary, why: string): DiscardedResponseError | undefined {
  if (envelope.kind !== 'response' || envelope.id === null) return undefined;
  return new DiscardedResponseError(
    envelope.id,
    'message_too_large',
    `The server's response to request ${JSON.stringify(envelope.id)} ${why} and was discarded`,
  );
}
