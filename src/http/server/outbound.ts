/**
 * Bounded outbound memory for HTTP replies: a writer that hands a reply to its output in
 * slices as the output drains, and a budget shared by many writers.
 *
 * Design note: the core serializes each message once, to a string, before any adapter sees
 * it; that string is the one copy an adapter cannot avoid holding. A {@link PacedWriter}
 * keeps the strings it was given in a queue and hands its output slices of at most
 * {@link SLICE_CHARS} characters — `String.prototype.slice` of a flat string shares its
 * characters, so nothing is copied whole — and only while the output accepts more
 * (`write()` returning true; after false, until the adapter calls {@link PacedWriter.drained}).
 * So beyond the strings themselves an output holds one slice plus its own high-water mark.
 * Three limits cut a reader that keeps text waiting (reported as a {@link SlowReaderError}):
 * - per connection, time: no drain progress for `stallTimeoutMs` while text waits;
 * - per connection, size: a new message arrives while more than `maxQueuedBytes` wait
 *   (checked before the message is queued, so one message larger than the limit is still
 *   sent — it costs nothing beyond its string — but a reader cannot fall further behind);
 * - per process (or per {@link OutboundBudget} shared by several listeners), before a reply
 *   is serialized: a new reply larger than a slice that would take the text waiting across
 *   all the budget's writers past a third of `maxTotalQueuedBytes` is refused, and a small
 *   JSON-RPC error sent for it instead (see {@link budgetRefusal}), so the readers already
 *   behind keep their replies. The session transport asks
 *   {@link OutboundBudget.refusesUnserialized} with the response's result before making its
 *   text (one comparison while nothing waits; else a measure of a lower bound of its JSON
 *   length, {@link jsonLengthAtLeast}, that stops once the reply cannot fit), so a refused
 *   reply costs only the handler's result; the Node adapter checks the text again
 *   ({@link OutboundBudget.admits}) for a reply the measure underestimated (escapes, long
 *   numbers, `toJSON`) and for text other than one response. The other two thirds are
 *   headroom for the copies an admitted reply takes while it is produced (the handler's
 *   result, its JSON text, its SSE framing: up to four times its size, until collected), so
 *   the memory slow readers make the process hold stays under `maxTotalQueuedBytes` while no
 *   single reply is larger than a sixth of it. A reply is
 *   never refused while nothing waits (one larger than the whole bound is then cut, below). Text that still crosses the whole bound
 *   (events added to streams already under way) cuts the writers that went longest without
 *   drain progress until the total is back within it.
 * Sizes are counted in UTF-16 code units of queued text: for the JSON MCP sends (mostly
 * ASCII) about its UTF-8 size, and what the strings occupy in memory. Runtime-neutral.
 */

/** The default `maxQueuedBytes`: text one connection may keep waiting before a new message cuts it (16 MiB). */
export const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;
/** The default `stallTimeoutMs`: how long text may wait without any drain progress (30 s). */
export const DEFAULT_STALL_TIMEOUT_MS = 30_000;
/** The default size of the process-wide {@link OutboundBudget} (256 MiB). */
export const DEFAULT_MAX_TOTAL_QUEUED_BYTES = 256 * 1024 * 1024;
/** The share of `maxTotalQueuedBytes` new replies may fill; the rest is headroom for replies being produced (see the module note). */
const ADMITTED_SHARE = 1 / 3;
/** Largest slice handed to an output in one `write()`, in UTF-16 code units (64 Ki). */
export const SLICE_CHARS = 64 * 1024;

/**
 * Why a {@link PacedWriter} cut its reader (`stalled`, `behind`, `budget`), or, for
 * `refused`, why a reply was not sent: it did not fit in the {@link OutboundBudget} (the
 * reader was not cut; it got a JSON-RPC error in place of the reply).
 */
export type SlowReaderReason = 'stalled' | 'behind' | 'budget' | 'refused';

/**
 * A reader was disconnected for not reading its replies, or a reply was refused because
 * others' unread replies filled the budget (`code` is always `slow_reader`; `reason` says
 * which limit it crossed). Reported through the adapter's `onError`; never sent to anyone.
 */
