/**
 * The deprecated HTTP+SSE transport of protocol revision 2024-11-05, served beside
 * Streamable HTTP for older clients (2025-03-26 › Transports › Backwards Compatibility).
 *
 * The client opens `GET /sse`; the first event is `event: endpoint` whose data is the URL
 * to POST messages to (`/messages?sessionId=<id>`). Every POST there is answered 202 with
 * no body; every server message, responses included, travels over the one SSE stream as
 * `event: message`. The session lives exactly as long as that stream: when the client
 * disconnects, the session closes. No event ids, no resumption (the old transport has none).
 */

import { encodeSseEvent } from '../../framing/sse.js';
import { LocalError, toError } from '../../jsonrpc/errors.js';
import { serializeMessage } from '../../jsonrpc/preset-json.js';
import type { JSONRPCMessage } from '../../jsonrpc/types.js';
import type { MessageInfo, SendOptions, Transport, TransportReceiver } from '../../transport/types.js';
import type { RequestStreamCloser } from './session-transport.js';
import { SseConnection, type SseConnectionOwner } from './sse-connection.js';

/** What a legacy transport needs from its handler. */
export interface LegacyHost {
  reportError(error: Error): void;
  /** The transport closed (client gone, server-side close, shutdown). Must not throw. */
  releasedLegacy(transport: LegacySseTransport): void;
}

const RESOLVED: Promise<void> = Promise.resolve();

/**
 * One legacy HTTP+SSE session. Created by the Streamable HTTP handler on `GET /sse`; user
 * code only sees it as the `Transport` of a `ServerConnection`.
 */
export class LegacySseTransport implements Transport, SseConnectionOwner, RequestStreamCloser {
  readonly sessionId: string;
  /** HTTP runs over TCP (OpenTelemetry's `network.transport`). */
  readonly network = 'tcp' as const;
  /** The SSE response carrying every server message. */
  readonly connection: SseConnection;
  /** The principal key of the session's creator when sessions are bound (see the handler's `sessionOwner`); undefined when not. */
  readonly owner: string | undefined;
  readonly #host: LegacyHost;
  #receiver: TransportReceiver | undefined = undefined;
  #closed = false;

  /** Writes the `endpoint` event (`messagesUrl` + `?sessionId=`) as the stream's first event. `owner`: see {@link owner}. */
  constructor(host: LegacyHost, sessionId: string, messagesUrl: string, owner?: string) {
    this.#host = host;
    this.sessionId = sessionId;
    this.owner = owner;
    this.connection = new SseConnection(this);
    const separator = messagesUrl.includes('?') ? '&' : '?';
    this.connection.write(encodeSseEvent({ event: 'endpoint', data: `${messagesUrl}${separator}sessionId=${encodeURIComponent(sessionId)}` }));
  }

  /** Throws LocalError `already_connected` when called twice, `connection_closed` after close. */
  start(receiver: TransportReceiver): void {
    if (this.#closed) throw new LocalError('connection_closed', 'The SSE session is closed');
    if (this.#receiver !== undefined) throw new LocalError('already_connected', 'Transport already started');
    this.#receiver = receiver;
  }

  /** Writes the message as `event: message`. Rejects with LocalError `connection_closed` once closed. */
  send(message: JSONRPCMessage | JSONRPCMessage[] | string, _options?: SendOptions): Promise<void> {
    if (this.#closed) return Promise.reject(new LocalError('connection_closed', 'The SSE session is closed'));
    let text: string;
    try {
      text = typeof message === 'string' ? message : serializeMessage(message);
    } catch (error) {
      return Promise.reject(new LocalError('invalid_message', 'The message cannot be encoded as JSON', { cause: error }));
    }
    this.connection.write(encodeSseEvent({ event: 'message', data: text }));
    return RESOLVED;
  }

  /** Ends the SSE stream and fires `receiver.closed()`. Idempotent. */
  close(): Promise<void> {
    if (this.#closed) return RESOLVED;
    this.#closed = true;
    this.connection.end();
    this.#host.releasedLegacy(this);
    this.#receiver?.closed();
    return RESOLVED;
  }

  /** Hands one parsed POST body to the session, synchronously. */
  deliver(value: unknown, info: MessageInfo): void {
    if (this.#closed || this.#receiver === undefined) return;
    try {
      this.#receiver.message(value, info);
    } catch (error) {
      this.#host.reportError(toError(error));
    }
  }

  /** The legacy transport has a single stream that cannot be resumed: always false. */
  closeRequestStream(): boolean {
    return false;
  }

  /** @internal the client closed the SSE stream: the session ends */
  connectionLost(): void {
    void this.close();
  }
}
