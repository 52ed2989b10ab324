/**
 * The `Mcp-Session-Id` mode's side of a {@link SessionDirectory}: recording a new session,
 * restoring one this handler does not hold from its record, writing log level and
 * subscriptions through, ending a session everywhere, and applying what other instances
 * changed. Used by session-path.ts only when the handler has the `sessions` option.
 *
 * Routing: the transports made here report GET-stream messages that found no GET attached
 * (see `TransportHost.unattached`), which go to the directory's `forward`; client messages
 * of a POST that concern no request of this instance go there too ({@link SessionSharing.route}),
 * and what other instances forward is delivered when it concerns this one.
 *
 * Resumption: the transports made here carry the directory's `streamTag` (or a random tag)
 * in their event ids; a `Last-Event-ID` of another instance's stream is followed through
 * the directory's `follow`, and a follow request for a stream of a session held here is
 * answered by that session's transport (`followStream`).
 *
 * Contract: every method answers failure with a reply rather than throwing — 404 for a
 * session the directory does not know (or a revision this instance does not speak), 503
 * with `Retry-After` when the directory cannot be reached. Concurrent requests for one
 * session this handler does not hold share one restore (one directory read).
 * Runtime-neutral.
 */
import type { JSONObject, RequestId } from '../../jsonrpc/types.js';
import { Method, Notification } from '../../protocol/methods.js';
import type { ServerConnection } from '../../server/connection.js';
import type { McpServer } from '../../server/server.js';
import type { MessageInfo } from '../../transport/types.js';
import type { Implementation, LoggingLevel } from '../../types.js';
import { emptyReply, errorReply, internalErrorReply, SESSION_NOT_FOUND, TRANSPORT_ERROR } from './replies.js';
import type { RoutedKind, SessionDirectory, SessionPatch, SessionRecord } from './session-directory.js';
import { connectTransport } from './session-dispatch.js';
import { newSessionId, RETRY_AFTER_SECONDS, type SessionRegistry } from './session-registry.js';
import { StreamableSessionTransport, type TransportHost } from './session-transport.js';
import type { HttpReply, HttpRequestInfo } from './types.js';

/** The requests whose effect is part of a session's record. */
const STATE_METHODS: ReadonlySet<string> = new Set([Method.LoggingSetLevel, Method.ResourcesSubscribe, Method.ResourcesUnsubscribe]);

/** Message info of client messages another instance received (their HTTP request was checked there). */
const ROUTED_INFO: MessageInfo = {};

function isId(value: unknown): value is RequestId {
  return typeof value === 'string' || typeof value === 'number';
}

/**
 * True when the client message `m` concerns this instance's copy of the session: a response
 * to a request it sent, a cancellation of a request it runs, progress of a request it sent.
 */
function concerns(transport: StreamableSessionTransport, m: unknown): boolean {
  if (typeof m !== 'object' || m === null) return false;
  const { id, method, params } = m as { id?: unknown; method?: unknown; params?: { requestId?: unknown; progressToken?: unknown } };
  if (method === undefined) return isId(id) && transport.awaits(id);
  if (method === Notification.Cancelled) return isId(params?.requestId) && transport.isOpenRequest(params.requestId);
  if (method === Notification.Progress) return isId(params?.progressToken) && transport.awaits(params.progressToken);
  return false;
}

/** Seconds a client waits before sending again an answer that could not be relayed. */
const RELAY_RETRY_SECONDS = '1';

/**
 * The tag of the instance a client message is for, when its request id (an answer's `id`, a
 * progress notification's `progressToken`) carries one (`<tag>-<n>`, see
 * `Transport.requestIdPrefix`) other than `own`; else undefined (for every instance).
 */
