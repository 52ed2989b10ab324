/**
 * Per-object accounting of what one idle 2025-era Streamable HTTP session keeps on the V8
 * heap (issue 16). In one process, with no sockets: `createStreamableHttpHandler()` around
 * `createDemoServer()` (the server the HTTP bench serves), driven through `handler.handle()`.
 * Each session is `initialize` + `notifications/initialized` (the bench driver's messages),
 * then left alone.
 *
 * Method: warm up (sessions opened and kept, so every code path, shape and shared table
 * exists), forced GC, heap snapshot A; open `--sessions` more; forced GC, snapshot B. Every
 * object in B whose snapshot id is not in A was allocated in between and survived: it is
 * held by the new sessions (V8 keeps an object's id across snapshots of one process). Those are
 * grouped by kind and name (internal backing stores by what holds them, e.g.
 * `(object properties) ← StreamableSessionTransport`) and divided by the session count.
 * The ids are deterministic for a given build and Node version; rows with fewer than one
 * object per 2 sessions are summed into one "other" row (one-off JIT, code, feedback data).
 *
 * Run (after `node scripts/build.mjs library test`):
 *   node --expose-gc build/bench/session-accounting.js [--sessions=1000] [--mode=json|sse] [--json]
 * Prints the table, the snapshot total per session and the `process.memoryUsage()` deltas
 * (heap used, RSS) over the same sessions. `--json` prints one JSON object instead.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeHeapSnapshot } from 'node:v8';
import { createDemoServer } from '../src/demo/server.js';
import type { HttpReply, HttpRequest, StreamableHttpHandler } from '../src/http/index.js';
import { createStreamableHttpHandler } from '../src/http/index.js';
import { PROTOCOL_VERSION } from './driver.js';

/** One row of the table: a kind of object and what the sessions hold of it. */
export interface AccountingRow {
  /** `<snapshot node type>: <name>`; internal arrays name their holder after `←`. */
  readonly label: string;
  /** Objects per session. */
  readonly count: number;
  /** Shallow bytes per session. */
  readonly bytes: number;
}

/** What {@link accountSessions} measured. */
export interface AccountingResult {
  readonly sessions: number;
  readonly mode: 'json' | 'sse';
  /** Largest first. */
  readonly rows: AccountingRow[];
  /** Sum of every new object's shallow size, per session (bytes). */
  readonly snapshotBytes: number;
  /** `heapUsed` delta after forced GC, per session (bytes). */
  readonly heapUsedBytes: number;
  /** RSS delta after forced GC, per session (bytes; noisy). */
  readonly rssBytes: number;
}

const MCP_PATH = '/mcp';
const WARMUP = 64;

function gc(): void {
  const g = (globalThis as { gc?: () => void }).gc;
  if (g === undefined) throw new Error('run with node --expose-gc');
  g();
  g();
}

function request(method: string, body: string | undefined, headers: Record<string, string>): HttpRequest {
  const all: Record<string, string> = { host: 'localhost', ...headers };
  return { method, url: MCP_PATH, headers: (name) => all[name] ?? null, body };
}

/** Drains an SSE reply (the demo's initialize answer is one event, then the stream ends). */
async function drain(reply: HttpReply): Promise<void> {
  if (reply.stream === undefined) return;
  await new Promise<void>((resolve) => {
    reply.stream!.attach({ write: () => {}, end: () => resolve() });
  });
}

const INIT_BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'mcpkit-bench-driver', version: '1.0.0' } },
});
const INITIALIZED_BODY = '{"jsonrpc":"2.0","method":"notifications/initialized"}';

/** Opens one idle session as the bench driver does; resolves with its id. */
export async function openIdleSession(handler: StreamableHttpHandler): Promise<string> {
  const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const init = await handler.handle(request('POST', INIT_BODY, base));
  if (init.status !== 200) throw new Error(`initialize answered HTTP ${init.status}: ${init.body ?? ''}`);
  const id = init.headers['mcp-session-id'];
  if (id === undefined) throw new Error('initialize answer has no Mcp-Session-Id');
  await drain(init);
  const done = await handler.handle(request('POST', INITIALIZED_BODY, { ...base, 'mcp-session-id': id, 'mcp-protocol-version': PROTOCOL_VERSION }));
  if (done.status !== 202) throw new Error(`notifications/initialized answered HTTP ${done.status}: ${done.body ?? ''}`);
  return id;
}

