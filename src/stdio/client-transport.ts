/**
 * The client side of the stdio transport: launches an MCP server as a child process and
 * talks newline-delimited JSON-RPC over its stdin/stdout (spec: Transports → stdio, and
 * Lifecycle → Shutdown).
 *
 * Design note:
 * - The child is spawned directly (`shell: false`), so no argument is ever interpreted by a
 *   shell, and with a minimal environment (a few well-known variables from ours, plus
 *   exactly what the caller passes) so secrets in our environment do not leak into servers.
 * - The server's stdout is untrusted input: lines that cannot be JSON (a stray log line)
 *   are skipped and reported through `receiver.error`; oversized lines are skipped without
 *   being buffered. Only JSON-looking lines reach the session. The bytes are decoded here
 *   (Node's `StringDecoder`: invalid UTF-8 becomes U+FFFD, as with a `TextDecoder`) and
 *   split into lines as text, so a line's size is counted from its text: exact for valid
 *   UTF-8, while each invalid byte counts as the 3 bytes of its U+FFFD.
 * - When the child exits on its own (or cannot be started) `receiver.closed` fires with a
 *   {@link ProcessExitedError} at once (after at most a short grace for the pipes to drain
 *   their last bytes), so the session fails pending requests instead of waiting for their
 *   timeouts. The error names the exit code or signal and quotes the end of stderr.
 * - stderr is read continuously (never left to fill the pipe and stall the child); the last
 *   64 KiB are kept in a fixed ring buffer, and a copy goes to the {@link stderr} stream
 *   for whoever wants the log, dropped rather than buffered without bound if nobody reads.
 * - `close()` follows the spec's order: end stdin, wait, SIGTERM, wait, SIGKILL. On POSIX the
 *   child is started in its own process group (`detached`) and the signals go to the whole
 *   group, so the server's own children (a wrapper's `npx`/`uvx` child, a worker) end with
 *   it; once the child has exited, a group still alive gets SIGTERM, then SIGKILL after
 *   `termMs`. A detached group does not get the terminal's Ctrl-C, so while children are
 *   running the transport listens for SIGINT, SIGTERM and SIGHUP and forwards them to the
 *   groups; when nothing else in the application listens for that signal, the process then
 *   ends by it as it would have without the listener (see {@link forwardSignal}).
 * - Backpressure: writes to the child's stdin wait for 'drain'. While more than
 *   `maxQueuedOutputChars` of *replies* (responses to the server's requests) wait for a
 *   server that does not read its stdin, the child's stdout is paused, so a server that
 *   floods us with requests cannot grow our queue without bound. Our own requests and
 *   notifications do not count: they are the application's to pace, and pausing on them
 *   could deadlock against a server that applies the same rule (each waiting for the other
 *   to read).
 * - Coalescing: the messages sent in one turn of the event loop (a client with many requests
 *   in flight sends a burst each time a chunk of responses arrives) reach the child in one
 *   write: the first send of a turn corks its stdin and the next tick uncorks it, so the
 *   burst costs one system call instead of one per message. Order and backpressure are
 *   unchanged (`write()` still reports a full buffer while corked).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { PassThrough, type Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { EnvelopeSummary } from '../framing/envelope-scan.js';
import { encodeLine, NdjsonDecoder, type NdjsonSink, type OversizedLineError } from '../framing/ndjson.js';
import { LocalError, toError } from '../jsonrpc/errors.js';
import type { JSONRPCMessage } from '../jsonrpc/types.js';
import { discardedResponse } from '../session/discarded-response.js';
import type { SendOptions, Transport, TransportReceiver } from '../transport/types.js';
import { LineWriter, outputHighWater, pauseInputUnderPressure } from './line-writer.js';

/** Options of {@link StdioClientTransport}. */
export interface StdioClientTransportOptions {
  /** The executable to run. Never interpreted by a shell: `"a; b"` is one (odd) file name. */
  command: string;
  /** Arguments, passed verbatim. */
  args?: readonly string[];
  /** Extra environment variables, added to {@link defaultEnvironment} (and overriding it). */
  env?: Record<string, string>;
  /** Working directory of the child. Default: ours. */
  cwd?: string;
  /**
   * What to do with the child's stderr: `'pipe'` (default) captures it ({@link StdioClientTransport.stderr},
   * {@link StdioClientTransport.stderrTail}); `'inherit'` shares ours; `'ignore'` discards it.
   */
  stderr?: 'pipe' | 'inherit' | 'ignore';
  /** Largest accepted line from the server in bytes (default 4 MiB); longer lines are skipped and reported. */
  maxLineBytes?: number;
  /**
   * Most reply output (responses to the server's requests), in characters of encoded JSON
   * (about bytes), allowed to wait for a server that is not reading its stdin before the
   * transport stops reading the server's stdout. Default 1 Mi (1,048,576;
   * `DEFAULT_MAX_QUEUED_OUTPUT_CHARS`). Crossing it pauses the child's stdout (nothing is
   * dropped); reading resumes when the replies have drained to half of it. `Infinity` never
   * pauses.
   */
  maxQueuedOutputChars?: number;
  /** Shutdown waits of `close()`, in milliseconds. */
  closeTimeouts?: {
    /** How long to wait for the child to exit after its stdin is closed, before SIGTERM. Default 2000. */
    stdinMs?: number;
    /** How long to wait after SIGTERM before SIGKILL. Default 2000. */
    termMs?: number;
  };
}

