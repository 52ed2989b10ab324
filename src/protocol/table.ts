/**
 * One method table per protocol revision.
 *
 * Each entry says who may send the method, whether it is a request or a notification,
 * which capability gates it, and how its params are checked. Everything that depends on
 * the negotiated revision — which methods exist, capability gating, batches — is read
 * from the table, so a new revision is a new table, not new branches in the roles.
 */
import { Method, Notification } from './methods.js';
import * as P from './params.js';
import { V2026_07_28 } from './stateless/wire.js';
import { V2024_11_05, V2025_03_26, V2025_06_18, V2025_11_25 } from './versions.js';

/** Which side sends a method. */
export type Direction = 'client-to-server' | 'server-to-client' | 'both';

/**
 * A capability gate: the capability object path that must be declared, and whose
 * capabilities it is read from — the receiver's (a client may call `tools/call` only if
 * the server declared `tools`) or the sender's own (a server may send
 * `notifications/tools/list_changed` only if it declared `tools.listChanged`).
 */
export interface CapabilityGate {
  holder: 'receiver' | 'sender';
  path: readonly string[];
}

/** One method of one revision. */
export interface MethodSpec {
  readonly method: string;
  readonly kind: 'request' | 'notification';
  readonly direction: Direction;
  readonly gate?: CapabilityGate;
  readonly params?: P.ParamsCheck;
  /** May be sent before initialization completes. */
  readonly beforeInit?: boolean;
}

/** The method table of one revision. */
export interface RevisionTable {
  readonly revision: string;
  readonly methods: ReadonlyMap<string, MethodSpec>;
  /** Whether JSON-RPC batches are received in this revision. */
  readonly batches: boolean;
}

const C2S: Direction = 'client-to-server';
const S2C: Direction = 'server-to-client';

function req(method: string, direction: Direction, gate?: CapabilityGate, params?: P.ParamsCheck, beforeInit?: boolean): MethodSpec {
  return { method, kind: 'request', direction, gate, params, beforeInit };
}
function note(method: string, direction: Direction, gate?: CapabilityGate, params?: P.ParamsCheck, beforeInit?: boolean): MethodSpec {
  return { method, kind: 'notification', direction, gate, params, beforeInit };
}
const receiver = (...path: string[]): CapabilityGate => ({ holder: 'receiver', path });
const sender = (...path: string[]): CapabilityGate => ({ holder: 'sender', path });

/** Entries shared by every stateful revision. */
function base(completionGate: CapabilityGate | undefined): MethodSpec[] {
  return [
    req(Method.Initialize, C2S, undefined, P.checkInitialize, true),
    req(Method.Ping, 'both', undefined, undefined, true),
    req(Method.ToolsList, C2S, receiver('tools'), P.checkCursor),
    req(Method.ToolsCall, C2S, receiver('tools'), P.checkCallTool),
    req(Method.ResourcesList, C2S, receiver('resources'), P.checkCursor),
    req(Method.ResourcesTemplatesList, C2S, receiver('resources'), P.checkCursor),
    req(Method.ResourcesRead, C2S, receiver('resources'), P.checkUri),
    req(Method.ResourcesSubscribe, C2S, receiver('resources', 'subscribe'), P.checkUri),
    req(Method.ResourcesUnsubscribe, C2S, receiver('resources', 'subscribe'), P.checkUri),
    req(Method.PromptsList, C2S, receiver('prompts'), P.checkCursor),
    req(Method.PromptsGet, C2S, receiver('prompts'), P.checkGetPrompt),
    req(Method.CompletionComplete, C2S, completionGate, P.checkComplete),
    req(Method.LoggingSetLevel, C2S, receiver('logging'), P.checkSetLevel),
    req(Method.SamplingCreateMessage, S2C, receiver('sampling'), P.checkCreateMessage),
    req(Method.RootsList, S2C, receiver('roots')),
    note(Notification.Initialized, C2S, undefined, undefined, true),
    note(Notification.Cancelled, 'both', undefined, P.checkCancelled, true),
    note(Notification.Progress, 'both', undefined, P.checkProgress, true),
    note(Notification.Message, S2C, sender('logging'), P.checkLogMessage, true),
    note(Notification.ResourcesUpdated, S2C, sender('resources', 'subscribe'), P.checkUri),
    note(Notification.ResourcesListChanged, S2C, sender('resources', 'listChanged')),
    note(Notification.ToolsListChanged, S2C, sender('tools', 'listChanged')),
    note(Notification.PromptsListChanged, S2C, sender('prompts', 'listChanged')),
    note(Notification.RootsListChanged, C2S, sender('roots', 'listChanged')),
  ];
}