export class SlowReaderError extends Error {
  readonly code = 'slow_reader';
  readonly reason: SlowReaderReason;
  constructor(reason: SlowReaderReason, message: string) {
    super(message);
    this.name = 'SlowReaderError';
    this.reason = reason;
  }
}

/** The limits of one reply's writer; see the module note. */
export interface OutboundOptions {
  /**
   * Text (UTF-16 code units) one connection may keep waiting; a message that arrives while
   * more waits cuts the connection. Default {@link MAX_BUFFERED_BYTES} (16 MiB).
   */
  maxQueuedBytes?: number;
  /**
   * How long text may wait with no drain progress before the connection is cut, in ms.
   * Default {@link DEFAULT_STALL_TIMEOUT_MS} (30 s).
   */
  stallTimeoutMs?: number;
  /** The budget shared with other connections. Default {@link OutboundBudget.shared} (256 MiB per process). */
  budget?: OutboundBudget;
}

/** Checks and fills in {@link OutboundOptions}. Throws `RangeError` for a limit that is not positive. */
export function resolveOutbound(options: OutboundOptions = {}): Required<OutboundOptions> {
  const maxQueuedBytes = options.maxQueuedBytes ?? MAX_BUFFERED_BYTES;
  const stallTimeoutMs = options.stallTimeoutMs ?? DEFAULT_STALL_TIMEOUT_MS;
  if (!(maxQueuedBytes >= 1)) throw new RangeError('maxQueuedBytes must be at least 1');
  if (!(stallTimeoutMs >= 1)) throw new RangeError('stallTimeoutMs must be at least 1');
  return { maxQueuedBytes, stallTimeoutMs, budget: options.budget ?? OutboundBudget.shared };
}

/** Where a {@link PacedWriter} puts its slices: a Node response, a web stream's controller. */
export interface PacedOutput {
  /** Takes one slice; returns false when the consumer's buffer is full (the writer then waits for `drained()`). Must not throw. */
  write(chunk: string): boolean;
  /** Everything was written: end the output. Called once; no write follows. Must not throw. */
  end(): void;
  /** Cut the output now: the consumer counts as gone. Called at most once, never after `end()`. Must not throw. */
  abort(error: SlowReaderError): void;
}

let sharedBudget: OutboundBudget | undefined;

// The budget's bookkeeping and a writer's cut, reached by the other class of this module
// (set by the classes' static blocks; not reachable from outside the module).
let charge: (budget: OutboundBudget, writer: PacedWriter, chars: number) => void;
let release: (budget: OutboundBudget, writer: PacedWriter, chars: number, empty: boolean) => void;
let cut: (writer: PacedWriter, reason: SlowReaderReason, message: string) => void;

/**
 * A bound on the text waiting for slow readers across every {@link PacedWriter} that shares
 * it. Crossing it cuts the writers with the oldest drain progress first (see the module
 * note). Single-threaded; shared freely by listeners of one process.
 */
export class OutboundBudget {
  /** The bound, in UTF-16 code units of waiting text. */
  readonly maxTotalQueuedBytes: number;
  #total = 0;
  readonly #waiting = new Set<PacedWriter>();

  /** Throws `RangeError` when `maxTotalQueuedBytes` is not positive. */
  constructor(maxTotalQueuedBytes: number = DEFAULT_MAX_TOTAL_QUEUED_BYTES) {
    if (!(maxTotalQueuedBytes >= 1)) throw new RangeError('maxTotalQueuedBytes must be at least 1');
    this.maxTotalQueuedBytes = maxTotalQueuedBytes;
  }

  /** The process-wide budget every adapter uses unless given another: {@link DEFAULT_MAX_TOTAL_QUEUED_BYTES}. */
  static get shared(): OutboundBudget {
    return (sharedBudget ??= new OutboundBudget());
  }

  /** Text waiting now across the writers of this budget. */
  get total(): number {
    return this.#total;
  }

  /** Writers holding waiting text now. */
  get waitingWriters(): number {
    return this.#waiting.size;
  }