function askerOf(m: unknown, own: string): string | undefined {
  const { id, method, params } = m as { id?: unknown; method?: unknown; params?: { progressToken?: unknown } };
  const ref = method === undefined ? id : method === Notification.Progress ? params?.progressToken : undefined;
  if (typeof ref !== 'string') return undefined;
  const dash = ref.lastIndexOf('-');
  if (dash <= 0 || !/^\d{1,15}$/.test(ref.slice(dash + 1))) return undefined;
  const tag = ref.slice(0, dash);
  return tag !== own && /^[A-Za-z0-9_-]{1,32}$/.test(tag) ? tag : undefined;
}

/** True for the client messages that may concern another instance: responses, cancellations, progress. */
function routable(m: unknown): boolean {
  if (typeof m !== 'object' || m === null) return false;
  const method = (m as { method?: unknown }).method;
  return method === undefined || method === Notification.Cancelled || method === Notification.Progress;
}

/** 404 for an unknown session (2025-03-26 › Streamable HTTP › Session Management: the client starts a new one). */
export function sessionNotFound(id: string | number | null = null): HttpReply {
  return errorReply(404, SESSION_NOT_FOUND, 'Session not found', undefined, id);
}

/** 503 with `Retry-After`: the directory could not be reached. */
function unavailable(): HttpReply {
  return errorReply(503, TRANSPORT_ERROR, 'Service Unavailable: the session directory cannot be reached', { 'retry-after': RETRY_AFTER_SECONDS });
}

/** The directory record of `connection` (initialized), bound to `owner`. */
function recordOf(id: string, connection: ServerConnection, owner: string | undefined, idleMs: number): SessionRecord {
  return {
    id,
    revision: connection.protocolVersion!,
    clientCapabilities: (connection.clientCapabilities ?? {}) as JSONObject,
    clientInfo: connection.clientInfo as JSONObject | undefined,
    logLevel: connection.logLevel,
    subscriptions: [...connection.subscriptions],
    owner,
    idleMs,
  };
}

/** Applies a record's mutable parts to a held connection. */
function applyPatch(connection: ServerConnection, patch: SessionPatch): void {
  connection.restoreState({ logLevel: 'logLevel' in patch ? (patch.logLevel as LoggingLevel | undefined) : undefined, subscriptions: patch.subscriptions });
}

/** See the module note. One per `Mcp-Session-Id` path. */
export class SessionSharing {
  readonly #directory: SessionDirectory;
  readonly #server: McpServer;
  readonly #host: TransportHost;
  readonly #registry: SessionRegistry;
  readonly #idleMs: number;
  readonly #restoring = new Map<string, Promise<StreamableSessionTransport | HttpReply>>();
  readonly #unwatch: () => void;
  /** This instance's part of its transports' event ids and event store keys. */
  readonly #tag: string;
  /** The host of the transports made here: the handler's, plus the routing of unattached GET-stream messages. */
  readonly #routingHost: TransportHost;
  /** The server connection of each transport held here (the transport itself never holds its role). */
  readonly #connections = new WeakMap<StreamableSessionTransport, ServerConnection>();

