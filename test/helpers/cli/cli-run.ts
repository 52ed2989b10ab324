/**
 * Helpers of the CLI tests: running `node bin/mcpkit.js ...` as a child process (bounded by
 * a timeout), starting HTTP servers that print `LISTENING <url>`, and tmux sessions for
 * tests that need a real pseudo-terminal. Not part of the package.
 */
import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MCPKIT_BIN } from '../repo.js';

/** The `mcpkit` bin script. */
export const BIN = MCPKIT_BIN;
/** The official-SDK fixture server (compiled). */
export const SDK_SERVER = fileURLToPath(new URL('./sdk-server.js', import.meta.url));

/** What one CLI run produced. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI with `args`; resolves when it exits (killed after `timeoutMs`). */
export function runCli(args: readonly string[], options: { env?: Record<string, string>; timeoutMs?: number; input?: string } = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [BIN, ...args],
      { env: { ...process.env, ...options.env }, timeout: options.timeoutMs ?? 30_000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : -1;
        resolve({ code, stdout, stderr });
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
    else child.stdin?.end();
  });
}

/** A server child that printed `LISTENING <url>`. */
export interface HttpChild {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts `node args...` and waits (at most 20 s) for its `LISTENING <url>` line. */
export function startHttpChild(args: readonly string[], env: Record<string, string> = {}): Promise<HttpChild> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, ...env } });
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no LISTENING line from ${args.join(' ')}`));
    }, 20_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const m = /LISTENING (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({
          url: m[1]!,
          child,
          stop: () =>
            new Promise<void>((done) => {
              if (child.exitCode !== null || child.signalCode !== null) return done();
              child.once('exit', () => done());
              child.kill('SIGTERM');
              setTimeout(() => child.kill('SIGKILL'), 3000).unref();
            }),
        });
      }
    });
    child.once('exit', () => {
      clearTimeout(timer);
      reject(new Error(`${args.join(' ')} exited before listening`));
    });
  });
}

/** True when tmux can be run here. */
export function hasTmux(): boolean {
  return spawnSync('tmux', ['-V'], { stdio: 'ignore' }).status === 0;
}

/** Quotes `s` for the shell tmux runs its command with. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * A tmux session running one command in a 120×40 pseudo-terminal, on a tmux server of its own
 * (`-S` socket in a temporary folder): parallel test files never share, or race to end, the
 * machine's default tmux server.
 */
export class TmuxSession {
  readonly name: string;
  readonly #dir: string;
  readonly #socket: string;
  constructor(name: string, command: string) {
    this.name = `${name}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
    this.#dir = mkdtempSync(join(tmpdir(), 'mcpkit-tmux-'));
    this.#socket = join(this.#dir, 'tmux.sock');
    const r = spawnSync('tmux', ['-S', this.#socket, '-f', '/dev/null', 'new-session', '-d', '-s', this.name, '-x', '120', '-y', '40', command], {
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`tmux new-session failed: ${r.stderr}`);
  }
  /** The visible pane (and its scrollback) as text. */
  capture(): string {
    return spawnSync('tmux', ['-S', this.#socket, 'capture-pane', '-p', '-J', '-S', '-200', '-t', this.name], { encoding: 'utf8' }).stdout ?? '';
  }
  /** The pane's title (what an OSC 0/2 sequence written to the terminal would set). */
  title(): string {
    return (spawnSync('tmux', ['-S', this.#socket, 'display-message', '-p', '-t', this.name, '#{pane_title}'], { encoding: 'utf8' }).stdout ?? '').trim();
  }
  /** Sends keys (tmux key names, e.g. 'Enter', 'C-c', or literal text with `literal`). */
  send(keys: string, literal = false): void {
    spawnSync('tmux', ['-S', this.#socket, 'send-keys', '-t', this.name, ...(literal ? ['-l', keys] : [keys])]);
  }
  /** Polls the pane until `predicate` holds (at most `timeoutMs`, default 20 s); resolves with the pane text, rejects on timeout. */
  async waitFor(predicate: (pane: string) => boolean, what: string, timeoutMs = 20_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const pane = this.capture();
      if (predicate(pane)) return pane;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the pane shows:\n${pane}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  /** Ends this session's tmux server (and what runs in it) and removes its socket folder. */
  kill(): void {
    spawnSync('tmux', ['-S', this.#socket, 'kill-server'], { stdio: 'ignore' });
    rmSync(this.#dir, { recursive: true, force: true });
  }
}
