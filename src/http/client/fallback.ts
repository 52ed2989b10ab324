/**
 * Connecting to a server URL that may speak either Streamable HTTP or the deprecated
 * HTTP+SSE transport (spec 2025-03-26 › Transports › Backwards Compatibility).
 *
 * Design note: {@link FallbackTransport} is one transport that decides which protocol it
 * speaks on its first `send()` (the client's `initialize`), so the client's handshake runs
 * exactly once. The first message is POSTed Streamable-HTTP style; when that POST fails with
 * an HTTP 4xx that means "not this transport" (and carried no JSON-RPC answer), nothing has
 * been delivered yet, so the transport quietly drops the Streamable HTTP side, opens the
 * legacy SSE stream at the same URL, waits for its `endpoint` event and sends the same first
 * message there. Sends issued while that decision is pending wait for it, in order.
 * 401, 403, 407, 408 and 429 never trigger the fallback: they say nothing about the
 * transport (authorization, timeouts, rate limits). A dual-era client's first message is
 * a `server/discover` probe (2026-07-28): when a 2025-era server refuses it, nothing is
 * decided yet — the client falls back to `initialize`, and that message decides.
 */
import { LocalError } from '../../jsonrpc/errors.js';
import type { JSONRPCMessage } from '../../jsonrpc/types.js';
import type { SendOptions, Transport, TransportReceiver } from '../../transport/types.js';
import { closedError } from './common.js';
import { HttpStatusError } from './errors.js';
import { SseClientTransport } from './legacy-sse.js';
import { StreamableHttpClientTransport, type StreamableHttpClientTransportOptions } from './streamable.js';

/** Options of {@link FallbackTransport}: those of Streamable HTTP, plus the fallback's own. */
export interface FallbackTransportOptions extends Omit<StreamableHttpClientTransportOptions, 'url' | 'sessionId'> {
  /** The legacy SSE URL, when it differs from the MCP endpoint. Default: the same URL. */
  sseUrl?: string | URL;
  /** How long the legacy transport waits for its `endpoint` event. Default 30000 ms. */
  endpointTimeoutMs?: number;
  /** Which status of the first POST switches to the legacy transport. Default: {@link shouldFallBack}. */
  fallBackOn?: (status: number) => boolean;
}

/**
 * The default fallback rule: any 4xx except 401, 403, 407, 408 and 429 (the spec names
 * 404 and 405; some servers answer 400 to a POST they do not understand).
 */
export function shouldFallBack(status: number): boolean {
  return status >= 400 && status < 500 && status !== 401 && status !== 403 && status !== 407 && status !== 408 && status !== 429;
}

/** True when `message` is (or a batch holds) an `initialize` request. */
function carriesInitialize(message: JSONRPCMessage | JSONRPCMessage[] | string): boolean {
  let value: unknown = message;
  if (typeof message === 'string') {
    try {
      value = JSON.parse(message);
    } catch {
      return false;
    }
  }
  const items = Array.isArray(value) ? value : [value];
  return items.some((m) => typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'initialize');
}

/** Which protocol a {@link FallbackTransport} settled on. */
export type HttpTransportKind = 'streamable-http' | 'sse';

/**
 * A client transport that speaks Streamable HTTP, or the legacy HTTP+SSE transport when
 * the first POST shows the server predates it. Hand it to `Client.connect()`.
 */
export class FallbackTransport implements Transport {
  readonly #url: URL;
  readonly #options: FallbackTransportOptions;
  readonly #streamable: StreamableHttpClientTransport;
  #active: Transport;
  #kind: HttpTransportKind | undefined;
  #receiver: TransportReceiver | undefined;
  /** Set while the first send decides the protocol; resolves (never rejects) once decided. */
  #deciding: Promise<void> | undefined;
  #started = false;
  #closed = false;
  #closedNotified = false;
  #protocolVersion: string | undefined;

  /** Throws TypeError for an unparsable URL, RangeError for bad reconnect values or `maxRedirects`. */
  constructor(url: string | URL, options: FallbackTransportOptions = {}) {
    this.#url = new URL(url);
    this.#options = options;
    this.#streamable = new StreamableHttpClientTransport({ ...options, url: this.#url });
    this.#active = this.#streamable;
  }