  /**
   * True when a new reply of `chars` (UTF-16 code units) fits: nothing waits now, or the
   * text waiting now plus `chars` is within a third of {@link maxTotalQueuedBytes} (the rest
   * is headroom for the copies of replies being produced; see the module note). Adapters ask before queueing a
   * reply larger than a slice, and refuse it when it does not fit (see {@link budgetRefusal}).
   */
  admits(chars: number): boolean {
    return this.#total === 0 || this.#total + chars <= this.maxTotalQueuedBytes * ADMITTED_SHARE;
  }

  /**
   * Asked before a response is serialized, with its `result`: 0 when it may be serialized
   * and sent — nothing waits now (one comparison), or it fits — else a lower bound of its
   * size (see {@link jsonLengthAtLeast}) that is larger than a slice and than {@link admits}
   * takes. The caller then refuses it unserialized (see {@link budgetRefusal}): a reply the
   * adapter would refuse once serialized is refused before any copy of its text exists.
   * The measure stops as soon as the reply is known not to fit.
   */
  refusesUnserialized(result: unknown): number {
    if (this.#total === 0) return 0;
    const room = Math.max(this.maxTotalQueuedBytes * ADMITTED_SHARE - this.#total, SLICE_CHARS);
    const size = jsonLengthAtLeast(result, room);
    return size > room ? size : 0;
  }

  static {
    charge = (budget, writer, chars) => budget.#charge(writer, chars);
    release = (budget, writer, chars, empty) => budget.#release(writer, chars, empty);
  }

  /** `writer` queued `chars` more; cuts laggards when the bound is crossed. */
  #charge(writer: PacedWriter, chars: number): void {
    this.#total += chars;
    this.#waiting.add(writer);
    while (this.#total > this.maxTotalQueuedBytes && this.#waiting.size > 0) {
      let stalest: PacedWriter | undefined;
      for (const candidate of this.#waiting) if (stalest === undefined || candidate.lastProgress < stalest.lastProgress) stalest = candidate;
      cut(stalest!, 'budget', `more than ${this.maxTotalQueuedBytes} bytes of replies wait for slow readers; this reader made the least recent progress`);
    }
  }

  /** `writer` handed `chars` to its output, or let go of them. */
  #release(writer: PacedWriter, chars: number, empty: boolean): void {
    this.#total -= chars;
    if (empty) this.#waiting.delete(writer);
  }
}

/** Levels of nesting {@link jsonLengthAtLeast} measures; deeper values count as nothing. */
const MEASURED_DEPTH = 64;

/**
 * A lower bound of the length of `JSON.stringify(value)` in UTF-16 code units, measured
 * until it passes `cap` (then a number above `cap` is returned at once). A string counts its
 * characters and quotes, a member its name, quotes, colon and comma, `null` and `true` four,
 * `false` five, a number one, brackets two; what `JSON.stringify` leaves out (undefined,
 * functions, symbols) nothing, and so does an object with `toJSON` (what it becomes is not
 * known without calling it) and anything nested deeper than 64 levels. Never throws on plain
 * JSON values (a getter that throws propagates).
 */
export function jsonLengthAtLeast(value: unknown, cap: number): number {
  return measure(value, cap, 0, 0);
}

function measure(value: unknown, cap: number, depth: number, sofar: number): number {
  switch (typeof value) {
    case 'string':
      return sofar + value.length + 2;
    case 'number':
      return sofar + 1;
    case 'boolean':
      return sofar + (value ? 4 : 5);
    case 'object':
      break;
    default:
      return sofar;
  }
  if (value === null) return sofar + 4;
  if (depth >= MEASURED_DEPTH || typeof (value as { toJSON?: unknown }).toJSON === 'function') return sofar;
  let n = sofar + 2;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      n = measure(value[i], cap, depth + 1, i === 0 ? n : n + 1);
      if (n > cap) return n;
    }
    return n;
  }
  let first = true;
  const object = value as Record<string, unknown>;
  for (const key of Object.keys(object)) {
    const member = object[key];
    if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
    n = measure(member, cap, depth + 1, n + key.length + (first ? 3 : 4));
    first = false;
    if (n > cap) return n;
  }
  return n;
}

