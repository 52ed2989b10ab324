/**
 * The parent's handle on one client process of the client section (`bench-client.ts`):
 * spawns it, waits for its `ready` line, sends one command at a time and resolves with the
 * reply. Nothing here is part of mcpkit; it is scaffolding for the benchmark only.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ClientArgs, ClientCommand, ClientReply } from './protocol.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const SCRIPT = join(HERE, 'bench-client.js');
const ROOT = resolve(HERE, '..', '..', '..');
const STDERR_TAIL_CHARS = 4096;

/** A running client process. Always {@link ClientProcess.close} it, also after a failure. */
export class ClientProcess {
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #label: string;
  #rest = '';
  #stderrTail = '';
  #waiting: { resolve: (r: ClientReply) => void; reject: (e: Error) => void; timer: NodeJS.Timeout } | null = null;
  #exited: Error | null = null;
  readonly #exit: Promise<void>;

  private constructor(label: string, child: ChildProcessWithoutNullStreams) {
    this.#label = label;
    this.#child = child;
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdin.on('error', () => {});
    child.stdout.on('data', (chunk: string) => this.#onStdout(chunk));
    child.stderr.on('data', (chunk: string) => {
      const tail = this.#stderrTail + chunk;
      this.#stderrTail = tail.length > STDERR_TAIL_CHARS ? tail.slice(-STDERR_TAIL_CHARS) : tail;
    });
    this.#exit = new Promise((done) => {
      const ended = (why: string): void => {
        this.#exited ??= new Error(`${label}: client process ${why}` + (this.#stderrTail ? `; stderr:\n${this.#stderrTail.trimEnd()}` : ''));
        this.#settle(null, this.#exited);
        done();
      };
      child.once('error', (error) => ended(`could not start: ${error.message}`));
      child.once('exit', (code, signal) => ended(`exited (${signal ?? `code ${code}`})`));
    });
  }

  /**
   * Spawns a client process (`gc`: with `--expose-gc`) and resolves once it is connected to
   * its server, with the process and its `ready` reply. `node` is the command line that runs
   * Node (valgrind's, say: the process id is then valgrind's, which is the one to signal).
   * Rejects with `Error` when it fails to start or connect, or is not ready within
   * `timeoutMs` (the process is closed then).
   */
  static async start(
    label: string,
    args: ClientArgs,
    gc: boolean,
    timeoutMs: number,
    node: readonly string[] = [process.execPath],
  ): Promise<{ process: ClientProcess; ready: ClientReply }> {
    const [command, ...prefix] = node;
    const argv = [
      ...prefix,
      ...(gc ? ['--expose-gc'] : []),
      SCRIPT,
      `--client=${args.client}`,
      `--transport=${args.transport}`,
      `--mode=${args.mode}`,
      `--era=${args.era}`,
    ];
    const child = spawn(command!, argv, { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'], shell: false });
    const p = new ClientProcess(label, child);
    try {
      const ready = await p.#next(timeoutMs, 'ready line');
      return { process: p, ready };
    } catch (error) {
      await p.close();
      throw error;
    }
  }

  /** The client process's id. */
  get pid(): number {
    return this.#child.pid ?? -1;
  }

  /** Sends `command` and resolves with its reply; rejects with `Error` on an error reply, exit or timeout. */
  send(command: ClientCommand, timeoutMs: number): Promise<ClientReply> {
    if (this.#exited !== null) return Promise.reject(this.#exited);
    const reply = this.#next(timeoutMs, command.cmd);
    this.#child.stdin.write(JSON.stringify(command) + '\n');
    return reply;
  }

  /** Asks the process to close its client and server, then waits for its exit (SIGKILL after 5 s). Never rejects. */
  async close(): Promise<void> {
    if (this.#exited === null) {
      this.#child.stdin.end();
      const kill = setTimeout(() => this.#child.kill('SIGKILL'), 5000);
      await this.#exit;
      clearTimeout(kill);
    }
  }

  #next(timeoutMs: number, what: string): Promise<ClientReply> {
    if (this.#waiting !== null) return Promise.reject(new Error(`${this.#label}: one command at a time`));
    return new Promise<ClientReply>((resolveReply, reject) => {
      const timer = setTimeout(() => this.#settle(null, new Error(`${this.#label}: no reply to ${what} within ${timeoutMs} ms`)), timeoutMs);
      this.#waiting = { resolve: resolveReply, reject, timer };
    });
  }

  #settle(reply: ClientReply | null, error: Error | null): void {
    const w = this.#waiting;
    if (w === null) return;
    this.#waiting = null;
    clearTimeout(w.timer);
    if (error !== null) w.reject(error);
    else if (!reply!.ok) w.reject(new Error(`${this.#label}: ${reply!.error ?? 'failed'}`));
    else w.resolve(reply!);
  }

  #onStdout(chunk: string): void {
    const text = this.#rest + chunk;
    const lines = text.split('\n');
    this.#rest = lines.pop()!;
    for (const line of lines) {
      if (line.trim() === '') continue;
      let reply: ClientReply;
      try {
        reply = JSON.parse(line) as ClientReply;
      } catch {
        this.#settle(null, new Error(`${this.#label}: unparseable reply ${JSON.stringify(line.slice(0, 200))}`));
        continue;
      }
      this.#settle(reply, null);
    }
  }
}