function table(revision: string, batches: boolean, entries: MethodSpec[]): RevisionTable {
  return Object.freeze({ revision, batches, methods: new Map(entries.map((e) => [e.method, Object.freeze(e)])) });
}

/**
 * 2024-11-05: completion had no capability of its own. Batches: JSON-RPC 2.0 allows
 * them and nothing in this revision forbids them, so they are received.
 */
const T_2024_11_05 = table(V2024_11_05, true, base(undefined));

/** 2025-03-26: batches required on receipt; `completions` capability. */
const T_2025_03_26 = table(V2025_03_26, true, base(receiver('completions')));

/** 2025-06-18: batches removed; form elicitation added. */
const T_2025_06_18 = table(V2025_06_18, false, [...base(receiver('completions')), req(Method.ElicitationCreate, S2C, receiver('elicitation'), P.checkElicit)]);

/** 2025-11-25: URL elicitation and its completion notification; `tools/call` may carry `task`. */
const T_2025_11_25 = table(V2025_11_25, false, [
  ...base(receiver('completions')),
  req(Method.ToolsCall, C2S, receiver('tools'), P.checkCallToolWithTask),
  req(Method.ElicitationCreate, S2C, receiver('elicitation'), P.checkElicit),
  note(Notification.ElicitationComplete, S2C, undefined, P.checkElicitationComplete),
]);

/**
 * 2026-07-28, the stateless era: no handshake (`initialize`, `notifications/initialized`),
 * no `ping`, no `logging/setLevel`, no `resources/(un)subscribe`, no server → client
 * requests (sampling, elicitation and roots travel inside `InputRequiredResult`s), no
 * `notifications/roots/list_changed` or `notifications/elicitation/complete`; adds
 * `server/discover` and `subscriptions/listen`. `notifications/cancelled` flows both
 * ways (the server sends it on stdio to end a subscription). Every method may be sent at
 * once: there is nothing to initialize.
 */
const T_2026_07_28 = table(V2026_07_28, false, [
  req(Method.ServerDiscover, C2S, undefined, undefined, true),
  req(Method.ToolsList, C2S, receiver('tools'), P.checkCursor, true),
  req(Method.ToolsCall, C2S, receiver('tools'), P.checkCallTool, true),
  req(Method.ResourcesList, C2S, receiver('resources'), P.checkCursor, true),
  req(Method.ResourcesTemplatesList, C2S, receiver('resources'), P.checkCursor, true),
  req(Method.ResourcesRead, C2S, receiver('resources'), P.checkUri, true),
  req(Method.PromptsList, C2S, receiver('prompts'), P.checkCursor, true),
  req(Method.PromptsGet, C2S, receiver('prompts'), P.checkGetPrompt, true),
  req(Method.CompletionComplete, C2S, receiver('completions'), P.checkComplete, true),
  req(Method.SubscriptionsListen, C2S, undefined, P.checkSubscriptionsListen, true),
  note(Notification.Cancelled, 'both', undefined, P.checkCancelled, true),
  note(Notification.Progress, S2C, undefined, P.checkProgress, true),
  note(Notification.Message, S2C, sender('logging'), P.checkLogMessage, true),
  note(Notification.SubscriptionsAcknowledged, S2C, undefined, P.checkSubscriptionsAcknowledged, true),
  note(Notification.ResourcesUpdated, S2C, sender('resources', 'subscribe'), P.checkUri, true),
  note(Notification.ResourcesListChanged, S2C, sender('resources', 'listChanged'), undefined, true),
  note(Notification.ToolsListChanged, S2C, sender('tools', 'listChanged'), undefined, true),
  note(Notification.PromptsListChanged, S2C, sender('prompts', 'listChanged'), undefined, true),
]);