interface Snapshot {
  readonly ids: Float64Array;
  readonly labels: string[];
  readonly sizes: Float64Array;
}

/** Objects of these kinds are named by what holds them too (`Map held by Endpoint.#listeners`). */
const GENERIC = new Set(['object: Array', 'object: Map', 'object: Set', 'object: Object', 'object: system / Context', 'closure: ']);

/**
 * Writes a heap snapshot and reads each node's id and shallow size, and with `withLabels`
 * its label (see {@link AccountingRow}).
 */
function snapshot(dir: string, n: number, withLabels: boolean): Snapshot {
  const file = writeHeapSnapshot(join(dir, `s${n}.heapsnapshot`));
  const data = JSON.parse(readFileSync(file, 'utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] } };
    nodes: number[];
    edges: number[];
    strings: string[];
  };
  rmSync(file);
  const meta = data.snapshot.meta;
  const nf = meta.node_fields.length;
  const ef = meta.edge_fields.length;
  const fType = meta.node_fields.indexOf('type');
  const fName = meta.node_fields.indexOf('name');
  const fId = meta.node_fields.indexOf('id');
  const fSize = meta.node_fields.indexOf('self_size');
  const fEdges = meta.node_fields.indexOf('edge_count');
  const eType = meta.edge_fields.indexOf('type');
  const eName = meta.edge_fields.indexOf('name_or_index');
  const eTo = meta.edge_fields.indexOf('to_node');
  const nodeTypes = meta.node_types[0];
  const edgeTypes = meta.edge_types[0];
  const weak = edgeTypes.indexOf('weak');
  const named = new Set(['context', 'property', 'internal', 'shortcut'].map((t) => edgeTypes.indexOf(t)));
  const { nodes, edges, strings } = data;
  const count = nodes.length / nf;
  const ids = new Float64Array(count);
  const sizes = new Float64Array(count);
  const owner = new Int32Array(count).fill(-1);
  const via: string[] = [];
  let e = 0;
  for (let i = 0; withLabels && i < count; i++) {
    const edgeCount = nodes[i * nf + fEdges]!;
    for (let k = 0; k < edgeCount; k++, e += ef) {
      const type = edges[e + eType]!;
      if (type === weak) continue;
      const to = edges[e + eTo]! / nf;
      if (owner[to] === -1 && to !== i) {
        owner[to] = i;
        via[to] = named.has(type) ? strings[edges[e + eName]!]! : `[${edges[e + eName]}]`;
      }
    }
  }
  const nameOf = (i: number): string => {
    const type = nodeTypes[nodes[i * nf + fType]!]!;
    const name = type === 'string' || type === 'concatenated string' || type === 'sliced string' ? '(string)' : strings[nodes[i * nf + fName]!]!;
    return `${type}: ${name}`;
  };
  /** The nearest holder that is not a generic container, with the path from it. */
  const holderOf = (i: number): string => {
    let path = '';
    let at = i;
    for (let depth = 0; depth < 4 && owner[at]! >= 0; depth++) {
      path = `.${via[at]}${path}`;
      at = owner[at]!;
      const name = nameOf(at);
      if (!GENERIC.has(name) && !name.startsWith('array: ') && !name.startsWith('hidden: ')) return name.replace(/^(object|closure): /, '') + path;
    }
    return nameOf(at).replace(/^(object|closure): /, '') + path;
  };
  const labels: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = nodes[i * nf + fId]!;
    ids[i] = id;
    sizes[i] = nodes[i * nf + fSize]!;
    if (!withLabels) continue;
    const type = nodeTypes[nodes[i * nf + fType]!]!;
    const label = nameOf(i);
    const generic = GENERIC.has(label) || type === 'array' || type === 'hidden' || type === 'object shape' || type === 'number' || type.endsWith('string');
    // slot numbers of hash tables and arrays vary between sessions: `[]` stands for any
    labels[i] =
      generic && owner[i]! >= 0
        ? `${label} held by ${holderOf(i)
            .replace(/\.table\.\d+/g, '.table[]')
            .replace(/\.\[\d+\]/g, '[]')}`
        : label;
  }
  return { ids, labels, sizes };
}

