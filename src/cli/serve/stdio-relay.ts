/**
 * The message router of `mcpkit dev` over stdio: the client talks to one stdio stream (the
 * dev process), while the server runs in a child process that is replaced on each reload.
 *
 * What it does with a 2025-era session across a reload: it keeps the client's `initialize`
 * request, and before the new generation gets any client message it replays that
 * `initialize` (under an id of its own, whose response is swallowed) and
 * `notifications/initialized`, so the new server has a session in the same state of the
 * handshake. Then it tells the client that tools, resources and prompts may have changed
 * (the `list_changed` notifications the server declared in its first `initialize` result).
 * Requests in flight at the old generation are answered by it (it keeps running until they
 * are, up to a grace period); if it exits first, each gets an InternalError response.
 * Requests from the server (sampling, elicitation, roots) are answered to the generation
 * that asked. Not carried over: `logging/setLevel`, resource subscriptions, and any other
 * state the old server kept in memory. A 2026-07-28 (stateless) client needs nothing
 * replayed: each of its requests stands alone.
 */
import { ErrorCode } from '../../jsonrpc/types.js';
import { isObject } from '../../jsonrpc/values.js';
import { Method, Notification } from '../../protocol/methods.js';

/** One server generation as the relay sees it. */
export interface RelayGeneration {
  /** A number for messages. */
  readonly id: number;
  /** Sends one line (a JSON-RPC message, no newline) to the generation's stdin. */
  write(line: string): void;
}

/** Default for {@link StdioRelayOptions.replayTimeoutMs}. */
export const DEFAULT_REPLAY_TIMEOUT_MS = 10_000;

/** Options of {@link StdioRelay}. */
export interface StdioRelayOptions {
  /** Writes one line to the client (stdout). */
  toClient(line: string): void;
  /** Reports a problem (stderr). */
  log(message: string): void;
  /**
   * How long a new generation may take to answer the replayed `initialize`, in ms (default
   * {@link DEFAULT_REPLAY_TIMEOUT_MS}). Past it the switch fails and the old generation
   * keeps serving.
   */
  replayTimeoutMs?: number;
  /**
   * Most client lines held while no generation can take them (before the first one loaded,
   * or while a switch replays the handshake), default {@link DEFAULT_MAX_HELD_LINES}. Past it
   * a request is answered at once with an InternalError response, other lines are dropped.
   */
  maxHeldLines?: number;
}

/** Default for {@link StdioRelayOptions.maxHeldLines}. */
export const DEFAULT_MAX_HELD_LINES = 1000;

type Message = Record<string, unknown>;

const REPLAY_ID = 'mcpkit-dev-replay';

const idKey = (id: unknown): string => JSON.stringify(id);

function parse(line: string): Message | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return isObject(value) ? (value as Message) : undefined;
  } catch {
    return undefined;
  }
}

/** Routes lines between the client and the current (and retiring) server generations. */
export class StdioRelay {
  readonly #options: StdioRelayOptions;
  #current: RelayGeneration | undefined;
  /** Client request id → the generation serving it. */
  readonly #pending = new Map<string, RelayGeneration>();
  /** Server request id → the generation that sent it. */
  readonly #serverRequests = new Map<string, RelayGeneration>();
  #initialize: Message | undefined;
  #initialized = false;
  #listChanged: string[] | undefined;
  /** Client lines that arrive while a switch is replaying the handshake. */
  #queue: string[] | undefined;
  /** How many generations became current so far. */
  #switched = 0;
  #replay: { generation: RelayGeneration; resolve: (ok: boolean) => void } | undefined;

  constructor(options: StdioRelayOptions) {
    this.#options = options;
  }

  /** The generation client messages go to. */
  get current(): RelayGeneration | undefined {
    return this.#current;
  }

