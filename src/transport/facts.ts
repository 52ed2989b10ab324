/**
 * The facts of an outgoing message that no session built (see {@link SendOptions}): text
 * handed to `Transport.send` directly, or a message sent by a caller that passed no
 * options. A session always says what it sends; this is the one place that reads a message
 * to learn the same, for the rest.
 */
import { isRequestId, type RequestId } from '../jsonrpc/types.js';
import type { MessageKind, SendOptions } from './types.js';

/** The facts {@link factsOf} derived: a plain record, made per call (the slow path only). */
class DerivedFacts implements SendOptions {
  kind: MessageKind | undefined = undefined;
  id: RequestId | null | undefined = undefined;
  method: string | undefined = undefined;
  cancels: RequestId | undefined = undefined;
  constructor(readonly relatedRequestId: RequestId | undefined) {}
}

/**
 * The facts of `value` (a parsed message or array of messages), with `relatedRequestId`
 * from `options`. An array counts as a `batch` (its first response id that is not null is
 * its id); anything that is not a JSON-RPC message has no kind.
 */
export function factsOf(value: unknown, options: SendOptions | undefined): SendOptions {
  const facts = new DerivedFacts(options?.relatedRequestId);
  if (Array.isArray(value)) {
    facts.kind = 'batch';
    for (let i = 0; i < value.length && facts.id === undefined; i++) {
      const id = (value[i] as { id?: unknown } | null)?.id;
      if (isRequestId(id)) facts.id = id;
    }
    return facts;
  }
  if (typeof value !== 'object' || value === null) return facts;
  const m = value as { id?: unknown; method?: unknown; error?: unknown; params?: { requestId?: unknown } };
  if (typeof m.method === 'string') {
    facts.method = m.method;
    if (m.id !== undefined) {
      facts.kind = 'request';
      if (isRequestId(m.id)) facts.id = m.id;
    } else {
      facts.kind = 'notification';
      const target = m.params?.requestId;
      if (m.method === 'notifications/cancelled' && isRequestId(target)) facts.cancels = target;
    }
    return facts;
  }
  facts.kind = m.error !== undefined ? 'error' : 'response';
  facts.id = isRequestId(m.id) ? m.id : null;
  return facts;
}