/** How the child ended: exactly one of `code` and `signal` is non-null. */
export interface ProcessExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * The server process could not be started, or exited when the client did not ask it to.
 * A {@link LocalError} with code `process_exited`; the message names the exit code or
 * signal and ends with the last lines of stderr (when captured).
 */
export class ProcessExitedError extends LocalError {
  /** Exit code, or null when killed by a signal or never started. */
  readonly exitCode: number | null;
  /** The signal that killed the child, or null. */
  readonly signal: NodeJS.Signals | null;
  /** The last (up to 64 KiB) of the child's stderr, '' when not captured. */
  readonly stderr: string;
  constructor(message: string, exitCode: number | null, signal: NodeJS.Signals | null, stderr: string, options?: { cause?: unknown }) {
    super('process_exited', message, options);
    this.name = 'ProcessExitedError';
    this.exitCode = exitCode;
    this.signal = signal;
    this.stderr = stderr;
  }
}

const POSIX_ENV_KEYS = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'] as const;
const WINDOWS_ENV_KEYS = [
  'APPDATA',
  'HOMEDRIVE',
  'HOMEPATH',
  'LOCALAPPDATA',
  'PATH',
  'PROCESSOR_ARCHITECTURE',
  'SYSTEMDRIVE',
  'SYSTEMROOT',
  'TEMP',
  'USERNAME',
  'USERPROFILE',
  'PROGRAMFILES',
] as const;

/**
 * The environment a spawned server inherits by default: on Windows APPDATA, HOMEDRIVE,
 * HOMEPATH, LOCALAPPDATA, PATH, PROCESSOR_ARCHITECTURE, SYSTEMDRIVE, SYSTEMROOT, TEMP,
 * USERNAME, USERPROFILE, PROGRAMFILES; elsewhere HOME, LOGNAME, PATH, SHELL, TERM, USER —
 * each only when set in `source`, and never when its value starts with `()` (an exported
 * shell function). Pure; never throws.
 *
 * @param source the environment to pick from (default `process.env`).
 * @param platform whose list to use (default `process.platform`).
 */
export function defaultEnvironment(source: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): Record<string, string> {
  const keys = platform === 'win32' ? WINDOWS_ENV_KEYS : POSIX_ENV_KEYS;
  const env: Record<string, string> = {};
  for (const key of keys) {
    const value = source[key];
    if (value === undefined || value.startsWith('()')) continue;
    env[key] = value;
  }
  return env;
}

