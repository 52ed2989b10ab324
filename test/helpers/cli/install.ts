/**
 * Test helpers for driving the `mcpkit` command: run it as a child process with piped stdio
 * (no terminal), or inside a real pseudo-terminal through tmux, on a tmux server of its own
 * (`-S` socket in a temporary folder), so tests never touch another tmux server on the machine.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MCPKIT_BIN } from '../repo.js';

/** The `bin/mcpkit.js` script of this checkout. */
export { MCPKIT_BIN };

/** What a finished CLI run gave. */
export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `mcpkit ...args` with stdin a pipe (closed after `input`), so there is no terminal. */
export function runCli(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MCPKIT_BIN, ...args], { cwd: options.cwd, env: options.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

const created = new Set<string>();
process.once('exit', () => {
  for (const dir of created) rmSync(dir, { recursive: true, force: true });
});

/** A fresh temporary folder, removed when the test process exits. */
export function tempDir(prefix = 'mcpkit-install-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  created.add(dir);
  return dir;
}

/** Quotes one word for the POSIX shell tmux runs the command with. */
export function shellWord(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * A tmux server of the test's own (its socket in a temporary folder, removed on close) with
 * one 120x40 session running a shell command line.
 */
export class TmuxSession {
  readonly #dir: string;
  readonly #socket: string;
  readonly #name: string;

  /** Starts `commandLine` (run by `sh -c`); after it ends, the pane shows `EXIT=<code>` and stays open. */
  constructor(name: string, commandLine: string, cwd: string) {
    this.#dir = tempDir('mcpkit-tmux-');
    this.#socket = join(this.#dir, 'socket');
    this.#name = name;
    execFileSync('tmux', [
      '-S',
      this.#socket,
      '-f',
      '/dev/null',
      'new-session',
      '-d',
      '-s',
      name,
      '-x',
      '120',
      '-y',
      '40',
      '-c',
      cwd,
      `${commandLine}; echo EXIT=$?; sleep 120`,
    ]);
  }

  /** The visible pane, wrapped lines joined. */
  screen(): string {
    return execFileSync('tmux', ['-S', this.#socket, 'capture-pane', '-p', '-J', '-t', this.#name], { encoding: 'utf8' });
  }

  /** Types keys (tmux key names such as `Enter`, `C-d`, `C-c`, or literal text with `literal`). */
  keys(keys: string[], literal = false): void {
    execFileSync('tmux', ['-S', this.#socket, 'send-keys', '-t', this.#name, ...(literal ? ['-l'] : []), ...keys]);
  }

  /** Polls the screen until `pattern` matches (at most `timeoutMs`, generous); returns the match. */
  async waitFor(pattern: RegExp, timeoutMs = 30_000): Promise<RegExpMatchArray> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = this.screen().match(pattern);
      if (match) return match;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}; screen:\n${this.screen()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Ends this test's tmux server (and so the session and what runs in it). */
  close(): void {
    try {
      execFileSync('tmux', ['-S', this.#socket, 'kill-server'], { stdio: 'ignore' });
    } catch {
      // already gone
    }
    rmSync(this.#dir, { recursive: true, force: true });
  }
}
