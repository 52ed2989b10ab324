/**
 * A transport wrapper for the CLI that watches the messages going by, without changing them
 * (Ctrl-C's `notifications/cancelled` needs no help here: the Streamable HTTP transport's
 * `close()` lets notifications already on their way finish):
 *
 * - it reports the task a `tools/call` became in the 2026-07-28 era (`resultType: "task"`)
 *   and each `tasks/get` answer for it, so the command can show the task's status while
 *   the client waits for it;
 * - it reports every URL-mode elicitation the server asks for, so the command can say why
 *   the client declined one that is not https.
 *
 * Requests it watches are remembered by id until answered (only `tools/call` and
 * `tasks/get`, which a command sends a few of).
 */
import type { JSONObject, JSONRPCMessage, RequestId } from '../jsonrpc/types.js';
import { isObject } from '../jsonrpc/values.js';
import type { ChannelView, SendOptions, Transport, TransportReceiver } from '../transport/types.js';

/** Most task ids remembered per connection (a CLI command makes one or a few). */
const MAX_TASKS_WATCHED = 1000;

/** A task as the server described it (`taskId`, `status`, optional `statusMessage`). */
export interface TaskSighting {
  taskId: string;
  status: string;
  statusMessage?: string;
}

/** What {@link TapTransport} reports. */
export interface TapOptions {
  /** Called with every task state seen in a `tools/call` or `tasks/get` answer. */
  onTask?: (task: TaskSighting) => void;
  /**
   * Called with the params of every URL-mode elicitation the server asks for: an
   * `elicitation/create` request (2025 era) or an input request of an `input_required`
   * answer (2026-07-28), before the client handles it.
   */
  onUrlElicitation?: (params: { url: string; message: string }) => void;
}

/** See the module note. Forwards every member of the transport it wraps. */
export class TapTransport implements Transport {
  readonly #inner: Transport;
  readonly #options: TapOptions;
  /** Methods of our requests still unanswered, by id (only the two watched methods). */
  readonly #watched = new Map<RequestId, string>();
  /** Tasks that `tools/call` answers created (their `tasks/get` answers are reported). */
  readonly #tasks = new Set<string>();

  /** Present when the wrapped transport has it: a fresh copy of it, wrapped the same way. */
  readonly fresh?: () => Transport;
  /** Present when the wrapped transport has it: forwarded. */
  readonly deliverHere?: (text: string) => boolean;
  /** Present when the wrapped transport has it: forwarded. */
  readonly peerCancelled?: (id: RequestId) => void;

  constructor(inner: Transport, options: TapOptions = {}) {
    this.#inner = inner;
    this.#options = options;
    if (inner.fresh !== undefined) this.fresh = () => new TapTransport(inner.fresh!(), options);
    if (inner.deliverHere !== undefined) this.deliverHere = (text) => inner.deliverHere!(text);
    if (inner.peerCancelled !== undefined) this.peerCancelled = (id) => inner.peerCancelled!(id);
  }

  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  get peer(): string | undefined {
    return this.#inner.peer;
  }

  get network(): Transport['network'] {
    return this.#inner.network;
  }

  get answersRequests(): boolean | undefined {
    return this.#inner.answersRequests;
  }

  get requestIdPrefix(): string | undefined {
    return this.#inner.requestIdPrefix;
  }

  setProtocolVersion(version: string): void {
    this.#inner.setProtocolVersion?.(version);
  }

  start(receiver: TransportReceiver, view?: ChannelView): Promise<void> | void {
    return this.#inner.start(
      {
        message: (data, info) => {
          this.#incoming(data);
          receiver.message(data, info);
        },
        error: (error) => receiver.error(error),
        closed: (reason) => receiver.closed(reason),
      },
      view,
    );
  }

  send(message: JSONRPCMessage | JSONRPCMessage[] | string, options?: SendOptions): Promise<void> | void {
    const value: unknown = typeof message === 'string' ? safeParse(message) : message;
    for (const m of Array.isArray(value) ? value : [value]) {
      if (!isObject(m) || typeof m.method !== 'string') continue;
      if ((m.method === 'tools/call' || m.method === 'tasks/get') && (typeof m.id === 'string' || typeof m.id === 'number')) this.#watched.set(m.id, m.method);
    }
    return this.#inner.send(message, options);
  }

  async close(): Promise<void> {
    await this.#inner.close();
  }

  #incoming(data: unknown): void {
    const watchUrls = this.#options.onUrlElicitation !== undefined;
    if ((this.#watched.size === 0 || this.#options.onTask === undefined) && !watchUrls) return;
    const value =
      typeof data === 'string'
        ? data.length < 1_000_000 && (data.includes('"task') || (watchUrls && data.includes('"url"')))
          ? safeParse(data)
          : undefined
        : data;
    for (const m of Array.isArray(value) ? value : [value]) {
      if (watchUrls && isObject(m)) this.#urlElicitations(m);
      if (this.#options.onTask === undefined) continue;
      if (!isObject(m) || (typeof m.id !== 'string' && typeof m.id !== 'number') || !this.#watched.has(m.id)) continue;
      const method = this.#watched.get(m.id);
      this.#watched.delete(m.id);
      const r = m.result;
      if (!isObject(r) || typeof r.taskId !== 'string' || typeof r.status !== 'string') continue;
      // only the tasks our own calls became (not a `tasks get` of some other task)
      if (method === 'tools/call') {
        if (this.#tasks.size < MAX_TASKS_WATCHED) this.#tasks.add(r.taskId);
      } else if (!this.#tasks.has(r.taskId)) continue;
      // a tools/call answer describes a task only when the call became one (2026-07-28 `resultType: "task"`)
      const sighting: TaskSighting = { taskId: r.taskId, status: r.status };
      if (typeof r.statusMessage === 'string') sighting.statusMessage = r.statusMessage;
      this.#options.onTask!(sighting);
    }
  }

  #urlElicitations(m: JSONObject): void {
    const report = (method: unknown, params: unknown) => {
      if (method === 'elicitation/create' && isObject(params) && params.mode === 'url' && typeof params.url === 'string') {
        this.#options.onUrlElicitation!({ url: params.url, message: typeof params.message === 'string' ? params.message : '' });
      }
    };
    if (typeof m.method === 'string') return report(m.method, m.params);
    const inputs = isObject(m.result) ? m.result.inputRequests : undefined;
    if (isObject(inputs)) for (const r of Object.values(inputs)) if (isObject(r)) report(r.method, r.params);
  }
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
