/**
 * Readable JSON-RPC transcript tests: play one side of a connection as a list of steps —
 * send this, expect that — against a peer under test.
 *
 * Design note: the first run on a transport starts it and keeps an inbox for it (held in a
 * `WeakMap`), so later runs on the same transport continue where the previous one stopped
 * and messages that arrived early wait for the step that expects them. Every message in
 * either direction is logged as it happens; a failing step throws an `AssertionError`
 * whose message carries that log. Expectations are partial: an object expectation names
 * only the keys it cares about (arrays match element by element and by length; a key
 * whose expected value is `undefined` must be absent; a function anywhere is a predicate
 * that rejects by throwing or returning `false`).
 */
import { AssertionError } from 'node:assert';
import type { JSONRPCMessage } from '../../src/jsonrpc/types.js';
import { isObject } from '../../src/jsonrpc/values.js';
import { formatWireLine } from '../../src/testing/recording-transport.js';
import type { WireSide } from '../../src/testing/wire-schema.js';
import type { Transport, TransportReceiver } from '../../src/transport/types.js';

/** A partial pattern for a received message, or a function that throws (or returns `false`) to reject it. */
export type Expectation = unknown;

/** One step of a transcript. */
export type TranscriptStep =
  /** Sends a message (an object, a batch array, or raw text). */
  | { send: unknown }
  /** The next received message must match. */
  | { expect: Expectation; timeoutMs?: number }
  /** The next `n` received messages must match these `n` expectations, in any order. */
  | { expectAnyOrder: Expectation[]; timeoutMs?: number }
  /** No message may arrive during this many milliseconds. */
  | { expectSilence: number };

/** Options of {@link runTranscript}. */
export interface TranscriptOptions {
  /** Default per-step timeout of `expect` steps, in ms (2000). */
  timeoutMs?: number;
  /** The side the transcript plays, for the log arrows (`client`: sends are `C→S`). */
  side?: WireSide;
}

/** What a successful run returns. */
export interface TranscriptResult {
  /** The messages consumed by `expect`/`expectAnyOrder` steps, in arrival order. */
  received: unknown[];
  /** The log of this transport so far, one line per message. */
  transcript: string;
}

const DEFAULT_TIMEOUT_MS = 2000;
const TIMED_OUT = Symbol('timed out');
const CLOSED = Symbol('closed');

/** The received-message queue of one transport. */
class Inbox {
  readonly lines: string[] = [];
  readonly queue: unknown[] = [];
  closed: string | undefined;
  side: WireSide;
  #wake: (() => void) | undefined;

  constructor(side: WireSide) {
    this.side = side;
  }

  readonly receiver: TransportReceiver = {
    message: (data) => {
      let message = data;
      if (typeof data === 'string') {
        try {
          message = JSON.parse(data);
        } catch {
          message = data;
        }
      }
      this.lines.push(formatWireLine(this.side, 'recv', message));
      this.queue.push(message);
      this.#notify();
    },
    error: (error) => {
      this.lines.push(`!! transport error: ${error.message}`);
    },
    closed: (reason) => {
      this.closed = reason === undefined ? 'connection closed' : `connection closed: ${reason.message}`;
      this.lines.push(`!! ${this.closed}`);
      this.#notify();
    },
  };

  /** The next message, or a marker when `ms` pass or the connection closes first. */
  next(ms: number): Promise<unknown> {
    if (this.queue.length > 0) return Promise.resolve(this.queue.shift());
    if (this.closed !== undefined) return Promise.resolve(CLOSED);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#wake = undefined;
        resolve(TIMED_OUT);
      }, ms);
      this.#wake = () => {
        clearTimeout(timer);
        this.#wake = undefined;
        resolve(this.queue.length > 0 ? this.queue.shift() : CLOSED);
      };
    });
  }

  #notify(): void {
    this.#wake?.();
  }
}

const inboxes = new WeakMap<Transport, Inbox>();

/**
 * Runs `steps` in order on `transport`, which must be connected to the peer under test.
 * The first call for a transport starts it (so do not start it yourself); later calls
 * reuse it. Calls on one transport must not overlap. Resolves with the consumed messages;
 * rejects with an `AssertionError` naming the failing step and printing the transcript
 * when an expectation fails, a step times out, the connection closes, or a send fails.
 */
