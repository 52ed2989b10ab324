/**
 * Graceful shutdown of a Streamable HTTP handler (`close({ drainMs })`): what it refuses
 * while it drains, and the drain itself.
 *
 * Design notes:
 * - While draining, the handler takes no new work: `initialize`, a POST carrying requests
 *   and GET get 503 with `Retry-After` (a balancer, or the client, sends them elsewhere),
 *   and its readiness route (`readinessPath`) answers 503. What lets running work finish is
 *   still served: POSTs of answers, progress and cancellations only (the answer to a
 *   sampling or elicitation request of a running call), and DELETE.
 * - The drain: every GET stream's connection is ended at once (the client resumes with
 *   `Last-Event-ID` on another instance, which adopts the stream), then the handler waits
 *   until no request is in progress, at most `drainMs`. A request still running then is
 *   answered with a JSON-RPC error (-32603, "send it again"), so that no client waits for
 *   its own timeout; then every session is closed, leaving the stored events of a shared
 *   event store for resumptions elsewhere.
 * Runtime-neutral.
 */
import { ErrorCode } from '../../jsonrpc/types.js';
import { errorReply, TRANSPORT_ERROR } from './replies.js';
import type { StreamableSessionTransport } from './session-transport.js';
import type { HttpReply } from './types.js';

/** Seconds a client is told to wait before sending a refused request again (to another instance). */
export const DRAIN_RETRY_SECONDS = '1';

/** The error message of a request the drain deadline cut short. */
export const DRAIN_CUT_MESSAGE = 'The server instance is shutting down and stopped this request before it finished; send it again';

/** How often the drain looks whether requests are still in progress, in ms. */
const POLL_MS = 25;

/** Options of a graceful `close`. */
export interface CloseOptions {
  /**
   * How long running requests may take to finish, in ms, while no new ones are taken
   * (see the handler's `close`). 0 (the default) closes at once.
   */
  drainMs?: number;
}

/** The 503 for work refused while draining. */
export function drainingReply(): HttpReply {
  return errorReply(
    503,
    TRANSPORT_ERROR,
    'Service Unavailable: this server instance is shutting down; send the request again (another instance will take it)',
    {
      'retry-after': DRAIN_RETRY_SECONDS,
    },
  );
}

/** The readiness route's reply: 200 while taking work, 503 while draining or closed. */
export function readinessReply(ready: boolean): HttpReply {
  return ready
    ? { status: 200, headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }, body: 'ready\n' }
    : {
        status: 503,
        headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', 'retry-after': DRAIN_RETRY_SECONDS },
        body: 'draining\n',
      };
}

/** A valid `drainMs`: a non-negative finite number; RangeError otherwise. */
export function drainMsOf(options: CloseOptions | undefined): number {
  const ms = options?.drainMs ?? 0;
  if (typeof ms !== 'number' || !(ms >= 0) || !Number.isFinite(ms)) throw new RangeError('drainMs must be a non-negative number of milliseconds');
  return ms;
}

/**
 * Drains `sessions` (see the module note): ends their GET streams, waits (at most `drainMs`)
 * until none has a request in progress, answers what still runs with an error, then closes
 * them all for handover. `sessions` is read again on every look (sessions come and go).
 */
export async function drainSessions(sessions: () => Iterable<StreamableSessionTransport>, drainMs: number): Promise<void> {
  for (const transport of sessions()) transport.endStandalone();
  const deadline = Date.now() + drainMs;
  const busy = () => {
    for (const transport of sessions()) if (transport.busy) return true;
    return false;
  };
  while (busy() && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, Math.max(1, deadline - Date.now()))));
    for (const transport of sessions()) transport.endStandalone();
  }
  const all = [...sessions()];
  for (const transport of all) transport.failOpenRequests(ErrorCode.InternalError, DRAIN_CUT_MESSAGE);
  await Promise.all(all.map((transport) => transport.closeForHandover()));
}
