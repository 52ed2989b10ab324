/**
 * Asking the person at the terminal: one question at a time on stderr, answers read from
 * stdin. Only used when stdin is a TTY; without one, callers decline instead of waiting for
 * input that will never come. Ctrl-C while a question is open interrupts the command the
 * same way as Ctrl-C anywhere else (see interrupt.ts).
 */
import { createInterface } from 'node:readline/promises';

/** Asks questions; `close()` gives the terminal back. */
export interface Asker {
  /** Shows `question` and resolves with the answer line (without the newline). Rejects when interrupted. */
  ask(question: string): Promise<string>;
  /** Writes a line of information. */
  say(text: string): void;
  close(): void;
}

/** True when there is a person to ask: stdin is a TTY. */
export function canAsk(): boolean {
  return process.stdin.isTTY === true;
}

/**
 * An {@link Asker} on stdin/stderr. `onInterrupt` runs when Ctrl-C is pressed at a question
 * (the terminal is in raw mode then, so no SIGINT reaches the process); the open question
 * rejects.
 */
export function terminalAsker(onInterrupt: () => void): Asker {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  const controller = new AbortController();
  rl.on('SIGINT', () => {
    controller.abort(new Error('interrupted'));
    onInterrupt();
  });
  return {
    ask: (question) => rl.question(question, { signal: controller.signal }),
    say: (text) => process.stderr.write(`${text}\n`),
    close: () => rl.close(),
  };
}
