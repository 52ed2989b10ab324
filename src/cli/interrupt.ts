/**
 * Ctrl-C for the client commands: the first one aborts {@link Interrupt.signal} (the running
 * request is cancelled with `notifications/cancelled`, a running task with `tasks/cancel`)
 * and the command exits with 130 after a clear line; a second one exits at once.
 */
import { ExitCode } from './exit-codes.js';

/** The reason {@link Interrupt.signal} aborts with. */
export class InterruptedError extends Error {
  constructor() {
    super('interrupted by Ctrl-C');
    this.name = 'InterruptedError';
  }
}

/** One command's Ctrl-C handling; `dispose()` removes the handlers. */
export class Interrupt {
  readonly #controller = new AbortController();
  readonly #onSigint = () => this.trigger();

  constructor() {
    process.on('SIGINT', this.#onSigint);
    process.on('SIGTERM', this.#onSigint);
  }

  /** Aborts when the user pressed Ctrl-C. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** True once interrupted. */
  get interrupted(): boolean {
    return this.#controller.signal.aborted;
  }

  /** Interrupts (what SIGINT does; also called by a question's Ctrl-C). A second call exits the process at once. */
  trigger(): void {
    if (this.#controller.signal.aborted) {
      process.stderr.write('\nmcpkit: interrupted again; exiting without waiting\n');
      process.exit(ExitCode.Interrupted);
    }
    this.#controller.abort(new InterruptedError());
  }

  dispose(): void {
    process.off('SIGINT', this.#onSigint);
    process.off('SIGTERM', this.#onSigint);
  }
}
