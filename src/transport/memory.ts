/**
 * An in-memory transport pair for tests and in-process wiring. Messages are serialized to
 * JSON text on send and delivered to the other end asynchronously and in order, so both
 * ends see exactly what a wire would carry (no shared objects).
 */

import { LocalError } from '../jsonrpc/errors.js';
import { serializeMessage } from '../jsonrpc/preset-json.js';
import type { JSONRPCMessage } from '../jsonrpc/types.js';
import type { MessageInfo, SendOptions, Transport, TransportReceiver } from './types.js';

/** One end of an in-memory pair. */
export class InMemoryTransport implements Transport {
  #peer: InMemoryTransport | undefined;
  #receiver: TransportReceiver | undefined;
  #queue: Array<string> = [];
  #closed = false;
  /** Auth or request info attached to every message this end delivers to its peer. */
  info: MessageInfo | undefined;

  /** Creates two connected ends. */
  static createPair(): [InMemoryTransport, InMemoryTransport] {
    const a = new InMemoryTransport();
    const b = new InMemoryTransport();
    a.#peer = b;
    b.#peer = a;
    return [a, b];
  }

  start(receiver: TransportReceiver): void {
    if (this.#receiver) throw new LocalError('already_connected', 'Transport already started');
    this.#receiver = receiver;
    const queued = this.#queue;
    this.#queue = [];
    for (const text of queued) receiver.message(text, this.#peer?.info);
  }

  send(message: JSONRPCMessage | JSONRPCMessage[] | string, _options?: SendOptions): Promise<void> {
    if (this.#closed || !this.#peer || this.#peer.#closed) return Promise.reject(new LocalError('connection_closed', 'In-memory transport is closed'));
    const text = typeof message === 'string' ? message : serializeMessage(message);
    const peer = this.#peer;
    queueMicrotask(() => peer.#deliver(text, this.info));
    return Promise.resolve();
  }

  /** Delivers raw text to this end as if it came from the wire (for tests of bad input). */
  injectRaw(text: string): void {
    queueMicrotask(() => this.#deliver(text, this.#peer?.info));
  }

  #deliver(text: string, info: MessageInfo | undefined): void {
    if (this.#closed) return;
    if (this.#receiver) this.#receiver.message(text, info);
    else this.#queue.push(text);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#receiver?.closed();
    const peer = this.#peer;
    if (peer && !peer.#closed) queueMicrotask(() => void peer.close());
  }
}