/** The length of a slice of `text` from `start` of at most `max` units that does not split a surrogate pair. */
function sliceEnd(text: string, start: number, max: number): number {
  const end = start + max;
  if (end >= text.length) return text.length;
  const last = text.charCodeAt(end - 1);
  return last >= 0xd800 && last <= 0xdbff ? end - 1 : end;
}

/**
 * Writes one reply to a {@link PacedOutput} in slices, as it drains; see the module note.
 * The adapter calls {@link write}/{@link end} for the reply's text, {@link drained} when its
 * output drains, and {@link closed} when the output finished or went away on its own.
 * Never throws; once cut or closed, writes are ignored.
 */
export class PacedWriter {
  readonly #output: PacedOutput;
  readonly #limits: Required<OutboundOptions>;
  readonly #onCut: (error: SlowReaderError) => void;
  readonly #queue: string[] = [];
  /** Position in `#queue[0]` of the first character not yet handed over. */
  #offset = 0;
  #queued = 0;
  #waiting = false;
  #ending = false;
  #done = false;
  #timer: ReturnType<typeof setTimeout> | undefined = undefined;
  /** When the output last accepted or drained text (ms since epoch); the budget cuts the oldest first. */
  lastProgress = Date.now();

  /** `onCut` hears every cut (the adapter reports it); it must not throw. */
  constructor(output: PacedOutput, limits: Required<OutboundOptions>, onCut: (error: SlowReaderError) => void) {
    this.#output = output;
    this.#limits = limits;
    this.#onCut = onCut;
  }

  /** Text waiting in this writer (not yet handed to the output). */
  get queued(): number {
    return this.#queued;
  }

  /** True once ended and flushed, cut, or closed. */
  get done(): boolean {
    return this.#done;
  }