  /**
   * A new, unstarted transport to the same URL with the same options and no session, which
   * decides the protocol again on its first send (see `ClientOptions.reinitialize`).
   */
  fresh(): FallbackTransport {
    return new FallbackTransport(this.#url, this.#options);
  }

  /** The protocol in use, once the first send settled it. */
  get kind(): HttpTransportKind | undefined {
    return this.#kind;
  }

  /** The URL this transport sends to (see `Transport.peer`). */
  get peer(): string {
    return this.#url.href;
  }

  /** The Streamable HTTP session id (undefined for the legacy transport). */
  get sessionId(): string | undefined {
    return this.#active.sessionId;
  }

  /** Forwarded to the transport in use. */
  setProtocolVersion(version: string): void {
    this.#protocolVersion = version;
    this.#active.setProtocolVersion?.(version);
  }

  /** Begins delivery. Throws LocalError `already_connected` on a second call. */
  async start(receiver: TransportReceiver): Promise<void> {
    if (this.#started) throw new LocalError('already_connected', 'The transport was already started');
    if (this.#closed) throw closedError();
    this.#started = true;
    this.#receiver = receiver;
    await this.#streamable.start(this.#forwarder(this.#streamable));
  }

  /**
   * Sends through the transport in use. The first call decides the protocol; it rejects
   * like {@link StreamableHttpClientTransport.send} (or, after a fallback, with LocalError
   * `connection_closed` naming both failures when the legacy transport cannot open).
   */
  send(message: JSONRPCMessage | JSONRPCMessage[] | string, options?: SendOptions): Promise<void> {
    if (this.#closed) return Promise.reject(closedError());
    if (!this.#started) return Promise.reject(new LocalError('not_connected', 'start() must be called before send()'));
    if (this.#kind !== undefined) return Promise.resolve(this.#active.send(message, options));
    // the session reuses its options object (see SendOptions): a send that waits keeps a copy
    const kept = options === undefined ? undefined : { ...options };
    if (this.#deciding !== undefined) return this.#deciding.then(() => this.#active.send(message, kept));
    const first = this.#probe(message, kept);
    this.#deciding = first.then(
      () => undefined,
      () => undefined,
    );
    return first;
  }

  async #probe(message: JSONRPCMessage | JSONRPCMessage[] | string, options: SendOptions | undefined): Promise<void> {
    try {
      await this.#streamable.send(message, options);
      this.#kind = 'streamable-http';
      return;
    } catch (err) {
      const fallBackOn = this.#options.fallBackOn ?? shouldFallBack;
      if (this.#closed || !(err instanceof HttpStatusError) || !fallBackOn(err.status)) {
        this.#kind = 'streamable-http';
        throw err;
      }
      if (!carriesInitialize(message)) {
        // A stateless-era probe (`server/discover`) that a 2025-era server refused: the
        // client falls back to `initialize`, and that message decides the transport.
        this.#deciding = undefined;
        throw err;
      }
      await this.#fallBack(err, message, options);
    }
  }

  async #fallBack(cause: HttpStatusError, message: JSONRPCMessage | JSONRPCMessage[] | string, options: SendOptions | undefined): Promise<void> {
    const o = this.#options;
    const legacy = new SseClientTransport({
      url: o.sseUrl ?? this.#url,
      fetch: o.fetch,
      requester: o.requester,
      headers: o.headers,
      requestInit: o.requestInit,
      maxEventChars: o.maxEventChars,
      maxRedirects: o.maxRedirects,
      maxErrorBodyChars: o.maxErrorBodyChars,
      acceptTimeoutMs: o.acceptTimeoutMs,
      endpointTimeoutMs: o.endpointTimeoutMs,
      auth: o.auth,
    });
    this.#active = legacy;
    this.#kind = 'sse';
    void this.#streamable.close();
    if (this.#protocolVersion !== undefined) legacy.setProtocolVersion(this.#protocolVersion);
    try {
      await legacy.start(this.#forwarder(legacy));
    } catch (err) {
      if (this.#closed) throw closedError();
      const reason = err instanceof Error ? err.message : String(err);
      throw new LocalError(
        'connection_closed',
        `Neither transport works at ${this.#url.href}: Streamable HTTP failed (${cause.message}) and the legacy HTTP+SSE transport failed (${reason})`,
        { cause: err },
      );
    }
    if (this.#closed) {
      await legacy.close();
      throw closedError();
    }
    await legacy.send(message, options);
  }

  /** Passes events of `transport` on while it is the one in use. */
  #forwarder(transport: Transport): TransportReceiver {
    return {
      message: (data, info) => {
        if (this.#active === transport && !this.#closed) this.#receiver!.message(data, info);
      },
      error: (err) => {
        if (this.#active === transport && !this.#closed) this.#receiver!.error(err);
      },
      closed: (reason) => {
        if (this.#active !== transport) return;
        this.#closed = true;
        this.#notifyClosed(reason);
      },
    };
  }

  #notifyClosed(reason: Error | undefined): void {
    if (this.#closedNotified) return;
    this.#closedNotified = true;
    this.#receiver?.closed(reason);
  }

  /** Closes the transport in use (see its `close()`), then calls `receiver.closed()`. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    const active = this.#active;
    await active.close();
    if (active !== this.#streamable) await this.#streamable.close();
    this.#notifyClosed(undefined);
  }
}

/** Options of {@link connectClient}: the transport's, plus the handshake's request options. */
export interface ConnectClientOptions<O> extends FallbackTransportOptions {
  /** Passed to `client.connect()` (timeouts, signal). */
  connectOptions?: O;
}

/**
 * Creates a {@link FallbackTransport} for `url`. Throws TypeError for an unparsable URL.
 * Equivalent to `new FallbackTransport(url, options)`.
 */
export function createClientTransport(url: string | URL, options: FallbackTransportOptions = {}): FallbackTransport {
  return new FallbackTransport(url, options);
}

/**
 * Connects `client` (an mcpkit `Client`, or anything with the same `connect`) to the server
 * at `url` over Streamable HTTP, falling back to HTTP+SSE for older servers; resolves with
 * the transport (its `kind` tells which one). Rejects like `client.connect()`.
 */
export async function connectClient<O>(
  client: { connect(transport: Transport, options?: O): Promise<unknown> },
  url: string | URL,
  options: ConnectClientOptions<O> = {},
): Promise<FallbackTransport> {
  const { connectOptions, ...transportOptions } = options;
  const transport = new FallbackTransport(url, transportOptions);
  await client.connect(transport, connectOptions);
  return transport;
}
