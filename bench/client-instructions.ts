/**
 * The client rows of the instructions section (`--section=instructions`): the CPU
 * instructions mcpkit's `Client` spends per `tools/call echo` against the bare server,
 * beside the raw driver's, counted by callgrind. The client section's CPU-per-call ratios
 * move by a third between repetitions on a shared machine (kernel time and the machine's
 * pace dominate them); the count of the client process's own instructions does not.
 *
 * Design note: each client process of the client section (`clients/bench-client.ts`) runs
 * under `valgrind --tool=callgrind` with the same V8 flags as the servers' rows
 * (`--single-threaded`, `--predictable-gc-schedule`); its server (the bare one, started by
 * the client process) runs outside valgrind and is not counted. A client's code takes
 * longer to settle than a server's, and the first run after a long one costs more whatever
 * the warm-up: after 40 000 warm-up calls (one run), three runs of 10 000 counted 55k, 43k
 * and 34k instructions per call for the raw driver (HTTP, 32 in flight) and 73k, 53k and 53k
 * for mcpkit's `Client`. The raw driver's count moves most, with the waves of work that are
 * not per call (it builds each run's requests up front, which promotes them and brings a
 * major collection into some windows). So `warmup` calls run (twice the servers' warm-up
 * by default), then one run of `calls` that is not counted, then {@link WINDOWS} counted
 * windows of `calls`, one run each; the figure is the median of their per-call counts
 * (every window's is kept in the results). Rows: raw and mcpkit, stdio and HTTP (JSON
 * responses), 1 and 32 in flight.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { callgrindNode, dumpTotal, inParallel } from './callgrind.js';
import { ClientProcess } from './clients/client-process.js';
import type { ClientKind, ClientTransport } from './clients/protocol.js';
import type { BenchConfig } from './config.js';
import { errorMessage } from './report.js';
import { median } from './stats.js';

const run = promisify(execFile);

/** The clients, transports and in-flight counts of the rows. */
export const CLIENT_ROWS = {
  clients: ['raw', 'mcpkit'] as const satisfies readonly ClientKind[],
  transports: ['stdio', 'http'] as const satisfies readonly ClientTransport[],
  inFlight: [1, 32] as const,
};

/** Calls before the count, and calls per counted window. */
export interface ClientWindows {
  readonly warmup: number;
  readonly calls: number;
}

/** Counted windows per client. */
export const WINDOWS = 3;

/** One counted client. */
export interface ClientCount {
  readonly client: ClientKind;
  readonly transport: ClientTransport;
  readonly inFlight: number;
  /** The median of the windows' instructions per call, or null when the run failed. */
  instructionsPerCall: number | null;
  /** Each window's instructions per call, in order. */
  windows: number[];
  problem: string | null;
}

/** Counts one client; never throws (a failure is recorded in the result). */
export async function countClient(
  client: ClientKind,
  transport: ClientTransport,
  inFlight: number,
  windows: ClientWindows,
  config: BenchConfig,
): Promise<ClientCount> {
  const out: ClientCount = { client, transport, inFlight, instructionsPerCall: null, windows: [], problem: null };
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-client-callgrind-'));
  let child: ClientProcess | undefined;
  // under valgrind a call takes about a millisecond: allow 20 ms each
  const budget = (calls: number): number => Math.max(config.timeoutMs, calls * 20);
  try {
    child = (
      await ClientProcess.start(`${client} ${transport} (callgrind)`, { client, transport, mode: 'json', era: '2025' }, false, budget(1000), callgrindNode(dir))
    ).process;
    const pid = String(child.pid);
    await child.send({ cmd: 'run', calls: windows.warmup, inFlight }, budget(windows.warmup));
    // the run after a long one costs more (see the module note): not counted
    await child.send({ cmd: 'run', calls: windows.calls, inFlight }, budget(windows.calls));
    for (let k = 1; k <= WINDOWS; k++) {
      await run('callgrind_control', ['-z', pid]);
      await child.send({ cmd: 'run', calls: windows.calls, inFlight }, budget(windows.calls));
      await run('callgrind_control', ['-d', pid]);
      out.windows.push(dumpTotal(join(dir, `cg.${pid}.${k}`)) / windows.calls);
    }
    out.instructionsPerCall = median(out.windows);
  } catch (error) {
    out.problem = errorMessage(error);
  } finally {
    await child?.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

/** Every row of {@link CLIENT_ROWS}, `parallel` at a time; progress on stderr. */
export async function countClients(windows: ClientWindows, config: BenchConfig, parallel: number): Promise<ClientCount[]> {
  const jobs = CLIENT_ROWS.transports.flatMap((transport) =>
    CLIENT_ROWS.inFlight.flatMap((inFlight) => CLIENT_ROWS.clients.map((client) => ({ client, transport, inFlight }))),
  );
  const results: ClientCount[] = [];
  await inParallel(jobs, parallel, async (job) => {
    const c = await countClient(job.client, job.transport, job.inFlight, windows, config);
    results.push(c);
    process.stderr.write(
      `  client ${job.transport.padEnd(5)} ${String(job.inFlight).padStart(2)} in flight ${job.client.padEnd(7)} ${c.problem ?? `${Math.round(c.instructionsPerCall!).toLocaleString('en-US')} instructions/call`}\n`,
    );
  });
  return results;
}