  constructor(directory: SessionDirectory, server: McpServer, host: TransportHost, registry: SessionRegistry, idleMs: number) {
    this.#directory = directory;
    this.#server = server;
    this.#host = host;
    this.#registry = registry;
    this.#idleMs = idleMs;
    const tag = directory.streamTag;
    if (tag !== undefined && !/^[A-Za-z0-9_-]{1,32}$/.test(tag)) throw new RangeError('A session directory streamTag is 1 to 32 characters of A-Z a-z 0-9 _ -');
    this.#tag = tag ?? newSessionId().slice(0, 12);
    const follow = directory.follow?.bind(directory);
    this.#routingHost = {
      get store() {
        return host.store;
      },
      get retryMs() {
        return host.retryMs;
      },
      reportError: (error) => host.reportError(error),
      released: (transport) => host.released(transport),
      unattached: (transport, text, origin) => directory.forward?.(transport.sessionId!, 'stream', text, origin),
      follow: follow === undefined ? undefined : (transport, owner, stream, follower) => follow(transport.sessionId!, owner, stream, follower),
      streamOpened: directory.streamOpened === undefined ? undefined : (transport, stream, ids) => directory.streamOpened!(transport.sessionId!, stream, ids),
      streamEnded: directory.streamEnded === undefined ? undefined : (transport, stream) => directory.streamEnded!(transport.sessionId!, stream),
      openRequests:
        directory.openRequests === undefined ? undefined : (transport, owner, stream) => directory.openRequests!(transport.sessionId!, owner, stream),
    };
    this.#unwatch = directory.watch({
      removed: (id) => registry.forget(id),
      updated: (id, patch) => {
        const transport = registry.held(id);
        const connection = transport === undefined ? undefined : this.#connections.get(transport);
        if (connection !== undefined) applyPatch(connection, patch);
      },
      forwarded: (id, kind, text, origin) => this.#forwarded(id, kind, text, origin),
      followed: (id, stream, feed) => registry.held(id)?.followStream(stream, feed),
    });
  }

  /** A transport for session `sessionId` of `owner` made here (created or restored). */
  newTransport(sessionId: string, owner: string | undefined): StreamableSessionTransport {
    return new StreamableSessionTransport(this.#routingHost, sessionId, this.#tag, owner);
  }

  /**
   * Routes the client messages of a POST without requests (`value`, parsed): those that may
   * concern another instance and concern no request of this one go there — an answer (or
   * progress) to the instance its request id's prefix names, anything else to every
   * instance. Undefined when nothing was routed (deliver the POST here, synchronously).
   * Else resolves with the reply once routed: 503 with `Retry-After` when a message could
   * not be relayed (nothing of the POST was delivered, the client sends it again), 202 when
   * the POST was one routed message, undefined when the rest is to be delivered here.
   */
  route(transport: StreamableSessionTransport, value: unknown): Promise<HttpReply | undefined> | undefined {
    const directory = this.#directory;
    if (directory.forward === undefined && directory.relay === undefined) return undefined;
    const messages = Array.isArray(value) ? value : [value];
    const relayed: Array<Promise<boolean>> = [];
    let forwarded = 0;
    for (const m of messages) {
      if (!routable(m) || concerns(transport, m)) continue;
      forwarded++;
      const text = JSON.stringify(m);
      if (directory.relay === undefined) directory.forward!(transport.sessionId!, 'client', text);
      else relayed.push(directory.relay(transport.sessionId!, askerOf(m, this.#tag), text));
    }
    if (forwarded === 0) return undefined;
    const single = !Array.isArray(value) && forwarded === 1;
    if (relayed.length === 0) return Promise.resolve(single ? emptyReply(202) : undefined);
    return Promise.all(relayed).then(
      () => (single ? emptyReply(202) : undefined),
      (error: unknown) => {
        this.#host.reportError(error as Error);
        return errorReply(
          503,
          TRANSPORT_ERROR,
          'Service Unavailable: the answer cannot be relayed to the server instance that asked for it now; send it again',
          {
            'retry-after': RELAY_RETRY_SECONDS,
          },
        );
      },
    );
  }

  /** The held session `transport` serves a request here: its record's expiry moves on (throttled by the directory). */
  use(transport: StreamableSessionTransport): StreamableSessionTransport {
    this.#directory.touch(transport.sessionId!, this.#idleMs);
    return transport;
  }

  /**
   * Records the session `transport` (connected as `connection`) just initialized; undefined
   * when recorded, else the reply (503 at the directory's cap or when it cannot be reached,
   * 500 for a record it refuses), the transport then closed.
   */
  async record(transport: StreamableSessionTransport, connection: ServerConnection): Promise<HttpReply | undefined> {
    let verdict: 'created' | 'full' | 'crowded';
    try {
      verdict = await this.#directory.create(recordOf(transport.sessionId!, connection, transport.owner, this.#idleMs), {
        maxPerOwner: this.#registry.maxPerPrincipal,
      });
    } catch (error) {
      void transport.close();
      this.#host.reportError(error as Error);
      return error instanceof RangeError ? internalErrorReply() : unavailable();
    }
    if (verdict === 'full') {
      void transport.close();
      return errorReply(503, TRANSPORT_ERROR, 'Service Unavailable: too many sessions', { 'retry-after': RETRY_AFTER_SECONDS });
    }
    if (verdict === 'crowded') {
      void transport.close();
      return errorReply(429, TRANSPORT_ERROR, 'Too Many Requests: this principal holds too many sessions; end one (DELETE) or retry later', {
        'retry-after': RETRY_AFTER_SECONDS,
      });
    }
    this.#connections.set(transport, connection);
    this.#writeThrough(connection, transport.sessionId!);
    return undefined;
  }

  /** The session `id` this handler does not hold, restored from its record (when `info`'s principal may use it), or the reply. */
  async restore(id: string, info: HttpRequestInfo | undefined): Promise<StreamableSessionTransport | HttpReply> {
    // the owner is checked in the directory before its expiry moves: a refused request keeps nothing alive
    const reader = this.#registry.reader(info);
    const key = reader === undefined ? id : `${id}\n${reader.owner ?? ''}`;
    let pending = this.#restoring.get(key);
    if (pending === undefined) {
      pending = this.#load(id, reader);
      this.#restoring.set(key, pending);
      void pending.then(() => this.#restoring.delete(key));
    }
    const found = await pending;
    if (!(found instanceof StreamableSessionTransport)) return found;
    return found.closed || !this.#registry.mayUse(found.owner, info) ? sessionNotFound() : found;
  }

  /** Ends session `id` in the directory (every instance forgets it); undefined when done, else the 503. */
  async end(id: string): Promise<HttpReply | undefined> {
    try {
      await this.#directory.delete(id);
      return undefined;
    } catch (error) {
      this.#host.reportError(error as Error);
      return unavailable();
    }
  }

  /** Stops listening to the directory. */
  close(): void {
    this.#unwatch();
  }

  async #load(id: string, reader: { readonly owner: string | undefined } | undefined): Promise<StreamableSessionTransport | HttpReply> {
    let record: SessionRecord | undefined;
    try {
      record = await this.#directory.get(id, reader);
    } catch (error) {
      this.#host.reportError(error as Error);
      return unavailable();
    }
    if (record === undefined) return sessionNotFound();
    const room = this.#registry.roomForOne();
    if (room !== undefined) return room;
    const transport = this.newTransport(id, record.owner);
    this.#registry.add(transport);
    const connection = await connectTransport(this.#server, transport, (error) => this.#host.reportError(error));
    if (connection === undefined) return internalErrorReply();
    try {
      connection.initializeSessionless(record.revision, record.clientCapabilities, record.clientInfo as Implementation | undefined);
    } catch (error) {
      // a revision this instance does not speak (a deployment of mixed versions): the client starts over
      this.#host.reportError(error as Error);
      void transport.close();
      return sessionNotFound();
    }
    applyPatch(connection, record);
    this.#connections.set(transport, connection);
    this.#writeThrough(connection, id);
    return transport;
  }

  /** Delivers what another instance routed, when it concerns this instance's copy of session `id`. */
  #forwarded(id: string, kind: RoutedKind, text: string, origin: string | undefined): void {
    const transport = this.#registry.held(id);
    if (transport === undefined) return;
    if (kind === 'stream') {
      transport.relayToStandalone(text, origin);
      return;
    }
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (concerns(transport, message)) transport.deliver(message, ROUTED_INFO, undefined);
  }

  /** Writes log level and subscriptions into the record before the answer to a request that changed them goes out. */
  #writeThrough(connection: ServerConnection, id: string): void {
    const directory = this.#directory;
    connection.endpoint.use((next) => async (method, params, ctx) => {
      const result = await next(method, params, ctx);
      if (ctx.kind === 'request' && STATE_METHODS.has(method))
        await directory.update(id, { logLevel: connection.logLevel, subscriptions: [...connection.subscriptions] });
      return result;
    });
  }
}