const DEFAULT_STDIN_MS = 2000;
const DEFAULT_TERM_MS = 2000;
/** After 'exit', how long to wait for stdout/stderr to deliver their last bytes. */
const EXIT_GRACE_MS = 100;
/** Size of the stderr ring, and the most the {@link StdioClientTransport.stderr} copy may hold unread. */
const STDERR_TAIL_BYTES = 64 * 1024;
/** How much of the stderr tail goes into a {@link ProcessExitedError} message. */
const STDERR_IN_MESSAGE = 2048;
const GARBAGE_PREVIEW = 200;

type State = 'new' | 'starting' | 'open' | 'closing' | 'closed';

/**
 * A client's end of a stdio connection: one child process per instance, started by
 * {@link start}, ended by {@link close} or by the child exiting. Not reusable.
 */
export class StdioClientTransport implements Transport {
  readonly #command: string;
  readonly #args: readonly string[];
  readonly #env: Record<string, string>;
  readonly #cwd: string | undefined;
  readonly #stderrMode: 'pipe' | 'inherit' | 'ignore';
  readonly #stdinMs: number;
  readonly #termMs: number;
  readonly #decoder: NdjsonDecoder;
  readonly #maxQueuedOutput: number;
  readonly #stderrCopy: PassThrough | null;
  readonly #tail = new StderrRing(STDERR_TAIL_BYTES);

