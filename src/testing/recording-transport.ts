/**
 * A transport wrapper for tests: records every message in both directions and checks each
 * message this side sent against the official schema of the revision in force when it was
 * sent.
 *
 * Design note: recording is cheap (parse text back to JSON, note ids); schema checks run
 * lazily in {@link RecordingTransport.violations}, using the revision and the answered
 * request captured at send time. Which revision a message is checked under:
 * - a request that names its revision — `initialize` through `params.protocolVersion`, a
 *   2026-era request through `params._meta["io.modelcontextprotocol/protocolVersion"]` —
 *   uses that revision when a schema for it exists;
 * - a response uses the revision of the request it answers, and an `initialize` result
 *   the revision it negotiates (`result.protocolVersion`); a message sent with
 *   `relatedRequestId` uses the revision of that request when it named one;
 * - anything else uses `opts.revision()`, and {@link DEFAULT_STATEFUL_REVISION} while that
 *   returns `undefined` (before negotiation).
 * Request ids are tracked per direction (ours, the peer's) so that a result is checked
 * as the result of the method it answers; an id is forgotten once answered, since ids
 * may be reused after completion.
 */
import { AssertionError } from 'node:assert';
import { isRequestId, type RequestId } from '../jsonrpc/types.js';
import { isObject } from '../jsonrpc/values.js';
import type { MessageInfo, SendOptions, Transport, TransportReceiver } from '../transport/types.js';
import { type AnsweredRequest, DEFAULT_STATEFUL_REVISION, hasRevisionSchema, validateWireMessage, type WireSide } from './wire-schema.js';

/** One recorded message. */
export interface TranscriptEntry {
  /** `send`: this side emitted it; `recv`: the peer did. */
  readonly dir: 'send' | 'recv';
  /** The message as JSON (text is parsed back); the raw text when it was not JSON. */
  readonly message: unknown;
  /** The revision the message is checked under (see the module note). */
  readonly revision: string;
}

/** Options of {@link recordTransport}. */
export interface RecordOptions {
  /** The revision in force right now; `undefined` before negotiation. Called on every message. */
  revision: () => string | undefined;
  /** Which side of the connection the wrapped transport belongs to. */
  side: WireSide;
}

/** Options of {@link RecordingTransport.formatTranscript}. */
export interface FormatOptions {
  /** Lines longer than this are cut and end with `…`. Unlimited by default. */
  maxLineLength?: number;
}

const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';

interface Pending extends AnsweredRequest {
  /** The revision the request named, when it named one that has a schema. */
  named?: string;
}

interface Check {
  entry: TranscriptEntry;
  sender: WireSide;
  requests: Map<RequestId, AnsweredRequest>;
  problems: string[];
  result?: string[];
}

/**
 * Wraps `inner` so that everything crossing it is recorded (see {@link RecordingTransport}).
 * Called by tests around either end of a connection before it is started. Never throws.
 */
export function recordTransport(inner: Transport, opts: RecordOptions): RecordingTransport {
  return new RecordingTransport(inner, opts);
}

/**
 * The wrapping transport returned by {@link recordTransport}. It behaves exactly like the
 * inner transport (same delivery, same errors); recording happens before a message is
 * handed on. Not meant for concurrent use from several event loops (there is one).
 */
export class RecordingTransport implements Transport {
  /** Every message, in the order this side sent or received it. Read-only for callers. */
  readonly transcript: TranscriptEntry[] = [];
  #inner: Transport;
  #opts: RecordOptions;
  #checks: Check[] = [];
  #ours = new Map<RequestId, Pending>();
  #theirs = new Map<RequestId, Pending>();

  constructor(inner: Transport, opts: RecordOptions) {
    this.#inner = inner;
    this.#opts = opts;
  }

  /** This object itself, so that `const { transport, transcript } = recordTransport(…)` works. */
  get transport(): Transport {
    return this;
  }

  /** The inner transport's session id. */
  /** Passes the negotiated revision on (HTTP transports send it as a header). */
  setProtocolVersion(version: string): void {
    this.#inner.setProtocolVersion?.(version);
  }

  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  get network(): Transport['network'] {
    return this.#inner.network;
  }

