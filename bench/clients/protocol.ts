/**
 * What the client section's parent (`client-bench.ts`) and each client process
 * (`bench-client.ts`) share: the client process's command line, the JSON lines they
 * exchange, and the loop that keeps calls in flight. Pure code, unit-tested.
 */

/**
 * The clients the section compares; `raw` is the ceiling (the benchmark's own driver);
 * `fetch` (HTTP only) is the floor of every fetch-based client: a bare loop of `fetch`
 * POSTs with the session headers, each JSON answer parsed and checked, no MCP library.
 * `mcpkit` over HTTP makes its requests with `nodeHttpRequester` (mcpkit/node);
 * `mcpkit-fetch` (HTTP only) is the same client over `fetch`.
 */
export type ClientKind = 'raw' | 'fetch' | 'mcpkit' | 'mcpkit-fetch' | 'official' | 'official-v2';

/** Every {@link ClientKind}, in the section's base order (the baseline first). */
export const CLIENT_KINDS: readonly ClientKind[] = ['raw', 'fetch', 'mcpkit', 'mcpkit-fetch', 'official', 'official-v2'];

/** The clients that run over `transport` (`fetch` and `mcpkit-fetch` are HTTP only). */
export function clientsFor(transport: ClientTransport, kinds: readonly ClientKind[]): ClientKind[] {
  return kinds.filter((k) => transport === 'http' || (k !== 'fetch' && k !== 'mcpkit-fetch'));
}

/** How a client reaches the bare server: its stdio child, or Streamable HTTP. */
export type ClientTransport = 'stdio' | 'http';

/** The command line of a client process. */
export interface ClientArgs {
  readonly client: ClientKind;
  readonly transport: ClientTransport;
  /** The bare HTTP server's response mode (ignored over stdio). */
  readonly mode: 'json' | 'sse';
  /**
   * `2025` (default): the 2025 era against the bare server. `2026`: the stateless era
   * (2026-07-28) against the minimal mcpkit HTTP server (the bare one does not speak it);
   * HTTP only, and only for the clients that speak it (`raw`, `mcpkit`, `mcpkit-fetch`).
   */
  readonly era: '2025' | '2026';
}

/** A command from the parent, one JSON line on the client's stdin. */
export type ClientCommand = { cmd: 'run'; calls: number; inFlight: number } | { cmd: 'gc' } | { cmd: 'close' };

/**
 * A reply, one JSON line on the client's stdout per command (and one `ready` line first).
 * `cpuUs` is the client process's user+system CPU over the run; `heapUsedKb` is read after
 * forced GCs when `forced`.
 */
export interface ClientReply {
  ok: boolean;
  error?: string;
  ready?: boolean;
  connectMs?: number;
  calls?: number;
  inFlight?: number;
  elapsedMs?: number;
  cpuUs?: number;
  heapUsedKb?: number;
  rssKb?: number;
  forced?: boolean;
}

/**
 * Parses `--client=…`, `--transport=stdio|http`, `--mode=json|sse` (default `json`) and
 * `--era=2025|2026` (default `2025`).
 * Throws `Error` on an unknown or missing argument.
 */
export function parseClientArgs(argv: readonly string[]): ClientArgs {
  let client: ClientKind | undefined;
  let transport: ClientTransport | undefined;
  let mode: 'json' | 'sse' = 'json';
  let era: '2025' | '2026' = '2025';
  for (const arg of argv) {
    const [key, value = ''] = arg.split('=', 2) as [string, string?];
    if (key === '--client' && (CLIENT_KINDS as readonly string[]).includes(value)) client = value as ClientKind;
    else if (key === '--transport' && (value === 'stdio' || value === 'http')) transport = value;
    else if (key === '--mode' && (value === 'json' || value === 'sse')) mode = value;
    else if (key === '--era' && (value === '2025' || value === '2026')) era = value;
    else throw new Error(`bench client: bad argument ${JSON.stringify(arg)}`);
  }
  if (client === undefined || transport === undefined) throw new Error('bench client: --client and --transport are required');
  if (era === '2026' && (transport !== 'http' || (client !== 'raw' && client !== 'mcpkit' && client !== 'mcpkit-fetch')))
    throw new Error('bench client: --era=2026 is for the raw and mcpkit clients over HTTP');
  return { client, transport, mode, era };
}

/**
 * Performs `calls` calls of `call` with `inFlight` of them outstanding: `inFlight` loops,
 * each awaiting one call before starting the next, until `calls` were started. Rejects
 * with the first failure (the other loops stop starting calls). `inFlight` and `calls`
 * must be positive integers (RangeError otherwise).
 */
export async function runLoops(call: () => Promise<unknown>, calls: number, inFlight: number): Promise<void> {
  if (!Number.isInteger(calls) || calls < 1) throw new RangeError('calls must be a positive integer');
  if (!Number.isInteger(inFlight) || inFlight < 1) throw new RangeError('inFlight must be a positive integer');
  let started = 0;
  let failed = false;
  const loop = async (): Promise<void> => {
    while (started < calls && !failed) {
      started++;
      try {
        await call();
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  const loops: Promise<void>[] = [];
  for (let i = 0; i < Math.min(inFlight, calls); i++) loops.push(loop());
  await Promise.all(loops);
}

/** Heap figures of one client at 0, half and all of the memory calls, and the slope between the ends. */
export interface HeapRow {
  /** Heap in use after forced GC, KB, at each checkpoint (calls made so far). */
  readonly points: readonly { calls: number; heapUsedKb: number }[];
  /** (last − first) heap in KB per 10,000 calls; null with fewer than two points or no calls between them. */
  readonly slopeKbPer10k: number | null;
}

/** Builds a {@link HeapRow} from checkpoints in call order. Never throws. */
export function heapRow(points: readonly { calls: number; heapUsedKb: number }[]): HeapRow {
  const first = points[0];
  const last = points[points.length - 1];
  const span = first !== undefined && last !== undefined ? last.calls - first.calls : 0;
  return { points, slopeKbPer10k: span > 0 ? ((last!.heapUsedKb - first!.heapUsedKb) * 10_000) / span : null };
}
