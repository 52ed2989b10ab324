/**
 * {@link RedisTaskInputRelay}: the `TaskInputRelay` of mcpkit/tasks over a {@link RedisBus},
 * so a 2026-07-28 `tasks/update` reaching any instance hands its `inputResponses` to the
 * instance whose process runs the task (the task store is shared; the waiting work is not).
 *
 * Design notes:
 * - Request and reply on the bus: `deliver` publishes `{i: request id, t: task id, r:
 *   responses}` on `task-input`; every other instance answers on `task-input-reply/<asker's
 *   instance id>` with what its receiver made of them (`delivered`, `rejected` with the
 *   JSON-RPC error, or `not_running`). The first `delivered` or `rejected` settles the call;
 *   when every instance Redis handed the message to answered `not_running`, it settles
 *   `not_running` at once. An instance that never answers (it stopped) bounds the wait at
 *   `timeoutMs`, after which the call settles `not_running`.
 * - Pub/sub is at most once: nothing is stored. A lost request or reply looks like "not
 *   running" (the client is told and may retry the update); answers are never delivered
 *   twice by one call, since only the instance running the task takes them.
 * - One relay per instance and {@link RedisConnection} (Redis counts subscribers per
 *   connection, and the count is what "every instance answered" compares with).
 */
import { randomUUID } from 'node:crypto';
import type { JSONObject, JSONRPCErrorObject } from '../jsonrpc/types.js';
import type { TaskInputDelivery, TaskInputReceiver, TaskInputRelay } from '../tasks/input-relay.js';
import type { BusData, BusMessageInfo, RedisBus } from './bus.js';
import { positiveInteger } from './options.js';

/** Options of a {@link RedisTaskInputRelay}. */
export interface RedisTaskInputRelayOptions {
  /** Longest wait for the other instances' answers, in ms. Default 5000. */
  timeoutMs?: number;
  /** Receives malformed messages and failed replies. Default: ignored. */
  onError?: (error: Error) => void;
}

const REQUESTS = 'task-input';
const replies = (instanceId: string) => `task-input-reply/${instanceId}`;

interface Waiting {
  readonly settle: (delivery: TaskInputDelivery) => void;
  /** Instances that answered `not_running`. */
  absent: number;
  /** Instances the request reached (itself excluded); undefined until `publish` resolved. */
  expected: number | undefined;
}

function isErrorObject(value: unknown): value is JSONRPCErrorObject {
  return (
    typeof value === 'object' &&
    value !== null &&
    Number.isInteger((value as { code?: unknown }).code) &&
    typeof (value as { message?: unknown }).message === 'string'
  );
}

/** The {@link TaskInputRelay} of one instance, over its bus (see the module note). */
export class RedisTaskInputRelay implements TaskInputRelay {
  readonly #bus: RedisBus;
  readonly #timeoutMs: number;
  readonly #onError: (error: Error) => void;
  readonly #waiting = new Map<string, Waiting>();
  #receiver: TaskInputReceiver | undefined;
  #offs: Array<() => Promise<void>> = [];
  #closed = false;

  private constructor(bus: RedisBus, options: RedisTaskInputRelayOptions) {
    this.#bus = bus;
    this.#timeoutMs = positiveInteger('timeoutMs', options.timeoutMs ?? 5000);
    this.#onError = options.onError ?? (() => {});
  }

  /** A relay on `bus`, subscribed to its channels. Throws RangeError for a bad option. */
  static async open(bus: RedisBus, options: RedisTaskInputRelayOptions = {}): Promise<RedisTaskInputRelay> {
    const relay = new RedisTaskInputRelay(bus, options);
    relay.#offs.push(await bus.subscribe(REQUESTS, (data, info) => relay.#onRequest(data, info)));
    relay.#offs.push(await bus.subscribe(replies(bus.instanceId), (data) => relay.#onReply(data)));
    return relay;
  }