export async function runTranscript(transport: Transport, steps: readonly TranscriptStep[], options: TranscriptOptions = {}): Promise<TranscriptResult> {
  const side = options.side ?? 'client';
  let inbox = inboxes.get(transport);
  if (inbox === undefined) {
    inbox = new Inbox(side);
    inboxes.set(transport, inbox);
    await transport.start(inbox.receiver);
  }
  inbox.side = side;
  const box = inbox;
  const received: unknown[] = [];
  const defaultTimeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const fail = (index: number, what: string, detail: string): never => {
    throw new AssertionError({
      message: `transcript step ${index + 1} of ${steps.length} (${what}) failed: ${detail}\n--- transcript so far ---\n${box.lines.join('\n')}`,
    });
  };

  for (const [index, step] of steps.entries()) {
    if ('send' in step) {
      box.lines.push(formatWireLine(side, 'send', step.send));
      try {
        await transport.send(step.send as JSONRPCMessage);
      } catch (e) {
        fail(index, 'send', `send rejected: ${(e as Error).message}`);
      }
    } else if ('expect' in step) {
      const ms = step.timeoutMs ?? defaultTimeout;
      const message = await box.next(ms);
      if (message === TIMED_OUT) fail(index, 'expect', `no message within ${ms} ms; expected ${show(step.expect)}`);
      if (message === CLOSED) fail(index, 'expect', `${box.closed}; expected ${show(step.expect)}`);
      const mismatch = match(step.expect, message, '$');
      if (mismatch !== undefined) fail(index, 'expect', `${mismatch}\n  expected ${show(step.expect)}\n  received ${show(message)}`);
      received.push(message);
    } else if ('expectAnyOrder' in step) {
      const expectations = step.expectAnyOrder;
      const ms = step.timeoutMs ?? defaultTimeout;
      const deadline = Date.now() + ms;
      const got: unknown[] = [];
      while (got.length < expectations.length) {
        const message = await box.next(Math.max(0, deadline - Date.now()));
        if (message === TIMED_OUT || message === CLOSED) {
          const why = message === CLOSED ? box.closed : `only ${got.length} of ${expectations.length} messages within ${ms} ms`;
          fail(index, 'expectAnyOrder', `${why}; expected (any order) ${show(expectations)}`);
        }
        got.push(message);
      }
      const unmatched = assign(expectations, got);
      if (unmatched.length > 0) {
        fail(index, 'expectAnyOrder', `no match for ${unmatched.map((i) => show(expectations[i])).join(', ')}\n  received ${show(got)}`);
      }
      received.push(...got);
    } else {
      const ms = step.expectSilence;
      const message = await box.next(ms);
      if (message !== TIMED_OUT && message !== CLOSED) fail(index, 'expectSilence', `received ${show(message)} within ${ms} ms`);
    }
  }
  return { received, transcript: box.lines.join('\n') };
}

/**
 * Partial deep match of `actual` against `expected` (rules in the module note). Returns
 * `undefined` on a match, else a description of the first difference at a JSONPath-like
 * location. Never throws (a throwing predicate is a mismatch).
 */
export function match(expected: Expectation, actual: unknown, path = '$'): string | undefined {
  if (typeof expected === 'function') {
    try {
      return (expected as (value: unknown) => unknown)(actual) === false ? `${path}: rejected by predicate` : undefined;
    } catch (e) {
      return `${path}: ${(e as Error).message}`;
    }
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${path}: expected an array, got ${show(actual)}`;
    if (actual.length !== expected.length) return `${path}: expected ${expected.length} elements, got ${actual.length}`;
    for (let i = 0; i < expected.length; i++) {
      const d = match(expected[i], actual[i], `${path}[${i}]`);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  if (typeof expected === 'object' && expected !== null) {
    if (!isObject(actual)) return `${path}: expected an object, got ${show(actual)}`;
    const a = actual as Record<string, unknown>;
    for (const key of Object.keys(expected)) {
      const want = (expected as Record<string, unknown>)[key];
      const at = `${path}.${key}`;
      if (want === undefined) {
        if (Object.hasOwn(a, key) && a[key] !== undefined) return `${at}: expected absent, got ${show(a[key])}`;
        continue;
      }
      if (!Object.hasOwn(a, key) && typeof want !== 'function') return `${at}: missing`;
      const d = match(want, Object.hasOwn(a, key) ? a[key] : undefined, at);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  if (expected === actual || (Number.isNaN(expected) && Number.isNaN(actual))) return undefined;
  return `${path}: expected ${show(expected)}, got ${show(actual)}`;
}

/** Indices of expectations left unmatched by a maximum one-to-one matching (Kuhn's algorithm). */
function assign(expectations: readonly Expectation[], messages: readonly unknown[]): number[] {
  const fits = expectations.map((e) => messages.map((m) => match(e, m) === undefined));
  const owner: number[] = new Array<number>(messages.length).fill(-1);
  const augment = (e: number, seen: boolean[]): boolean => {
    for (let m = 0; m < messages.length; m++) {
      if (!fits[e]![m] || seen[m]) continue;
      seen[m] = true;
      if (owner[m] === -1 || augment(owner[m]!, seen)) {
        owner[m] = e;
        return true;
      }
    }
    return false;
  };
  const unmatched: number[] = [];
  for (let e = 0; e < expectations.length; e++) if (!augment(e, new Array<boolean>(messages.length).fill(false))) unmatched.push(e);
  return unmatched;
}

function show(value: unknown): string {
  if (typeof value === 'function') return '<predicate>';
  try {
    return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'function' ? '<predicate>' : v)) ?? String(value);
  } catch {
    return String(value);
  }
}