  /** Starts the inner transport with a receiver that records, then forwards, each event. */
  start(receiver: TransportReceiver): Promise<void> | void {
    return this.#inner.start({
      message: (data: string | unknown, info?: MessageInfo) => {
        this.#record('recv', data);
        receiver.message(data, info);
      },
      error: (error: Error) => receiver.error(error),
      closed: (reason?: Error) => receiver.closed(reason),
    });
  }

  /** Records `message`, then sends it through the inner transport (rejecting as it does). */
  send(message: Parameters<Transport['send']>[0], options?: SendOptions): Promise<void> | void {
    this.#record('send', message, options?.relatedRequestId);
    return this.#inner.send(message, options);
  }

  /** Closes the inner transport. */
  close(): Promise<void> {
    return this.#inner.close();
  }

  /**
   * Every schema violation among the messages this side sent, each line naming the message
   * number, direction and revision, e.g. `#3 S→C [2025-11-25] tools/call result
   * (CallToolResult): /result must have required property 'content'`. Also reports sent
   * text that is not JSON and responses to ids no received request carried.
   */
  violations(): string[] {
    return this.#collect('send');
  }

  /** The same checks as {@link violations}, applied to what the peer sent. */
  peerViolations(): string[] {
    return this.#collect('recv');
  }

  /**
   * Throws an `AssertionError` listing every violation of {@link violations} followed by
   * the transcript; returns normally when there is none.
   */
  assertNoViolations(): void {
    const found = this.violations();
    if (found.length === 0) return;
    throw new AssertionError({
      message: `${found.length} schema violation(s) in sent messages:\n${found.join('\n')}\n--- transcript ---\n${this.formatTranscript({ maxLineLength: 2000 })}`,
    });
  }

  /** The transcript as lines such as `C→S {"jsonrpc":"2.0",…}`, joined by newlines. */
  formatTranscript(options: FormatOptions = {}): string {
    return this.transcript.map((e) => formatWireLine(this.#opts.side, e.dir, e.message, options.maxLineLength)).join('\n');
  }

  #collect(dir: 'send' | 'recv'): string[] {
    const out: string[] = [];
    this.#checks.forEach((check, index) => {
      if (check.entry.dir !== dir) return;
      if (check.result === undefined) {
        let errors: string[];
        try {
          errors =
            typeof check.entry.message === 'string' && check.problems.length > 0
              ? []
              : validateWireMessage(check.entry.revision, check.entry.message, { sender: check.sender, requests: check.requests });
        } catch (e) {
          errors = [`cannot validate: ${(e as Error).message}`];
        }
        check.result = [...check.problems, ...errors];
      }
      const prefix = `#${index + 1} ${arrow(this.#opts.side, dir)} [${check.entry.revision}] `;
      for (const line of check.result) out.push(prefix + line);
    });
    return out;
  }

  #current(): string {
    return this.#opts.revision() ?? DEFAULT_STATEFUL_REVISION;
  }

  #record(dir: 'send' | 'recv', data: unknown, related?: RequestId): void {
    const problems: string[] = [];
    let message = data;
    if (typeof data === 'string') {
      try {
        message = JSON.parse(data);
      } catch {
        problems.push(`${dir === 'send' ? 'sent' : 'received'} text is not valid JSON`);
      }
    }
    const requests = new Map<RequestId, AnsweredRequest>();
    let revision: string | undefined;
    if (problems.length === 0) {
      if (Array.isArray(message)) for (const item of message) revision ??= this.#track(dir, item, requests, problems);
      else revision = this.#track(dir, message, requests, problems);
    }
    // A message sent on behalf of a peer request (progress, logs) follows that request's revision.
    revision ??= related === undefined ? undefined : this.#theirs.get(related)?.named;
    const entry: TranscriptEntry = { dir, message, revision: revision ?? this.#current() };
    this.transcript.push(entry);
    const mine = this.#opts.side;
    this.#checks.push({ entry, sender: dir === 'send' ? mine : mine === 'client' ? 'server' : 'client', requests, problems });
  }

  /** Notes ids and methods of one message; returns the revision it is checked under. */
  #track(dir: 'send' | 'recv', item: unknown, requests: Map<RequestId, AnsweredRequest>, problems: string[]): string | undefined {
    if (!isObject(item)) return undefined;
    const m = item as Record<string, unknown>;
    const id = m['id'];
    if (typeof m['method'] === 'string') {
      if (!('id' in m)) return undefined;
      const params = asObject(m['params']);
      const named = namedRevision(m['method'] === 'initialize' ? params?.['protocolVersion'] : asObject(params?.['_meta'])?.[META_PROTOCOL_VERSION]);
      if (isRequestId(id)) {
        const pending: Pending = { method: m['method'], taskAugmented: asObject(params?.['task']) !== undefined };
        if (named !== undefined) pending.named = named;
        (dir === 'send' ? this.#ours : this.#theirs).set(id, pending);
      }
      return named;
    }
    if (!('result' in m) && !('error' in m)) return undefined;
    if (!isRequestId(id)) return undefined;
    const table = dir === 'send' ? this.#theirs : this.#ours;
    const pending = table.get(id);
    if (pending === undefined) {
      problems.push(`response to id ${JSON.stringify(id)}, which no ${dir === 'send' ? 'received' : 'sent'} request carries (or it was answered already)`);
      return undefined;
    }
    table.delete(id);
    requests.set(id, { method: pending.method, taskAugmented: pending.taskAugmented });
    if (pending.method === 'initialize') {
      const negotiated = namedRevision(asObject(m['result'])?.['protocolVersion']);
      if (negotiated !== undefined) return negotiated;
    }
    return pending.named;
  }
}

/**
 * One transcript line: `C→S` or `S→C` (seen from `side`, sending when `dir` is `send`),
 * then the message as compact JSON (text that is not JSON is shown quoted), cut to
 * `maxLength` characters when given. Never throws.
 */
export function formatWireLine(side: WireSide, dir: 'send' | 'recv', message: unknown, maxLength?: number): string {
  let json: string;
  try {
    json = JSON.stringify(message) ?? String(message);
  } catch {
    json = String(message);
  }
  const line = `${arrow(side, dir)} ${json}`;
  return maxLength !== undefined && line.length > maxLength ? line.slice(0, Math.max(0, maxLength - 1)) + '…' : line;
}

function arrow(side: WireSide, dir: 'send' | 'recv'): string {
  return (side === 'client') === (dir === 'send') ? 'C→S' : 'S→C';
}

function namedRevision(value: unknown): string | undefined {
  return typeof value === 'string' && hasRevisionSchema(value) ? value : undefined;
}

function asObject(value: unknown): Record<string, unknown> | undefined {
  return isObject(value) ? value : undefined;
}