  /** How many client requests `generation` has not answered yet. */
  pendingAt(generation: RelayGeneration): number {
    let n = 0;
    for (const g of this.#pending.values()) if (g === generation) n++;
    return n;
  }

  /** One line from the client. */
  fromClient(line: string): void {
    if (this.#queue !== undefined || this.#current === undefined) {
      this.#hold(line);
      return;
    }
    const target = this.#current;
    const msg = parse(line);
    if (msg === undefined) {
      target.write(line);
      return;
    }
    const hasId = 'id' in msg;
    if (typeof msg.method === 'string') {
      if (hasId) {
        if (msg.method === Method.Initialize) {
          this.#initialize = msg;
          this.#initialized = false;
        }
        this.#pending.set(idKey(msg.id), target);
      } else if (msg.method === Notification.Initialized) {
        this.#initialized = true;
      } else if (msg.method === Notification.Cancelled) {
        const owner = this.#pending.get(idKey((msg.params as Message | undefined)?.requestId));
        if (owner !== undefined) {
          owner.write(line);
          return;
        }
      }
      target.write(line);
      return;
    }
    if (hasId) {
      const asker = this.#serverRequests.get(idKey(msg.id));
      this.#serverRequests.delete(idKey(msg.id));
      (asker ?? target).write(line);
      return;
    }
    target.write(line);
  }

  #hold(line: string): void {
    const queue = (this.#queue ??= []);
    if (queue.length < (this.#options.maxHeldLines ?? DEFAULT_MAX_HELD_LINES)) {
      queue.push(line);
      return;
    }
    const msg = parse(line);
    if (msg !== undefined && typeof msg.method === 'string' && 'id' in msg)
      this.#fail(msg.id, 'no server is loaded: too many messages are waiting (mcpkit dev)');
  }

  #fail(id: unknown, message: string): void {
    this.#options.toClient(JSON.stringify({ jsonrpc: '2.0', id, error: { code: ErrorCode.InternalError, message } }));
  }

  /** One line from a generation's stdout. */
  fromGeneration(generation: RelayGeneration, line: string): void {
    const msg = parse(line);
    if (msg !== undefined && 'id' in msg) {
      if (typeof msg.method === 'string') {
        this.#serverRequests.set(idKey(msg.id), generation);
      } else {
        if (msg.id === REPLAY_ID && this.#replay?.generation === generation) {
          this.#replay.resolve(!('error' in msg));
          return;
        }
        const key = idKey(msg.id);
        if (this.#pending.get(key) === generation) this.#pending.delete(key);
        if (this.#initialize !== undefined && key === idKey(this.#initialize.id) && this.#listChanged === undefined)
          this.#listChanged = declaredListChanged(msg);
      }
    }
    this.#options.toClient(line);
  }

  /**
   * Makes `generation` the current one. With a recorded handshake, replays it first and
   * resolves false (leaving the current generation in place) if the new one rejects it or
   * does not answer in time. Client lines arriving meanwhile are held and then delivered.
   */
  async switchTo(generation: RelayGeneration): Promise<boolean> {
    const held = (this.#queue ??= []);
    this.#queue = held;
    let ok = true;
    if (this.#initialize !== undefined && this.#switched > 0) {
      ok = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), this.#options.replayTimeoutMs ?? DEFAULT_REPLAY_TIMEOUT_MS);
        this.#replay = { generation, resolve: (value) => (clearTimeout(timer), resolve(value)) };
        generation.write(JSON.stringify({ ...this.#initialize, id: REPLAY_ID }));
      });
      this.#replay = undefined;
      if (ok && this.#initialized) generation.write(JSON.stringify({ jsonrpc: '2.0', method: Notification.Initialized }));
    }
    if (ok) {
      this.#current = generation;
      this.#switched++;
    }
    this.#queue = undefined;
    for (const line of held) this.fromClient(line);
    if (ok && this.#switched > 1 && this.#initialized) {
      for (const method of this.#listChanged ?? []) this.#options.toClient(JSON.stringify({ jsonrpc: '2.0', method }));
    }
    return ok;
  }

  /** `generation` exited: its unanswered client requests get an InternalError response. */
  exited(generation: RelayGeneration): void {
    for (const [key, owner] of this.#pending) {
      if (owner !== generation) continue;
      this.#pending.delete(key);
      this.#fail(JSON.parse(key), 'the server process exited before answering (mcpkit dev)');
    }
    for (const [key, owner] of this.#serverRequests) if (owner === generation) this.#serverRequests.delete(key);
    if (this.#current === generation) this.#current = undefined;
  }
}

/** The `list_changed` notifications an `initialize` result declared. */
function declaredListChanged(response: Message): string[] {
  const caps = ((response.result as Message | undefined)?.capabilities ?? {}) as Record<string, { listChanged?: boolean } | undefined>;
  const out: string[] = [];
  if (caps.tools?.listChanged) out.push(Notification.ToolsListChanged);
  if (caps.resources?.listChanged) out.push(Notification.ResourcesListChanged);
  if (caps.prompts?.listChanged) out.push(Notification.PromptsListChanged);
  return out;
}