  /** Queues `text` and writes what the output takes. Cuts the reader when more than `maxQueuedBytes` already wait. */
  write(text: string): void {
    if (this.#done || this.#ending || text.length === 0) return;
    if (this.#queued > this.#limits.maxQueuedBytes) {
      this.#cut('behind', `the reader is more than ${this.#limits.maxQueuedBytes} bytes behind`);
      return;
    }
    if (this.#queued === 0 && !this.#waiting) {
      if (text.length <= SLICE_CHARS) {
        // nothing waits and the output has room: hand it over without queueing
        const more = this.#output.write(text);
        if (!more && !this.#done) this.#startWaiting();
        return;
      }
      this.lastProgress = Date.now();
    }
    this.#queue.push(text);
    this.#queued += text.length;
    charge(this.#limits.budget, this, text.length);
    if (!this.#done && !this.#waiting) this.#pump();
  }

  /** Ends the output once everything queued is written. Idempotent. */
  end(): void {
    if (this.#done || this.#ending) return;
    this.#ending = true;
    if (!this.#waiting) this.#pump();
  }

  /** The output drained: write more. */
  drained(): void {
    if (this.#done || !this.#waiting) return;
    this.#waiting = false;
    this.lastProgress = Date.now();
    this.#pump();
  }

  /** The output finished or went away on its own: let go of everything. Idempotent. */
  closed(): void {
    if (this.#done) return;
    this.#finish();
  }

  static {
    cut = (writer, reason, message) => writer.#cut(reason, message);
  }

  /** Cuts the reader for `reason` and reports it. */
  #cut(reason: SlowReaderReason, message: string): void {
    if (this.#done) return;
    const error = new SlowReaderError(reason, message);
    this.#finish();
    this.#output.abort(error);
    this.#onCut(error);
  }

  #pump(): void {
    const output = this.#output;
    const queue = this.#queue;
    while (queue.length > 0) {
      const head = queue[0]!;
      const start = this.#offset;
      const end = sliceEnd(head, start, SLICE_CHARS);
      const chunk = start === 0 && end === head.length ? head : head.slice(start, end);
      if (end === head.length) {
        queue.shift();
        this.#offset = 0;
      } else this.#offset = end;
      this.#queued -= chunk.length;
      release(this.#limits.budget, this, chunk.length, this.#queued === 0);
      const more = output.write(chunk);
      if (this.#done) return; // the output gave up during the write
      if (!more) {
        this.#startWaiting();
        return;
      }
    }
    this.#clearTimer();
    if (this.#ending) {
      this.#done = true;
      output.end();
    }
  }

  /** The output is full: wait for `drained()`, and for no longer than `stallTimeoutMs`. */
  #startWaiting(): void {
    this.#waiting = true;
    this.lastProgress = Date.now();
    this.#armStallTimer();
  }

  /** (Re)starts the stall timer: it measures the time since this, the latest progress. */
  #armStallTimer(): void {
    this.#clearTimer();
    this.#timer = setTimeout(this.#onStall, this.#limits.stallTimeoutMs);
    (this.#timer as { unref?: () => void }).unref?.();
  }

  #clearTimer(): void {
    if (this.#timer === undefined) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  readonly #onStall = (): void => {
    this.#timer = undefined;
    if (this.#waiting) this.#cut('stalled', `the reader made no progress for ${this.#limits.stallTimeoutMs} ms`);
  };

  #finish(): void {
    this.#done = true;
    this.#waiting = false;
    this.#clearTimer();
    if (this.#queued > 0) release(this.#limits.budget, this, this.#queued, true);
    this.#queued = 0;
    this.#queue.length = 0;
    this.#offset = 0;
  }
}

/** What a reply refused by the budget carries: `{"jsonrpc":"2.0","id":` opens the JSON-RPC response it replaces. */
const RESPONSE_OPENING = '{"jsonrpc":"2.0","id":';
/** The id (as JSON text) of a response whose text starts at the opening, when what follows it is `result` or `error`. */
const RESPONSE_ID = /^\{"jsonrpc":"2\.0","id":("(?:[^"\\]|\\.){0,256}"|-?\d{1,20}(?:\.\d{1,20})?(?:[eE][+-]?\d{1,5})?),"(?:result|error)":/;

/** The JSON text of the id of the response whose text begins at `at` in `text`, or undefined when no response begins there. */
function responseIdAt(text: string, at: number): string | undefined {
  return RESPONSE_ID.exec(text.slice(at, at + 320))?.[1];
}

/**
 * The JSON text of the id of the JSON-RPC response that `text` carries: a JSON body that is
 * one response (`sse` false), or, in SSE text (`sse` true), the first event whose data is a
 * response. Undefined when there is none (a batch, notifications, server requests).
 */
export function refusedResponseId(text: string, sse: boolean): string | undefined {
  if (!sse) return text.startsWith(RESPONSE_OPENING) ? responseIdAt(text, 0) : undefined;
  const mark = 'data: ' + RESPONSE_OPENING;
  for (let at = text.indexOf(mark); at >= 0; at = text.indexOf(mark, at + mark.length)) {
    if (at > 0 && text.charCodeAt(at - 1) !== 10 /* \n */) continue;
    const id = responseIdAt(text, at + 6);
    if (id !== undefined) return id;
  }
  return undefined;
}

/**
 * The JSON-RPC error response sent in place of a reply of `chars` that the budget refused
 * (`id`: the refused response's id as JSON text), and the report for `onError`. The error
 * code is -32000 (a server error of the transport); the message says that the request was
 * processed but its result dropped, and why.
 */
export function budgetRefusal(budget: OutboundBudget, id: string, chars: number): { body: string; error: SlowReaderError } {
  const message = `The result of this request (${chars} bytes) was not sent: the server already holds as many unread replies as its limit (maxTotalQueuedBytes) allows. The request was processed; retry it later, or ask for a smaller result.`;
  return {
    body: '{"jsonrpc":"2.0","id":' + id + ',"error":{"code":-32000,"message":' + JSON.stringify(message) + '}}',
    error: new SlowReaderError(
      'refused',
      `refused a reply of ${chars} bytes to request ${id.length > 64 ? id.slice(0, 64) + '…' : id}: ${budget.total} bytes of replies wait for slow readers, and a new reply must fit in a third of maxTotalQueuedBytes (${budget.maxTotalQueuedBytes})`,
    ),
  };
}