const TABLES: ReadonlyMap<string, RevisionTable> = new Map([
  [V2024_11_05, T_2024_11_05],
  [V2025_03_26, T_2025_03_26],
  [V2025_06_18, T_2025_06_18],
  [V2025_11_25, T_2025_11_25],
  [V2026_07_28, T_2026_07_28],
]);

/** The table of `revision`, or undefined when the revision is not spoken here. */
export function tableFor(revision: string): RevisionTable | undefined {
  return TABLES.get(revision);
}

/**
 * The table used before a revision is negotiated: only what may cross before
 * initialization is allowed, and no batches.
 */
export const PRE_INIT_TABLE: RevisionTable = table(
  'pre-initialization',
  false,
  base(undefined).filter((e) => e.beforeInit),
);

/**
 * A protocol extension's contribution to the method tables: entries added to (or
 * replacing those of) a revision's table. Extensions plug in through this, middleware,
 * capabilities and store interfaces only.
 */
export interface ProtocolExtension {
  /** A stable, unique name (used to cache extended tables). */
  readonly name: string;
  /** The entries this extension adds to the table of `revision` (empty: none). */
  methods(revision: string): readonly MethodSpec[];
  /**
   * Capabilities this extension declares for the side playing `role`, given what that side
   * declares without it (`declared`, not to be mutated). The roles merge the returned
   * members over their derived capabilities; capabilities given in the role's options still
   * win. Called once per connection at most; optional.
   */
  capabilities?(role: 'client' | 'server', declared: Readonly<Record<string, unknown>>): Record<string, unknown> | undefined;
  /**
   * Stateless era (2026-07-28): the members this extension adds to `capabilities.extensions`
   * of the side playing `role` (extension identifier → settings; `{}` declares support
   * without settings). The era's capabilities have no place for what `capabilities()`
   * declares under 2025-era names such as `tasks`. Optional.
   */
  statelessExtensions?(role: 'client' | 'server'): Record<string, Record<string, unknown>> | undefined;
}

const extendedTables = new Map<string, RevisionTable>();

/**
 * The table of `revision` with the entries of `extensions` added, in order (later entries
 * replace earlier ones of the same method). Cached per revision and extension set, so every
 * session of a server shares one table object. Undefined for an unknown revision.
 */
export function extendedTableFor(revision: string, extensions: readonly ProtocolExtension[]): RevisionTable | undefined {
  const base = TABLES.get(revision);
  if (base === undefined || extensions.length === 0) return base;
  const key = `${revision}\u0000${extensions.map((e) => e.name).join('\u0000')}`;
  let table = extendedTables.get(key);
  if (table === undefined) {
    const methods = new Map(base.methods);
    for (const ext of extensions) for (const spec of ext.methods(revision)) methods.set(spec.method, Object.freeze({ ...spec }));
    table = Object.freeze({ revision, batches: base.batches, methods });
    extendedTables.set(key, table);
  }
  return table;
}

/** True when `caps` declares the capability at `path` (any non-null value counts). */
export function hasCapability(caps: object | undefined, path: readonly string[]): boolean {
  let node: unknown = caps;
  for (let i = 0; i < path.length; i++) {
    if (typeof node !== 'object' || node === null) return false;
    node = (node as Record<string, unknown>)[path[i]!];
  }
  return node !== undefined && node !== null && node !== false;
}

/** True when a side playing `role` may send `spec`. */
export function mayBeSentBy(spec: MethodSpec, role: 'client' | 'server'): boolean {
  return spec.direction === 'both' || spec.direction === (role === 'client' ? C2S : S2C);
}