  #state: State = 'new';
  #receiver: TransportReceiver | undefined;
  #child: ChildProcess | undefined;
  #writer: LineWriter | undefined;
  /** True while the child's stdin is corked until the next tick (see the design note). */
  #corked = false;
  readonly #uncork = (): void => {
    this.#corked = false;
    const stdin = this.#child?.stdin;
    if (stdin && stdin.writableCorked > 0) stdin.uncork();
  };

  #exit: ProcessExitStatus | undefined;
  #closeRequested = false;
  /** Whether the exit was asked for (by `close()`), decided when it happens. */
  #exitExpected = false;
  #stdoutDone = false;
  #stderrDone = true;
  #finishing = false;
  #graceTimer: ReturnType<typeof setTimeout> | undefined;
  #closePromise: Promise<void> | undefined;
  /** Called (and cleared) when the child exits or the transport finishes. */
  #exitWaiters: Array<() => void> = [];

  /** Decodes stdout for the line splitter (Node's decoder: several times cheaper per chunk than a streaming `TextDecoder`). */
  readonly #text = new StringDecoder('utf8');
  readonly #onStdout = (chunk: Buffer): void => this.#decoder.push(this.#text.write(chunk));
  readonly #onStdoutDone = (): void => {
    this.#stdoutDone = true;
    this.#maybeFinishAfterExit();
  };
  readonly #onStderr = (chunk: Uint8Array): void => {
    this.#tail.add(chunk);
    const copy = this.#stderrCopy;
    if (copy?.writable && copy.writableLength + copy.readableLength < STDERR_TAIL_BYTES) copy.write(chunk);
  };
  readonly #onStderrDone = (): void => {
    this.#stderrDone = true;
    this.#maybeFinishAfterExit();
  };

  /** Validates the options (throws `TypeError`/`RangeError`); starts nothing until {@link start}. */
  constructor(options: StdioClientTransportOptions) {
    if (typeof options?.command !== 'string' || options.command.length === 0) throw new TypeError('StdioClientTransport: command must be a non-empty string');
    this.#command = options.command;
    this.#args = options.args ? [...options.args] : [];
    const env = defaultEnvironment();
    if (options.env) {
      for (const [key, value] of Object.entries(options.env)) if (typeof value === 'string') env[key] = value;
    }
    this.#env = env;
    this.#cwd = options.cwd;
    this.#stderrMode = options.stderr ?? 'pipe';
    this.#stdinMs = checkDelay('closeTimeouts.stdinMs', options.closeTimeouts?.stdinMs ?? DEFAULT_STDIN_MS);
    this.#termMs = checkDelay('closeTimeouts.termMs', options.closeTimeouts?.termMs ?? DEFAULT_TERM_MS);
    this.#decoder = new NdjsonDecoder(this.#sink(), options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes });
    this.#maxQueuedOutput = outputHighWater(options.maxQueuedOutputChars);
    this.#stderrCopy = this.#stderrMode === 'pipe' ? new PassThrough() : null;
  }

  /** Messages travel over the child's stdin and stdout (OpenTelemetry's `network.transport`). */
  get network(): 'pipe' {
    return 'pipe';
  }

  /** The child's process id once spawned; undefined before `start()` or when spawning failed. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** How the child ended, once it has. */
  get exitStatus(): ProcessExitStatus | undefined {
    return this.#exit;
  }

  /**
   * The child's stderr, when `stderr` is `'pipe'` (null otherwise). Available before
   * `start()`, so no early output is missed; ends when the transport closes. If nobody
   * reads it, at most 64 KiB pile up and later chunks are dropped (the child is never
   * stalled); {@link stderrTail} always has the latest output.
   */
  get stderr(): Readable | null {
    return this.#stderrCopy;
  }

  /** The last (up to 64 KiB) of the child's stderr, decoded as UTF-8; '' when not captured. */
  stderrTail(): string {
    return this.#tail.text();
  }

  /**
   * Spawns the child and begins delivering its messages to `receiver`. Resolves once the
   * process is running. If it cannot be started (command not found, not executable, bad
   * `cwd`) the promise rejects with a {@link ProcessExitedError} and `receiver.closed` gets
   * the same error. Rejects with `LocalError('already_connected')` when called twice and
   * `connection_closed` after `close()`.
   */
  start(receiver: TransportReceiver): Promise<void> {
    if (this.#state !== 'new') {
      return Promise.reject(
        this.#closeRequested && this.#receiver === undefined
          ? new LocalError('connection_closed', 'Transport is closed')
          : new LocalError('already_connected', 'Transport already started'),
      );
    }
    this.#receiver = receiver;
    this.#state = 'starting';
    let child: ChildProcess;
    try {
      child = spawn(this.#command, this.#args, {
        shell: false,
        detached: OWN_GROUP,
        env: this.#env,
        cwd: this.#cwd,
        stdio: ['pipe', 'pipe', this.#stderrMode],
        windowsHide: true,
      });
    } catch (error) {
      const failure = this.#startFailure(error);
      this.#finish(failure);
      return Promise.reject(failure);
    }
    this.#child = child;
    if (OWN_GROUP && child.pid !== undefined) watchGroup(child.pid);
    const stdin = child.stdin!;
    const stdout = child.stdout!;
    // A stdin that breaks without an event: the exit that follows reports why.
    const pressure = pauseInputUnderPressure(stdout, this.#maxQueuedOutput, () => this.#state === 'open' || this.#state === 'starting');
    this.#writer = new LineWriter(stdin, () => {}, pressure);
    // EPIPE and the like after the child died: the exit handler reports the real cause.
    stdin.on('error', (error) => {
      this.#writer!.fail(new LocalError('connection_closed', 'Server stdin is closed', { cause: error }));
      // Nothing waits to be written any more: read the server's last words if we had paused.
      stdout.resume();
    });
    stdout.on('data', this.#onStdout);
    stdout.on('end', this.#onStdoutDone);
    stdout.on('close', this.#onStdoutDone);
    stdout.on('error', this.#onStdoutDone);
    const stderr = child.stderr;
    if (stderr) {
      this.#stderrDone = false;
      stderr.on('data', this.#onStderr);
      stderr.on('end', this.#onStderrDone);
      stderr.on('close', this.#onStderrDone);
      stderr.on('error', this.#onStderrDone);
    }
    child.on('exit', (code, signal) => this.#onExit(code, signal));
    return new Promise<void>((resolve, reject) => {
      let spawned = false;
      child.on('error', (error) => {
        if (!spawned) {
          const failure = this.#startFailure(error);
          this.#finish(failure);
          reject(failure);
        } else if (this.#state !== 'closed') {
          // After a successful spawn this means a failed kill(); the process is still there.
          this.#reportError(error);
        }
      });
      child.once('spawn', () => {
        spawned = true;
        if (this.#state === 'starting') this.#state = 'open';
        resolve();
      });
    });
  }

  /**
   * Writes one message (or batch, or pre-serialized JSON text without line breaks) to the
   * child's stdin as one line, in call order, waiting for 'drain' under backpressure.
   * Rejects with `LocalError('not_connected')` before `start()`, `connection_closed` once
   * `close()` was called or the child exited, and `invalid_message` for a message that
   * cannot be encoded. Never throws.
   */
  send(message: JSONRPCMessage | JSONRPCMessage[] | string, _options?: SendOptions): Promise<void> {
    const state = this.#state;
    if (state !== 'open' && state !== 'starting') {
      return Promise.reject(
        state === 'new' ? new LocalError('not_connected', 'Transport not started') : new LocalError('connection_closed', 'Transport is closed'),
      );
    }
    let line: string;
    try {
      line = encodeLine(message);
    } catch (error) {
      return Promise.reject(error);
    }
    this.#corkForTurn();
    return this.#writer!.write(line, isReply(message));
  }

  #corkForTurn(): void {
    if (this.#corked) return;
    const stdin = this.#child?.stdin;
    if (!stdin || stdin.destroyed || stdin.writableEnded) return;
    this.#corked = true;
    stdin.cork();
    process.nextTick(this.#uncork);
  }

  /**
   * Shuts the server down the way the spec asks: writes any messages still queued, closes
   * its stdin, waits `stdinMs` for it to exit, then sends SIGTERM, waits `termMs`, then
   * SIGKILL. Resolves once the child has exited and `receiver.closed()` has fired (with no
   * error: this exit was asked for). Idempotent: every call returns the same promise.
   * Never rejects.
   */
  close(): Promise<void> {
    this.#closePromise ??= this.#shutdown();
    return this.#closePromise;
  }

  async #shutdown(): Promise<void> {
    this.#closeRequested = true;
    if (this.#state === 'new') {
      this.#state = 'closed';
      this.#stderrCopy?.end();
      return;
    }
    if (this.#state === 'closed') return;
    this.#state = 'closing';
    const child = this.#child!;
    this.#writer!.flush();
    child.stdin!.end();
    if (await this.#waitForExit(this.#stdinMs)) return this.#afterExit(child);
    this.#kill(child, 'SIGTERM');
    if (await this.#waitForExit(this.#termMs)) return this.#afterExit(child);
    this.#kill(child, 'SIGKILL');
    // SIGKILL cannot be ignored; the bound only guards against a kill that failed outright.
    if (await this.#waitForExit(Math.max(this.#termMs, 1000))) return this.#afterExit(child);
    this.#finish(undefined);
  }

  /** The child exited during `close()`: end what is left of its group, then wait for `closed`. */
  async #afterExit(child: ChildProcess): Promise<void> {
    const pid = child.pid;
    if (OWN_GROUP && pid !== undefined && groupAlive(pid)) {
      signalGroup(pid, 'SIGTERM');
      const deadline = Date.now() + this.#termMs;
      while (groupAlive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, GROUP_POLL_MS));
      if (groupAlive(pid)) signalGroup(pid, 'SIGKILL');
    }
    if (pid !== undefined) unwatchGroup(pid);
    return this.#waitForFinish();
  }

  /** Signals the child's process group (POSIX), or the child alone. */
  #kill(child: ChildProcess, signal: NodeJS.Signals): void {
    try {
      if (OWN_GROUP && child.pid !== undefined) signalGroup(child.pid, signal);
      else child.kill(signal);
    } catch (error) {
      this.#reportError(error);
    }
  }

  /** Resolves true when the child has exited (or the transport finished), false after `ms`. */
  #waitForExit(ms: number): Promise<boolean> {
    if (this.#exit !== undefined || this.#state === 'closed') return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        const i = this.#exitWaiters.indexOf(waiter);
        if (i !== -1) this.#exitWaiters.splice(i, 1);
        resolve(false);
      }, ms);
      this.#exitWaiters.push(waiter);
    });
  }

  /** After the exit: resolves once `closed` has fired (bounded by the exit grace). */
  async #waitForFinish(): Promise<void> {
    if (this.#state === 'closed') return;
    await new Promise<void>((resolve) => this.#exitWaiters.push(resolve));
  }

  #wakeExitWaiters(): void {
    const waiters = this.#exitWaiters;
    this.#exitWaiters = [];
    for (const waiter of waiters) waiter();
  }

  #onExit(code: number | null, signal: NodeJS.Signals | null): void {
    this.#exit = { code, signal };
    // The child reads no more: if its stdout was paused under pressure, drain it now.
    this.#child?.stdout?.resume();
    this.#exitExpected = this.#closeRequested;
    this.#wakeExitWaiters();
    if (this.#stdoutDone && this.#stderrDone) {
      this.#finishAfterExit();
      return;
    }
    // Let the pipes deliver their last bytes (a final response, the last stderr lines),
    // but do not wait for a grandchild that may hold them open.
    this.#graceTimer = setTimeout(() => this.#finishAfterExit(), EXIT_GRACE_MS);
  }

  #maybeFinishAfterExit(): void {
    if (this.#exit !== undefined && this.#stdoutDone && this.#stderrDone) this.#finishAfterExit();
  }

  #finishAfterExit(): void {
    if (this.#state === 'closed') return;
    const exit = this.#exit!;
    if (this.#exitExpected) {
      this.#finish(undefined);
      return;
    }
    const how = exit.signal !== null ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
    this.#finish(new ProcessExitedError(`MCP server process "${this.#command}" ${how}${this.#stderrForMessage()}`, exit.code, exit.signal, this.#tail.text()));
  }

  #startFailure(error: unknown): ProcessExitedError {
    const reason = error instanceof Error ? error.message : String(error);
    return new ProcessExitedError(`MCP server process "${this.#command}" could not be started: ${reason}`, null, null, this.#tail.text(), { cause: error });
  }

  #stderrForMessage(): string {
    const tail = this.#tail.text().trimEnd();
    if (tail.length === 0) return '';
    const shown = tail.length > STDERR_IN_MESSAGE ? '…' + tail.slice(tail.length - STDERR_IN_MESSAGE) : tail;
    return `; stderr:\n${shown}`;
  }

  /** Ends the connection: fires `receiver.closed(reason)` exactly once and releases the pipes. */
  #finish(reason: Error | undefined): void {
    if (this.#state === 'closed' || this.#finishing) return;
    this.#finishing = true;
    if (this.#graceTimer !== undefined) clearTimeout(this.#graceTimer);
    // A final message without a line terminator is still a message: deliver it first.
    this.#decoder.push(this.#text.end());
    this.#decoder.end();
    this.#state = 'closed';
    if (this.#child?.pid !== undefined) unwatchGroup(this.#child.pid);
    this.#writer?.fail(new LocalError('connection_closed', 'Transport is closed', reason === undefined ? undefined : { cause: reason }));
    const child = this.#child;
    if (child) {
      child.stdout!.off('data', this.#onStdout);
      child.stdout!.destroy();
      child.stdin!.destroy();
      child.stderr?.off('data', this.#onStderr);
      child.stderr?.destroy();
    }
    this.#stderrCopy?.end();
    const receiver = this.#receiver;
    this.#wakeExitWaiters();
    try {
      receiver?.closed(reason);
    } catch {
      // A receiver must not throw; if it does, there is nobody left to tell.
    }
  }

  #sink(): NdjsonSink {
    return {
      line: (text: string): void => {
        if (this.#state === 'closed') return;
        let first = text.charCodeAt(0);
        if (first <= 0x20) first = text.trimStart().charCodeAt(0);
        if (first !== 0x7b /* { */ && first !== 0x5b /* [ */) {
          const preview = text.length > GARBAGE_PREVIEW ? text.slice(0, GARBAGE_PREVIEW) + '…' : text;
          this.#reportError(new LocalError('invalid_message', `Skipped a line from the server's stdout that is not JSON: ${JSON.stringify(preview)}`));
          return;
        }
        try {
          this.#receiver!.message(text);
        } catch (error) {
          this.#reportError(error);
        }
      },
      oversized: (error: OversizedLineError): void => {
        if (this.#state !== 'closed') this.#reportError(error);
      },
      // a discarded response whose id the scan recovered fails its request at once
      oversizedEnd: (envelope: EnvelopeSummary): void => {
        if (this.#state === 'closed') return;
        const discarded = discardedResponse(envelope, `exceeds the ${this.#decoder.maxLineBytes}-byte line limit (maxLineBytes)`);
        if (discarded !== undefined) this.#reportError(discarded);
      },
    };
  }

  #reportError(error: unknown): void {
    try {
      this.#receiver?.error(toError(error));
    } catch {
      // See #finish.
    }
  }
}

/**
 * Whether an outgoing message answers the peer (a response, an error response, or a batch
 * holding one): only those count towards the pressure bound. Pre-serialized text is counted
 * too, since it cannot be told apart cheaply.
 */
function isReply(message: JSONRPCMessage | JSONRPCMessage[] | string): boolean {
  if (typeof message === 'string') return true;
  if (Array.isArray(message)) return message.some((item) => !('method' in item));
  return !('method' in message);
}

/** Whether children get their own process group (POSIX: `detached`; Windows has no groups to signal). */
const OWN_GROUP = process.platform !== 'win32';
/** How often `close()` looks whether a signalled group is gone. */
const GROUP_POLL_MS = 20;
const FORWARDED: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
/** Process groups of running children (their leaders' pids). */
const groups = new Set<number>();

/** Sends `signal` to process group `pid`; false when the group is gone. */
function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

function groupAlive(pid: number): boolean {
  return signalGroup(pid, 0);
}

/**
 * A terminal's Ctrl-C (or a SIGTERM/SIGHUP to this process) reaches detached children only
 * through us: forward it to every group. When this listener is the only one for the signal,
 * the application did not ask to handle it: remove the listener and send the signal to
 * ourselves again, so the process ends by it exactly as it would have without us.
 */
function forwardSignal(signal: NodeJS.Signals): void {
  for (const pid of groups) signalGroup(pid, signal);
  if (process.listenerCount(signal) === 1) {
    for (const s of FORWARDED) process.off(s, forwardSignal);
    process.kill(process.pid, signal);
  }
}

function watchGroup(pid: number): void {
  if (groups.size === 0) for (const signal of FORWARDED) process.on(signal, forwardSignal);
  groups.add(pid);
}

function unwatchGroup(pid: number): void {
  if (!groups.delete(pid) || groups.size > 0) return;
  for (const signal of FORWARDED) process.off(signal, forwardSignal);
}

function checkDelay(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a non-negative number of milliseconds, got ${value}`);
  return value;
}

/** A fixed-size ring holding the last `capacity` bytes written to it; allocated on first use. */
class StderrRing {
  readonly #capacity: number;
  #ring: Uint8Array | null = null;
  #pos = 0;
  #full = false;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  add(chunk: Uint8Array): void {
    const cap = this.#capacity;
    const ring = (this.#ring ??= new Uint8Array(cap));
    const n = chunk.byteLength;
    if (n >= cap) {
      ring.set(chunk.subarray(n - cap));
      this.#pos = 0;
      this.#full = true;
      return;
    }
    const first = Math.min(n, cap - this.#pos);
    ring.set(chunk.subarray(0, first), this.#pos);
    if (first < n) {
      ring.set(chunk.subarray(first), 0);
      this.#pos = n - first;
      this.#full = true;
    } else {
      this.#pos += first;
      if (this.#pos === cap) {
        this.#pos = 0;
        this.#full = true;
      }
    }
  }

  text(): string {
    const ring = this.#ring;
    if (ring === null) return '';
    let bytes: Uint8Array;
    if (!this.#full) bytes = ring.subarray(0, this.#pos);
    else {
      bytes = new Uint8Array(this.#capacity);
      bytes.set(ring.subarray(this.#pos));
      bytes.set(ring.subarray(0, this.#pos), this.#capacity - this.#pos);
      // The oldest bytes may start in the middle of a character: skip continuation bytes.
      let start = 0;
      while (start < 3 && start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start++;
      bytes = bytes.subarray(start);
    }
    return new TextDecoder().decode(bytes);
  }
}
