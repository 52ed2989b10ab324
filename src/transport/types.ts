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

/**
 * What an outgoing message is, as the session that built it knows: a request, a
 * notification, a result response, an error response, or an array of responses (the answer
 * to a batch).
 */
export type MessageKind = 'request' | 'notification' | 'response' | 'error' | 'batch';

/**
 * Options for one outgoing message. A caller sets `relatedRequestId`; the session that built
 * the message adds the facts it knows (`kind`, `id`, `method`, `cancels`) so that no
 * transport parses or inspects a message to learn them. A message that did not come from a
 * session (text handed to `send` directly, a caller that passes no options) has no facts:
 * a transport that needs them derives them with `factsOf` (transport/facts.ts).
 *
 * The session reuses one options object for every message of its connection (no object per
 * send): a transport reads what it needs during `send` and copies what it keeps; one that
 * defers a send copies the options first.
 */
export interface SendOptions {
  /** The incoming request this message belongs to (lets HTTP route it to that request's stream). */
  relatedRequestId?: RequestId | undefined;
  /** What the message is; undefined when the sender did not say. */
  readonly kind?: MessageKind | undefined;
  /**
   * A request's id; the id of the request a response or error answers (null for an error
   * that answers no request: a parse error); for a batch, the first id among its responses
   * that is not null. Undefined for a notification.
   */
  readonly id?: RequestId | null | undefined;
  /** A request's or notification's method. */
  readonly method?: string | undefined;
  /** For `notifications/cancelled`: the request it cancels. */
  readonly cancels?: RequestId | undefined;
  /**
   * Request metadata a transport carries beside the message when it has a place for it
   * (Streamable HTTP: the stateless era's request headers, computed by the client role
   * from the message and the tools it listed). Read-only; others ignore it.
   */
  readonly metadata?: Readonly<Record<string, string>> | undefined;
}

/**
 * A narrow, read-only view of the JSON-RPC channel a transport serves, handed over in
 * {@link Transport.start}: what a transport may ask about its connection, instead of being
 * given the role or the session. Valid for the life of the connection.
 */
export interface ChannelView {
  /** The negotiated protocol revision, once the handshake settled it; undefined before. */
  readonly protocolVersion: string | undefined;
  /** True while this side's outgoing request `id` awaits its response (an answer or progress with that id is this side's). */
  awaits(id: RequestId): boolean;
  /** True while the peer's request `id` is being handled by this side. */
  handles(id: RequestId): boolean;
}

/** A bidirectional message channel. */
export interface Transport {
  /**
   * Begins delivery to `receiver`. Called exactly once; rejects if the channel cannot open.
   * `view` is what the transport may ask about its channel (see {@link ChannelView}); a
   * session always passes it, and a transport that needs nothing of it leaves the parameter
   * out (it is optional, so transports written before it work unchanged).
   */
  start(receiver: TransportReceiver, view?: ChannelView): Promise<void> | void;
  /**
   * Sends one message (or a pre-serialized JSON text of one message or batch).
   * Rejects with a {@link LocalError} `connection_closed` once closed. Order is preserved.
   */
  send(message: JSONRPCMessage | JSONRPCMessage[] | string, options?: SendOptions): Promise<void> | void;
  /**
   * Writes a notification the role produced for the peer's unsolicited-message stream only
   * when that stream is reached from this instance, and returns true; returns false, doing
   * nothing, when it is not (the Streamable HTTP session transport of a session several
   * server instances hold: its GET stream is attached to one of them). `text` is one
   * serialized JSON-RPC notification. Optional: a transport without it reaches its peer
   * from wherever it is, and the role sends through the session as usual.
   */
  deliverHere?(text: string): boolean;
  /**
   * The peer cancelled its request `id` (the session read a `notifications/cancelled` for a
   * request it was handling): no response will be sent for it. A transport that holds
   * something open for that request (an HTTP response stream) may let it go. Called
   * synchronously, before the session answers anything else. Optional. Must not throw.
   */
  peerCancelled?(id: RequestId): void;
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
   * How the transport reaches its peer, named as OpenTelemetry's `network.transport`
   * (`pipe` for stdio, `tcp` for HTTP), for telemetry. Optional; absent means not said (an
   * in-memory pair, a custom transport).
   */
  readonly network?: 'pipe' | 'tcp' | 'unix' | 'quic' | undefined;
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