  listen(receiver: TaskInputReceiver): () => void {
    if (this.#receiver !== undefined) throw new Error('This relay has a receiver already: use one relay per instance');
    this.#receiver = receiver;
    return () => {
      if (this.#receiver === receiver) this.#receiver = undefined;
    };
  }

  /** See {@link TaskInputRelay.deliver}. Rejects with `RedisUnavailableError` when Redis cannot be reached, or when the relay is closed. */
  async deliver(taskId: string, responses: JSONObject): Promise<TaskInputDelivery> {
    if (this.#closed) throw new Error('The task input relay is closed');
    const id = randomUUID();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const settled = new Promise<TaskInputDelivery>((resolve) => {
      const waiting: Waiting = {
        settle: (delivery) => {
          if (this.#waiting.get(id) !== waiting) return;
          this.#waiting.delete(id);
          clearTimeout(timer);
          resolve(delivery);
        },
        absent: 0,
        expected: undefined,
      };
      this.#waiting.set(id, waiting);
      timer = setTimeout(() => waiting.settle({ status: 'not_running' }), this.#timeoutMs);
    });
    let reached: number;
    try {
      reached = await this.#bus.publish(REQUESTS, { i: id, t: taskId, r: responses as BusData });
    } catch (err) {
      this.#waiting.get(id)?.settle({ status: 'not_running' });
      throw err;
    }
    const waiting = this.#waiting.get(id);
    if (waiting !== undefined) {
      waiting.expected = reached - 1; // this instance hears its own request and ignores it
      if (waiting.absent >= waiting.expected) waiting.settle({ status: 'not_running' });
    }
    return settled;
  }

  /** Removes the relay's subscriptions; pending `deliver` calls settle `not_running`. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const waiting of [...this.#waiting.values()]) waiting.settle({ status: 'not_running' });
    for (const off of this.#offs) await off().catch(() => {});
    this.#offs = [];
  }

  #onRequest(data: BusData, info: BusMessageInfo): void {
    if (info.origin === this.#bus.instanceId) return;
    const m = data as { i?: unknown; t?: unknown; r?: unknown } | null;
    if (
      typeof m !== 'object' ||
      m === null ||
      typeof m.i !== 'string' ||
      typeof m.t !== 'string' ||
      typeof m.r !== 'object' ||
      m.r === null ||
      Array.isArray(m.r)
    ) {
      return this.#onError(new Error('Dropped a malformed task-input request'));
    }
    const { i, t } = m;
    const receiver = this.#receiver;
    const outcome = receiver === undefined || this.#closed ? Promise.resolve<TaskInputDelivery>({ status: 'not_running' }) : receiver(t, m.r as JSONObject);
    void outcome
      .then((delivery) => {
        const reply: { [key: string]: BusData } = { i, s: delivery.status };
        if (delivery.status === 'rejected') reply.e = delivery.error as unknown as BusData;
        return this.#bus.publish(replies(info.origin), reply);
      })
      .catch((err: unknown) => this.#onError(new Error(`Could not answer a task-input request of ${info.origin}: ${(err as Error).message}`)));
  }

  #onReply(data: BusData): void {
    const m = data as { i?: unknown; s?: unknown; e?: unknown } | null;
    if (typeof m !== 'object' || m === null || typeof m.i !== 'string') return this.#onError(new Error('Dropped a malformed task-input reply'));
    const waiting = this.#waiting.get(m.i);
    if (waiting === undefined) return; // settled already (or timed out)
    if (m.s === 'delivered') waiting.settle({ status: 'delivered' });
    else if (m.s === 'rejected' && isErrorObject(m.e))
      waiting.settle({ status: 'rejected', error: { code: m.e.code, message: m.e.message, ...(m.e.data === undefined ? {} : { data: m.e.data }) } });
    else if (m.s === 'not_running') {
      waiting.absent += 1;
      if (waiting.expected !== undefined && waiting.absent >= waiting.expected) waiting.settle({ status: 'not_running' });
    } else this.#onError(new Error('Dropped a malformed task-input reply'));
  }
}
