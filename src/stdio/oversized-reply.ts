/**
 * The error a stdio server answers an oversized line with (internal to `mcpkit/stdio`).
 *
 * Which code, by JSON-RPC 2.0 section 5.1: the line was not parsed, only scanned. When the
 * scan saw that the text is not JSON, that is a Parse error (-32700: "Invalid JSON was
 * received"). Otherwise the text may well be valid JSON, so -32700 would be untrue; what is
 * wrong is that the message is not an acceptable Request (too large), which is -32600
 * Invalid Request, the same code the session answers a message over its own size limit
 * with. Section 5: the reply carries the request's id when it could be read, null when not
 * (a batch, a parse error, an id that was too long). A notification or a response is never
 * answered (sections 4.1 and 5), even when oversized.
 */
import type { EnvelopeSummary } from '../framing/envelope-scan.js';
import { ErrorCode, type JSONRPCErrorResponse } from '../jsonrpc/types.js';

/** The reply to an oversized line with this envelope, or null when none is due. */
export function oversizedLineReply(envelope: EnvelopeSummary, maxLineBytes: number): JSONRPCErrorResponse | null {
  switch (envelope.kind) {
    case 'notification':
    case 'response':
      return null;
    case 'not-json':
      return {
        jsonrpc: '2.0',
        id: null,
        error: { code: ErrorCode.ParseError, message: `Parse error: a line over the ${maxLineBytes}-byte limit that is not valid JSON was discarded` },
      };
    default:
      return {
        jsonrpc: '2.0',
        id: envelope.id,
        error: { code: ErrorCode.InvalidRequest, message: `Message exceeds the ${maxLineBytes}-byte line limit and was discarded` },
      };
  }
}