/** Binary search of `id` in the ascending `sorted`. */
function has(sorted: Float64Array, id: number): boolean {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = sorted[mid]!;
    if (v === id) return true;
    if (v < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/**
 * Opens `sessions` idle sessions after a warm-up and accounts for what they hold (see the
 * module note). Needs `--expose-gc`; throws `Error` without it or when a session cannot be
 * opened. Closes the handler before resolving.
 */
export async function accountSessions(sessions: number, mode: 'json' | 'sse' = 'json'): Promise<AccountingResult> {
  if (!Number.isInteger(sessions) || sessions < 1) throw new RangeError('sessions must be a positive integer');
  const handler = createStreamableHttpHandler({ server: createDemoServer({ onError: () => {} }), endpoint: MCP_PATH, responseMode: mode, onError: () => {} });
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-accounting-'));
  try {
    for (let i = 0; i < WARMUP; i++) await openIdleSession(handler);
    gc();
    // only A's ids are kept, sorted in a typed array (its backing store is off the heap,
    // so nothing of the bookkeeping shows up as new objects in B)
    const known = snapshot(dir, 0, false).ids.sort();
    gc();
    const before = process.memoryUsage();
    for (let i = 0; i < sessions; i++) await openIdleSession(handler);
    gc();
    const after = process.memoryUsage();
    const b = snapshot(dir, 1, true);
    const byLabel = new Map<string, { count: number; bytes: number }>();
    let total = 0;
    for (let i = 0; i < b.ids.length; i++) {
      if (has(known, b.ids[i]!)) continue;
      const size = b.sizes[i]!;
      total += size;
      let row = byLabel.get(b.labels[i]!);
      if (row === undefined) byLabel.set(b.labels[i]!, (row = { count: 0, bytes: 0 }));
      row.count++;
      row.bytes += size;
    }
    const rows: AccountingRow[] = [];
    const other = { count: 0, bytes: 0 };
    for (const [label, row] of byLabel) {
      if (row.count * 2 < sessions) {
        other.count += row.count;
        other.bytes += row.bytes;
      } else rows.push({ label, count: row.count / sessions, bytes: row.bytes / sessions });
    }
    rows.sort((x, y) => y.bytes - x.bytes || (x.label < y.label ? -1 : 1));
    if (other.count > 0) rows.push({ label: 'other (fewer than 1 per 2 sessions)', count: other.count / sessions, bytes: other.bytes / sessions });
    if (handler.sessionCount !== sessions + WARMUP) throw new Error(`expected ${sessions + WARMUP} open sessions, the handler holds ${handler.sessionCount}`);
    return {
      sessions,
      mode,
      rows,
      snapshotBytes: total / sessions,
      heapUsedBytes: (after.heapUsed - before.heapUsed) / sessions,
      rssBytes: (after.rss - before.rss) / sessions,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await handler.close();
  }
}

/** The table as text. */
export function formatAccounting(result: AccountingResult): string {
  const lines = [`${result.sessions} idle sessions (${result.mode} mode), per session:`, `${'bytes'.padStart(8)} ${'count'.padStart(6)}  object`];
  for (const row of result.rows) lines.push(`${row.bytes.toFixed(0).padStart(8)} ${row.count.toFixed(2).padStart(6)}  ${row.label}`);
  lines.push(`${result.snapshotBytes.toFixed(0).padStart(8)}         total of new objects (heap snapshot)`);
  lines.push(`${result.heapUsedBytes.toFixed(0).padStart(8)}         heapUsed delta after forced GC`);
  lines.push(`${result.rssBytes.toFixed(0).padStart(8)}         RSS delta after forced GC (noisy)`);
  return lines.join('\n');
}

async function main(argv: readonly string[]): Promise<void> {
  let sessions = 1000;
  let mode: 'json' | 'sse' = 'json';
  let json = false;
  for (const arg of argv) {
    if (arg.startsWith('--sessions=')) sessions = Number(arg.slice('--sessions='.length));
    else if (arg === '--mode=json' || arg === '--mode=sse') mode = arg.slice('--mode='.length) as 'json' | 'sse';
    else if (arg === '--json') json = true;
    else throw new Error(`unknown option ${JSON.stringify(arg)} (options: --sessions=N, --mode=json|sse, --json)`);
  }
  const result = await accountSessions(sessions, mode);
  console.log(json ? JSON.stringify(result) : formatAccounting(result));
}

if (process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'))) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  });
}
