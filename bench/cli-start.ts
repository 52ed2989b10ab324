/**
 * The cli section of `npm run bench`: how fast the `mcpkit` command starts. Times, from
 * spawn, the first byte on stdout of `mcpkit list -- node bin/mcpkit.js demo` (start the CLI,
 * start the demo server, handshake, list, print) and of `mcpkit --help`, against the exit of
 * `node -e 0` (Node's own start). Trials alternate between the commands so drift of the
 * machine hits all alike; the report gives medians and the median per-trial ratio to
 * `node -e 0`. No assertions: the numbers are for reading. Results go to
 * `bench-results/cli.json`.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { BenchConfig } from './config.js';
import { errorMessage } from './report.js';
import { formatNumber, formatRatio, formatTable, median, medianRatio } from './stats.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const RESULTS_FILE = join(ROOT, 'bench-results', 'cli.json');
const BIN = join(ROOT, 'bin', 'mcpkit.js');

/** One command timed by the section. */
export interface StartCommand {
  name: string;
  args: readonly string[];
  /** `first-output`: until the first stdout byte; `exit`: until the process exits. */
  until: 'first-output' | 'exit';
}

/** The commands of the section; the first is the baseline of the ratios. */
export const START_COMMANDS: readonly StartCommand[] = [
  { name: 'node -e 0', args: ['-e', '0'], until: 'exit' },
  { name: 'mcpkit --help', args: [BIN, '--help'], until: 'first-output' },
  { name: 'mcpkit list -- mcpkit demo', args: [BIN, 'list', '--', process.execPath, BIN, 'demo'], until: 'first-output' },
];

/**
 * Spawns `node args...` and resolves with the milliseconds until `until` (and after that, the
 * process's exit, so trials never overlap). Rejects when the process fails, exits non-zero,
 * or takes longer than `timeoutMs` (it is killed then).
 */
export function timeStart(command: StartCommand, timeoutMs: number): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const started = performance.now();
    let firstOutput: number | undefined;
    const child = spawn(process.execPath, command.args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.on('data', () => {
      firstOutput ??= performance.now() - started;
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const exited = performance.now() - started;
      if (code !== 0) return reject(new Error(`${command.name} ended with ${signal ?? `exit code ${code}`}`));
      if (command.until === 'exit') return resolvePromise(exited);
      if (firstOutput === undefined) return reject(new Error(`${command.name} printed nothing`));
      resolvePromise(firstOutput);
    });
  });
}

/** Runs the section; resolves with its exit status (0, or 1 when a command failed). */
export async function runCliStartBench(config: BenchConfig): Promise<number> {
  const trials = config.coldStarts;
  console.log(`mcpkit CLI start benchmark: ${trials} trials per command (time to first output; node -e 0 to exit)`);
  const times: Record<string, (number | null)[]> = Object.fromEntries(START_COMMANDS.map((c) => [c.name, []]));
  const problems: string[] = [];
  for (let trial = 0; trial < trials; trial++) {
    const order = trial % 2 === 0 ? START_COMMANDS : [...START_COMMANDS].reverse();
    for (const command of order) {
      try {
        times[command.name]!.push(await timeStart(command, config.timeoutMs));
      } catch (err) {
        times[command.name]!.push(null);
        problems.push(`${command.name}: ${errorMessage(err)}`);
      }
    }
  }
  const baseline = START_COMMANDS[0]!.name;
  const rows: string[][] = [['command', 'median ms', `× ${baseline}`]];
  const report: Record<string, { medianMs: number | null; ratioToNode: number | null; trialsMs: (number | null)[] }> = {};
  for (const command of START_COMMANDS) {
    const m = median(times[command.name]!);
    const ratio = command.name === baseline ? 1 : medianRatio(times[command.name]!, times[baseline]!);
    rows.push([command.name, formatNumber(m), formatRatio(ratio)]);
    report[command.name] = { medianMs: m, ratioToNode: ratio, trialsMs: times[command.name]! };
  }
  console.log(formatTable(rows));
  for (const p of problems) console.log(`!! ${p}`);
  mkdirSync(dirname(RESULTS_FILE), { recursive: true });
  writeFileSync(RESULTS_FILE, `${JSON.stringify({ trials, commands: report, problems }, null, 2)}\n`);
  console.log(`\nresults written to ${RESULTS_FILE}`);
  return problems.length > 0 ? 1 : 0;
}
