/**
 * The transport contract: moves JSON-RPC messages, knows nothing about MCP methods.
 *
 * Design note: instead of mutable callback properties (which lose messages when set
 * after start), the receiver is handed over in `start()`; a transport delivers nothing
 * before that call and everything after it, in order.
 */
import type { JSONRPCMessage, RequestId } from '../jsonrpc/types.js';

/** What a transport knows about one incoming message, beyond its content. */
export interface MessageInfo {
  /** Verified authorization information, when the transport authenticated the sender. */
  authInfo?: unknown;
  /** Transport-specific request details (for HTTP: the request headers). */
  request?: { headers?: Headers | Record<string, string | string[] | undefined> };
}

/** Receives everything a transport reads. Supplied once, in {@link Transport.start}. */
export interface TransportReceiver {
  /**
   * One incoming message. `data` is raw text (the session parses it, applying its size and
   * depth limits and answering -32700 on bad JSON) or an already-parsed JSON value.
   * Must not throw; called synchronously in arrival order.
   */
  message(data: string | unknown, info?: MessageInfo): void;
  /** A non-fatal problem (a garbage line, an oversized frame). The connection stays open. */
  error(error: Error): void;
  /** The connection ended (peer closed, process exited, `close()` called). Called once. */
  closed(reason?: Error): void;
}

/** Options for one outgoing message. */
export interface SendOptions {
  /** The incoming request this message belongs to (lets HTTP route it to that request's stream). */
  relatedRequestId?: RequestId;
}

/** A bidirectional message channel. */
export interface Transport {
  /** Begins delivery to `receiver`. Called exactly once; rejects if the channel cannot open. */
  start(receiver: TransportReceiver): Promise<void> | void;
  /**
   * Sends one message (or a pre-serialized JSON text of one message or batch).
   * Rejects with a {@link LocalError} `connection_closed` once closed. Order is preserved.
   */
  send(message: JSONRPCMessage | JSONRPCMessage[] | string, options?: SendOptions): Promise<void> | void;
  /** Closes the channel; idempotent; `receiver.closed` fires once. */
  close(): Promise<void>;
  /** A transport-assigned session id, when the transport has one (Streamable HTTP). */
  readonly sessionId?: string | undefined;
  /**
   * What the transport talks to, for error messages (an HTTP client transport's URL; a
   * request that times out names it). Optional.
   */
  readonly peer?: string | undefined;
  /**
   * False when requests sent over this transport cannot be answered (the sessionless mode of
   * Streamable HTTP: the peer's answer would reach another throwaway session), so the session
   * sends none it could do without. Optional; absent means they can.
   */
  readonly answersRequests?: boolean;
  /**
   * When set, the session numbers the requests it sends `<prefix>1`, `<prefix>2`, … (string
   * ids) instead of 1, 2, …: a transport of a session shared by several server instances
   * gives each instance its own prefix, so that request ids are unique per session across
   * the instances and an answer names the instance that asked. Read once, when the session starts.
   * Optional.
   */
  readonly requestIdPrefix?: string | undefined;
  /**
   * Told the negotiated protocol revision once the handshake settled it (HTTP clients send
   * it as `MCP-Protocol-Version` on every later request). Optional.
   */
  setProtocolVersion?(version: string): void;
  /**
   * A new, unstarted transport to the same peer with the same options and no session, for a
   * client that starts a new session after this one expired (HTTP 404). Optional: transports
   * without sessions, or that cannot reach the peer again (stdio), leave it out.
   */
  fresh?(): Transport;
}
