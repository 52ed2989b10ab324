/**
 * The two decisions the protocol layer makes about every incoming request, in one place for
 * every dispatch path (a connection's endpoint, and the per-request dispatch of the
 * 2026-07-28 era over HTTP):
 *
 * - its era, read once where the request enters: a request whose `params._meta` claims a
 *   protocol version (2026-07-28 › Basic › `_meta`) is served at the revision it names, with
 *   that revision's table, whatever the connection negotiated — {@link claimStatelessEra};
 * - the table's verdict on it: -32601 for a method the revision lacks, that is not the
 *   receiver's to handle, or that is gated by a capability the receiver did not declare;
 *   -32602 for params that fail the method's check — {@link checkIncomingRequest}.
 */
import { invalidParams, McpError, methodNotFound } from '../jsonrpc/errors.js';
import { ErrorCode, type JSONObject } from '../jsonrpc/types.js';
import { claimsStatelessEra, type RequestMeta, readRequestMeta } from './stateless/wire.js';
import { hasCapability, mayBeSentBy, PRE_INIT_TABLE, type RevisionTable, tableFor } from './table.js';
import { LATEST_REVISION } from './versions.js';

/** The era reading of one 2026-07-28 request: its checked `_meta` and the table of its revision. */
export interface StatelessClaim {
  readonly meta: RequestMeta;
  /** The method table of `meta.revision`, with the server's extensions. */
  readonly table: RevisionTable;
}

/**
 * Reads the era of an incoming request once. Undefined: a 2025-era request (its `_meta`
 * claims no protocol version, or `revisions` is empty: the era is off). Otherwise the claim,
 * or the McpError to answer it with: -32602 for malformed per-request metadata, -32022 for a
 * revision outside `revisions`. `tableOf` maps a served revision to its table. Never throws.
 */
export function claimStatelessEra(
  params: JSONObject | undefined,
  revisions: readonly string[],
  tableOf: (revision: string) => RevisionTable,
): StatelessClaim | McpError | undefined {
  if (revisions.length === 0 || !claimsStatelessEra(params)) return undefined;
  try {
    const meta = readRequestMeta(params, revisions);
    return { meta, table: tableOf(meta.revision) };
  } catch (error) {
    return error as McpError;
  }
}

const LATEST_TABLE = tableFor(LATEST_REVISION)!;

/**
 * Applies `table` to an incoming request `method` received by `role`, which declared
 * `ownCapabilities`. Throws McpError -32600 for a known method before initialization,
 * -32601 (see the module note), -32602 for bad params.
 */
export function checkIncomingRequest(
  table: RevisionTable,
  role: 'client' | 'server',
  ownCapabilities: object,
  method: string,
  params: JSONObject | undefined,
): void {
  const spec = table.methods.get(method);
  if (spec === undefined || spec.kind !== 'request' || (mayBeSentBy(spec, role) && spec.direction !== 'both')) {
    if (table === PRE_INIT_TABLE && LATEST_TABLE.methods.has(method)) {
      throw new McpError(ErrorCode.InvalidRequest, `Invalid request: ${method} was received before initialization`);
    }
    throw methodNotFound(method);
  }
  const gate = spec.gate;
  if (gate !== undefined && gate.holder === 'receiver' && !hasCapability(ownCapabilities, gate.path)) throw methodNotFound(method);
  if (spec.params !== undefined) {
    const problem = spec.params(params);
    if (problem !== undefined) throw invalidParams(problem);
  }
}
